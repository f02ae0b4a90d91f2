// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a real arm64 kernel image: see kimage.h.  The formats, from the
 * kernel tree (torvalds/linux):
 *  - ELF vmlinux: e_machine EM_AARCH64 (183), read with libelf; symbols
 *    from SHT_SYMTAB.
 *  - arm64 Image: Documentation/arch/arm64/booting.rst, a 64-byte header,
 *    "ARM\x64" at offset 56, flags (le64) at 24 whose bits 1-2 give the page
 *    size (1: 4K, 2: 16K, 3: 64K, 0: unspecified).  Debian's vmlinuz is one.
 *  - EFI zboot: drivers/firmware/efi/libstub/zboot-header.S: "MZ", "zimg" at
 *    4, the payload's offset (le32) at 8 and size at 12, the compression
 *    name at 24; the payload is a compressed Image.
 *  - gzip (Image.gz): RFC 1952, inflated with zlib.
 * The release is the word after "Linux version " of linux_banner
 * (init/version-timestamp.c: "Linux version " UTS_RELEASE " (" ...).  The
 * configuration is kernel/configs.c's: since v5.1 (13610aa908dc) the gzip
 * file kernel/config_data.gz between the markers "IKCFG_ST" and "IKCFG_ED",
 * kernel_config_data being its first byte (scripts/extract-ikconfig finds
 * it the same way).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/alloc.h"
#include "core/input.h"
#include "core/inspect/kimage.h"

struct ksym {
	uint64_t addr, size;
	const char *name;	/* in the ELF string table (k->buf) */
};

struct vt_kimage {
	char *name;
	uint8_t *buf;		/* the image as read (owned) */
	size_t len;
	uint8_t *inner;		/* a decompressed payload (owned), or NULL */
	Elf *elf;		/* over buf or inner */
	struct ksym *syms;	/* STT_FUNC symbols by address */
	size_t nr_syms;
	uint64_t max;
	uint64_t inflated;	/* bytes inflated so far, all layers: at most max */
	struct vt_kimage_info info;
};

/* The configuration text is a few hundred KiB; more is not a .config. */
#define KCONFIG_MAX (16u << 20)

static int kerr(struct vt_error *err, const struct vt_kimage *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int kerr(struct vt_error *err, const struct vt_kimage *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_error_vset(err, VT_ERR_KIMAGE, fmt, ap);
	va_end(ap);
	if (k && k->name)
		snprintf(err->file, sizeof(err->file), "%s", k->name);
	return VT_ERR_KIMAGE;
}

const char *vt_kimage_granule(unsigned int page_shift)
{
	switch (page_shift) {
	case 12: return "4k";
	case 14: return "16k";
	case 16: return "64k";
	}
	return "?";
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * Inflate the gzip stream at @src (at most @slen bytes; it ends itself)
 * into a new buffer of at most @max bytes.  0, or VT_ERR_KIMAGE /
 * VT_ERR_INPUT_LIMIT / -ENOMEM with @what in the message.
 */
static int gunzip(const struct vt_kimage *k, const uint8_t *src, size_t slen,
		  uint64_t max, const char *what, uint8_t **out, size_t *olen,
		  struct vt_error *err)
{
	size_t cap = slen < (1u << 20) ? 1u << 20 : slen * 2, n = 0;
	uint8_t *b;
	z_stream z;
	int ret;

	if (cap > max)
		cap = (size_t)max;
	b = malloc(cap ? cap : 1);
	if (!b)
		return vt_error_set(err, -ENOMEM, "out of memory inflating %s", what);
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(b);
		return vt_error_set(err, -ENOMEM, "zlib: inflateInit2 failed");
	}
	z.next_in = (Bytef *)src;
	for (;;) {
		size_t used = (size_t)((const uint8_t *)z.next_in - src);

		if (n == cap) {
			if (cap >= max) {
				inflateEnd(&z);
				free(b);
				vt_error_set(err, VT_ERR_INPUT_LIMIT,
					     "%s inflates to more than --max-input (%" PRIu64
					     " bytes)", what, max);
				if (k && k->name)
					snprintf(err->file, sizeof(err->file), "%s", k->name);
				return VT_ERR_INPUT_LIMIT;
			}
			cap = cap * 2 > max ? (size_t)max : cap * 2;
			if (VT_REALLOC_ARRAY(b, cap)) {
				inflateEnd(&z);
				free(b);
				return vt_error_set(err, -ENOMEM, "out of memory inflating %s", what);
			}
		}
		z.next_out = b + n;
		z.avail_out = (uInt)(cap - n > UINT32_MAX ? UINT32_MAX : cap - n);
		/* avail_in is 32 bits: feed a large input in slices */
		if (z.avail_in == 0)
			z.avail_in = (uInt)(slen - used > UINT32_MAX ? UINT32_MAX : slen - used);
		ret = inflate(&z, Z_NO_FLUSH);
		n = (size_t)(z.next_out - b);
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_BUF_ERROR && z.avail_in == 0 &&
		    (size_t)((const uint8_t *)z.next_in - src) == slen) {
			inflateEnd(&z);
			free(b);
			return kerr(err, k, "%s is truncated (the gzip stream ends after %zu "
				    "bytes without its trailer)", what, slen);
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR) {
			inflateEnd(&z);
			free(b);
			return kerr(err, k, "%s is not valid gzip data (zlib: %s)", what,
				    z.msg ? z.msg : "error");
		}
	}
	inflateEnd(&z);
	*out = b;
	*olen = n;
	return 0;
}

/* ---- the configuration ------------------------------------------------ */

/* The value of CONFIG_@key in @text: the text after '=' (to the end of the
 * line) in @val, 1 if set, 0 if "is not set" or absent. */
static int config_value(const char *text, size_t len, const char *key,
			char *val, size_t vlen)
{
	size_t kl = strlen(key);
	const char *p = text, *end = text + len;

	val[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > 7 + kl && !memcmp(p, "CONFIG_", 7) &&
		    !memcmp(p + 7, key, kl) && p[7 + kl] == '=') {
			size_t n = (size_t)(le - (p + 8 + kl));

			if (n >= vlen)
				n = vlen - 1;
			memcpy(val, p + 8 + kl, n);
			val[n] = '\0';
			return strcmp(val, "n") != 0;
		}
		p = le + 1;
	}
	return 0;
}

static enum vt_tri config_bool(const char *text, size_t len, const char *key)
{
	char v[16];

	return config_value(text, len, key, v, sizeof(v)) && !strcmp(v, "y") ?
	       VT_TRI_YES : VT_TRI_NO;
}

static unsigned int config_uint(const char *text, size_t len, const char *key)
{
	char v[32], *e;
	unsigned long n;

	if (!config_value(text, len, key, v, sizeof(v)))
		return 0;
	errno = 0;
	n = strtoul(v, &e, 10);
	return *e || errno || n > 64 ? 0 : (unsigned int)n;
}

/* Fill the configuration's fields of k->info from @text. */
static int parse_config(struct vt_kimage *k, const char *what, const char *text,
			size_t len, enum vt_kconfig_source src, struct vt_error *err)
{
	struct vt_kimage_info *in = &k->info;
	static const struct { const char *key; unsigned int shift; } gran[] = {
		{ "ARM64_4K_PAGES", 12 }, { "ARM64_16K_PAGES", 14 },
		{ "ARM64_64K_PAGES", 16 },
	};

	if (memchr(text, '\0', len))
		return kerr(err, k, "%s is not a kernel configuration (it holds NUL bytes)", what);
	if (!memmem(text, len, "CONFIG_", 7))
		return kerr(err, k, "%s is not a kernel configuration (no CONFIG_ line)", what);
	in->config_source = src;
	in->config_bytes = len;
	in->config_arm64 = config_bool(text, len, "ARM64") == VT_TRI_YES;
	in->page_shift = 0;
	for (size_t i = 0; i < sizeof(gran) / sizeof(gran[0]); i++)
		if (config_bool(text, len, gran[i].key) == VT_TRI_YES)
			in->page_shift = gran[i].shift;
	in->va_bits = config_uint(text, len, "ARM64_VA_BITS");
	in->pgtable_levels = config_uint(text, len, "PGTABLE_LEVELS");
	in->contpte = config_bool(text, len, "ARM64_CONTPTE");
	in->huge_vmalloc = config_bool(text, len, "HAVE_ARCH_HUGE_VMALLOC");
	in->huge_vmap = config_bool(text, len, "HAVE_ARCH_HUGE_VMAP");
	in->lpa2 = config_bool(text, len, "ARM64_LPA2");
	return 0;
}

int vt_kimage_set_config_text(struct vt_kimage *k, const char *name,
			      const char *text, size_t len, struct vt_error *err)
{
	return parse_config(k, name, text, len, VT_KCONFIG_FILE, err);
}

/* Read all of @path (at most @max bytes) into a new buffer. */
static int read_all(const char *path, uint64_t max, uint8_t **out, size_t *olen,
		    struct vt_error *err)
{
	struct stat st;
	uint8_t *b;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		vt_error_set(err, -errno, "cannot open: %s", strerror(errno));
		snprintf(err->file, sizeof(err->file), "%s", path);
		return err->code;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		vt_error_set(err, VT_ERR_KIMAGE, "not a regular file");
		snprintf(err->file, sizeof(err->file), "%s", path);
		return VT_ERR_KIMAGE;
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		vt_error_set(err, VT_ERR_INPUT_LIMIT, "%" PRIu64 " bytes, more than "
			     "--max-input (%" PRIu64 ")", (uint64_t)st.st_size, max);
		snprintf(err->file, sizeof(err->file), "%s", path);
		return VT_ERR_INPUT_LIMIT;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return vt_error_set(err, -ENOMEM, "out of memory reading %s", path);
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, b + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;

			free(b);
			close(fd);
			vt_error_set(err, -e, "read error: %s", strerror(e));
			snprintf(err->file, sizeof(err->file), "%s", path);
			return err->code;
		}
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*out = b;
	*olen = n;
	return 0;
}

int vt_kimage_set_config_file(struct vt_kimage *k, const char *path,
			      struct vt_error *err)
{
	uint8_t *b;
	size_t n;
	int ret = read_all(path, KCONFIG_MAX, &b, &n, err);

	if (ret)
		return ret;
	ret = parse_config(k, path, (const char *)b, n, VT_KCONFIG_FILE, err);
	if (ret)
		snprintf(err->file, sizeof(err->file), "%s", path);
	free(b);
	return ret;
}

/* ---- banner, IKCONFIG ------------------------------------------------- */

/* linux_banner: "Linux version RELEASE (" ... "\n".  The first occurrence
 * that has that shape (the string also occurs in messages of other code). */
static void find_banner(struct vt_kimage *k, const uint8_t *p, size_t len)
{
	static const char tag[] = "Linux version ";
	const uint8_t *end = p + len, *s = p;
	struct vt_kimage_info *in = &k->info;

	while ((s = memmem(s, (size_t)(end - s), tag, sizeof(tag) - 1))) {
		const uint8_t *r = s + sizeof(tag) - 1, *e = r;
		size_t n;

		while (e < end && e - r < 64 && *e > ' ' && *e < 0x7f)
			e++;
		if (e == r || e + 2 > end || e[0] != ' ' || e[1] != '(') {
			s = r;
			continue;
		}
		memcpy(in->release, r, (size_t)(e - r));
		in->release[e - r] = '\0';
		for (n = 0; s + n < end && n < sizeof(in->banner) - 1 &&
			    s[n] >= ' ' && s[n] < 0x7f; n++)
			in->banner[n] = (char)s[n];
		in->banner[n] = '\0';
		sscanf(in->release, "%u.%u.%u", &in->version[0], &in->version[1],
		       &in->version[2]);
		return;
	}
}

/* kernel/configs.c: "IKCFG_ST" gzip-data "IKCFG_ED". */
static int find_ikconfig(struct vt_kimage *k, const uint8_t *p, size_t len,
			 struct vt_error *err)
{
	const uint8_t *s = memmem(p, len, "IKCFG_ST", 8), *e;
	uint8_t *text;
	size_t n;
	int ret;

	if (!s)
		return 0;
	s += 8;
	/* the end marker bounds the data; a truncated image may lack it */
	e = memmem(s, (size_t)(p + len - s), "IKCFG_ED", 8);
	if (!e)
		return kerr(err, k, "the IKCONFIG data (after \"IKCFG_ST\") has no "
			    "\"IKCFG_ED\" end marker: the image is truncated");
	ret = gunzip(k, s, (size_t)(e - s), KCONFIG_MAX, "the IKCONFIG data", &text, &n, err);
	if (ret)
		return ret;
	ret = parse_config(k, "the IKCONFIG data", (const char *)text, n,
			   VT_KCONFIG_IKCONFIG, err);
	free(text);
	return ret;
}

/* ---- ELF ---------------------------------------------------------------- */

static int sym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int open_elf(struct vt_kimage *k, uint8_t *p, size_t len, struct vt_error *err)
{
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	if (len < 64)
		return kerr(err, k, "truncated ELF file: %zu bytes, less than the "
			    "64-byte ELF header", len);
	if (p[EI_CLASS] != ELFCLASS64)
		return kerr(err, k, "a 32-bit ELF file: not an arm64 kernel (EM_AARCH64, ELFCLASS64)");
	elf_version(EV_CURRENT);
	k->elf = elf_memory((char *)p, len);
	if (!k->elf || elf_kind(k->elf) != ELF_K_ELF || !gelf_getehdr(k->elf, &eh))
		return kerr(err, k, "corrupt or truncated ELF file (libelf: %s)",
			    elf_errmsg(-1));
	if (eh.e_machine != EM_AARCH64)
		return kerr(err, k, "an ELF file for machine %u, not EM_AARCH64 (%u): "
			    "not an arm64 kernel", eh.e_machine, EM_AARCH64);
	if (eh.e_shoff > len || (uint64_t)eh.e_shnum * eh.e_shentsize > len - eh.e_shoff)
		return kerr(err, k, "truncated ELF file: the section headers end at "
			    "%" PRIu64 ", beyond its %zu bytes",
			    (uint64_t)eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize, len);
	k->info.elf = true;
	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t nsym;

		if (!gelf_getshdr(scn, &sh))
			return kerr(err, k, "corrupt ELF section header (libelf: %s)",
				    elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset))
			return kerr(err, k, "truncated ELF file: section %zu ends at %" PRIu64
				    ", beyond its %zu bytes", elf_ndxscn(scn),
				    (uint64_t)sh.sh_offset + sh.sh_size, len);
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			return kerr(err, k, "unreadable ELF symbol table (libelf: %s)",
				    elf_errmsg(-1));
		nsym = d->d_size / sh.sh_entsize;
		for (size_t i = 0; i < nsym; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(k->elf, sh.sh_link, s.st_name);
			if (!nm || !*nm)
				continue;
			if (VT_ALLOC_GROW(k->syms, k->nr_syms + 1, cap))
				return vt_error_set(err, -ENOMEM, "out of memory "
						    "reading the symbol table");
			k->syms[k->nr_syms++] = (struct ksym){ s.st_value, s.st_size, nm };
		}
	}
	if (k->nr_syms)
		qsort(k->syms, k->nr_syms, sizeof(*k->syms), sym_cmp);
	k->info.nr_functions = k->nr_syms;
	return 0;
}

bool vt_kimage_symbolize(const struct vt_kimage *k, uint64_t addr, bool offset,
			 char *buf, size_t len)
{
	size_t lo = 0, hi = k->nr_syms, next;
	const struct ksym *s;
	uint64_t limit;

	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	next = lo;	/* the first symbol above addr, if any */
	s = &k->syms[lo - 1];
	/* of several at one address, the one with a size (aliases) */
	while (s > k->syms && !s->size && s[-1].addr == s->addr)
		s--;
	/* a sized symbol ends at its size, an assembly one (size 0) at the
	 * next symbol (the last one, at its own address) */
	limit = s->size ? s->addr + s->size :
		next < k->nr_syms ? k->syms[next].addr : s->addr + 1;
	if (addr >= limit)
		return false;
	if (!offset || addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
	return true;
}

/* ---- the generation ----------------------------------------------------- */

/*
 * The --kernel generation nearest to @release (core/options.def): v6.1
 * before v6.5 (the 128 MiB modules region, vmap-block dirty ranges never
 * reset), v6.12 up to v6.15 (eager kernel-mapping barriers; lazy-MMU batching,
 * 5fdd05efa1cd, and vmap CONT-PTE, arch_vmap_pte_range_map_size(), came in
 * v6.16), v6.16 up to v6.18, mainline from v6.19 (high-order vmalloc pages,
 * a06157804399, v6.19-rc1).
 */
static void nearest(struct vt_kimage_info *in)
{
	unsigned int v = in->version[0] * 1000 + in->version[1];

	if (!in->version[0])
		return;
	in->has_nearest = true;
	if (v < 6001) {
		in->nearest = VT_KERNEL_V6_1;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is older than every "
			 "modelled generation; v6.1, the oldest, shares its eager "
			 "barriers, no vmap CONT-PTE and order-0 vmalloc pages",
			 in->version[0], in->version[1]);
	} else if (v < 6005) {
		in->nearest = VT_KERNEL_V6_1;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is before v6.5: the "
			 "128 MiB modules region and vmap blocks' dirty ranges never "
			 "reset, as in 6.1", in->version[0], in->version[1]);
	} else if (v < 6012) {
		in->nearest = VT_KERNEL_V6_12;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is v6.5 or later and "
			 "before v6.16: eager barriers, no vmap CONT-PTE and order-0 "
			 "vmalloc pages as in v6.12", in->version[0], in->version[1]);
	} else if (v == 6012) {
		in->nearest = VT_KERNEL_V6_12;
		snprintf(in->reason, sizeof(in->reason), "the release is 6.12");
	} else if (v < 6016) {
		in->nearest = VT_KERNEL_V6_12;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is before v6.16: eager "
			 "barriers and no vmap CONT-PTE as in v6.12 (lazy-MMU barrier "
			 "batching and arch_vmap_pte_range_map_size() came in v6.16); "
			 "its kernel TLB flush has range TLBIs (--kernel-flush)",
			 in->version[0], in->version[1]);
	} else if (v < 6019) {
		in->nearest = VT_KERNEL_V6_16;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is v6.16 or later and "
			 "before v6.19: lazy barriers and vmap CONT-PTE, order-0 vmalloc "
			 "pages (high-order ones came in v6.19-rc1, a06157804399)",
			 in->version[0], in->version[1]);
	} else if (v == 7002) {
		in->nearest = VT_KERNEL_V7_2;
		snprintf(in->reason, sizeof(in->reason), "the release is 7.2");
	} else {
		in->nearest = VT_KERNEL_MAINLINE;
		snprintf(in->reason, sizeof(in->reason), "%u.%u is v6.19 or later: "
			 "high-order vmalloc pages (a06157804399)",
			 in->version[0], in->version[1]);
	}
}

/* ---- opening ------------------------------------------------------------ */

static void fmt_append(struct vt_kimage_info *in, const char *s)
{
	size_t n = strlen(in->format);

	snprintf(in->format + n, sizeof(in->format) - n, "%s", s);
}

/*
 * Inflate one compressed layer (gzip, or a zboot payload) of the image
 * into k->inner.  All layers together may inflate to --max-input at most
 * (k->inflated): a gzip of a gzip is not twice the limit, and the memory
 * held at once (the outer layer and the one being inflated) stays within
 * it.  The size a gzip trailer declares (ISIZE) is not used: it is the
 * size modulo 2^32 (RFC 1952 2.3.1) and a truncated stream ends in other
 * bytes; gunzip() grows its buffer as it inflates and stops at the limit.
 * The outer layer (k->inner of a gzip of a gzip) is no longer read once
 * its content is inflated: freed then.
 */
static int inflate_layer(struct vt_kimage *k, const uint8_t *p, size_t len,
			 const char *what, uint8_t **inner, size_t *ilen,
			 struct vt_error *err)
{
	int ret = gunzip(k, p, len, k->max - k->inflated, what, inner, ilen, err);

	if (ret == VT_ERR_INPUT_LIMIT && k->inflated)
		vt_error_set(err, ret, "%s inflates to more than the %" PRIu64
			     " bytes that --max-input (%" PRIu64 " bytes) leaves after the "
			     "outer layers' %" PRIu64, what, k->max - k->inflated, k->max,
			     k->inflated);
	if (ret)
		return ret;
	k->inflated += *ilen;
	free(k->inner);
	k->inner = *inner;
	return 0;
}

/* Identify @p (owned by k: k->buf or k->inner) and read it; @depth bounds
 * the nesting of compressed payloads. */
static int open_buf(struct vt_kimage *k, uint8_t *p, size_t len, int depth,
		    struct vt_error *err)
{
	struct vt_kimage_info *in = &k->info;
	uint8_t *inner;
	size_t ilen;
	int ret;

	if (len >= 4 && !memcmp(p, ELFMAG, SELFMAG)) {
		fmt_append(in, "ELF vmlinux");
		ret = open_elf(k, p, len, err);
		if (ret)
			return ret;
	} else if (depth < 2 && len >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		ret = inflate_layer(k, p, len, "the gzip-compressed image", &inner, &ilen, err);
		if (ret)
			return ret;
		fmt_append(in, "gzip-compressed ");
		return open_buf(k, inner, ilen, depth + 1, err);
	} else if (depth < 2 && len >= 8 && p[0] == 'M' && p[1] == 'Z' &&
		   !memcmp(p + 4, "zimg", 4)) {
		char comp[33];
		uint32_t off, size;

		if (len < 56)
			return kerr(err, k, "truncated EFI zboot image: %zu bytes, less "
				    "than its header", len);
		off = le32(p + 8);
		size = le32(p + 12);
		memcpy(comp, p + 24, 32);
		comp[32] = '\0';
		for (char *c = comp; *c; c++)
			if (*c < ' ' || *c >= 0x7f)
				*c = '?';
		if (strcmp(comp, "gzip"))
			return kerr(err, k, "an EFI zboot image compressed with '%s': only "
				    "gzip payloads can be read", comp);
		if (off > len || size > len - off)
			return kerr(err, k, "truncated EFI zboot image: the payload ends at "
				    "%" PRIu64 ", beyond its %zu bytes", (uint64_t)off + size, len);
		ret = inflate_layer(k, p + off, size, "the EFI zboot payload", &inner, &ilen, err);
		if (ret)
			return ret;
		fmt_append(in, "EFI zboot (gzip) of ");
		return open_buf(k, inner, ilen, depth + 1, err);
	} else if (len >= 64 && !memcmp(p + 56, "ARM\x64", 4)) {
		static const unsigned int ps[4] = { 0, 12, 14, 16 };

		fmt_append(in, "arm64 Image");
		in->header_page_shift = ps[(le64(p + 24) >> 1) & 3];
	} else if (len >= 64 && !memcmp(p + 56, "ARM\x64", 3)) {
		return kerr(err, k, "an ARM Image that is not arm64's");
	} else {
		return kerr(err, k, "not an arm64 kernel image: neither an ELF vmlinux, "
			    "an arm64 Image (\"ARM\\x64\" at offset 56), gzip data nor an "
			    "EFI zboot image%s", len < 64 ? " (the file is shorter than "
			    "any of their headers)" : "");
	}
	find_banner(k, p, len);
	ret = find_ikconfig(k, p, len, err);
	if (ret)
		return ret;
	nearest(in);
	return 0;
}

int vt_kimage_open_mem(const char *name, const void *buf, size_t len,
		       uint64_t max, struct vt_kimage **out, struct vt_error *err)
{
	struct vt_kimage *k = calloc(1, sizeof(*k));
	int ret;

	*out = NULL;
	if (!k || !(k->name = strdup(name)) || !(k->buf = malloc(len + 1))) {
		vt_kimage_close(k);
		return vt_error_set(err, -ENOMEM, "out of memory");
	}
	memcpy(k->buf, buf, len);
	k->len = len;
	k->max = max ? max : VT_MAX_INPUT_DEFAULT;
	if (len > k->max) {
		vt_kimage_close(k);
		return vt_error_set(err, VT_ERR_INPUT_LIMIT, "%zu bytes, more than "
				    "--max-input", len);
	}
	ret = open_buf(k, k->buf, len, 0, err);
	if (ret) {
		vt_kimage_close(k);
		return ret;
	}
	*out = k;
	return 0;
}

int vt_kimage_open(const char *path, uint64_t max, struct vt_kimage **out,
		   struct vt_error *err)
{
	struct vt_kimage *k = calloc(1, sizeof(*k));
	int ret;

	*out = NULL;
	if (!k || !(k->name = strdup(path))) {
		vt_kimage_close(k);
		return vt_error_set(err, -ENOMEM, "out of memory");
	}
	k->max = max ? max : VT_MAX_INPUT_DEFAULT;
	ret = read_all(path, k->max, &k->buf, &k->len, err);
	if (!ret)
		ret = open_buf(k, k->buf, k->len, 0, err);
	if (ret) {
		vt_kimage_close(k);
		return ret;
	}
	*out = k;
	return 0;
}

const struct vt_kimage_info *vt_kimage_info(const struct vt_kimage *k)
{
	return &k->info;
}

int vt_kimage_need_config(const struct vt_kimage *k, struct vt_error *err)
{
	const struct vt_kimage_info *in = &k->info;

	if (in->config_source == VT_KCONFIG_NONE)
		return kerr(err, k, "no IKCONFIG in this image (it was built without "
			    "CONFIG_IKCONFIG=y)%s%s: VA_BITS, the page-table levels, "
			    "CONTPTE, HAVE_ARCH_HUGE_VMALLOC/VMAP and LPA2 cannot be known%s; "
			    "give the kernel's configuration with --kconfig=FILE%s%s%s",
			    in->release[0] ? ", release " : "", in->release,
			    in->header_page_shift ? " (the granule is known only from the "
			    "Image header)" : ", nor the granule",
			    in->release[0] ? " (Debian ships it as /boot/config-" : "",
			    in->release, in->release[0] ? ")" : "");
	if (!in->config_arm64)
		return kerr(err, k, "the configuration is not an arm64 one (no CONFIG_ARM64=y)");
	if (!in->page_shift)
		return kerr(err, k, "the configuration selects no page size "
			    "(CONFIG_ARM64_4K/16K/64K_PAGES)");
	if (!in->va_bits)
		return kerr(err, k, "the configuration has no CONFIG_ARM64_VA_BITS");
	if (in->header_page_shift && in->header_page_shift != in->page_shift)
		return kerr(err, k, "the Image header says %s pages, the configuration "
			    "%s: they belong to different kernels",
			    vt_kimage_granule(in->header_page_shift),
			    vt_kimage_granule(in->page_shift));
	if (!vt_geometry_valid(in->page_shift, in->va_bits))
		return kerr(err, k, "granule %s with VA_BITS=%u is not a geometry arm64 "
			    "offers", vt_kimage_granule(in->page_shift), in->va_bits);
	return 0;
}

void vt_kimage_close(struct vt_kimage *k)
{
	if (!k)
		return;
	if (k->elf)
		elf_end(k->elf);
	free(k->syms);
	free(k->inner);
	free(k->buf);
	free(k->name);
	free(k);
}
