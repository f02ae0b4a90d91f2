// SPDX-License-Identifier: GPL-2.0
/*
 * The common options shared by every subcommand (interfaces.md 1.1 and
 * 1.3): the what-if ones generated from the option table
 * (core/options.def), the granules and VA sizes from arch; their argp
 * parser, which records into the struct vt_cli argp hands it as input and
 * never acts or exits (main() and the commands act on what it recorded),
 * and the positional TRACE... operands of replay, compare and gate.
 */
#define _GNU_SOURCE	/* asprintf */
#include <argp.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/cost/profile.h"
#include "core/strategy/registry.h"

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
	OPT_ERRATUM,
	OPT_COST_OF,
	OPT_MODEL,	/* + enum vt_option_id: the option table */
};

/*
 * The file an option's value names, for the check that no output replaces
 * an input or another output (vt_out_check()): what the command does with
 * it (VT_IO_READ, VT_IO_WRITE), the member of struct vt_cli the parser
 * stores it in, and, for a value that is not always a path, how to find
 * the file it names.  Marked here, in the option table, so that an option
 * added with a file cannot be left out of the check (tests/cli/
 * test-output-clash.sh tries every option whose argument names a FILE).
 */
struct common_opt {
	struct argp_option a;
	unsigned int io;		/* VT_IO_*; 0: the value names no file */
	size_t member;			/* offsetof(struct vt_cli, ...) */
	const char *(*path)(const struct vt_cli *cli, const char *value, char *buf,
			    size_t len);
};
#define IO_FILE(mode, field, fn) (mode), offsetof(struct vt_cli, field), (fn)
#define NO_FILE 0, 0, NULL

/*
 * --profile=NAME reads PROFILE_DIR/NAME.json, a value with a '/' or ending
 * in ".json" is that file (vt_profile_load()'s rule, core/cost/profile.c);
 * a command that takes --profile reads the default one without it.
 */
static const char *profile_path(const struct vt_cli *cli, const char *value,
				char *buf, size_t len)
{
	size_t n;

	if (!value && (!cli->cmd || !(cli->cmd->applies & VT_APPLIES_PROFILE)))
		return NULL;
	if (!value)
		value = VT_PROFILE_DEFAULT;
	n = strlen(value);

	if (strchr(value, '/') || (n > 5 && !strcmp(value + n - 5, ".json")))
		return value;
	snprintf(buf, len, "%s/%s.json", vt_profile_dir(), value);
	return buf;
}

/* The common options before the table's, then those after it. */
static const struct common_opt common_head[] = {
	{ { NULL, 0, NULL, 0, "Common options:", 100 }, NO_FILE },
	{ { "strategy", OPT_STRATEGY, "LIST", 0,
	  "comma-separated strategies (default: the registry's default set)", 0 }, NO_FILE },
	{ { "profile", OPT_PROFILE, "NAME|FILE.json", 0,
	  "cost profile for the cycles and ns estimates (default generic-a76; "
	  "'vmaptool profiles' lists them)", 0 },
	  IO_FILE(VT_IO_READ, profile, profile_path) },
	{ { "erratum-4118414", OPT_ERRATUM, "on|off", 0,
	  "apply the ARM64_ERRATUM_4118414 workaround (a repeat of every "
	  "broadcast TLBI and its dsb) or not, whatever the profile says", 0 }, NO_FILE },
	{ { "cost-of", OPT_COST_OF, "map|alloc|free|all", 0,
	  "estimate the cost of a part of the work only: map (page-table work, "
	  "TLBIs, barriers), alloc (VA range and pages allocated), free (VA range "
	  "and pages freed, the lazy purge); default all", 0 }, NO_FILE },
	{ { "granule", OPT_GRANULE, NULL, 0,
	  "translation granule (overrides the trace's config)", 0 }, NO_FILE },
	{ { "va-bits", OPT_VA_BITS, "N", 0, NULL, 0 }, NO_FILE },
	{ { "vmlinux", OPT_VMLINUX, "FILE", 0,
	  "an arm64 kernel image (ELF vmlinux, Image, Image.gz, EFI zboot): its "
	  "geometry, --kernel generation and symbols, unless given by other options", 0 },
	  IO_FILE(VT_IO_READ, vmlinux, NULL) },
	{ { "kconfig", OPT_KCONFIG, "FILE", 0,
	  "the image's .config, for an image without IKCONFIG (Debian: "
	  "/boot/config-RELEASE)", 0 },
	  IO_FILE(VT_IO_READ, kconfig, NULL) },
	{ { "format", OPT_FORMAT, "table|json|csv|mail", 0,
	  "output format (default table; csv: replay, compare, ptdump and "
	  "strategies; mail: replay and compare)", 0 }, NO_FILE },
	{ { "json", 'j', NULL, 0, "same as --format=json", 0 }, NO_FILE },
	{ { "wide", OPT_WIDE, NULL, 0,
	  "the table keeps one column per strategy however wide (default: "
	  "one block per strategy when the columns would pass 72)", 0 }, NO_FILE },
	{ { "color", OPT_COLOR, "auto|always|never", OPTION_ARG_OPTIONAL,
	  "colour the table's changes by whether they are good (default auto: "
	  "on a terminal without NO_COLOR; --color alone is always)", 0 }, NO_FILE },
	{ { "svg", OPT_SVG, "FILE", 0,
	  "also write a self-contained SVG chart of the report to FILE", 0 },
	  IO_FILE(VT_IO_WRITE, svg, NULL) },
	{ { "output", 'o', "FILE", 0, "write the output to FILE (whole or not at all)", 0 },
	  IO_FILE(VT_IO_WRITE, output, NULL) },
	{ { "per-op", OPT_PER_OP, NULL, 0, "break the metrics down by op", 0 }, NO_FILE },
	{ { "per-event", OPT_PER_EVENT, "FILE", OPTION_ARG_OPTIONAL,
	  "JSON Lines, one line per event and strategy (to FILE, or instead of the report)", 0 },
	  IO_FILE(VT_IO_WRITE, per_event_file, NULL) },
	{ { "max-input", OPT_MAX_INPUT, "SIZE", 0,
	  "most bytes of one input held at once: a JSON trace, a JSON Lines "
	  "line, a recording after decompression (K, M, G, T suffixes; default 1G)", 0 }, NO_FILE },
	{ { "jobs", OPT_JOBS, "N", 0,
	  "N threads in parallel, shared by the traces and their strategies (default: the number of cores)", 0 }, NO_FILE },
	{ { "quiet", 'q', NULL, 0, "no warnings or informational messages", 0 }, NO_FILE },
	{ { "verbose", 'v', NULL, 0, "more detail; repeat for debug output", 0 }, NO_FILE },
	{ { NULL, 'h', NULL, 0, "same as --help", 0 }, NO_FILE },
	{ { NULL, 0, NULL, 0, "What-if options of the modelled kernel:", 110 }, NO_FILE },
	{ { "kernel", OPT_KERNEL, "GEN", 0, NULL, 0 }, NO_FILE },
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
static char kernel_choices[64];		/* "v6.12|v6.16|mainline" */
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
	case OPT_ERRATUM:
		return VT_APPLIES_PROFILE;
	case OPT_GRANULE:
	case OPT_VA_BITS:
		return VT_APPLIES_GEOMETRY;
	case OPT_VMLINUX:
	case OPT_KCONFIG:
		return VT_APPLIES_VMLINUX;
	case OPT_PER_OP:
	case OPT_JOBS:
		return VT_APPLIES_REPORT;
	case OPT_PER_EVENT:
		return VT_APPLIES_PER_EVENT;
	case OPT_KERNEL:
		return VT_APPLIES_MODEL;
	case OPT_WIDE:
	case OPT_COLOR:
	case OPT_SVG:
		return VT_APPLIES_RENDER;
	case OPT_COST_OF:
		return VT_APPLIES_COST_OF;
	}
	return 0;
}

bool vt_common_applies(const struct vt_cmd *c, int key)
{
	unsigned int bit = applies_bit(key);

	return !bit || (c->applies & bit);
}

/* "--name" or "-c" of common option @key. */
const char *vt_common_option_name(int key, char *buf, size_t len)
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
void vt_common_show_all(void)
{
	for (size_t i = 0; saved && i < NR_COMMON; i++) {
		common_options[i].flags = flags0[i];
		common_options[i].doc = doc0[i];
	}
}

void vt_common_show_for(const struct vt_cmd *c)
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
		if (!vt_common_applies(c, o->key) || !bit || bit == VT_APPLIES_FORMAT)
			o->flags |= OPTION_HIDDEN;
		/* gen and import write the config the others read */
		if (o->key == OPT_GRANULE && !strcmp(c->name, "gen"))
			o->doc = "translation granule, written to the trace's "
				 "config (default 4k)";
		if (o->key == OPT_GRANULE && !strcmp(c->name, "import"))
			o->doc = "translation granule, written to the trace's "
				 "config (default 4k, or --vmlinux's)";
	}
}

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
		cat(kernel_choices, sizeof(kernel_choices), "%s%s", k ? "|" : "",
		    vt_kernels[k].name);
		cat(kernel_help, sizeof(kernel_help), "%s%s",
		    !k ? "" : k == VT_KERNEL__NR - 1 ? " or " : ", ",
		    vt_kernels[k].name);
	}
	cat(kernel_help, sizeof(kernel_help), ": set the options below to what "
	    "that kernel generation does; options are applied left to right, "
	    "so one given after --kernel wins and one before it is overridden");

	for (size_t i = 0; i < NR_HEAD; i++) {
		*o = common_head[i].a;
		if (o->key == OPT_GRANULE)
			o->arg = granules;
		else if (o->key == OPT_VA_BITS)
			o->doc = va_help;
		else if (o->key == OPT_KERNEL)
			o->doc = kernel_help;
		o++;
		if (common_head[i].a.key != OPT_JOBS)
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

size_t vt_common_files(const struct vt_cli *cli, struct vt_io *io, size_t max,
			char (*bufs)[PATH_MAX])
{
	static char opt_names[NR_HEAD][40];
	size_t n = 0;

	/* -o, the other outputs, then the inputs: the order the messages
	 * name two of them in */
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < NR_HEAD && n < max; i++) {
			const struct common_opt *c = &common_head[i];
			const char *v;

			if (!c->io || (pass == 0) != (c->a.key == 'o') ||
			    (pass == 1 && !(c->io & VT_IO_WRITE)) ||
			    (pass == 2 && (c->io & VT_IO_WRITE)))
				continue;
			v = *(const char *const *)((const char *)cli + c->member);
			if (c->path)
				v = c->path(cli, v, bufs[n], PATH_MAX);
			snprintf(opt_names[i], sizeof(opt_names[i]), "--%s", c->a.name);
			io[n].opt = c->a.key == 'o' ? "-o" : opt_names[i];
			io[n].path = v;
			io[n].mode = c->io;
			n++;
		}
	return n;
}

bool vt_common_geometry_error(const struct vt_model_opts *m, char *buf, size_t len)
{
	if (vt_geometry_valid(m->page_shift, m->va_bits))
		return false;
	snprintf(buf, len, "granule %uk with --va-bits=%u is not a Kconfig-valid "
		 "pair (%s)", 1u << (m->page_shift - 10), m->va_bits, va_pairs);
	return true;
}

static error_t usage_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_END)	/* argp names the program after its init */
		return ARGP_ERR_UNKNOWN;
	argp_error(state, "%s", (const char *)state->input);
	return 0;
}

int vt_usage_error(const char *prog, const char *fmt, ...)
{
	static const struct argp usage_argp = { .parser = usage_parse };
	char msg[512], name[64];
	char *av[] = { name, NULL };
	va_list ap;

	snprintf(name, sizeof(name), "%s", prog);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a parse that only reports: argp's own words and layout, no exit */
	argp_parse(&usage_argp, 1, av, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, msg);
	return VT_EC_USAGE;
}

void vt_common_init(struct vt_cli *cli)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	if (!common_options[0].doc)
		build_common_options();
	memset(cli, 0, sizeof(*cli));
	vt_model_opts_init(&cli->model);
	cli->format = VT_FMT_TABLE;
	cli->jobs = cores < 1 ? 1 : cores > 1024 ? 1024 : cores;
}

/* Whether @a and @b hold the same digits in the same order. */
static bool same_digits(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a && !isdigit((unsigned char)*a))
			a++;
		while (*b && !isdigit((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
	}
}

/*
 * The usage error of a word option given @arg, none of @expected ("a|b|c"),
 * with the closest word when it is near enough to be a typo or @arg is a
 * word without its "v" ('6.12' for v6.12), as for a strategy or a command.
 * Only words of the same digits are offered: '8k' is no typo of 4k, nor
 * v7.0 of v7.2.
 */
static void bad_word(struct argp_state *state, const char *opt, const char *arg,
		     const char *expected)
{
	const char *cands[32];
	char buf[256], hint[64] = "", vword[64];
	const char *h;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", expected);
	for (char *w = strtok(buf, "|"); w && n < 32; w = strtok(NULL, "|"))
		if (same_digits(w, arg))
			cands[n++] = w;
	snprintf(vword, sizeof(vword), "v%s", arg);
	h = vt_suggest(vword, cands, n);
	if (!h || strcmp(h, vword))
		h = vt_suggest(arg, cands, n);
	if (h)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", h);
	argp_error(state, "invalid value '%s' for --%s (expected %s)%s", arg,
		   opt, expected, hint);
}

/* Parse @arg as one of @n words; returns its index or calls argp_error. */
static int pick(struct argp_state *state, const char *opt, const char *arg,
		const char *const *words, int n, const char *expected)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, words[i]))
			return i;
	bad_word(state, opt, arg, expected);
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
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *p;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end && (p = strchr(units, *end & ~0x20)) && *end != 0x20) {
		shift = 10 * (unsigned int)(p - units + 1);
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

/* One option of the table: its value from @arg, into @cli->model. */
static void model_option(struct vt_cli *cli, struct argp_state *state,
			 enum vt_option_id id, const char *arg)
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
			bad_word(state, t->name, arg, t->words);
		else
			v = t->values[i];
		break;
	}
	vt_option_set(&cli->model, id, v);
	cli->opt_given[id] = true;
}

/* --granule's word: the page shift of a granule arch knows. */
static unsigned int parse_granule(struct argp_state *state, const char *arg)
{
	char gran[8];
	unsigned int i;

	for (i = 12; i <= 16; i++) {
		snprintf(gran, sizeof(gran), "%uk", 1u << (i - 10));
		if (!strcmp(arg, gran) && granule_known(i))
			return i;
	}
	bad_word(state, "granule", arg, granules);
	return 12;
}

/* --kernel's word: a generation of the option table. */
static enum vt_kernel_gen parse_kernel(struct argp_state *state, const char *arg)
{
	for (int i = 0; i < VT_KERNEL__NR; i++)
		if (!strcmp(arg, vt_kernels[i].name))
			return (enum vt_kernel_gen)i;
	bad_word(state, "kernel", arg, kernel_choices);
	return (enum vt_kernel_gen)0;
}

/*
 * Whether command @c writes format @f: table and json every command with
 * --format does, csv and mail only those whose bits say so (the one check
 * of a format a command does not write, a usage error like an option it
 * does not take).
 */
static bool format_applies(const struct vt_cmd *c, enum vt_format f)
{
	switch (f) {
	case VT_FMT_TABLE:
	case VT_FMT_JSON:
		return true;
	case VT_FMT_CSV:
		return c->applies & VT_APPLIES_CSV;
	case VT_FMT_MAIL:
		return c->applies & VT_APPLIES_RENDER;
	}
	return false;
}

/* The end of a parse: diag.c's options, then the checks that need every
 * option seen (a subcommand's parse only). */
static void common_end(struct vt_cli *cli, struct argp_state *state)
{
	char msg[256];

	vt_diag_setup(&(struct vt_diag_opts){
		.quiet = cli->quiet, .verbose = cli->verbose,
		.json = cli->format == VT_FMT_JSON,
		.json_one_line = cli->per_event && !cli->per_event_file,
	});
	if (cli->cmd && cli->kconfig && !cli->vmlinux)
		argp_error(state, "--kconfig needs --vmlinux");
	/* with --vmlinux the pair is checked once the image's values
	 * are in, by the command (vt_cli_vmlinux_apply()) */
	if (cli->cmd && !cli->vmlinux &&
	    vt_common_geometry_error(&cli->model, msg, sizeof(msg)))
		argp_error(state, "%s", msg);
	if (cli->cmd && cli->per_event && !cli->per_event_file &&
	    (cli->format == VT_FMT_CSV || cli->format == VT_FMT_MAIL))
		argp_error(state, "--per-event without =FILE writes JSON Lines in "
			   "place of the report, so --format=%s does not apply; "
			   "--per-event=FILE writes the lines to FILE and the "
			   "report in that format",
			   cli->format == VT_FMT_CSV ? "csv" : "mail");
	if (cli->cmd && !format_applies(cli->cmd, cli->format)) {
		char took[64] = "";	/* "table, json or csv" */
		int n = 0, i = 0;

		for (int f = 0; vt_format_names[f]; f++)
			n += format_applies(cli->cmd, (enum vt_format)f);
		for (int f = 0; vt_format_names[f]; f++)
			if (format_applies(cli->cmd, (enum vt_format)f))
				cat(took, sizeof(took), "%s%s",
				    !i++ ? "" : i == n ? " or " : ", ",
				    vt_format_names[f]);
		argp_error(state, "--format=%s does not apply to '%s' (%s)",
			   vt_format_names[cli->format], cli->cmd->name, took);
	}
}

/* in the order of enum vt_format */
const char *const vt_format_names[] = { "table", "json", "csv", "mail", NULL };

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	/* in the order of enum vt_format */
	const char *const *formats = vt_format_names;
	static const char *const colours[] = { "auto", "always", "never" };
	struct vt_cli *cli = state->input;
	struct vt_model_opts *m = &cli->model;

	if (key > 0 && key < 0x1000000) {	/* an option, not an ARGP_KEY_* */
		char name[64];

		/* given before the command word: main() checks it once the
		 * command is known */
		if (cli->cmd && !vt_common_applies(cli->cmd, key))
			argp_error(state, "%s does not apply to '%s'",
				   vt_common_option_name(key, name, sizeof(name)),
				   cli->cmd->name);
		if (!cli->cmd && cli->nr_top_keys < 64)
			cli->top_keys[cli->nr_top_keys++] = key;
	}
	if (key == ARGP_KEY_INIT) {
		state->out_stream = vt_help_stream();
		vt_check_long_options(state);
		return 0;
	}
	if (key == 'h') {
		argp_state_help(state, state->out_stream, ARGP_HELP_STD_HELP);
		return 0;
	}
	if (key >= OPT_MODEL && key < OPT_MODEL + VT_OPT__NR) {
		model_option(cli, state, (enum vt_option_id)(key - OPT_MODEL), arg);
		return 0;
	}
	switch (key) {
	case OPT_STRATEGY:
		cli->strategies = arg;
		break;
	case OPT_PROFILE:
		cli->profile = arg;
		break;
	case OPT_GRANULE:
		m->page_shift = parse_granule(state, arg);
		cli->granule_set = true;
		break;
	case OPT_VA_BITS:
		m->va_bits = number(state, "va-bits", arg, 1, 64);
		cli->va_bits_set = true;
		break;
	case OPT_FORMAT:
		cli->format = pick(state, "format", arg, formats, 4,
				     "table|json|csv|mail");
		break;
	case 'j':
		cli->format = VT_FMT_JSON;
		break;
	case 'o':
		cli->output = arg;
		break;
	case OPT_WIDE:
		cli->wide = true;
		break;
	case OPT_COLOR:
		cli->colour = arg ? pick(state, "color", arg, colours, 3,
					   "auto|always|never") : VT_COLOUR_ALWAYS;
		break;
	case OPT_SVG:
		cli->svg = arg;
		break;
	case OPT_ERRATUM: {
		static const char *const onoff[] = { "on", "off" };

		cli->erratum_4118414 = 1 + pick(state, "erratum-4118414", arg, onoff, 2,
						"on|off");
		break;
	}
	case OPT_COST_OF: {
		static const char *const parts[] = { "map", "alloc", "free", "all" };

		int i = pick(state, "cost-of", arg, parts, 4, "map|alloc|free|all");

		cli->cost_of = i < 0 ? 0 : (unsigned int)vt_cost_part_find(parts[i]);
		break;
	}
	case OPT_PER_OP:
		cli->per_op = true;
		break;
	case OPT_PER_EVENT:
		cli->per_event = true;
		cli->per_event_file = arg;
		break;
	case OPT_JOBS:
		cli->jobs = number(state, "jobs", arg, 1, 1024);
		break;
	case OPT_MAX_INPUT:
		m->max_input = byte_size(state, "max-input", arg);
		break;
	case OPT_VMLINUX:
		cli->vmlinux = arg;
		break;
	case OPT_KCONFIG:
		cli->kconfig = arg;
		break;
	case 'q':
		cli->quiet = true;
		break;
	case 'v':
		cli->verbose++;
		break;
	case OPT_KERNEL:
		vt_model_opts_kernel(m, parse_kernel(state, arg));
		cli->kernel_given = true;
		break;
	case ARGP_KEY_END:
		common_end(cli, state);
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


const struct argp_child vt_common_children[] = {
	{ &vt_common_argp, 0, NULL, 0 },
	{ NULL, 0, NULL, 0 }
};

char *vt_bundled_trace(const char *arg)
{
	static const char *const ext[] = { "", ".json", ".jsonl" };
	struct stat st;

	if (!*arg || !strcmp(arg, "-") || strchr(arg, '/') || !stat(arg, &st) ||
	    errno != ENOENT)
		return NULL;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		char *path;

		if (asprintf(&path, "%s/traces/%s%s", vt_data_dir(), arg, ext[i]) < 0)
			return NULL;
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			return path;
		free(path);
	}
	return NULL;
}

/* A name that is neither a file nor a bundled trace but close to one of
 * these: say which, before the open fails ("did you mean"). */
static void bundled_hint(const char *arg)
{
	static const char *const ext[] = { ".json", ".jsonl" };
	char path[4096], *names[64];
	const char *cands[64];
	struct dirent *e;
	size_t n = 0;
	const char *hint;
	struct stat st;
	DIR *d;

	if (!*arg || !strcmp(arg, "-") || strchr(arg, '/') || !stat(arg, &st) ||
	    errno != ENOENT)
		return;
	snprintf(path, sizeof(path), "%s/traces", vt_data_dir());
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d)) && n < 64) {
		const char *dot = strrchr(e->d_name, '.');

		if (!dot || (strcmp(dot, ext[0]) && strcmp(dot, ext[1])) ||
		    !strcmp(e->d_name, "baseline.json"))
			continue;
		names[n] = strndup(e->d_name, (size_t)(dot - e->d_name));
		if (names[n]) {
			cands[n] = names[n];
			n++;
		}
	}
	closedir(d);
	hint = vt_suggest(arg, cands, n);
	if (hint)
		vt_warn("no file '%s'; did you mean the bundled trace '%s'?", arg, hint);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

int vt_trace_args_bundled(struct vt_trace_args *a)
{
	char **v = calloc((size_t)a->n + 1, sizeof(*v));

	a->shown = calloc((size_t)a->n + 1, sizeof(*a->shown));
	if (!v || !a->shown) {
		free(v);
		free(a->shown);
		a->shown = NULL;
		return -ENOMEM;
	}
	for (int i = 0; i < a->n; i++) {
		v[i] = vt_bundled_trace(a->v[i]);
		if (v[i]) {
			a->shown[i] = a->v[i];	/* argv's: lives as long */
		} else {
			bundled_hint(a->v[i]);
			v[i] = strdup(a->v[i]);
		}
		if (!v[i]) {
			a->owned = v;
			vt_trace_args_release(a);
			return -ENOMEM;
		}
	}
	a->v = a->owned = v;
	return 0;
}

void vt_trace_args_release(struct vt_trace_args *a)
{
	free(a->shown);
	a->shown = NULL;
	if (!a->owned)
		return;
	for (int i = 0; a->owned[i]; i++)
		free(a->owned[i]);
	free(a->owned);
	a->owned = NULL;
}

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

