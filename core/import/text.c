// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace text front end of vmaptool import: lines of ftrace's
 * trace/trace_pipe ("comm-pid [cpu] flags ts: name: key=value ..."),
 * function tracer lines ("ts: func <-parent") and 'trace-cmd report'
 * output (whose "[FAILED TO PARSE]" lines still carry the raw fields),
 * plain or xz-compressed, into normalised records (struct kev).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/import/source.h"


/* ---- text front end ------------------------------------------------ */

static ssize_t raw_read1(struct vt_import *im, void *buf, size_t len);

/*
 * Raw bytes from the file or the memory buffer; pass 1 of an input that
 * cannot be read twice (a pipe) keeps a copy for pass 2, which reads it.
 */
static ssize_t raw_read(struct vt_import *im, void *buf, size_t len)
{
	ssize_t n;

	if (im->src->raw_spool && im->pass == 2) {
		n = (ssize_t)fread(buf, 1, len, im->src->raw_spool);
		return ferror(im->src->raw_spool) ? -EIO : n;
	}
	n = raw_read1(im, buf, len);
	if (n > 0 && im->src->raw_spool &&
	    fwrite(buf, 1, (size_t)n, im->src->raw_spool) != (size_t)n)
		return errno ? -errno : -EIO;
	return n;
}

/*
 * The second pass reads the same bytes again: from the start of the file
 * (whose first bytes open.c sniffed are read again), of the memory buffer
 * or of pass 1's copy.
 */
/*
 * The decoder's memory is what each block header declares (the LZMA2
 * dictionary, up to 4 GiB - 1), allocated before a byte is inflated: a
 * 100-byte stream could declare 4 GiB.  liblzma checks it against a limit
 * before allocating (lzma_stream_decoder()'s memlimit), so the limit is
 * what --max-input allows: no text needs a dictionary larger than itself,
 * with room for xz -9's 64 MiB whatever --max-input is (xz does not shrink
 * the dictionary for a small file).  The decompressed bytes are counted
 * against --max-input as they come (text_limit()): the uncompressed sizes
 * an xz index declares are not read first, since they can lie and a pipe
 * has no index to seek to, and nothing is allocated by them.
 */
#define XZ_MEM_SLACK (66ull << 20)

static uint64_t xz_memlimit(const struct vt_import *im)
{
	return (im->max_input > XZ_MEM_SLACK ? im->max_input : XZ_MEM_SLACK) + (2ull << 20);
}

int vt_im_xz_start(struct vt_import *im, struct vt_error *err)
{
	lzma_stream init = LZMA_STREAM_INIT;

	im->src->lz = init;
	if (lzma_stream_decoder(&im->src->lz, xz_memlimit(im), LZMA_CONCATENATED) != LZMA_OK)
		return vt_error_set(err, -ENOMEM, "cannot start the xz decoder: out of memory");
	im->src->lz_init = true;
	return 0;
}

int vt_im_text_rewind(struct vt_import *im, struct vt_error *err)
{
	if (im->src->mem) {
		im->src->mem_pos = 0;
	} else if (im->src->raw_spool) {
		if (fflush(im->src->raw_spool) || fseek(im->src->raw_spool, 0, SEEK_SET))
			goto sys;
		im->src->head_pos = im->src->head_len;
	} else {
		if (fseek(im->src->f, 0, SEEK_SET))
			goto sys;
		im->src->head_pos = im->src->head_len;
	}
	im->src->lbuf_len = im->src->lbuf_pos = im->src->scan_pos = 0;
	im->src->out_eof = false;
	im->src->in_len = im->src->in_pos = 0;
	im->src->in_eof = false;
	im->src->text_total = 0;
	if (im->src->xz) {
		lzma_end(&im->src->lz);
		im->src->lz_init = false;
		return vt_im_xz_start(im, err);
	}
	return 0;
sys:
	return vt_error_set(err, errno ? -errno : -EIO,
			    "cannot read recording '%s' again: %s", im->name,
			    strerror(errno ? errno : EIO));
}

/* Raw bytes from the file or the memory buffer. */
static ssize_t raw_read1(struct vt_import *im, void *buf, size_t len)
{
	if (im->src->mem) {
		size_t n = im->src->mem_len - im->src->mem_pos;

		if (n > len)
			n = len;
		memcpy(buf, im->src->mem + im->src->mem_pos, n);
		im->src->mem_pos += n;
		return (ssize_t)n;
	}
	/* the bytes open.c sniffed the format from come first */
	if (im->src->head_pos < im->src->head_len) {
		size_t n = im->src->head_len - im->src->head_pos;

		if (n > len)
			n = len;
		memcpy(buf, im->src->head + im->src->head_pos, n);
		im->src->head_pos += n;
		return (ssize_t)n;
	}
	if (!im->src->f)
		return 0;
	{
		size_t n = fread(buf, 1, len, im->src->f);

		if (ferror(im->src->f))
			return errno ? -errno : -EIO;
		return (ssize_t)n;
	}
}

static int read_error(struct vt_import *im, ssize_t n, struct vt_error *err)
{
	if (vt_input_limit_hit(im->src->in, err))
		return err->code;
	return vt_error_set(err, (int)n, "cannot read recording '%s': %s",
			    im->name, strerror((int)-n));
}

/* The text (after decompression) is bounded by --max-input. */
static int text_limit(struct vt_import *im, size_t n, struct vt_error *err)
{
	char b[64];

	im->src->text_total += n;
	if (im->src->text_total <= im->max_input)
		return 0;
	snprintf(err->file, sizeof(err->file), "%s", im->name);
	return vt_error_set(err, VT_ERR_INPUT_LIMIT,
			    "%s is larger than the --max-input limit of %s",
			    im->src->xz ? "the decompressed recording" : "input",
			    vt_input_size_text(im->max_input, b, sizeof(b)));
}

/* Append decoded bytes to the line buffer; 0 at end, <0 on error. */
static int text_fill(struct vt_import *im, struct vt_error *err)
{
	size_t want = 65536;
	ssize_t n;

	if (im->src->out_eof)
		return 0;
	if (im->src->lbuf_pos) {
		memmove(im->src->lbuf, im->src->lbuf + im->src->lbuf_pos,
			im->src->lbuf_len - im->src->lbuf_pos);
		im->src->lbuf_len -= im->src->lbuf_pos;
		im->src->scan_pos -= im->src->lbuf_pos;
		im->src->lbuf_pos = 0;
	}
	if (VT_ALLOC_GROW(im->src->lbuf, im->src->lbuf_len + want + 1,
			  im->src->lbuf_cap))
		return vt_err_oom(err);
	if (!im->src->xz) {
		n = raw_read(im, im->src->lbuf + im->src->lbuf_len, want);
		if (n < 0)
			return read_error(im, n, err);
		if (!n)
			im->src->out_eof = true;
		im->src->lbuf_len += n;
		if (text_limit(im, n, err))
			return err->code;
		return (int)(n > 0);
	}
	im->src->lz.next_out = (uint8_t *)im->src->lbuf + im->src->lbuf_len;
	im->src->lz.avail_out = want;
	while (im->src->lz.avail_out == want) {
		lzma_ret r;

		if (im->src->in_pos == im->src->in_len && !im->src->in_eof) {
			n = raw_read(im, im->src->inbuf, sizeof(im->src->inbuf));
			if (n < 0)
				return read_error(im, n, err);
			im->src->in_len = n;
			im->src->in_pos = 0;
			if (!n)
				im->src->in_eof = true;
		}
		im->src->lz.next_in = im->src->inbuf + im->src->in_pos;
		im->src->lz.avail_in = im->src->in_len - im->src->in_pos;
		r = lzma_code(&im->src->lz, im->src->in_eof ? LZMA_FINISH : LZMA_RUN);
		im->src->in_pos = im->src->in_len - im->src->lz.avail_in;
		if (r == LZMA_STREAM_END) {
			im->src->out_eof = true;
			break;
		}
		if (r == LZMA_MEM_ERROR)
			return vt_err_oom(err);
		if (r == LZMA_MEMLIMIT_ERROR) {
			char b[64];

			snprintf(err->file, sizeof(err->file), "%s", im->name);
			return vt_error_set(err, VT_ERR_INPUT_LIMIT,
					    "the xz data declares a dictionary needing %llu "
					    "bytes to decompress, more than the %llu bytes "
					    "the --max-input limit of %s allows",
					    (unsigned long long)lzma_memusage(&im->src->lz),
					    (unsigned long long)xz_memlimit(im),
					    vt_input_size_text(im->max_input, b, sizeof(b)));
		}
		if (r != LZMA_OK)
			return vt_error_set(err, VT_ERR_IMPORT,
					    "corrupt xz data (lzma error %d)", (int)r);
		if (im->src->in_eof && !im->src->lz.avail_in &&
		    im->src->lz.avail_out == want)
			return vt_error_set(err, VT_ERR_IMPORT,
					    "truncated xz data");
	}
	im->src->lbuf_len += want - im->src->lz.avail_out;
	if (text_limit(im, want - im->src->lz.avail_out, err))
		return err->code;
	return 1;
}

/* The next line, NUL-terminated in place; NULL at end or on error. */
static char *text_line(struct vt_import *im, int *rc, struct vt_error *err)
{
	for (;;) {
		/* lbuf is NULL until the first fill: no pointer arithmetic on it */
		char *start = im->src->lbuf ? im->src->lbuf + im->src->lbuf_pos : NULL;
		char *nl;

		/*
		 * Search only the bytes not searched yet: a long line read in
		 * 64 KiB pieces is scanned once, not once per piece.
		 */
		if (im->src->scan_pos < im->src->lbuf_pos)
			im->src->scan_pos = im->src->lbuf_pos;
		nl = im->src->lbuf_len > im->src->scan_pos ?
			memchr(im->src->lbuf + im->src->scan_pos, '\n',
			       im->src->lbuf_len - im->src->scan_pos) : NULL;
		if (nl) {
			*nl = '\0';
			im->src->lbuf_pos = nl - im->src->lbuf + 1;
			im->src->scan_pos = im->src->lbuf_pos;
			return start;
		}
		im->src->scan_pos = im->src->lbuf_len;
		if (im->src->out_eof) {
			if (im->src->lbuf_pos < im->src->lbuf_len) {
				im->src->lbuf[im->src->lbuf_len] = '\0';
				im->src->lbuf_pos = im->src->lbuf_len;
				return start;
			}
			return NULL;
		}
		*rc = text_fill(im, err);
		if (*rc < 0)
			return NULL;
	}
}

/* Parse a number as the kernel prints it: 0x-hex, or decimal (signed). */
static bool parse_num(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	bool neg = false, hex = false;

	if (!len)
		return false;
	if (s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		hex = true;
		i += 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		int d;

		if (hex && isxdigit((unsigned char)s[i]))
			d = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			    tolower((unsigned char)s[i]) - 'a' + 10;
		else if (!hex && isdigit((unsigned char)s[i]))
			d = s[i] - '0';
		else
			return false;
		if (hex ? v >> 60 : v > (UINT64_MAX - d) / 10)
			return false;
		v = hex ? v << 4 | d : v * 10 + d;
	}
	*out = neg ? (uint64_t)-(int64_t)v : v;
	return true;
}

static char *skip_sp(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static char *tok_end(char *p)
{
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return p;
}

/*
 * Timestamp "SECS.FRAC:" (microseconds from ftrace, nanoseconds from
 * trace-cmd -t) to ns.  Returns 1, 0 if @s is not a time, or -1 for a
 * time of 2^64 ns (584 years) or more, which would wrap: vmaptool keeps
 * times in 64-bit nanoseconds (spec/interfaces.md 2).
 */
static int parse_ts(const char *s, size_t len, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, nd = 0;
	bool big = false;

	if (!len || !isdigit((unsigned char)s[0]))
		return 0;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		if (sec > UINT64_MAX / 10 / 1000000000ULL)
			big = true;
		else
			sec = sec * 10 + (s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, nd++)
			if (nd < 9)
				frac = frac * 10 + (s[i] - '0');
	}
	if (i != len)
		return 0;
	for (; nd < 9; nd++)
		frac *= 10;
	if (big || sec > (UINT64_MAX - frac) / 1000000000ULL)
		return -1;
	*ns = sec * 1000000000ULL + frac;
	return 1;
}

/* Fill the fields of @k from "key=value" (or "key: value") tokens. */
static void parse_fields(struct vt_import *im, char *p, struct kev *k)
{
	const struct kev_desc *d = &vt_im_kev_descs[k->kind];
	int i;

	while (*(p = skip_sp(p))) {
		char *e = tok_end(p), *eq, *key = p, *val;
		size_t klen;

		eq = memchr(p, '=', e - p);
		if (eq) {
			klen = eq - p;
			val = eq + 1;
		} else if (e > p && e[-1] == ':' && *e) {
			/* "va_start: 1234" */
			klen = e - p - 1;
			val = skip_sp(e);
			e = tok_end(val);
		} else {
			p = e;
			continue;
		}
		for (i = 0; i < KEV_MAX_FIELDS && d->fields[i]; i++) {
			uint64_t v;

			if (strlen(d->fields[i]) != klen ||
			    memcmp(d->fields[i], key, klen))
				continue;
			if (parse_num(val, e - val, &v)) {
				k->f[i] = v;
				k->have |= 1u << i;
			}
			break;
		}
		p = e;
	}
	(void)im;
}

/*
 * Lines that carry no event: blank, comments, trace-cmd headers and the
 * "CPU:N [LOST n EVENTS]" notes, whose count goes to the summary.
 */
static bool text_skip_line(struct vt_import *im, char *p)
{
	uint64_t v;

	if (!*p || *p == '#')
		return true;
	if (!strncmp(p, "cpus=", 5) || !strncmp(p, "version =", 9))
		return true;
	if (!strncmp(p, "CPU:", 4) && strstr(p, "LOST")) {
		char *l = strstr(p, "LOST");
		char *e = tok_end(skip_sp(l + 4));

		if (parse_num(skip_sp(l + 4), e - skip_sp(l + 4), &v))
			im->sum.lost_events += v;
		return true;
	}
	return !strncmp(p, "##### CPU", 9);
}

/*
 * "comm-pid [cpu]": comm may hold spaces and dashes.  Fills comm, pid and
 * cpu of @k; returns the text after ']', or NULL if the line has no task.
 */
static char *text_task(char *p, struct kev *k)
{
	char *br, *e, *cpu_end, *dash;
	uint64_t v;

	br = strstr(p, " [");
	while (br) {
		cpu_end = strchr(br + 2, ']');
		if (cpu_end && cpu_end - br - 2 > 0 && cpu_end - br - 2 < 8) {
			char *c;

			for (c = br + 2; c < cpu_end && isdigit((unsigned char)*c); c++)
				;
			if (c == cpu_end)
				break;
		}
		br = strstr(br + 1, " [");
	}
	if (!br)
		return NULL;
	cpu_end = strchr(br + 2, ']');
	e = br;
	while (e > p && e[-1] == ' ')
		e--;
	*e = '\0';
	dash = strrchr(p, '-');
	if (!dash || !parse_num(dash + 1, strlen(dash + 1), &v) ||
	    v > INT32_MAX)
		return NULL;
	*dash = '\0';
	k->comm = p;
	k->pid = (int)v;
	if (!parse_num(br + 2, cpu_end - br - 2, &v) || v > 4096)
		return NULL;
	k->cpu = (int)v;
	return cpu_end + 1;
}

/*
 * Optional irq/preempt flags, then "ts:" into k->t.  *@pp and *@ep are
 * left on the time token.  Returns parse_ts()'s 1, 0 or -1.
 */
static int text_time(char **pp, char **ep, struct kev *k)
{
	char *p = skip_sp(*pp), *e = tok_end(p);
	int ts;

	ts = e == p || e[-1] != ':' ? 0 : parse_ts(p, e - p - 1, &k->t);
	if (ts == 0) {
		/* irqs-off, need-resched, hardirq/softirq ('h', 's', 'H') */
		if (e - p >= 3)
			k->irq = p[2] == 'h' || p[2] == 's' || p[2] == 'H';
		p = skip_sp(e);
		e = tok_end(p);
		ts = e == p || e[-1] != ':' ? 0 : parse_ts(p, e - p - 1, &k->t);
	}
	*pp = p;
	*ep = e;
	return ts;
}

/* A function-tracer record at @p: "func <-parent" (or "<-- parent"). */
static void text_function(char *p, struct kev *k)
{
	char *e = tok_end(p);

	k->kind = KEV_FUNCTION;
	if (*e)
		*e++ = '\0';
	k->func = p;
	p = skip_sp(e);
	if (!strncmp(p, "<-", 2)) {
		p += 2;
		while (*p == '-' || *p == ' ')
			p++;
		e = tok_end(p);
		*e = '\0';
		k->parent = p;
	}
}

/*
 * kprobe location: "(sym+0x0/0x140)" or "(ffff8000803a5b28)"; the symbol
 * (not an address) goes to @sym.  A kretprobe's is "(caller+0x160/0x240
 * <- sym)" (print_kretprobe_event(), kernel/trace/trace_kprobe.c): @k
 * is marked a return, its parent is the caller.  Returns the text after it.
 */
static char *text_kprobe_sym(char *p, char *sym, size_t sym_sz, struct kev *k,
			     bool *ret)
{
	char *e, *s, *arrow;
	uint64_t v;

	sym[0] = '\0';
	*ret = false;
	if (*p == '(') {
		e = strchr(p, ')');
		if (e) {
			size_t sl;

			s = p + 1;
			arrow = strstr(s, " <- ");
			if (arrow && arrow < e) {
				*ret = true;
				s = arrow + 4;
				p[1 + strcspn(p + 1, "+ ")] = '\0';
				k->parent = p + 1;
			}
			sl = strcspn(s, "+)");
			if (sl < sym_sz && !parse_num(s, sl, &v) &&
			    !(sl == 16 && strspn(s, "0123456789abcdef") >= 16)) {
				memcpy(sym, s, sl);
				sym[sl] = '\0';
			}
			p = e + 1;
		}
	}
	if (!strncmp(skip_sp(p), "[FAILED TO PARSE]", 17))
		p = skip_sp(p) + 17;
	return p;
}

/*
 * One text line.  Returns 1 for a record, 0 for a line to skip (header,
 * comment, lost-events note), -1 for a line that is not an event, -2 for
 * an event whose time overflows 64-bit nanoseconds (@name holds the time).
 */
static int text_parse(struct vt_import *im, char *line, struct kev *k,
		      char *name, size_t name_sz)
{
	char *p, *e;
	char sym[128];
	size_t n;
	int kind, ts;
	bool ret;

	line[strcspn(line, "\r")] = '\0';
	p = skip_sp(line);
	if (text_skip_line(im, p))
		return 0;
	p = text_task(p, k);
	if (!p)
		return -1;
	ts = text_time(&p, &e, k);
	if (ts < 0) {
		/* the time, for the message */
		n = (size_t)(e - p - 1) < name_sz ? (size_t)(e - p - 1) : name_sz - 1;
		memcpy(name, p, n);
		name[n] = '\0';
		return -2;
	}
	if (ts == 0)
		return -1;
	p = skip_sp(e);
	e = tok_end(p);
	if (e == p)
		return -1;
	if (e[-1] != ':') {
		/* function tracer: "func <-parent" */
		text_function(p, k);
		snprintf(name, name_sz, "function");
		return 1;
	}
	n = e - p - 1;
	if (n >= name_sz)
		n = name_sz - 1;
	memcpy(name, p, n);
	name[n] = '\0';
	p = skip_sp(e);
	if (!strcmp(name, "function")) {
		/* trace-cmd report: "function: func <-- parent" */
		text_function(p, k);
		return 1;
	}
	p = text_kprobe_sym(p, sym, sizeof(sym), k, &ret);
	kind = vt_im_kind_of(name, sym, ret);
	if (kind < 0)
		return 2;	/* an event we do not use */
	k->kind = kind;
	parse_fields(im, p, k);
	return 1;
}

int vt_im_text_run(struct vt_import *im, struct vt_error *err)
{
	char name[64];
	char *line;
	int rc = 0;

	while ((line = text_line(im, &rc, err))) {
		struct kev k;
		int r;

		im->sum.lines++;
		memset(&k, 0, sizeof(k));
		k.line = (unsigned long)im->sum.lines;
		r = text_parse(im, line, &k, name, sizeof(name));
		if (r == -2) {
			snprintf(err->file, sizeof(err->file), "%s", im->name);
			err->line = k.line;
			return vt_error_set(err, VT_ERR_IMPORT,
					    "the time %s s is 2^64 ns (about 584 years) or later: vmaptool keeps times in 64-bit nanoseconds, and it would wrap",
					    name);
		}
		if (r < 0) {
			if (!im->sum.bad_lines)
				im->sum.first_bad_line = k.line;
			im->sum.bad_lines++;
			continue;
		}
		if (r == 0)
			continue;
		if (r == 2) {
			im->sum.records++;
			vt_im_count_unknown(im, name);
			continue;
		}
		if ((k.have & vt_im_kev_descs[k.kind].required) !=
		    vt_im_kev_descs[k.kind].required) {
			im->sum.records++;
			im->sum.bad_fields++;
			continue;
		}
		vt_im_handle(im, &k);
		if (im->oom)
			return vt_err_oom(err);
		if (im->pass) {
			int r2 = vt_im_advance(im);

			if (r2 == -EIO)
				return vt_error_set(err, -EIO, "cannot write the temporary file of the events: %s",
						    strerror(errno));
			if (r2 < 0 || im->oom)
				return vt_err_oom(err);
		}
	}
	return rc < 0 ? rc : 0;
}

