// SPDX-License-Identifier: GPL-2.0-only
#include "lib/wire/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ARENA_STALE_RETRIES 8

static size_t arena_map_size(uint64_t ring_size)
{
	return sizeof(struct arena_hdr) + ring_size;
}

static int arena_map(struct arena *a, int fd, uint64_t ring_size)
{
	size_t size = arena_map_size(ring_size);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	a->hdr = p;
	a->ring = (unsigned char *)p + sizeof(struct arena_hdr);
	a->ring_size = ring_size;
	a->map_size = size;
	a->fd = fd;
	return 0;
}

int arena_create(struct arena *a, size_t ring_size, const struct agent_cfg *cfg)
{
	size_t size;
	int fd, err;

	if (ring_size < 4096 || (ring_size & (ring_size - 1)))
		return -EINVAL;
	size = arena_map_size(ring_size);
	/* Not CLOEXEC: the agent finds it by number after exec. */
	fd = memfd_create("cdt-arena", MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	/* The program holds the fd too: sealed, it cannot shrink the memfd
	 * under our mapping (SIGBUS), resize it or seal it against writes. */
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		err = -errno;
		goto fail;
	}
	err = arena_map(a, fd, ring_size);
	if (err)
		goto fail;
	a->hdr->magic = ARENA_MAGIC;
	a->hdr->version = ARENA_VERSION;
	a->hdr->hdr_size = sizeof(struct arena_hdr);
	a->hdr->ring_size = ring_size;
	a->hdr->cfg = *cfg;
	return 0;
fail:
	close(fd);
	return err;
}

int arena_attach(struct arena *a, int fd)
{
	struct arena_hdr h;
	struct stat st;
	ssize_t n;
	int err;

	n = pread(fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h))
		return n < 0 ? -errno : -EINVAL;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* The program may have scribbled the header before it exec'd: a size
	 * that is not the memfd's would map pages that fault. */
	if (h.magic != ARENA_MAGIC || h.version != ARENA_VERSION ||
	    h.hdr_size != sizeof(struct arena_hdr) || h.ring_size < 4096 ||
	    (h.ring_size & (h.ring_size - 1)) || h.ring_size > (uint64_t)st.st_size ||
	    (uint64_t)st.st_size != arena_map_size(h.ring_size))
		return -EPROTO;
	err = arena_map(a, fd, h.ring_size);
	if (err)
		return err;
	atomic_fetch_add(&a->hdr->agents, 1);
	return 0;
}

void arena_destroy(struct arena *a)
{
	if (a->hdr)
		munmap(a->hdr, a->map_size);
	if (a->fd >= 0)
		close(a->fd);
	a->hdr = NULL;
	a->fd = -1;
}

static void arena_count_drop(struct arena *a, uint32_t size)
{
	atomic_fetch_add_explicit(&a->hdr->dropped_records, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->hdr->dropped_bytes, size, memory_order_relaxed);
}

void *arena_reserve(struct arena *a, uint32_t size, uint16_t type)
{
	struct arena_hdr *h = a->hdr;
	uint64_t mask = a->ring_size - 1;
	uint64_t head, tail, off, pad, need;
	struct rec_hdr *r;

	if (size < sizeof(struct rec_hdr) || size % REC_ALIGN || size > a->ring_size / 4) {
		arena_count_drop(a, size);
		return NULL;
	}
	for (unsigned stale = 0;;) {
		/* tail first: head, read after it, is at least tail (unless
		 * scribbled). */
		tail = atomic_load_explicit(&h->tail, memory_order_acquire);
		head = atomic_load_explicit(&h->head, memory_order_relaxed);
		off = head & mask;
		/* Records never wrap: pad to the ring's end first. */
		pad = off + size > a->ring_size ? a->ring_size - off : 0;
		need = pad + size;
		/* A tail past head (scribbled) reads as a full ring; a head
		 * that is not a multiple of 8 (scribbled) would put the record
		 * astride the ring's end.  The front end resets a forged head. */
		if (head + need - tail > a->ring_size || head % REC_ALIGN) {
			/* A writer interrupted between the two loads may hold a
			 * tail the consumer has long passed: the ring only looks
			 * full.  Look again while the consumer moves (a bounded
			 * number of times: the program could keep writing tail). */
			if (atomic_load_explicit(&h->tail, memory_order_acquire) != tail &&
			    ++stale < ARENA_STALE_RETRIES)
				continue;
			arena_count_drop(a, size);
			return NULL;
		}
		if (atomic_compare_exchange_weak_explicit(&h->head, &head, head + need,
							  memory_order_acq_rel, memory_order_relaxed))
			break;
	}
	if (pad) {
		r = (struct rec_hdr *)(a->ring + off);
		r->type = REC_PAD;
		r->size = (uint32_t)pad;
		atomic_store_explicit((_Atomic uint16_t *)&r->flags, REC_F_COMMITTED,
				      memory_order_release);
		off = 0;
	}
	r = (struct rec_hdr *)(a->ring + off);
	/* Size first, so a consumer can skip this record if its writer dies. */
	r->size = size;
	r->type = type;
	return r;
}

void arena_commit(struct arena *a, void *rec)
{
	struct rec_hdr *r = rec;

	(void)a;
	atomic_store_explicit((_Atomic uint16_t *)&r->flags, REC_F_COMMITTED,
			      memory_order_release);
}

int arena_write(struct arena *a, const void *rec, uint32_t size, uint16_t type)
{
	struct rec_hdr *r = arena_reserve(a, size, type);

	if (!r)
		return -ENOSPC;
	memcpy((char *)r + sizeof(*r), (const char *)rec + sizeof(*r),
	       size - sizeof(*r));
	arena_commit(a, r);
	return 0;
}
