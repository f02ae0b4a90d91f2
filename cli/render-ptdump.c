// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering 'vmaptool ptdump': the ranges a replay left in the tables, as
 * text in the style of arch/arm64/mm/ptdump.c, as JSON or as CSV.
 */
#include <string.h>

#include "cli/report-doc.h"

/* The pte_bits[] table of arch/arm64/mm/ptdump.c, decoded from the
 * descriptor bits of arm64-mapping-engine.md 2.1. */
static const struct {
	uint64_t mask, val;
	const char *set, *clear;
} pte_bits[] = {
	{ 1ull << 0, 1ull << 0, " ", "F" },		/* PTE_VALID */
	{ 1ull << 6, 1ull << 6, "USR", "   " },		/* PTE_USER */
	{ 1ull << 7, 1ull << 7, "ro", "RW" },		/* PTE_RDONLY */
	{ 1ull << 53, 1ull << 53, "NX", "x " },		/* PTE_PXN */
	{ 3ull << 8, 3ull << 8, "SHD", "   " },		/* PTE_SHARED */
	{ 1ull << 10, 1ull << 10, "AF", "  " },		/* PTE_AF */
	{ 1ull << 11, 1ull << 11, "NG", "  " },		/* PTE_NG */
	{ 1ull << 52, 1ull << 52, "CON", "   " },	/* PTE_CONT */
	{ 3ull, 1ull, "BLK", "   " },			/* PMD_TYPE_SECT */
	{ 1ull << 54, 1ull << 54, "UXN", "   " },	/* PTE_UXN */
	{ 1ull << 50, 1ull << 50, "GP", "  " },		/* PTE_GP */
	{ 7ull << 2, 3ull << 2, "DEVICE/nGnRnE", NULL },
	{ 7ull << 2, 4ull << 2, "DEVICE/nGnRE", NULL },
	{ 7ull << 2, 2ull << 2, "MEM/NORMAL-NC", NULL },
	{ 7ull << 2, 0ull << 2, "MEM/NORMAL", NULL },
	{ 7ull << 2, 1ull << 2, "MEM/NORMAL-TAGGED", NULL },
};

/* Descriptor bits of a line; the type bits follow from its kind if the
 * engine left them out. */
static uint64_t line_attrs(const struct vt_ptdump_line *l)
{
	uint64_t a = l->attrs;

	if (!(a & 3))
		a |= strcmp(l->kind, "block") ? 3 : 1;
	return a;
}

struct marker {
	uint64_t start;
	const char *name;
};

/* The address markers of ptdump_init() (arch/arm64/mm/ptdump.c) that
 * bound the areas vmaptool models, at the addresses of the generation the
 * engine modelled (6.1's 128 MiB modules region and VMALLOC_END). */
static size_t markers_of(const struct vt_layout *l, struct marker *m)
{
	m[0] = (struct marker){ l->page_offset, "Linear Mapping start" };
	m[1] = (struct marker){ l->page_end, "Linear Mapping end" };
	m[2] = (struct marker){ l->page_end, "Modules start" };
	m[3] = (struct marker){ l->vmalloc_start, "Modules end" };
	m[4] = (struct marker){ l->vmalloc_start, "vmalloc() area" };
	m[5] = (struct marker){ l->vmalloc_end, "vmalloc() end" };
	return 6;
}

/*
 * The ranges from lines[*i] on that note_page() (arch/arm64/mm/ptdump.c)
 * prints as one: each starting where the last ends, at the same level and
 * with the same attributes, no marker between them; the physical address
 * may jump (the engine's ranges, which JSON and CSV give as they are, are
 * also physically contiguous).  Returns their union, *@i moved past them.
 */
static struct vt_ptdump_line kernel_line(const struct vt_ptdump_doc *d, size_t *i,
					 const struct marker *m, size_t nm)
{
	struct vt_ptdump_line l = d->lines[(*i)++];

	for (; *i < d->nr; (*i)++) {
		const struct vt_ptdump_line *n = &d->lines[*i];
		bool marker = false;

		for (size_t k = 0; k < nm; k++)
			marker |= m[k].start > l.va_start && m[k].start <= n->va_start;
		if (n->va_start != l.va_end || n->level != l.level || marker ||
		    strcmp(n->kind, l.kind) || line_attrs(n) != line_attrs(&l))
			break;
		l.va_end = n->va_end;
		l.nr += n->nr;
	}
	return l;
}

static void ptdump_text(FILE *f, const struct vt_ptdump_doc *d, int verbose)
{
	static const char units[] = "KMGTPE";
	struct marker m[8];
	size_t nm = markers_of(&d->layout, m), next = 0;

	for (size_t i = 0; i < d->nr;) {
		const struct vt_ptdump_line line = kernel_line(d, &i, m, nm), *l = &line;
		uint64_t a = line_attrs(l), delta;
		const char *unit = units;

		while (next < nm && m[next].start <= l->va_start)
			fprintf(f, "---[ %s ]---\n", m[next++].name);
		fprintf(f, "0x%016" PRIx64 "-0x%016" PRIx64 "   ",
			l->va_start, l->va_end);
		delta = (l->va_end - l->va_start) >> 10;
		while (!(delta & 1023) && unit[1]) {
			delta >>= 10;
			unit++;
		}
		fprintf(f, "%9" PRIu64 "%c %s", delta, *unit, l->lvl_name);
		for (size_t b = 0; b < sizeof(pte_bits) / sizeof(pte_bits[0]); b++) {
			const char *s = (a & pte_bits[b].mask) == pte_bits[b].val ?
					pte_bits[b].set : pte_bits[b].clear;

			if (s)
				fprintf(f, " %s", s);
		}
		if (verbose)
			fprintf(f, "  pa 0x%" PRIx64 " x%" PRIu64, l->pa_start, l->nr);
		fputc('\n', f);
	}
	while (next < nm)
		fprintf(f, "---[ %s ]---\n", m[next++].name);
}

static int ptdump_json(FILE *f, const struct vt_ptdump_doc *d)
{
	json_t *doc = json_object(), *ranges = json_array();
	int ret = -ENOMEM;

	if (!doc || !ranges || put(doc, "ranges", json_incref(ranges)) ||
	    put(doc, "format", json_string("vmaptool-ptdump")) ||
	    put(doc, "version", json_integer(1)) ||
	    put(doc, "trace", json_string(d->trace)) ||
	    put(doc, "strategy", json_string(d->strategy)) ||
	    put(doc, "at", d->at >= 0 ? json_integer(d->at) : json_null()) ||
	    put(doc, "config", vt_report_geometry_json(d->page_shift, d->va_bits)))
		goto out;
	for (size_t i = 0; i < d->nr; i++) {
		const struct vt_ptdump_line *l = &d->lines[i];
		uint64_t a = line_attrs(l);
		json_t *o = json_object(), *attrs = json_array();

		if (!o || append(ranges, o) || !attrs || put(o, "attributes", attrs) ||
		    put(o, "va_start", hex(l->va_start)) ||
		    put(o, "va_end", hex(l->va_end)) ||
		    put(o, "pa_start", hex(l->pa_start)) ||
		    put(o, "level", json_string(l->lvl_name)) ||
		    put(o, "kind", json_string(l->kind)) ||
		    put(o, "descriptors", json_integer((json_int_t)l->nr)) ||
		    put(o, "attrs", hex(a)))
			goto out;
		for (size_t b = 0; b < sizeof(pte_bits) / sizeof(pte_bits[0]); b++) {
			const char *s = (a & pte_bits[b].mask) == pte_bits[b].val ?
					pte_bits[b].set : pte_bits[b].clear;
			char word[32];
			size_t n;

			/* the padding of the text form is not an attribute */
			snprintf(word, sizeof(word), "%s", s ? s : "");
			n = strlen(word);
			while (n && word[n - 1] == ' ')
				word[--n] = '\0';
			if (n && append(attrs, json_string(word)))
				goto out;
		}
	}
	ret = dump_json(doc, f, JSON_INDENT(2));
out:
	json_decref(ranges);
	json_decref(doc);
	return ret;
}

int vt_report_ptdump(FILE *f, enum vt_format fmt, const struct vt_ptdump_doc *d,
		     int verbose)
{
	switch (fmt) {
	case VT_FMT_JSON:
		return ptdump_json(f, d);
	case VT_FMT_CSV:
		fputs("va_start,va_end,pa_start,level,kind,descriptors,attrs\n", f);
		for (size_t i = 0; i < d->nr; i++) {
			const struct vt_ptdump_line *l = &d->lines[i];

			fprintf(f, "0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
				",%s,%s,%" PRIu64 ",0x%" PRIx64 "\n",
				l->va_start, l->va_end, l->pa_start, l->lvl_name,
				l->kind, l->nr, line_attrs(l));
		}
		break;
	case VT_FMT_TABLE:
	case VT_FMT_MAIL:	/* refused by the command line: only reports */
		ptdump_text(f, d, verbose);
		break;
	}
	return ferror(f) ? -EIO : 0;
}
