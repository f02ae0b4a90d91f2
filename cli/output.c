// SPDX-License-Identifier: GPL-2.0
/*
 * Output files are written whole or not at all (spec/interfaces.md 1.4),
 * the way git's lockfile.c publishes files:
 *
 * - -o FILE goes to a temporary file in the folder of FILE; when FILE is a
 *   symbolic link, the link is resolved first (lockfile.c resolve_symlink())
 *   and the temporary goes beside the link's target, so that the link
 *   stays and its target gets the output.  /dev/stdout with stdout a
 *   regular file is such a chain (/dev/stdout -> /proc/self/fd/1 -> the
 *   file); a /proc/PID/fd link whose text names no such file (a deleted
 *   file, another mount namespace) is written in place instead.
 * - A path that exists and is not a regular file (/dev/null, a FIFO, a
 *   terminal) is written in place: it cannot be replaced, and renaming over
 *   a device node would be wrong.
 * - The temporary gets the mode of the file it replaces (a new file the
 *   mode open(2) would give it) and a name that fits NAME_MAX: the target's
 *   name shortened, never lengthened past the limit.
 * - vt_out_close() only checks and closes a temporary; vt_out_finish(),
 *   called by main() with the exit code, renames all of them when the run
 *   succeeded (0, or 1 for a gate regression) and removes them otherwise,
 *   so that a run that fails after writing one output leaves none
 *   (docs/exit-codes.md: nothing written on 3, 4 or 5).
 *
 * Like git's lockfile.c (via tempfile.c and sigchain.c), SIGINT, SIGTERM,
 * SIGHUP and SIGPIPE remove every temporary file still there, then the signal is
 * raised again with its default action, so that the caller sees the
 * process end by that signal and nothing is left behind; an exit() that
 * does not pass through vt_out_finish() removes them too.
 *
 * vt_out_check() refuses, before a command runs, two outputs naming the
 * same file or an output naming a file the command reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

struct out_file {
	FILE *f;		/* NULL once closed, waiting for vt_out_finish() */
	char *tmp;		/* NULL: written in place */
	char *target;		/* what the temporary is renamed to */
	struct out_file *next;	/* in the order the files were opened */
};

static struct out_file *open_files;
static pid_t out_owner;

/*
 * Every signal that ends the process by default and that a run meets in
 * use: ^C, kill, a closed terminal, and a closed pipe on stdout
 * (`replay --per-event=F ... | head -c1`: the report's write raises
 * SIGPIPE, which left .F.XXXXXX).  With SIGPIPE ignored by the parent the
 * write fails with EPIPE instead, a write error (exit 4), after which
 * vt_out_finish() removes the temporaries as on every failure.
 */
static const int out_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* Symbolic links followed at most (Linux's own limit, MAXSYMLINKS). */
#define OUT_MAX_LINKS 40

static void out_remove_all(void)
{
	/* a child that did not exec must not remove its parent's files */
	if (getpid() != out_owner)
		return;
	for (struct out_file *o = open_files; o; o = o->next)
		if (o->tmp)
			unlink(o->tmp);
}

/*
 * Removes the temporaries (unlink() is async-signal-safe; the list is only
 * changed with these signals blocked) and dies by the same signal.
 */
static void out_signal(int sig)
{
	out_remove_all();
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
	out_owner = getpid();
	atexit(out_remove_all);
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

/* Append @o to the list (in opening order), with the signals blocked. */
static void out_list_add(struct out_file *o)
{
	struct out_file **pp;
	sigset_t sigs;

	out_block(true, &sigs);
	for (pp = &open_files; *pp; pp = &(*pp)->next)
		;
	*pp = o;
	out_block(false, &sigs);
}

/* Take @o off the list, once its temporary is renamed or removed. */
static void out_list_del(struct out_file *o)
{
	struct out_file **pp;
	sigset_t sigs;

	out_block(true, &sigs);
	for (pp = &open_files; *pp && *pp != o; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = o->next;
	out_block(false, &sigs);
}

static void out_free(struct out_file *o)
{
	free(o->tmp);
	free(o->target);
	free(o);
}

static bool is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

/*
 * The file a write to @path lands in: the last component's symbolic links
 * followed, as git's lockfile.c resolve_symlink() does (a relative link
 * replaces the last component).  A dangling link gives its target, which
 * the output then creates.  NULL with errno set (ELOOP, ENOMEM).
 */
static char *out_resolve(const char *path)
{
	char *cur = strdup(path), buf[PATH_MAX];

	for (int depth = 0; cur; depth++) {
		ssize_t n = readlink(cur, buf, sizeof(buf));
		const char *slash;
		char *next;

		if (n < 0)
			return cur;	/* not a link, or nothing there */
		if (depth == OUT_MAX_LINKS || (size_t)n >= sizeof(buf)) {
			free(cur);
			errno = depth == OUT_MAX_LINKS ? ELOOP : ENAMETOOLONG;
			return NULL;
		}
		buf[n] = '\0';
		slash = strrchr(cur, '/');
		if (asprintf(&next, "%.*s%s", buf[0] == '/' || !slash ? 0 :
			     (int)(slash - cur + 1), cur, buf) < 0)
			next = NULL;
		free(cur);
		cur = next;
	}
	errno = ENOMEM;
	return NULL;
}

/*
 * The temporary's name: ".NAME.XXXXXX" beside @target, NAME cut so that
 * the whole fits NAME_MAX (a legal 255-byte name must stay writable).
 */
static char *out_tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	size_t room = NAME_MAX - strlen("..XXXXXX");
	size_t blen = strlen(base);
	char *tmp;

	if (asprintf(&tmp, "%.*s.%.*s.XXXXXX", slash ? (int)(slash - target + 1) : 0,
		     target, (int)(blen < room ? blen : room), base) < 0)
		return NULL;
	return tmp;
}

static FILE *out_in_place(struct out_file *o, const char *path)
{
	o->f = fopen(path, "w");
	if (!o->f) {
		vt_err("cannot open '%s': %s", path, strerror(errno));
		out_free(o);
		return NULL;
	}
	out_list_add(o);
	return o->f;
}

FILE *vt_out_open(const char *path)
{
	struct out_file *o;
	struct stat st, tst;
	bool exists;
	sigset_t sigs;
	mode_t mode;
	int fd;

	if (is_stdout(path))
		return stdout;
	if (!*path) {
		vt_err("an output file name is empty");
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		vt_err("out of memory");
		return NULL;
	}
	o->target = out_resolve(path);
	if (!o->target) {
		vt_err("cannot open '%s': %s", path, strerror(errno));
		out_free(o);
		return NULL;
	}
	exists = !stat(path, &st);
	/* a device, a FIFO, a folder (which then fails to open) */
	if (exists && !S_ISREG(st.st_mode))
		return out_in_place(o, path);
	/* a regular file the resolved name does not reach (a /proc/PID/fd
	 * link to a deleted file or one of another mount namespace) */
	if (exists && (stat(o->target, &tst) || tst.st_dev != st.st_dev ||
		       tst.st_ino != st.st_ino))
		return out_in_place(o, path);
	o->tmp = out_tmp_name(o->target);
	if (!o->tmp) {
		vt_err("out of memory");
		out_free(o);
		return NULL;
	}
	out_install_handlers();
	/* the temporary is on the list before a signal can find it missing */
	out_block(true, &sigs);
	fd = mkstemp(o->tmp);
	if (fd >= 0)
		out_list_add(o);
	out_block(false, &sigs);
	if (fd < 0) {
		vt_err("cannot create a temporary file for '%s': %s", path,
		       strerror(errno));
		out_free(o);
		return NULL;
	}
	/* mkstemp makes 0600: the mode of the file replaced, else the one
	 * open(2) would give a new file */
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode))
		vt_dbg(1, "cannot set the mode of '%s': %s", o->tmp, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		vt_err("cannot open '%s': %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		out_list_del(o);
		out_free(o);
		return NULL;
	}
	return o->f;
}

/*
 * The errno of a failed write that left none: a large write bypasses the
 * stream's buffer, so when it fails fflush() has nothing to retry and
 * errno is not set again.  A pipe whose reader is gone still says so to
 * poll() (POLLERR on its write end): EPIPE, "Broken pipe", as a buffered
 * write would have said; anything else EIO.
 */
static int lost_errno(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR))
		return EPIPE;
	return EIO;
}

int vt_out_close(FILE *f, const char *path, bool ok)
{
	struct out_file *o;
	int err = 0;

	if (!f)
		return 0;
	if (f == stdout) {
		errno = 0;
		if (fflush(stdout) || ferror(stdout)) {
			/* !ok: the run failed and has said why (the same write) */
			if (ok)
				vt_err("write error on stdout: %s",
				       strerror(errno ? errno : lost_errno(STDOUT_FILENO)));
			return VT_EC_SYSTEM;
		}
		return 0;
	}
	for (o = open_files; o && o->f != f; o = o->next)
		;
	if (!o) {
		fclose(f);
		return 0;
	}

	errno = 0;
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (ok && err)
		vt_err("cannot write '%s': %s", path, strerror(err));
	/* written and closed: renamed by vt_out_finish() */
	if (o->tmp && ok && !err)
		return 0;
	if (o->tmp)
		unlink(o->tmp);
	out_list_del(o);
	out_free(o);
	return ok && err ? VT_EC_SYSTEM : 0;
}

int vt_out_finish(int rc)
{
	bool commit = rc == 0 || rc == 1;

	while (open_files) {
		struct out_file *o = open_files;

		/* still open: a path that returned without closing it */
		if (o->f) {
			fclose(o->f);
			if (o->tmp)
				unlink(o->tmp);
		} else if (o->tmp && commit && rename(o->tmp, o->target)) {
			vt_err("cannot rename '%s' to '%s': %s", o->tmp,
			       o->target, strerror(errno));
			rc = VT_EC_SYSTEM;
			commit = false;
			unlink(o->tmp);
		} else if (o->tmp && !commit) {
			unlink(o->tmp);
		}
		out_list_del(o);
		out_free(o);
	}
	return rc;
}

/* ---- outputs that overwrite each other or an input -------------------- */

struct out_id {
	const struct vt_io *io;
	bool regular;		/* an existing regular file: compared by inode */
	dev_t dev;
	ino_t ino;
	char *canon;		/* else: its absolute, normalised path */
};

/* @path made absolute, "." and ".." and repeated slashes taken out. */
static char *out_normalise(const char *path)
{
	char *cwd = NULL, *abs, *r;
	size_t n = 0;

	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
	}
	if (asprintf(&abs, "%s/%s", cwd ? cwd : "", path) < 0) {
		free(cwd);
		return NULL;
	}
	free(cwd);
	r = malloc(strlen(abs) + 2);
	if (!r) {
		free(abs);
		return NULL;
	}
	for (char *save, *c = strtok_r(abs, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n && r[--n] != '/')
				;
			continue;
		}
		r[n++] = '/';
		n += (size_t)sprintf(r + n, "%s", c);
	}
	if (!n)
		r[n++] = '/';
	r[n] = '\0';
	free(abs);
	return r;
}

/*
 * Where the file @io names is: its inode when it is a regular file, else
 * (an output not there yet) the path it will be created at: links
 * resolved, the folder's real path where it exists.  false: not compared
 * (stdout, a device or FIFO written in place, an input not there).
 */
static bool out_identify(const struct vt_io *io, struct out_id *id)
{
	struct stat st;
	char *target, *slash, *dir;

	memset(id, 0, sizeof(*id));
	id->io = io;
	if (!stat(io->path, &st)) {
		id->regular = true;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return S_ISREG(st.st_mode);
	}
	if (!(io->mode & VT_IO_WRITE))
		return false;
	target = out_resolve(io->path);
	if (!target)
		return false;
	slash = strrchr(target, '/');
	if (slash)
		*slash = '\0';
	dir = realpath(slash ? (slash == target ? "/" : target) : ".", NULL);
	if (slash)
		*slash = '/';
	if (dir && asprintf(&id->canon, "%s/%s", strcmp(dir, "/") ? dir : "",
			    slash ? slash + 1 : target) < 0)
		id->canon = NULL;
	if (!dir)
		id->canon = out_normalise(target);
	free(dir);
	free(target);
	return id->canon != NULL;
}

static bool out_same(const struct out_id *a, const struct out_id *b)
{
	if (a->regular != b->regular)
		return false;
	if (a->regular)
		return a->dev == b->dev && a->ino == b->ino;
	return !strcmp(a->canon, b->canon);
}

/* "-o 'x'", "--svg='x'", "the trace 'x'" */
static const char *out_name(const struct vt_io *io, char *buf, size_t size)
{
	if (io->opt[0] == '-')
		snprintf(buf, size, "%s%s'%s'", io->opt, io->opt[1] == '-' ? "=" : " ",
			 io->path);
	else
		snprintf(buf, size, "the %s '%s'", io->opt, io->path);
	return buf;
}

int vt_out_check(const struct vt_cli *cli, const struct vt_io *io, size_t n,
		 char *const *inputs, int n_inputs, const char *what)
{
	char bufs[VT_COMMON_FILES_MAX][PATH_MAX];
	struct vt_io common[VT_COMMON_FILES_MAX];
	/* the files the option table marks, never a list kept here */
	size_t nc = vt_common_files(cli, common, VT_COMMON_FILES_MAX, bufs);
	size_t total = nc + n + (size_t)(n_inputs > 0 ? n_inputs : 0), nid = 0;
	struct vt_io *all = calloc(total ? total : 1, sizeof(*all));
	struct out_id *ids = calloc(total ? total : 1, sizeof(*ids));
	int rc = 0;

	if (!all || !ids) {
		free(all);
		free(ids);
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	memcpy(all, common, nc * sizeof(*common));
	if (n)
		memcpy(all + nc, io, n * sizeof(*io));
	for (int i = 0; i < n_inputs; i++)
		all[nc + n + (size_t)i] = (struct vt_io){ what, inputs[i], VT_IO_READ };

	for (size_t i = 0; i < total && !rc; i++) {
		char a[PATH_MAX + 32], b[PATH_MAX + 32];

		if (!all[i].path || !all[i].mode)
			continue;
		if (!*all[i].path && (all[i].mode & VT_IO_WRITE)) {
			vt_err("%s: the file name is empty", all[i].opt);
			rc = VT_EC_USAGE;
			break;
		}
		if (!strcmp(all[i].path, "-") || !out_identify(&all[i], &ids[nid]))
			continue;
		for (size_t k = 0; k < nid; k++) {
			const struct vt_io *x = ids[k].io, *y = &all[i];
			unsigned int m = x->mode | y->mode;

			if (!out_same(&ids[k], &ids[nid]) || !(m & VT_IO_WRITE))
				continue;
			/* the file one option reads and then replaces (gate
			 * --update-baseline), given again as an input */
			if ((x->mode == m && y->mode == VT_IO_READ) ||
			    (y->mode == m && x->mode == VT_IO_READ))
				continue;
			if ((x->mode & VT_IO_WRITE) && (y->mode & VT_IO_WRITE))
				vt_err("%s and %s name the same file: one output would "
				       "replace the other; give each its own file",
				       out_name(x, a, sizeof(a)), out_name(y, b, sizeof(b)));
			else
				vt_err("%s and %s name the same file: the output would "
				       "replace an input; write it to another file",
				       out_name(x, a, sizeof(a)), out_name(y, b, sizeof(b)));
			rc = VT_EC_USAGE;
			break;
		}
		nid++;
	}
	for (size_t i = 0; i < nid; i++)
		free(ids[i].canon);
	free(ids);
	free(all);
	return rc;
}
