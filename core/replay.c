// SPDX-License-Identifier: GPL-2.0
/*
 * The replay driver: reads a trace as a stream and applies every event to
 * one engine per strategy, so a JSON Lines trace replays in one pass and
 * constant memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost/estimate.h"
#include "core/engine.h"

static uint64_t tlb_peak_entries(const struct vt_engine *e)
{
	uint64_t n = e->mm.g.cont_ptes;

	return ((uint64_t)e->mm.tlb_units_peak + n - 1) / n;
}

/* Fold the engine's per-event counters into the results; report them. */
static void account(struct vt_engine *e, struct vt_strategy_result *r,
		    const struct vt_replay_cb *cb, unsigned int si, long index,
		    const struct vt_event *ev, uint64_t va, uint64_t peak_before,
		    const struct vt_profile *profile)
{
	uint64_t peak = tlb_peak_entries(e);

	e->ev.m[VT_M_tlb_entries] += peak - peak_before;
	if (ev) {
		/* The estimate per event, so per-event lines add up to the totals. */
		vt_cost_fill(profile, &e->ev, ev->op);
		r->op_events[ev->op]++;
		vt_stats_add(&r->total, &e->ev);
		vt_stats_add(&r->per_op[ev->op], &e->ev);
		r->op_seen[ev->op] = true;
		if (cb && cb->event) {
			struct vt_shape s;

			vt_engine_shape(e, ev, &s);
			cb->event(cb->ctx, index, si, vt_op_names[ev->op], ev, va,
				  &e->ev, &s);
		}
	}
	if (e->purged_in_event) {
		vt_cost_fill(profile, &e->pg, VT_OP_PURGE);
		r->op_events[VT_OP_PURGE]++;
		vt_stats_add(&r->total, &e->pg);
		vt_stats_add(&r->per_op[VT_OP_PURGE], &e->pg);
		r->op_seen[VT_OP_PURGE] = true;
		if (cb && cb->event) {
			struct vt_shape s = { 0 };

			cb->event(cb->ctx, index, si, "purge", NULL, 0, &e->pg, &s);
		}
	}
	vt_stats_clear(&e->ev);
	vt_stats_clear(&e->pg);
	e->purged_in_event = false;
}

int vt_replay_run(const struct vt_replay_req *req, const struct vt_replay_cb *cb,
		  struct vt_replay_result *res, struct vt_error *err)
{
	struct vt_trace_read_opts ro = { .skip_unknown = req->opts->skip_unknown,
					 .max_input = req->opts->max_input };
	struct vt_trace_reader *rd = NULL;
	struct vt_engine **eng = NULL;
	struct vt_model_opts o = *req->opts;
	const struct vt_trace_config *tc;
	struct vt_event ev;
	long index = 0;
	bool stopped = false;	/* at req->stop_after */
	int ret;

	memset(res, 0, sizeof(*res));
	ret = vt_trace_open(req->path, &ro, &rd, err);
	if (ret)
		return ret;
	tc = vt_trace_config(rd);
	if (!req->geometry_from_cli) {
		if (tc->page_shift)
			o.page_shift = tc->page_shift;
		if (tc->va_bits)
			o.va_bits = tc->va_bits;
	}
	res->config.page_shift = o.page_shift;
	res->config.va_bits = o.va_bits;
	res->nr = req->nr_specs;
	res->s = calloc(req->nr_specs, sizeof(*res->s));
	eng = calloc(req->nr_specs, sizeof(*eng));
	if (!res->s || !eng) {
		ret = vt_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		ret = vt_engine_new(&req->specs[i], &o, &eng[i]);
		if (ret) {
			vt_error_set(err, ret, "%u K pages with %u-bit VA is not a Kconfig-valid pair",
				     1u << (o.page_shift - 10), o.va_bits);
			goto out;
		}
		eng[i]->cb = cb;
		eng[i]->strat_idx = i;
	}
	while ((ret = vt_trace_next(rd, &ev, err)) > 0) {
		for (unsigned int i = 0; i < req->nr_specs; i++) {
			struct vt_engine *e = eng[i];
			uint64_t va, peak = tlb_peak_entries(e);

			ret = vt_engine_apply(e, index, &ev, &va, err);
			if (ret) {
				if (!err->line && ev.line) {
					err->line = ev.line;
					err->column = ev.column;
				}
				err->event = index;
				if (!err->file[0])
					snprintf(err->file, sizeof(err->file), "%s",
						 req->path);
				goto out;
			}
			account(e, &res->s[i], cb, i, index, &ev, va, peak, req->profile);
		}
		if (req->stop_after >= 0 && index >= req->stop_after) {
			stopped = true;
			break;
		}
		index++;
		if (cb && cb->progress && !(index % VT_PROGRESS_EVENTS))
			cb->progress(cb->ctx, index, false);
	}
	if (cb && cb->progress)
		cb->progress(cb->ctx, index, true);
	if (ret < 0)
		goto out;
	/* events read: a --at beyond the trace reads them all (ptdump) */
	res->events = stopped ? index + 1 : index;
	for (unsigned int i = 0; i < req->nr_specs; i++) {
		struct vt_engine *e = eng[i];
		uint64_t peak = tlb_peak_entries(e);

		if (req->stop_after < 0) {
			ret = vt_engine_finish(e, err);
			if (ret)
				goto out;
			account(e, &res->s[i], cb, i, index, NULL, 0, peak, req->profile);
		}
		res->s[i].total.m[VT_M_lazy_pages_pending] = e->vmap_lazy_nr;
		res->s[i].total.m[VT_M_tlb_entries] = tlb_peak_entries(e);
		if (req->at_end) {
			ret = req->at_end(req->at_end_ctx, i, e);
			if (ret)
				goto out;
		}
	}
	if (cb && cb->warn && vt_trace_warnings(rd)[0])
		cb->warn(cb->ctx, vt_trace_warnings(rd));
	ret = 0;
out:
	for (unsigned int i = 0; eng && i < req->nr_specs; i++)
		vt_engine_free(eng[i]);
	free(eng);
	vt_trace_close(rd);
	if (ret)
		vt_replay_result_release(res);
	return ret;
}

void vt_replay_result_release(struct vt_replay_result *res)
{
	free(res->s);
	res->s = NULL;
	res->nr = 0;
}
