// SPDX-License-Identifier: GPL-2.0
/*
 * Lines of prose at a margin: the report's sentences at 72 columns
 * (cli/render-table.c), the strategies list at argp's 79.  A trace path's
 * spaces come as VT_WRAP_SPACE, so that a path is never broken.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/report-doc.h"

static void put_word(FILE *f, const char *p, size_t n)
{
	for (size_t j = 0; j < n; j++)
		fputc(p[j] == VT_WRAP_SPACE ? ' ' : p[j], f);
}

void vt_wrap_none(FILE *f, const char *text)
{
	put_word(f, text, strlen(text));
	fputc('\n', f);
}

void vt_wrap(FILE *f, const char *text, int col, int indent, int cols)
{
	const char *p = text;
	bool line_start = true;

	while (*p) {
		size_t n = strcspn(p, " ");
		int w = 0;

		/* columns, not bytes: a UTF-8 sequence is one column */
		for (size_t j = 0; j < n; j++)
			w += ((unsigned char)p[j] & 0xc0) != 0x80;
		if (!line_start && col + 1 + w > cols) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!line_start) {
			fputc(' ', f);
			col++;
		}
		put_word(f, p, n);
		col += w;
		line_start = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}
