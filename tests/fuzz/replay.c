// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run the fuzz target over saved inputs without libFuzzer, so a gcc +
 * ASan build replays the corpus in `make check`.  Arguments are files or
 * directories (their regular files, not recursively).  A crash aborts
 * through ASan; a missing or unreadable argument is an error, so an empty
 * run cannot pass unnoticed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Replays one file; returns 0 or -errno. */
static int replay_file(const char *path)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t n = 0;
	ssize_t k;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	/* exactly the file's size, so ASan sees a read past its end */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (n < (size_t)st.st_size) {
		k = read(fd, buf + n, (size_t)st.st_size - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ret = k ? -errno : -EIO;
			goto out;
		}
		n += (size_t)k;
	}
	LLVMFuzzerTestOneInput(buf, n);
out:
	free(buf);
	close(fd);
	return ret;
}

static int replay_dir(const char *dir, unsigned long *count)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		ret = replay_file(path);
		if (ret)
			fprintf(stderr, "replay: %s: %s\n", path, strerror(-ret));
		else
			(*count)++;
	}
	closedir(d);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	struct stat st;
	int i, ret;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			ret = replay_dir(argv[i], &count);
		} else {
			ret = replay_file(argv[i]);
			count += !ret;
		}
		if (ret) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(-ret));
			return 1;
		}
	}
	printf("replayed %lu inputs\n", count);
	return 0;
}
