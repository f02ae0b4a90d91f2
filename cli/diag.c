// SPDX-License-Identifier: GPL-2.0
/*
 * The only code that writes diagnostics to stderr (STYLE.md 4).  vt_err()
 * returns -1 like git's error(); vt_info() is silent under --format=json
 * and -q like bpftool's p_info(); vt_dbg() is gated on -v like perf's
 * pr_debug().  libtraceevent's weak tep_vprint() is overridden here so that
 * the library's messages (info level goes to stdout by default) come
 * through the same gate instead of corrupting a JSON report.
 *
 * Its settings come from vt_diag_setup() (cli/main.c calls it when the
 * options are parsed), so nothing here reads main.c's globals.  The one
 * mapping from an error code to an exit status is here too.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "cli/cli.h"
#include "cli/report.h"

/* libtraceevent's override point; declared in event-utils.h, whose min()
 * and max() macros we do not want. */
int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap);

static bool progress_shown;
static struct vt_diag_opts diag;

void vt_diag_setup(const struct vt_diag_opts *o)
{
	diag = *o;
}

int vt_exit_code(int err)
{
	if (err >= 0)
		return 0;
	return (int)vt_err_class(err);
}

/*
 * Print @s to stderr through vt_escape() (core/error.h): messages quote
 * input (op and flag names, file names, a source line), which must not
 * reach the terminal as escape sequences.  @keep_nl: @s may be several
 * lines (the trace reader's warnings, one per line).
 */
static void put_escaped(const char *s, bool keep_nl)
{
	size_t n = strlen(s);
	char small[1024], *buf = n * 4 + 1 <= sizeof(small) ? small : malloc(n * 4 + 1);

	if (!buf) {	/* out of memory: drop what could be an escape */
		for (; *s; s++)
			fputc((unsigned char)*s < 0x20 && *s != '\n' ? '?' : *s, stderr);
		return;
	}
	vt_escape(buf, n * 4 + 1, s, keep_nl);
	fputs(buf, stderr);
	if (buf != small)
		free(buf);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (progress_shown) {	/* a message replaces the progress line */
		fputs("\r\033[K", stderr);
		progress_shown = false;
	}
	fprintf(stderr, "vmaptool: %s", prefix);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	put_escaped(msg ? msg : "(out of memory formatting the message)", true);
	free(msg);
	fputc('\n', stderr);
}

/* "vmaptool: error: ...", as vt_report_error() words an error without a file */
int vt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

/* "vmaptool: error: out of memory": exit status VT_EC_SYSTEM (docs/exit-codes.md) */
int vt_err_oom_exit(void)
{
	vt_err("out of memory");
	return VT_EC_SYSTEM;
}

int vt_err_argp(int e)
{
	if (!e)
		return 0;
	if (e == ENOMEM)
		return vt_err_oom_exit();
	vt_err("cannot parse the command line: %s", strerror(e));
	return VT_EC_USAGE;
}

void vt_progress(const char *what, long events, bool done)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty || diag.quiet)
		return;
	if (done) {
		if (progress_shown)
			fputs("\r\033[K", stderr);
		progress_shown = false;
		return;
	}
	fprintf(stderr, "\rvmaptool: %s: %ld events", what, events);
	progress_shown = true;
}

/* "vmaptool: calibrate: figure 3/21 (ID)", on a terminal only, like vt_progress() */
void vt_progress_step(const char *what, unsigned int i, unsigned int n, const char *id)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty || diag.quiet)
		return;
	if (i >= n) {
		if (progress_shown)
			fputs("\r\033[K", stderr);
		progress_shown = false;
		return;
	}
	fprintf(stderr, "\r\033[Kvmaptool: %s %u/%u (%s)", what, i + 1, n, id);
	progress_shown = true;
}

void vt_warn(const char *fmt, ...)
{
	va_list ap;

	if (diag.quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void vt_info(const char *fmt, ...)
{
	va_list ap;

	if (diag.quiet || diag.json)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

/*
 * Debug level @level is printed from @level + 1 -v's: one -v is "more
 * detail" (the source line of an error, verbose listings), the help's
 * "repeat for debug output" is -v -v.
 */
void vt_dbg(int level, const char *fmt, ...)
{
	va_list ap;

	if (diag.verbose <= level)
		return;
	va_start(ap, fmt);
	vmsg("debug: ", fmt, ap);
	va_end(ap);
}

/*
 * With -v, show the offending source line and a caret under the column,
 * as jq's locfile_locate() does.  Only plain text files are read back.
 */
static void show_source(const struct vt_error *e)
{
	char line[512];
	unsigned long n = 0;
	FILE *f;

	if (!e->file[0] || !e->line)
		return;
	f = fopen(e->file, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (++n == e->line) {
			if (len && line[len - 1] == '\n')
				line[--len] = '\0';
			fputs("  ", stderr);
			put_escaped(line, false);
			fputc('\n', stderr);
			if (e->column && e->column <= len + 1)
				fprintf(stderr, "  %*s^\n", (int)(e->column - 1), "");
			break;
		}
		/* skip the rest of an overlong line without counting it */
		while (len && line[len - 1] != '\n' && fgets(line, sizeof(line), f))
			len = strlen(line);
	}
	fclose(f);
}

int vt_report_error(const struct vt_error *e)
{
	char buf[512];
	const char *msg = e->msg[0] ? e->msg : vt_strerror(e->code, buf, sizeof(buf));

	if (e->file[0]) {
		put_escaped(e->file, false);
		if (e->line) {
			fprintf(stderr, ":%lu", e->line);
			if (e->column)
				fprintf(stderr, ":%lu", e->column);
		}
		fputs(": ", stderr);
	} else {
		fputs("vmaptool: ", stderr);
	}
	fputs("error: ", stderr);
	put_escaped(msg, false);
	if (e->event >= 0)
		fprintf(stderr, " (event %ld)", e->event);
	fputc('\n', stderr);
	if (diag.verbose)
		show_source(e);
	if (diag.json)
		vt_report_error_json(stdout, e, diag.json_one_line);
	return vt_exit_code(e->code ? e->code : VT_ERR_INVARIANT);
}

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err,
	       const char *fmt, va_list ap)
{
	char buf[1024];
	size_t len;

	(void)print_err;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	switch (level) {
	case TEP_LOG_CRITICAL:
	case TEP_LOG_ERROR:
	case TEP_LOG_WARNING:
		vt_warn("%s: %s", name ? name : "libtraceevent", buf);
		break;
	case TEP_LOG_INFO:
		vt_dbg(1, "%s: %s", name ? name : "libtraceevent", buf);
		break;
	case TEP_LOG_NONE:
	case TEP_LOG_DEBUG:
	case TEP_LOG_ALL:
		vt_dbg(2, "%s: %s", name ? name : "libtraceevent", buf);
		break;
	}
	return (int)len;
}
