// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a recording for vmaptool import: the format is sniffed from its
 * first bytes (trace.dat magic, xz magic, else text), running its reader
 * and the reconstruction (vt_import_run()), and closing it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/import/dat-check.h"
#include "core/import/source.h"
#include "core/import/kallsyms.h"


/* ---- open / close -------------------------------------------------- */

void vt_import_opts_init(struct vt_import_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->explicit_purges = true;
}

/*
 * Whether the memory a valid recording's largest block needs, @max (what
 * --max-input lets a section inflate to) or the file's @size, whichever
 * is larger, can be had now: reserved, not touched, and given back.  Then
 * a failed allocation of libtracecmd asked for more than that.
 */
static bool huge_ask(uint64_t max, uint64_t size)
{
	uint64_t need = (max > size ? max : size) + (1u << 20);
	void *p = need < SIZE_MAX ? malloc((size_t)need) : NULL;

	free(p);
	return p != NULL;
}

static int open_common(struct vt_import *im, const unsigned char *head,
		       size_t hlen, int fd, struct vt_error *err)
{
	if (hlen >= sizeof(dat_magic) &&
	    !memcmp(head, dat_magic, sizeof(dat_magic))) {
		struct stat st;
		int rc;

		im->sum.format = VT_IMPORT_FMT_DAT;
		/*
		 * libtracecmd trusts the sizes and offsets of the file:
		 * check them first (dat-check.c), from the start.
		 */
		if (fstat(fd, &st)) {
			rc = -errno;
			close(fd);
			return vt_error_set(err, rc, "cannot read recording '%s': %s",
					    im->name, strerror(-rc));
		}
		rc = vt_dat_check(fd, st.st_size, im->max_input, im->name, err);
		if (rc || lseek(fd, 0, SEEK_SET)) {
			close(fd);
			return rc ? rc : vt_error_set(err, -errno,
						      "cannot read recording '%s': %s",
						      im->name, strerror(errno));
		}
		tracecmd_set_loglevel(TEP_LOG_CRITICAL);
		/*
		 * The kallsyms section is kept, not parsed, and resolved
		 * only if a record needs a function name (kallsyms.h).
		 * Without memory for that, libtraceevent parses it.
		 */
		im->src->ksyms = vt_ksyms_new();
		if (im->src->ksyms)
			vt_ksyms_capture_begin(im->src->ksyms);
		errno = 0;
		im->src->dat = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
		vt_ksyms_capture_end();
		if (!im->src->dat) {
			/*
			 * libtracecmd says only NULL; a failed malloc() leaves
			 * ENOMEM (the headers were checked above): out of
			 * memory, exit 4, not a corrupt recording -- unless
			 * memory for the largest block a valid recording can
			 * ask for (a section inflates to --max-input at most,
			 * dat-check.c) is there: then a damaged size field in
			 * a part dat-check leaves to libtracecmd (a compressed
			 * section's contents) asked for more (2^61 bytes, say)
			 */
			rc = errno;
			close(fd);
			if (rc == ENOMEM && !huge_ask(im->max_input, (uint64_t)st.st_size))
				return vt_error_set(err, -ENOMEM,
						    "out of memory reading the trace-cmd recording '%s'",
						    im->name);
			return vt_error_set(err, VT_ERR_IMPORT,
					    "corrupt or unsupported trace-cmd recording%s",
					    rc == ENOMEM ?
					    " (a size in it asks for more memory than any "
					    "recording within --max-input needs)" : "");
		}
		if (im->src->ksyms)
			vt_ksyms_attach(im->src->ksyms, tracecmd_get_tep(im->src->dat));
		return 0;
	}
	if (fd >= 0)
		close(fd);
	if (hlen >= sizeof(xz_magic) &&
	    !memcmp(head, xz_magic, sizeof(xz_magic))) {
		im->sum.format = VT_IMPORT_FMT_TEXT_XZ;
		im->src->xz = true;
		return vt_im_xz_start(im, err);
	}
	im->sum.format = VT_IMPORT_FMT_TEXT;
	return 0;
}

static struct vt_import *import_alloc(const char *name,
				      const struct vt_import_opts *opts)
{
	struct vt_import *im = calloc(1, sizeof(*im));

	if (!im)
		return NULL;
	im->src = calloc(1, sizeof(*im->src));
	im->name = strdup(name ? name : "(memory)");
	if (!im->src || !im->name) {
		free(im->src);
		free(im->name);
		free(im);
		return NULL;
	}
	if (opts)
		im->opts = *opts;
	else
		vt_import_opts_init(&im->opts);
	im->max_input = im->opts.max_input ? im->opts.max_input :
			VT_MAX_INPUT_DEFAULT;
	im->min_linear = UINT64_MAX;
	/* the va tables' key: a recording cannot choose colliding addresses */
	vt_siphash_key_random(&im->hash_key);
	im->cfg.page_shift = im->opts.page_shift ? im->opts.page_shift :
			     PAGE_SHIFT_4K;
	return im;
}

/*
 * A descriptor libtracecmd can read the whole trace.dat from, at offset 0:
 * the file itself when it is a regular file, else (a pipe, a FIFO) a memfd
 * holding the sniffed bytes and the rest of the stream, bounded by
 * --max-input.
 */
static int dat_fd(struct vt_import *im, const char *path, struct vt_error *err)
{
	char buf[65536];
	struct stat st;
	int fd;

	if (!fstat(fileno(im->src->f), &st) && S_ISREG(st.st_mode)) {
		fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				       : dup(STDIN_FILENO);
		if (fd < 0 || lseek(fd, 0, SEEK_SET))
			goto sys;
		return fd;
	}
	fd = memfd_create("vt-import", MFD_CLOEXEC);
	if (fd < 0)
		goto sys;
	if (write(fd, im->src->head, im->src->head_len) != (ssize_t)im->src->head_len)
		goto sys_close;
	for (;;) {
		size_t n = fread(buf, 1, sizeof(buf), im->src->f);

		if (n && write(fd, buf, n) != (ssize_t)n)
			goto sys_close;
		if (n < sizeof(buf))
			break;
	}
	if (ferror(im->src->f)) {
		close(fd);
		if (vt_input_limit_hit(im->src->in, err))
			return err->code;
		return vt_error_set(err, -EIO, "cannot read recording '%s'", path);
	}
	if (lseek(fd, 0, SEEK_SET))
		goto sys_close;
	return fd;
sys_close:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
sys:
	return vt_error_set(err, -errno, "cannot read recording '%s': %s", path,
			    strerror(errno));
}

int vt_import_open(const char *path, const struct vt_import_opts *opts,
		   struct vt_import **out, struct vt_error *err)
{
	struct vt_import *im;
	int fd, rc;

	*out = NULL;
	im = import_alloc(path, opts);
	if (!im)
		return vt_err_oom(err);
	if (err)
		snprintf(err->file, sizeof(err->file), "%s", path);
	/*
	 * "-", pipes, FIFOs and devices too (core/input.h); the format is
	 * sniffed from the first bytes, which text.c hands out first: the
	 * stream is never rewound.
	 */
	rc = vt_input_open(path, "recording", im->max_input, &im->src->f, &im->src->in, err);
	if (!rc)
		rc = vt_input_whole(im->src->in, err);
	if (rc) {
		vt_import_close(im);
		return rc;
	}
	im->src->head_len = fread(im->src->head, 1, sizeof(im->src->head), im->src->f);
	if (ferror(im->src->f)) {
		rc = vt_input_limit_hit(im->src->in, err) ? err->code :
		     vt_error_set(err, -EIO, "cannot read recording '%s'", path);
		vt_import_close(im);
		return rc;
	}
	fd = -1;
	if (im->src->head_len >= sizeof(dat_magic) &&
	    !memcmp(im->src->head, dat_magic, sizeof(dat_magic))) {
		fd = dat_fd(im, path, err);
		if (fd < 0) {
			vt_import_close(im);
			return fd;
		}
	}
	rc = open_common(im, im->src->head, im->src->head_len, fd, err);
	if (rc) {
		vt_import_close(im);
		return rc;
	}
	*out = im;
	return 0;
}

int vt_import_open_mem(const char *name, const void *buf, size_t len,
		       const struct vt_import_opts *opts,
		       struct vt_import **out, struct vt_error *err)
{
	struct vt_import *im;
	int fd = -1, rc;

	*out = NULL;
	im = import_alloc(name, opts);
	if (!im)
		return vt_err_oom(err);
	im->src->mem = buf;
	im->src->mem_len = len;
	if (!im->src->mem)
		im->src->mem = (const unsigned char *)"";
	if (len >= sizeof(dat_magic) && !memcmp(buf, dat_magic,
						sizeof(dat_magic))) {
		/* libtracecmd reads from a descriptor */
		const char *p = buf;
		size_t done = 0;

		fd = memfd_create("vt-import", MFD_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			vt_import_close(im);
			return vt_error_set(err, rc, "memfd_create: %s",
					    strerror(-rc));
		}
		while (done < len) {
			ssize_t n = write(fd, p + done, len - done);

			if (n <= 0) {
				close(fd);
				vt_import_close(im);
				return vt_error_set(err, -EIO,
						    "cannot buffer '%s'", name);
			}
			done += n;
		}
		lseek(fd, 0, SEEK_SET);
	}
	rc = open_common(im, buf, len, fd, err);
	if (rc) {
		vt_import_close(im);
		return rc;
	}
	*out = im;
	return 0;
}

int vt_import_open_records(const char *name, struct tep_handle *tep,
			   const struct vt_import_opts *opts,
			   struct vt_import **out, struct vt_error *err)
{
	struct vt_import *im;

	*out = NULL;
	im = import_alloc(name, opts);
	if (!im)
		return vt_err_oom(err);
	im->sum.format = VT_IMPORT_FMT_DAT;
	im->src->fed = vt_im_dat_ctx_new(im, tep);
	if (!im->src->fed) {
		vt_import_close(im);
		return vt_err_oom(err);
	}
	*out = im;
	return 0;
}

/*
 * Text in two passes (docs/vmaptool-import.md, "Memory"): the first
 * finds what the whole recording decides (the VA_BITS, the vmalloc range,
 * the areas that never end), the second reconstructs again and writes
 * each area's events once they are final, so that memory does not grow
 * with the recording.  The input is read twice: a regular file or a
 * memory buffer from its start, anything else (a pipe) from a copy pass
 * 1 makes in a temporary file.  The events go to a temporary file until
 * vt_import_write() (the summary comes first).  Without temporary files,
 * one pass that keeps everything, as a trace.dat.
 */
static int text_two_passes(struct vt_import *im, struct vt_error *err)
{
	int rc;

	im->src->rewindable = im->src->mem || (im->src->in && vt_input_seekable(im->src->in));
	if (!im->src->rewindable && im->src->f) {
		im->src->raw_spool = vt_tmpfile();
		im->src->rewindable = im->src->raw_spool != NULL;
	}
	if (!im->src->rewindable)
		return vt_im_text_run(im, err);
	if (!im->src->mem)
		im->ev_spool = vt_tmpfile();	/* NULL: kept in memory */
	im->pass = 1;
	rc = vt_im_text_run(im, err);
	if (rc < 0)
		return rc;
	rc = vt_im_text_rewind(im, err);
	if (rc < 0)
		return rc;
	vt_im_pass2(im);
	if (im->oom)
		return vt_err_oom(err);
	return vt_im_text_run(im, err);
}

/* The reader of the recording's format, then the reconstruction. */
int vt_import_run(struct vt_import *im, struct vt_error *err)
{
	int rc;

	if (im->ran)
		return (int)im->sum.out_events;
	im->ran = true;
	if (im->src->fed)
		rc = im->oom ? vt_err_oom(err) : 0;
	else if (im->src->dat)
		rc = vt_im_dat_run(im, err);
	else
		rc = text_two_passes(im, err);
	if (rc < 0)
		return rc;
	return vt_im_finish(im, err);
}

void vt_import_close(struct vt_import *im)
{
	if (!im)
		return;
	if (im->src->dat)
		tracecmd_close(im->src->dat);
	vt_ksyms_free(im->src->ksyms);	/* after the tep that resolves through it */
	vt_im_dat_ctx_free(im->src->fed);
	if (im->src->f || im->src->in)
		vt_input_close(im->src->in, im->src->f);
	if (im->src->lz_init)
		lzma_end(&im->src->lz);
	vt_im_free_state(im);
	if (im->src->raw_spool)
		fclose(im->src->raw_spool);
	free(im->src->lbuf);
	free(im->meta);
	free(im->warnings);
	free(im->name);
	free(im->src);
	free(im);
}

