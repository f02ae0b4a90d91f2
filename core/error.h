/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Domain error codes (libtraceevent's TEP_ERRORS pattern) and the located
 * error record that readers and the engine fill instead of printing.
 */
#ifndef VT_ERROR_H
#define VT_ERROR_H

#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>

#define VT_ERRORS                                                          \
	VT_E(TRACE_SYNTAX, "trace is not valid JSON"),                     \
	VT_E(TRACE_SCHEMA, "trace does not match the schema"),             \
	VT_E(TRACE_VERSION, "unsupported trace format or version"),        \
	VT_E(ORDER_RANGE, "page order out of range"),                      \
	VT_E(PFN_RANGE, "pfn beyond the physical address size"),           \
	VT_E(OVERFLOW, "count or size overflows"),                         \
	VT_E(EMPTY_PAGES, "mapping without pages"),                        \
	VT_E(ID_LIVE, "map with an id that is live"),                      \
	VT_E(ID_UNKNOWN, "unmap of an id that is not live"),               \
	VT_E(VA_EXHAUSTED, "vmalloc area exhausted"),                      \
	VT_E(VA_OVERLAP, "trace VA overlaps a live area"),                 \
	VT_E(BAD_REQUEST, "request the modelled kernel rejects"),          \
	VT_E(UNKNOWN_OP, "unknown op"),                                    \
	VT_E(NO_STRATEGY, "no such strategy"),                             \
	VT_E(BAD_STRATEGY, "invalid strategy"),                            \
	VT_E(GEOMETRY, "granule and VA size are not a Kconfig-valid pair"), \
	VT_E(UNSUPPORTED, "not supported by this version"),                \
	VT_E(INVARIANT, "internal invariant broken"),                      \
	VT_E(IMPORT, "recording cannot be imported"),                      \
	VT_E(INPUT_LIMIT, "input larger than --max-input"),                   \
	VT_E(NO_PROFILE, "no such cost profile"),                          \
	VT_E(BAD_PROFILE, "malformed cost profile"),                       \
	VT_E(BAD_EXPERIMENT, "malformed calibration experiment"),          \
	VT_E(KIMAGE, "kernel image cannot be read"),                      \
	VT_E(BAD_OPTION, "option value out of range")

#define VT_E(code, str) VT_ERR_##code
enum vt_errno { VT_ERR__START = -100000, VT_ERRORS, VT_ERR__END };
#undef VT_E

/* Exit-code class of an error (spec/interfaces.md 1.4). */
enum vt_err_class {
	VT_EC_OK = 0,
	VT_EC_USAGE = 2,
	VT_EC_INPUT = 3,
	VT_EC_SYSTEM = 4,
	VT_EC_INTERNAL = 5,
};

struct vt_error {
	int code;		/* VT_ERR_* or -errno */
	char file[256];		/* input file, "" if none */
	unsigned long line;	/* 1-based, 0 if unknown */
	unsigned long column;	/* 1-based, 0 if unknown */
	long event;		/* 0-based event index, -1 if none */
	char msg[512];
};

void vt_error_init(struct vt_error *e);
/* Fill @e and return @code, so that "return vt_error_set(...)" works. */
int vt_error_set(struct vt_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vt_error_vset(struct vt_error *e, int code, const char *fmt, va_list ap);
/* vt_error_set(@e, -ENOMEM, "out of memory"): the one wording; -ENOMEM. */
int vt_err_oom(struct vt_error *e);
const char *vt_strerror(int code, char *buf, size_t len);
enum vt_err_class vt_err_class(int code);

/*
 * The one escaping of text from input before it is printed (the
 * diagnostics of cli/diag.c print every message through it): @str into
 * @buf (@len bytes, NUL-terminated, cut at a whole escape) with what a
 * terminal could act on made visible: C0 controls but tab, and DEL, as
 * \xNN (a newline kept only with @keep_nl); C1 controls (U+0080 to
 * U+009F) as \u00NN; bytes that are not UTF-8 as \xNN.  Valid UTF-8
 * passes.  4 * strlen(@str) + 1 bytes always suffice.  Returns the length
 * written.
 */
size_t vt_escape(char *buf, size_t len, const char *str, bool keep_nl);

#endif
