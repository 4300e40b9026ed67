// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain copies of compressed debug files (debugcache.h).
 *
 * Distributions ship separate debug information with its sections
 * zlib-compressed (Debian's libc6-dbg: 4 MB, 10 MB plain), and libdw
 * inflates every debug section of a file when it opens it: about 0.1 s
 * of every run that has a sample in libc, in this VM.  So the first run
 * that needs such a file keeps an uncompressed copy in the cache, named
 * by the build ID the file is checked against, and later runs open that
 * instead of searching (libdwfl keeps the file its search opened).
 * The copy is made by libelf itself (each compressed section decompressed,
 * the file laid out again) in a temporary file that is then renamed, so
 * a reader never sees half of one and two runs may race.
 */
#include "lib/core/debugcache.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/cache.h"

static int debugcache_compressed(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int yes = 0;

	while (elf && !yes && (scn = elf_nextscn(elf, scn)))
		yes = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		      sh.sh_type != SHT_NOBITS;
	elf_end(elf);
	return yes;
}

/* Copy fd to tmpfd and decompress every section there. */
static int debugcache_plain(int fd, int tmpfd)
{
	struct stat st;
	off_t off = 0;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	if (fstat(fd, &st))
		return -errno;
	while (off < st.st_size)
		if (sendfile(tmpfd, fd, &off, (size_t)(st.st_size - off)) <= 0)
			return errno ? -errno : -EIO;
	elf = elf_begin(tmpfd, ELF_C_RDWR, NULL);
	if (!elf)
		return -EINVAL;
	while (!err && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    sh.sh_type != SHT_NOBITS && elf_compress(scn, 0, 0) < 0)
			err = -EINVAL;
	if (!err && elf_update(elf, ELF_C_WRITE) < 0)
		err = -EIO;
	elf_end(elf);
	return err;
}

int debugcache_find(const uint8_t *bid, size_t len, char **name)
{
	char path[4096], *dup, magic[SELFMAG];
	int fd;

	if (cache_bid_path("debug", bid, len, "debug", path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Not an ELF file (a torn or foreign one): made again from the
	 * original. */
	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, ELFMAG, SELFMAG)) {
		close(fd);
		unlink(path);
		return -ENOENT;
	}
	dup = strdup(path);
	if (!dup) {
		close(fd);
		return -ENOMEM;
	}
	free(*name);
	*name = dup;
	return fd;
}

void debugcache_keep(const uint8_t *bid, size_t len, int fd)
{
	char path[4096], tmp[4096 + 16];
	int tmpfd;

	if (cache_bid_path("debug", bid, len, "debug", path, sizeof(path)) || !debugcache_compressed(fd) ||
	    cache_make_dir(path))
		return;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((tmpfd = mkstemp(tmp)) < 0)
		return;
	if (debugcache_plain(fd, tmpfd) || fsync(tmpfd) || rename(tmp, path))
		unlink(tmp);
	close(tmpfd);
}
