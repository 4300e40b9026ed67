// SPDX-License-Identifier: GPL-2.0-only
/*
 * The indicator events of Molka et al. (ICPE'17) per CPU, by libpfm4 PMU
 * name, and their split into counter groups.
 *
 * Only Haswell-EP is validated: the paper correlated exactly these events
 * with designed bandwidth and latency benchmarks on it (Tables 2 and 3,
 * Figures 3-9).  Every other row maps each role to the nearest event of
 * that CPU by its documented meaning (Intel's and AMD's event lists, as
 * libpfm4 4.13 names them); nobody has run the paper's benchmarks against
 * them, so `validated` is 0 and the output says so.  Roles a CPU has no
 * event for stay empty rather than taking a guess.
 */
#include <errno.h>
#include <string.h>

#include "lib/tools/membound/events.h"

#define EV1(a, n) { { a, NULL, NULL }, n }
#define EV2(a, b, n) { { a, b, NULL }, n }
#define EV3(a, b, c, n) { { a, b, c }, n }
#define NONE(n) { { NULL, NULL, NULL }, n }

/* The paper's OFFCORE_RESPONSE filters (Table 2's footnote): data reads
 * and RFOs, demand and prefetch, by supplier, any snoop result. */
#define HSW_OCR "OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:"
#define HSW_OCR_HIT HSW_OCR "L3_HIT:SNP_ANY"
#define HSW_OCR_LOC HSW_OCR "L3_MISS_LOCAL:SNP_ANY"
#define HSW_OCR_REM HSW_OCR "L3_MISS_REMOTE_HOP0:L3_MISS_REMOTE_HOP1:L3_MISS_REMOTE_HOP2P:SNP_ANY"

/*
 * Haswell and Broadwell share these events.  The paper's notes: section
 * 4.3 for the stalls (STALLS_L1D_PENDING is the only stall event that
 * leaves out dependency stalls, Figure 8; FB_FULL, SQ_FULL and SB show
 * bandwidth-bound stalls, Figure 9), section 4.1 and Table 2 for the
 * rest.  perf::L1-DCACHE-LOADS/-STORES of Table 2 are the kernel's names
 * for MEM_UOPS_RETIRED:ALL_LOADS/ALL_STORES (raw 0x81d0/0x82d0) on these
 * CPUs; the core PMU's names keep the row within one libpfm4 PMU.
 */
#define HSW_STALLS(src)                                                                     \
	[MB_R_CYCLES] = EV1("CPU_CLK_THREAD_UNHALTED:THREAD_P", src "; unhalted core cycles"), \
	[MB_R_ACTIVE] = EV1("UOPS_EXECUTED:CYCLES_GE_1_UOP_EXEC",                              \
			    src "; cycles with >= 1 uop executed, the complement of CYCLES_NO_EXECUTE"), \
	[MB_R_NO_EXECUTE] = EV1("CYCLE_ACTIVITY:CYCLES_NO_EXECUTE",                            \
				src "; sec. 4.3: the reference for all stall cycles"),           \
	[MB_R_STALLS_LOAD] = EV1("CYCLE_ACTIVITY:STALLS_L1D_PENDING",                          \
				 src "; sec. 4.3, Fig. 8: memory stalls without dependency stalls"), \
	[MB_R_STALLS_STORE] = EV1("RESOURCE_STALLS:SB", src "; sec. 4.3, Fig. 9: store stalls"), \
	[MB_R_BW_FB_FULL] = EV1("L1D_PEND_MISS:FB_FULL", src "; sec. 4.3, Fig. 9: bandwidth bound"), \
	[MB_R_BW_SQ_FULL] = EV1("OFFCORE_REQUESTS_BUFFER:SQ_FULL",                             \
				src "; sec. 4.3, Fig. 9: bandwidth bound")

#define HSW_UTIL(src)                                                                        \
	[MB_R_L1_RD] = EV1("MEM_UOPS_RETIRED:ALL_LOADS", src "; Table 2 (perf::L1-DCACHE-LOADS)"), \
	[MB_R_L1_WR] = EV1("MEM_UOPS_RETIRED:ALL_STORES", src "; Table 2 (perf::L1-DCACHE-STORES)"), \
	[MB_R_L2_RD] = EV2("L2_TRANS:DEMAND_DATA_RD", "L2_TRANS:RFO", src "; Table 2, Fig. 4"),  \
	[MB_R_L2_WR] = EV1("L2_TRANS:L1D_WB", src "; Table 2, Fig. 5: L1D write-backs"),         \
	[MB_R_L3_WR] = EV1("L2_TRANS:L2_WB", src "; Table 2, Fig. 5: L2 write-backs")

static const struct mb_event_row mb_rows[] = {
	{ "hsw_ep", 1, {
		HSW_STALLS("ICPE'17"),
		HSW_UTIL("ICPE'17"),
		[MB_R_L3_RD] = EV3(HSW_OCR_HIT, HSW_OCR_LOC, HSW_OCR_REM,
				   "ICPE'17; Table 2: L3 hit + local + remote miss, all lines from the uncore"),
		[MB_R_DRAM_RD] = EV1(HSW_OCR_LOC, "ICPE'17; Table 2: undercounts (61 of 162 M lines/s)"),
		[MB_R_RDRAM_RD] = EV1(HSW_OCR_REM, "ICPE'17; Table 2"),
	} },
	/* Broadwell-EP: the Haswell-EP core with the same event list. */
	{ "bdw_ep", 0, {
		HSW_STALLS("as hsw_ep"),
		HSW_UTIL("as hsw_ep"),
		[MB_R_L3_RD] = EV3(HSW_OCR_HIT, HSW_OCR_LOC, HSW_OCR_REM, "as hsw_ep"),
		[MB_R_DRAM_RD] = EV1(HSW_OCR_LOC, "as hsw_ep"),
		[MB_R_RDRAM_RD] = EV1(HSW_OCR_REM, "as hsw_ep"),
	} },
	/* Client Haswell: the same core, one socket, so no remote memory;
	 * its response filter has no local/remote split: L3_MISS is DRAM. */
	{ "hsw", 0, {
		HSW_STALLS("as hsw_ep"),
		HSW_UTIL("as hsw_ep"),
		[MB_R_L3_RD] = EV2(HSW_OCR "L3_HIT:SNP_ANY", HSW_OCR "L3_MISS:SNP_ANY",
				   "as hsw_ep, single socket"),
		[MB_R_DRAM_RD] = EV1(HSW_OCR "L3_MISS:SNP_ANY", "as hsw_ep, single socket"),
		[MB_R_RDRAM_RD] = NONE("single socket"),
	} },
	/*
	 * Skylake-SP and Cascade Lake: STALLS_L1D_MISS is STALLS_L1D_PENDING
	 * renamed (no execution while an L1D miss is pending), STALLS_TOTAL
	 * is CYCLES_NO_EXECUTE's successor; L2_TRANS lost DEMAND_DATA_RD,
	 * RFO and L1D_WB, so L2 reads are the L2 requests by demand reads and
	 * RFOs, and L1D write-backs have no event.
	 */
#define SKX_ROW(name, src)                                                                     \
	{ name, 0, {                                                                           \
		[MB_R_CYCLES] = EV1("CPU_CLK_THREAD_UNHALTED:THREAD_P", src),                      \
		[MB_R_ACTIVE] = EV1("UOPS_EXECUTED:THREAD_CYCLES_GE_1", src),                      \
		[MB_R_NO_EXECUTE] = EV1("CYCLE_ACTIVITY:STALLS_TOTAL", src "; CYCLES_NO_EXECUTE's successor"), \
		[MB_R_STALLS_LOAD] = EV1("CYCLE_ACTIVITY:STALLS_L1D_MISS", src "; STALLS_L1D_PENDING renamed"), \
		[MB_R_STALLS_STORE] = EV1("RESOURCE_STALLS:SB", src "; as hsw_ep"),                \
		[MB_R_BW_FB_FULL] = EV1("L1D_PEND_MISS:FB_FULL", src "; as hsw_ep"),               \
		[MB_R_BW_SQ_FULL] = EV1("OFFCORE_REQUESTS_BUFFER:SQ_FULL", src "; as hsw_ep"),     \
		[MB_R_L1_RD] = EV1("MEM_INST_RETIRED:ALL_LOADS", src "; MEM_UOPS_RETIRED renamed"), \
		[MB_R_L1_WR] = EV1("MEM_INST_RETIRED:ALL_STORES", src "; MEM_UOPS_RETIRED renamed"), \
		[MB_R_L2_RD] = EV2("L2_RQSTS:ALL_DEMAND_DATA_RD", "L2_RQSTS:ALL_RFO",               \
				   src "; no L2_TRANS:DEMAND_DATA_RD/RFO; excludes L1 prefetches"), \
		[MB_R_L2_WR] = NONE("no L1D write-back event"),                                    \
		[MB_R_L3_RD] = EV3("OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:L3_HIT:SNP_ANY",           \
				   "OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:L3_MISS_LOCAL:SNP_ANY",    \
				   "OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:L3_MISS_REMOTE_HOP1_DRAM:SNP_ANY", \
				   src "; Table 2's filters, remote supplier renamed"),            \
		[MB_R_L3_WR] = EV1("L2_TRANS:L2_WB", src "; as hsw_ep"),                           \
		[MB_R_DRAM_RD] = EV1("OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:L3_MISS_LOCAL:SNP_ANY", src), \
		[MB_R_RDRAM_RD] = EV1("OFFCORE_RESPONSE_0:ANY_DATA:ANY_RFO:L3_MISS_REMOTE_HOP1_DRAM:SNP_ANY", src), \
	} }
	SKX_ROW("skx", "Intel SDM event list"),
	SKX_ROW("clx", "as skx"),
	/*
	 * Ice Lake client: SQ_MISC:SQ_FULL replaces OFFCORE_REQUESTS_BUFFER;
	 * the response events are fixed combinations (OCR), demand only, so
	 * L2 prefetches into L2 are missed; one socket.
	 */
	{ "icl", 0, {
		[MB_R_CYCLES] = EV1("CPU_CLK_UNHALTED:THREAD_P", "Intel event list"),
		[MB_R_ACTIVE] = EV1("UOPS_EXECUTED:CYCLES_GE_1", "Intel event list"),
		[MB_R_NO_EXECUTE] = EV1("CYCLE_ACTIVITY:STALLS_TOTAL", "as skx"),
		[MB_R_STALLS_LOAD] = EV1("CYCLE_ACTIVITY:STALLS_L1D_MISS", "as skx"),
		[MB_R_STALLS_STORE] = EV1("RESOURCE_STALLS:SB", "as hsw_ep"),
		[MB_R_BW_FB_FULL] = EV1("L1D_PEND_MISS:FB_FULL", "as hsw_ep"),
		[MB_R_BW_SQ_FULL] = EV1("SQ_MISC:SQ_FULL", "OFFCORE_REQUESTS_BUFFER:SQ_FULL's successor"),
		[MB_R_L1_RD] = EV1("MEM_INST_RETIRED:ALL_LOADS", "as skx"),
		[MB_R_L1_WR] = EV1("MEM_INST_RETIRED:ALL_STORES", "as skx"),
		[MB_R_L2_RD] = EV2("L2_RQSTS:ALL_DEMAND_DATA_RD", "L2_RQSTS:ALL_RFO", "as skx"),
		[MB_R_L2_WR] = NONE("no L1D write-back event"),
		[MB_R_L3_RD] = EV2("OCR:DEMAND_DATA_RD_ANY_RESPONSE", "OCR:DEMAND_RFO_ANY_RESPONSE",
				   "all L2 misses by demand reads and RFOs; no prefetches"),
		[MB_R_L3_WR] = EV1("L2_TRANS:L2_WB", "as hsw_ep"),
		[MB_R_DRAM_RD] = EV2("OCR:DEMAND_DATA_RD_DRAM", "OCR:DEMAND_RFO_DRAM", "demand only"),
		[MB_R_RDRAM_RD] = NONE("single socket"),
	} },
	/* Ice Lake-SP: the OCR READS_TO_CORE combinations cover demand and
	 * L1/L2 prefetch data reads and RFOs, as Table 2's ANY_DATA:ANY_RFO. */
	{ "icx", 0, {
		[MB_R_CYCLES] = EV1("CPU_CLK_UNHALTED:THREAD_P", "Intel event list"),
		[MB_R_ACTIVE] = EV1("UOPS_EXECUTED:CYCLES_GE_1", "Intel event list"),
		[MB_R_NO_EXECUTE] = EV1("CYCLE_ACTIVITY:STALLS_TOTAL", "as skx"),
		[MB_R_STALLS_LOAD] = EV1("CYCLE_ACTIVITY:STALLS_L1D_MISS", "as skx"),
		[MB_R_STALLS_STORE] = EV1("RESOURCE_STALLS:SB", "as hsw_ep"),
		[MB_R_BW_FB_FULL] = EV1("L1D_PEND_MISS:FB_FULL", "as hsw_ep"),
		[MB_R_BW_SQ_FULL] = EV1("SQ_MISC:SQ_FULL", "as icl"),
		[MB_R_L1_RD] = EV1("MEM_INST_RETIRED:ALL_LOADS", "as skx"),
		[MB_R_L1_WR] = EV1("MEM_INST_RETIRED:ALL_STORES", "as skx"),
		[MB_R_L2_RD] = EV2("L2_RQSTS:ALL_DEMAND_DATA_RD", "L2_RQSTS:ALL_RFO", "as skx"),
		[MB_R_L2_WR] = NONE("no L1D write-back event"),
		[MB_R_L3_RD] = EV3("OCR:READS_TO_CORE_L3_HIT", "OCR:READS_TO_CORE_L3_MISS_LOCAL",
				   "OCR:READS_TO_CORE_REMOTE", "Table 2's sum with the OCR combinations"),
		[MB_R_L3_WR] = EV1("L2_TRANS:L2_WB", "as hsw_ep"),
		[MB_R_DRAM_RD] = EV1("OCR:READS_TO_CORE_L3_MISS_LOCAL", "Intel event list"),
		[MB_R_RDRAM_RD] = EV1("OCR:READS_TO_CORE_REMOTE", "Intel event list; remote DRAM and caches"),
	} },
	/* Sapphire Rapids: no SQ_FULL event; L1D_PEND_MISS:L2_STALLS (an L1D
	 * miss waiting for lack of L2 resources) is the super-queue-full
	 * cycles that Intel's own top-down tree uses; L2_TRANS:L2_WB is gone,
	 * non-silent L2 evictions (dirty lines written back) replace it. */
	{ "spr", 0, {
		[MB_R_CYCLES] = EV1("CPU_CLK_UNHALTED:THREAD_P", "Intel event list"),
		[MB_R_ACTIVE] = EV1("UOPS_EXECUTED:CYCLES_GE_1", "Intel event list"),
		[MB_R_NO_EXECUTE] = EV1("CYCLE_ACTIVITY:STALLS_TOTAL", "as skx"),
		[MB_R_STALLS_LOAD] = EV1("CYCLE_ACTIVITY:STALLS_L1D_MISS", "as skx"),
		[MB_R_STALLS_STORE] = EV1("RESOURCE_STALLS:SB", "as hsw_ep"),
		[MB_R_BW_FB_FULL] = EV1("L1D_PEND_MISS:FB_FULL", "as hsw_ep"),
		[MB_R_BW_SQ_FULL] = EV1("L1D_PEND_MISS:L2_STALLS", "Intel top-down's SQ-full cycles"),
		[MB_R_L1_RD] = EV1("MEM_INST_RETIRED:ALL_LOADS", "as skx"),
		[MB_R_L1_WR] = EV1("MEM_INST_RETIRED:ALL_STORES", "as skx"),
		[MB_R_L2_RD] = EV2("L2_RQSTS:ALL_DEMAND_DATA_RD", "L2_RQSTS:ALL_RFO", "as skx"),
		[MB_R_L2_WR] = NONE("no L1D write-back event"),
		[MB_R_L3_RD] = EV3("OCR:READS_TO_CORE_L3_HIT", "OCR:READS_TO_CORE_L3_MISS_LOCAL",
				   "OCR:READS_TO_CORE_REMOTE", "as icx"),
		[MB_R_L3_WR] = EV1("L2_LINES_OUT:NON_SILENT", "no L2_TRANS:L2_WB; dirty L2 evictions"),
		[MB_R_DRAM_RD] = EV1("OCR:READS_TO_CORE_L3_MISS_LOCAL", "as icx"),
		[MB_R_RDRAM_RD] = EV1("OCR:READS_TO_CORE_REMOTE", "as icx"),
	} },
	/*
	 * Zen 3: no cycles-without-execution, pending-miss or fill-buffer-full
	 * events; a full store queue stalling dispatch is RESOURCE_STALLS:SB's
	 * counterpart.  Loads and stores are dispatched, not retired, ops.  L1D
	 * fills by source cover demand and prefetch like ANY_DATA:ANY_RFO.
	 */
	{ "amd64_fam19h_zen3", 0, {
		[MB_R_CYCLES] = EV1("CYCLES_NOT_IN_HALT", "AMD PPR 19h"),
		[MB_R_ACTIVE] = NONE("no cycles-with-execution event"),
		[MB_R_NO_EXECUTE] = NONE("no cycles-without-execution event"),
		[MB_R_STALLS_LOAD] = NONE("no stall-with-pending-miss event"),
		[MB_R_STALLS_STORE] = EV1("DISPATCH_RESOURCE_STALL_CYCLES_1:STORE_QUEUE_RSRC_STALL",
					  "AMD PPR 19h; dispatch stalled on a full store queue"),
		[MB_R_BW_FB_FULL] = NONE("no miss-buffer-full event"),
		[MB_R_BW_SQ_FULL] = NONE("no L2 request-queue-full event"),
		[MB_R_L1_RD] = EV1("LS_DISPATCH:LD_DISPATCH", "AMD PPR 19h; dispatched loads"),
		[MB_R_L1_WR] = EV1("LS_DISPATCH:STORE_DISPATCH", "AMD PPR 19h; dispatched stores"),
		[MB_R_L2_RD] = EV1("REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S",
				   "AMD PPR 19h; L1D reads and store RFOs to L2"),
		[MB_R_L2_WR] = NONE("no L1D write-back event"),
		[MB_R_L3_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:INT_CACHE:EXT_CACHE_LCL:MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT",
				   "AMD PPR 19h; L1D fills from beyond the L2"),
		[MB_R_L3_WR] = NONE("no L2 write-back event"),
		[MB_R_DRAM_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_LCL", "AMD PPR 19h"),
		[MB_R_RDRAM_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT", "AMD PPR 19h"),
	} },
	/* Zen 4 adds a retire-stall reason: oldest op a load waiting for data. */
	{ "amd64_fam19h_zen4", 0, {
		[MB_R_CYCLES] = EV1("CYCLES_NOT_IN_HALT", "AMD PPR 19h"),
		[MB_R_ACTIVE] = NONE("no cycles-with-execution event"),
		[MB_R_NO_EXECUTE] = NONE("no cycles-without-execution event"),
		[MB_R_STALLS_LOAD] = EV1("CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD",
					 "AMD PPR 19h; no retirement, oldest op a load waiting"),
		[MB_R_STALLS_STORE] = EV1("DISPATCH_RESOURCE_STALL_CYCLES_1:STORE_QUEUE_RSRC_STALL", "as zen3"),
		[MB_R_BW_FB_FULL] = NONE("no miss-buffer-full event"),
		[MB_R_BW_SQ_FULL] = NONE("no L2 request-queue-full event"),
		[MB_R_L1_RD] = EV1("LS_DISPATCH:LD_DISPATCH", "as zen3"),
		[MB_R_L1_WR] = EV1("LS_DISPATCH:STORE_DISPATCH", "as zen3"),
		[MB_R_L2_RD] = EV1("REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S", "as zen3"),
		[MB_R_L2_WR] = NONE("no L1D write-back event"),
		[MB_R_L3_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR",
				   "as zen3, Zen 4's sources"),
		[MB_R_L3_WR] = NONE("no L2 write-back event"),
		[MB_R_DRAM_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_NEAR", "AMD PPR 19h"),
		[MB_R_RDRAM_RD] = EV1("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:DRAM_IO_FAR", "AMD PPR 19h"),
	} },
	{ NULL, 0, { [0] = NONE(NULL) } },
};

/* Table 3, Haswell-EP.  The C-Box filter register holds one opcode, so
 * OPC_DRD and OPC_RFO cannot count together: two groups, multiplexed. */
static const struct mb_uncore_row mb_urows[] = {
	{ "hsw_ep", 1, {
		[MB_U_L3_RD] = { "hswep_unc_cbo", { "UNC_C_TOR_INSERTS:OPCODE:OPC_DRD",
						    "UNC_C_TOR_INSERTS:OPCODE:OPC_RFO", NULL },
				 "ICPE'17 Table 3; one opcode filter per box: the two terms multiplex" },
		[MB_U_L3_WR] = { "hswep_unc_cbo",
				 { "UNC_C_LLC_LOOKUP:WRITE:STATE_M:STATE_E:STATE_S:STATE_F", NULL, NULL },
				 "ICPE'17 Table 3, Fig. 6" },
		[MB_U_MEM_RD] = { "hswep_unc_ha", { "UNC_H_REQUESTS:READS", NULL, NULL },
				  "ICPE'17 Table 3: one event per line" },
		[MB_U_MEM_WR] = { "hswep_unc_ha", { "UNC_H_IMC_WRITES:FULL", NULL, NULL },
				  "ICPE'17 Table 3 (UNC_H_REQUESTS:WRITES also counts them)" },
		[MB_U_LINK_RX] = { "hswep_unc_qpi", { "UNC_Q_RXL_FLITS_G1:DRS_DATA", NULL, NULL },
				   "ICPE'17 Table 3: 8 flits per line" },
		[MB_U_LINK_TX] = { "hswep_unc_qpi", { "UNC_Q_TXL_FLITS_G1:DRS_DATA", NULL, NULL },
				   "ICPE'17 Table 3: 8 flits per line" },
	} },
	{ NULL, 0, { [0] = { NULL, { NULL, NULL, NULL }, NULL } } },
};

/* Table 2 (per core) and Table 3 (per socket), maximal events/s. */
const double mb_hswep_core_peak[MB_NROLES] = {
	[MB_R_L1_RD] = 4993e6, [MB_R_L1_WR] = 2496e6,
	[MB_R_L2_RD] = 1546e6, [MB_R_L2_WR] = 398e6,
	[MB_R_L3_RD] = 467e6,  [MB_R_L3_WR] = 277e6,
	[MB_R_DRAM_RD] = 61e6, [MB_R_RDRAM_RD] = 63e6,
};
const double mb_hswep_uncore_peak[MB_NUROLES] = {
	[MB_U_L3_RD] = 5279e6,   [MB_U_L3_WR] = 3212e6,
	[MB_U_MEM_RD] = 985e6,   [MB_U_MEM_WR] = 403e6,
	[MB_U_LINK_RX] = 2032e6, [MB_U_LINK_TX] = 1368e6,
};

static const char *const mb_role_names[MB_NROLES] = {
	[MB_R_CYCLES] = "cycles",           [MB_R_ACTIVE] = "active",
	[MB_R_NO_EXECUTE] = "no_execute",   [MB_R_STALLS_LOAD] = "stalls_load",
	[MB_R_STALLS_STORE] = "stalls_store", [MB_R_BW_FB_FULL] = "fb_full",
	[MB_R_BW_SQ_FULL] = "sq_full",      [MB_R_L1_RD] = "l1_rd",
	[MB_R_L1_WR] = "l1_wr",             [MB_R_L2_RD] = "l2_rd",
	[MB_R_L2_WR] = "l2_wr",             [MB_R_L3_RD] = "l3_rd",
	[MB_R_L3_WR] = "l3_wr",             [MB_R_DRAM_RD] = "dram_rd",
	[MB_R_RDRAM_RD] = "rdram_rd",
};

const struct mb_event_row *mb_events_table(void)
{
	return mb_rows;
}

const struct mb_event_row *mb_events_row(const char *pmu)
{
	for (const struct mb_event_row *r = mb_rows; pmu && r->pmu; r++)
		if (!strcmp(r->pmu, pmu))
			return r;
	return NULL;
}

const struct mb_uncore_row *mb_events_uncore_table(void)
{
	return mb_urows;
}

const struct mb_uncore_row *mb_events_uncore(const char *pmu)
{
	for (const struct mb_uncore_row *r = mb_urows; pmu && r->pmu; r++)
		if (!strcmp(r->pmu, pmu))
			return r;
	return NULL;
}

const char *mb_events_role_name(enum mb_role r)
{
	return (unsigned)r < MB_NROLES ? mb_role_names[r] : "?";
}

/* The hardware limits a group keeps (see events.h). */
enum { CLS_NONE, CLS_OCR, CLS_PMC2, CLS_N };
static const unsigned cls_max[CLS_N] = { [CLS_NONE] = MB_GROUP_MAX, [CLS_OCR] = 2, [CLS_PMC2] = 1 };

static int ev_class(const char *ev)
{
	if (!strncmp(ev, "OFFCORE_RESPONSE", 16) || !strncmp(ev, "OCR:", 4))
		return CLS_OCR;
	/* Haswell/Broadwell: counter 2 only (Intel's event list). */
	if (!strncmp(ev, "CYCLE_ACTIVITY:", 15) && strstr(ev, "_L1D_PENDING"))
		return CLS_PMC2;
	return CLS_NONE;
}

/* Stall roles first: the decomposition of Figure 10 compares them with
 * max(), which is only fair on counts of one window. */
static const enum mb_role group_order[] = {
	MB_R_STALLS_LOAD, MB_R_STALLS_STORE, MB_R_BW_FB_FULL, MB_R_BW_SQ_FULL,
	MB_R_ACTIVE, MB_R_NO_EXECUTE,
	MB_R_L1_RD, MB_R_L1_WR, MB_R_L2_RD, MB_R_L2_WR,
	MB_R_L3_RD, MB_R_L3_WR, MB_R_DRAM_RD, MB_R_RDRAM_RD,
};

static int placed(const struct mb_group *g, unsigned ng, const char *ev)
{
	for (unsigned i = 0; i < ng; i++)
		for (unsigned k = 0; k < g[i].n; k++)
			if (!strcmp(g[i].ev[k], ev))
				return 1;
	return 0;
}

static int fits(const struct mb_group *g, unsigned per_group, int cls)
{
	unsigned same = 0;

	if (g->n >= per_group)
		return 0;
	for (unsigned k = 1; k < g->n; k++)
		same += ev_class(g->ev[k]) == cls;
	return same < cls_max[cls];
}

int mb_events_groups(const struct mb_event_row *r, unsigned per_group,
		     struct mb_group *g, unsigned maxg)
{
	const char *cyc;
	unsigned ng = 0;
	int rc = -EINVAL;

	if (!r || !g || per_group < 2 || per_group > MB_GROUP_MAX)
		goto out;
	cyc = r->role[MB_R_CYCLES].ev[0];
	if (!cyc)
		goto out;
	for (size_t i = 0; i < sizeof(group_order) / sizeof(group_order[0]); i++) {
		const struct mb_role_events *re = &r->role[group_order[i]];

		for (int k = 0; k < MB_TERMS && re->ev[k]; k++) {
			const char *ev = re->ev[k];
			int cls = ev_class(ev);
			unsigned j;

			if (!strcmp(ev, cyc) || placed(g, ng, ev))
				continue;
			/* First fit: the groups stay few and the stalls together. */
			for (j = 0; j < ng && !fits(&g[j], per_group, cls); j++)
				;
			if (j == ng) {
				if (ng == maxg) {
					rc = -ENOSPC;
					goto out;
				}
				g[ng].n = 1;
				g[ng].ev[0] = cyc;
				ng++;
			}
			g[j].ev[g[j].n++] = ev;
		}
	}
	/* A row of cycles alone still reads one group. */
	if (ng == 0) {
		if (maxg == 0) {
			rc = -ENOSPC;
			goto out;
		}
		g[0].n = 1;
		g[0].ev[0] = cyc;
		ng = 1;
	}
	rc = (int)ng;
out:
	return rc;
}
