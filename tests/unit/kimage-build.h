/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small kernel images with known contents, written by hand, for
 * tests/unit/test-inspect.c and tests/fuzz/fuzz-inspect.h: an ELF64
 * vmlinux (sections .text, .rodata, .symtab, .strtab, .shstrtab), a raw
 * arm64 Image (the 64-byte header of Documentation/arch/arm64/booting.rst),
 * gzip of either, and an EFI zboot image
 * (drivers/firmware/efi/libstub/zboot-header.S).  .rodata holds
 * linux_banner and, as kernel/configs.c lays it out, "IKCFG_ST", the gzip
 * of the configuration, "IKCFG_ED".
 */
#ifndef VT_KIMAGE_BUILD_H
#define VT_KIMAGE_BUILD_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct kb_buf {
	uint8_t *p;
	size_t len, cap;
};

static inline void kb_put(struct kb_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline void kb_zero(struct kb_buf *b, size_t n)
{
	while (n--)
		kb_put(b, "", 1);
}

static inline void kb_align(struct kb_buf *b, size_t a)
{
	kb_zero(b, (a - b->len % a) % a);
}

/* RFC 1952 gzip of @n bytes at @d, as scripts/... 'gzip -n' makes it. */
static inline void kb_gzip(struct kb_buf *out, const void *d, size_t n)
{
	z_stream z;
	uint8_t chunk[4096];
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (Bytef *)d;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, Z_FINISH);
		kb_put(out, chunk, sizeof(chunk) - z.avail_out);
	} while (ret == Z_OK);
	deflateEnd(&z);
}

/* What goes into .rodata: the banner of @release and IKCONFIG of @config
 * (NULL: none). */
static inline void kb_rodata(struct kb_buf *b, const char *release, const char *config)
{
	static const char noise[] = "Linux version unknown\n";	/* not a banner */
	char banner[256];

	kb_put(b, noise, sizeof(noise));
	if (release) {
		snprintf(banner, sizeof(banner), "Linux version %s (builder@test) "
			 "(gcc 12.2.0) #1 SMP PREEMPT\n", release);
		kb_put(b, banner, strlen(banner) + 1);
	}
	kb_align(b, 8);
	if (config) {
		kb_put(b, "IKCFG_ST", 8);
		kb_gzip(b, config, strlen(config));
		kb_put(b, "IKCFG_ED", 8);
	}
	kb_zero(b, 16);
}

#define KB_TEXT 0xffff800080010000ull

struct kb_sym {
	const char *name;
	uint64_t off, size;	/* from KB_TEXT */
	unsigned char type;	/* STT_FUNC, STT_OBJECT */
};

/* The function symbols every test ELF has (test-inspect.c checks them). */
static const struct kb_sym kb_syms[] = {
	{ "_text", 0, 0, STT_NOTYPE },
	{ "vmap", 0x100, 0x80, STT_FUNC },
	{ "__vmalloc_node_range_noprof", 0x200, 0x100, STT_FUNC },
	{ "asm_func", 0x400, 0, STT_FUNC },	/* assembly: no size */
	{ "end_func", 0x500, 0x10, STT_FUNC },
	{ "copy_process", 0x1000, 0x400, STT_FUNC },
	{ "linux_banner", 0x2000, 0x80, STT_OBJECT },
};

/* An ELF64 little-endian vmlinux for @machine (EM_AARCH64). */
static inline void kb_elf(struct kb_buf *out, uint16_t machine, const char *release,
		   const char *config)
{
	static const char shstr[] = "\0.text\0.rodata\0.symtab\0.strtab\0.shstrtab";
	struct kb_buf ro = { 0 }, st = { 0 }, sy = { 0 };
	Elf64_Ehdr eh;
	Elf64_Shdr sh[6];
	Elf64_Sym s;
	size_t off_text, off_ro, off_sym, off_str, off_shstr;

	kb_rodata(&ro, release, config);
	kb_put(&st, "", 1);
	memset(&s, 0, sizeof(s));
	kb_put(&sy, &s, sizeof(s));
	for (size_t i = 0; i < sizeof(kb_syms) / sizeof(kb_syms[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.st_name = (Elf64_Word)st.len;
		s.st_info = ELF64_ST_INFO(STB_GLOBAL, kb_syms[i].type);
		s.st_shndx = kb_syms[i].type == STT_OBJECT ? 2 : 1;
		s.st_value = KB_TEXT + kb_syms[i].off;
		s.st_size = kb_syms[i].size;
		kb_put(&st, kb_syms[i].name, strlen(kb_syms[i].name) + 1);
		kb_put(&sy, &s, sizeof(s));
	}
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_entry = KB_TEXT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 5;
	kb_put(out, &eh, sizeof(eh));
	off_text = out->len;
	kb_zero(out, 0x2000);
	off_ro = out->len;
	kb_put(out, ro.p, ro.len);
	kb_align(out, 8);
	off_sym = out->len;
	kb_put(out, sy.p, sy.len);
	off_str = out->len;
	kb_put(out, st.p, st.len);
	off_shstr = out->len;
	kb_put(out, shstr, sizeof(shstr));
	kb_align(out, 8);
	memset(sh, 0, sizeof(sh));
	sh[1] = (Elf64_Shdr){ 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, KB_TEXT,
			      off_text, 0x2000, 0, 0, 4096, 0 };
	sh[2] = (Elf64_Shdr){ 7, SHT_PROGBITS, SHF_ALLOC, KB_TEXT + 0x2000, off_ro,
			      ro.len, 0, 0, 8, 0 };
	sh[3] = (Elf64_Shdr){ 15, SHT_SYMTAB, 0, 0, off_sym, sy.len, 4, 1, 8,
			      sizeof(Elf64_Sym) };
	sh[4] = (Elf64_Shdr){ 23, SHT_STRTAB, 0, 0, off_str, st.len, 0, 0, 1, 0 };
	sh[5] = (Elf64_Shdr){ 31, SHT_STRTAB, 0, 0, off_shstr, sizeof(shstr), 0, 0, 1, 0 };
	((Elf64_Ehdr *)out->p)->e_shoff = out->len;
	kb_put(out, sh, sizeof(sh));
	free(ro.p);
	free(st.p);
	free(sy.p);
}

/* A raw arm64 Image whose header flags give @hdr_page_shift (0: none). */
static inline void kb_image(struct kb_buf *out, unsigned int hdr_page_shift,
		     const char *release, const char *config)
{
	uint8_t h[64] = { 'M', 'Z' };
	uint64_t flags = hdr_page_shift == 12 ? 1 : hdr_page_shift == 14 ? 2 :
			 hdr_page_shift == 16 ? 3 : 0;

	flags <<= 1;
	for (int i = 0; i < 8; i++)
		h[24 + i] = (uint8_t)(flags >> (8 * i));
	memcpy(h + 56, "ARM\x64", 4);
	kb_put(out, h, sizeof(h));
	kb_zero(out, 4096 - 64);
	kb_rodata(out, release, config);
}

/* An EFI zboot image of @payload compressed as @comp (gzip data given). */
static inline void kb_zboot(struct kb_buf *out, const char *comp, const struct kb_buf *gz)
{
	uint8_t h[64] = { 'M', 'Z', 0, 0, 'z', 'i', 'm', 'g' };
	uint32_t off = 512, size = (uint32_t)gz->len;

	for (int i = 0; i < 4; i++) {
		h[8 + i] = (uint8_t)(off >> (8 * i));
		h[12 + i] = (uint8_t)(size >> (8 * i));
	}
	strncpy((char *)h + 24, comp, 31);
	kb_put(out, h, sizeof(h));
	kb_zero(out, off - sizeof(h));
	kb_put(out, gz->p, gz->len);
	kb_zero(out, 64);
}

#endif
