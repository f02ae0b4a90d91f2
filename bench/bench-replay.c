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
 *   bench-replay [-b BUFFERS] [-s SIZE_MIB] [-l LIVE] [-x SCALE,...] [-r REPEAT] [-k]
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

static int replay_pass(const char *path, struct figures *f)
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
	ret = vt_strategy_parse("pagewise", &spec, &err);
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
static int measure(const char *path, unsigned int repeat, int fd)
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
		if (replay_pass(path, &f))
			return 1;
		t1 = now() - t0;
		if (t1 < f.t_replay)
			f.t_replay = t1;
	}
	if (write(fd, &f, sizeof(f)) != sizeof(f))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long buffers = 512, live = 4, scales[8] = { 1, 4 };
	unsigned int nr_scales = 2, repeat = 3;
	uint64_t size_mib = 128;
	bool keep = false;
	const char *tmp = getenv("TMPDIR");
	char dir[256];
	int c, status = 0;

	while ((c = getopt(argc, argv, "b:s:l:x:r:kh")) != -1) {
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
			fprintf(stderr, "usage: %s [-b BUFFERS] [-s SIZE_MIB] [-l LIVE] [-x SCALE,...] [-r REPEAT] [-k]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (!buffers || !size_mib || !live || !repeat) {
		fprintf(stderr, "bench-replay: counts must be > 0\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/vt-bench-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 4;
	}
	printf("system heap: %lu MiB buffers of order-8 pages, vmap + vunmap, %lu live; pagewise, no --verify; best of %u\n",
	       (unsigned long)size_mib, live, repeat);
	printf("%9s %9s %8s %9s %9s %9s %12s %10s %8s %9s\n", "buffers", "mapped", "events",
	       "file", "read s", "replay s", "Mpages/s", "Mpages/s", "events/s", "peak RSS");
	printf("%9s %9s %8s %9s %9s %9s %12s %10s %8s %9s\n", "", "GiB", "", "MiB", "(parse)",
	       "(total)", "(replay)", "(engine)", "", "MiB");
	for (unsigned int s = 0; s < nr_scales; s++) {
		unsigned long n = buffers * scales[s];
		struct figures f;
		struct rusage ru;
		struct stat st;
		char path[300];
		int fds[2], ws;
		pid_t pid;

		snprintf(path, sizeof(path), "%s/systemheap-%lu.jsonl", dir, n);
		if (make_trace(path, n, size_mib << 20, live) || stat(path, &st) ||
		    pipe(fds)) {
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
			_exit(measure(path, repeat, fds[1]));
		}
		close(fds[1]);
		if (wait4(pid, &ws, 0, &ru) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) ||
		    read(fds[0], &f, sizeof(f)) != sizeof(f)) {
			fprintf(stderr, "bench-replay: the measuring child failed\n");
			close(fds[0]);
			status = 4;
			break;
		}
		close(fds[0]);
		printf("%9lu %9.1f %8ld %9.1f %9.3f %9.3f %12.1f %10.1f %8.0f %9.1f\n",
		       n, (double)f.pages * 4096 / (1ull << 30), f.events,
		       st.st_size / 1048576.0, f.t_read, f.t_replay,
		       f.pages / f.t_replay / 1e6,
		       f.t_replay > f.t_read ? f.pages / (f.t_replay - f.t_read) / 1e6 : 0.0,
		       f.events / f.t_replay, ru.ru_maxrss / 1024.0);
		if (f.pte_writes != f.pages)
			fprintf(stderr, "bench-replay: %llu pte_writes for %llu pages\n",
				(unsigned long long)f.pte_writes,
				(unsigned long long)f.pages);
		if (!keep)
			unlink(path);
	}
	if (!keep)
		rmdir(dir);
	else
		printf("traces kept in %s\n", dir);
	return status;
}
