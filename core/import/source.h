/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The importer's input (core/import/): the recording being read, as text
 * (plain, xz, a file, a pipe or memory) or as a trace.dat through
 * libtracecmd.  Only the front ends (text.c, dat.c) and open.c include it;
 * the reconstruction (reconstruct.c) sees the records they hand it.
 */
#ifndef VT_IMPORT_SOURCE_H
#define VT_IMPORT_SOURCE_H

#include <lzma.h>
#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "core/import/internal.h"

static const char dat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				  'i', 'n', 'g' };
static const unsigned char xz_magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

struct vt_im_source {
	struct tracecmd_input *dat;
	struct vt_ksyms *ksyms;	/* its kallsyms, resolved lazily (kallsyms.h) */
	struct dat_ctx *fed;	/* records handed in (vt_import_open_records) */
	FILE *f;
	const unsigned char *mem;
	size_t mem_len, mem_pos;
	bool xz;
	lzma_stream lz;
	bool lz_init;
	unsigned char inbuf[65536];
	size_t in_len, in_pos;
	bool in_eof;
	char *lbuf;
	size_t lbuf_len, lbuf_cap, lbuf_pos;
	bool out_eof;
	struct vt_input *in;	/* the counting stream im->f reads */
	unsigned char head[16];	/* bytes sniffed, handed out first */
	size_t head_len, head_pos;
	size_t scan_pos;	/* lbuf[lbuf_pos, scan_pos) has no newline */
	uint64_t text_total;	/* text bytes produced (after xz) */
	FILE *raw_spool;	/* pass 1's copy of an input that is not a file */
	bool rewindable;	/* the input can be read again from the start */
};

/* The trace.dat front end's per-recording state (dat.c). */
struct dat_ctx *vt_im_dat_ctx_new(struct vt_import *im, struct tep_handle *tep);
void vt_im_dat_ctx_free(struct dat_ctx *c);

#endif
