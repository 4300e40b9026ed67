// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calibration's kernels: sequential reads and writes with the widest
 * vector loads and stores of the CPU (AVX-512, AVX2 or SSE2, picked at run
 * time), and pointer chasing alone or with multiplications between the
 * loads (Molka et al., §3.2).
 *
 * The compiler must neither drop these loads nor turn the stores into a
 * memset: reads fold into accumulators that are returned, stores write a
 * value the compiler cannot see (an empty asm makes it opaque), and a
 * memory clobber after each pass makes every pass real.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/tools/membound/calib_parts.h"

#define PASS_DONE() __asm__ volatile("" ::: "memory")
/* The sanitizers' checks on every load would measure themselves: the
 * ASan build of cdt must calibrate the same as the plain one.  So the
 * kernels are not instrumented, and use the unaligned forms of the
 * intrinsics (UBSan checks the aligned ones' alignment even here; on
 * aligned data they run the same). */
#define KERNEL __attribute__((no_sanitize_address, no_sanitize_undefined, noinline))

/*
 * 8 loads of 64 bytes per step into registers that nothing reads, as
 * likwid-bench's load_avx512 does.  Folded into accumulators (one XOR per
 * load, as the narrower kernels do) they read L1 at 0.70 to 0.77 of
 * likwid's figure on a Cascade Lake guest: with 512-bit operations in
 * flight only ports 0 and 5 take them, shared with the loop's own work.
 */
KERNEL __attribute__((target("avx512f"))) static uint64_t rd_avx512(const void *buf, size_t bytes,
							       size_t passes)
{
	for (size_t p = 0; p < passes; p++) {
		for (const char *q = buf, *end = q + bytes; q < end; q += 512)
			__asm__ volatile("vmovdqu64 0(%0), %%zmm0\n\t"
					 "vmovdqu64 64(%0), %%zmm1\n\t"
					 "vmovdqu64 128(%0), %%zmm2\n\t"
					 "vmovdqu64 192(%0), %%zmm3\n\t"
					 "vmovdqu64 256(%0), %%zmm4\n\t"
					 "vmovdqu64 320(%0), %%zmm5\n\t"
					 "vmovdqu64 384(%0), %%zmm6\n\t"
					 "vmovdqu64 448(%0), %%zmm7"
					 : : "r"(q) : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
					   "xmm6", "xmm7");
		PASS_DONE();
	}
	return *(const volatile uint64_t *)buf;
}

KERNEL __attribute__((target("avx512f"))) static void wr_avx512(void *buf, size_t bytes, size_t passes,
							   uint64_t x)
{
	__m512i v = _mm512_set1_epi64((long long)x);

	for (size_t p = 0; p < passes; p++) {
		__asm__ volatile("" : "+v"(v));
		for (char *q = buf, *end = q + bytes; q < end; q += 512) {
			_mm512_storeu_si512(q, v);
			_mm512_storeu_si512(q + 64, v);
			_mm512_storeu_si512(q + 128, v);
			_mm512_storeu_si512(q + 192, v);
			_mm512_storeu_si512(q + 256, v);
			_mm512_storeu_si512(q + 320, v);
			_mm512_storeu_si512(q + 384, v);
			_mm512_storeu_si512(q + 448, v);
		}
		PASS_DONE();
	}
}

KERNEL __attribute__((target("avx2"))) static uint64_t rd_avx2(const void *buf, size_t bytes, size_t passes)
{
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;

	for (size_t p = 0; p < passes; p++) {
		for (const char *q = buf, *end = q + bytes; q < end; q += 256) {
			a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i_u *)q));
			a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i_u *)(q + 32)));
			a2 = _mm256_xor_si256(a2, _mm256_loadu_si256((const __m256i_u *)(q + 64)));
			a3 = _mm256_xor_si256(a3, _mm256_loadu_si256((const __m256i_u *)(q + 96)));
			a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i_u *)(q + 128)));
			a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i_u *)(q + 160)));
			a2 = _mm256_xor_si256(a2, _mm256_loadu_si256((const __m256i_u *)(q + 192)));
			a3 = _mm256_xor_si256(a3, _mm256_loadu_si256((const __m256i_u *)(q + 224)));
		}
		PASS_DONE();
	}
	a0 = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
	return (uint64_t)_mm256_extract_epi64(a0, 0) ^ (uint64_t)_mm256_extract_epi64(a0, 3);
}

KERNEL __attribute__((target("avx2"))) static void wr_avx2(void *buf, size_t bytes, size_t passes, uint64_t x)
{
	__m256i v = _mm256_set1_epi64x((long long)x);

	for (size_t p = 0; p < passes; p++) {
		__asm__ volatile("" : "+x"(v));
		for (char *q = buf, *end = q + bytes; q < end; q += 256) {
			_mm256_storeu_si256((__m256i_u *)q, v);
			_mm256_storeu_si256((__m256i_u *)(q + 32), v);
			_mm256_storeu_si256((__m256i_u *)(q + 64), v);
			_mm256_storeu_si256((__m256i_u *)(q + 96), v);
			_mm256_storeu_si256((__m256i_u *)(q + 128), v);
			_mm256_storeu_si256((__m256i_u *)(q + 160), v);
			_mm256_storeu_si256((__m256i_u *)(q + 192), v);
			_mm256_storeu_si256((__m256i_u *)(q + 224), v);
		}
		PASS_DONE();
	}
}

KERNEL static uint64_t rd_sse2(const void *buf, size_t bytes, size_t passes)
{
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;

	for (size_t p = 0; p < passes; p++) {
		for (const char *q = buf, *end = q + bytes; q < end; q += 128) {
			a0 = _mm_xor_si128(a0, _mm_loadu_si128((const __m128i_u *)q));
			a1 = _mm_xor_si128(a1, _mm_loadu_si128((const __m128i_u *)(q + 16)));
			a2 = _mm_xor_si128(a2, _mm_loadu_si128((const __m128i_u *)(q + 32)));
			a3 = _mm_xor_si128(a3, _mm_loadu_si128((const __m128i_u *)(q + 48)));
			a0 = _mm_xor_si128(a0, _mm_loadu_si128((const __m128i_u *)(q + 64)));
			a1 = _mm_xor_si128(a1, _mm_loadu_si128((const __m128i_u *)(q + 80)));
			a2 = _mm_xor_si128(a2, _mm_loadu_si128((const __m128i_u *)(q + 96)));
			a3 = _mm_xor_si128(a3, _mm_loadu_si128((const __m128i_u *)(q + 112)));
		}
		PASS_DONE();
	}
	a0 = _mm_xor_si128(_mm_xor_si128(a0, a1), _mm_xor_si128(a2, a3));
	return (uint64_t)_mm_cvtsi128_si64(a0);
}

KERNEL static void wr_sse2(void *buf, size_t bytes, size_t passes, uint64_t x)
{
	__m128i v = _mm_set1_epi64x((long long)x);

	for (size_t p = 0; p < passes; p++) {
		__asm__ volatile("" : "+x"(v));
		for (char *q = buf, *end = q + bytes; q < end; q += 128) {
			_mm_storeu_si128((__m128i_u *)q, v);
			_mm_storeu_si128((__m128i_u *)(q + 16), v);
			_mm_storeu_si128((__m128i_u *)(q + 32), v);
			_mm_storeu_si128((__m128i_u *)(q + 48), v);
			_mm_storeu_si128((__m128i_u *)(q + 64), v);
			_mm_storeu_si128((__m128i_u *)(q + 80), v);
			_mm_storeu_si128((__m128i_u *)(q + 96), v);
			_mm_storeu_si128((__m128i_u *)(q + 112), v);
		}
		PASS_DONE();
	}
}

void calib_kern_pick(struct calib_kern *k, int force_sse2)
{
	__builtin_cpu_init();
	if (!force_sse2 && __builtin_cpu_supports("avx512f"))
		*k = (struct calib_kern){ "avx512", rd_avx512, wr_avx512 };
	else if (!force_sse2 && __builtin_cpu_supports("avx2"))
		*k = (struct calib_kern){ "avx2", rd_avx2, wr_avx2 };
	else
		*k = (struct calib_kern){ "sse2", rd_sse2, wr_sse2 };
}

/*
 * The random cycle through the lines of buf: every line once in random
 * order, or, past CALIB_CHASE_LINES lines, one random line of each of
 * that many equal segments, so that building it stays cheap while each
 * load still lands anywhere in the buffer.  The next pointer sits at the
 * start of each line.  Returns the first line.
 */
void *calib_chase_build(void *buf, size_t bytes, uint64_t *seed)
{
	size_t nl = bytes / CALIB_LINE, k = nl < CALIB_CHASE_LINES ? nl : CALIB_CHASE_LINES;
	size_t seg = nl / k;
	uint32_t *perm = k ? malloc(k * sizeof(*perm)) : NULL;
	char *b = buf;

	if (!perm)
		return NULL;
	for (size_t i = 0; i < k; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = k - 1; i > 0; i--) { /* Fisher-Yates */
		size_t j = calib_rand(seed) % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < k; i++) { /* segment -> its line */
		size_t line = perm[i] * seg + (seg > 1 ? calib_rand(seed) % seg : 0);

		perm[i] = (uint32_t)line;
	}
	for (size_t i = 0; i < k; i++)
		*(void **)(b + (size_t)perm[i] * CALIB_LINE) = b + (size_t)perm[(i + 1) % k] * CALIB_LINE;
	b += (size_t)perm[0] * CALIB_LINE;
	free(perm);
	return b;
}

/* n dependent loads, 8 a step. */
KERNEL void *calib_chase(void *p, size_t n)
{
	void **q = p;

	for (size_t i = 0; i < n; i += 8) {
		q = *q; q = *q; q = *q; q = *q;
		q = *q; q = *q; q = *q; q = *q;
	}
	return q;
}

/* Six multiplications on each of four registers (so a throughput of one
 * a cycle is not held back by their latency), none depending on a load. */
#define MUL6(r) "imul " r ", " r "\n\timul " r ", " r "\n\timul " r ", " r "\n\t" \
		"imul " r ", " r "\n\timul " r ", " r "\n\timul " r ", " r "\n\t"

KERNEL void *calib_chase_indep(void *p, size_t n)
{
	void **q = p;
	uint64_t a = 3, b = 5, c = 7, d = 11;

	for (size_t i = 0; i < n; i++) {
		q = *q;
		__asm__ volatile(MUL6("%0") MUL6("%1") MUL6("%2") MUL6("%3")
				 : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	}
	return q;
}

/* CALIB_OPS (24) multiplications by 1 in a chain through the loaded
 * pointer: the next load waits for all of them. */
#define MUL1_6(r) "imul $1, " r ", " r "\n\timul $1, " r ", " r "\n\timul $1, " r ", " r "\n\t" \
		  "imul $1, " r ", " r "\n\timul $1, " r ", " r "\n\timul $1, " r ", " r "\n\t"

KERNEL void *calib_chase_chain(void *p, size_t n)
{
	void **q = p;

	for (size_t i = 0; i < n; i++) {
		q = *q;
		__asm__ volatile(MUL1_6("%0") MUL1_6("%0") MUL1_6("%0") MUL1_6("%0") : "+r"(q));
	}
	return q;
}

/* The chain alone, no loads: what the multiplications cost by latency. */
uint64_t calib_ops_alone(uint64_t x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		__asm__ volatile(MUL1_6("%0") MUL1_6("%0") MUL1_6("%0") MUL1_6("%0") : "+r"(x));
	return x;
}
