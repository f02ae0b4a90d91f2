// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool entry point: the global argp parser, the common options shared
 * by every subcommand (the what-if ones generated from the option table,
 * core/options.def; the granules and VA sizes from arch), and the cmds[]
 * table.  After each parse it hands diag.c what it needs (vt_diag_setup()).
 *
 * Parsing stops at the command word (ARGP_IN_ORDER; see STYLE.md 2) so that
 * each subcommand parses the rest itself with the common options as an
 * argp child: they work on either side of the command word.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int cmd_help(int argc, char **argv);
static FILE *help_stream(void);

/*
 * Which common options each command takes (VT_APPLIES_*): the others are
 * hidden from its --help and are a usage error when given to it.  -o, -q,
 * -v and -h go with every command.
 */
enum {
	VT_APPLIES_FORMAT = 1 << 0,	/* --format, -j */
	VT_APPLIES_STRATEGY = 1 << 1,	/* --strategy */
	VT_APPLIES_PROFILE = 1 << 2,	/* --profile */
	VT_APPLIES_GEOMETRY = 1 << 3,	/* --granule, --va-bits */
	VT_APPLIES_REPORT = 1 << 4,	/* --per-op, --per-event, --jobs */
	VT_APPLIES_MODEL = 1 << 5,	/* --kernel and the option table */
	VT_APPLIES_CPUS = 1 << 6,	/* --cpus alone (gen) */
	VT_APPLIES_VMLINUX = 1 << 7,	/* --vmlinux, --kconfig */
	VT_APPLIES_RENDER = 1 << 8,	/* --wide, --color, --svg, --format=mail */
	VT_APPLIES_REPLAY = VT_APPLIES_FORMAT | VT_APPLIES_STRATEGY |
			    VT_APPLIES_PROFILE | VT_APPLIES_GEOMETRY |
			    VT_APPLIES_REPORT | VT_APPLIES_MODEL | VT_APPLIES_VMLINUX,
};

static const struct vt_cmd cmds[] = {
	{ "replay", cmd_replay, "replay traces under one or more strategies",
	  VT_APPLIES_REPLAY | VT_APPLIES_RENDER },
	{ "compare", cmd_compare, "strategies side by side, ratios against the first",
	  VT_APPLIES_REPLAY | VT_APPLIES_RENDER },
	{ "gate", cmd_gate, "exit 1 if a report regressed against a baseline",
	  VT_APPLIES_REPLAY },
	{ "gen", cmd_gen, "synthesise a trace (systemheap, test_vmalloc, ioremap, ...)",
	  VT_APPLIES_GEOMETRY | VT_APPLIES_CPUS },
	{ "import", cmd_import, "trace-cmd trace.dat or ftrace text -> trace",
	  VT_APPLIES_GEOMETRY | VT_APPLIES_VMLINUX },
	{ "ptdump", cmd_ptdump, "page tables after a replay, arm64 ptdump style",
	  VT_APPLIES_FORMAT | VT_APPLIES_STRATEGY | VT_APPLIES_GEOMETRY |
	  VT_APPLIES_MODEL | VT_APPLIES_VMLINUX },
	{ "inspect", cmd_inspect, "geometry, config and symbols of a kernel image",
	  VT_APPLIES_FORMAT | VT_APPLIES_VMLINUX },
	{ "strategies", cmd_strategies, "list the built-in strategies",
	  VT_APPLIES_FORMAT },
	{ "profiles", cmd_profiles, "list the built-in cost profiles",
	  VT_APPLIES_FORMAT },
	{ "calibrate", cmd_calibrate, "fit the cost profiles to published figures",
	  VT_APPLIES_FORMAT },
	{ "help", cmd_help, "this text, or a command's: vmaptool help [COMMAND]", 0 },
	{ NULL, NULL, NULL, 0 }
};

/* The command being parsed (NULL before the command word). */
static const struct vt_cmd *cur_cmd;

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
	OPT_KERNEL,
	OPT_MAX_INPUT,
	OPT_VMLINUX,
	OPT_KCONFIG,
	OPT_WIDE,
	OPT_COLOR,
	OPT_SVG,
	OPT_MODEL,	/* + enum vt_option_id: the option table */
};

/* The common options before the table's, then those after it. */
static const struct argp_option common_head[] = {
	{ NULL, 0, NULL, 0, "Common options:", 100 },
	{ "strategy", OPT_STRATEGY, "LIST", 0,
	  "comma-separated strategies (default: the registry's default set)", 0 },
	{ "profile", OPT_PROFILE, "NAME|FILE.json", 0,
	  "cost profile for the cycles and ns estimates (default generic-a76; "
	  "'vmaptool profiles' lists them)", 0 },
	{ "granule", OPT_GRANULE, NULL, 0,
	  "translation granule (overrides the trace's config)", 0 },
	{ "va-bits", OPT_VA_BITS, "N", 0, NULL, 0 },
	{ "vmlinux", OPT_VMLINUX, "FILE", 0,
	  "an arm64 kernel image (ELF vmlinux, Image, Image.gz, EFI zboot): its "
	  "geometry, --kernel generation and symbols, unless given by other options", 0 },
	{ "kconfig", OPT_KCONFIG, "FILE", 0,
	  "the image's .config, for an image without IKCONFIG (Debian: "
	  "/boot/config-RELEASE)", 0 },
	{ "format", OPT_FORMAT, "table|json|csv|mail", 0,
	  "output format (default table; mail: replay and compare only)", 0 },
	{ "json", 'j', NULL, 0, "same as --format=json", 0 },
	{ "wide", OPT_WIDE, NULL, 0,
	  "the table keeps one column per strategy however wide (default: "
	  "one block per strategy when the columns would pass 72)", 0 },
	{ "color", OPT_COLOR, "auto|always|never", OPTION_ARG_OPTIONAL,
	  "colour the table's changes by whether they are good (default auto: "
	  "on a terminal without NO_COLOR; --color alone is always)", 0 },
	{ "svg", OPT_SVG, "FILE", 0,
	  "also write a self-contained SVG chart of the report to FILE", 0 },
	{ "output", 'o', "FILE", 0, "write the output to FILE (whole or not at all)", 0 },
	{ "per-op", OPT_PER_OP, NULL, 0, "break the metrics down by op", 0 },
	{ "per-event", OPT_PER_EVENT, "FILE", OPTION_ARG_OPTIONAL,
	  "JSON Lines, one line per event and strategy (to FILE, or instead of the report)", 0 },
	{ "max-input", OPT_MAX_INPUT, "SIZE", 0,
	  "most bytes of one input held at once: a JSON trace, a JSON Lines "
	  "line, a recording after decompression (K, M, G, T suffixes; default 1G)", 0 },
	{ "jobs", OPT_JOBS, "N", 0,
	  "replay up to N traces, or the strategies of one trace, in parallel (default: the number of cores)", 0 },
	{ "quiet", 'q', NULL, 0, "no warnings or informational messages", 0 },
	{ "verbose", 'v', NULL, 0, "more detail; repeat for debug output", 0 },
	{ NULL, 'h', NULL, 0, "same as --help", 0 },
	{ NULL, 0, NULL, 0, "What-if options of the modelled kernel:", 110 },
	{ "kernel", OPT_KERNEL, "GEN", 0, NULL, 0 },
};
#define NR_HEAD (sizeof(common_head) / sizeof(common_head[0]))

/*
 * The argp options: common_head[] and one entry per row of the option
 * table (core/options.def), with the help text, the defaults and the
 * valid geometry filled in from the tables.  Built once by
 * build_common_options(); the strings live as long as the program.
 */
#define NR_COMMON (NR_HEAD + VT_OPT__NR)
static struct argp_option common_options[NR_COMMON + 1];

/* Text of the strings built at start-up. */
static char granules[32];		/* "4k|16k|64k" */
static char va_pairs[128];		/* "4k: 39,48,52; 16k: ..." */
static char va_help[160];
static char kernel_help[320];
static char kernel_words[64];		/* "v6.12|v6.16|mainline" */
static char option_help[VT_OPT__NR][256];

/* The VT_APPLIES_* bit of a common option; 0 for those of every command. */
static unsigned int applies_bit(int key)
{
	if (key >= OPT_MODEL && key < OPT_MODEL + VT_OPT__NR)
		return key - OPT_MODEL == VT_OPT_cpus ?
		       VT_APPLIES_MODEL | VT_APPLIES_CPUS : VT_APPLIES_MODEL;
	switch (key) {
	case OPT_FORMAT:
	case 'j':
		return VT_APPLIES_FORMAT;
	case OPT_STRATEGY:
		return VT_APPLIES_STRATEGY;
	case OPT_PROFILE:
		return VT_APPLIES_PROFILE;
	case OPT_GRANULE:
	case OPT_VA_BITS:
		return VT_APPLIES_GEOMETRY;
	case OPT_VMLINUX:
	case OPT_KCONFIG:
		return VT_APPLIES_VMLINUX;
	case OPT_PER_OP:
	case OPT_PER_EVENT:
	case OPT_JOBS:
		return VT_APPLIES_REPORT;
	case OPT_KERNEL:
		return VT_APPLIES_MODEL;
	case OPT_WIDE:
	case OPT_COLOR:
	case OPT_SVG:
		return VT_APPLIES_RENDER;
	}
	return 0;
}

static bool applies(const struct vt_cmd *c, int key)
{
	unsigned int bit = applies_bit(key);

	return !bit || (c->applies & bit);
}

/* "--name" or "-c" of common option @key. */
static const char *option_name(int key, char *buf, size_t len)
{
	for (size_t i = 0; i < NR_COMMON; i++)
		if (common_options[i].key == key && common_options[i].name) {
			snprintf(buf, len, "--%s", common_options[i].name);
			return buf;
		}
	snprintf(buf, len, "-%c", key);
	return buf;
}

/*
 * The --help of command @c shows only the common options it takes, and
 * instead of those of every command (-o, -q, -v, -h, --format/-j) one
 * line that points at 'vmaptool help'.  Starts from the flags the table
 * was built with, so that it can run twice ('vmaptool help CMD').
 */
static unsigned char flags0[NR_COMMON];
static const char *doc0[NR_COMMON];
static bool saved;

/* Every common option as the table was built (the top-level --help). */
static void show_all(void)
{
	for (size_t i = 0; saved && i < NR_COMMON; i++) {
		common_options[i].flags = flags0[i];
		common_options[i].doc = doc0[i];
	}
}

static void hide_for(const struct vt_cmd *c)
{
	static char head[200];

	if (!saved) {
		for (size_t i = 0; i < NR_COMMON; i++) {
			flags0[i] = (unsigned char)common_options[i].flags;
			doc0[i] = common_options[i].doc;
		}
		saved = true;
	}
	/* one ':' only, at the end: the man page generator ends a header there */
	snprintf(head, sizeof(head), "Options of %s (-o FILE, -q, -v%s, which every "
		 "command takes, are in 'vmaptool help'):", c->name,
		 c->applies & VT_APPLIES_FORMAT ? ", --format, -j" : "");
	for (size_t i = 0; i < NR_COMMON; i++) {
		struct argp_option *o = &common_options[i];
		unsigned int bit = applies_bit(o->key);

		o->flags = flags0[i];
		o->doc = doc0[i];
		if (!o->name && !o->key) {	/* a group header */
			if (o->group == 100)
				o->doc = head;
			else if (!(c->applies & (VT_APPLIES_MODEL | VT_APPLIES_CPUS)))
				o->doc = NULL;	/* no header, the group is empty */
			continue;
		}
		if (!applies(c, o->key) || !bit || bit == VT_APPLIES_FORMAT)
			o->flags |= OPTION_HIDDEN;
	}
}

/* Common options given before the command word, checked once it is known. */
static int top_keys[64];
static unsigned int nr_top_keys;

/* Append to @buf (size @len) what printf would print. */
static void __attribute__((format(printf, 3, 4)))
cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* Whether arch has a valid VA size for the granule 1 << @ps. */
static bool granule_known(unsigned int ps)
{
	for (unsigned int va = 1; va <= 64; va++)
		if (vt_geometry_valid(ps, va))
			return true;
	return false;
}

/* The granules and VA sizes arch accepts, from its one list. */
static void build_geometry_text(void)
{
	for (unsigned int ps = 12; ps <= 16; ps++) {
		bool first = true;

		for (unsigned int va = 1; va <= 64; va++) {
			if (!vt_geometry_valid(ps, va))
				continue;
			if (first) {
				cat(granules, sizeof(granules), "%s%uk",
				    granules[0] ? "|" : "", 1u << (ps - 10));
				cat(va_pairs, sizeof(va_pairs), "%s%uk: ",
				    va_pairs[0] ? "; " : "", 1u << (ps - 10));
			}
			cat(va_pairs, sizeof(va_pairs), "%s%u", first ? "" : ",", va);
			first = false;
		}
	}
	snprintf(va_help, sizeof(va_help), "kernel VA size: %s", va_pairs);
}

static void build_common_options(void)
{
	struct argp_option *o = common_options;
	char word[64];

	build_geometry_text();
	for (int k = 0; k < VT_KERNEL__NR; k++) {
		cat(kernel_words, sizeof(kernel_words), "%s%s", k ? "|" : "",
		    vt_kernels[k].name);
		cat(kernel_help, sizeof(kernel_help), "%s%s",
		    !k ? "" : k == VT_KERNEL__NR - 1 ? " or " : ", ",
		    vt_kernels[k].name);
	}
	cat(kernel_help, sizeof(kernel_help), ": set the options below to what "
	    "that kernel generation does; options are applied left to right, "
	    "so one given after --kernel wins and one before it is overridden");

	for (size_t i = 0; i < NR_HEAD; i++) {
		*o = common_head[i];
		if (o->key == OPT_GRANULE)
			o->arg = granules;
		else if (o->key == OPT_VA_BITS)
			o->doc = va_help;
		else if (o->key == OPT_KERNEL)
			o->doc = kernel_help;
		o++;
		if (common_head[i].key != OPT_JOBS)
			continue;
		/* the table's common options come after --jobs */
		for (int k = 0; k < VT_OPT__NR; k++)
			if (vt_options[k].common)
				*o++ = (struct argp_option){ vt_options[k].name,
					OPT_MODEL + k, NULL, 0, vt_options[k].help, 0 };
	}
	for (int k = 0; k < VT_OPT__NR; k++) {
		const struct vt_option *t = &vt_options[k];
		char *help = option_help[k];

		if (t->common)
			continue;
		snprintf(help, sizeof(option_help[k]), "%s", t->help);
		if (t->kind == VT_OK_NUMBER)
			cat(help, sizeof(option_help[k]), ", %u..%u (default %u)",
			    t->min, t->max, t->def);
		else if (t->kind == VT_OK_WORD)
			cat(help, sizeof(option_help[k]), " (default %s)",
			    vt_option_value_word(t, t->def, word, sizeof(word)));
		*o++ = (struct argp_option){
			t->name, OPT_MODEL + k,
			t->kind == VT_OK_FLAG ? NULL :
			t->kind == VT_OK_NUMBER ? "N" : t->words,
			t->arg_optional ? OPTION_ARG_OPTIONAL : 0, help, 0 };
	}
	*o = (struct argp_option){ NULL, 0, NULL, 0, NULL, 0 };
}

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

/* A byte count with an optional binary suffix K, M, G or T; at least 1. */
static uint64_t byte_size(struct argp_state *state, const char *opt,
			  const char *arg)
{
	static const char suffix[] = "KMGT";
	unsigned long long v;
	const char *p;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && (p = strchr(suffix, *end & ~0x20)) && *end != 0x20) {
		shift = 10 * (unsigned int)(p - suffix + 1);
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if ((*end & ~0x20) == 'B')
			end++;
	}
	if (!*arg || *end || errno || arg[0] == '-' || !v ||
	    v > (UINT64_MAX >> shift))
		argp_error(state, "invalid value '%s' for --%s (expected a byte count "
			   "such as 1048576, 512M or 4G)", arg, opt);
	return (uint64_t)v << shift;
}

/* One option of the table: its value from @arg, into vt_cli.model. */
static void model_option(struct argp_state *state, enum vt_option_id id,
			 const char *arg)
{
	const struct vt_option *t = &vt_options[id];
	unsigned int v = 1;
	int i;

	switch (t->kind) {
	case VT_OK_FLAG:
		break;
	case VT_OK_NUMBER:
		v = number(state, t->name, arg, t->min, t->max);
		break;
	case VT_OK_WORD:
		if (!arg && t->arg_optional)
			break;
		i = vt_option_word_index(t, arg);
		if (i < 0)
			argp_error(state, "invalid value '%s' for --%s (expected %s)",
				   arg, t->name, t->words);
		else
			v = t->values[i];
		break;
	}
	vt_option_set(&vt_cli.model, id, v);
	vt_cli.opt_given[id] = true;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	/* in the order of enum vt_format */
	static const char *const formats[] = { "table", "json", "csv", "mail" };
	static const char *const colours[] = { "auto", "always", "never" };
	struct vt_model_opts *m = &vt_cli.model;
	char gran[8];
	int i;

	if (key > 0 && key < 0x1000000) {	/* an option, not an ARGP_KEY_* */
		char name[64];

		if (cur_cmd && !applies(cur_cmd, key))
			argp_error(state, "%s does not apply to '%s'",
				   option_name(key, name, sizeof(name)), cur_cmd->name);
		if (!cur_cmd && nr_top_keys < 64)
			top_keys[nr_top_keys++] = key;
	}
	if (key == ARGP_KEY_INIT) {
		state->out_stream = help_stream();
		return 0;
	}
	if (key == 'h') {
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	}
	if (key >= OPT_MODEL && key < OPT_MODEL + VT_OPT__NR) {
		/* Given explicitly, --tlbi-range wins over the profile's FEAT_TLBIRANGE. */
		if (key - OPT_MODEL == VT_OPT_tlbi_range)
			vt_cli.tlbi_range_set = true;
		model_option(state, (enum vt_option_id)(key - OPT_MODEL), arg);
		return 0;
	}
	switch (key) {
	case OPT_STRATEGY:
		vt_cli.strategies = arg;
		break;
	case OPT_PROFILE:
		vt_cli.profile = arg;
		break;
	case OPT_GRANULE:
		for (i = 12; i <= 16; i++) {
			snprintf(gran, sizeof(gran), "%uk", 1u << (i - 10));
			if (!strcmp(arg, gran) && granule_known((unsigned int)i))
				break;
		}
		if (i > 16)
			argp_error(state, "invalid value '%s' for --%s (expected %s)",
				   arg, "granule", granules);
		m->page_shift = (unsigned int)i;
		vt_cli.granule_set = true;
		break;
	case OPT_VA_BITS:
		m->va_bits = number(state, "va-bits", arg, 1, 64);
		vt_cli.va_bits_set = true;
		break;
	case OPT_FORMAT:
		vt_cli.format = pick(state, "format", arg, formats, 4,
				     "table|json|csv|mail");
		break;
	case 'j':
		vt_cli.format = VT_FMT_JSON;
		break;
	case 'o':
		vt_cli.output = arg;
		break;
	case OPT_WIDE:
		vt_cli.wide = true;
		break;
	case OPT_COLOR:
		vt_cli.colour = arg ? pick(state, "color", arg, colours, 3,
					   "auto|always|never") : VT_COLOUR_ALWAYS;
		break;
	case OPT_SVG:
		vt_cli.svg = arg;
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
	case OPT_MAX_INPUT:
		m->max_input = byte_size(state, "max-input", arg);
		break;
	case OPT_VMLINUX:
		vt_cli.vmlinux = arg;
		break;
	case OPT_KCONFIG:
		vt_cli.kconfig = arg;
		break;
	case 'q':
		vt_cli.quiet = true;
		break;
	case 'v':
		vt_cli.verbose++;
		break;
	case OPT_KERNEL:
		for (i = 0; i < VT_KERNEL__NR; i++)
			if (!strcmp(arg, vt_kernels[i].name))
				break;
		if (i == VT_KERNEL__NR)
			argp_error(state, "invalid value '%s' for --%s (expected %s)",
				   arg, "kernel", kernel_words);
		else
			vt_model_opts_kernel(m, (enum vt_kernel_gen)i);
		vt_cli.kernel_given = true;
		break;
	case ARGP_KEY_END:
		vt_diag_setup(&(struct vt_diag_opts){
			.quiet = vt_cli.quiet, .verbose = vt_cli.verbose,
			.json = vt_cli.format == VT_FMT_JSON,
			.json_one_line = vt_cli.per_event && !vt_cli.per_event_file,
		});
		if (parsing_subcommand && vt_cli.kconfig && !vt_cli.vmlinux)
			argp_error(state, "--kconfig needs --vmlinux");
		/* the image's values, under those given (cli/vmlinux.c) */
		if (parsing_subcommand && vt_cli.vmlinux && cur_cmd &&
		    cur_cmd->fn != cmd_inspect) {
			int rc = vt_cli_vmlinux_apply(cur_cmd->fn != cmd_import);

			if (rc)
				exit(rc);
		}
		if (parsing_subcommand &&
		    !vt_geometry_valid(m->page_shift, m->va_bits))
			argp_error(state,
				   "granule %uk with --va-bits=%u is not a Kconfig-valid pair "
				   "(%s)", 1u << (m->page_shift - 10), m->va_bits,
				   va_pairs);
		/* interfaces.md 1.1: --per-event writes JSON Lines only */
		if (parsing_subcommand && vt_cli.per_event && !vt_cli.per_event_file &&
		    (vt_cli.format == VT_FMT_CSV || vt_cli.format == VT_FMT_MAIL))
			argp_error(state, "--per-event without =FILE writes JSON Lines in "
				   "place of the report, so --format=%s does not apply; "
				   "--per-event=FILE writes the lines to FILE and the "
				   "report in that format",
				   vt_cli.format == VT_FMT_CSV ? "csv" : "mail");
		if (parsing_subcommand && vt_cli.format == VT_FMT_MAIL &&
		    !(cur_cmd->applies & VT_APPLIES_RENDER))
			argp_error(state, "--format=mail applies to replay and "
				   "compare only");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- argp's help output, repaired ----------------------------------- */

/*
 * glibc's argp formats help through a 200-byte argp_fmtstream buffer; when
 * a line that needs a left margin starts with the buffer nearly full,
 * __argp_fmtstream_update() writes the margin's spaces straight to the
 * stream, ahead of the buffered text they belong after (glibc 2.36
 * argp/argp-fmtstream.c, "No buffer space for spaces.  Must flush."): a
 * header lands indented by the option-doc column and the doc line after
 * it at column 0.  A text that ends exactly at the right margin also
 * leaves a line of spaces.  So argp writes its help (state->out_stream)
 * into memory, and at exit it goes to stdout with argp's layout restored:
 * group headers at column 1, options at 2 or 6, their text at 29, and no
 * trailing blanks.
 */
enum { COL_HEADER = 1, COL_SHORT = 2, COL_LONG = 6, COL_DOC = 29 };

static char *help_buf;
static size_t help_len;
static FILE *help_file;

static bool is_margin(size_t n)
{
	return n == COL_HEADER || n == COL_SHORT || n == COL_LONG || n == COL_DOC;
}

/* The indentation @n a line of the options section should have had, given
 * its text @t and whether the line before it is blank. */
static size_t help_indent(size_t n, const char *t, size_t len, bool after_blank)
{
	bool header = after_blank && len && t[len - 1] == ':' && t[0] != '-';

	if (is_margin(n) && !(header && n != COL_HEADER))
		return n;
	if (header)
		return COL_HEADER;
	/* spaces of one margin (1 or 29) written ahead of this line's own */
	if (n > COL_DOC && is_margin(n - COL_DOC) && (t[0] == '-') == (n - COL_DOC != COL_DOC))
		return n - COL_DOC;
	if (n > COL_HEADER && t[0] == '-' && (n - COL_HEADER == COL_SHORT ||
					       n - COL_HEADER == COL_LONG))
		return n - COL_HEADER;
	return t[0] == '-' ? (t[1] == '-' ? COL_LONG : COL_SHORT) : COL_DOC;
}

struct help_line {
	const char *p;
	size_t n, len;	/* leading blanks, length without trailing blanks */
};

static bool has_word(const struct help_line *l, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = 0; i + n <= l->len; i++)
		if (!memcmp(l->p + i, w, n))
			return true;
	return false;
}

static void help_flush(void)
{
	struct help_line *v;
	size_t nr = 0, first = SIZE_MAX, start = 0, stop = 0;

	if (!help_file || fflush(help_file) || !help_len)
		goto out;
	v = calloc(help_len + 1, sizeof(*v));
	if (!v) {
		fwrite(help_buf, 1, help_len, stdout);
		goto out;
	}
	for (const char *p = help_buf, *end = help_buf + help_len; p < end; nr++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct help_line *l = &v[nr];

		l->p = p;
		l->len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		while (l->len && (p[l->len - 1] == ' ' || p[l->len - 1] == '\t'))
			l->len--;
		while (l->n < l->len && p[l->n] == ' ')
			l->n++;
		if (first == SIZE_MAX && l->n && l->n < l->len && p[l->n] == '-')
			first = nr;
		p = nl ? nl + 1 : end;
	}
	/* the options: from the blank line before the first one to --version */
	if (first != SIZE_MAX) {
		for (start = first; start && v[start - 1].len; start--)
			;
		for (stop = first; stop < nr; stop++)
			if (has_word(&v[stop], "--version"))
				break;
	}
	for (size_t i = 0; i < nr; i++) {
		struct help_line *l = &v[i];
		size_t n = l->n;

		if (n && n == l->len)
			continue;	/* a line of blanks alone */
		if (first != SIZE_MAX && i >= start && i <= stop && l->len)
			n = help_indent(n, l->p + n, l->len - n, i && !v[i - 1].len);
		printf("%*s%.*s\n", (int)n, "", (int)(l->len - l->n), l->p + l->n);
	}
	free(v);
	/* argp exits 0 after the help: a lost help text must not look like
	 * success (main()'s check_stdout() does not run on that path) */
	if (fflush(stdout) || ferror(stdout)) {
		vt_err("write error on stdout: %s", strerror(errno));
		_exit(VT_EC_SYSTEM);
	}
out:
	if (help_file)
		fclose(help_file);
	free(help_buf);
	help_file = NULL;
}

/* Where argp writes help, usage and --version: memory, put out by help_flush(). */
static FILE *help_stream(void)
{
	if (!help_file) {
		help_file = open_memstream(&help_buf, &help_len);
		if (!help_file)
			return stdout;
		atexit(help_flush);
	}
	return help_file;
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
		/* standard input can be read once (docs/reliability.md) */
		for (int i = 0, stdin_seen = 0; i < a->n; i++)
			if (!strcmp(a->v[i], "-") && stdin_seen++)
				argp_error(state, "standard input ('-') may be given "
					   "once per command");
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

static void unknown_command(const char *word)
{
	const char *names[sizeof(cmds) / sizeof(cmds[0])];
	const char *hint;
	size_t n = 0;

	for (const struct vt_cmd *c = cmds; c->name; c++)
		names[n++] = c->name;
	hint = vt_suggest(word, names, n);
	if (hint)
		vt_err("'%s' is not a vmaptool command; did you mean '%s'? "
		       "(see 'vmaptool help')", word, hint);
	else
		vt_err("'%s' is not a vmaptool command; see 'vmaptool help'", word);
}

/* The top-level --help, with argp's own options: argp prints it and exits 0. */
static int top_help(void)
{
	static char prog[] = "vmaptool", help_opt[] = "--help";
	char *av[] = { prog, help_opt, NULL };

	show_all();
	cur_cmd = NULL;
	argp_parse(&top_argp, 2, av, ARGP_IN_ORDER, NULL, NULL);
	return 0;
}

/* vmaptool help [COMMAND]: the top-level help, or COMMAND --help. */
static int cmd_help(int argc, char **argv)
{
	static char help_opt[] = "--help";
	const struct vt_cmd *c;
	char *av[3];

	if (argc > 2) {
		vt_err("help: one command at most; see 'vmaptool help'");
		return VT_EC_USAGE;
	}
	if (argc < 2)
		return top_help();
	c = cmd_find(argv[1]);
	if (!c) {
		unknown_command(argv[1]);
		return VT_EC_USAGE;
	}
	if (c->fn == cmd_help)
		return top_help();
	cur_cmd = c;
	hide_for(c);
	av[0] = argv[1];
	av[1] = help_opt;
	av[2] = NULL;
	return c->fn(2, av);	/* argp prints the help and exits 0 */
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
	build_common_options();
	vt_model_opts_init(&vt_cli.model);
	vt_cli.format = VT_FMT_TABLE;
	{
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		vt_cli.jobs = cores < 1 ? 1 : cores > 1024 ? 1024 : cores;
	}

	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, NULL);
	cmd = cmd_find(argv[cmd_index]);
	if (!cmd) {
		unknown_command(argv[cmd_index]);
		return check_stdout(VT_EC_USAGE);
	}
	for (unsigned int i = 0; i < nr_top_keys; i++)
		if (!applies(cmd, top_keys[i])) {
			char name[64];

			vt_err("%s does not apply to '%s'; see 'vmaptool help %s'",
			       option_name(top_keys[i], name, sizeof(name)),
			       cmd->name, cmd->name);
			return check_stdout(VT_EC_USAGE);
		}
	cur_cmd = cmd;
	hide_for(cmd);
	parsing_subcommand = true;
	rc = cmd->fn(argc - cmd_index, argv + cmd_index);
	return vt_out_finish(check_stdout(rc));
}
