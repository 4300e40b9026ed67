// SPDX-License-Identifier: GPL-2.0-only
#include "lib/core/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

int elfsym_lookup(const char *path, const char *name, struct elfsym *out)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *e = NULL;
	int fd, err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	/* .symtab first (has statics); .dynsym when stripped. */
	for (int pass = 0; pass < 2 && err == -ENOENT; pass++) {
		Elf32_Word want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		scn = NULL;
		while ((scn = elf_nextscn(e, scn)) && err == -ENOENT) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				n = elf_strptr(e, sh.sh_link, sym.st_name);
				if (!n || strcmp(n, name))
					continue;
				out->value = sym.st_value;
				out->size = sym.st_size;
				out->is_func = GELF_ST_TYPE(sym.st_info) == STT_FUNC;
				out->pie = eh.e_type == ET_DYN;
				err = 0;
				break;
			}
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
