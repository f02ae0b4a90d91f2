// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool gate --baseline=REPORT.json [OPTION...] REPORT.json|TRACE...
 *
 * The perf gate (STYLE.md 8, docs/vmaptool-gate.md, docs/ci-gate.md): the
 * model is deterministic, so every count must not increase at all unless
 * --threshold allows it.  The current numbers come from a report file, or
 * from replaying traces with the strategies, options and geometry the
 * baseline records; a command line that asks for other options is a usage
 * error (or, with --rebaseline-options, replays with the baseline's).
 * Traces are matched by key: the path relative to the baseline's folder,
 * so the gate gives the same answer from any working directory.
 * --update-baseline writes the baseline instead (whole or not at all).
 * Exit 1 when anything regressed (as diff(1) does for differences).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/report-doc.h"
#include "cli/run.h"
#include "core/cost/profile.h"
#include "core/input.h"
#include "core/trace/trace.h"

struct gate_args {
	const char *baseline;
	struct vt_gate_opts g;
	bool update, rebaseline;
	const char *junit, *markdown;
	struct vt_trace_args t;
};

enum {
	OPT_BASELINE = 0x300, OPT_THRESHOLD, OPT_ALLOW_MISSING, OPT_UPDATE,
	OPT_REBASELINE, OPT_JUNIT, OPT_MARKDOWN,
};

static const struct argp_option gate_options[] = {
	{ "baseline", OPT_BASELINE, "REPORT.json", 0,
	  "the report to compare against (required)", 0 },
	{ "threshold", OPT_THRESHOLD, "LIST", 0,
	  "METRIC:N or METRIC:N%[,...]: tolerance of a metric, absolute or "
	  "in percent of the baseline (counts are exact, cycles and ns 2%, "
	  "by default); a bare PCT sets that of cycles and ns", 0 },
	{ "allow-missing", OPT_ALLOW_MISSING, NULL, 0,
	  "a trace only the baseline or only the command line has is listed, "
	  "not a failure", 0 },
	{ "update-baseline", OPT_UPDATE, NULL, 0,
	  "replay the traces and write the baseline instead of comparing "
	  "(options not given are kept from the old baseline)", 0 },
	{ "rebaseline-options", OPT_REBASELINE, NULL, 0,
	  "replay with the baseline's options when the command line gives "
	  "others, and say so", 0 },
	{ "junit", OPT_JUNIT, "FILE", 0,
	  "also write the result as JUnit XML (one test per trace and strategy)", 0 },
	{ "markdown", OPT_MARKDOWN, "FILE", 0,
	  "also write the result as a Markdown table (a merge-request comment)", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t gate_parse(int key, char *arg, struct argp_state *state)
{
	struct gate_args *a = state->input;
	char why[200];

	switch (key) {
	case OPT_BASELINE:
		a->baseline = arg;
		break;
	case OPT_THRESHOLD:
		if (vt_gate_parse_threshold(&a->g, arg, why, sizeof(why)))
			argp_error(state, "%s", why);
		break;
	case OPT_ALLOW_MISSING:
		a->g.allow_missing = true;
		break;
	case OPT_UPDATE:
		a->update = true;
		break;
	case OPT_REBASELINE:
		a->rebaseline = true;
		break;
	case OPT_JUNIT:
		a->junit = arg;
		break;
	case OPT_MARKDOWN:
		a->markdown = arg;
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
	       "geometry; traces are matched by their path relative to the "
	       "baseline's folder.  Improvements are listed and do not fail.  "
	       "Exit status: 0 no regression, 1 regression, 2 usage (options "
	       "that differ from the baseline's), 3 bad baseline or trace, "
	       "4 system error.",
	.children = vt_common_children,
};

/* ---- trace keys ------------------------------------------------------ */

/*
 * The key of trace @path: its path relative to the folder of the baseline
 * @baseline ("default.json", "test_vmalloc/x.json", "../other/t.json"),
 * the same from every working directory.  Falls back to @path as given
 * when either cannot be resolved.
 */
static char *trace_key(const char *baseline, const char *path)
{
	char dir[PATH_MAX], *bdir, *t = realpath(path, NULL), *key = NULL;
	const char *slash = strrchr(baseline, '/');
	size_t common = 0, i;
	FILE *f;
	size_t len;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - baseline) : 1,
		 slash ? (slash == baseline ? "/" : baseline) : ".");
	bdir = realpath(dir, NULL);
	if (!t || !bdir) {
		free(t);
		free(bdir);
		return strdup(path);
	}
	/* the longest common run of whole components */
	for (i = 0; bdir[i] && bdir[i] == t[i]; i++)
		if (bdir[i] == '/')
			common = i;
	if (!bdir[i] && (t[i] == '/' || !t[i]))
		common = i;
	f = open_memstream(&key, &len);
	if (f) {
		for (i = common; bdir[i]; i++)
			if (bdir[i] == '/')
				fputs("../", f);
		fputs(t + common + (t[common] == '/'), f);
		if (fclose(f)) {
			free(key);
			key = NULL;
		}
	}
	free(t);
	free(bdir);
	return key;
}

/* Whether @path is the file @st (the baseline itself among the inputs). */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat s;

	return !stat(path, &s) && s.st_dev == st->st_dev && s.st_ino == st->st_ino;
}

/*
 * A lone argument "-" is read twice: once as a report, then, if it is not
 * one, as a trace.  Standard input that cannot seek (a pipe) is copied
 * into a memory file put in its place first, at most @max bytes (the
 * --max-input limit); *@start is where both reads begin.
 */
static int stdin_rereadable(uint64_t max, off_t *start)
{
	static char buf[1 << 16];
	uint64_t total = 0;
	ssize_t n;
	int fd;

	*start = lseek(STDIN_FILENO, 0, SEEK_CUR);
	if (*start >= 0)
		return 0;
	*start = 0;
	fd = memfd_create("vt-gate-stdin", MFD_CLOEXEC);
	if (fd < 0) {
		vt_err("cannot copy standard input: %s", strerror(errno));
		return VT_EC_SYSTEM;
	}
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			vt_err("cannot copy standard input: %s", strerror(errno));
			close(fd);
			return VT_EC_SYSTEM;
		}
		total += (uint64_t)n;
		if (total > max) {
			char b[64];

			vt_err("-: input is larger than the --max-input limit of %s",
			       vt_input_size_text(max, b, sizeof(b)));
			close(fd);
			return VT_EC_INPUT;
		}
	}
	if (dup2(fd, STDIN_FILENO) < 0 || lseek(STDIN_FILENO, 0, SEEK_SET)) {
		vt_err("cannot copy standard input: %s", strerror(errno));
		close(fd);
		return VT_EC_SYSTEM;
	}
	close(fd);
	return 0;
}

/* ---- options: the command line against the baseline ------------------ */

static void opt_word(const struct vt_option *t, unsigned int v, char *buf,
		     size_t len)
{
	if (t->kind == VT_OK_NUMBER)
		snprintf(buf, len, "%u", v);
	else if (!vt_option_value_word(t, v, buf, len))
		snprintf(buf, len, "%u", v);
}

/*
 * Append to @f each difference between @cur and @base, as
 * "--name=X (baseline Y)"; with @given, only the options the command line
 * gave.  Returns how many.
 */
static int option_diffs(FILE *f, const struct vt_model_opts *cur,
			const struct vt_model_opts *base, bool given)
{
	int n = 0;

	if ((!given || vt_cli.kernel_given) && cur->kernel != base->kernel)
		fprintf(f, "%s--kernel=%s (baseline %s)", n++ ? ", " : "",
			vt_kernels[cur->kernel].name, vt_kernels[base->kernel].name);
	for (int i = 0; i < VT_OPT__NR; i++) {
		const struct vt_option *t = &vt_options[i];
		unsigned int x = vt_option_get(cur, (enum vt_option_id)i);
		unsigned int y = vt_option_get(base, (enum vt_option_id)i);
		char a[64], b[64];

		if (x == y || (given && !vt_cli.opt_given[i] &&
			       !(vt_cli.kernel_given && t->kernel[cur->kernel])))
			continue;
		opt_word(t, x, a, sizeof(a));
		opt_word(t, y, b, sizeof(b));
		fprintf(f, "%s--%s=%s (baseline %s)", n++ ? ", " : "", t->name, a, b);
	}
	return n;
}

/*
 * The cost profile is one of the options: its estimates (cycles, ns) are
 * not comparable across profiles.  Appends "--profile=X (baseline Y)" to
 * @f when both are known and differ; returns 1 then, else 0.
 */
static int profile_diff(FILE *f, int n, const char *cur, const char *base)
{
	if (!cur || !base || !strcmp(cur, base))
		return 0;
	fprintf(f, "%s--profile=%s (baseline %s)", n ? ", " : "", cur, base);
	return 1;
}

/* The name of the profile --profile gives (a file names its own), or NULL
 * when not given; an error is reported and its exit code put in @rc. */
static const char *given_profile_name(struct vt_profile *p, int *rc)
{
	struct vt_error err;

	*rc = 0;
	if (!vt_cli.profile)
		return NULL;
	vt_error_init(&err);
	if (vt_profile_load(vt_cli.profile, p, &err)) {
		vt_run_profile_hint(&err, vt_cli.profile);
		*rc = vt_report_error(&err);
		return NULL;
	}
	return p->name;
}

/* ---- the current report ------------------------------------------------ */

/* Replay @inputs (keys @keys) into @cur with vt_cli.model; each trace with
 * the baseline's geometry for it, unless given or not in the baseline. */
static int replay_traces(const struct vt_report *base, char **inputs,
			 char **keys, int n, const struct vt_spec_list *specs,
			 bool forced_geometry, struct vt_report *cur)
{
	unsigned int ps = vt_cli.model.page_shift, vb = vt_cli.model.va_bits;
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		long at = base ? vt_gate_key_match(base->traces, keys[i]) : -1;
		size_t last = json_array_size(cur->traces);

		vt_cli.model.page_shift = ps;
		vt_cli.model.va_bits = vb;
		vt_cli.granule_set = vt_cli.va_bits_set = forced_geometry;
		if (!forced_geometry && at >= 0) {
			vt_report_trace_geometry(base, (size_t)at,
						 &vt_cli.model.page_shift,
						 &vt_cli.model.va_bits);
			vt_cli.granule_set = vt_cli.va_bits_set = true;
		}
		rc = vt_run_traces(inputs + i, 1, specs, cur, false, NULL);
		if (!rc && json_array_size(cur->traces) > last &&
		    json_object_set_new(json_array_get(cur->traces, last), "trace",
					json_string(keys[i]))) {
			vt_err("out of memory");
			rc = VT_EC_SYSTEM;
		}
	}
	return rc;
}

/* Drop from @base the strategies not in @specs (--strategy given). */
static int keep_strategies(struct vt_report *base, const struct vt_spec_list *specs)
{
	json_t *t;
	size_t i;

	for (unsigned int k = 0; k < specs->nr; k++) {
		bool found = false;

		json_array_foreach(base->traces, i, t) {
			json_t *s;
			size_t j;

			json_array_foreach(json_object_get(t, "strategies"), j, s)
				found |= !strcmp(json_string_value(json_object_get(s, "name")),
						 specs->v[k].name);
		}
		if (!found) {
			vt_err("--strategy=%s: the baseline has no strategy '%s' "
			       "(add it with --update-baseline)", vt_cli.strategies,
			       specs->v[k].name);
			return VT_EC_USAGE;
		}
	}
	json_array_foreach(base->traces, i, t) {
		json_t *s, *strats = json_object_get(t, "strategies");
		size_t j = 0;

		while (j < json_array_size(strats)) {
			const char *name;
			bool keep = false;

			s = json_array_get(strats, j);
			name = json_string_value(json_object_get(s, "name"));
			for (unsigned int k = 0; k < specs->nr; k++)
				keep |= !strcmp(name, specs->v[k].name);
			if (keep)
				j++;
			else
				json_array_remove(strats, j);
		}
	}
	return 0;
}

/* A report given as the current numbers must have been made as the
 * baseline was (geometry, generation, options). */
static int check_report_config(const struct vt_report *base,
			       const struct vt_report *cur, const char *base_path,
			       const char *cur_path)
{
	struct vt_model_opts bo, co;
	struct vt_error err;
	char *list = NULL, *msg = NULL;
	size_t len;
	bool per_op;
	FILE *f;
	int n;

	vt_error_init(&err);
	if (vt_report_setup(base, &bo, &list, &per_op, &err)) {
		snprintf(err.file, sizeof(err.file), "%s", base_path);
		return vt_report_error(&err);
	}
	free(list);
	list = NULL;
	if (vt_report_setup(cur, &co, &list, &per_op, &err)) {
		snprintf(err.file, sizeof(err.file), "%s", cur_path);
		return vt_report_error(&err);
	}
	free(list);
	f = open_memstream(&msg, &len);
	if (!f)
		return vt_err("out of memory") ? VT_EC_SYSTEM : 0;
	n = option_diffs(f, &co, &bo, false);
	n += profile_diff(f, n, vt_report_profile_name(cur), vt_report_profile_name(base));
	if (base->page_shift != cur->page_shift || base->va_bits != cur->va_bits)
		fprintf(f, "%sgeometry %s/%u (baseline %s/%u)", n++ ? ", " : "",
			vt_granule_name(cur->page_shift), cur->va_bits,
			vt_granule_name(base->page_shift), base->va_bits);
	if (fclose(f))
		n = 0;
	if (n)
		vt_err("gate: the report was made with other options than the "
		       "baseline: %s; make both the same way", msg);
	free(msg);
	return n ? VT_EC_USAGE : 0;
}

/*
 * A trace the baseline does not have is not replayed, but it is read to
 * its end through the trace reader with replay's reading options, so that
 * a truncated file, garbage or an empty standard input is bad input (exit
 * 3, located) and not "not in the baseline", allowed by --allow-missing.
 */
static int read_through(const char *path)
{
	struct vt_trace_read_opts ro = { .skip_unknown = vt_cli.model.skip_unknown,
					 .max_input = vt_cli.model.max_input };
	struct vt_trace_reader *rd = NULL;
	struct vt_error err;
	struct vt_event ev;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_open(path, &ro, &rd, &err);
	while (!ret && (ret = vt_trace_next(rd, &ev, &err)) > 0)
		;
	vt_trace_close(rd);
	if (ret >= 0)
		return 0;
	if (!err.code)
		err.code = ret;
	vt_run_explain(path, &err);
	return vt_report_error(&err);
}

/*
 * The baseline's cost profile (config.profile, a name: the load checked
 * it) must exist here: else the baseline is at fault, not the command
 * line (exit 3 naming it, not the usage error of an unknown --profile).
 */
static int check_base_profile(const char *baseline, const char *name)
{
	struct vt_profile *p = malloc(sizeof(*p));
	struct vt_error err;
	int rc = 0;

	if (!p)
		return vt_err("out of memory") ? VT_EC_SYSTEM : 0;
	vt_error_init(&err);
	if (vt_profile_load(name, p, &err)) {
		if (err.code == VT_ERR_NO_PROFILE || err.code == -ENOENT) {
			vt_error_init(&err);
			snprintf(err.file, sizeof(err.file), "%s", baseline);
			vt_error_set(&err, VT_ERR_TRACE_SCHEMA,
				     "config.profile: no cost profile '%s' here; "
				     "give its file with --profile=FILE.json", name);
		}
		rc = vt_report_error(&err);
	}
	free(p);
	return rc;
}

/* ---- outputs --------------------------------------------------------- */

static int write_file(const char *path, const struct vt_gate *g,
		      int (*fn)(const struct vt_gate *, FILE *))
{
	FILE *f = vt_out_open(path);
	int wr, rc;

	if (!f)
		return VT_EC_SYSTEM;
	wr = fn(g, f);
	rc = vt_out_close(f, path, wr == 0);
	if (wr && !rc) {
		vt_err("cannot write '%s': %s", path, strerror(-wr));
		rc = VT_EC_SYSTEM;
	}
	return rc;
}

static int write_text(const struct vt_gate *g, FILE *f)
{
	return vt_gate_write(g, f, vt_cli.format);
}

static int write_outputs(const struct vt_gate *g, const struct gate_args *a)
{
	int rc = write_file(vt_cli.output, g, write_text);

	if (!rc && a->junit)
		rc = write_file(a->junit, g, vt_gate_write_junit);
	if (!rc && a->markdown)
		rc = write_file(a->markdown, g, vt_gate_write_markdown);
	return rc;
}

/*
 * --update-baseline writes exactly the traces given: name those of the old
 * baseline @base that the new one loses (a glob that missed a folder or
 * the .jsonl files), so a re-bless does not shrink the gate unseen.
 */
static void warn_dropped(const struct vt_report *base, char **keys, int n)
{
	size_t nt = json_array_size(base->traces), lost = 0, len = 0;
	char *msg = NULL;
	bool *kept = calloc(nt ? nt : 1, sizeof(*kept));
	FILE *f;

	if (!kept)
		return;
	for (int i = 0; i < n; i++) {
		long at = vt_gate_key_match(base->traces, keys[i]);

		if (at >= 0)
			kept[at] = true;
	}
	f = open_memstream(&msg, &len);
	for (size_t i = 0; f && i < nt; i++)
		if (!kept[i])
			fprintf(f, "%s%s", lost++ ? ", " : "",
				json_string_value(json_object_get(
					json_array_get(base->traces, i), "trace")));
	if (f && !fclose(f) && lost)
		vt_warn("gate: the new baseline drops %zu trace%s of the old one, "
			"not given this time: %s", lost, lost == 1 ? "" : "s", msg);
	free(msg);
	free(kept);
}

static int write_baseline(const char *path, const struct vt_report *r)
{
	FILE *f = vt_out_open(path);
	int wr, rc;

	if (!f)
		return VT_EC_SYSTEM;
	wr = vt_report_write(r, f, VT_FMT_JSON, 0);
	rc = vt_out_close(f, path, wr == 0);
	if (wr && !rc) {
		vt_err("cannot write '%s': %s", path, strerror(-wr));
		rc = VT_EC_SYSTEM;
	}
	if (!rc)
		vt_info("baseline '%s' written: %zu trace%s", path,
			json_array_size(r->traces),
			json_array_size(r->traces) == 1 ? "" : "s");
	return rc;
}

/* The model and strategy list to replay with, from the baseline and the
 * command line; a usage error when they differ and we are gating. */
static int choose_model(const struct gate_args *a, struct vt_report *base,
			struct vt_spec_list *specs)
{
	struct vt_model_opts bo, given = vt_cli.model;
	struct vt_profile prof;
	struct vt_error err;
	char *list = NULL, *msg = NULL;
	bool per_op = vt_cli.per_op;
	const char *pname;
	size_t len;
	FILE *f;
	int n = 0, np, rc;

	if (base) {
		pname = given_profile_name(&prof, &rc);
		if (rc)
			return rc;
		vt_error_init(&err);
		if (vt_report_setup(base, &bo, &list, &per_op, &err)) {
			snprintf(err.file, sizeof(err.file), "%s", a->baseline);
			return vt_report_error(&err);
		}
		f = open_memstream(&msg, &len);
		if (!f) {
			free(list);
			return vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		}
		n = option_diffs(f, &given, &bo, true);
		np = profile_diff(f, n, pname, vt_report_profile_name(base));
		n += np;
		if (!a->update && (vt_cli.granule_set || vt_cli.va_bits_set) &&
		    (given.page_shift != base->page_shift ||
		     given.va_bits != base->va_bits))
			fprintf(f, "%s--granule=%s --va-bits=%u (baseline %s, %u)",
				n++ ? ", " : "", vt_granule_name(given.page_shift),
				given.va_bits, vt_granule_name(base->page_shift),
				base->va_bits);
		if (fclose(f))
			n = 0;
		if (a->update) {
			/* what the command line gives wins, the rest is kept */
			for (int i = 0; i < VT_OPT__NR; i++)
				if (!vt_cli.opt_given[i] &&
				    !(vt_cli.kernel_given &&
				      vt_options[i].kernel[given.kernel]))
					vt_option_set(&given, (enum vt_option_id)i,
						      vt_option_get(&bo, (enum vt_option_id)i));
			if (!vt_cli.kernel_given)
				given.kernel = bo.kernel;
			if (n)
				vt_info("gate: new options for the baseline: %s", msg);
			vt_cli.model = given;
			per_op |= vt_cli.per_op;
		} else if (n && !a->rebaseline) {
			vt_err("gate: the command line differs from the baseline: %s; "
			       "give the baseline's options, --rebaseline-options to "
			       "replay with them, or --update-baseline to re-bless",
			       msg);
			free(msg);
			free(list);
			return VT_EC_USAGE;
		} else {
			if (n)
				vt_info("gate: replaying with the baseline's options, "
					"not the command line's: %s", msg);
			bo.page_shift = given.page_shift;
			bo.va_bits = given.va_bits;
			vt_cli.model = bo;
			if (np)		/* the baseline's profile (cmd_gate) */
				vt_cli.profile = NULL;
		}
		free(msg);
	}
	vt_cli.per_op = per_op;
	rc = vt_run_parse_strategies(vt_cli.strategies ? vt_cli.strategies : list,
				     specs);
	free(list);
	if (rc)
		return rc;
	if (base && !a->update && vt_cli.strategies) {
		rc = keep_strategies(base, specs);
		if (rc)
			vt_spec_list_release(specs);
	}
	return rc;
}

int cmd_gate(int argc, char **argv)
{
	static char name[] = "vmaptool gate";
	struct gate_args a = { 0 };
	struct vt_report *base = NULL, *cur = NULL;
	struct vt_gate *gate = NULL;
	struct vt_spec_list specs = { NULL, 0 };
	char **inputs = NULL, **keys = NULL;
	struct stat bst;
	bool have_bst;
	struct vt_error err;
	off_t stdin_start = 0;
	int rc = 0, n = 0, stdin_users = 0;

	argv[0] = name;
	vt_gate_opts_init(&a.g);
	argp_parse(&gate_argp, argc, argv, 0, NULL, &a);
	if ((rc = vt_out_check((struct vt_io[]){ { "--baseline", a.baseline,
		VT_IO_READ | (a.update ? VT_IO_WRITE : 0) }, { "--junit", a.junit,
		VT_IO_WRITE }, { "--markdown", a.markdown, VT_IO_WRITE } }, 3,
				a.t.v, a.t.n, "input")))
		return rc;
	if (vt_cli.per_event) {
		vt_err("gate: --per-event is not supported");
		return VT_EC_USAGE;
	}
	/* "-" is standard input, for the baseline as for every input; it
	 * can be read once */
	for (int i = 0; i < a.t.n; i++)
		if (!strcmp(a.t.v[i], "-") &&
		    (!strcmp(a.baseline, "-") || stdin_users++)) {
			vt_err("gate: standard input ('-') is given twice");
			return VT_EC_USAGE;
		}
	vt_error_init(&err);
	if (vt_report_load_max(a.baseline, vt_cli.model.max_input, &base, &err)) {
		if (!(a.update && err.code == -ENOENT))
			return vt_report_error(&err);
		base = NULL;
	}

	/* One argument that is a report; otherwise traces. */
	vt_error_init(&err);
	if (!a.update && a.t.n == 1 && !strcmp(a.t.v[0], "-")) {
		rc = stdin_rereadable(vt_cli.model.max_input ?
				      vt_cli.model.max_input :
				      VT_MAX_INPUT_DEFAULT, &stdin_start);
		if (rc)
			goto out;
	}
	if (!a.update && a.t.n == 1 &&
	    !vt_report_load_max(a.t.v[0], vt_cli.model.max_input, &cur, &err)) {
		vt_dbg(1, "comparing report '%s' with '%s'", a.t.v[0], a.baseline);
		rc = check_report_config(base, cur, a.baseline, a.t.v[0]);
		if (rc)
			goto out;
		if (vt_cli.strategies) {
			rc = vt_run_parse_strategies(vt_cli.strategies, &specs);
			if (!rc)
				rc = keep_strategies(base, &specs);
			if (rc)
				goto out;
		}
		goto compare;
	} else if (a.t.n == 1 && err.code != VT_ERR_TRACE_VERSION &&
		   err.code != VT_ERR_TRACE_SYNTAX && err.code != 0 && !a.update) {
		rc = vt_report_error(&err);
		goto out;
	}
	/* not a report: the same bytes again, as a trace */
	if (!a.update && a.t.n == 1 && !strcmp(a.t.v[0], "-") &&
	    lseek(STDIN_FILENO, stdin_start, SEEK_SET) < 0) {
		vt_err("cannot re-read standard input: %s", strerror(errno));
		rc = VT_EC_SYSTEM;
		goto out;
	}

	/* Traces: the baseline itself (a glob of its folder) is not one of
	 * them; a baseline from standard input has no folder but the
	 * current one. */
	have_bst = strcmp(a.baseline, "-") && !stat(a.baseline, &bst);
	inputs = calloc((size_t)a.t.n + 1, sizeof(*inputs));
	keys = calloc((size_t)a.t.n + 1, sizeof(*keys));
	if (!inputs || !keys) {
		rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		goto out;
	}
	for (int i = 0; i < a.t.n; i++) {
		if (have_bst && same_file(a.t.v[i], &bst)) {
			vt_dbg(1, "'%s' is the baseline, not a trace", a.t.v[i]);
			continue;
		}
		keys[n] = trace_key(a.baseline, a.t.v[i]);
		if (!keys[n]) {
			rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
			goto out;
		}
		for (int k = 0; k < n; k++)
			if (!strcmp(keys[k], keys[n])) {
				vt_err("gate: '%s' is given twice", a.t.v[i]);
				rc = VT_EC_USAGE;
				n++;
				goto out;
			}
		inputs[n++] = a.t.v[i];
	}
	if (!n) {
		vt_err("gate: no trace given (the baseline '%s' is not one)",
		       a.baseline);
		rc = VT_EC_USAGE;
		goto out;
	}
	rc = choose_model(&a, base, &specs);
	if (rc)
		goto out;
	/* The baseline's cost profile unless --profile names another, and its
	 * options as recorded (a profile's FEAT_TLBIRANGE included). */
	if (base) {
		if (!vt_cli.profile && vt_report_profile_name(base)) {
			vt_cli.profile = vt_report_profile_name(base);
			rc = check_base_profile(a.baseline, vt_cli.profile);
			if (rc)
				goto out;
		}
		vt_cli.tlbi_range_set = true;
	}
	rc = vt_run_load_profile();
	if (rc)
		goto out;
	cur = vt_report_new(&vt_cli.model, vt_cli.per_op);
	if (!cur) {
		rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		goto out;
	}
	if (!a.update && base) {
		/* traces the baseline does not have are not replayed */
		int m = 0;

		for (int i = 0; i < n; i++)
			if (vt_gate_key_match(base->traces, keys[i]) >= 0) {
				char *k = keys[i];

				inputs[m] = inputs[i];
				keys[i] = keys[m];
				keys[m++] = k;
			}
		rc = replay_traces(base, inputs, keys, m, &specs,
				   vt_cli.granule_set || vt_cli.va_bits_set, cur);
		for (int i = m; i < n && !rc; i++) {
			/* listed by the comparison as "not in the baseline",
			 * once it has read as a trace */
			json_t *t;

			rc = read_through(inputs[i]);
			if (rc)
				break;
			t = json_object();
			if (!t || put(t, "trace", json_string(keys[i])) ||
			    put(t, "strategies", json_array()) ||
			    append(cur->traces, t))
				rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		}
	} else {
		rc = replay_traces(base, inputs, keys, n, &specs,
				   vt_cli.granule_set || vt_cli.va_bits_set, cur);
	}
	if (rc)
		goto out;
	if (a.update) {
		rc = write_baseline(a.baseline, cur);
		if (!rc && base)
			warn_dropped(base, keys, n);
		goto out;
	}
compare:
	if (vt_gate_compare(base, cur, &a.g, &gate)) {
		rc = vt_err("out of memory") ? VT_EC_SYSTEM : 0;
		goto out;
	}
	rc = write_outputs(gate, &a);
	if (!rc && vt_gate_regressions(gate))
		rc = 1;
out:
	for (int i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
	free(inputs);
	vt_spec_list_release(&specs);
	vt_gate_free(gate);
	vt_report_free(cur);
	vt_report_free(base);
	return rc;
}
