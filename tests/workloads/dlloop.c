// SPDX-License-Identifier: GPL-2.0-only
/*
 * dlloop: a program whose own work is loading a library.  It dlopens
 * libdlloop.so (beside it), calls dlloop_fn, dlcloses it, N times
 * (default 1000), in its main thread; a second thread spins in
 * spin_work meanwhile, so a profiler's samples fall on the program's code
 * too.  What a profiler does at each dlopen is its own cost: it must
 * neither slow this program down much nor show up as the program's time.
 *
 *   dlloop [N]
 *
 * Exit status 0, or 2 on bad usage or if the library cannot be loaded.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int stop;
static volatile uint64_t sink;

static __attribute__((noinline)) void *spin_work(void *arg)
{
	uint64_t x = 1;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX], *slash;
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	pthread_t th;
	uint64_t x = 1;

	if (argc > 2 || n <= 0 || len <= 0) {
		fprintf(stderr, "usage: dlloop [N]\n");
		return 2;
	}
	path[len] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libdlloop.so");
	if (pthread_create(&th, NULL, spin_work, NULL))
		return 2;
	for (long i = 0; i < n; i++) {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		uint64_t (*fn)(uint64_t);

		if (!h) {
			fprintf(stderr, "dlloop: %s\n", dlerror());
			return 2;
		}
		*(void **)&fn = dlsym(h, "dlloop_fn");
		if (!fn)
			return 2;
		x = fn(x);
		dlclose(h);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	sink += x;
	return 0;
}
