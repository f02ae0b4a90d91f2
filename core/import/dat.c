// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat front end of vmaptool import: libtracecmd iterates the
 * records, libtraceevent reads their fields by name, into normalised
 * records (struct kev).
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

#include "core/import/source.h"
#include "core/import/kallsyms.h"

/* libtracecmd exports it; trace-cmd.h of 1.3 does not declare it */
int tracecmd_page_size(struct tracecmd_input *handle);


/* ---- trace.dat front end ------------------------------------------- */

struct dat_ctx {
	struct vt_import *im;
	struct tep_handle *tep;
	/* per event id: kind (or -1), cached fields */
	int cache_id[64];
	int cache_kind[64];
	struct tep_format_field *cache_fields[64][KEV_MAX_FIELDS];
	struct tep_format_field *cache_probe_ip[64];
	/* a kretprobe's format has __probe_func and __probe_ret_ip, where a
	 * kprobe's has __probe_ip */
	struct tep_format_field *cache_ret_ip[64];
	bool cache_ret[64];
	int ncache;
};

static bool dat_read_field(struct tep_record *r, struct tep_format_field *f,
			   uint64_t *out)
{
	unsigned long long v;

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    (f->flags & TEP_FIELD_IS_ARRAY) ||
	    (long long)f->offset + f->size > r->size)
		return false;
	if (tep_read_number_field(f, r->data, &v))
		return false;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		switch (f->size) {
		case 1: v = (uint64_t)(int64_t)(int8_t)v; break;
		case 2: v = (uint64_t)(int64_t)(int16_t)v; break;
		case 4: v = (uint64_t)(int64_t)(int32_t)v; break;
		default: break;
		}
	}
	*out = v;
	return true;
}

static int dat_lookup(struct dat_ctx *c, struct tep_event *ev)
{
	int i, j, kind;
	const char *sym = NULL;
	struct tep_format_field *pip;

	for (i = 0; i < c->ncache; i++)
		if (c->cache_id[i] == ev->id)
			return i;
	if (c->ncache == 64)
		c->ncache = 0;	/* tiny cache: recycle */
	i = c->ncache++;
	c->cache_id[i] = ev->id;
	pip = tep_find_field(ev, "__probe_ip");
	c->cache_ret_ip[i] = NULL;
	c->cache_ret[i] = false;
	if (!pip && (pip = tep_find_field(ev, "__probe_func"))) {
		c->cache_ret[i] = true;
		c->cache_ret_ip[i] = tep_find_field(ev, "__probe_ret_ip");
	}
	c->cache_probe_ip[i] = pip;
	kind = -1;
	if (!strcmp(ev->name, "function") && ev->system &&
	    !strcmp(ev->system, "ftrace"))
		kind = KEV_FUNCTION;
	else if (!pip)
		kind = vt_im_kind_of(ev->name, NULL, false);
	if (kind >= 0 && !pip && vt_im_kev_descs[kind].kprobe)
		kind = -1;
	(void)sym;
	c->cache_kind[i] = kind;
	for (j = 0; j < KEV_MAX_FIELDS; j++) {
		const char *fn;

		c->cache_fields[i][j] = NULL;
		if (kind < 0 || kind == KEV_FUNCTION)
			continue;
		fn = vt_im_kev_descs[kind].dat_fields[j] ? vt_im_kev_descs[kind].dat_fields[j] :
		     vt_im_kev_descs[kind].fields[j];
		if (fn)
			c->cache_fields[i][j] = tep_find_field(ev, fn);
	}
	return i;
}

static int dat_cb(struct tracecmd_input *h, struct tep_record *r, int cpu,
		  void *data)
{
	struct dat_ctx *c = data;
	struct vt_import *im = c->im;
	struct tep_event *ev;
	struct kev k;
	int ci, kind, j;
	uint64_t v;
	char fbuf[24], pbuf[24];

	(void)h;
	if (r->missed_events > 0)
		im->sum.lost_events += (uint64_t)r->missed_events;
	ev = tep_find_event_by_record(c->tep, r);
	if (!ev) {
		im->sum.records++;
		vt_im_count_unknown(im, "(no format)");
		return 0;
	}
	ci = dat_lookup(c, ev);
	kind = c->cache_kind[ci];
	memset(&k, 0, sizeof(k));
	k.cpu = cpu;
	k.t = r->ts;
	k.pid = tep_data_pid(c->tep, r);
	k.comm = tep_data_comm_from_pid(c->tep, k.pid);
	{
		int fl = tep_data_flags(c->tep, r);

		k.irq = fl > 0 && (fl & (TRACE_FLAG_HARDIRQ |
					 TRACE_FLAG_SOFTIRQ));
	}
	if (kind < 0 && c->cache_probe_ip[ci] &&
	    dat_read_field(r, c->cache_probe_ip[ci], &v)) {
		/* a kprobe under another name: classify by its symbol */
		const char *sym = tep_find_function(c->tep, v);

		if (sym)
			kind = vt_im_kind_of(ev->name, sym, c->cache_ret[ci]);
		if (kind >= 0) {
			c->cache_kind[ci] = kind;
			for (j = 0; j < KEV_MAX_FIELDS; j++)
				c->cache_fields[ci][j] = vt_im_kev_descs[kind].fields[j] ?
					tep_find_field(ev, vt_im_kev_descs[kind].fields[j]) :
					NULL;
		}
	}
	if (kind < 0) {
		im->sum.records++;
		vt_im_count_unknown(im, ev->name);
		return 0;
	}
	k.kind = kind;
	if (kind == KEV_FUNCTION) {
		struct tep_format_field *fip = tep_find_field(ev, "ip");
		struct tep_format_field *fpip = tep_find_field(ev, "parent_ip");

		/* an address the recording's kallsyms does not name stays
		 * an address, for import --vmlinux (reconstruct.c) */
		if (dat_read_field(r, fip, &v) &&
		    !(k.func = tep_find_function(c->tep, v)) && im->opts.symbolize) {
			snprintf(fbuf, sizeof(fbuf), "0x%" PRIx64, v);
			k.func = fbuf;
		}
		if (dat_read_field(r, fpip, &v) &&
		    !(k.parent = tep_find_function(c->tep, v)) && im->opts.symbolize) {
			snprintf(pbuf, sizeof(pbuf), "0x%" PRIx64, v);
			k.parent = pbuf;
		}
	} else {
		/* a kretprobe: the function it returned to */
		if (c->cache_ret_ip[ci] && dat_read_field(r, c->cache_ret_ip[ci], &v) &&
		    !(k.parent = tep_find_function(c->tep, v)) && im->opts.symbolize) {
			snprintf(pbuf, sizeof(pbuf), "0x%" PRIx64, v);
			k.parent = pbuf;
		}
		for (j = 0; j < KEV_MAX_FIELDS; j++)
			if (dat_read_field(r, c->cache_fields[ci][j], &k.f[j]))
				k.have |= 1u << j;
		if ((k.have & vt_im_kev_descs[kind].required) !=
		    vt_im_kev_descs[kind].required) {
			im->sum.records++;
			im->sum.bad_fields++;
			return 0;
		}
	}
	vt_im_handle(im, &k);
	return im->oom ? -1 : 0;
}

struct dat_ctx *vt_im_dat_ctx_new(struct vt_import *im, struct tep_handle *tep)
{
	struct dat_ctx *c = calloc(1, sizeof(*c));

	if (c) {
		c->im = im;
		c->tep = tep;
	}
	return c;
}

void vt_im_dat_ctx_free(struct dat_ctx *c)
{
	free(c);
}

int vt_import_feed_record(struct vt_import *im, struct tep_record *r, int cpu)
{
	if (!im->src->fed || im->ran)
		return -EINVAL;
	if (im->oom)
		return -ENOMEM;
	return dat_cb(NULL, r, cpu, im->src->fed) ? -ENOMEM : 0;
}

int vt_im_dat_run(struct vt_import *im, struct vt_error *err)
{
	struct dat_ctx *c;
	int rc;

	c = vt_im_dat_ctx_new(im, tracecmd_get_tep(im->src->dat));
	if (!c)
		return vt_err_oom(err);
	if (!c->tep) {
		free(c);
		return vt_error_set(err, VT_ERR_IMPORT,
				    "no event formats in the recording");
	}
	/*
	 * The page size of the file header against the ring-buffer page the
	 * recording's own header_page format describes (data offset + data
	 * size): a wrong page size misreads every page and silently loses
	 * events (dat-check.c cannot see it inside compressed sections).
	 */
	{
		int ps = tracecmd_page_size(im->src->dat);
		int sub = tep_get_sub_buffer_size(c->tep);

		if (sub > 0 && ps != sub) {
			free(c);
			return vt_error_set(err, VT_ERR_IMPORT,
					    "corrupt trace-cmd recording: page size %d in the file header, but its header_page format describes %d-byte pages",
					    ps, sub);
		}
	}
	rc = tracecmd_iterate_events(im->src->dat, NULL, 0, dat_cb, c);
	free(c);
	/* no memory for the kallsyms map: names would be missing */
	if (im->oom || vt_ksyms_failed(im->src->ksyms))
		return vt_err_oom(err);
	if (rc < 0)
		return vt_error_set(err, VT_ERR_IMPORT,
				    "cannot read the trace data");
	return 0;
}

