/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between cli/main.c (argp, common options), cli/diag.c (the
 * only stderr writer, exit codes), the report modules (cli/report.h) and
 * the cmd-<name>.c files (one subcommand each).
 */
#ifndef VT_CLI_H
#define VT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/model.h"

enum vt_format { VT_FMT_TABLE, VT_FMT_JSON, VT_FMT_CSV, VT_FMT_MAIL };
/* --color: auto is a terminal with NO_COLOR unset or empty */
enum vt_colour { VT_COLOUR_AUTO, VT_COLOUR_ALWAYS, VT_COLOUR_NEVER };

/* Options of interfaces.md 1.1 and 1.3, shared by every subcommand. */
struct vt_cli {
	const char *strategies;		/* --strategy (NULL: default list) */
	const char *profile;		/* --profile (NULL: the default profile) */
	bool tlbi_range_set;		/* --tlbi-range given: the profile's FEAT_TLBIRANGE does not apply */
	struct vt_model_opts model;	/* what-if options, geometry, --verify */
	bool granule_set, va_bits_set;	/* given on the command line */
	bool kernel_given;		/* --kernel given */
	bool opt_given[VT_OPT__NR];	/* what-if option given (gate) */
	enum vt_format format;		/* --format, -j */
	bool wide;			/* --wide: the table's strategies as columns */
	enum vt_colour colour;		/* --color */
	const char *svg;		/* --svg=FILE */
	const char *output;		/* -o/--output */
	bool per_op;			/* --per-op */
	bool per_event;			/* --per-event[=FILE] */
	const char *per_event_file;
	unsigned int jobs;		/* --jobs */
	int verbose;			/* -v, repeatable */
	bool quiet;			/* -q */
	const char *vmlinux;		/* --vmlinux (cli/vmlinux.c) */
	const char *kconfig;		/* --kconfig */
};
extern struct vt_cli vt_cli;

/* argp child with the common options; every subcommand parser includes it. */
extern const struct argp vt_common_argp;
/* The children list of a subcommand parser: just the common options. */
extern const struct argp_child vt_common_children[];

/* Positional TRACE... arguments of replay, compare and gate. */
struct vt_trace_args {
	char **v;
	int n;
};
/* Handle ARGP_KEY_ARGS/ARGP_KEY_NO_ARGS for @a ("no @what given");
 * ARGP_ERR_UNKNOWN for every other key. */
error_t vt_parse_trace_args(int key, struct argp_state *state,
			    struct vt_trace_args *a, const char *what);

struct vt_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* returns an exit code */
	const char *summary;
	unsigned int applies;	/* VT_APPLIES_* of cli/main.c */
};

int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_ptdump(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_strategies(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* The candidate of @cands (NULL entries skipped) that @word is most
 * likely a typo of, or NULL when none is close (cli/suggest.c). */
const char *vt_suggest(const char *word, const char *const *cands, size_t n);

/* ---- vmlinux.c: --vmlinux, --kconfig -------------------------------- */
struct vt_kimage;
/* The image of --vmlinux (and --kconfig), read once; 0 or the exit code
 * after reporting the error. */
int vt_cli_kimage(struct vt_kimage **out);
void vt_cli_kimage_close(void);
/* Take geometry, generation and huge-mapping support from the image where
 * no option gave them; @need_geometry: an image without a configuration is
 * an error.  0 or the exit code (reported). */
int vt_cli_vmlinux_apply(bool need_geometry);
/* vt_kimage_symbolize() for the importer's callback (@ctx: the image). */
bool vt_cli_symbolize(void *ctx, uint64_t addr, bool offset, char *buf, size_t len);

/* ---- diag.c: the only code that writes to stderr -------------------- */
/* Exit code for a core error code (0 for success); the one mapping place. */
int vt_exit_code(int err);

/* What diag.c needs of the options; main.c sets it after each parse. */
struct vt_diag_opts {
	bool quiet;		/* -q: no warnings, info or progress */
	int verbose;		/* -v: debug levels, the source line of an error */
	bool json;		/* --format=json: no info; errors as JSON too */
	bool json_one_line;	/* errors among --per-event lines: one line */
};
void vt_diag_setup(const struct vt_diag_opts *o);

int vt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vt_dbg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a located error compiler-style (file:line:col: error: msg) and,
 * under --format=json, the {"error": {...}} document on stdout.  Returns
 * the exit code for it. */
int vt_report_error(const struct vt_error *e);
/* A progress line for a long replay, on stderr only when it is a terminal
 * (and not under -q); @done clears it. */
void vt_progress(const char *what, long events, bool done);

/* ---- output files: written whole or not at all ---------------------- */
/* Open -o FILE as a temporary beside it (beside the target of a symbolic
 * link), or stdout when @path is NULL or "-". */
FILE *vt_out_open(const char *path);
/* Check and close the file; on failure (or !@ok) remove the temporary,
 * else keep it for vt_out_finish(); checks stdout with fflush/ferror.
 * Returns 0 or an exit code (4). */
int vt_out_close(FILE *f, const char *path, bool ok);
/* main(), with the exit code: rename every closed temporary over its
 * target when @rc is 0 or 1, else remove them all.  Returns @rc, or 4
 * when a rename failed. */
int vt_out_finish(int rc);

/* A file a command reads or writes, for vt_out_check(). */
#define VT_IO_READ	1u
#define VT_IO_WRITE	2u
struct vt_io {
	const char *opt;	/* "--junit"; a word ("trace") for an operand */
	const char *path;	/* NULL: not given */
	unsigned int mode;	/* VT_IO_READ | VT_IO_WRITE; 0: not used */
};
/*
 * Before a command runs: an empty output name, two outputs naming the same
 * file, or an output naming a file that is read is a usage error (2) naming
 * both options.  -o, --per-event, --svg, --vmlinux and --kconfig are added
 * from vt_cli; @io are the command's own options, @inputs its operands
 * (called @what in messages).  Existing files are compared by inode, others
 * by their path with links resolved; stdout, devices and FIFOs are not.
 */
int vt_out_check(const struct vt_io *io, size_t n, char *const *inputs,
		 int n_inputs, const char *what);

#endif
