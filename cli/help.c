// SPDX-License-Identifier: GPL-2.0
/*
 * argp's help output, repaired: argp writes its help, usage and --version
 * into memory (vt_help_stream(), the common parser's ARGP_KEY_INIT), and at
 * exit they go to stdout with argp's layout restored.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"


/*
 * glibc's argp formats help through a 200-byte argp_fmtstream buffer; when
 * a line that needs a left margin starts with the buffer nearly full,
 * __argp_fmtstream_update() writes the margin's spaces straight to the
 * stream, ahead of the buffered text they belong after (glibc 2.36
 * argp/argp-fmtstream.c, "No buffer space for spaces.  Must flush."): a
 * header lands indented by the option-doc column and the doc line after
 * it at column 0.  A text that ends exactly at the right margin also
 * leaves a line of spaces.  So argp writes its help (state->out_stream)
 * into memory, and at exit it goes to stdout with argp's layout restored:
 * group headers at column 1, options at 2 or 6, their text at 29, and no
 * trailing blanks.
 */
enum { COL_HEADER = 1, COL_SHORT = 2, COL_LONG = 6, COL_DOC = 29 };

static char *help_buf;
static size_t help_len;
static FILE *help_file;

static bool is_margin(size_t n)
{
	return n == COL_HEADER || n == COL_SHORT || n == COL_LONG || n == COL_DOC;
}

/* The indentation @n a line of the options section should have had, given
 * its text @t and whether the line before it is blank. */
static size_t help_indent(size_t n, const char *t, size_t len, bool after_blank)
{
	bool header = after_blank && len && t[len - 1] == ':' && t[0] != '-';

	if (is_margin(n) && !(header && n != COL_HEADER))
		return n;
	if (header)
		return COL_HEADER;
	/* spaces of one margin (1 or 29) written ahead of this line's own */
	if (n > COL_DOC && is_margin(n - COL_DOC) && (t[0] == '-') == (n - COL_DOC != COL_DOC))
		return n - COL_DOC;
	if (n > COL_HEADER && t[0] == '-' && (n - COL_HEADER == COL_SHORT ||
					       n - COL_HEADER == COL_LONG))
		return n - COL_HEADER;
	return t[0] == '-' ? (t[1] == '-' ? COL_LONG : COL_SHORT) : COL_DOC;
}

struct help_line {
	const char *p;
	size_t n, len;	/* leading blanks, length without trailing blanks */
	bool blanks;	/* blanks alone: argp's, after a text ending at the margin */
};

static bool has_word(const struct help_line *l, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = 0; i + n <= l->len; i++)
		if (!memcmp(l->p + i, w, n))
			return true;
	return false;
}

static void help_flush(void)
{
	struct help_line *v;
	size_t nr = 0, first = SIZE_MAX, start = 0, stop = 0;

	if (!help_file || fflush(help_file) || !help_len)
		goto out;
	v = calloc(help_len + 1, sizeof(*v));
	if (!v) {
		fwrite(help_buf, 1, help_len, stdout);
		goto out;
	}
	for (const char *p = help_buf, *end = help_buf + help_len; p < end; nr++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct help_line *l = &v[nr];

		l->p = p;
		l->len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		l->blanks = l->len != 0;
		while (l->len && (p[l->len - 1] == ' ' || p[l->len - 1] == '\t'))
			l->len--;
		while (l->n < l->len && p[l->n] == ' ')
			l->n++;
		if (first == SIZE_MAX && l->n && l->n < l->len && p[l->n] == '-')
			first = nr;
		p = nl ? nl + 1 : end;
	}
	/* the options: from the blank line before the first one to --version */
	if (first != SIZE_MAX) {
		for (start = first; start && v[start - 1].len; start--)
			;
		for (stop = first; stop < nr; stop++)
			if (has_word(&v[stop], "--version"))
				break;
	}
	for (size_t i = 0; i < nr; i++) {
		struct help_line *l = &v[i];
		size_t n = l->n;

		if (l->blanks && !l->len)
			continue;	/* a line of blanks alone */
		if (first != SIZE_MAX && i >= start && i <= stop && l->len)
			n = help_indent(n, l->p + n, l->len - n,
						i && !v[i - 1].len && !v[i - 1].blanks);
		printf("%*s%.*s\n", (int)n, "", (int)(l->len - l->n), l->p + l->n);
	}
	free(v);
	/* argp exits 0 after the help: a lost help text must not look like
	 * success (main()'s check_stdout() does not run on that path) */
	if (fflush(stdout) || ferror(stdout)) {
		vt_err("write error on stdout: %s", strerror(errno));
		_exit(VT_EC_SYSTEM);
	}
out:
	if (help_file)
		fclose(help_file);
	free(help_buf);
	help_file = NULL;
}

/* Where argp writes help, usage and --version: memory, put out by help_flush(). */
FILE *vt_help_stream(void)
{
	if (!help_file) {
		help_file = open_memstream(&help_buf, &help_len);
		if (!help_file)
			return stdout;
		atexit(help_flush);
	}
	return help_file;
}

