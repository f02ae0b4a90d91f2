// SPDX-License-Identifier: GPL-2.0
/*
 * Replay throughput: a system-heap trace of N buffers of 128 MiB (each 128
 * order-8 compound pages from the generator's buddy model, vmap + vunmap,
 * at most --live buffers mapped at once) is written as JSON Lines to a
 * temporary file and replayed under pagewise without --verify.  Reported:
 * simulated page mappings per second, events per second, the time of a
 * read-only pass (JSON parsing) against the full replay (parsing + engine),
 * and the peak RSS of each run (each run is a child process, so that
 * ru_maxrss is its own).  By default the trace is replayed at 1x and 4x
 * its length to show that memory follows the live mappings, not the trace.
 *
 *   bench-replay [-b BUFFERS] [-s SIZE_MIB] [-l LIVE] [-x SCALE,...] [-r REPEAT]
 *                [-S STRATEGY,...] [-V] [-k]
 *
 * -S replays under each strategy named (default pagewise; "all": every
 * built-in one), -V with --verify.  Output: one JSON line per scale and
 * strategy (bench/README.md lists the fields).
 *
 * Build with -DCMAKE_BUILD_TYPE=Release to measure (see bench/README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/trace/gen.h"
#include "core/model.h"
#include "core/trace/trace.h"

/* CPU time of this process: on a shared machine wall time measures the
 * other jobs as much as vmaptool. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int emit(void *ctx, const struct vt_event *ev, struct vt_error *err)
{
	return vt_trace_writer_event(ctx, ev, err);
}

static int make_trace(const char *path, unsigned long buffers, uint64_t size,
		      unsigned long live)
{
	const struct vt_trace_config cfg = { .page_shift = 12, .va_bits = 48 };
	struct vt_gen_systemheap o = {
		.sizes = &size, .nr_sizes = 1, .buffers = buffers, .live = live,
		.frag = 0, .mem_bytes = (live + 2) * size, .no_page_array = true,
	};
	struct vt_trace_writer *w;
	struct vt_error err;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_writer_open(path, true, &cfg, "{\"source\":\"bench-replay\"}",
				   &w, &err);
	if (ret)
		goto fail;
	ret = vt_gen_systemheap(&o, &(struct vt_gen_out){ .emit = emit, .ctx = w,
							  .seed = 1, .page_shift = 12 },
				&err);
	if (ret) {
		vt_trace_writer_abort(w);
		goto fail;
	}
	ret = vt_trace_writer_commit(w, &err);
	if (!ret)
		return 0;
fail:
	fprintf(stderr, "bench-replay: %s: %s\n", path, err.msg);
	return -1;
}

struct figures {
	long events;
	uint64_t pages;		/* pages mapped by the trace's events */
	double t_read;		/* best read-only pass */
	double t_replay;	/* best full replay */
	uint64_t pte_writes;
};

/* Read the trace without replaying it: the parser's share. */
static int read_pass(const char *path, struct figures *f)
{
	struct vt_trace_read_opts ro = { 0 };
	struct vt_trace_reader *rd;
	struct vt_event ev;
	struct vt_error err;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_open(path, &ro, &rd, &err);
	if (ret)
		goto fail;
	f->events = 0;
	f->pages = 0;
	while ((ret = vt_trace_next(rd, &ev, &err)) > 0) {
		f->events++;
		if (ev.op == VT_OP_VMAP || ev.op == VT_OP_VM_MAP_RAM)
			f->pages += ev.nr_pages;
		else if (ev.op == VT_OP_VMALLOC)
			f->pages += (ev.size + 4095) >> 12;
	}
	vt_trace_close(rd);
	if (!ret)
		return 0;
fail:
	fprintf(stderr, "bench-replay: %s: %s\n", path, err.msg);
	return -1;
}

static int replay_pass(const char *path, const char *strategy, bool verify,
		       struct figures *f)
{
	struct vt_strategy_spec spec;
	struct vt_model_opts o;
	struct vt_replay_result res;
	struct vt_error err;
	struct vt_replay_req req = {
		.path = path, .specs = &spec, .nr_specs = 1, .opts = &o,
		.stop_after = -1,
	};
	int ret;

	vt_error_init(&err);
	vt_model_opts_init(&o);
	o.page_shift = 0;
	o.va_bits = 0;
	o.verify = verify;
	ret = vt_strategy_parse(strategy, &spec, &err);
	if (!ret)
		ret = vt_replay_run(&req, NULL, &res, &err);
	if (ret) {
		fprintf(stderr, "bench-replay: %s: %s\n", path, err.msg);
		return -1;
	}
	f->pte_writes = res.s[0].total.m[VT_M_pte_writes];
	vt_replay_result_release(&res);
	return 0;
}

/* In a child process: best of @repeat read passes and replays. */
static int measure(const char *path, const char *strategy, bool verify,
		   unsigned int repeat, int fd)
{
	struct figures f = { .t_read = 1e99, .t_replay = 1e99 };

	for (unsigned int i = 0; i < repeat; i++) {
		double t0 = now(), t1;

		if (read_pass(path, &f))
			return 1;
		t1 = now() - t0;
		if (t1 < f.t_read)
			f.t_read = t1;
		t0 = now();
		if (replay_pass(path, strategy, verify, &f))
			return 1;
		t1 = now() - t0;
		if (t1 < f.t_replay)
			f.t_replay = t1;
	}
	if (write(fd, &f, sizeof(f)) != sizeof(f))
		return 1;
	return 0;
}

/* -S: a comma-separated list, or "all" for every built-in strategy. */
static unsigned int parse_strategies(const char *arg, const char **out,
				     unsigned int max)
{
	unsigned int n = 0;

	if (!strcmp(arg, "all")) {
		for (const struct vt_strategy_info *i = vt_strategy_infos();
		     i->name && n < max; i++)
			if (strcmp(i->name, "mainline"))
				out[n++] = i->name;
		return n;
	}
	for (char *p = strdup(arg), *t; p && (t = strsep(&p, ",")) && n < max;)
		if (*t)
			out[n++] = t;
	return n;
}

int main(int argc, char **argv)
{
	unsigned long buffers = 512, live = 4, scales[8] = { 1, 4 };
	unsigned int nr_scales = 2, repeat = 3, nr_strats = 1;
	const char *strats[16] = { "pagewise" };
	uint64_t size_mib = 128;
	bool keep = false, verify = false;
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	int c, status = 0;

	while ((c = getopt(argc, argv, "b:s:l:x:r:S:Vkh")) != -1) {
		switch (c) {
		case 'b':
			buffers = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size_mib = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			live = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			repeat = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			nr_strats = parse_strategies(optarg, strats, 16);
			break;
		case 'V':
			verify = true;
			break;
		case 'k':
			keep = true;
			break;
		case 'x': {
			char *p = optarg;

			nr_scales = 0;
			while (*p && nr_scales < 8) {
				scales[nr_scales++] = strtoul(p, &p, 0);
				if (*p == ',')
					p++;
			}
			break;
		}
		default:
			fprintf(stderr, "usage: %s [-b BUFFERS] [-s SIZE_MIB] [-l LIVE] [-x SCALE,...] [-r REPEAT] [-S STRATEGY,...|all] [-V] [-k]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (!buffers || !size_mib || !live || !repeat || !nr_strats) {
		fprintf(stderr, "bench-replay: counts must be > 0\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/vt-bench-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 4;
	}
	for (unsigned int s = 0; s < nr_scales && !status; s++) {
		unsigned long n = buffers * scales[s];
		struct stat st;
		char path[300];

		snprintf(path, sizeof(path), "%s/systemheap-%lu.jsonl", dir, n);
		if (make_trace(path, n, size_mib << 20, live) || stat(path, &st)) {
			status = 4;
			break;
		}
		for (unsigned int k = 0; k < nr_strats; k++) {
			struct figures f;
			struct rusage ru;
			int fds[2], ws;
			pid_t pid;

			if (pipe(fds)) {
				status = 4;
				break;
			}
			fflush(stdout);
			pid = fork();
			if (pid < 0) {
				perror("fork");
				status = 4;
				break;
			}
			if (!pid) {
				close(fds[0]);
				_exit(measure(path, strats[k], verify, repeat, fds[1]));
			}
			close(fds[1]);
			if (wait4(pid, &ws, 0, &ru) != pid || !WIFEXITED(ws) ||
			    WEXITSTATUS(ws) ||
			    read(fds[0], &f, sizeof(f)) != sizeof(f)) {
				fprintf(stderr, "bench-replay: the measuring child failed\n");
				close(fds[0]);
				status = 4;
				break;
			}
			close(fds[0]);
			printf("{\"bench\":\"replay\",\"strategy\":\"%s\",\"verify\":%s,"
			       "\"buffers\":%lu,\"buffer_mib\":%llu,\"live\":%lu,"
			       "\"mapped_gib\":%.1f,\"events\":%ld,\"pages\":%llu,"
			       "\"file_bytes\":%lld,\"repeat\":%u,\"read_cpu_s\":%.4f,"
			       "\"replay_cpu_s\":%.4f,\"mpages_per_s\":%.1f,"
			       "\"engine_mpages_per_s\":%.1f,\"events_per_s\":%.0f,"
			       "\"peak_rss_kib\":%ld,\"pte_writes\":%llu}\n",
			       strats[k], verify ? "true" : "false", n,
			       (unsigned long long)size_mib, live,
			       (double)f.pages * 4096 / (1ull << 30), f.events,
			       (unsigned long long)f.pages, (long long)st.st_size,
			       repeat, f.t_read, f.t_replay,
			       f.pages / f.t_replay / 1e6,
			       f.t_replay > f.t_read ?
			       f.pages / (f.t_replay - f.t_read) / 1e6 : 0.0,
			       f.events / f.t_replay, ru.ru_maxrss,
			       (unsigned long long)f.pte_writes);
		}
		if (!keep)
			unlink(path);
	}
	if (!keep)
		rmdir(dir);
	else
		fprintf(stderr, "traces kept in %s\n", dir);
	return status;
}
