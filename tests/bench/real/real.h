// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the programs of the real-program benchmark share: argument
 * parsing, a small deterministic generator (the same input on every run,
 * so the checksums can be compared between a plain run and a profiled
 * one) and the words of the generated text.
 */
#ifndef REAL_H
#define REAL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 256

static inline void usage(const char *text)
{
	fprintf(stderr, "usage: %s\n", text);
	exit(2);
}

/* A positive whole number no larger than max, or usage. */
static inline long arg_count(const char *s, long max, const char *text)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > max)
		usage(text);
	return v;
}

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	return p;
}

/* xorshift64*: fast, and good enough to make data no compiler can fold. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * The words of generated text: a vocabulary of VOCAB words of 2 to 11
 * letters, drawn with a skew (word i about as often as 1/i) so that, as
 * in real text, a few words are very common and most are rare.
 */
#define VOCAB 20000
#define WORD_MAX 12

static inline void vocab_make(char (*v)[WORD_MAX])
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < VOCAB; i++) {
		int len = 2 + (int)(rnd(&s) % 10);

		for (int j = 0; j < len; j++)
			v[i][j] = (char)('a' + rnd(&s) % 26);
		v[i][len] = '\0';
	}
}

static inline int vocab_pick(uint64_t *s)
{
	uint64_t r = rnd(s);

	/* A random range, then a random word in it: small indices win. */
	return (int)((r >> 32) % ((r & 0xffffffffu) % VOCAB + 1));
}

/*
 * Fills buf[0..n) with lines of words (n > WORD_MAX + 1), lines of 1 to
 * 2 * words - 1 words (words on average), the last one ending in a
 * newline; returns the bytes written (at most n).
 */
static inline size_t text_fill(char *buf, size_t n, const char (*v)[WORD_MAX], int words,
			       uint64_t *s)
{
	size_t at = 0;
	int left = 0;

	while (at + WORD_MAX + 1 < n) {
		if (left == 0)
			left = 1 + (int)(rnd(s) % (uint64_t)(2 * words - 1));
		for (const char *w = v[vocab_pick(s)]; *w; w++)
			buf[at++] = *w;
		buf[at++] = --left ? ' ' : '\n';
	}
	buf[at - 1] = '\n';
	return at;
}

#endif
