// SPDX-License-Identifier: GPL-2.0
/*
 * bench-parse: how fast the JSON Lines reader is and whether its memory
 * stays flat.  For each event count N given (default 1000000 10000000) it
 * writes a system-heap-like JSON Lines trace of N events to
 * /tmp/vt-bench-parse-N.jsonl (kept for reruns; --fresh rewrites it), then
 * reads it in a child process and prints events/s, MB/s and the child's
 * peak RSS (getrusage ru_maxrss), so that generating never inflates the
 * figure: one JSON line per N.  --jansson reads through the jansson path
 * only (the JSON Lines fast path off), for comparison.
 *
 *   bench-parse [--fresh] [--jansson] [N...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/trace/gen.h"
#include "core/trace/trace.h"

/* A mix like systemheap's: vmalloc + vmap + vfree + vunmap per buffer. */
static int write_trace(const char *path, unsigned long n)
{
	struct vt_trace_config cfg = { 12, 48 };
	struct vt_page_run runs[3];
	struct vt_trace_writer *w;
	struct vt_error err;
	struct vt_rng rng;
	unsigned long i;
	int ret;

	vt_error_init(&err);
	vt_rng_init(&rng, 1);
	ret = vt_trace_writer_open(path, true, &cfg, "{\"source\":\"bench-parse\"}",
				   &w, &err);
	for (i = 0; !ret && i < n; i++) {
		struct vt_event ev = { .cpu = -1, .caller = "system_heap_do_vmap" };
		uint64_t id = i / 4 * 2 + 1;

		ev.id.present = true;
		switch (i % 4) {
		case 0:
			ev.op = VT_OP_VMALLOC;
			ev.id.num = id;
			ev.size = 2184;
			break;
		case 1:
			ev.op = VT_OP_VMAP;
			ev.id.num = id + 1;
			ev.flags = VT_FLAG(VM_MAP);
			runs[0] = (struct vt_page_run){ 0x80000 + (vt_rng_below(&rng, 4096) << 8), 1 + vt_rng_below(&rng, 4), 8 };
			runs[1] = (struct vt_page_run){ 0x200000 + (vt_rng_below(&rng, 4096) << 4), 1, 4 };
			runs[2] = (struct vt_page_run){ 0x300000 + vt_rng_below(&rng, 65536), 1, 0 };
			ev.runs = runs;
			ev.nr_runs = 3;
			ev.has_pages = true;
			break;
		case 2:
			ev.op = VT_OP_VFREE;
			ev.id.num = id;
			break;
		default:
			ev.op = VT_OP_VUNMAP;
			ev.id.num = id + 1;
			break;
		}
		ret = vt_trace_writer_event(w, &ev, &err);
	}
	if (!ret)
		return vt_trace_writer_commit(w, &err) ? 1 : 0;
	vt_trace_writer_abort(w);
	fprintf(stderr, "bench-parse: %s\n", err.msg);
	return 1;
}

/* CPU time of this process (see bench-replay.c) */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* In the child: read @path whole and report. */
static int read_trace(const char *path, off_t bytes, bool jansson)
{
	struct vt_trace_read_opts ro = { .no_fast_path = jansson };
	struct vt_trace_reader *r;
	struct vt_error err;
	struct vt_event ev;
	struct rusage ru;
	unsigned long n = 0, pages = 0;
	double t0 = now(), dt;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_open(path, &ro, &r, &err);
	while (!ret && (ret = vt_trace_next(r, &ev, &err)) == 1) {
		n++;
		pages += ev.nr_pages;
		ret = 0;
	}
	if (ret) {
		fprintf(stderr, "%s:%lu: %s\n", path, err.line, err.msg);
		return 1;
	}
	vt_trace_close(r);
	dt = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"bench\":\"parse\",\"reader\":\"%s\",\"events\":%lu,\"bytes\":%lld,"
	       "\"cpu_s\":%.4f,\"events_per_s\":%.0f,\"mb_per_s\":%.1f,"
	       "\"peak_rss_kib\":%ld,\"pages\":%lu}\n",
	       jansson ? "jansson" : "default", n, (long long)bytes, dt, n / dt,
	       bytes / 1e6 / dt, ru.ru_maxrss, pages);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "1000000", "10000000" };
	const char *const *counts = defaults;
	int nr = 2, fresh = 0, rc = 0;
	bool jansson = false;

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "--fresh")) {
			fresh = 1;
		} else if (!strcmp(argv[1], "--jansson")) {
			jansson = true;
		} else {
			fprintf(stderr, "usage: bench-parse [--fresh] [--jansson] [N...]\n");
			return 2;
		}
	}
	if (argc > 1) {
		counts = (const char *const *)argv + 1;
		nr = argc - 1;
	}
	for (int i = 0; i < nr; i++) {
		unsigned long n = strtoul(counts[i], NULL, 0);
		char path[128];
		struct stat st;
		pid_t pid;
		int status;

		snprintf(path, sizeof(path), "/tmp/vt-bench-parse-%lu.jsonl", n);
		if (fresh || stat(path, &st)) {
			if (write_trace(path, n))
				return 1;
			if (stat(path, &st))
				return 1;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			int ret = read_trace(path, st.st_size, jansson);

			fflush(stdout);
			_exit(ret);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			rc = 1;
	}
	return rc;
}
