/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening an input file of any kind (docs/reliability.md): "-" is standard
 * input; pipes, FIFOs and character devices are read as a stream, never
 * rewound; every byte read is counted against the input limit
 * (--max-input), so that /dev/zero, a 2 GB sparse file or a decompression
 * bomb stops at the limit with a message naming it instead of filling
 * memory.
 *
 * The limit bounds what one reader holds in memory at once: the whole
 * input for readers that hold it whole (a one-document JSON trace, a
 * recording), one line for JSON Lines, which is read in constant memory
 * however long it is (vt_input_per_line()).
 */
#ifndef VT_INPUT_H
#define VT_INPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

/* The default of --max-input: 1 GiB. */
#define VT_MAX_INPUT_DEFAULT (1ull << 30)

struct vt_input;

/*
 * Open @path ("-": standard input), a @what ("trace", "recording"), for reading through a counting stream
 * returned in *@f; @max bytes at most (0: VT_MAX_INPUT_DEFAULT), the whole
 * input unless vt_input_per_line() says otherwise.  Errors: -errno (cannot
 * open or read), VT_ERR_TRACE_SYNTAX (a directory).
 */
int vt_input_open(const char *path, const char *what, uint64_t max, FILE **f,
		  struct vt_input **in, struct vt_error *err);
/*
 * The reader will hold the whole input: from now on the limit is the whole
 * input's (also after vt_input_per_line()); a regular file larger than the
 * limit, or a stream that already read more, is refused now, before the
 * rest is read (VT_ERR_INPUT_LIMIT).
 */
int vt_input_whole(struct vt_input *in, struct vt_error *err);
/*
 * Whether the stream can be rewound with fseek() and read again (a regular
 * file); the count then follows the position, so a second pass over the
 * same bytes does not count them twice.  Pipes, FIFOs and devices: false,
 * and fseek() fails with ESPIPE.
 */
bool vt_input_seekable(const struct vt_input *in);
/* From now on the limit applies to each line, not to the whole input (a
 * trace reader sets it before it reads the first line, which says whether
 * the trace is JSON Lines, and calls vt_input_whole() if it is not). */
void vt_input_per_line(struct vt_input *in);
/* Count @n more bytes produced from this input (decompressed bytes):
 * false once they pass the limit. */
bool vt_input_account(struct vt_input *in, uint64_t n);
/*
 * After a read error on the stream: true if it was the limit, with the
 * message in @err (VT_ERR_INPUT_LIMIT, located at @path).
 */
bool vt_input_limit_hit(const struct vt_input *in, struct vt_error *err);
uint64_t vt_input_limit(const struct vt_input *in);
/*
 * tmpfile() in $TMPDIR (else /tmp), where glibc's tmpfile() looks at
 * P_tmpdir alone: an unlinked file for a spool, gone when closed; NULL
 * with errno set if none can be made.
 */
FILE *vt_tmpfile(void);
/* Closes the stream too. */
void vt_input_close(struct vt_input *in, FILE *f);

/*
 * vt_input_load_json() - read the whole JSON document @path ("-": standard
 * input) under the rules above, for the readers that hold a document
 * whole (reports, profiles, calibration figures).  Returns 0 with *@root
 * set; 0 with *@root NULL when the bytes are not JSON (@jerr locates it:
 * the caller words the error in its own terms); or an error in @err
 * (cannot open or read: -errno; past the limit: VT_ERR_INPUT_LIMIT).
 */
struct json_t;
struct json_error_t;
int vt_input_load_json(const char *path, const char *what, uint64_t max,
		       size_t jflags, struct json_t **root,
		       struct json_error_t *jerr, struct vt_error *err);
/* The same under a fixed limit @max of its own, not --max-input: the
 * messages say "a profile's limit of 1 MiB" (@what = "profile") */
int vt_input_load_json_capped(const char *path, const char *what, uint64_t max,
			      size_t jflags, struct json_t **root,
			      struct json_error_t *jerr, struct vt_error *err);

/*
 * The one place a jansson error becomes a vt_error: located at
 * @path:LINE:COL where jansson gives a position (none where it gives -1),
 * message @prefix followed by jansson's text, code @code; but out of
 * memory (json_error_out_of_memory, which jansson reports like a syntax
 * error) is -ENOMEM, exit 4, "out of memory reading the JSON of 'FILE'".
 * vt_input_load_json() already turns out of memory into that error.
 */
bool vt_json_error_oom(const struct json_error_t *je);
/* Called by jansson's allocator hook when malloc() fails. */
void vt_json_alloc_failed(void);
/*
 * After a jansson load that returned @root: @root, or NULL (@root freed)
 * when an allocation failed during the load on this thread.  jansson 2.14
 * does not check every allocation of its lexer (load.c lex_save() drops
 * the byte strbuffer_append_byte() could not store), so a load that ran
 * out of memory and went on when memory came back (another thread freed
 * some) returns a tree with a short key or string: "events" read as
 * "evnts", a trace of 0 events.  The failure stays counted, so the
 * caller's vt_json_error_oom() reads the NULL as out of memory.
 */
struct json_t *vt_json_whole(struct json_t *root);
int vt_json_error(struct vt_error *err, const char *path,
		  const struct json_error_t *je, int code, const char *prefix);
/* What a jansson error @je means where its own words mislead, in place of
 * them: a UTF-8 byte-order mark where the text begins ("'[' or '{'
 * expected near '<BOM>'"), a NUL byte in it ("end of file expected near
 * end of file").  NULL: jansson's text says it. */
const char *vt_json_error_plain(const struct json_error_t *je);
/* "out of memory reading the JSON of '@path'" (-ENOMEM), for a caller
 * whose vt_json_error_oom() already said so (it consumes the failures it
 * counts: asking vt_json_error() again would read a lexer's "invalid
 * token" as a syntax error of code 0, i.e. success). */
int vt_json_oom_error(struct vt_error *err, const char *path);

/*
 * The memory a JSON tree may take (issue 22, item 2): jansson's tree of a
 * document costs 10 to 30 times its text (a "meta" of small objects about
 * 24), so --max-input alone admitted a 1 GiB document needing 24 GB.
 * Between vt_json_budget_begin() and _end() on a thread, every allocation
 * jansson makes outside a line arena is charged, as malloc rounds it
 * (size + 8, to 16 bytes), to the innermost budget, and the first one past
 * @max (0: VT_MAX_INPUT_DEFAULT; at least VT_JSON_BUDGET_MIN) fails: jansson's parse fails, and _end()
 * returns true.  Frees are not credited (a parse frees little: the
 * buffers it grows), so the charge is at most about twice the tree.
 */
#define VT_JSON_BUDGET_MIN (16ull << 20)
struct vt_json_budget {
	uint64_t max, used;
	/* an allocation failed: every later one of the load fails too, as
	 * jansson 2.14's lexer, having dropped a byte it could not save
	 * (load.c lex_save()), decodes a string past its end (a heap
	 * overrun seen with one failure under fault injection) */
	bool failed;
	bool hit;
	struct vt_json_budget *prev;
};
void vt_json_budget_begin(struct vt_json_budget *b, uint64_t max);
bool vt_json_budget_end(struct vt_json_budget *b);
/* Called by jansson's allocator hook: false if @size is past the budget. */
bool vt_json_budget_charge(size_t size);
/* The error of a tree past its budget (VT_ERR_INPUT_LIMIT, exit 3),
 * located at @path:@line:@col (0: none); @what names the value. */
int vt_json_budget_error(struct vt_error *err, const char *path,
			 unsigned long line, unsigned long col, const char *what,
			 uint64_t max);

/* "1073741824 bytes (1 GiB)"-style text of a byte count, for messages. */
const char *vt_input_size_text(uint64_t n, char *buf, size_t len);

#endif
