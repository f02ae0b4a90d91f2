// SPDX-License-Identifier: GPL-2.0
/*
 * Replaying traces for replay, compare and gate: strategy lists, the
 * replay request under the common options, the --jobs pool, --per-event
 * lines, and publishing the output only when every trace replayed.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/run.h"
#include "core/cost/profile.h"
#include "core/pool.h"
#include "core/strategy/registry.h"

/*
 * @name with its first '+' part that is no axis replaced by the axis it
 * is likely a typo of, into @buf; NULL if it has none or no axis is close.
 */
static const char *suggest_axis(const char *name, char *buf, size_t size)
{
	const char *names[32];
	size_t n = 0;

	for (unsigned int b = 0; b < 32; b++)
		if (vt_axis_name(1u << b))
			names[n++] = vt_axis_name(1u << b);
	for (const char *p = strchr(name, '+'); p; p = strchr(p, '+')) {
		int len = (int)strcspn(++p, "+");
		const char *hint = NULL;
		bool known = false;
		char part[96];

		snprintf(part, sizeof(part), "%.*s", len, p);
		for (size_t i = 0; i < n; i++)
			known |= !strcmp(names[i], part);
		if (known)
			continue;
		hint = vt_suggest(part, names, n);
		if (!hint)
			return NULL;
		snprintf(buf, size, "%.*s%s%s", (int)(p - name), name, hint, p + len);
		return buf;
	}
	return NULL;
}

const char *vt_run_suggest_strategy(const char *name, char *buf, size_t size)
{
	const struct vt_strategy_info *in = vt_strategy_infos();
	const char *names[64];
	char base[96];
	size_t n = 0;

	snprintf(base, sizeof(base), "%.*s", (int)strcspn(name, "@:+"), name);
	for (; in->name && n < 64; in++) {
		if (!strcmp(in->name, base))	/* the name is right, its suffix is not */
			return suggest_axis(name, buf, size);
		names[n++] = in->name;
	}
	return vt_suggest(base, names, n);
}

int vt_run_parse_strategies(const char *list, struct vt_spec_list *out)
{
	const char *p = list ? list : vt_strategy_default_list();
	unsigned int cap = 1;
	struct vt_error err;

	out->v = NULL;
	out->nr = 0;
	for (const char *c = p; *c; c++)
		cap += *c == ',';
	out->v = calloc(cap, sizeof(*out->v));
	if (!out->v) {
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		char name[128];

		if (!len) {
			vt_err("empty strategy name in --strategy '%s'", list ? list : "");
			goto usage;
		}
		if (len >= sizeof(name)) {
			vt_err("strategy name '%.*s...' is too long", 32, p);
			goto usage;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		vt_error_init(&err);
		if (vt_strategy_parse(name, &out->v[out->nr], &err) < 0) {
			char fix[256];
			const char *hint = vt_run_suggest_strategy(name, fix, sizeof(fix));
			const char *why = err.msg[0] ? err.msg :
					  vt_strerror(err.code, err.msg, sizeof(err.msg));
			char quoted[sizeof(name) + 32];

			/* the registry's reasons may start with the name: said once */
			snprintf(quoted, sizeof(quoted), "'%s': ", name);
			if (!strncmp(why, quoted, strlen(quoted)))
				why += strlen(quoted);
			/* "unknown strategy 'foo'" names it already */
			if (!strncmp(why, "unknown strategy '", 18))
				snprintf(quoted, sizeof(quoted), "%s", "");
			else
				snprintf(quoted, sizeof(quoted), "invalid strategy '%s': ", name);
			vt_err("%s%s; %s%s%ssee 'vmaptool strategies'",
			       quoted, why,
			       hint ? "did you mean '" : "", hint ? hint : "",
			       hint ? "'? " : "");
			goto usage;
		}
		/* the same strategy under two spellings (an alias, the digits
		 * of a patch set in another order, batched = batched@12345678)
		 * is given twice too: compare what the names resolve to */
		for (unsigned int i = 0; i < out->nr; i++) {
			const struct vt_strategy_spec *x = &out->v[i], *y = &out->v[out->nr];

			if (x->strat != y->strat || x->patches != y->patches ||
			    x->force != y->force || x->axes != y->axes)
				continue;
			if (!strcmp(x->name, y->name))
				vt_err("strategy '%s' given twice", name);
			else
				vt_err("strategies '%s' and '%s' are the same strategy, "
				       "given twice", x->name, name);
			goto usage;
		}
		out->nr++;
		p += len;
		if (!*p)
			break;
		p++;
	}
	return 0;
usage:
	vt_spec_list_release(out);
	return VT_EC_USAGE;
}

void vt_spec_list_release(struct vt_spec_list *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = 0;
}

void vt_run_profile_hint(struct vt_error *err, const char *word)
{
	char **names, hint[512] = "";
	unsigned int nr, prefixed = 0;
	struct vt_error e2;

	if (err->code != VT_ERR_NO_PROFILE)
		return;
	vt_error_init(&e2);
	if (vt_profile_names(&names, &nr, &e2))
		return;
	/* every built-in name that @word begins ("rk3588": both RK3588 cores) */
	for (unsigned int i = 0; i < nr; i++)
		if (strlen(word) >= 3 && !strncmp(names[i], word, strlen(word)))
			snprintf(hint + strlen(hint), sizeof(hint) - strlen(hint), "%s'%s'",
				 prefixed++ ? " or " : "", names[i]);
	if (!prefixed) {
		const char *s = vt_suggest(word, (const char *const *)names, nr);

		if (s)
			snprintf(hint, sizeof(hint), "'%s'", s);
	}
	/* as for a command or a strategy: "did you mean 'x'? see ..." */
	snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
		 "; %s%s%ssee 'vmaptool profiles'", hint[0] ? "did you mean " : "",
		 hint, hint[0] ? "? " : "");
	vt_profile_names_free(names, nr);
}

void vt_run_opts_init(struct vt_run_opts *o, const struct vt_cli *cli)
{
	memset(o, 0, sizeof(*o));
	o->cli = cli;
	o->model = cli->model;
	/*
	 * One of the pair given: the other keeps its default (4k, 48) and the
	 * pair overrides the trace's config.  Neither given: the trace's
	 * config wins where it has one, and the defaults fill the rest.
	 */
	o->geometry_given = cli->granule_set || cli->va_bits_set;
	o->per_op = cli->per_op;
}

int vt_run_use_profile(struct vt_run_opts *o, struct vt_profile *store,
		       const char *name, bool model_fixed)
{
	struct vt_error err;

	vt_error_init(&err);
	if (vt_profile_load(name ? name : VT_PROFILE_DEFAULT, store, &err)) {
		/* the default profile missing is a broken install, not a usage error */
		if (!name && err.code == VT_ERR_NO_PROFILE)
			err.code = -ENOENT;
		else if (name)
			vt_run_profile_hint(&err, name);
		return vt_report_error(&err);
	}
	o->profile = store;
	if (o->cli->erratum_4118414) {	/* --erratum-4118414 overrides the profile */
		store->erratum_4118414 = o->cli->erratum_4118414 == 1;
		store->erratum_overridden = true;
	}
	store->cost_of = o->cli->cost_of;	/* --cost-of: a part of the work */
	if (store->tlbi_range && !model_fixed &&
	    !o->cli->opt_given[VT_OPT_tlbi_range])
		o->model.tlbi_range = true;
	return 0;
}

void vt_run_req_init(struct vt_replay_req *req, const struct vt_run_opts *o,
		     const struct vt_spec_list *specs, const char *path)
{
	memset(req, 0, sizeof(*req));
	req->path = path;
	req->specs = specs->v;
	req->nr_specs = specs->nr;
	req->opts = &o->model;
	req->geometry_from_cli = o->geometry_given;
	req->stop_after = -1;
	req->profile = o->profile;
}

/* ---- callbacks ------------------------------------------------------ */

#define MISMAP_REPORTS 10	/* per trace; the total is in the report */

struct run_ctx {
	const struct vt_run_opts *o;
	const char *trace;
	const struct vt_spec_list *specs;
	FILE *per_event;
	int write_err;
	unsigned long mismaps;
};

static void on_event(void *ctx, long index, unsigned int strat, const char *op,
		     const struct vt_event *ev, uint64_t va,
		     const struct vt_stats *delta, const struct vt_shape *shape)
{
	struct run_ctx *c = ctx;

	if (!c->per_event || c->write_err)
		return;
	c->write_err = vt_report_event_line(c->per_event, index,
					    c->specs->v[strat].name, op, ev,
					    va, delta, shape,
					    c->o->model.verify);
}

static void on_mismap(void *ctx, long index, unsigned int strat,
		      uint64_t first_va, uint64_t expected_pa,
		      uint64_t found_pa, uint64_t pages)
{
	struct run_ctx *c = ctx;

	if (c->mismaps++ < MISMAP_REPORTS)
		vt_warn("%s: event %ld: %s: %llu page%s mismapped at va 0x%llx "
			"(expected pa 0x%llx, found 0x%llx)", c->trace, index,
			c->specs->v[strat].name, (unsigned long long)pages,
			pages == 1 ? "" : "s", (unsigned long long)first_va,
			(unsigned long long)expected_pa,
			(unsigned long long)found_pa);
	else if (c->mismaps == MISMAP_REPORTS + 1)
		vt_warn("%s: more mismapped pages; see mismapped_pages in the report",
			c->trace);
}

static void on_progress(void *ctx, long events, bool done)
{
	struct run_ctx *c = ctx;

	vt_progress(c->trace, events, done);
}

/*
 * The trace reader's warnings (vt_trace_warnings()): lines that each name
 * their place (FILE:LINE: ..., the last perhaps the cap's "more than N
 * distinct unknown names"), so each is a warning of its own.
 */
static void on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	while (*msg) {
		const char *nl = strchr(msg, '\n');
		int len = nl ? (int)(nl - msg) : (int)strlen(msg);

		if (len)
			vt_warn("%.*s", len, msg);
		msg += len + (nl != NULL);
	}
}

/* The first bytes of @f, xz-decoded when it is xz (its magic FD '7zXZ' 00);
 * how many, or 0. */
static size_t head_bytes(FILE *f, unsigned char *buf, size_t len, bool *xz)
{
	static const unsigned char xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	unsigned char in[4096];
	lzma_stream z = LZMA_STREAM_INIT;
	size_t n = fread(in, 1, sizeof(in), f);
	lzma_ret r;

	*xz = n >= sizeof(xz_magic) && !memcmp(in, xz_magic, sizeof(xz_magic));
	if (!*xz) {
		n = n < len ? n : len;
		memcpy(buf, in, n);
		return n;
	}
	if (lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK)
		return 0;
	z.next_in = in;
	z.avail_in = n;
	z.next_out = buf;
	z.avail_out = len;
	do {
		r = lzma_code(&z, LZMA_RUN);
		if (!z.avail_in && z.avail_out && r == LZMA_OK) {
			z.avail_in = fread(in, 1, sizeof(in), f);
			z.next_in = in;
			if (!z.avail_in)
				break;
		}
	} while (r == LZMA_OK && z.avail_out);
	n = len - z.avail_out;
	lzma_end(&z);
	return n;
}

/* An ftrace text line: "TASK-PID [CPU] ... SECONDS.MICROS: event..." */
static bool ftrace_event_line(const char *l, const char *end)
{
	const char *p = memchr(l, '[', (size_t)(end - l));

	if (!p || p == l || p[-1] != ' ' || !memchr(l, '-', (size_t)(p - l)))
		return false;
	for (p++; p < end && *p >= '0' && *p <= '9'; p++)
		;
	if (p >= end || *p != ']')
		return false;
	/* the timestamp: digits '.' digits ':' */
	for (; p < end; p++) {
		const char *q = p;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > p && q < end && *q == '.') {
			const char *r = ++q;

			while (q < end && *q >= '0' && *q <= '9')
				q++;
			if (q > r && q < end && *q == ':')
				return true;
		}
	}
	return false;
}

void vt_run_explain(const char *path, struct vt_error *err)
{
	static const char magic[] = "\027\010\104tracing";	/* trace-cmd */
	unsigned char head[4096];
	const char *what = NULL;
	bool xz;
	size_t n;
	FILE *f;

	if (err->code != VT_ERR_TRACE_SYNTAX && err->code != VT_ERR_TRACE_VERSION &&
	    err->code != VT_ERR_TRACE_SCHEMA)
		return;
	f = fopen(path, "rb");
	if (!f)
		return;
	n = head_bytes(f, head, sizeof(head), &xz);
	fclose(f);
	if (n >= sizeof(magic) - 1 && !memcmp(head, magic, sizeof(magic) - 1)) {
		what = "a trace-cmd recording";
	} else {
		/* ftrace text: its "# tracer:" header, trace-cmd report's
		 * "cpus=N", or a typical event line among the first */
		const char *p = (const char *)head, *end = p + n;

		for (int lines = 0; p < end && lines < 32 && !what; lines++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;

			if ((le - p >= 9 && !memcmp(p, "# tracer:", 9)) ||
			    (le - p > 5 && !memcmp(p, "cpus=", 5)) ||
			    (*p != '{' && *p != '#' && ftrace_event_line(p, le)))
				what = xz ? "an ftrace text recording (xz-compressed)" :
					    "an ftrace text recording";
			if (!nl)
				break;
			p = nl + 1;
		}
	}
	if (!what)
		return;
	snprintf(err->file, sizeof(err->file), "%s", path);
	err->line = err->column = 0;
	vt_error_set(err, VT_ERR_TRACE_SYNTAX, "this is %s, not a trace: run "
		     "'vmaptool import %s -o trace.json' and replay trace.json",
		     what, path);
}

/*
 * Whether the top-level object in @p[0..@n) has "format": "@want" (keys in
 * any order, nested objects and strings skipped).
 */
static bool top_format_is(const char *p, size_t n, const char *want)
{
	bool fmt_key = false;
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		size_t s, j;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (fmt_key && c != '"')
			return false;	/* "format": not a string */
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				return false;
		} else if (c == '"') {
			for (s = ++i; i < n && p[i] != '"'; i++)
				if (p[i] == '\\')
					i++;
			if (i >= n)
				return false;
			if (fmt_key)
				return i - s == strlen(want) && !memcmp(p + s, want, i - s);
			for (j = i + 1; j < n && (p[j] == ' ' || p[j] == '\n'); j++)
				;
			if (depth == 1 && j < n && p[j] == ':' && i - s == 6 &&
			    !memcmp(p + s, "format", 6)) {
				fmt_key = true;
				i = j;
			}
		}
	}
	return false;
}

bool vt_run_is_report(const char *path)
{
	size_t len = 65536;	/* a report's "format" follows its "config" */
	char *head;
	bool yes;
	FILE *f;

	struct stat st;

	/* a regular file only: a pipe or FIFO read here would be consumed */
	if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    !(f = fopen(path, "rb")))
		return false;
	head = malloc(len);
	yes = head && top_format_is(head, fread(head, 1, len, f), "vmaptool-report");
	free(head);
	fclose(f);
	if (yes) {
		/* and whole: a broken one is an error where it is read */
		struct vt_report *r = NULL;
		struct vt_error err;

		vt_error_init(&err);
		yes = !vt_report_load(path, &r, &err);
		vt_report_free(r);
	}
	return yes;
}

struct file_id {
	dev_t dev;
	ino_t ino;
	int i;
};

static int file_id_cmp(const void *x, const void *y)
{
	const struct file_id *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/*
 * A warning for each trace of @traces that names a file given before it
 * (the same regular file, however named): it is replayed and reported
 * again, and gate refuses a report that lists a trace twice.  Sorted by
 * file, not compared in pairs: a glob may give thousands.
 */
static void warn_twice(const char *cmd, char *const *traces, int n)
{
	struct file_id *ids = n > 1 ? malloc((size_t)n * sizeof(*ids)) : NULL;
	int k = 0;

	if (!ids)
		return;	/* a warning only: nothing to say without memory */
	for (int i = 0; i < n; i++) {
		struct stat st;

		if (strcmp(traces[i], "-") && !stat(traces[i], &st) && S_ISREG(st.st_mode))
			ids[k++] = (struct file_id){ st.st_dev, st.st_ino, i };
	}
	qsort(ids, (size_t)k, sizeof(*ids), file_id_cmp);
	for (int j = 1, g = 0; j < k; j++) {
		const char *a, *b;

		if (ids[j].dev != ids[g].dev || ids[j].ino != ids[g].ino) {
			g = j;	/* the first of the next file's names */
			continue;
		}
		a = traces[ids[g].i];
		b = traces[ids[j].i];
		if (!strcmp(a, b))
			vt_warn("%s: '%s' is given twice: it is replayed and "
				"reported twice", cmd, a);
		else
			vt_warn("%s: '%s' is '%s' again: it is replayed and "
				"reported twice", cmd, b, a);
	}
	free(ids);
}

int vt_run_skip_reports(const char *cmd, char **traces, const char **shown,
			int *n)
{
	struct vt_error err;
	int reports = 0, kept = 0;

	for (int i = 0; i < *n; i++)
		reports += vt_run_is_report(traces[i]);
	if (!reports)
		return 0;
	if (reports == *n) {
		/* nothing else to replay: an error, and what to do instead */
		vt_error_init(&err);
		snprintf(err.file, sizeof(err.file), "%s", traces[0]);
		vt_error_set(&err, VT_ERR_TRACE_VERSION, "this is a vmaptool report "
			     "(a gate baseline or a 'replay -j' output), not a trace: "
			     "replay the traces it was made from, or gate them "
			     "against it with 'vmaptool gate --baseline=%s TRACE...'",
			     traces[0]);
		return vt_report_error(&err);
	}
	/* a baseline kept beside the traces, taken by their glob */
	for (int i = 0; i < *n; i++) {
		if (vt_run_is_report(traces[i]))
			vt_info("%s: skipping '%s': a vmaptool report (a baseline?), "
				"not a trace", cmd, traces[i]);
		else {
			/* a swap, not a copy: every path stays in the array,
			 * which vt_trace_args_release() may own */
			char *keep = traces[i];

			traces[i] = traces[kept];
			traces[kept] = keep;
			if (shown) {
				const char *s = shown[i];

				shown[i] = shown[kept];
				shown[kept] = s;
			}
			kept++;
		}
	}
	*n = kept;
	return 0;
}

/* ---- one trace, and the --jobs workers ------------------------------ */

struct traces;

struct job {
	struct vt_pool_item item;	/* first: the trace as an item of the --jobs pool */
	struct traces *t;
	const char *path;
	struct vt_replay_result res;
	struct vt_error err;
	int ret;
	bool ran;
};

/*
 * Replay one trace; its strategies go to @pool as items (one parse,
 * core/replay.c; NULL: serial), @progress: the progress line (not while
 * traces run in parallel: their lines would interleave).
 */
static int run_one(const struct vt_run_opts *o, struct job *j,
		   const struct vt_spec_list *specs, FILE *per_event,
		   struct vt_pool *pool, bool progress)
{
	struct run_ctx ctx = { .o = o, .trace = j->path, .specs = specs,
			       .per_event = per_event };
	struct vt_replay_cb cb = { .ctx = &ctx, .event = on_event,
				   .mismap = on_mismap, .warn = on_warn };
	struct vt_replay_req req;

	vt_run_req_init(&req, o, specs, j->path);
	req.pool = pool;
	vt_error_init(&j->err);
	memset(&j->res, 0, sizeof(j->res));
	vt_dbg(1, "replaying '%s' under %u strateg%s", j->path, specs->nr,
	       specs->nr == 1 ? "y" : "ies");
	if (!per_event)
		cb.event = NULL;
	if (progress)
		cb.progress = on_progress;
	j->ret = vt_replay_run(&req, &cb, &j->res, &j->err);
	j->ran = true;
	if (j->ret < 0 && !j->err.code)
		j->err.code = j->ret;
	if (j->ret < 0)
		vt_run_explain(j->path, &j->err);
	if (j->ret >= 0 && ctx.write_err) {
		/* the replay's result is dropped with the run */
		vt_replay_result_release(&j->res);
		j->ret = ctx.write_err;
		vt_error_set(&j->err, ctx.write_err, "cannot write --per-event lines: %s",
			     strerror(-ctx.write_err));
	}
	return j->ret;
}

/* The traces of one command, as items of one pool of --jobs threads. */
struct traces {
	const struct vt_run_opts *o;
	const struct vt_spec_list *specs;
	struct vt_pool *pool;
	bool progress;
	int failed;		/* set once a trace fails: the rest are skipped (atomic) */
};

static void trace_item(struct vt_pool_item *it)
{
	struct job *j = (struct job *)it;
	struct traces *t = j->t;

	if (__atomic_load_n(&t->failed, __ATOMIC_RELAXED))
		return;
	if (run_one(t->o, j, t->specs, NULL, t->pool, t->progress) < 0)
		__atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
}

/*
 * --jobs takes effect here: one pool of o->cli->jobs threads (fewer for
 * one strategy and fewer traces: they could not all be busy; the caller
 * one of them, core/pool.c) runs the traces as items, in order, and each
 * trace's replay submits its (strategy, batch) items to the same pool
 * (core/replay.c).  A trace that fails stops those not yet started.
 */
static int run_pool(const struct vt_run_opts *o, struct job *jobs, int n,
		    const struct vt_spec_list *specs)
{
	struct traces t = { .o = o, .specs = specs,
			    .progress = o->cli->jobs <= 1 || n == 1 };
	struct vt_pool_group g = { 0 };
	unsigned int threads = o->cli->jobs;

	/* One strategy replays serially (core/replay.c): then no more threads
	 * than traces, so one trace runs on the caller with none started. */
	if (specs->nr == 1 && (unsigned int)n < threads)
		threads = (unsigned int)n;
	if (vt_pool_new(threads, &t.pool))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		jobs[i].t = &t;
		jobs[i].item.fn = trace_item;
		jobs[i].item.may_wait = true;
		vt_pool_submit(t.pool, &jobs[i].item, &g);
	}
	vt_pool_wait_group(t.pool, &g, true);
	vt_pool_free(t.pool);
	return 0;
}

int vt_run_traces(const struct vt_run_opts *o, char **traces, int n,
		  const struct vt_spec_list *specs, struct vt_report *report,
		  bool ratios, FILE *per_event)
{
	struct job *jobs;
	int rc = 0;

	if (report)
		vt_report_set_profile(report, o->profile);
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	for (int i = 0; i < n; i++)
		jobs[i].path = traces[i];
	/* Per-event lines come in trace and event order: all serial. */
	if (per_event) {
		for (int i = 0; i < n; i++)
			if (run_one(o, &jobs[i], specs, per_event, NULL,
				    o->cli->jobs <= 1 || n == 1) < 0)
				break;
	} else if (run_pool(o, jobs, n, specs)) {
		free(jobs);
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	/* Report the first failure in trace order, as a serial run would. */
	for (int i = 0; i < n && !rc; i++) {
		if (!jobs[i].ran)
			continue;
		if (jobs[i].ret < 0) {
			rc = vt_report_error(&jobs[i].err);
		} else if (report && vt_report_add_trace(report, traces[i],
							   &jobs[i].res,
							   specs->v, ratios)) {
			vt_err("out of memory");
			rc = VT_EC_SYSTEM;
		}
	}
	for (int i = 0; i < n; i++)
		if (jobs[i].ran && jobs[i].ret >= 0)
			vt_replay_result_release(&jobs[i].res);
	free(jobs);
	return rc;
}

int vt_run_command(const struct vt_cli *cli, char **traces, const char **shown,
		   int n, const struct vt_spec_list *specs, bool ratios)
{
	struct vt_profile profile;
	struct vt_run_opts o;
	/* --per-event without FILE replaces the report on the output. */
	bool lines_only = cli->per_event && !cli->per_event_file;
	const char *pe_path = lines_only ? cli->output : cli->per_event_file;
	struct vt_report *report = NULL;
	FILE *pe = NULL, *out;
	int rc, rc2;

	/* outputs that would replace each other or a trace: refused first */
	rc = vt_out_check(cli, NULL, 0, traces, n, "trace");
	if (!rc)
		rc = vt_run_skip_reports(cli->cmd ? cli->cmd->name : "replay",
					 traces, shown, &n);
	if (rc)
		return rc;
	warn_twice(cli->cmd ? cli->cmd->name : "replay", traces, n);
	/* Before the report copies the options: the profile may set one. */
	vt_run_opts_init(&o, cli);
	rc = vt_run_use_profile(&o, &profile, cli->profile, false);
	if (rc)
		return rc;
	if (!lines_only || cli->svg) {
		report = vt_report_new(&o.model, o.per_op);
		if (report && cli->summary &&
		    vt_report_set_summary(report, cli->summary, o.profile,
					  o.model.tlbi_range)) {
			vt_report_free(report);
			report = NULL;
		}
		if (!report) {
			vt_err("out of memory");
			return VT_EC_SYSTEM;
		}
	}
	if (cli->per_event) {
		pe = vt_out_open(pe_path);
		if (!pe) {
			vt_report_free(report);
			return VT_EC_SYSTEM;
		}
	}
	rc = vt_run_traces(&o, traces, n, specs, report, ratios, pe);
	/* every trace is in the report, in the order given */
	if (!rc && report && shown && vt_report_set_shown(report, shown, n)) {
		vt_err("out of memory");
		rc = VT_EC_SYSTEM;
	}
	rc2 = vt_out_close(pe, pe_path, rc == 0);
	if (!rc)
		rc = rc2;
	if (!rc && report && !lines_only) {
		struct vt_render_opts ro = { cli->verbose, cli->wide,
					     cli->colour };

		out = vt_out_open(cli->output);
		if (!out) {
			rc = VT_EC_SYSTEM;
		} else {
			int wr = vt_report_render(report, out, cli->format, &ro);

			rc = vt_out_close(out, cli->output, true);
			if (wr && !rc) {
				vt_err("cannot write the report: %s", strerror(-wr));
				rc = VT_EC_SYSTEM;
			}
		}
	}
	/* --svg: the same report drawn, whole or not at all like -o */
	if (!rc && report && cli->svg) {
		out = vt_out_open(cli->svg);
		if (!out) {
			rc = VT_EC_SYSTEM;
		} else {
			int wr = vt_report_svg(report, out);

			rc = vt_out_close(out, cli->svg, true);
			if (wr && !rc) {
				vt_err("cannot write the SVG: %s", strerror(-wr));
				rc = VT_EC_SYSTEM;
			}
		}
	}
	vt_report_free(report);
	return rc;
}
