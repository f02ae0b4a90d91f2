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
	struct vt_cli *cli;
	const char *baseline;
	struct vt_gate_opts g;
	bool update, rebaseline;
	const char *junit, *markdown;
	struct vt_trace_args t;
};

enum {
	OPT_BASELINE = 0x300, OPT_THRESHOLD, OPT_ALLOW_MISSING, OPT_UPDATE,
	OPT_REBASELINE, OPT_JUNIT, OPT_MARKDOWN, OPT_STRICT,
};

static const struct argp_option gate_options[] = {
	{ "baseline", OPT_BASELINE, "REPORT.json", 0,
	  "the report to compare against (required)", 0 },
	{ "threshold", OPT_THRESHOLD, "LIST", 0,
	  "METRIC:N or METRIC:N%[,...]: tolerance of a metric, absolute or "
	  "in percent of the baseline (counts are exact, cycles and ns 2%, "
	  "by default); a bare PCT sets that of cycles and ns", 0 },
	{ "strict", OPT_STRICT, NULL, 0,
	  "every count that moved beyond its tolerance fails, whatever its "
	  "direction (by default only work or cost that rose fails)", 0 },
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
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
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
	case OPT_STRICT:
		a->g.strict = true;
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
	       "Every count is compared exactly per trace and strategy: work or "
	       "estimated cost that rose is a regression; an improvement or a "
	       "neutral count that moved (cont_ranges, pages_allocated) is "
	       "listed and does not fail, unless --strict.  Given traces "
	       "instead of a report, gate replays them with the baseline's "
	       "strategies, options and geometry; traces are matched exactly by "
	       "their path relative to the baseline's folder, and one on a "
	       "side only is missing.  "
	       "Exit status: 0 no regression, 1 regression or missing trace, 2 usage (options "
	       "that differ from the baseline's), 3 bad baseline or trace, "
	       "4 system error.",
	.children = vt_common_children,
};

/* ---- trace keys ------------------------------------------------------ */

/*
 * @path as an absolute path, as written: relative paths from folder @dir
 * (itself from the current folder), "." and empty components dropped and
 * ".." taking off the component before it, symbolic links not followed
 * (so that "traces/x.json" through a linked "traces" stays under it).
 * NULL when out of memory or the current folder cannot be named.
 */
static char *lexical_abs(const char *dir, const char *path)
{
	char cwd[PATH_MAX], *joined = NULL, *out, *save = NULL, *c;
	size_t n = 0;
	int r;

	if (path[0] == '/')
		r = asprintf(&joined, "%s", path);
	else if (dir[0] == '/')
		r = asprintf(&joined, "%s/%s", dir, path);
	else if (getcwd(cwd, sizeof(cwd)))
		r = asprintf(&joined, "%s/%s/%s", cwd, dir, path);
	else
		return NULL;
	if (r < 0)
		return NULL;
	out = malloc(strlen(joined) + 2);
	for (c = strtok_r(joined, "/", &save); out && c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n && out[--n] != '/')
				;
			continue;
		}
		out[n++] = '/';
		strcpy(out + n, c);
		n += strlen(c);
	}
	if (out && !n)
		out[n++] = '/';
	if (out)
		out[n] = '\0';
	free(joined);
	return out;
}

/* The folder of file @file ("." for a bare name or "-"), into @buf. */
static const char *folder_of(const char *file, char *buf, size_t len)
{
	const char *slash = strrchr(file, '/');

	snprintf(buf, len, "%.*s", slash ? (int)(slash - file) : 1,
		 slash ? (slash == file ? "/" : file) : ".");
	return buf;
}

/*
 * The key of trace @path, read from folder @from: its path relative to
 * the folder of the baseline @baseline ("default.json",
 * "test_vmalloc/x.json", "../other/t.json"), the same from every working
 * directory; both as written (lexical_abs()).  Standard input is "-".
 * Falls back to @path as given when the current folder cannot be named.
 */
static char *key_from(const char *baseline, const char *from, const char *path)
{
	char dir[PATH_MAX], *bdir, *t, *key = NULL;
	size_t common = 0, i, len;
	FILE *f;

	if (!strcmp(path, "-"))
		return strdup(path);
	bdir = lexical_abs(".", folder_of(baseline, dir, sizeof(dir)));
	t = lexical_abs(from, path);
	if (!t || !bdir) {
		free(t);
		free(bdir);
		return strdup(path);
	}
	if (!strcmp(bdir, "/"))
		bdir[0] = '\0';
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

/* The key of trace operand @path (from the current folder). */
static char *trace_key(const char *baseline, const char *path)
{
	return key_from(baseline, ".", path);
}

/*
 * The keys of a report's traces, the baseline's and one given as the
 * current numbers alike: its trace paths are relative to its own folder
 * (as --update-baseline and `replay -j -o` in that folder write them), so
 * each becomes the key it has from the baseline's folder (key_from()): a
 * report next to the baseline keeps its relative paths, an absolute path
 * becomes relative.
 */
static int rekey_report(const char *baseline, const char *report,
			struct vt_report *cur)
{
	char dir[PATH_MAX];
	json_t *t;
	size_t i;

	folder_of(report, dir, sizeof(dir));
	json_array_foreach(cur->traces, i, t) {
		const char *p = json_string_value(json_object_get(t, "trace"));
		char *k = p ? key_from(baseline, dir, p) : NULL;

		if (p && (!k || json_object_set_new(t, "trace", json_string(k)))) {
			free(k);
			return vt_err_oom_exit();
		}
		free(k);
	}
	return 0;
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
static int option_diffs(FILE *f, const struct vt_cli *cli,
			const struct vt_model_opts *cur,
			const struct vt_model_opts *base, bool given)
{
	int n = 0;

	if ((!given || cli->kernel_given) && cur->kernel != base->kernel)
		fprintf(f, "%s--kernel=%s (baseline %s)", n++ ? ", " : "",
			vt_kernels[cur->kernel].name, vt_kernels[base->kernel].name);
	for (int i = 0; i < VT_OPT__NR; i++) {
		const struct vt_option *t = &vt_options[i];
		unsigned int x = vt_option_get(cur, (enum vt_option_id)i);
		unsigned int y = vt_option_get(base, (enum vt_option_id)i);
		char a[64], b[64];

		if (x == y || (given && !cli->opt_given[i] &&
			       !(cli->kernel_given && t->kernel[cur->kernel])))
			continue;
		opt_word(t, x, a, sizeof(a));
		opt_word(t, y, b, sizeof(b));
		/* one the command line did not type: --kernel set it */
		fprintf(f, "%s--%s=%s (baseline %s%s%s)", n++ ? ", " : "", t->name, a, b,
			given && !cli->opt_given[i] ? "; by --kernel=" : "",
			given && !cli->opt_given[i] ? vt_kernels[cur->kernel].name : "");
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
static const char *given_profile_name(const struct vt_cli *cli,
				      struct vt_profile *p, int *rc)
{
	struct vt_error err;

	*rc = 0;
	if (!cli->profile)
		return NULL;
	vt_error_init(&err);
	if (vt_profile_load(cli->profile, p, &err)) {
		vt_run_profile_hint(&err, cli->profile);
		*rc = vt_report_error(&err);
		return NULL;
	}
	return p->name;
}

/* ---- the current report ------------------------------------------------ */

/* Replay @inputs (keys @keys) into @cur under @o; each trace with the
 * baseline's geometry for it, unless given or not in the baseline. */
static int replay_traces(const struct vt_run_opts *o, const struct vt_report *base,
			 char **inputs, char **keys, int n,
			 const struct vt_spec_list *specs, struct vt_report *cur)
{
	struct vt_run_opts one = *o;
	int rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		long at = base ? vt_gate_key_match(base->traces, keys[i]) : -1;
		size_t last = json_array_size(cur->traces);

		one.model.page_shift = o->model.page_shift;
		one.model.va_bits = o->model.va_bits;
		one.geometry_given = o->geometry_given;
		if (!o->geometry_given && at >= 0) {
			vt_report_trace_geometry(base, (size_t)at,
						 &one.model.page_shift,
						 &one.model.va_bits);
			one.geometry_given = true;
		}
		rc = vt_run_traces(&one, inputs + i, 1, specs, cur, false, NULL);
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
static int keep_strategies(struct vt_report *base, const char *list,
			   const struct vt_spec_list *specs)
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
			       "(add it with --update-baseline)", list,
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

/*
 * Appends the traces of @cur whose geometry is not the one its baseline
 * entry had ("default.json: geometry 4k/52 (baseline 4k/48)"): per trace
 * (matched by key), so that the order of the traces, which decides the
 * top-level config, does not matter.  Unmatched ones are the
 * comparison's to list as missing.
 */
static int geometry_diffs(FILE *f, int n, const struct vt_report *base,
			  const struct vt_report *cur)
{
	for (size_t i = 0; i < vt_report_nr_traces(base); i++) {
		const char *key = vt_report_trace_path(base, i);
		long at = key ? vt_gate_key_match(cur->traces, key) : -1;
		unsigned int bps, bva, cps, cva;

		if (at < 0)
			continue;
		vt_report_trace_geometry(base, i, &bps, &bva);
		vt_report_trace_geometry(cur, (size_t)at, &cps, &cva);
		if (bps != cps || bva != cva)
			fprintf(f, "%s%s: geometry %s/%u (baseline %s/%u)",
				n++ ? ", " : "", key, vt_granule_name(cps), cva,
				vt_granule_name(bps), bva);
	}
	return n;
}

/* A report given as the current numbers must have been made as the
 * baseline was (geometry of each trace, generation, options). */
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
		return vt_err_oom_exit();
	n = option_diffs(f, NULL, &co, &bo, false);
	n += profile_diff(f, n, vt_report_profile_name(cur), vt_report_profile_name(base));
	if (vt_report_cost_of(cur))	/* the baseline's is refused by cmd_gate() */
		fprintf(f, "%s--cost-of=%s (baseline all)", n++ ? ", " : "",
			vt_report_cost_of(cur));
	n = geometry_diffs(f, n, base, cur);
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
static int read_through(const struct vt_model_opts *m, const char *path)
{
	struct vt_trace_read_opts ro = { .skip_unknown = m->skip_unknown,
					 .max_input = m->max_input };
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
		return vt_err_oom_exit();
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

/* @g written to @path by @fn, or as the report of --format @fmt when @fn
 * is NULL. */
static int write_file(const char *path, const struct vt_gate *g,
		      enum vt_format fmt, int (*fn)(const struct vt_gate *, FILE *))
{
	FILE *f = vt_out_open(path);
	int wr, rc;

	if (!f)
		return VT_EC_SYSTEM;
	wr = fn ? fn(g, f) : vt_gate_write(g, f, fmt);
	rc = vt_out_close(f, path, true);
	if (wr && !rc) {
		vt_err("cannot write '%s': %s", path, strerror(-wr));
		rc = VT_EC_SYSTEM;
	}
	return rc;
}

static int write_outputs(const struct vt_gate *g, const struct gate_args *a)
{
	int rc = write_file(a->cli->output, g, a->cli->format, NULL);

	if (!rc && a->junit)
		rc = write_file(a->junit, g, 0, vt_gate_write_junit);
	if (!rc && a->markdown)
		rc = write_file(a->markdown, g, 0, vt_gate_write_markdown);
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
	rc = vt_out_close(f, path, true);
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

/* What gate replays with, from the baseline and the command line. */
struct gate_model {
	int rc;				/* 0, or the exit code (reported) */
	struct vt_model_opts model;
	bool per_op;
	const char *profile;		/* the profile to load; NULL: the default */
	struct vt_spec_list specs;
};

/* The options of @given (the command line's) that --update-baseline keeps
 * from the old baseline @bo: those the command line did not give. */
static void keep_baseline_options(const struct vt_cli *cli,
				  struct vt_model_opts *given,
				  const struct vt_model_opts *bo)
{
	for (int i = 0; i < VT_OPT__NR; i++)
		if (!cli->opt_given[i] &&
		    !(cli->kernel_given && vt_options[i].kernel[given->kernel]))
			vt_option_set(given, (enum vt_option_id)i,
				      vt_option_get(bo, (enum vt_option_id)i));
	if (!cli->kernel_given)
		given->kernel = bo->kernel;
}

/*
 * The model, --per-op and profile to replay with when there is a baseline
 * @base: a usage error when the command line differs from it and we are
 * gating (not re-blessing, nor --rebaseline-options).  *@list: the
 * baseline's strategy list (free()).
 */
static int model_from_baseline(const struct gate_args *a, struct vt_report *base,
			       struct gate_model *m, char **list)
{
	const struct vt_cli *cli = a->cli;
	struct vt_model_opts bo;
	struct vt_profile prof;
	struct vt_error err;
	char *msg = NULL;
	const char *pname;
	size_t len;
	FILE *f;
	int n, np, rc;

	pname = given_profile_name(cli, &prof, &rc);
	if (rc)
		return rc;
	vt_error_init(&err);
	if (vt_report_setup(base, &bo, list, &m->per_op, &err)) {
		snprintf(err.file, sizeof(err.file), "%s", a->baseline);
		return vt_report_error(&err);
	}
	f = open_memstream(&msg, &len);
	if (!f)
		return vt_err_oom_exit();
	n = option_diffs(f, cli, &m->model, &bo, true);
	np = profile_diff(f, n, pname, vt_report_profile_name(base));
	n += np;
	if (!a->update && (cli->granule_set || cli->va_bits_set) &&
	    (m->model.page_shift != base->page_shift ||
	     m->model.va_bits != base->va_bits))
		fprintf(f, "%s--granule=%s --va-bits=%u (baseline %s, %u)",
			n++ ? ", " : "", vt_granule_name(m->model.page_shift),
			m->model.va_bits, vt_granule_name(base->page_shift),
			base->va_bits);
	if (fclose(f))
		n = 0;
	rc = 0;
	if (a->update) {
		/* what the command line gives wins, the rest is kept */
		keep_baseline_options(cli, &m->model, &bo);
		if (n)
			vt_info("gate: new options for the baseline: %s", msg);
		m->per_op |= cli->per_op;
	} else if (n && !a->rebaseline) {
		vt_err("gate: the command line differs from the baseline: %s; "
		       "give the baseline's options, --rebaseline-options to "
		       "replay with them, or --update-baseline to re-bless",
		       msg);
		rc = VT_EC_USAGE;
	} else {
		if (n)
			vt_info("gate: replaying with the baseline's options, "
				"not the command line's: %s", msg);
		bo.page_shift = m->model.page_shift;
		bo.va_bits = m->model.va_bits;
		m->model = bo;
		if (np)		/* the baseline's profile */
			m->profile = NULL;
	}
	free(msg);
	return rc;
}

/* The model and strategy list to replay with, from the baseline (NULL:
 * none yet) and the command line. */
static struct gate_model choose_model(const struct gate_args *a,
				      struct vt_report *base)
{
	const struct vt_cli *cli = a->cli;
	struct gate_model m = { .model = cli->model, .per_op = cli->per_op,
				.profile = cli->profile };
	char *list = NULL;

	if (base)
		m.rc = model_from_baseline(a, base, &m, &list);
	if (!m.rc)
		m.rc = vt_run_parse_strategies(cli->strategies ? cli->strategies : list,
					       &m.specs);
	free(list);
	if (m.rc)
		return m;
	if (base && !a->update && cli->strategies) {
		m.rc = keep_strategies(base, cli->strategies, &m.specs);
		if (m.rc)
			vt_spec_list_release(&m.specs);
	}
	return m;
}

/* ---- the three modes ---------------------------------------------------- */

/* Compare @cur with @base and write the outputs: 1 when anything regressed
 * or a trace is missing (without --allow-missing). */
static int compare_and_write(const struct gate_args *a, const struct vt_report *base,
			     const struct vt_report *cur)
{
	struct vt_gate *gate = NULL;
	int rc;

	if (vt_gate_compare(base, cur, &a->g, &gate))
		return vt_err_oom_exit();
	rc = write_outputs(gate, a);
	if (!rc && vt_gate_failed(gate))
		rc = 1;
	vt_gate_free(gate);
	return rc;
}

/* Gate a report @cur (read from the one operand) against @base. */
static int gate_report(const struct gate_args *a, struct vt_report *base,
		       struct vt_report *cur)
{
	const struct vt_cli *cli = a->cli;
	struct vt_spec_list specs = { NULL, 0 };
	int rc;

	vt_dbg(1, "comparing report '%s' with '%s'", a->t.v[0], a->baseline);
	rc = rekey_report(a->baseline, a->t.v[0], cur);
	if (!rc)
		rc = check_report_config(base, cur, a->baseline, a->t.v[0]);
	if (!rc && cli->strategies) {
		rc = vt_run_parse_strategies(cli->strategies, &specs);
		if (!rc)
			rc = keep_strategies(base, cli->strategies, &specs);
	}
	if (!rc)
		rc = compare_and_write(a, base, cur);
	vt_spec_list_release(&specs);
	return rc;
}

/* The traces among the operands, their keys, and the cost profile the
 * current report points at. */
struct gate_traces {
	char **inputs, **keys;
	int n;
	struct vt_profile profile;
};

static void gate_traces_release(struct gate_traces *t)
{
	for (int i = 0; t->keys && i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->inputs);
}

/* Traces: the baseline itself (a glob of its folder) is not one of them,
 * nor another report (skipped with a note);
 * a baseline from standard input has no folder but the current one. */
static int collect_traces(const struct gate_args *a, struct gate_traces *t)
{
	struct stat bst;
	bool have_bst = strcmp(a->baseline, "-") && !stat(a->baseline, &bst);

	t->inputs = calloc((size_t)a->t.n + 1, sizeof(*t->inputs));
	t->keys = calloc((size_t)a->t.n + 1, sizeof(*t->keys));
	if (!t->inputs || !t->keys)
		return vt_err_oom_exit();
	for (int i = 0; i < a->t.n; i++) {
		if (have_bst && same_file(a->t.v[i], &bst)) {
			vt_dbg(1, "'%s' is the baseline, not a trace", a->t.v[i]);
			continue;
		}
		if (a->t.n > 1 && vt_run_is_report(a->t.v[i])) {
			/* another baseline or report beside the traces (one
			 * operand alone is read as it is, load_current()) */
			vt_info("gate: skipping '%s': a vmaptool report, not a trace "
				"(the baseline is '%s')", a->t.v[i], a->baseline);
			continue;
		}
		t->keys[t->n] = trace_key(a->baseline, a->t.v[i]);
		if (!t->keys[t->n])
			return vt_err_oom_exit();
		for (int k = 0; k < t->n; k++)
			if (!strcmp(t->keys[k], t->keys[t->n])) {
				vt_err("gate: '%s' is given twice", a->t.v[i]);
				t->n++;
				return VT_EC_USAGE;
			}
		t->inputs[t->n++] = a->t.v[i];
	}
	if (!t->n) {
		vt_err("gate: no trace given (the baseline '%s' is not one)",
		       a->baseline);
		return VT_EC_USAGE;
	}
	return 0;
}

/*
 * Replay the traces into a new report *@cur under the baseline's model
 * (choose_model()).  Gating, traces the baseline does not have are not
 * replayed but read through, and listed as "not in the baseline".
 */
static int replay_current(const struct gate_args *a, struct vt_report *base,
			  struct gate_traces *t, struct vt_report **cur)
{
	struct gate_model m = choose_model(a, base);
	struct vt_run_opts o;
	int rc = m.rc, n = t->n;

	if (rc)
		return rc;
	/* The baseline's cost profile unless --profile names another, and its
	 * options as recorded (a profile's FEAT_TLBIRANGE included). */
	if (base && !m.profile && vt_report_profile_name(base)) {
		m.profile = vt_report_profile_name(base);
		rc = check_base_profile(a->baseline, m.profile);
	}
	vt_run_opts_init(&o, a->cli);
	o.model = m.model;
	o.per_op = m.per_op;
	if (!rc)
		rc = vt_run_use_profile(&o, &t->profile, m.profile, base != NULL);
	if (!rc && !(*cur = vt_report_new(&o.model, o.per_op)))
		rc = vt_err_oom_exit();
	if (!rc && !a->update && base) {
		/* traces the baseline does not have are not replayed */
		n = 0;
		for (int i = 0; i < t->n; i++)
			if (vt_gate_key_match(base->traces, t->keys[i]) >= 0) {
				char *k = t->keys[i], *in = t->inputs[i];

				/* both swapped: the unmatched ones are read
				 * below, each as itself */
				t->inputs[i] = t->inputs[n];
				t->inputs[n] = in;
				t->keys[i] = t->keys[n];
				t->keys[n++] = k;
			}
	}
	if (!rc)
		rc = replay_traces(&o, base, t->inputs, t->keys, n, &m.specs, *cur);
	for (int i = n; i < t->n && !rc; i++) {
		/* listed by the comparison as "not in the baseline",
		 * once it has read as a trace */
		json_t *tr;

		rc = read_through(&o.model, t->inputs[i]);
		if (rc)
			break;
		tr = json_object();
		if (!tr || put(tr, "trace", json_string(t->keys[i])) ||
		    put(tr, "strategies", json_array()) ||
		    append((*cur)->traces, tr))
			rc = vt_err_oom_exit();
	}
	vt_spec_list_release(&m.specs);
	return rc;
}

/* Gate (or with --update-baseline re-bless) the traces among the operands. */
static int gate_traces(const struct gate_args *a, struct vt_report *base)
{
	struct gate_traces t = { .n = 0 };
	struct vt_report *cur = NULL;
	int rc = collect_traces(a, &t);

	if (!rc)
		rc = replay_current(a, base, &t, &cur);
	if (!rc && a->update) {
		rc = write_baseline(a->baseline, cur);
		if (!rc && base)
			warn_dropped(base, t.keys, t.n);
	} else if (!rc) {
		rc = compare_and_write(a, base, cur);
	}
	vt_report_free(cur);
	gate_traces_release(&t);
	return rc;
}

/*
 * The one operand: a report, or else a trace.  A report is gated as it
 * is; anything else is read again from its start as a trace.  *@cur: the
 * report, or NULL with 0 returned for a trace.
 */
static int load_current(const struct gate_args *a, struct vt_report **cur)
{
	const struct vt_model_opts *m = &a->cli->model;
	bool from_stdin = !strcmp(a->t.v[0], "-");
	struct vt_error err;
	off_t stdin_start = 0;
	int rc;

	*cur = NULL;
	if (from_stdin) {
		rc = stdin_rereadable(m->max_input ? m->max_input :
				      VT_MAX_INPUT_DEFAULT, &stdin_start);
		if (rc)
			return rc;
	}
	vt_error_init(&err);
	if (!vt_report_load_max(a->t.v[0], m->max_input, cur, &err))
		return 0;
	*cur = NULL;
	if (err.code != VT_ERR_TRACE_VERSION && err.code != VT_ERR_TRACE_SYNTAX &&
	    err.code != 0)
		return vt_report_error(&err);
	/* not a report: the same bytes again, as a trace */
	if (from_stdin && lseek(STDIN_FILENO, stdin_start, SEEK_SET) < 0) {
		vt_err("cannot re-read standard input: %s", strerror(errno));
		return VT_EC_SYSTEM;
	}
	return 0;
}

int cmd_gate(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool gate";
	struct gate_args a = { .cli = cli };
	struct vt_report *base = NULL, *cur = NULL;
	struct vt_error err;
	int rc, stdin_users = 0;

	argv[0] = name;
	vt_gate_opts_init(&a.g);
	rc = argp_parse(&gate_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	rc = vt_cli_vmlinux_apply(cli, true, name);
	if (rc)
		return rc;
	if ((rc = vt_out_check(cli, (struct vt_io[]){ { "--baseline", a.baseline,
		VT_IO_READ | (a.update ? VT_IO_WRITE : 0) }, { "--junit", a.junit,
		VT_IO_WRITE }, { "--markdown", a.markdown, VT_IO_WRITE } }, 3,
				a.t.v, a.t.n, "input")))
		return rc;
	/* "-" is standard input, for the baseline as for every input; it
	 * can be read once */
	for (int i = 0; i < a.t.n; i++)
		if (!strcmp(a.t.v[i], "-") &&
		    (!strcmp(a.baseline, "-") || stdin_users++)) {
			vt_err("gate: standard input ('-') is given twice");
			return VT_EC_USAGE;
		}
	vt_error_init(&err);
	if (vt_report_load_max(a.baseline, cli->model.max_input, &base, &err)) {
		if (!(a.update && err.code == -ENOENT)) {
			/* the first run of a new gate: say how to make one */
			if (err.code == -ENOENT)
				snprintf(err.msg + strlen(err.msg), sizeof(err.msg) - strlen(err.msg),
					 " (a first baseline is made by 'vmaptool gate "
					 "--update-baseline --baseline=%s TRACE...')", a.baseline);
			return vt_report_error(&err);
		}
		base = NULL;
	}
	if (base && !a.update && vt_report_cost_of(base)) {
		/* gate's replay estimates the whole work (--cost-of is not one
		 * of its options): a part of it would read as a regression */
		vt_err("gate: the baseline '%s' estimates a part of the work only "
		       "(made with --cost-of=%s); gate compares whole estimates: "
		       "make the baseline with 'vmaptool gate --update-baseline'",
		       a.baseline, vt_report_cost_of(base));
		vt_report_free(base);
		return VT_EC_USAGE;
	}
	if (base && (rc = rekey_report(a.baseline, a.baseline, base))) {
		vt_report_free(base);
		return rc;
	}
	/* One argument that is a report; otherwise traces. */
	if (!a.update && a.t.n == 1)
		rc = load_current(&a, &cur);
	if (!rc)
		rc = cur ? gate_report(&a, base, cur) : gate_traces(&a, base);
	vt_report_free(cur);
	vt_report_free(base);
	return rc;
}
