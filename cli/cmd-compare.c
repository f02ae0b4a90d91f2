// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool compare --strategy=A,B[,...] TRACE...: strategies side by side
 * with ratios against the first (docs/vmaptool-compare.md).  --ablation
 * expands a strategy written with its bare name into the cumulative patch
 * sets its registry entry lists (.ablation: batched, Barry Song's series).
 */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "core/strategy/registry.h"

struct compare_args {
	struct vt_cli *cli;
	struct vt_trace_args t;
	bool ablation;
	bool summary;
	const char *metrics;		/* --metrics (implies --summary) */
};

enum { OPT_ABLATION = 0x200, OPT_SUMMARY, OPT_METRICS };

static struct argp_option compare_options[] = {
	{ "ablation", OPT_ABLATION, NULL, 0,
	  "expand a patch series into its cumulative patch sets (listed at "
	  "the end of this help)", 0 },
	{ "summary", OPT_SUMMARY, NULL, 0,
	  "a block of at most 72 columns per trace for a cover letter: the "
	  "metrics a reviewer reads first with their change in words, the "
	  "estimated speed-up with its range over the shipped profiles that "
	  "apply, and where the trace came from (table, mail and JSON)", 0 },
	{ "metrics", OPT_METRICS, "LIST", 0,
	  "the summary's rows: metric keys of the report separated by "
	  "commas (default: PTE writes, TLBIs, dsb, isb, tables allocated, "
	  "TLB entries, ns); implies --summary", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case OPT_ABLATION:
		a->ablation = true;
		break;
	case OPT_SUMMARY:
		a->summary = true;
		break;
	case OPT_METRICS:
		a->summary = true;
		a->metrics = arg;
		break;
	default:
		return vt_parse_trace_args(key, state, &a->t, "trace");
	}
	return 0;
}

static char compare_doc[2048];

static struct argp compare_argp = {
	.options = compare_options,
	.parser = compare_parse,
	.args_doc = "TRACE...",
	.doc = compare_doc,
	.children = vt_common_children,
};

int cmd_compare(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool compare";
	struct compare_args a = { cli, { NULL, 0, NULL, NULL }, false, false, NULL };
	struct vt_summary_opts summary;
	const char *list;
	char *expanded = NULL;
	struct vt_spec_list specs;
	int rc;

	argv[0] = name;
	snprintf(compare_doc, sizeof(compare_doc),
		 "Replay traces under two or more strategies and show them side "
		 "by side with ratios against the first strategy.\v"
		 "With --ablation, a strategy written exactly %s becomes "
		 "its cumulative patch sets (each adds one patch of the series, "
		 "in dependency order):", vt_strategy_ablation_names());
	/* the sets, from the registry's .ablation of each such strategy */
	for (const struct vt_strategy_info *in = vt_strategy_infos(); in->name; in++) {
		bool found;
		char *set;

		set = vt_strategy_expand_ablation(in->name, &found);
		if (set && found) {
			/* ", " between the sets, so that the help can wrap there */
			snprintf(compare_doc + strlen(compare_doc),
				 sizeof(compare_doc) - strlen(compare_doc), " %s =", in->name);
			for (char *t = strtok(set, ","); t; t = strtok(NULL, ","))
				snprintf(compare_doc + strlen(compare_doc),
					 sizeof(compare_doc) - strlen(compare_doc), " %s,", t);
			compare_doc[strlen(compare_doc) - 1] = '.';
		}
		free(set);
	}
	rc = argp_parse(&compare_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	if (a.summary) {
		char why[512];

		if (vt_summary_parse_metrics(a.metrics, &summary, why, sizeof(why)))
			return vt_usage_error(name, "%s", why);
		if (cli->format == VT_FMT_CSV)
			return vt_usage_error(name, "--summary is a table, mail or "
					      "JSON form, not CSV");
		if (cli->per_event && !cli->per_event_file)
			return vt_usage_error(name, "--summary: --per-event without FILE "
					      "replaces the report; give --per-event=FILE");
		cli->summary = &summary;
	}
	rc = vt_cli_vmlinux_apply(cli, true, name);
	if (rc)
		return rc;
	list = cli->strategies ? cli->strategies : vt_strategy_default_list();
	if (a.ablation) {
		bool found;

		expanded = vt_strategy_expand_ablation(list, &found);
		if (!expanded) {
			vt_err("out of memory");
			return VT_EC_SYSTEM;
		}
		if (!found) {
			free(expanded);
			vt_err("--ablation needs the strategy %s in --strategy",
			       vt_strategy_ablation_names());
			return VT_EC_USAGE;
		}
		list = expanded;
	}
	rc = vt_run_parse_strategies(list, &specs);
	free(expanded);
	if (rc)
		return rc;
	if (specs.nr < 2) {
		vt_spec_list_release(&specs);
		vt_err("compare needs at least two strategies (--strategy=A,B[,...])");
		return VT_EC_USAGE;
	}
	if (vt_trace_args_bundled(&a.t)) {
		vt_spec_list_release(&specs);
		return vt_err_oom_exit();
	}
	rc = vt_run_command(cli, a.t.v, a.t.shown, a.t.n, &specs, true);
	vt_trace_args_release(&a.t);
	vt_spec_list_release(&specs);
	cli->summary = NULL;
	return rc;
}
