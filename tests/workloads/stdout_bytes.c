// SPDX-License-Identifier: GPL-2.0-only
/*
 * stdout_bytes: writes a known stream of binary bytes (all 256 values,
 * from a fixed xorshift seed) to stdout while two threads generate it, for
 * the check that a run of cdt never writes into the program's stdout.
 *
 *   stdout_bytes [MBYTES]   default 4
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK (1u << 16)

struct part {
	uint64_t seed;
	unsigned char buf[CHUNK];
};

static void *fill(void *arg)
{
	struct part *p = arg;
	uint64_t x = p->seed;

	for (unsigned i = 0; i < CHUNK; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p->buf[i] = (unsigned char)x;
	}
	p->seed = x;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct part parts[2] = { { .seed = 0x9e3779b97f4a7c15ull }, { .seed = 42 } };
	long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 4;
	unsigned rounds = (unsigned)(mb * (1 << 20) / (2 * CHUNK));

	if (mb < 1 || mb > 1024) {
		fprintf(stderr, "usage: stdout_bytes [MBYTES 1..1024]\n");
		return 2;
	}
	for (unsigned r = 0; r < rounds; r++) {
		pthread_t th[2];

		for (int i = 0; i < 2; i++)
			if (pthread_create(&th[i], NULL, fill, &parts[i]))
				return 1;
		for (int i = 0; i < 2; i++) {
			pthread_join(th[i], NULL);
			if (fwrite(parts[i].buf, 1, CHUNK, stdout) != CHUNK)
				return 1;
		}
	}
	return fflush(stdout) ? 1 : 0;
}
