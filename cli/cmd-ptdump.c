// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool ptdump TRACE [--strategy=S] [--at=EVENT]: replay a trace with
 * one strategy (default zigzag), up to and including event EVENT, and dump
 * the page tables in the style of the kernel's arch/arm64/mm/ptdump.c
 * (docs/vmaptool-ptdump.md).
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "core/alloc.h"
#include "core/strategy/registry.h"

struct ptdump_args {
	struct vt_cli *cli;
	const char *trace;
	long at;
};

enum { OPT_AT = 0x400 };

static const struct argp_option ptdump_options[] = {
	{ "at", OPT_AT, "EVENT", 0,
	  "stop after event EVENT (0-based index; default: the whole trace)", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t ptdump_parse(int key, char *arg, struct argp_state *state)
{
	struct ptdump_args *a = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case OPT_AT:
		errno = 0;
		a->at = strtol(arg, &end, 10);
		if (!*arg || *end || errno || a->at < 0)
			argp_error(state, "invalid value '%s' for --at (expected an event index >= 0)",
				   arg);
		break;
	case ARGP_KEY_ARG:
		if (a->trace)
			argp_error(state, "ptdump takes one trace");
		a->trace = arg;
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no trace given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp ptdump_argp = {
	.options = ptdump_options,
	.parser = ptdump_parse,
	.args_doc = "TRACE",
	.doc = "Replay TRACE with one strategy (--strategy, default zigzag) and "
	       "print the kernel page tables in arm64 ptdump style.\v"
	       "Only mapped ranges are listed, between the address markers of "
	       "arch/arm64/mm/ptdump.c; a line ends where the level or the "
	       "attributes change, as the kernel's do.  -v adds each line's "
	       "first physical address and its number of descriptors; JSON and "
	       "CSV also end a range where the physical address jumps.",
	.children = vt_common_children,
};

struct collect {
	struct vt_ptdump_line *v;
	size_t nr, cap;
	struct vt_layout layout;	/* of the engine dumped */
};

static int collect_range(void *ctx, const struct vt_ptdump_range *r)
{
	struct collect *c = ctx;
	struct vt_ptdump_line *l;

	if (VT_ALLOC_GROW(c->v, c->nr + 1, c->cap))
		return -ENOMEM;
	l = &c->v[c->nr++];
	memset(l, 0, sizeof(*l));
	l->va_start = r->va_start;
	l->va_end = r->va_end;
	l->pa_start = r->pa_start;
	l->attrs = r->attrs;
	l->nr = r->nr;
	l->level = r->level;
	snprintf(l->lvl_name, sizeof(l->lvl_name), "%s", r->lvl_name ? r->lvl_name : "?");
	snprintf(l->kind, sizeof(l->kind), "%s", r->kind ? r->kind : "?");
	return 0;
}

static int at_end(void *ctx, unsigned int strat, struct vt_engine *e)
{
	struct collect *c = ctx;

	(void)strat;
	vt_engine_layout(e, &c->layout);
	return vt_engine_ptdump(e, collect_range, ctx);
}

static int cmp_va(const void *a, const void *b)
{
	const struct vt_ptdump_line *x = a, *y = b;

	return x->va_start < y->va_start ? -1 : x->va_start > y->va_start;
}

static int ptdump(struct vt_cli *cli, const char *name, struct ptdump_args a)
{
	struct vt_replay_result res;
	struct vt_run_opts ro;
	struct vt_replay_req req;
	struct vt_spec_list specs;
	struct collect c = { 0 };
	struct vt_ptdump_doc doc;
	struct vt_error err;
	int rc, wr, ret;
	FILE *out;

	rc = vt_cli_vmlinux_apply(cli, true, name);
	if (rc)
		return rc;
	rc = vt_out_check(cli, &(struct vt_io){ "trace", a.trace, VT_IO_READ }, 1,
			  NULL, 0, NULL);
	if (rc)
		return rc;
	if (cli->per_event) {
		vt_err("ptdump: --per-event is not supported; use replay");
		return VT_EC_USAGE;
	}
	rc = vt_run_parse_strategies(cli->strategies ? cli->strategies :
				     vt_strategy_mainline(),
				     &specs);
	if (rc)
		return rc;
	if (specs.nr != 1) {
		vt_spec_list_release(&specs);
		vt_err("ptdump: give exactly one strategy");
		return VT_EC_USAGE;
	}
	/* no cost profile: a dump has no estimate */
	vt_run_opts_init(&ro, cli);
	vt_run_req_init(&req, &ro, &specs, a.trace);
	req.stop_after = a.at;
	req.at_end = at_end;
	req.at_end_ctx = &c;
	vt_error_init(&err);
	memset(&res, 0, sizeof(res));
	ret = vt_replay_run(&req, NULL, &res, &err);
	if (ret < 0) {
		if (!err.code)
			err.code = ret;
		vt_run_explain(a.trace, &err);
		rc = vt_report_error(&err);
		goto out;
	}
	if (a.at >= 0 && res.events <= a.at) {
		vt_err("ptdump: --at=%ld is beyond the trace: '%s' has %ld event%s "
		       "(0..%ld)", a.at, a.trace, res.events,
		       res.events == 1 ? "" : "s", res.events - 1);
		vt_replay_result_release(&res);
		rc = VT_EC_USAGE;
		goto out;
	}
	if (c.nr)	/* no ranges: c.v is NULL, which qsort() must not get */
		qsort(c.v, c.nr, sizeof(*c.v), cmp_va);
	doc = (struct vt_ptdump_doc){
		.trace = a.trace, .strategy = specs.v[0].name, .at = a.at,
		.page_shift = res.config.page_shift, .va_bits = res.config.va_bits,
		.layout = c.layout, .lines = c.v, .nr = c.nr,
	};
	vt_replay_result_release(&res);
	out = vt_out_open(cli->output);
	if (!out) {
		rc = VT_EC_SYSTEM;
		goto out;
	}
	wr = vt_report_ptdump(out, cli->format, &doc, cli->verbose);
	rc = vt_out_close(out, cli->output, true);
	if (wr && !rc) {
		vt_err("cannot write the dump: %s", strerror(-wr));
		rc = VT_EC_SYSTEM;
	}
out:
	free(c.v);
	vt_spec_list_release(&specs);
	return rc;
}

int cmd_ptdump(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool ptdump";
	struct ptdump_args a = { cli, NULL, -1 };
	char *bundled;
	int rc;

	argv[0] = name;
	rc = argp_parse(&ptdump_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	bundled = vt_bundled_trace(a.trace);	/* "default": traces/default.json */
	if (bundled)
		a.trace = bundled;
	rc = ptdump(cli, name, a);
	free(bundled);
	return rc;
}
