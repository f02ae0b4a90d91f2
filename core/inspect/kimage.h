/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A real arm64 kernel image read with libelf and zlib (docs/vmaptool-inspect.md):
 * an ELF vmlinux (EM_AARCH64), a raw arm64 Image (the header of
 * Documentation/arch/arm64/booting.rst), a gzip-compressed Image, or an EFI
 * zboot image (drivers/firmware/efi/libstub/zboot-header.S) with a gzip
 * payload.  What it gives: the kernel release from linux_banner
 * (init/version-timestamp.c), the configuration embedded by CONFIG_IKCONFIG
 * (kernel/configs.c: the gzip data of kernel_config_data between "IKCFG_ST"
 * and "IKCFG_ED") or read from a separate .config, the geometry and mapping
 * features that configuration selects, the nearest modelled --kernel
 * generation, and function symbols of an ELF symbol table.
 * Library code: never prints, never exits.
 */
#ifndef VT_KIMAGE_H
#define VT_KIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/model.h"

/* A yes/no Kconfig answer, or unknown when no configuration was read. */
enum vt_tri { VT_TRI_UNKNOWN, VT_TRI_NO, VT_TRI_YES };

enum vt_kconfig_source {
	VT_KCONFIG_NONE,	/* neither IKCONFIG nor --kconfig */
	VT_KCONFIG_IKCONFIG,	/* embedded in the image */
	VT_KCONFIG_FILE,	/* a separate .config */
};

struct vt_kimage_info {
	char format[96];	/* "ELF vmlinux", "arm64 Image in EFI zboot (gzip)", ... */
	bool elf;		/* an ELF file (a symbol table is possible) */
	char banner[256];	/* linux_banner without its newline, "" if not found */
	char release[65];	/* UTS_RELEASE, "" if not found */
	unsigned int version[3];/* major, minor, patch of @release (0 if not found) */
	unsigned int header_page_shift;	/* arm64 Image header flags bits 1-2; 0: not given */
	enum vt_kconfig_source config_source;
	size_t config_bytes;	/* of the configuration text */
	bool config_arm64;	/* CONFIG_ARM64=y */
	unsigned int page_shift;	/* CONFIG_ARM64_{4K,16K,64K}_PAGES; 0 unknown */
	unsigned int va_bits;		/* CONFIG_ARM64_VA_BITS; 0 unknown */
	unsigned int pgtable_levels;	/* CONFIG_PGTABLE_LEVELS; 0 unknown */
	enum vt_tri contpte;		/* CONFIG_ARM64_CONTPTE */
	enum vt_tri huge_vmalloc;	/* CONFIG_HAVE_ARCH_HUGE_VMALLOC */
	enum vt_tri huge_vmap;		/* CONFIG_HAVE_ARCH_HUGE_VMAP */
	enum vt_tri lpa2;		/* CONFIG_ARM64_LPA2 */
	size_t nr_functions;	/* STT_FUNC symbols of the ELF symbol table */
	bool has_nearest;	/* @release was found */
	enum vt_kernel_gen nearest;
	char reason[320];	/* why @nearest */
};

struct vt_kimage;

/*
 * vt_kimage_open() - read a kernel image
 * @path: the file
 * @max: most bytes held at once (the file, a decompressed payload); 0: the
 *       default of core/input.h
 * @out: the image
 * @err: VT_ERR_KIMAGE with the reason (not an ELF or Image, wrong machine,
 *       truncated, bad compression), VT_ERR_INPUT_LIMIT, or -errno
 */
int vt_kimage_open(const char *path, uint64_t max, struct vt_kimage **out,
		   struct vt_error *err);
/* The same over @len bytes at @buf (copied); @name names it in errors. */
int vt_kimage_open_mem(const char *name, const void *buf, size_t len,
		       uint64_t max, struct vt_kimage **out, struct vt_error *err);
/* Read the configuration from a .config file instead of (or where there
 * is no) IKCONFIG: /boot/config-RELEASE on Debian. */
int vt_kimage_set_config_file(struct vt_kimage *k, const char *path,
			      struct vt_error *err);
/* The same over text in memory. */
int vt_kimage_set_config_text(struct vt_kimage *k, const char *name,
			      const char *text, size_t len, struct vt_error *err);

const struct vt_kimage_info *vt_kimage_info(const struct vt_kimage *k);

/*
 * vt_kimage_need_config() - check that the geometry is known
 *
 * Return: 0 when the configuration gives a granule and a VA size arm64
 * accepts; else VT_ERR_KIMAGE saying that there is no configuration and
 * which values that leaves unknown, or what is wrong with it.
 */
int vt_kimage_need_config(const struct vt_kimage *k, struct vt_error *err);

/*
 * vt_kimage_symbolize() - the function symbol containing @addr
 *
 * Writes "name+0xoff" (or "name" when @addr is its start, or the bare name
 * when !@offset) into @buf.  False when there is no symbol table or no
 * function contains @addr.
 */
bool vt_kimage_symbolize(const struct vt_kimage *k, uint64_t addr, bool offset,
			 char *buf, size_t len);

void vt_kimage_close(struct vt_kimage *k);

/* "4k", "16k", "64k" of a page shift. */
const char *vt_kimage_granule(unsigned int page_shift);

#endif
