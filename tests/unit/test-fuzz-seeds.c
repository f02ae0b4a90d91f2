// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzz targets' seed corpora as a normal ctest (STYLE.md section 7):
 * runs the body of every harness in tests/fuzz/ over every file of its
 * corpus, tests/fuzz/corpus/<target>/, so that the seeds (and every
 * reproducer saved there) run under gcc and ASan in CI without libFuzzer.
 * A harness check that fails aborts, which fails the test; a seed named
 * xfail-* reproduces a known, unfixed bug and is expected to fail.
 *
 *   test-fuzz-seeds [FILE...]	# run both bodies over FILEs instead
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "../fuzz/fuzz-trace-json.h"
#include "../fuzz/fuzz-trace-dat.h"
#include "../fuzz/fuzz-trace-jsonl.h"
#include "../fuzz/fuzz-replay.h"
#include "../fuzz/fuzz-ftrace-text.h"
#include "../fuzz/fuzz-xz.h"
#include "../fuzz/fuzz-report.h"
#include "../fuzz/fuzz-inspect.h"
#include "../fuzz/fuzz-dat-records.h"
#include "../fuzz/fuzz-profile.h"
#include "../fuzz/fuzz-figures.h"

struct target {
	const char *name;
	int (*one)(const uint8_t *data, size_t size);
};

static const struct target targets[] = {
	{ "trace-json", vt_fuzz_trace_json },
	{ "trace-dat", vt_fuzz_trace_dat },
	{ "trace-jsonl", vt_fuzz_trace_jsonl },
	{ "replay", vt_fuzz_replay },
	{ "ftrace-text", vt_fuzz_ftrace_text },
	{ "xz", vt_fuzz_xz },
	{ "report", vt_fuzz_report },
	{ "inspect", vt_fuzz_inspect },
	{ "dat-records", vt_fuzz_dat_records },
	{ "profile", vt_fuzz_profile },
	{ "figures", vt_fuzz_figures },
};

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t got;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		fclose(f);
		return -errno;
	}
	/* at least one byte, so that an empty seed is a valid pointer */
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		fclose(f);
		return -ENOMEM;
	}
	got = fread(*buf, 1, st.st_size, f);
	fclose(f);
	if (got != (size_t)st.st_size) {
		free(*buf);
		return -EIO;
	}
	*len = got;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *names_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * A reproducer of a bug not fixed yet is named xfail-*: it runs in a child
 * that is expected to fail (abort or a sanitizer report), so that the
 * corpus keeps it and the suite stays green; once it passes, it is noted
 * and should lose its prefix.
 */
static void run_xfail(const struct target *t, const char *path,
		      const uint8_t *buf, size_t len)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		test_failures++;
		return;
	}
	if (!pid) {
		/* keep the expected failure's report short */
		if (!freopen("/dev/null", "w", stderr))
			_exit(0);
		t->one(buf, len);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0) {
		test_failures++;
		return;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		printf("note: %s passes now; drop its xfail- prefix\n", path);
	else
		printf("xfail: %s fails as expected\n", path);
}

/* Run @t over every regular file in @dir; returns the number run. */
static int run_corpus(const struct target *t, const char *dir)
{
	char **names = NULL;
	size_t nr = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int run = 0;

	if (!d) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		test_failures++;
		return 0;
	}
	while ((de = readdir(d))) {
		char **nn;

		if (de->d_name[0] == '.')
			continue;
		nn = realloc(names, (nr + 1) * sizeof(*nn));
		TEST_ASSERT_VAL("out of memory", nn);
		if (!nn)
			break;
		names = nn;
		names[nr++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), by_name);
	for (size_t i = 0; i < nr; i++) {
		char path[4096];
		uint8_t *buf;
		size_t len;
		struct stat st;

		int n = snprintf(path, sizeof(path), "%s/%s", dir, names[i]);

		free(names[i]);
		if (n < 0 || (size_t)n >= sizeof(path) || stat(path, &st) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (read_file(path, &buf, &len)) {
			fprintf(stderr, "%s: cannot read\n", path);
			test_failures++;
			continue;
		}
		if (!strncmp(names_base(path), "xfail-", 6))
			run_xfail(t, path, buf, len);
		else
			t->one(buf, len);
		free(buf);
		run++;
	}
	free(names);
	return run;
}

/*
 * The harnesses' scratch files go to $TMPDIR and are gone at exit (a
 * session 10 trial finding: every run left an empty
 * /tmp/vt-fuzz-profile.XXXXXX): a TMPDIR of our own, registered before any
 * harness registers its cleanup, so that this runs after them and finds
 * it empty.
 */
static char scratch[4096];

static void scratch_check(void)
{
	if (rmdir(scratch)) {
		fprintf(stderr, "FAIL: the harnesses left files in TMPDIR %s: %s\n",
			scratch, strerror(errno));
		_exit(TEST_FAIL);
	}
}

static void scratch_init(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(scratch, sizeof(scratch), "%s/vt-fuzz-seeds.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch) || setenv("TMPDIR", scratch, 1) ||
	    atexit(scratch_check)) {
		fprintf(stderr, "cannot make a TMPDIR: %s\n", strerror(errno));
		exit(TEST_FAIL);
	}
}

/* Whether a harness has made its scratch folder in TMPDIR. */
static bool scratch_used(void)
{
	DIR *d = opendir(scratch);
	struct dirent *de;
	bool used = false;

	while (d && (de = readdir(d)))
		used |= de->d_name[0] != '.';
	if (d)
		closedir(d);
	return used;
}

int main(int argc, char **argv)
{
	const char *src = getenv("VT_SRC");
	char dir[4096];

	scratch_init();

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			uint8_t *buf;
			size_t len;

			if (read_file(argv[i], &buf, &len)) {
				fprintf(stderr, "%s: cannot read\n", argv[i]);
				return TEST_FAIL;
			}
			for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++)
				targets[t].one(buf, len);
			free(buf);
		}
		return test_result("test-fuzz-seeds");
	}
	if (!src) {
		fprintf(stderr, "VT_SRC is not set\n");
		return TEST_SKIP;
	}
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		int n;

		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src,
			 targets[t].name);
		n = run_corpus(&targets[t], dir);
		printf("%s: %d seeds\n", targets[t].name, n);
		TEST_ASSERT_VAL("a corpus has seeds", n > 0);
		if (targets[t].one == vt_fuzz_profile)
			TEST_ASSERT_VAL("the profile harness writes in $TMPDIR",
					scratch_used());
	}
	return test_result("test-fuzz-seeds");
}
