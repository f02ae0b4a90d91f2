// SPDX-License-Identifier: GPL-2.0
/*
 * The balance of --jobs, in CPU time: a trace replayed under a list of
 * strategies (default: compare's four) once serially and once on a pool of
 * -j threads (core/pool.c, as cli/run.c sizes it), the best of -r runs of
 * each.  On a machine other jobs share, wall time measures them as much as
 * vmaptool; what the pool's threads did does not: each thread's CPU time in
 * items (core/pool.h vt_pool_thread_stats) and the wall time it sat idle
 * with nothing to run.  With -j free cores the replay takes at least its
 * critical path, the busiest thread's CPU time; every thread's time in
 * items near the serial CPU time / -j says the work is balanced.  Also
 * printed: each strategy alone (serial CPU) and a read-only pass (the
 * parser), whose largest sum is the longest chain no schedule can split.
 *
 *   bench-jobs [-j THREADS] [-S STRATEGY,...] [-r REPEAT] [-p PROFILE] TRACE
 *
 * Output: one JSON line (bench/README.md lists the fields).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cost/profile.h"
#include "core/model.h"
#include "core/pool.h"
#include "core/trace/trace.h"

#define MAX_STRATS 16
#define MAX_THREADS 64

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct run {
	double cpu, wall;
	struct vt_pool_thread_stats t[MAX_THREADS];
};

struct setup {
	const char *path;
	struct vt_strategy_spec spec[MAX_STRATS];
	unsigned int nr;
	struct vt_model_opts o;
	const struct vt_profile *profile;
};

/* One replay of @s's strategies [@first, @first + @nr) on a pool of
 * @threads (1: serial, no pool, as cli/run.c with --jobs=1). */
static int replay(const struct setup *s, unsigned int first, unsigned int nr,
		  unsigned int threads, struct run *r)
{
	struct vt_replay_req req = {
		.path = s->path, .specs = s->spec + first, .nr_specs = nr,
		.opts = &s->o, .stop_after = -1, .profile = s->profile,
	};
	struct vt_replay_result res;
	struct vt_error err;
	double c0, w0;
	int ret;

	vt_error_init(&err);
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	w0 = clock_s(CLOCK_MONOTONIC);
	if (threads > 1 && vt_pool_new(threads, &req.pool)) {
		fprintf(stderr, "bench-jobs: out of memory\n");
		return -1;
	}
	ret = vt_replay_run(&req, NULL, &res, &err);
	for (unsigned int t = 0; req.pool && t < threads; t++)
		vt_pool_thread_stats(req.pool, t, &r->t[t]);
	vt_pool_free(req.pool);
	r->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	r->wall = clock_s(CLOCK_MONOTONIC) - w0;
	if (ret) {
		fprintf(stderr, "bench-jobs: %s: %s\n", s->path, err.msg);
		return -1;
	}
	vt_replay_result_release(&res);
	return 0;
}

/* The parser alone: a read-only pass. */
static int read_pass(const char *path, double *cpu)
{
	struct vt_trace_read_opts ro = { 0 };
	struct vt_trace_reader *rd;
	struct vt_event ev;
	struct vt_error err;
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int ret;

	vt_error_init(&err);
	ret = vt_trace_open(path, &ro, &rd, &err);
	if (ret)
		goto fail;
	while ((ret = vt_trace_next(rd, &ev, &err)) > 0)
		;
	vt_trace_close(rd);
	*cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (!ret)
		return 0;
fail:
	fprintf(stderr, "bench-jobs: %s: %s\n", path, err.msg);
	return -1;
}

/* The best (least CPU for serial runs, least wall for parallel) of @repeat. */
static int best(const struct setup *s, unsigned int first, unsigned int nr,
		unsigned int threads, unsigned int repeat, struct run *out)
{
	for (unsigned int i = 0; i < repeat; i++) {
		struct run r = { 0 };

		if (replay(s, first, nr, threads, &r))
			return -1;
		if (!i || (threads > 1 ? r.wall < out->wall : r.cpu < out->cpu))
			*out = r;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct setup *s, unsigned int *threads,
		      unsigned int *repeat, const char **profile)
{
	const char *list = "pagewise,zigzag,batched,segments";
	struct vt_error err;
	int c;

	while ((c = getopt(argc, argv, "j:S:r:p:h")) != -1) {
		switch (c) {
		case 'j':
			*threads = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			list = optarg;
			break;
		case 'r':
			*repeat = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			*profile = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-j THREADS] [-S STRATEGY,...] [-r REPEAT] [-p PROFILE] TRACE\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc || *threads < 2 || *threads > MAX_THREADS || !*repeat) {
		fprintf(stderr, "bench-jobs: one TRACE, 2 <= -j <= %d, -r > 0\n", MAX_THREADS);
		return 2;
	}
	s->path = argv[optind];
	vt_error_init(&err);
	for (char *p = strdup(list), *t; p && (t = strsep(&p, ","));) {
		if (!*t)
			continue;
		if (s->nr == MAX_STRATS || vt_strategy_parse(t, &s->spec[s->nr], &err)) {
			fprintf(stderr, "bench-jobs: %s: %s\n", t,
				s->nr == MAX_STRATS ? "too many strategies" : err.msg);
			return 2;
		}
		s->nr++;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct setup s;
	static struct vt_profile prof;
	static struct run ser, par, alone[MAX_STRATS];
	unsigned int threads = 2, repeat = 3;
	const char *profile = VT_PROFILE_DEFAULT;
	double read_cpu = 0, chain = 0, busiest = 0, idle = 0, free_cores;
	struct vt_error err;
	int rc;

	rc = parse_args(argc, argv, &s, &threads, &repeat, &profile);
	if (rc >= 0)
		return rc;
	vt_model_opts_init(&s.o);
	s.o.page_shift = 0;
	s.o.va_bits = 0;
	vt_error_init(&err);
	if (vt_profile_load(profile, &prof, &err)) {
		fprintf(stderr, "bench-jobs: %s: %s\n", profile, err.msg);
		return 2;
	}
	s.profile = &prof;
	if (read_pass(s.path, &read_cpu) || best(&s, 0, s.nr, 1, repeat, &ser) ||
	    best(&s, 0, s.nr, threads, repeat, &par))
		return 4;
	printf("{\"bench\":\"jobs\",\"trace\":\"%s\",\"threads\":%u,\"repeat\":%u,"
	       "\"read_cpu_s\":%.3f,\"alone_cpu_s\":{", s.path, threads, repeat, read_cpu);
	for (unsigned int i = 0; i < s.nr; i++) {
		if (best(&s, i, 1, 1, repeat, &alone[i]))
			return 4;
		if (alone[i].cpu > chain)
			chain = alone[i].cpu;
		printf("%s\"%s\":%.3f", i ? "," : "", s.spec[i].name, alone[i].cpu);
	}
	printf("},\"serial_cpu_s\":%.3f,\"serial_wall_s\":%.3f,"
	       "\"jobs_cpu_s\":%.3f,\"jobs_wall_s\":%.3f,\"thread\":[",
	       ser.cpu, ser.wall, par.cpu, par.wall);
	for (unsigned int t = 0; t < threads; t++) {
		const struct vt_pool_thread_stats *st = &par.t[t];
		double busy = (st->item_cpu_ns[0] + st->item_cpu_ns[1]) * 1e-9;

		idle += st->idle_ns * 1e-9;
		if (busy > busiest)
			busiest = busy;
		printf("%s{\"leaf_items\":%lu,\"leaf_cpu_s\":%.3f,\"wait_items\":%lu,"
		       "\"wait_cpu_s\":%.3f,\"stolen\":%lu,\"idle_s\":%.3f}", t ? "," : "",
		       st->items[0], st->item_cpu_ns[0] * 1e-9, st->items[1],
		       st->item_cpu_ns[1] * 1e-9, st->stolen, st->idle_ns * 1e-9);
	}
	/*
	 * On @threads free cores each thread is either running (the CPU time
	 * of all of them is jobs_cpu_s) or idle for want of an item (idle_s,
	 * which on a loaded machine also counts the waits for a preempted
	 * thread, so this errs long): the wall time is their sum / threads.
	 */
	free_cores = (par.cpu + idle) / threads;
	printf("],\"idle_s\":%.3f,\"longest_chain_cpu_s\":%.3f,"
	       "\"busiest_thread_items_cpu_s\":%.3f,\"free_cores_wall_s\":%.3f,"
	       "\"free_cores_speedup\":%.2f}\n", idle, chain, busiest, free_cores,
	       ser.cpu / free_cores);
	return 0;
}
