/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between cli/main.c (the command table, main()),
 * cli/common.c (the common options and their parser), cli/help.c (argp's
 * help output repaired), cli/diag.c (the only stderr writer, exit codes),
 * the report modules (cli/report.h) and the cmd-<name>.c files (one
 * subcommand each).
 *
 * The common options are one struct vt_cli that main() owns: argp's
 * input hands it to the common parser (cli/common.c), each command gets it
 * as its first parameter, and run.c reads what a command made of it
 * through a const struct vt_run_opts (cli/run.h).  There is no global.
 */
#ifndef VT_CLI_H
#define VT_CLI_H

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/model.h"
#include "core/suggest.h"	/* vt_suggest(): did you mean */

enum vt_format { VT_FMT_TABLE, VT_FMT_JSON, VT_FMT_CSV, VT_FMT_MAIL };
/* --color: auto is a terminal with NO_COLOR unset or empty */
enum vt_colour { VT_COLOUR_AUTO, VT_COLOUR_ALWAYS, VT_COLOUR_NEVER };

struct vt_cmd;
struct vt_summary_opts;

/* Options of interfaces.md 1.1 and 1.3, shared by every subcommand. */
struct vt_cli {
	const char *strategies;		/* --strategy (NULL: default list) */
	const char *profile;		/* --profile (NULL: the default profile) */
	struct vt_model_opts model;	/* what-if options, geometry, --verify */
	bool granule_set, va_bits_set;	/* given on the command line */
	bool kernel_given;		/* --kernel given */
	bool opt_given[VT_OPT__NR];	/* what-if option given (gate; --tlbi-range: run.c) */
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
	int erratum_4118414;		/* --erratum-4118414: 0 the profile's, 1 on, 2 off */
	unsigned int cost_of;		/* --cost-of: enum vt_cost_part, 0 all (the default) */
	bool quiet;			/* -q */
	const char *vmlinux;		/* --vmlinux (cli/vmlinux.c) */
	const char *kconfig;		/* --kconfig */
	/* compare --summary/--metrics (cli/report.h); NULL: the full report */
	const struct vt_summary_opts *summary;

	/* What the parse records besides the options (cli/common.c). */
	const struct vt_cmd *cmd;	/* the command being parsed; NULL before its word */
	int top_keys[64];		/* options given before the command word */
	unsigned int nr_top_keys;
};

/*
 * Which common options each command takes (struct vt_cmd's applies): the
 * others are hidden from its --help and are a usage error when given to
 * it.  -o, -q, -v and -h go with every command.
 */
enum {
	VT_APPLIES_FORMAT = 1 << 0,	/* --format, -j */
	VT_APPLIES_STRATEGY = 1 << 1,	/* --strategy */
	VT_APPLIES_PROFILE = 1 << 2,	/* --profile */
	VT_APPLIES_GEOMETRY = 1 << 3,	/* --granule, --va-bits */
	VT_APPLIES_REPORT = 1 << 4,	/* --per-op, --jobs */
	VT_APPLIES_MODEL = 1 << 5,	/* --kernel and the option table */
	VT_APPLIES_CPUS = 1 << 6,	/* --cpus alone (gen) */
	VT_APPLIES_VMLINUX = 1 << 7,	/* --vmlinux, --kconfig */
	VT_APPLIES_RENDER = 1 << 8,	/* --wide, --color, --svg, --format=mail */
	VT_APPLIES_COST_OF = 1 << 9,	/* --cost-of (not gate: it gates whole estimates) */
	VT_APPLIES_PER_EVENT = 1 << 10,	/* --per-event (not gate: it gates totals) */
	VT_APPLIES_CSV = 1 << 11,	/* --format=csv (with VT_APPLIES_FORMAT) */
	VT_APPLIES_REPLAY = VT_APPLIES_FORMAT | VT_APPLIES_STRATEGY |
			    VT_APPLIES_PROFILE | VT_APPLIES_GEOMETRY |
			    VT_APPLIES_REPORT | VT_APPLIES_MODEL | VT_APPLIES_VMLINUX,
};

/* ---- common.c: the common options and their parser ------------------ */
/* argp child with the common options; every subcommand parser includes
 * it, and hands it the struct vt_cli at ARGP_KEY_INIT (vt_common_input()). */
extern const struct argp vt_common_argp;
/* The children list of a subcommand parser: just the common options. */
extern const struct argp_child vt_common_children[];

/* The defaults of every common option; builds the option table once. */
void vt_common_init(struct vt_cli *cli);
/* At a subcommand parser's ARGP_KEY_INIT: its first child, the common
 * options, parses into @cli. */
static inline void vt_common_input(struct argp_state *state, struct vt_cli *cli)
{
	state->child_inputs[0] = cli;
}
/* Whether command @c takes common option @key. */
bool vt_common_applies(const struct vt_cmd *c, int key);
/* "--name" or "-c" of common option @key, in @buf. */
const char *vt_common_option_name(int key, char *buf, size_t len);
/* The option table as built (the top-level --help), or as command @c's
 * --help shows it (only the options it takes). */
void vt_common_show_all(void);
void vt_common_show_for(const struct vt_cmd *c);
/* The message for a granule/VA pair that is not Kconfig-valid in @buf, or
 * false when the pair is valid. */
bool vt_common_geometry_error(const struct vt_model_opts *m, char *buf, size_t len);
/* A usage error found after the parse, printed by argp_error() itself
 * ("PROG: MSG" and the line pointing at PROG --help); returns its exit
 * code (2). */
int vt_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Positional TRACE... arguments of replay, compare and gate. */
struct vt_trace_args {
	char **v;
	int n;
	char **owned;	/* vt_trace_args_bundled()'s paths, or NULL */
	/* vt_trace_args_bundled(): the name as typed of each bundled trace
	 * (the human report shows it), NULL for a path given as a path */
	const char **shown;
};
/* Handle ARGP_KEY_ARGS/ARGP_KEY_NO_ARGS for @a ("no @what given");
 * ARGP_ERR_UNKNOWN for every other key. */
error_t vt_parse_trace_args(int key, struct argp_state *state,
			    struct vt_trace_args *a, const char *what);
/*
 * A TRACE argument that names no file and holds no '/' ("default",
 * "systemheap-128m.json") is the bundled trace of that name: NAME, then
 * NAME.json, then NAME.jsonl in vt_data_dir()/traces (share/vmaptool/traces
 * of an install, the source tree's traces/ from the build tree).  Returns
 * that path, malloc'd, or NULL when @arg is to be read as given.
 */
char *vt_bundled_trace(const char *arg);
/* Each of @a's arguments through vt_bundled_trace(): @a->v becomes an
 * array of its own, @a->shown the names typed for bundled traces
 * (vt_trace_args_release() frees both).  0 or -ENOMEM. */
int vt_trace_args_bundled(struct vt_trace_args *a);
void vt_trace_args_release(struct vt_trace_args *a);

/* A subcommand: parses @argv (its own options and the common ones into
 * @cli), runs, and returns an exit code; it never exits. */
typedef int vt_cmd_fn(struct vt_cli *cli, int argc, char **argv);

struct vt_cmd {
	const char *name;
	vt_cmd_fn *fn;
	const char *summary;
	unsigned int applies;	/* VT_APPLIES_* */
};

vt_cmd_fn cmd_replay, cmd_compare, cmd_gate, cmd_gen, cmd_import, cmd_ptdump,
	  cmd_inspect, cmd_strategies, cmd_profiles, cmd_calibrate, cmd_complete;

/* The words of --format (in the order of enum vt_format) and of gen's
 * PATTERN, NULL-terminated: for the parsers and 'vmaptool __complete'. */
extern const char *const vt_format_names[];
extern const char *const vt_gen_pattern_names[];

/* ---- version.c ------------------------------------------------------ */
/* The commit built ("0123456789ab", with "-dirty", or "unknown"). */
const char *vt_build_commit(void);

/* ---- help.c: argp's help output, repaired --------------------------- */
/* Where argp writes help, usage and --version: memory, put out at exit
 * with argp's layout restored. */
FILE *vt_help_stream(void);

/* At the common parser's ARGP_KEY_INIT: a long option of argv that no
 * option of the command (a prefix of one included, as getopt_long takes
 * it) matches, but one is close to, is a usage error naming that one. */
struct argp_state;
void vt_check_long_options(struct argp_state *state);

/* ---- vmlinux.c: --vmlinux, --kconfig -------------------------------- */
struct vt_kimage;
/* The image of --vmlinux (and --kconfig), read once; 0 or the exit code
 * after reporting the error. */
int vt_cli_kimage(const struct vt_cli *cli, struct vt_kimage **out);
void vt_cli_kimage_close(void);
/* After the parse, when --vmlinux is given: take geometry, generation and
 * huge-mapping support from the image where no option gave them into
 * @cli, then check the geometry pair as the parser does without an image
 * (a usage error of @prog); @need_geometry: an image without a
 * configuration is an error.  0 or the exit code (reported). */
int vt_cli_vmlinux_apply(struct vt_cli *cli, bool need_geometry, const char *prog);
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
/* The out-of-memory error; returns VT_EC_SYSTEM, the exit status it is. */
int vt_err_oom_exit(void);
/* argp_parse() returned @e (its own allocation failed: ENOMEM; it exits
 * itself on a usage error): the error; returns the exit status. */
int vt_err_argp(int e);
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
/* Step @i of @n (@id) of a long job; @i >= @n clears the line. */
void vt_progress_step(const char *what, unsigned int i, unsigned int n, const char *id);

/* ---- output files: written whole or not at all ---------------------- */
/* Open -o FILE as a temporary beside it (beside the target of a symbolic
 * link), or stdout when @path is NULL or "-". */
FILE *vt_out_open(const char *path);
/* Check and close the file; on failure (or !@ok) remove the temporary,
 * else keep it for vt_out_finish(); checks stdout with fflush/ferror.
 * A failed write is said ("write error on stdout: Broken pipe", "cannot
 * write 'F': ...") unless !@ok: the run failed and has said why already.
 * A writer that failed passes true all the same: its stream's error is
 * said here, and it says only what the stream does not show.
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
/* The files the common options name, as the option table marks them
 * (cli/common.c): at most @max into @io, a value that needs resolving
 * (--profile=NAME) resolved into @bufs[i]; returns how many. */
size_t vt_common_files(const struct vt_cli *cli, struct vt_io *io, size_t max,
		       char (*bufs)[PATH_MAX]);
#define VT_COMMON_FILES_MAX 16
/*
 * Before a command runs: an empty output name, two outputs naming the same
 * file, or an output naming a file that is read is a usage error (2) naming
 * both options.  The files of the common options (vt_common_files()) are
 * added from @cli; @io are the command's own options, @inputs its operands
 * (called @what in messages).  Existing files are compared by inode, others
 * by their path with links resolved; stdout, devices and FIFOs are not.
 */
int vt_out_check(const struct vt_cli *cli, const struct vt_io *io, size_t n,
		 char *const *inputs, int n_inputs, const char *what);

#endif
