// SPDX-License-Identifier: GPL-2.0-only
/*
 * comm_vector: C++ threads that each fetch_add their own element of a
 * std::vector of std::atomic counters, all on one line, in a lambda given
 * to std::thread.
 *
 * The vector is made in main at VECTOR_LINE; its elements (8 bytes each)
 * sit side by side in one heap block, so the threads' counters share a
 * cache line (false sharing).  The add is std::atomic's fetch_add, code
 * of <atomic> inlined into the lambda at ADD_LINE, and the lambda into
 * std::thread's machinery.
 *
 * -p: each counter on a line of its own (alignas(64)): nothing is shared,
 * and the loops run faster; the truth of what the sharing costs.
 *
 * -l: the add is a relaxed load and store (std::atomic's load and store,
 * inlined at LOAD_LINE) instead of the locked fetch_add: accesses a
 * sample lands on more often.
 *
 * A profile names the block heap@comm_vector.cc:VECTOR_LINE (main), not a
 * line of the standard library's headers nor operator new, and the code
 * comm_vector.cc:ADD_LINE (or LOAD_LINE).
 *
 * Usage: comm_vector [-n THREADS] [-t SECONDS] [-l] [-p]
 *   -n THREADS  2..8, default 4;  -t SECONDS  0.01..60, default 1
 * Prints "comm_vector: ..."; exit 0, 2 on bad usage.
 */
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>

struct alignas(64) Padded {
	std::atomic<long> v{0};
};

int main(int argc, char **argv)
{
	int n = 4, c, ls = 0, pad = 0;
	double secs = 1;

	while ((c = getopt(argc, argv, "n:t:lp")) != -1) {
		if (c == 'l')
			ls = 1;
		else if (c == 'p')
			pad = 1;
		else if (c == 'n')
			n = std::atoi(optarg);
		else if (c == 't')
			secs = std::atof(optarg);
		else
			n = 0;
	}
	if (n < 2 || n > 8 || !(secs >= 0.01 && secs <= 60) || optind != argc) {
		std::fprintf(stderr, "usage: comm_vector [-n THREADS] [-t SECONDS] [-l] [-p]\n");
		return 2;
	}
	std::vector<std::atomic<long>> counters(n); /* VECTOR_LINE */
	std::vector<Padded> padded(pad ? n : 0);
	std::atomic<bool> stop{false};
	std::vector<std::thread> threads;

	for (int k = 0; k < n; k++)
		threads.emplace_back([&counters, &padded, &stop, k, ls, pad] {
			auto &x = pad ? padded[k].v : counters[k];

			while (!stop.load(std::memory_order_relaxed))
				for (int i = 0; i < 1024; i++)
					if (ls)
						x.store(x.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); /* LOAD_LINE */
					else
						x.fetch_add(1, std::memory_order_relaxed); /* ADD_LINE */
		});
	std::this_thread::sleep_for(std::chrono::duration<double>(secs));
	stop = true;
	long sum = 0;
	for (auto &t : threads)
		t.join();
	for (int k = 0; k < n; k++)
		sum += pad ? padded[k].v.load() : counters[k].load();
	std::printf("comm_vector: threads=%d seconds=%.3f load_store=%d padded=%d adds=%ld line=%p\n", n,
		    secs, ls, pad, sum, static_cast<void *>(counters.data()));
	return 0;
}
