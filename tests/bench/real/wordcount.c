// SPDX-License-Identifier: GPL-2.0-only
/*
 * wordcount: counts the words of generated text into ONE hash table that
 * all threads share, in the shape of the word-count benchmarks (Phoenix's
 * word_count, the Metis/MapReduce ones) with a shared table instead of
 * per-thread ones.
 *
 *   wordcount THREADS MBYTES   MBYTES MiB of text (gentext's words)
 *
 * Each thread takes a slice of the text, cut at a space, and for every
 * word locks the stripe of the table its bucket belongs to, finds or adds
 * the word, counts it, and unlocks: many short critical sections on a few
 * dozen mutexes, and a table whose lines every thread writes.  Prints the
 * number of words, of distinct words and a sum over the table, which do
 * not depend on THREADS.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>
#include "real.h"

#define BUCKETS 4096
#define STRIPES 64 /* bucket b is guarded by lock b % STRIPES */

struct word {
	struct word *next;
	uint64_t hash;
	long count;
	char text[WORD_MAX];
};

static struct word *table[BUCKETS];
static pthread_mutex_t lock[STRIPES];

struct slice {
	pthread_t th;
	const char *from, *to;
	long words;
};

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static void count(const char *w, size_t n)
{
	uint64_t h = fnv(w, n);
	size_t b = h % BUCKETS;
	struct word *e;

	pthread_mutex_lock(&lock[b % STRIPES]);
	for (e = table[b]; e; e = e->next)
		if (e->hash == h && strncmp(e->text, w, n) == 0 && e->text[n] == '\0')
			break;
	if (!e) {
		e = xmalloc(sizeof(*e));
		e->hash = h;
		e->count = 0;
		memcpy(e->text, w, n);
		e->text[n] = '\0';
		e->next = table[b];
		table[b] = e;
	}
	e->count++;
	pthread_mutex_unlock(&lock[b % STRIPES]);
}

static void *run(void *p)
{
	struct slice *s = p;
	const char *c = s->from;

	while (c < s->to) {
		const char *w;

		while (c < s->to && (*c == ' ' || *c == '\n'))
			c++;
		for (w = c; c < s->to && *c != ' ' && *c != '\n'; c++)
			;
		if (c > w) {
			count(w, (size_t)(c - w));
			s->words++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *use = "wordcount THREADS MBYTES";
	static char vocab[VOCAB][WORD_MAX];
	static struct slice sl[MAX_THREADS];
	long t, words = 0, distinct = 0;
	uint64_t s = 11, sum = 0;
	size_t n;
	char *text;

	if (argc != 3)
		usage(use);
	t = arg_count(argv[1], MAX_THREADS, use);
	n = (size_t)arg_count(argv[2], 1 << 14, use) << 20;
	vocab_make(vocab);
	text = xmalloc(n);
	n = text_fill(text, n, (const char (*)[WORD_MAX])vocab, 12, &s);
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&lock[i], NULL);
	/* Slices end after a space or newline, so no word is cut. */
	for (long i = 0; i < t; i++) {
		size_t end = i == t - 1 ? n : n / (size_t)t * (size_t)(i + 1);

		while (end < n && text[end - 1] != ' ' && text[end - 1] != '\n')
			end++;
		sl[i].from = i ? sl[i - 1].to : text;
		sl[i].to = text + end;
		if (sl[i].to < sl[i].from)
			sl[i].to = sl[i].from;
	}
	for (long i = 0; i < t; i++) {
		if (pthread_create(&sl[i].th, NULL, run, &sl[i])) {
			fprintf(stderr, "wordcount: cannot create a thread\n");
			return 1;
		}
	}
	for (long i = 0; i < t; i++) {
		pthread_join(sl[i].th, NULL);
		words += sl[i].words;
	}
	for (int b = 0; b < BUCKETS; b++) {
		for (struct word *e = table[b], *next; e; e = next) {
			next = e->next;
			distinct++;
			sum += e->hash * (uint64_t)e->count;
			free(e);
		}
	}
	printf("wordcount: %zu bytes: %ld words, %ld distinct, sum %016llx\n", n, words, distinct,
	       (unsigned long long)sum);
	free(text);
	return 0;
}
