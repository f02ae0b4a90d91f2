// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool gate --baseline=REPORT.json [--threshold=PCT] REPORT.json|TRACE...
 *
 * The perf gate (STYLE.md 8): the model is deterministic, so every count
 * must not increase at all; only the cost model's estimates (cycles, ns)
 * get --threshold.  The current numbers come from a report file, or from
 * replaying traces with the baseline's strategies and options.  Exit 1
 * when anything regressed (as diff(1) does for differences), 0 otherwise;
 * improvements are listed but never fail (docs/vmaptool-gate.md).
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"

struct gate_args {
	const char *baseline;
	double threshold;
	struct vt_trace_args t;
};

enum { OPT_BASELINE = 0x300, OPT_THRESHOLD };

static const struct argp_option gate_options[] = {
	{ "baseline", OPT_BASELINE, "REPORT.json", 0, "the report to compare against (required)", 0 },
	{ "threshold", OPT_THRESHOLD, "PCT", 0,
	  "tolerance for estimated metrics (cycles, ns) in percent (default 2)", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t gate_parse(int key, char *arg, struct argp_state *state)
{
	struct gate_args *a = state->input;
	char *end;

	switch (key) {
	case OPT_BASELINE:
		a->baseline = arg;
		break;
	case OPT_THRESHOLD:
		errno = 0;
		a->threshold = strtod(arg, &end);
		if (!*arg || *end || errno || !(a->threshold >= 0 && a->threshold <= 1000))
			argp_error(state, "invalid value '%s' for --threshold (expected 0..1000)",
				   arg);
		break;
	case ARGP_KEY_END:
		if (!a->baseline)
			argp_error(state, "--baseline=REPORT.json is required");
		break;
	default:
		return vt_parse_trace_args(key, state, &a->t, "report or trace");
	}
	return 0;
}

static const struct argp gate_argp = {
	.options = gate_options,
	.parser = gate_parse,
	.args_doc = "REPORT.json|TRACE...",
	.doc = "Exit 1 if a report regressed against a baseline report.\v"
	       "Every count is compared exactly per trace and strategy: any "
	       "increase is a regression.  Given traces instead of a report, "
	       "gate replays them with the baseline's strategies, options and "
	       "geometry.  Improvements are listed and do not fail.  A baseline "
	       "of another format or version is refused (exit 3).",
	.children = vt_common_children,
};

/* Replay @inputs as the baseline was made, into a new report @cur. */
static int replay_like(const struct vt_report *base, char **inputs, int n,
		       struct vt_report **cur)
{
	struct vt_spec_list specs;
	struct vt_error err;
	char *list = NULL;
	int rc;

	vt_error_init(&err);
	if (vt_report_setup(base, &vt_cli.model, &list, &vt_cli.per_op, &err)) {
		snprintf(err.file, sizeof(err.file), "%s", "baseline");
		return vt_report_error(&err);
	}
	rc = vt_run_parse_strategies(list, &specs);
	free(list);
	if (rc)
		return rc == VT_EC_USAGE ? VT_EC_INPUT : rc;
	*cur = vt_report_new(&vt_cli.model, vt_cli.per_op);
	if (!*cur) {
		vt_spec_list_release(&specs);
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	for (int i = 0; i < n && !rc; i++) {
		unsigned int ps, vb;
		size_t t;

		/* The geometry this trace had in the baseline, if it is there. */
		for (t = 0; t < vt_report_nr_traces(base); t++)
			if (!strcmp(vt_report_trace_path(base, t), inputs[i]))
				break;
		vt_report_trace_geometry(base, t, &ps, &vb);
		vt_cli.model.page_shift = ps;
		vt_cli.model.va_bits = vb;
		vt_cli.granule_set = vt_cli.va_bits_set = true;
		rc = vt_run_traces(inputs + i, 1, &specs, *cur, false, NULL);
	}
	vt_spec_list_release(&specs);
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	static char name[] = "vmaptool gate";
	struct gate_args a = { .threshold = 2.0 };
	struct vt_report *base = NULL, *cur = NULL;
	unsigned int regressions = 0;
	struct vt_gate *gate = NULL;
	struct vt_error err;
	FILE *out;
	int rc, wr;

	argv[0] = name;
	argp_parse(&gate_argp, argc, argv, 0, NULL, &a);
	if (vt_cli.per_event) {
		vt_err("gate: --per-event is not supported");
		return VT_EC_USAGE;
	}
	vt_error_init(&err);
	if (vt_report_load(a.baseline, &base, &err))
		return vt_report_error(&err);

	/* One argument that is a report; otherwise traces. */
	vt_error_init(&err);
	if (a.t.n == 1 && !vt_report_load(a.t.v[0], &cur, &err)) {
		vt_dbg(1, "comparing report '%s' with '%s'", a.t.v[0], a.baseline);
	} else if (a.t.n == 1 && err.code != VT_ERR_TRACE_VERSION &&
		   err.code != VT_ERR_TRACE_SYNTAX) {
		rc = vt_report_error(&err);
		goto out;
	} else {
		rc = replay_like(base, a.t.v, a.t.n, &cur);
		if (rc)
			goto out;
	}
	if (vt_gate_compare(base, cur, a.threshold, &gate)) {
		rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		goto out;
	}
	regressions = vt_gate_regressions(gate);

	out = vt_out_open(vt_cli.output);
	if (!out) {
		rc = VT_EC_SYSTEM;
		goto out;
	}
	wr = vt_gate_write(gate, out, vt_cli.format);
	rc = vt_out_close(out, vt_cli.output, wr == 0);
	if (wr && !rc) {
		vt_err("cannot write the gate result: %s", strerror(-wr));
		rc = VT_EC_SYSTEM;
	}
	if (!rc && regressions)
		rc = 1;
out:
	vt_gate_free(gate);
	vt_report_free(cur);
	vt_report_free(base);
	return rc;
}
