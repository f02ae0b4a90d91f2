// SPDX-License-Identifier: GPL-2.0
/*
 * Output files are written whole or not at all (spec/interfaces.md 1.4):
 * -o FILE goes to a temporary file in the same directory, renamed over
 * FILE on success and removed on failure, the way git's lockfile.c
 * publishes files.  A path that exists and is not a regular file
 * (/dev/null, a FIFO, /dev/stdout) is written in place: it cannot be
 * replaced, and renaming over a device node would be wrong.
 *
 * Like git's lockfile.c (via tempfile.c and sigchain.c), SIGINT, SIGTERM
 * and SIGHUP remove every temporary file still open, then the signal is
 * raised again with its default action, so that the caller sees the
 * process end by that signal and nothing is left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

struct out_file {
	FILE *f;
	char *tmp;		/* NULL: written in place */
	struct out_file *next;
};

static struct out_file *open_files;

static const int out_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * Removes the temporaries (unlink() is async-signal-safe; the list is only
 * changed with these signals blocked) and dies by the same signal.
 */
static void out_signal(int sig)
{
	for (struct out_file *o = open_files; o; o = o->next)
		if (o->tmp)
			unlink(o->tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void out_block(bool block, sigset_t *old)
{
	sigset_t set;

	if (!block) {
		sigprocmask(SIG_SETMASK, old, NULL);
		return;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(out_signals) / sizeof(*out_signals); i++)
		sigaddset(&set, out_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void out_install_handlers(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (size_t i = 0; i < sizeof(out_signals) / sizeof(*out_signals); i++) {
		struct sigaction sa, old;

		/* a signal ignored by our parent (nohup) stays ignored */
		if (sigaction(out_signals[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = out_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(out_signals[i], &sa, NULL);
	}
}

static bool is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

FILE *vt_out_open(const char *path)
{
	struct out_file *o;
	struct stat st;
	sigset_t sigs;
	mode_t mask;
	int fd;

	if (is_stdout(path))
		return stdout;
	o = calloc(1, sizeof(*o));
	if (!o) {
		vt_err("out of memory");
		return NULL;
	}
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "w");
		if (!o->f) {
			vt_err("cannot open '%s': %s", path, strerror(errno));
			free(o);
			return NULL;
		}
		goto done;
	}
	{
		const char *slash = strrchr(path, '/');
		int dlen = slash ? (int)(slash - path + 1) : 0;

		if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", dlen, path,
			     slash ? slash + 1 : path) < 0) {
			vt_err("out of memory");
			free(o);
			return NULL;
		}
	}
	out_install_handlers();
	/* the temporary is on the list before a signal can find it missing */
	out_block(true, &sigs);
	fd = mkstemp(o->tmp);
	if (fd >= 0) {
		o->next = open_files;
		open_files = o;
	}
	out_block(false, &sigs);
	if (fd < 0) {
		vt_err("cannot create a temporary file for '%s': %s", path,
		       strerror(errno));
		free(o->tmp);
		free(o);
		return NULL;
	}
	/* mkstemp makes 0600; give the file the mode open(2) would. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		vt_dbg(1, "cannot set the mode of '%s': %s", o->tmp, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		vt_err("cannot open '%s': %s", o->tmp, strerror(errno));
		close(fd);
		out_block(true, &sigs);
		unlink(o->tmp);
		open_files = o->next;
		out_block(false, &sigs);
		free(o->tmp);
		free(o);
		return NULL;
	}
	return o->f;
done:
	out_block(true, &sigs);
	o->next = open_files;
	open_files = o;
	out_block(false, &sigs);
	return o->f;
}

int vt_out_close(FILE *f, const char *path, bool ok)
{
	struct out_file **pp, *o;
	sigset_t sigs;
	int err = 0;

	if (!f)
		return 0;
	if (f == stdout) {
		if (fflush(stdout) || ferror(stdout)) {
			vt_err("write error on stdout: %s", strerror(errno));
			return VT_EC_SYSTEM;
		}
		return 0;
	}
	for (pp = &open_files; *pp && (*pp)->f != f; pp = &(*pp)->next)
		;
	o = *pp;
	if (!o) {
		fclose(f);
		return 0;
	}

	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (ok && err)
		vt_err("cannot write '%s': %s", path, strerror(err));
	if (o->tmp) {
		if (ok && !err && rename(o->tmp, path)) {
			err = errno;
			vt_err("cannot rename '%s' to '%s': %s", o->tmp, path,
			       strerror(err));
		}
		if (!ok || err)
			unlink(o->tmp);
	}
	/* off the list only once the temporary is renamed or removed */
	out_block(true, &sigs);
	for (pp = &open_files; *pp != o; pp = &(*pp)->next)
		;
	*pp = o->next;
	out_block(false, &sigs);
	free(o->tmp);
	free(o);
	return ok && err ? VT_EC_SYSTEM : 0;
}
