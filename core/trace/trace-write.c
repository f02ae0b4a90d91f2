// SPDX-License-Identifier: GPL-2.0
/*
 * The trace writer (spec/interfaces.md section 2): one JSON document or
 * JSON Lines, to a stream it is handed or atomically to a named file.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/input.h"
#include "core/trace/trace-reader.h"

/* ---- writer --------------------------------------------------------- */

struct vt_trace_writer {
	FILE *f;
	bool own;		/* @f is our temporary file */
	bool jsonl;
	bool first;
	char *path;
	char *tmp;
	unsigned int page_shift;
};

/* Length of the valid UTF-8 sequence at @s (RFC 3629), 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) ||	/* overlong */
	    (s[0] == 0xed && s[1] >= 0xa0) ||	/* surrogates */
	    (s[0] == 0xf0 && s[1] < 0x90) ||	/* overlong */
	    (s[0] == 0xf4 && s[1] >= 0x90))	/* beyond U+10FFFF */
		return 0;
	return n;
}

/*
 * A JSON string.  Bytes that are not valid UTF-8 (an imported recording
 * can carry any) become U+FFFD, so the output is always valid JSON.
 */
static void put_str(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	putc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;
		int n = utf8_len((const unsigned char *)s);

		if (!n) {
			fputs("\\ufffd", f);
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n - 1;
			continue;
		}

		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fputs("\\u00", f);
			putc(hex[c >> 4], f);
			putc(hex[c & 15], f);
		} else {
			putc(c, f);
		}
	}
	putc('"', f);
}

static void put_hex(FILE *f, uint64_t x)
{
	fprintf(f, "\"0x%llx\"", (unsigned long long)x);
}

/* Sizes are integers; a value beyond JSON's signed 64 bits is "0x...". */
static void put_size(FILE *f, uint64_t x)
{
	if (x > INT64_MAX)
		put_hex(f, x);
	else
		fprintf(f, "%llu", (unsigned long long)x);
}

static int writer_io_error(struct vt_trace_writer *w, struct vt_error *err)
{
	int e = errno ? errno : EIO;

	vt_trace_set_loc(err, w->path ? w->path : "<stdout>", 0, 0, -1);
	return vt_error_set(err, -e, "cannot write trace '%s': %s",
			    w->path ? w->path : "<stdout>", strerror(e));
}

static int writer_header(struct vt_trace_writer *w,
			 const struct vt_trace_config *cfg,
			 const char *meta_json, struct vt_error *err)
{
	const char *granule = NULL;
	char *meta = NULL;

	if (meta_json) {
		struct vt_json_budget b;
		json_error_t je;
		json_t *m;

		/* a tree the reader already held: the budget only makes an
		 * out of memory stay out for the load (core/input.h) */
		vt_json_budget_begin(&b, UINT64_MAX);
		m = json_loads(meta_json, JSON_REJECT_DUPLICATES, &je);
		vt_json_budget_end(&b);
		m = vt_json_whole(m);

		if (!m && vt_json_error_oom(&je))
			return vt_err_oom(err);
		if (!m || !json_is_object(m)) {
			json_decref(m);
			return vt_error_set(err, -EINVAL,
					    "trace meta is not a JSON object");
		}
		meta = json_dumps(m, JSON_COMPACT);
		json_decref(m);
		if (!meta)
			return vt_err_oom(err);
	}
	if (cfg && cfg->page_shift) {
		granule = vt_trace_granule_name(cfg->page_shift);
		if (!granule) {
			free(meta);
			return vt_error_set(err, -EINVAL,
					    "page shift %u is not 12, 14 or 16",
					    cfg->page_shift);
		}
		w->page_shift = cfg->page_shift;
	}
	fprintf(w->f, "{\"format\":\"%s\",\"version\":%d,\"meta\":",
		VT_TRACE_FORMAT, VT_TRACE_VERSION);
	fputs(meta ? meta : "{}", w->f);
	free(meta);
	if (cfg && (cfg->page_shift || cfg->va_bits)) {
		const char *sep = "";

		fputs(",\"config\":{", w->f);
		if (granule) {
			fprintf(w->f, "\"granule\":\"%s\"", granule);
			sep = ",";
		}
		if (cfg->va_bits)
			fprintf(w->f, "%s\"va_bits\":%u", sep, cfg->va_bits);
		putc('}', w->f);
	}
	fputs(w->jsonl ? "}\n" : ",\"events\":[", w->f);
	if (ferror(w->f))
		return writer_io_error(w, err);
	return 0;
}

static struct vt_trace_writer *writer_alloc(FILE *f, bool jsonl)
{
	struct vt_trace_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = f;
	w->jsonl = jsonl;
	w->first = true;
	return w;
}

int vt_trace_writer_open_file(FILE *f, bool jsonl,
			      const struct vt_trace_config *cfg,
			      const char *meta_json,
			      struct vt_trace_writer **out, struct vt_error *err)
{
	struct vt_trace_writer *w = writer_alloc(f, jsonl);
	int ret;

	*out = NULL;
	if (!w)
		return vt_err_oom(err);
	ret = writer_header(w, cfg, meta_json, err);
	if (ret) {
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

int vt_trace_writer_open(const char *path, bool jsonl,
			 const struct vt_trace_config *cfg,
			 const char *meta_json, struct vt_trace_writer **out,
			 struct vt_error *err)
{
	struct vt_trace_writer *w = writer_alloc(NULL, jsonl);
	int fd, ret;

	*out = NULL;
	if (!w)
		return vt_err_oom(err);
	w->path = strdup(path);
	if (!w->path || asprintf(&w->tmp, "%s.tmpXXXXXX", path) < 0) {
		w->tmp = NULL;
		ret = vt_err_oom(err);
		goto fail;
	}
	fd = mkstemp(w->tmp);
	if (fd < 0) {
		ret = -errno;
		vt_trace_set_loc(err, path, 0, 0, -1);
		vt_error_set(err, ret, "cannot create '%s': %s", path,
			     strerror(-ret));
		free(w->tmp);
		w->tmp = NULL;
		goto fail;
	}
	/* mkstemp() makes 0600; give the file the mode open(2) would. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	w->f = fdopen(fd, "w");
	if (!w->f) {
		ret = -errno;
		close(fd);
		unlink(w->tmp);
		vt_error_set(err, ret, "cannot create '%s': %s", path,
			     strerror(-ret));
		goto fail;
	}
	w->own = true;
	ret = writer_header(w, cfg, meta_json, err);
	if (ret) {
		vt_trace_writer_abort(w);
		return ret;
	}
	*out = w;
	return 0;
fail:
	free(w->tmp);
	free(w->path);
	free(w);
	return ret;
}

int vt_trace_writer_event(struct vt_trace_writer *w, const struct vt_event *ev,
			  struct vt_error *err)
{
	FILE *f = w->f;
	bool any_flag = false;

	if (ev->op >= VT_OP__NR)
		return vt_error_set(err, -EINVAL, "invalid op %d", ev->op);
	if (!w->jsonl)
		fputs(w->first ? "\n" : ",\n", f);
	w->first = false;
	fprintf(f, "{\"op\":\"%s\"", vt_op_names[ev->op]);
	if (ev->id.present) {
		fputs(",\"id\":", f);
		if (ev->id.is_str)
			put_str(f, ev->id.str ? ev->id.str : "");
		else if (ev->id.num > INT64_MAX)
			return vt_error_set(err, -EINVAL,
					    "id %llu does not fit a JSON integer",
					    (unsigned long long)ev->id.num);
		else
			fprintf(f, "%llu", (unsigned long long)ev->id.num);
	}
	if (ev->size || (vt_ops[ev->op].rules & VT_OPR_SIZE)) {
		fputs(",\"size\":", f);
		put_size(f, ev->size);
	}
	if ((vt_ops[ev->op].rules & VT_OPR_PHYS) || ev->phys) {
		fputs(",\"phys\":", f);
		put_hex(f, ev->phys);
	}
	if (ev->align) {
		fputs(",\"align\":", f);
		put_size(f, ev->align);
	}
	if (ev->range == VT_RANGE_MODULES)
		fputs(",\"range\":\"modules\"", f);
	if (ev->has_pages || ev->nr_runs) {
		fputs(",\"pages\":[", f);
		for (uint32_t i = 0; i < ev->nr_runs; i++) {
			const struct vt_page_run *pr = &ev->runs[i];

			fprintf(f, "%s{\"pfn\":\"0x%llx\",\"order\":%u",
				i ? "," : "", (unsigned long long)pr->pfn,
				pr->order);
			if (pr->count != 1)
				fprintf(f, ",\"count\":%llu",
					(unsigned long long)pr->count);
			putc('}', f);
		}
		putc(']', f);
	}
	for (int b = 0; b < VT_FB__NR; b++) {
		if (!(ev->flags & (1u << b)))
			continue;
		fprintf(f, "%s\"%s\"", any_flag ? "," : ",\"flags\":[",
			vt_flag_names[b]);
		any_flag = true;
	}
	if (any_flag)
		putc(']', f);
	if (ev->prot != vt_ops[ev->op].prot) {
		if (ev->prot >= VT_PROT__NR)
			return vt_error_set(err, -EINVAL, "invalid prot %u",
					    ev->prot);
		fprintf(f, ",\"prot\":\"%s\"", vt_prot_names[ev->prot]);
	}
	if (ev->has_va) {
		fputs(",\"va\":", f);
		put_hex(f, ev->va);
	}
	if (ev->has_t) {
		/* as sizes: a time of 2^63 ns or more is "0x..." */
		fputs(",\"t\":", f);
		put_size(f, ev->t);
	}
	if (ev->cpu >= 0)
		fprintf(f, ",\"cpu\":%d", ev->cpu);
	if (ev->caller) {
		fputs(",\"caller\":", f);
		put_str(f, ev->caller);
	}
	fputs(w->jsonl ? "}\n" : "}", f);
	if (ferror(f))
		return writer_io_error(w, err);
	return 0;
}

int vt_trace_writer_commit(struct vt_trace_writer *w, struct vt_error *err)
{
	int ret = 0;

	if (!w->jsonl)
		fputs(w->first ? "]}\n" : "\n]}\n", w->f);
	if (fflush(w->f) || ferror(w->f))
		ret = writer_io_error(w, err);
	if (w->own) {
		if (fclose(w->f) && !ret)
			ret = writer_io_error(w, err);
		w->f = NULL;
		if (!ret && rename(w->tmp, w->path))
			ret = writer_io_error(w, err);
		if (ret)
			unlink(w->tmp);
	}
	free(w->tmp);
	free(w->path);
	free(w);
	return ret;
}

void vt_trace_writer_abort(struct vt_trace_writer *w)
{
	if (!w)
		return;
	if (w->own) {
		if (w->f)
			fclose(w->f);
		unlink(w->tmp);
	}
	free(w->tmp);
	free(w->path);
	free(w);
}
