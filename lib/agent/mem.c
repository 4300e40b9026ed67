// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's own memcpy and memset.  A tool may arm a breakpoint on any
 * function of the program, libc's memmove and memset among the hottest;
 * a handler that then called libc's copy would trap there itself (the
 * trap comes when the handler returns, at the program's sampled IP).
 * Hidden definitions bind every call of the agent's, the compiler's for
 * struct copies included, here instead: nothing of cdt's runs libc's.
 * The string instructions also need no SIMD state, nor anything a
 * compiler could turn back into a call of memcpy.
 */
#include <stddef.h>

__attribute__((visibility("hidden"))) void *memcpy(void *restrict dst, const void *restrict src,
						   size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

__attribute__((visibility("hidden"))) void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}
