// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool entry point: the global argp parser, the common options shared
 * by every subcommand, the cmds[] table and the one exit-code mapping.
 *
 * Parsing stops at the command word (ARGP_IN_ORDER; see STYLE.md 2) so that
 * each subcommand parses the rest itself with the common options as an
 * argp child: they work on either side of the command word.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/strategy/registry.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

const char *argp_program_version = "vmaptool " VT_VERSION;

struct vt_cli vt_cli;

/* Set once the command word is found: the geometry pair is checked at the
 * end of the subcommand's parse, when both sides have been seen. */
static bool parsing_subcommand;

static const struct vt_cmd cmds[] = {
	{ "replay", cmd_replay, "replay traces under one or more strategies" },
	{ "compare", cmd_compare, "strategies side by side, ratios against the first" },
	{ "gate", cmd_gate, "exit 1 if a report regressed against a baseline" },
	{ "gen", cmd_gen, "synthesise a trace (systemheap, test_vmalloc, ioremap, ...)" },
	{ "import", cmd_import, "trace-cmd trace.dat or ftrace text -> trace" },
	{ "ptdump", cmd_ptdump, "page tables after a replay, arm64 ptdump style" },
	{ "inspect", cmd_inspect, "geometry, config and symbols of a kernel image" },
	{ "strategies", cmd_strategies, "list the built-in strategies" },
	{ "profiles", cmd_profiles, "list the built-in cost profiles" },
	{ NULL, NULL, NULL }
};

int vt_exit_code(int err)
{
	if (err >= 0)
		return 0;
	return (int)vt_err_class(err);
}

/* ---- common options (interfaces.md 1.1 and 1.3) ----------------------- */

enum {
	OPT_STRATEGY = 0x100,
	OPT_PROFILE,
	OPT_GRANULE,
	OPT_VA_BITS,
	OPT_FORMAT,
	OPT_PER_OP,
	OPT_PER_EVENT,
	OPT_JOBS,
	OPT_VERIFY,
	OPT_BARRIERS,
	OPT_VMAP_CONT,
	OPT_VMALLOC_PAGES,
	OPT_PURGE,
	OPT_PURGE_AT_END,
	OPT_TLBI_RANGE,
	OPT_KERNEL_FLUSH,
	OPT_NOHUGEVMALLOC,
	OPT_NOHUGEIOMAP,
	OPT_INITIAL,
	OPT_CPUS,
	OPT_KERNEL,
	OPT_USE_TRACE_VA,
	OPT_SKIP_UNKNOWN,
};

static const struct argp_option common_options[] = {
	{ NULL, 0, NULL, 0, "Common options:", 100 },
	{ "strategy", OPT_STRATEGY, "LIST", 0,
	  "comma-separated strategies (default: the registry's default set)", 0 },
	{ "profile", OPT_PROFILE, "NAME|FILE.json", 0,
	  "cost profile (no cost model in this version)", 0 },
	{ "granule", OPT_GRANULE, "4k|16k|64k", 0,
	  "translation granule (overrides the trace's config)", 0 },
	{ "va-bits", OPT_VA_BITS, "N", 0,
	  "kernel VA size: 4k: 39,48,52; 16k: 36,47,48,52; 64k: 42,48,52", 0 },
	{ "format", OPT_FORMAT, "table|json|csv", 0, "output format (default table)", 0 },
	{ "json", 'j', NULL, 0, "same as --format=json", 0 },
	{ "output", 'o', "FILE", 0, "write the output to FILE (whole or not at all)", 0 },
	{ "per-op", OPT_PER_OP, NULL, 0, "break the metrics down by op", 0 },
	{ "per-event", OPT_PER_EVENT, "FILE", OPTION_ARG_OPTIONAL,
	  "JSON Lines, one line per event and strategy (to FILE, or instead of the report)", 0 },
	{ "jobs", OPT_JOBS, "N", 0, "replay up to N traces in parallel", 0 },
	{ "verify", OPT_VERIFY, NULL, 0,
	  "walk the tables after every event and count mismapped pages", 0 },
	{ "quiet", 'q', NULL, 0, "no warnings or informational messages", 0 },
	{ "verbose", 'v', NULL, 0, "more detail; repeat for debug output", 0 },

	{ NULL, 0, NULL, 0, "What-if options of the modelled kernel:", 110 },
	{ "kernel", OPT_KERNEL, "GEN", 0,
	  "v6.12, v6.16 or mainline: set the options below to what that "
	  "kernel generation does; options are applied "
	  "left to right, so one given after --kernel wins and one before it "
	  "is overridden", 0 },
	{ "barriers", OPT_BARRIERS, "lazy|eager|per-entry", 0,
	  "lazy-MMU barrier batching, or one dsb+isb per entry (default lazy)", 0 },
	{ "vmap-cont", OPT_VMAP_CONT, "on|off", 0,
	  "CONT-PTE in the vmalloc walkers (default on)", 0 },
	{ "vmalloc-pages", OPT_VMALLOC_PAGES, "order0|high-order", 0,
	  "vmalloc page allocation (default high-order)", 0 },
	{ "purge", OPT_PURGE, "lazy|immediate", 0,
	  "lazy vmap-area purge or one flush per unmap (default lazy)", 0 },
	{ "purge-at-end", OPT_PURGE_AT_END, NULL, 0,
	  "purge what is still lazily pending at the end of the trace", 0 },
	{ "tlbi-range", OPT_TLBI_RANGE, "on|off", OPTION_ARG_OPTIONAL,
	  "FEAT_TLBIRANGE range invalidation (default off)", 0 },
	{ "kernel-flush", OPT_KERNEL_FLUSH, "range-ops|per-page", 0,
	  "flush_tlb_kernel_range(): range ops with the MAX_DVM_OPS limit, or "
	  "one TLBI per page as in v6.12 (default range-ops)", 0 },
	{ "nohugevmalloc", OPT_NOHUGEVMALLOC, NULL, 0, "boot parameter nohugevmalloc", 0 },
	{ "nohugeiomap", OPT_NOHUGEIOMAP, NULL, 0, "boot parameter nohugeiomap", 0 },
	{ "initial", OPT_INITIAL, "booted|empty", 0,
	  "upper tables of the vmalloc area exist (booted) or not (default booted)", 0 },
	{ "cpus", OPT_CPUS, "N", 0, "online CPUs, 1..4096 (default 8)", 0 },
	{ "use-trace-va", OPT_USE_TRACE_VA, NULL, 0,
	  "place areas at the trace's recorded va", 0 },
	{ "skip-unknown", OPT_SKIP_UNKNOWN, NULL, 0, "ignore events with an unknown op", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

/* Parse @arg as one of @n words; returns its index or calls argp_error. */
static int pick(struct argp_state *state, const char *opt, const char *arg,
		const char *const *words, int n, const char *expected)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, words[i]))
			return i;
	argp_error(state, "invalid value '%s' for --%s (expected %s)", arg,
		   opt, expected);
	return -1;
}

static bool on_off(struct argp_state *state, const char *opt, const char *arg)
{
	static const char *const w[] = { "off", "on" };

	return pick(state, opt, arg, w, 2, "on|off") == 1;
}

static unsigned long number(struct argp_state *state, const char *opt,
			    const char *arg, unsigned long min,
			    unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-' || v < min || v > max)
		argp_error(state, "invalid value '%s' for --%s (expected %lu..%lu)",
			   arg, opt, min, max);
	return v;
}

/* Kconfig-valid granule/VA_BITS pairs (arm64-mapping-engine.md 1.2). */
static bool geometry_valid(unsigned int page_shift, unsigned int va_bits)
{
	switch (page_shift) {
	case 12:
		return va_bits == 39 || va_bits == 48 || va_bits == 52;
	case 14:
		return va_bits == 36 || va_bits == 47 || va_bits == 48 ||
		       va_bits == 52;
	case 16:
		return va_bits == 42 || va_bits == 48 || va_bits == 52;
	}
	return false;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	static const char *const granules[] = { "4k", "16k", "64k" };
	static const char *const formats[] = { "table", "json", "csv" };
	static const char *const barriers[] = { "lazy", "eager", "per-entry" };
	static const char *const pages[] = { "order0", "high-order" };
	static const char *const purges[] = { "lazy", "immediate" };
	static const char *const initial[] = { "booted", "empty" };
	struct vt_model_opts *m = &vt_cli.model;
	int i;

	switch (key) {
	case OPT_STRATEGY:
		vt_cli.strategies = arg;
		break;
	case OPT_PROFILE:
		vt_cli.profile = arg;
		argp_error(state, "--profile '%s': cost model not available in this version",
			   arg);
		break;
	case OPT_GRANULE:
		i = pick(state, "granule", arg, granules, 3, "4k|16k|64k");
		m->page_shift = 12 + 2 * i;
		vt_cli.granule_set = true;
		break;
	case OPT_VA_BITS:
		m->va_bits = number(state, "va-bits", arg, 1, 64);
		vt_cli.va_bits_set = true;
		break;
	case OPT_FORMAT:
		vt_cli.format = pick(state, "format", arg, formats, 3,
				     "table|json|csv");
		break;
	case 'j':
		vt_cli.format = VT_FMT_JSON;
		break;
	case 'o':
		vt_cli.output = arg;
		break;
	case OPT_PER_OP:
		vt_cli.per_op = true;
		break;
	case OPT_PER_EVENT:
		vt_cli.per_event = true;
		vt_cli.per_event_file = arg;
		break;
	case OPT_JOBS:
		vt_cli.jobs = number(state, "jobs", arg, 1, 1024);
		break;
	case OPT_VERIFY:
		m->verify = true;
		break;
	case 'q':
		vt_cli.quiet = true;
		break;
	case 'v':
		vt_cli.verbose++;
		break;
	case OPT_KERNEL:
		i = pick(state, "kernel", arg, (const char *const[]){
				 "v6.12", "v6.16", "mainline" }, 3,
			 "v6.12|v6.16|mainline");
		vt_model_opts_kernel(m, (enum vt_kernel_gen)i);
		break;
	case OPT_BARRIERS:
		m->eager_barriers = pick(state, "barriers", arg, barriers, 3,
					 "lazy|eager|per-entry") != 0;
		break;
	case OPT_VMAP_CONT:
		m->vmap_cont = on_off(state, "vmap-cont", arg);
		break;
	case OPT_VMALLOC_PAGES:
		m->vmalloc_high_order = pick(state, "vmalloc-pages", arg, pages,
					     2, "order0|high-order") == 1;
		break;
	case OPT_PURGE:
		m->purge_immediate = pick(state, "purge", arg, purges, 2,
					  "lazy|immediate") == 1;
		break;
	case OPT_PURGE_AT_END:
		m->purge_at_end = true;
		break;
	case OPT_TLBI_RANGE:
		m->tlbi_range = arg ? on_off(state, "tlbi-range", arg) : true;
		break;
	case OPT_KERNEL_FLUSH:
		m->flush_per_page = pick(state, "kernel-flush", arg,
					 (const char *const[]){ "range-ops", "per-page" },
					 2, "range-ops|per-page") == 1;
		break;
	case OPT_NOHUGEVMALLOC:
		m->nohugevmalloc = true;
		break;
	case OPT_NOHUGEIOMAP:
		m->nohugeiomap = true;
		break;
	case OPT_INITIAL:
		m->initial_empty = pick(state, "initial", arg, initial, 2,
					"booted|empty") == 1;
		break;
	case OPT_CPUS:
		m->cpus = number(state, "cpus", arg, 1, 4096);
		break;
	case OPT_USE_TRACE_VA:
		m->use_trace_va = true;
		break;
	case OPT_SKIP_UNKNOWN:
		m->skip_unknown = true;
		break;
	case ARGP_KEY_END:
		if (parsing_subcommand &&
		    !geometry_valid(m->page_shift, m->va_bits))
			argp_error(state,
				   "granule %uk with --va-bits=%u is not a Kconfig-valid pair "
				   "(4k: 39,48,52; 16k: 36,47,48,52; 64k: 42,48,52)",
				   1u << (m->page_shift - 10), m->va_bits);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --strategy's help names the default list, which the registry derives */
static char *common_help(int key, const char *text, void *input)
{
	const char *fmt = "comma-separated strategies (default %s)";
	size_t n;
	char *s;

	(void)input;
	if (key != OPT_STRATEGY)
		return (char *)text;
	n = strlen(fmt) + strlen(vt_strategy_default_list());
	s = malloc(n);
	if (!s)
		return (char *)text;
	snprintf(s, n, fmt, vt_strategy_default_list());
	return s;
}

const struct argp vt_common_argp = {
	.options = common_options,
	.parser = common_parse,
	.help_filter = common_help,
};

/* ---- the top-level parser ------------------------------------------- */

static int cmd_index = -1;

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	switch (key) {
	case ARGP_KEY_ARG:
		/* The command word: the rest belongs to the subcommand. */
		cmd_index = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (cmd_index < 0)
			argp_error(state, "missing command");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* List the commands from cmds[] after the options in --help. */
static char *top_help_filter(int key, const char *text, void *input)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)text;
	f = open_memstream(&buf, &len);
	if (!f)
		return (char *)text;
	fputs("Commands:\n", f);
	for (const struct vt_cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fputs("\n'vmaptool COMMAND --help' describes a command's own options. "
	      "Exit status: 0 success, 1 gate found a regression, 2 usage, "
	      "3 bad input, 4 system error, 5 internal error.", f);
	if (text)
		fprintf(f, "\n\n%s", text);
	if (fclose(f)) {
		free(buf);
		return (char *)text;
	}
	return buf;
}

const struct argp_child vt_common_children[] = {
	{ &vt_common_argp, 0, NULL, 0 },
	{ NULL, 0, NULL, 0 }
};

error_t vt_parse_trace_args(int key, struct argp_state *state,
			    struct vt_trace_args *a, const char *what)
{
	switch (key) {
	case ARGP_KEY_ARGS:
		a->v = state->argv + state->next;
		a->n = state->argc - state->next;
		return 0;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no %s given", what);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp top_argp = {
	.parser = top_parse,
	.args_doc = "COMMAND [ARG...]",
	.doc = "Replay vmap/vmalloc/ioremap traces through a model of the arm64 "
	       "kernel-mapping engine and count PTE writes, walks, TLBIs and "
	       "barriers per strategy.\v",
	.children = vt_common_children,
	.help_filter = top_help_filter,
};

static const struct vt_cmd *cmd_find(const char *name)
{
	for (const struct vt_cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/*
 * stdout is checked before exiting, as perf's and git's run_builtin() do:
 * a report lost to a full disk must not look like success.
 */
static int check_stdout(int rc)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);

	if (fclose(stdout) != 0)
		failed = 1;
	/* vt_out_close() has already said so when rc is VT_EC_SYSTEM */
	if (failed && rc != VT_EC_SYSTEM) {
		vt_err("write error on stdout: %s", strerror(errno));
		if (rc == 0 || rc == 1)
			rc = VT_EC_SYSTEM;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct vt_cmd *cmd;
	int rc;

	argp_err_exit_status = VT_EC_USAGE;
	vt_model_opts_init(&vt_cli.model);
	vt_cli.format = VT_FMT_TABLE;
	vt_cli.jobs = 1;

	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	cmd = cmd_find(argv[cmd_index]);
	if (!cmd) {
		vt_err("'%s' is not a vmaptool command; see 'vmaptool --help'",
		       argv[cmd_index]);
		return check_stdout(VT_EC_USAGE);
	}
	parsing_subcommand = true;
	rc = cmd->fn(argc - cmd_index, argv + cmd_index);
	return check_stdout(rc);
}
