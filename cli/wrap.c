// SPDX-License-Identifier: GPL-2.0
/*
 * Lines of prose at a margin: the report's sentences at 72 columns
 * (cli/render-table.c), the strategies list at argp's 79.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/report-doc.h"

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
		fprintf(f, "%.*s", (int)n, p);
		col += w;
		line_start = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}
