// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool calibrate: run every experiment of a figures file (the published
 * figures, each with the experiment that says what it measured), fit the
 * built-in profiles' free prices to them and print each figure with its
 * published value, prediction, error and leave-one-out error;
 * --check=FILE predicts FILE's figures with the profiles as they are
 * (docs/vmaptool-calibrate.md, docs/cost-model.md).
 *
 * A trace an experiment generates comes from this very binary's 'gen'
 * subcommand, run with the experiment's arguments, so an experiment's
 * "gen" line is exactly what a user would type.
 */
#include <argp.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run.h"
#include "core/alloc.h"
#include "core/cost/calibrate.h"

extern char **environ;

struct calib_args {
	struct vt_cli *cli;
	const char *check;
	const char *file;
	const char *write_dir;
	bool write;
	bool free_measured;
};

enum { OPT_CHECK = 0x200, OPT_WRITE, OPT_FREE_MEASURED };

static const struct argp_option calib_options[] = {
	{ "check", OPT_CHECK, "FILE", 0,
	  "predict FILE's figures with the shipped profiles, without fitting", 0 },
	{ "write", OPT_WRITE, "DIR", OPTION_ARG_OPTIONAL,
	  "write the fitted profiles (to DIR, default the built-in profile folder)", 0 },
	{ "free-measured", OPT_FREE_MEASURED, NULL, 0,
	  "let the fit move prices measured by micro-benchmarks too", 0 },
	{ 0 }
};

static error_t calib_parse(int key, char *arg, struct argp_state *state)
{
	struct calib_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case OPT_CHECK:
		a->check = arg;
		break;
	case OPT_WRITE:
		a->write = true;
		a->write_dir = arg;
		break;
	case OPT_FREE_MEASURED:
		a->free_measured = true;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one figures file at most");
		a->file = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp calib_argp = {
	.options = calib_options,
	.parser = calib_parse,
	.args_doc = "[FIGURES.json]",
	.doc = "Fit the cost profiles to published figures (default: the "
	       "project's calibration/figures.json) and print every figure "
	       "with its prediction, error and leave-one-out error; "
	       "--check=FILE predicts without fitting.",
	.children = vt_common_children,
};

/* ---- running experiments ---------------------------------------------- */

struct trace_cache {
	char key[600];
	char path[96];		/* the run folder (32) + "/t<n>.json" */
};

/* A replayed side: figures that time the same events of the same trace
 * under the same strategy and options share it (Ryan Roberts' v2 and v4
 * tables on M2 and Altra replay the same four times). */
struct side_cache {
	char key[1400];
	struct vt_stats timed;
	uint64_t api;
};

struct run_ctx {
	char dir[64];		/* temporary folder for generated traces */
	struct trace_cache *cache;
	unsigned int nr_cache, cap_cache;
	unsigned int seq;
	struct side_cache *sides;
	unsigned int nr_sides, cap_sides;
};

/* Run this binary's 'gen' with @args into @out. */
static int run_gen(const char *args, const char *out, struct vt_error *err)
{
	static char a_vmaptool[] = "vmaptool", a_gen[] = "gen", a_q[] = "-q", a_o[] = "-o";
	/* every word of a "gen" (at most 511 bytes: 256 words) */
	char buf[600], obuf[600], *argv[5 + 256], *save = NULL, *w;
	int argc = 0, status;
	pid_t pid;

	snprintf(buf, sizeof(buf), "%s", args);
	snprintf(obuf, sizeof(obuf), "%s", out);
	argv[argc++] = a_vmaptool;
	argv[argc++] = a_gen;
	for (w = strtok_r(buf, " ", &save); w && argc < 2 + 256; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc++] = a_q;
	argv[argc++] = a_o;
	argv[argc++] = obuf;
	argv[argc] = NULL;
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ))
		return vt_error_set(err, -errno, "cannot run 'vmaptool gen %s'", args);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return vt_error_set(err, VT_ERR_BAD_EXPERIMENT,
				    "'vmaptool gen %s' failed (exit %d)", args,
				    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* The trace file of @f: generated, written from the inline document, or in the project. */
static int trace_path(struct run_ctx *rc, const struct vt_figure *f, char *path,
		      size_t len, struct vt_error *err)
{
	char key[600];
	struct trace_cache *nc;
	int ret;

	if (f->trace_file[0]) {
		if (f->trace_file[0] == '/')
			snprintf(path, len, "%s", f->trace_file);
		else
			snprintf(path, len, "%s/%s", vt_data_dir(), f->trace_file);
		return 0;
	}
	if (f->trace_inline)
		snprintf(key, sizeof(key), "inline:%s", f->id);
	else
		snprintf(key, sizeof(key), "gen:%s", f->trace_gen);
	for (unsigned int i = 0; i < rc->nr_cache; i++)
		if (!strcmp(rc->cache[i].key, key)) {
			snprintf(path, len, "%s", rc->cache[i].path);
			return 0;
		}
	if (VT_ALLOC_GROW(rc->cache, rc->nr_cache + 1, rc->cap_cache))
		return vt_err_oom(err);
	nc = &rc->cache[rc->nr_cache];
	snprintf(nc->key, sizeof(nc->key), "%s", key);
	snprintf(nc->path, sizeof(nc->path), "%.63s/t%u.json", rc->dir, rc->seq++);
	if (f->trace_inline) {
		if (json_dump_file(f->trace_inline, nc->path, JSON_COMPACT))
			return vt_error_set(err, -EIO, "cannot write '%s'", nc->path);
	} else {
		ret = run_gen(f->trace_gen, nc->path, err);
		if (ret)
			return ret;
	}
	rc->nr_cache++;
	snprintf(path, len, "%s", nc->path);
	return 0;
}

struct side_acc {
	const struct vt_figure *f;
	struct vt_stats timed;
	uint64_t api;
};

static void side_event(void *ctx, long index, unsigned int strat, const char *op,
		       const struct vt_event *ev, uint64_t va,
		       const struct vt_stats *delta, const struct vt_shape *shape)
{
	struct side_acc *a = ctx;
	int o = vt_op_find(op);

	(void)strat;
	(void)ev;
	(void)va;
	(void)shape;
	if (o < 0 || index < a->f->from_event || !a->f->op_timed[o] ||
	    (a->f->to_event && index >= a->f->to_event))
		return;
	vt_stats_add(&a->timed, delta);
	if (vt_cost_op_is_api(o))
		a->api++;
}

static void side_key(char *key, size_t len, const struct vt_figure *f,
		     const struct vt_profile *p, const struct vt_exp_side *side,
		     const char *path)
{
	char ops[VT_OP__NR + 1];

	for (int o = 0; o < VT_OP__NR; o++)
		ops[o] = f->op_timed[o] ? '1' : '0';
	ops[VT_OP__NR] = '\0';
	snprintf(key, len, "%s|%s|%s|%d|%ld|%ld|%s", path, side->strategy, side->options,
		 p->tlbi_range, f->from_event, f->to_event, ops);
}

/* Replay one side of @f; fills @c with the timed counts x scale. */
static int run_side(struct run_ctx *rc, const struct vt_figure *f, const struct vt_profile *p,
		    const struct vt_exp_side *side, const char *path,
		    struct vt_cost_counts *c, struct vt_error *err)
{
	char key[sizeof(rc->sides[0].key)];
	struct side_cache *sc;
	struct vt_strategy_spec spec;
	struct vt_model_opts opts;
	struct vt_replay_result res;
	struct side_acc acc = { .f = f };
	struct vt_replay_cb cb = { .ctx = &acc, .event = side_event };
	struct vt_replay_req req = { .path = path, .specs = &spec, .nr_specs = 1,
				     .opts = &opts, .stop_after = -1 };
	int ret;

	side_key(key, sizeof(key), f, p, side, path);
	for (unsigned int i = 0; i < rc->nr_sides; i++)
		if (!strcmp(rc->sides[i].key, key)) {
			acc.timed = rc->sides[i].timed;
			acc.api = rc->sides[i].api;
			goto counts;
		}
	vt_model_opts_init(&opts);
	opts.tlbi_range = p->tlbi_range;
	ret = vt_exp_side_opts(side, &opts, err);
	if (ret)
		return ret;
	ret = vt_strategy_parse(side->strategy, &spec, err);
	if (ret < 0)
		return ret;
	ret = vt_replay_run(&req, &cb, &res, err);
	if (ret)
		return ret;
	/* a timed range past the trace, or no timed op in it: nothing measured */
	vt_replay_result_release(&res);		/* keeps res.events */
	if (res.events <= f->from_event)
		return vt_error_set(err, VT_ERR_BAD_EXPERIMENT,
				    "figure '%s': \"from_event\" %ld is past the trace's %ld events",
				    f->id, f->from_event, res.events);
	if (!memcmp(&acc.timed, &(struct vt_stats){ 0 }, sizeof(acc.timed)) && !acc.api)
		return vt_error_set(err, VT_ERR_BAD_EXPERIMENT,
				    "figure '%s': no event of \"timed_ops\" in the timed range: nothing measured",
				    f->id);
	if (VT_ALLOC_GROW(rc->sides, rc->nr_sides + 1, rc->cap_sides))
		return vt_err_oom(err);
	sc = &rc->sides[rc->nr_sides++];
	snprintf(sc->key, sizeof(sc->key), "%s", key);
	sc->timed = acc.timed;
	sc->api = acc.api;
counts:
	vt_cost_counts_from_stats(c, &acc.timed, acc.api);
	for (int e = 0; e < VT_CE__NR; e++)
		c->n[e] *= f->scale;
	return 0;
}

static int find_profile(const struct vt_profile *profs, unsigned int nr, const char *name)
{
	for (unsigned int i = 0; i < nr; i++)
		if (!strcmp(profs[i].name, name))
			return i;
	return -1;
}

/* Run every expressed figure's experiment; a figure whose strategy or op
 * this build lacks becomes pending, with the reason. */
static int run_experiments(struct vt_figure_set *set, const struct vt_profile *profs,
			   unsigned int nr_profs)
{
	struct run_ctx rc = { .dir = "/tmp/vmaptool-calib.XXXXXX" };
	struct vt_error err;
	int ret = 0;

	if (!mkdtemp(rc.dir))
		return vt_err("cannot create a temporary folder: %s", strerror(errno)), VT_EC_SYSTEM;
	for (unsigned int i = 0; i < set->nr; i++) {
		struct vt_figure *f = &set->v[i];
		char path[700];

		f->prof = -1;
		if (f->state == VT_FIG_INEXPRESSIBLE)
			continue;
		f->prof = find_profile(profs, nr_profs, f->profile);
		if (f->prof < 0) {
			ret = vt_err("figure '%s': no such cost profile '%s'", f->id, f->profile);
			ret = VT_EC_INPUT;
			break;
		}
		if (f->state == VT_FIG_PENDING)
			continue;
		vt_progress_step("calibrate: figure", i, set->nr, f->id);
		vt_error_init(&err);
		ret = trace_path(&rc, f, path, sizeof(path), &err);
		if (!ret)
			ret = run_side(&rc, f, &profs[f->prof], &f->before, path, &f->cb, &err);
		if (!ret)
			ret = run_side(&rc, f, &profs[f->prof], &f->after, path, &f->ca, &err);
		if (ret == VT_ERR_NO_STRATEGY || ret == VT_ERR_BAD_STRATEGY ||
		    ret == VT_ERR_UNSUPPORTED) {
			f->state = VT_FIG_PENDING;
			snprintf(f->why, sizeof(f->why), "this build cannot run it: %s", err.msg);
			ret = 0;
			/* a strategy this build lacks is pending (a later
			 * one); one a letter off a known one is a typo */
			for (int k = 0; k < 2; k++) {
				const char *st = k ? f->after.strategy : f->before.strategy;
				char fix[128];
				const char *hint = vt_run_suggest_strategy(st, fix, sizeof(fix));

				if (hint)
					vt_warn("figure '%s': unknown strategy '%s'; did you mean "
						"'%s'? (left pending)", f->id, st, hint);
			}
			continue;
		}
		if (ret) {
			vt_err("figure '%s': %s", f->id, err.msg);
			ret = vt_exit_code(ret);
			break;
		}
		f->ran = true;
		vt_dbg(1, "ran %s", f->id);
	}
	vt_progress_step("calibrate: figure", set->nr, set->nr, "");
	for (unsigned int i = 0; i < rc.nr_cache; i++)
		unlink(rc.cache[i].path);
	rmdir(rc.dir);
	free(rc.cache);
	free(rc.sides);
	return ret;
}

/* ---- output --------------------------------------------------------------- */

static const char *state_name(enum vt_fig_state s)
{
	return s == VT_FIG_EXPRESSED ? "expressed" : s == VT_FIG_PENDING ? "pending" :
	       "inexpressible";
}

static json_t *real2(double v, const char *fmt)
{
	char buf[48];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_real(strtod(buf, NULL));
}

static json_t *render_json(const struct vt_figure_set *set, const struct vt_fit *fit,
			   const struct vt_profile *profs, unsigned int nr_profs, bool fitted)
{
	json_t *root = json_object(), *figs = json_array(), *sum = json_object(),
	       *pj = json_object();

	json_object_set_new(root, "format", json_string("vmaptool-calibration"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "mode", json_string(fitted ? "fit" : "check"));
	for (unsigned int i = 0; i < set->nr; i++) {
		const struct vt_figure *f = &set->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "id", json_string(f->id));
		json_object_set_new(o, "state", json_string(state_name(f->state)));
		if (f->state != VT_FIG_EXPRESSED) {
			json_object_set_new(o, "why", json_string(f->why));
			json_array_append_new(figs, o);
			continue;
		}
		json_object_set_new(o, "profile", json_string(f->profile));
		json_object_set_new(o, "quantity", json_string(vt_fig_quantity_names[f->q]));
		json_object_set_new(o, "published", real2(f->published, "%.6g"));
		json_object_set_new(o, "predicted", real2(f->predicted, "%.6g"));
		json_object_set_new(o, "error", real2(f->err, "%.4f"));
		if (f->has_loo) {
			json_object_set_new(o, "loo_predicted", real2(f->loo_pred, "%.6g"));
			json_object_set_new(o, "loo_error", real2(f->loo_err, "%.4f"));
		}
		json_object_set_new(o, "predicted_before_ns", real2(f->pred_before_ns, "%.6g"));
		json_object_set_new(o, "predicted_after_ns", real2(f->pred_after_ns, "%.6g"));
		json_array_append_new(figs, o);
	}
	json_object_set_new(root, "figures", figs);
	json_object_set_new(sum, "ratio_figures", json_integer(fit->n_ratio));
	json_object_set_new(sum, "ratio_median_abs_error", real2(fit->med_ratio, "%.4f"));
	json_object_set_new(sum, "ratio_worst_abs_error", real2(fit->worst_ratio, "%.4f"));
	if (fitted) {
		json_object_set_new(sum, "ratio_median_abs_error_loo", real2(fit->med_ratio_loo, "%.4f"));
		json_object_set_new(sum, "ratio_worst_abs_error_loo", real2(fit->worst_ratio_loo, "%.4f"));
		json_object_set_new(sum, "time_median_abs_error_loo", real2(fit->med_time_loo, "%.4f"));
		json_object_set_new(sum, "time_worst_abs_error_loo", real2(fit->worst_time_loo, "%.4f"));
	}
	json_object_set_new(sum, "time_figures", json_integer(fit->n_time));
	json_object_set_new(sum, "time_median_abs_error", real2(fit->med_time, "%.4f"));
	json_object_set_new(sum, "time_worst_abs_error", real2(fit->worst_time, "%.4f"));
	{
		unsigned int n[3] = { 0 };

		for (unsigned int i = 0; i < set->nr; i++)
			n[set->v[i].state]++;
		json_object_set_new(sum, "expressed", json_integer(n[VT_FIG_EXPRESSED]));
		json_object_set_new(sum, "pending", json_integer(n[VT_FIG_PENDING]));
		json_object_set_new(sum, "inexpressible", json_integer(n[VT_FIG_INEXPRESSIBLE]));
	}
	json_object_set_new(root, "summary", sum);
	for (unsigned int pi = 0; pi < nr_profs; pi++) {
		json_t *po = json_object();

		for (int e = 0; e < VT_CE__NR; e++) {
			const struct vt_cost_param *cp = &profs[pi].p[e];
			json_t *o = json_object();

			json_object_set_new(o, "cycles", real2(cp->cycles, "%.6g"));
			json_object_set_new(o, "anchor", real2(cp->anchor, "%.6g"));
			json_object_set_new(o, "range", real2(cp->range, "%.6g"));
			json_object_set_new(o, "source", json_string(vt_cost_source_names[cp->source]));
			if (cp->determined >= 0)
				json_object_set_new(o, "determined", real2(cp->determined, "%.2f"));
			json_object_set_new(po, vt_cost_events[e].name, o);
		}
		json_object_set_new(pj, profs[pi].name, po);
	}
	json_object_set_new(root, "profiles", pj);
	return root;
}

static void fmt_value(char *buf, size_t len, enum vt_fig_quantity q, double v)
{
	if (q == VT_Q_SPEEDUP || q == VT_Q_TIME_RATIO)
		snprintf(buf, len, "%.3f", v);
	else if (v >= 1e9)	/* 17.41 s, not 1.741e+04 ms */
		snprintf(buf, len, "%.4g s", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.4g ms", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.4g us", v / 1e3);
	else
		snprintf(buf, len, "%.4g ns", v);
}


/* One kind's error line; no figure of the kind: "none", not a median of nothing. */
static void print_errors(FILE *out, const char *kind, unsigned int n, double med,
			 double worst, bool loo, double med_loo, double worst_loo)
{
	if (!n) {
		fprintf(out, "%s (0): none\n", kind);
		return;
	}
	fprintf(out, "%s (%u): median |error| %.1f%%, worst %.1f%%", kind, n, 100 * med,
		100 * worst);
	if (loo)
		fprintf(out, "; leave-one-out median %.1f%%, worst %.1f%%", 100 * med_loo,
			100 * worst_loo);
	fputc('\n', out);
}
static void render_table(FILE *out, const struct vt_figure_set *set, const struct vt_fit *fit,
			 const struct vt_profile *profs, unsigned int nr_profs, bool fitted,
			 int verbose)
{
	unsigned int n[3] = { 0 };
	int wid = 6, wprof = 12, wnot = 6;

	/* the columns as wide as their longest entry, ids of any length */
	for (unsigned int i = 0; i < set->nr; i++) {
		int l = (int)strlen(set->v[i].id);

		if (set->v[i].state == VT_FIG_EXPRESSED) {
			wid = l > wid ? l : wid;
			l = (int)strlen(set->v[i].profile);
			wprof = l > wprof ? l : wprof;
		} else {
			wnot = l > wnot ? l : wnot;
		}
	}
	fprintf(out, "%-*s %-*s %-11s %10s %10s %8s %8s", wid, "figure", wprof, "profile",
		"quantity", "published", "predicted", "error", "loo");
	/* --check: the absolute times the ratios are made of, beside them */
	fputs(fitted ? "\n" : "  pred.before  pred.after\n", out);
	for (unsigned int i = 0; i < set->nr; i++) {
		const struct vt_figure *f = &set->v[i];
		char pb[32], pp[32], lo[16] = "-";

		n[f->state]++;
		if (f->state != VT_FIG_EXPRESSED)
			continue;
		fmt_value(pb, sizeof(pb), f->q, f->published);
		fmt_value(pp, sizeof(pp), f->q, f->predicted);
		if (f->has_loo)
			snprintf(lo, sizeof(lo), "%+.1f%%", 100 * f->loo_err);
		fprintf(out, "%-*s %-*s %-11s %10s %10s %+7.1f%% %8s", wid, f->id, wprof,
			f->profile, vt_fig_quantity_names[f->q], pb, pp, 100 * f->err, lo);
		if (!fitted) {
			fmt_value(pb, sizeof(pb), VT_Q_TIME_BEFORE, f->pred_before_ns);
			fmt_value(pp, sizeof(pp), VT_Q_TIME_AFTER, f->pred_after_ns);
			fprintf(out, " %12s %11s", pb, pp);
		}
		fputc('\n', out);
	}
	fprintf(out, "\n%u figure%s: %u expressed, %u pending (counts this build lacks), %u inexpressible\n",
		set->nr, set->nr == 1 ? "" : "s", n[VT_FIG_EXPRESSED], n[VT_FIG_PENDING],
		n[VT_FIG_INEXPRESSIBLE]);
	print_errors(out, "ratios", fit->n_ratio, fit->med_ratio, fit->worst_ratio, fitted,
		     fit->med_ratio_loo, fit->worst_ratio_loo);
	print_errors(out, "times ", fit->n_time, fit->med_time, fit->worst_time, fitted,
		     fit->med_time_loo, fit->worst_time_loo);
	if (fitted && fit->nr) {
		fprintf(out, "\nfitted price groups (determined: share of the prior's variance the data remove)\n");
		fprintf(out, "%-12s %-16s %8s %10s %10s\n", "profile", "group", "factor", "range",
			"determined");
		for (unsigned int g = 0; g < fit->nr; g++) {
			const struct vt_fit_group *fg = &fit->g[g];

			fprintf(out, "%-12s %-16s %7.2fx %9.2fx %10.2f\n", profs[fg->prof].name,
				fg->name, exp(fg->theta), exp(fg->bound), fg->determined);
		}
	}
	(void)nr_profs;
	if (verbose) {
		fprintf(out, "\nnot expressed:\n");
		for (unsigned int i = 0; i < set->nr; i++)
			if (set->v[i].state != VT_FIG_EXPRESSED)
				fprintf(out, "  %-*s %-13s %s\n", wnot, set->v[i].id,
					state_name(set->v[i].state), set->v[i].why);
	}
}

static int load_profiles(struct vt_profile **out, unsigned int *nr)
{
	struct vt_error err;
	char **names;
	unsigned int n;
	int ret;

	vt_error_init(&err);
	ret = vt_profile_names(&names, &n, &err);
	if (ret)
		return vt_report_error(&err);
	*out = calloc(n + 1, sizeof(**out));
	if (!*out) {
		vt_profile_names_free(names, n);
		return vt_err_oom_exit();
	}
	for (unsigned int i = 0; i < n; i++) {
		ret = vt_profile_load(names[i], &(*out)[i], &err);
		if (ret) {
			vt_profile_names_free(names, n);
			free(*out);
			return vt_report_error(&err);
		}
	}
	vt_profile_names_free(names, n);
	*nr = n;
	return 0;
}

/*
 * The profile files this run reads (every profile of the profile folder)
 * and, with --write, writes (DIR/NAME.json): -o naming one of them is
 * refused before the run, as every output naming an input or another
 * output is (vt_out_check()).  A profile --write replaces in the folder it
 * was read from is one file read and then replaced, as gate
 * --update-baseline's.
 */
static int check_profile_files(const struct calib_args *a, const struct vt_profile *profs,
			       unsigned int nr)
{
	const char *wdir = a->write && !a->check ? a->write_dir ?: vt_profile_dir() : NULL;
	struct vt_io *io = calloc(2 * (size_t)nr + 1, sizeof(*io));
	char (*paths)[PATH_MAX] = calloc(2 * (size_t)nr + 1, sizeof(*paths));
	size_t n = 0;
	int ret;

	if (!io || !paths) {
		free(io);
		free(paths);
		return vt_err_oom_exit();
	}
	for (unsigned int i = 0; i < nr; i++) {
		snprintf(paths[n], PATH_MAX, "%s/%s.json", vt_profile_dir(), profs[i].name);
		io[n] = (struct vt_io){ "profile", paths[n], VT_IO_READ };
		n++;
		if (!wdir)
			continue;
		snprintf(paths[n], PATH_MAX, "%s/%s.json", wdir, profs[i].name);
		io[n] = (struct vt_io){ "--write", paths[n], VT_IO_WRITE };
		if (!strcmp(paths[n], paths[n - 1]))
			io[n - 1].mode |= VT_IO_WRITE;
		else
			n++;
	}
	ret = vt_out_check(a->cli, io, n, NULL, 0, NULL);
	free(io);
	free(paths);
	return ret;
}

int cmd_calibrate(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool calibrate";
	struct calib_args a = { .cli = cli };
	struct vt_figure_set set = { 0 };
	struct vt_profile *profs = NULL;
	unsigned int nr_profs = 0;
	struct vt_fit fit = { 0 };
	struct vt_error err;
	char def[4096];
	FILE *out;
	int ret, wr = 0;

	argv[0] = name;
	ret = argp_parse(&calib_argp, argc, argv, 0, NULL, &a);
	if (ret)
		return vt_err_argp(ret);
	ret = vt_out_check(cli, (struct vt_io[]){ { "--check", a.check, VT_IO_READ },
					     { "figures file", a.file, VT_IO_READ } }, 2, NULL, 0, NULL);
	if (ret)
		return ret;
	if (a.check && a.file)
		return vt_err("give a figures file or --check=FILE, not both"), VT_EC_USAGE;
	snprintf(def, sizeof(def), "%s/calibration/figures.json", vt_data_dir());
	vt_error_init(&err);
	ret = vt_figures_load(a.check ?: a.file ?: def, &set, &err);
	if (ret)
		return vt_report_error(&err);
	ret = load_profiles(&profs, &nr_profs);
	if (!ret)
		ret = check_profile_files(&a, profs, nr_profs);
	if (!ret)
		ret = run_experiments(&set, profs, nr_profs);
	if (ret)
		goto out;
	if (a.check) {
		vt_calibrate_check(profs, nr_profs, &set, &fit);
	} else {
		ret = vt_calibrate_fit(profs, nr_profs, &set, a.free_measured, &fit, &err);
		if (ret) {
			ret = vt_report_error(&err);
			goto out;
		}
	}
	if (a.write && !a.check) {
		for (unsigned int i = 0; i < nr_profs; i++) {
			char path[4096];

			FILE *pf;
			int bad;

			snprintf(path, sizeof(path), "%s/%s.json", a.write_dir ?: vt_profile_dir(),
				 profs[i].name);
			/* as every output: renamed with the others at the end
			 * of the run, removed on failure or a signal */
			pf = vt_out_open(path);
			if (!pf) {
				ret = VT_EC_SYSTEM;
				goto out;
			}
			vt_error_init(&err);
			bad = vt_profile_write(&profs[i], pf, &err);
			ret = vt_out_close(pf, path, !bad);
			if (bad) {
				vt_err("cannot write profile '%s': %s", path, strerror(-err.code));
				ret = VT_EC_SYSTEM;
			}
			if (ret)
				goto out;
		}
	}
	out = vt_out_open(cli->output);
	if (!out) {
		ret = VT_EC_SYSTEM;
		goto out;
	}
	if (cli->format == VT_FMT_JSON) {
		json_t *root = render_json(&set, &fit, profs, nr_profs, !a.check);

		wr = json_dumpf(root, out, JSON_INDENT(2) | JSON_SORT_KEYS) || fputc('\n', out) == EOF;
		json_decref(root);
	} else {
		render_table(out, &set, &fit, profs, nr_profs, !a.check, cli->verbose);
	}
	ret = vt_out_close(out, cli->output, true) ?: (wr ? VT_EC_SYSTEM : 0);
out:
	vt_fit_release(&fit);
	vt_figure_set_release(&set);
	free(profs);
	return ret;
}
