// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat checks before libtracecmd: see dat-check.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/import/dat-check.h"
#include "core/input.h"

struct dat {
	int fd;
	uint64_t size;
	bool big_endian;
	unsigned int page_size;
	uint64_t max;		/* --max-input: what a section may inflate to */
	struct vt_error *err;
};

static int bad(struct dat *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct dat *d, uint64_t off, const char *fmt, ...)
{
	char what[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return vt_error_set(d->err, VT_ERR_IMPORT,
			    "corrupt trace-cmd recording: %s (at byte %llu of a %llu-byte file)",
			    what, (unsigned long long)off,
			    (unsigned long long)d->size);
}

/* Read @n bytes at @off: 0, or a located error (truncated, I/O). */
static int rd(struct dat *d, uint64_t off, void *buf, size_t n, const char *what)
{
	size_t done = 0;

	if (off >= d->size)
		return bad(d, off, "%s lies past the end of the file: truncated", what);
	if (n > d->size - off)
		return bad(d, off, "truncated in %s", what);
	while (done < n) {
		ssize_t r = pread(d->fd, (char *)buf + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? vt_error_set(d->err, -errno, "cannot read the recording: %s",
						    strerror(errno))
				     : bad(d, off, "truncated in %s", what);
		done += r;
	}
	return 0;
}

static uint64_t num(const struct dat *d, const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[d->big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

static int rdnum(struct dat *d, uint64_t *off, unsigned int n, uint64_t *v,
		 const char *what)
{
	unsigned char b[8];
	int ret = rd(d, *off, b, n, what);

	if (ret)
		return ret;
	*v = num(d, b, n);
	*off += n;
	return 0;
}

/* A NUL-terminated string of at most @max bytes at *@off, skipped. */
static int skip_str(struct dat *d, uint64_t *off, size_t max, char *out,
		    size_t outlen, const char *what)
{
	char b[256];
	size_t n = max < sizeof(b) ? max : sizeof(b);
	uint64_t left = *off < d->size ? d->size - *off : 0;
	char *z;
	int ret;

	if (n > left)
		n = left;
	if (!n)
		return bad(d, *off, "truncated in %s", what);
	ret = rd(d, *off, b, n, what);
	if (ret)
		return ret;
	z = memchr(b, '\0', n);
	if (!z)
		return bad(d, *off, "%s is not a string of at most %zu bytes",
			   what, max - 1);
	if (out) {
		size_t l = strnlen(b, outlen - 1);

		memcpy(out, b, l);
		out[l] = '\0';
	}
	*off += z - b + 1;
	return 0;
}

/* @len bytes of data at *@off that must lie in the file, skipped. */
static int skip(struct dat *d, uint64_t *off, uint64_t len, const char *what)
{
	if (*off > d->size || len > d->size - *off)
		return bad(d, *off, "%s of %llu bytes runs past the end of the file",
			   what, (unsigned long long)len);
	*off += len;
	return 0;
}

static int expect(struct dat *d, uint64_t *off, const char *tag)
{
	char b[16];
	size_t n = strlen(tag) + 1;
	int ret = rd(d, *off, b, n, tag);

	if (ret)
		return ret;
	if (memcmp(b, tag, n))
		return bad(d, *off, "'%s' expected", tag);
	*off += n;
	return 0;
}

/* ---- version 6 ------------------------------------------------------ */

static int check_v6(struct dat *d, uint64_t off)
{
	uint64_t n, m, len, cpus;
	char tag[10];
	int ret;

	if ((ret = expect(d, &off, "header_page")) ||
	    (ret = rdnum(d, &off, 8, &len, "header_page")) ||
	    (ret = skip(d, &off, len, "header_page")) ||
	    (ret = expect(d, &off, "header_event")) ||
	    (ret = rdnum(d, &off, 8, &len, "header_event")) ||
	    (ret = skip(d, &off, len, "header_event")))
		return ret;
	/* ftrace event formats */
	if ((ret = rdnum(d, &off, 4, &n, "the ftrace format count")))
		return ret;
	for (uint64_t i = 0; i < n; i++)
		if ((ret = rdnum(d, &off, 8, &len, "an ftrace format")) ||
		    (ret = skip(d, &off, len, "an ftrace format")))
			return ret;
	/* event systems and their formats */
	if ((ret = rdnum(d, &off, 4, &n, "the event system count")))
		return ret;
	for (uint64_t i = 0; i < n; i++) {
		if ((ret = skip_str(d, &off, 256, NULL, 0, "an event system name")) ||
		    (ret = rdnum(d, &off, 4, &m, "an event format count")))
			return ret;
		for (uint64_t j = 0; j < m; j++)
			if ((ret = rdnum(d, &off, 8, &len, "an event format")) ||
			    (ret = skip(d, &off, len, "an event format")))
				return ret;
	}
	if ((ret = rdnum(d, &off, 4, &len, "kallsyms")) ||
	    (ret = skip(d, &off, len, "kallsyms")) ||
	    (ret = rdnum(d, &off, 4, &len, "the printk formats")) ||
	    (ret = skip(d, &off, len, "the printk formats")) ||
	    /* the saved cmdlines: a 64-bit size (v6.5.txt, "PROCESS INFORMATION") */
	    (ret = rdnum(d, &off, 8, &len, "the saved cmdlines")) ||
	    (ret = skip(d, &off, len, "the saved cmdlines")) ||
	    (ret = rdnum(d, &off, 4, &cpus, "the CPU count")))
		return ret;
	if (!cpus || cpus > 4096)
		return bad(d, off - 4, "%llu CPUs", (unsigned long long)cpus);
	/* options, then latency or flyrecord */
	if ((ret = rd(d, off, tag, 10, "the data section tag")))
		return ret;
	if (!memcmp(tag, "options  ", 10)) {
		uint64_t id;

		off += 10;
		for (unsigned int k = 0;; k++) {
			if (k > 4096)
				return bad(d, off, "more than 4096 options");
			if ((ret = rdnum(d, &off, 2, &id, "an option")))
				return ret;
			if (!id)
				break;
			if ((ret = rdnum(d, &off, 4, &len, "an option")) ||
			    (ret = skip(d, &off, len, "an option")))
				return ret;
		}
		if ((ret = rd(d, off, tag, 10, "the data section tag")))
			return ret;
	}
	if (!memcmp(tag, "latency  ", 10))
		return 0;
	if (memcmp(tag, "flyrecord", 10))
		return bad(d, off, "neither 'options', 'latency' nor 'flyrecord' data");
	off += 10;
	/* per CPU: offset and size of its ring-buffer pages */
	for (uint64_t c = 0; c < cpus; c++) {
		uint64_t o, s;

		if ((ret = rdnum(d, &off, 8, &o, "the per-CPU data offsets")) ||
		    (ret = rdnum(d, &off, 8, &s, "the per-CPU data sizes")))
			return ret;
		if (o > d->size || s > d->size - o)
			return bad(d, off - 16, "CPU %llu's data (%llu bytes at %llu) runs past the end of the file",
				   (unsigned long long)c, (unsigned long long)s,
				   (unsigned long long)o);
		/* trace-cmd writes whole pages from a page-aligned offset */
		if (s && ((o | s) & (d->page_size - 1)))
			return bad(d, off - 16, "CPU %llu's data (%llu bytes at %llu) is not in whole %u-byte pages: wrong page size?",
				   (unsigned long long)c, (unsigned long long)s,
				   (unsigned long long)o, d->page_size);
	}
	return 0;
}

/* ---- version 7 ------------------------------------------------------ */

/* trace-cmd's enum tracecmd_file_options (the ones that name sections) */
enum {
	DAT_OPT_DONE = 0, DAT_OPT_BUFFER = 3, DAT_OPT_HEADER_INFO = 16,
	DAT_OPT_FTRACE_EVENTS, DAT_OPT_EVENT_FORMATS, DAT_OPT_KALLSYMS,
	DAT_OPT_PRINTK, DAT_OPT_CMDLINES, DAT_OPT_BUFFER_TEXT = 22,
};

static const char *section_name(uint64_t id)
{
	switch (id) {
	case DAT_OPT_DONE: return "options";
	case DAT_OPT_BUFFER: return "flyrecord buffer";
	case DAT_OPT_HEADER_INFO: return "header info";
	case DAT_OPT_FTRACE_EVENTS: return "ftrace events";
	case DAT_OPT_EVENT_FORMATS: return "event formats";
	case DAT_OPT_KALLSYMS: return "kallsyms";
	case DAT_OPT_PRINTK: return "printk formats";
	case DAT_OPT_CMDLINES: return "cmdlines";
	case DAT_OPT_BUFFER_TEXT: return "text buffer";
	}
	return "unknown";
}

/*
 * The 16-byte section header at @off: id, flags, string id, size.  A
 * compressed section (flag 1) starts with its compressed and uncompressed
 * sizes; libtracecmd allocates the uncompressed size whole and inflates
 * into it (trace-compress.c, tracecmd_uncompress_block()), so the size it
 * declares is checked against --max-input here, before libtracecmd reads
 * anything: a few bytes declaring 4 GiB are refused, not inflated.
 */
static int section(struct dat *d, uint64_t off, uint64_t want_id,
		   uint64_t *flags, uint64_t *len)
{
	uint64_t id, sid, o = off;
	int ret;

	if ((ret = rdnum(d, &o, 2, &id, "a section header")) ||
	    (ret = rdnum(d, &o, 2, flags, "a section header")) ||
	    (ret = rdnum(d, &o, 4, &sid, "a section header")) ||
	    (ret = rdnum(d, &o, 8, len, "a section header")))
		return ret;
	if (id != want_id)
		return bad(d, off, "section %llu where section %llu was expected",
			   (unsigned long long)id, (unsigned long long)want_id);
	if (*flags & ~1ull)
		return bad(d, off, "section flags 0x%llx", (unsigned long long)*flags);
	if (o > d->size || *len > d->size - o)
		return bad(d, off, "section of %llu bytes runs past the end of the file",
			   (unsigned long long)*len);
	if (*flags & 1) {
		uint64_t csize, usize;

		/* compressed: compressed and uncompressed sizes, then data */
		if (*len < 8 ||
		    (ret = rdnum(d, &o, 4, &csize, "a compressed section")) ||
		    (ret = rdnum(d, &o, 4, &usize, "a compressed section")))
			return ret ? ret : bad(d, off, "compressed section of %llu bytes",
					       (unsigned long long)*len);
		if (csize > *len - 8)
			return bad(d, off, "%llu compressed bytes in a section of %llu",
				   (unsigned long long)csize, (unsigned long long)*len);
		if (usize > d->max)
			return vt_error_set(d->err, VT_ERR_INPUT_LIMIT,
					    "the compressed %s section (at byte %llu) declares %llu bytes uncompressed, more than the --max-input limit of %llu bytes",
					    section_name(want_id), (unsigned long long)off,
					    (unsigned long long)usize, (unsigned long long)d->max);
	}
	return 0;
}

static int check_v7(struct dat *d, uint64_t off)
{
	char comp[64], ver[64];
	uint64_t next, flags, len;
	int ret;

	if ((ret = skip_str(d, &off, sizeof(comp), comp, sizeof(comp),
			    "the compression algorithm")) ||
	    (ret = skip_str(d, &off, sizeof(ver), ver, sizeof(ver),
			    "the compression version")) ||
	    (ret = rdnum(d, &off, 8, &next, "the offset of the options")))
		return ret;
	if (next < off)
		return bad(d, off - 8, "options at byte %llu, inside the file header",
			   (unsigned long long)next);
	for (unsigned int k = 0; next; k++) {
		uint64_t o, id, olen, end;

		if (k >= 64)
			return bad(d, next, "more than 64 option sections");
		if ((ret = section(d, next, 0, &flags, &len)))
			return ret;
		/* a compressed options section is left to libtracecmd */
		if (flags & 1)
			return 0;
		o = next + 16;
		end = o + len;
		next = 0;
		while (o < end) {
			if ((ret = rdnum(d, &o, 2, &id, "an option")) ||
			    (ret = rdnum(d, &o, 4, &olen, "an option")))
				return ret;
			if (olen > end - o)
				return bad(d, o - 6, "option %llu of %llu bytes runs past its section",
					   (unsigned long long)id, (unsigned long long)olen);
			if (id == DAT_OPT_DONE) {
				if (olen != 8)
					return bad(d, o - 6, "last option of %llu bytes",
						   (unsigned long long)olen);
				if ((ret = rdnum(d, &o, 8, &next, "the next options offset")))
					return ret;
				if (next && next <= o - 8 - 6 - len)
					return bad(d, o - 8, "options sections do not go forward");
				break;
			}
			if ((id >= DAT_OPT_HEADER_INFO && id <= DAT_OPT_CMDLINES) ||
			    id == DAT_OPT_BUFFER || id == DAT_OPT_BUFFER_TEXT) {
				uint64_t at, f, l;
				uint64_t want = id >= DAT_OPT_HEADER_INFO ? id : DAT_OPT_BUFFER;

				if (olen < 8)
					return bad(d, o - 6, "option %llu of %llu bytes",
						   (unsigned long long)id, (unsigned long long)olen);
				if ((ret = rdnum(d, &o, 8, &at, "a section offset")))
					return ret;
				o -= 8;
				if (id == DAT_OPT_BUFFER_TEXT)
					want = DAT_OPT_BUFFER_TEXT;
				if ((ret = section(d, at, want, &f, &l)))
					return ret;
			}
			o += olen;
		}
	}
	return 0;
}

int vt_dat_check(int fd, uint64_t size, uint64_t max, const char *name,
		 struct vt_error *err)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
						 'c', 'i', 'n', 'g' };
	struct dat d = { .fd = fd, .size = size, .err = err,
			 .max = max ? max : VT_MAX_INPUT_DEFAULT };
	unsigned char m[10], b[2];
	char ver[8];
	uint64_t off = 0, ps;
	int ret;

	/* the errors' location: their messages do not repeat the name */
	if (err && !err->file[0])
		snprintf(err->file, sizeof(err->file), "%s", name);

	if ((ret = rd(&d, 0, m, sizeof(m), "the magic")))
		return ret;
	if (memcmp(m, magic, sizeof(m)))
		return bad(&d, 0, "no trace-cmd magic");
	off = 10;
	if ((ret = skip_str(&d, &off, sizeof(ver), ver, sizeof(ver), "the version")))
		return ret;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return vt_error_set(err, VT_ERR_IMPORT,
				    "trace-cmd file version '%.7s' is not supported (6 and 7 are)",
				    ver);
	if ((ret = rd(&d, off, b, 2, "the endianness and long size")))
		return ret;
	if (b[0] > 1)
		return bad(&d, off, "endianness byte %u", b[0]);
	if (b[1] != 4 && b[1] != 8)
		return bad(&d, off + 1, "long size %u (4 or 8 expected)", b[1]);
	d.big_endian = b[0];
	off += 2;
	if ((ret = rdnum(&d, &off, 4, &ps, "the page size")))
		return ret;
	/* the kernel's PAGE_SIZE: arm64 has 4K, 16K and 64K */
	if (ps != 4096 && ps != 16384 && ps != 65536)
		return bad(&d, off - 4, "page size %llu (4096, 16384 or 65536 expected)",
			   (unsigned long long)ps);
	d.page_size = ps;
	return ver[0] == '6' ? check_v6(&d, off) : check_v7(&d, off);
}
