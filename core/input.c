// SPDX-License-Identifier: GPL-2.0
/*
 * Counting input streams: see core/input.h.  The stream is a glibc
 * fopencookie() over read(2) on the file descriptor, so that every reader
 * keeps using stdio (getline, fread) and the count cannot be bypassed.
 */
#define _GNU_SOURCE	/* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/input.h"

struct vt_input {
	int fd;
	uint64_t max;		/* bytes */
	uint64_t total;		/* bytes read (or accounted) */
	uint64_t since_nl;	/* bytes since the last newline */
	bool per_line;		/* the limit is per line */
	bool saw_nl;		/* a whole line has been read */
	bool hit;		/* a read stopped at the limit */
	int64_t size;		/* of a regular file, else -1 */
	char path[256];
	char limit[64];		/* the limit in messages: "" is --max-input */
};

/* "the --max-input limit", or a fixed limit ("a profile's limit") */
static const char *limit_name(const struct vt_input *in)
{
	return in->limit[0] ? in->limit : "the --max-input limit";
}

const char *vt_input_size_text(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int u = -1;
	uint64_t v = n;

	while (v >= 1024 && !(v & 1023) && u < 5) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
	else
		snprintf(buf, len, "%llu %s (%llu bytes)", (unsigned long long)v,
			 unit[u], (unsigned long long)n);
	return buf;
}

static bool over(struct vt_input *in, const char *buf, size_t n)
{
	if (!in->per_line) {
		in->total += n;
		return in->total > in->max;
	}
	/* per line: the bytes after the last newline of @buf */
	for (size_t i = n; i-- > 0;)
		if (buf[i] == '\n') {
			in->saw_nl = true;
			in->since_nl = n - 1 - i;
			in->total += n;
			return in->since_nl > in->max;
		}
	in->since_nl += n;
	in->total += n;
	return in->since_nl > in->max;
}

static ssize_t input_read(void *cookie, char *buf, size_t size)
{
	struct vt_input *in = cookie;
	ssize_t n;

	if (in->hit) {
		errno = EFBIG;
		return -1;
	}
	do
		n = read(in->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n > 0 && over(in, buf, n)) {
		in->hit = true;
		errno = EFBIG;
		return -1;
	}
	return n;
}

/*
 * Only a regular file can be read twice (the two passes of a streamed
 * one-document trace, core/trace/trace-json.c); the count follows the
 * position, so that a second pass is not counted twice and the limit stays
 * one of the input's size.  A limit once hit stays hit.
 */
static int input_seek(void *cookie, off64_t *pos, int whence)
{
	struct vt_input *in = cookie;
	off_t o;

	if (in->size < 0) {
		errno = ESPIPE;
		return -1;
	}
	o = lseek(in->fd, *pos, whence);
	if (o < 0)
		return -1;
	*pos = o;
	in->total = o;
	in->since_nl = 0;
	return 0;
}

static int input_close(void *cookie)
{
	struct vt_input *in = cookie;

	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
	return 0;
}

int vt_input_open(const char *path, const char *what, uint64_t max, FILE **f,
		  struct vt_input **out, struct vt_error *err)
{
	static const cookie_io_functions_t io = {
		.read = input_read, .seek = input_seek, .close = input_close,
	};
	struct vt_input *in;
	struct stat st;
	int ret;

	*f = NULL;
	*out = NULL;
	in = calloc(1, sizeof(*in));
	if (!in)
		return vt_error_set(err, -ENOMEM, "out of memory");
	in->max = max ? max : VT_MAX_INPUT_DEFAULT;
	in->size = -1;
	snprintf(in->path, sizeof(in->path), "%s", path);
	snprintf(err->file, sizeof(err->file), "%s", path);
	if (!strcmp(path, "-")) {
		in->fd = STDIN_FILENO;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			ret = -errno;
			free(in);
			return vt_error_set(err, ret, "cannot open %s '%s': %s", what,
					    path, strerror(-ret));
		}
	}
	if (fstat(in->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				   "'%s' is a directory", path);
		goto fail_set;
	}
	if (S_ISREG(st.st_mode))
		in->size = st.st_size;
	*f = fopencookie(in, "r", io);
	if (!*f) {
		ret = -errno;
		goto fail;
	}
	setvbuf(*f, NULL, _IOFBF, 1 << 16);
	*out = in;
	return 0;
fail:
	vt_error_set(err, ret, "cannot read %s '%s': %s", what, path,
		     strerror(-ret));
fail_set:
	input_close(in);
	free(in);
	return ret;
}

int vt_input_whole(struct vt_input *in, struct vt_error *err)
{
	char a[64], b[64];

	/* what a reader that did not know read line by line counts now */
	in->per_line = false;
	if (in->total > in->max) {
		in->hit = true;
		vt_input_limit_hit(in, err);
		return VT_ERR_INPUT_LIMIT;
	}
	if (in->size < 0 || (uint64_t)in->size <= in->max)
		return 0;
	snprintf(err->file, sizeof(err->file), "%s", in->path);
	err->line = err->column = 0;
	return vt_error_set(err, VT_ERR_INPUT_LIMIT,
			    "input of %s is larger than %s of %s",
			    vt_input_size_text(in->size, a, sizeof(a)), limit_name(in),
			    vt_input_size_text(in->max, b, sizeof(b)));
}

bool vt_input_seekable(const struct vt_input *in)
{
	return in && in->size >= 0;
}

void vt_input_per_line(struct vt_input *in)
{
	in->per_line = true;
}

bool vt_input_account(struct vt_input *in, uint64_t n)
{
	if (in->total + n < in->total || in->total + n > in->max) {
		in->hit = true;
		return false;
	}
	in->total += n;
	return true;
}

uint64_t vt_input_limit(const struct vt_input *in)
{
	return in->max;
}

bool vt_input_limit_hit(const struct vt_input *in, struct vt_error *err)
{
	char b[64];

	if (!in || !in->hit)
		return false;
	snprintf(err->file, sizeof(err->file), "%s", in->path);
	err->line = err->column = 0;
	/* the first line (which says whether a trace is JSON Lines) is
	 * all the input there is so far */
	vt_error_set(err, VT_ERR_INPUT_LIMIT,
		     in->per_line && in->saw_nl ?
		     "a line of the input is longer than %s of %s" :
		     "input is larger than %s of %s",
		     limit_name(in), vt_input_size_text(in->max, b, sizeof(b)));
	return true;
}

FILE *vt_tmpfile(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd, e;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(path, sizeof(path), "%s/vmaptool.XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	unlink(path);
	f = fdopen(fd, "w+");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

void vt_input_close(struct vt_input *in, FILE *f)
{
	if (f)
		fclose(f);
	else if (in)
		input_close(in);
	free(in);
}

/*
 * jansson (2.14, load.c) reports few allocation failures as
 * json_error_out_of_memory: most return NULL with the error as
 * jsonp_error_init() left it (no text, line -1, the code byte unset), and a
 * failed string buffer in the lexer is "invalid token".  So jansson's
 * allocator (installed by core/trace/trace-json.c, the one process-wide
 * hook) counts its failures here, per thread; a parse error after one is
 * out of memory.  Every parse error jansson detects has a text.
 */
static _Thread_local unsigned long json_alloc_failures;
static _Thread_local struct vt_json_budget *json_budget;

void vt_json_alloc_failed(void)
{
	json_alloc_failures++;
	if (json_budget)
		json_budget->failed = true;
}

json_t *vt_json_whole(json_t *root)
{
	if (root && json_alloc_failures) {
		json_decref(root);
		return NULL;
	}
	return root;
}

bool vt_json_error_oom(const json_error_t *je)
{
	/* no text: jsonp_error_init() leaves the code byte unset */
	bool oom = json_alloc_failures || !je->text[0] ||
		   json_error_code(je) == json_error_out_of_memory;

	json_alloc_failures = 0;
	return oom;
}


void vt_json_budget_begin(struct vt_json_budget *b, uint64_t max)
{
	/* at least 16 MiB: a limit set small for the bytes (tests use a
	 * document's size) must not refuse the KiB a small tree takes */
	b->max = max ? max : VT_MAX_INPUT_DEFAULT;
	if (b->max < VT_JSON_BUDGET_MIN)
		b->max = VT_JSON_BUDGET_MIN;
	b->used = 0;
	b->hit = b->failed = false;
	json_alloc_failures = 0;	/* a load's own failures */
	b->prev = json_budget;
	json_budget = b;
}

bool vt_json_budget_end(struct vt_json_budget *b)
{
	json_budget = b->prev;
	return b->hit;
}

bool vt_json_budget_charge(size_t size)
{
	struct vt_json_budget *b = json_budget;
	uint64_t cost = ((uint64_t)size + 8 + 15) & ~(uint64_t)15;

	if (!b)
		return true;
	if (b->failed)	/* out of memory stays out for the rest of the load */
		return false;
	if (b->hit || cost > b->max - b->used) {
		b->hit = true;
		return false;
	}
	b->used += cost;
	return true;
}

int vt_json_budget_error(struct vt_error *err, const char *path,
			 unsigned long line, unsigned long col, const char *what,
			 uint64_t max)
{
	char b[64];

	snprintf(err->file, sizeof(err->file), "%.255s", path);
	err->line = line;
	err->column = line ? col : 0;
	return vt_error_set(err, VT_ERR_INPUT_LIMIT,
			    "the JSON of %s needs more memory parsed than the %s --max-input allows "
			    "for a JSON tree (the limit, at least 16 MiB; a tree takes up to about 30 times its text)",
			    what, vt_input_size_text(max, b, sizeof(b)));
}

int vt_json_oom_error(struct vt_error *err, const char *path)
{
	snprintf(err->file, sizeof(err->file), "%.255s", path);
	err->line = err->column = 0;
	return vt_error_set(err, -ENOMEM,
			    "out of memory reading the JSON of '%.255s'", path);
}

const char *vt_json_error_plain(const json_error_t *je)
{
	/* RFC 8259 8.1: no BOM before JSON text (a parser may skip one;
	 * vmaptool says so instead, as for any byte before the document) */
	if (je->column == 1 && strstr(je->text, "near '\xef\xbb\xbf"))
		return "a UTF-8 byte-order mark (EF BB BF) before the JSON text: "
		       "write it without one";
	/* jansson's lexer ends the text at a NUL and finds bytes after it */
	if (strstr(je->text, "end of file expected near end of file"))
		return "a NUL byte in the JSON text";
	return NULL;
}

int vt_json_error(struct vt_error *err, const char *path,
		  const json_error_t *je, int code, const char *prefix)
{
	const char *plain = vt_json_error_plain(je);

	snprintf(err->file, sizeof(err->file), "%.255s", path);
	/* jansson gives -1 where it has no position (out of memory, a read
	 * error): no position, never 2^64 - 1 */
	err->line = je->line > 0 ? (unsigned long)je->line : 0;
	err->column = je->line > 0 && je->column > 0 ? (unsigned long)je->column : 0;
	if (vt_json_error_oom(je))
		return vt_json_oom_error(err, path);
	return vt_error_set(err, code, "%s%s", prefix ? prefix : "", plain ? plain : je->text);
}

static int load_json(const char *path, const char *what, uint64_t max,
		     bool fixed, size_t jflags, json_t **root, json_error_t *jerr,
		     struct vt_error *err)
{
	struct vt_input *in;
	FILE *f;
	int ret;

	*root = NULL;
	ret = vt_input_open(path, what, max, &f, &in, err);
	if (ret)
		return ret;
	if (fixed)
		snprintf(in->limit, sizeof(in->limit), "a %s's limit", what);
	ret = vt_input_whole(in, err);
	if (!ret) {
		struct vt_json_budget bud;

		/* a fixed limit's document (a profile) is small: its tree too */
		vt_json_budget_begin(&bud, fixed ? 0 : in->max);
		*root = json_loadf(f, jflags, jerr);
		if (vt_json_budget_end(&bud)) {
			json_decref(*root);
			*root = NULL;
			vt_json_error_oom(jerr);	/* consumed: not out of memory */
			ret = vt_json_budget_error(err, path, 0, 0, "the document", bud.max);
		}
		else if (!(*root = vt_json_whole(*root)) && vt_input_limit_hit(in, err))
			ret = err->code;
		else if (!*root && vt_json_error_oom(jerr))
			/* not vt_json_error(): the check above consumed the
			 * failures it counts (a syntax error with code 0 was
			 * the result, exit 3 for out of memory) */
			ret = vt_json_oom_error(err, path);
	}
	vt_input_close(in, f);
	return ret;
}

int vt_input_load_json(const char *path, const char *what, uint64_t max,
		       size_t jflags, json_t **root, json_error_t *jerr,
		       struct vt_error *err)
{
	return load_json(path, what, max, false, jflags, root, jerr, err);
}

int vt_input_load_json_capped(const char *path, const char *what, uint64_t max,
			      size_t jflags, json_t **root, json_error_t *jerr,
			      struct vt_error *err)
{
	return load_json(path, what, max, true, jflags, root, jerr, err);
}
