// SPDX-License-Identifier: GPL-2.0-only
/*
 * gentext: the input of the benchmark's Debian programs (pigz, xz, zstd,
 * sort): MBYTES MiB of lines of words from wordcount's vocabulary, WORDS
 * words a line on average (default 12), the same bytes on every run.
 *
 *   gentext MBYTES [WORDS] > FILE
 */
#include "real.h"

int main(int argc, char **argv)
{
	static char vocab[VOCAB][WORD_MAX];
	const char *use = "gentext MBYTES [WORDS]";
	size_t chunk = 1 << 20;
	char *buf = xmalloc(chunk);
	uint64_t s = 42;
	long mb, words = 12;

	if (argc < 2 || argc > 3)
		usage(use);
	mb = arg_count(argv[1], 1 << 16, use);
	if (argc > 2)
		words = arg_count(argv[2], 1000, use);
	vocab_make(vocab);
	for (long i = 0; i < mb; i++) {
		/* Whole lines per MiB: a little under, never over. */
		size_t n = text_fill(buf, chunk, (const char (*)[WORD_MAX])vocab, (int)words, &s);

		if (fwrite(buf, 1, n, stdout) != n) {
			perror("gentext: write");
			return 1;
		}
	}
	free(buf);
	return fflush(stdout) ? 1 : 0;
}
