// SPDX-License-Identifier: GPL-2.0-only
/*
 * fvar_throw: a C++ function that throws through its caller, for cdt fvar.
 *
 * catcher() calls middle(), which calls thrower(); every other call
 * thrower() throws, and the exception unwinds thrower's and middle's
 * frames to the handler in catcher().  Those instances never return: cdt
 * must drop them as unwound by an exception, and measure the calls that
 * return (2 units of work in thrower, plus 1 in middle).
 *
 * Usage: fvar_throw [-t CPU_SECONDS] [-u ITERS]
 * Prints "calls N thrown M"; exit 0, 2 on bad usage.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <unistd.h>

static std::uint64_t unit = 20000;

static double cputime_now()
{
	timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline std::uint64_t burn(std::uint64_t units, std::uint64_t x)
{
	for (std::uint64_t i = 0; i < units * unit; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) std::uint64_t thrower(int leave, std::uint64_t x)
{
	x = burn(2, x);
	if (leave)
		throw std::runtime_error("leave");
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) std::uint64_t middle(int leave, std::uint64_t x)
{
	x = burn(1, x);
	x = thrower(leave, x);
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) std::uint64_t catcher(int leave, std::uint64_t x, unsigned *thrown)
{
	try {
		return middle(leave, x);
	} catch (const std::runtime_error &) {
		++*thrown;
		return x + 1;
	}
}

int main(int argc, char **argv)
{
	double seconds = 1.0, end;
	unsigned calls = 0, thrown = 0;
	volatile std::uint64_t sink = 1;
	int c;

	while ((c = getopt(argc, argv, "t:u:")) != -1) {
		if (c == 't')
			seconds = atof(optarg);
		else if (c == 'u')
			unit = strtoull(optarg, nullptr, 0);
		else
			return 2;
	}
	if (seconds <= 0 || !unit)
		return 2;
	end = cputime_now() + seconds;
	while (cputime_now() < end)
		sink = catcher(calls++ & 1, sink, &thrown);
	fprintf(stderr, "calls %u thrown %u\n", calls, thrown);
	return 0;
}
