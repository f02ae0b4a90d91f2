// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool gen PATTERN [OPTION...] -o TRACE: synthesise a seeded,
 * reproducible trace (docs/vmaptool-gen.md).  The generators live in
 * core/gen.c; this file parses options, builds the trace header and
 * connects a generator to the trace writer.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/input.h"
#include "core/trace/gen.h"
#include "core/trace/trace.h"

enum gen_pattern { P_SYSTEMHEAP, P_TEST_VMALLOC, P_IOREMAP, P_MAP_MEM, P__NR };

/* the PATTERN words, in the order of enum gen_pattern (cli.h) */
const char *const vt_gen_pattern_names[] = {
	"systemheap", "test_vmalloc", "ioremap", "map_mem", NULL
};
#define pattern_names vt_gen_pattern_names

enum {
	OPT_SEED = 0x200, OPT_SIZE, OPT_BUFFERS, OPT_LIVE, OPT_FRAG,
	OPT_BUDDYINFO, OPT_MEM, OPT_NO_PAGE_ARRAY, OPT_TEST, OPT_LOOPS,
	OPT_NR_PAGES, OPT_USE_HUGE, OPT_JUNK, OPT_BUSY, OPT_PCPU_OBJECTS,
	OPT_COUNT, OPT_PHYS_ALIGN, OPT_PHYS_BASE, OPT_JSONL, OPT_RODATA,
	OPT_HOLE, OPT_ORDERS, OPT__END
};

#define BIT(o) (1ull << ((o) - OPT_SEED))
/* Which options each pattern takes (--seed and --jsonl: all). */
static const unsigned long long pattern_opts[P__NR] = {
	[P_SYSTEMHEAP] = BIT(OPT_SIZE) | BIT(OPT_BUFFERS) | BIT(OPT_LIVE) |
			 BIT(OPT_FRAG) | BIT(OPT_BUDDYINFO) | BIT(OPT_MEM) |
			 BIT(OPT_NO_PAGE_ARRAY) | BIT(OPT_ORDERS),
	[P_TEST_VMALLOC] = BIT(OPT_TEST) | BIT(OPT_LOOPS) | BIT(OPT_NR_PAGES) |
			   BIT(OPT_USE_HUGE) | BIT(OPT_JUNK) | BIT(OPT_BUSY) |
			   BIT(OPT_PCPU_OBJECTS),
	[P_IOREMAP] = BIT(OPT_SIZE) | BIT(OPT_COUNT) | BIT(OPT_LIVE) |
		      BIT(OPT_PHYS_ALIGN) | BIT(OPT_PHYS_BASE),
	[P_MAP_MEM] = BIT(OPT_SIZE) | BIT(OPT_PHYS_BASE) | BIT(OPT_RODATA) |
		      BIT(OPT_HOLE),
};

#define MAX_SIZES 64
#define MAX_DEFERRED 256	/* gen options on one command line */

struct gen_args {
	struct vt_cli *cli;
	int pattern;
	unsigned long long given;	/* BIT() of each option seen */
	uint64_t seed;
	uint64_t sizes[MAX_SIZES];
	unsigned int nr_sizes;
	unsigned long buffers, live, count;
	double frag;
	const char *buddyinfo;
	uint64_t mem;
	bool no_page_array, use_huge, jsonl, blocks;
	uint64_t hole;
	unsigned int orders[VT_GEN_MAX_HEAP_ORDERS], nr_orders;
	enum vt_tv_test tests[VT_TV__NR * 4];
	unsigned int nr_tests;
	unsigned long loops, nr_pages, junk, busy, pcpu_objects;
	uint64_t phys_align, phys_base;
	char *canon;			/* the options as given, for meta */
	size_t canon_len;
	struct { int key; char *arg; } deferred[MAX_DEFERRED];	/* in order */
	unsigned int nr_deferred;
};

static const struct argp_option gen_options[] = {
	{ NULL, 0, NULL, 0, "All patterns:", 1 },
	{ "seed", OPT_SEED, "N", 0, "seed of the generator (default 1)", 1 },
	{ "jsonl", OPT_JSONL, NULL, 0,
	  "write JSON Lines (implied by -o NAME.jsonl or NAME.ndjson)", 1 },
	{ NULL, 0, NULL, 0, "systemheap (drivers/dma-buf/heaps/system_heap.c):", 2 },
	{ "size", OPT_SIZE, "SIZE[,SIZE...]", 0,
	  "buffer (or ioremap) sizes, used in turn; K/M/G suffixes, sums "
	  "like 64M+68K (default 8M; ioremap 1M)", 2 },
	{ "buffers", OPT_BUFFERS, "N", 0, "buffers to allocate (default 8)", 2 },
	{ "live", OPT_LIVE, "N", 0,
	  "at most N buffers (or ioremaps) mapped at once; a live one picked "
	  "at random is released to make room (default 2; ioremap 1)", 2 },
	{ "frag", OPT_FRAG, "P", 0,
	  "each order-8 or order-4 attempt fails with probability P (0..1)", 2 },
	{ "buddyinfo", OPT_BUDDYINFO, "FILE", 0,
	  "free blocks from a /proc/buddyinfo snapshot", 2 },
	{ "mem", OPT_MEM, "SIZE", 0,
	  "free physical memory of the model without --buddyinfo (default 4G)", 2 },
	{ "no-page-array", OPT_NO_PAGE_ARRAY, NULL, 0,
	  "omit system_heap_do_vmap()'s vmalloc of the page array", 2 },
	{ "orders", OPT_ORDERS, "O[,O...]", 0,
	  "the orders the heap tries, descending, ending in 0 "
	  "(default 8,4,0, the kernel's)", 2 },
	{ NULL, 0, NULL, 0, "test_vmalloc (lib/test_vmalloc.c):", 3 },
	{ "test", OPT_TEST, "NAME[,NAME...]", 0,
	  "test cases to run in order, or 'all' (default fix_size_alloc_test)", 3 },
	{ "loops", OPT_LOOPS, "N", 0,
	  "test_loop_count (default 100; the module's is 1000000)", 3 },
	{ "nr-pages", OPT_NR_PAGES, "N", 0,
	  "nr_pages of fix_size_alloc_test and vm_map_ram_test (default 1)", 3 },
	{ "use-huge", OPT_USE_HUGE, NULL, 0,
	  "use_huge: fix_size_alloc_test calls vmalloc_huge()", 3 },
	{ "junk", OPT_JUNK, "N", 0,
	  "full_fit_alloc_test's junk_length (default fls(--cpus) * 32M / PAGE_SIZE)", 3 },
	{ "busy", OPT_BUSY, "N", 0,
	  "long_busy_list_alloc_test's list length (default 15000)", 3 },
	{ "pcpu-objects", OPT_PCPU_OBJECTS, "N", 0,
	  "nr_pcpu_objects of pcpu_alloc_test (default 35000)", 3 },
	{ NULL, 0, NULL, 0, "ioremap:", 4 },
	{ "count", OPT_COUNT, "N", 0, "ioremaps to make (default 1)", 4 },
	{ "phys-align", OPT_PHYS_ALIGN, "SIZE", 0,
	  "physical alignment (default: each size's largest power of two)", 4 },
	{ "phys-base", OPT_PHYS_BASE, "ADDR", 0,
	  "lowest physical address (default 0x10000000; map_mem: the start "
	  "of DRAM, 0x80000000)", 4 },
	{ NULL, 0, NULL, 0, "map_mem (arch/arm64/mm/mmu.c, the linear map at boot; "
	  "--size gives the memblock ranges):", 5 },
	{ "rodata", OPT_RODATA, "full|on", 0,
	  "full (default): every range PTE-mapped (NO_BLOCK_MAPPINGS | "
	  "NO_CONT_MAPPINGS); on: blocks and CONT allowed (rodata=on, or "
	  "BBML2_NOABORT in the newest kernels)", 5 },
	{ "hole", OPT_HOLE, "SIZE", 0,
	  "bytes between consecutive memory ranges (default 0)", 5 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

/* A size: 0x..., or decimal with an optional K/M/G/T suffix; a+b sums.
 * *@big: false because it is 2^64 or more. */
static bool parse_size(const char *s, uint64_t *out, bool *big)
{
	uint64_t total = 0;

	*big = false;

	for (;;) {
		unsigned long long v;
		char *end;
		unsigned int shift = 0;

		if (*s == '-' || *s == '+' || !*s)
			return false;
		errno = 0;
		v = strtoull(s, &end, 0);
		if (errno || end == s) {
			*big = errno == ERANGE;
			return false;
		}
		switch (*end) {
		case 'K': case 'k': shift = 10; end++; break;
		case 'M': case 'm': shift = 20; end++; break;
		case 'G': case 'g': shift = 30; end++; break;
		case 'T': case 't': shift = 40; end++; break;
		default: break;
		}
		if ((shift && v > (UINT64_MAX >> shift)) ||
		    (v << shift) > UINT64_MAX - total) {
			*big = true;
			return false;
		}
		v <<= shift;
		total += v;
		if (*end == '+') {
			s = end + 1;
			continue;
		}
		if (*end)
			return false;
		*out = total;
		return true;
	}
}

/* --@opt=@arg as a size, else the usage error: 2^64 or more, or not
 * @expected ("a size such as 4G"). */
static uint64_t size_value(struct argp_state *state, const char *opt,
			   const char *arg, const char *expected)
{
	uint64_t v = 0;
	bool big;

	if (parse_size(arg, &v, &big))
		return v;
	if (big)
		argp_error(state, "--%s '%s': 2^64 bytes or more", opt, arg);
	else
		argp_error(state, "--%s '%s': expected %s", opt, arg, expected);
	return 0;
}

static unsigned long parse_count(struct argp_state *state, const char *name,
				 const char *arg, unsigned long min,
				 unsigned long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max)
		argp_error(state, "--%s '%s': expected an integer within %lu..%lu",
			   name, arg, min, max);
	return v;
}

/* Append " --name[=value]" to the canonical command line. */
static void canon_add(struct gen_args *a, const char *name, const char *arg)
{
	size_t need = strlen(name) + (arg ? strlen(arg) + 1 : 0) + 4;

	if (VT_REALLOC_ARRAY(a->canon, a->canon_len + need))
		return;
	a->canon_len += sprintf(a->canon + a->canon_len, " --%s%s%s", name,
				arg ? "=" : "", arg ? arg : "");
}

static void parse_tests(struct argp_state *state, struct gen_args *a,
			const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		argp_failure(state, VT_EC_SYSTEM, ENOMEM, "--test");
	a->nr_tests = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int t;

		if (!strcmp(tok, "all")) {
			for (t = 0; t < VT_TV__NR &&
			     a->nr_tests < sizeof(a->tests) / sizeof(a->tests[0]); t++)
				a->tests[a->nr_tests++] = t;
			continue;
		}
		t = vt_tv_test_find(tok);
		if (t < 0) {
			/* did you mean (as for a strategy or a command) */
			const char *hint = vt_suggest(tok, vt_tv_test_names, VT_TV__NR);

			argp_error(state, "--test '%s': no such test_vmalloc test; %s%s%ssee 'vmaptool gen --help' and docs/vmaptool-gen.md",
				   tok, hint ? "did you mean '" : "", hint ? hint : "",
				   hint ? "'? " : "");
		}
		if (a->nr_tests == sizeof(a->tests) / sizeof(a->tests[0]))
			argp_error(state, "--test: too many tests");
		a->tests[a->nr_tests++] = t;
	}
	free(copy);
	if (!a->nr_tests)
		argp_error(state, "--test: no test given");
}

/* --size=SIZE[,SIZE...] */
static void parse_sizes(struct argp_state *state, struct gen_args *a, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		argp_failure(state, VT_EC_SYSTEM, ENOMEM, "--size");
	a->nr_sizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (a->nr_sizes == MAX_SIZES)
			argp_error(state, "--size: more than %d sizes",
				   MAX_SIZES);
		a->sizes[a->nr_sizes] = size_value(state, "size", tok,
				"a size such as 4096, 64K, 1M or 64M+68K");
		if (!a->sizes[a->nr_sizes])
			argp_error(state, "--size '%s': expected a size such as 4096, 64K, 1M or 64M+68K",
				   tok);
		a->nr_sizes++;
	}
	free(copy);
	if (!a->nr_sizes)
		argp_error(state, "--size: no size given");
}

/* --orders=N,...,0: descending, ending in 0 */
static void parse_orders(struct argp_state *state, struct gen_args *a, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		argp_failure(state, VT_EC_SYSTEM, ENOMEM, "--orders");
	a->nr_orders = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (a->nr_orders == VT_GEN_MAX_HEAP_ORDERS)
			argp_error(state, "--orders: more than %d orders",
				   VT_GEN_MAX_HEAP_ORDERS);
		a->orders[a->nr_orders++] =
			parse_count(state, "orders", tok, 0, 13);
	}
	free(copy);
	if (!a->nr_orders || a->orders[a->nr_orders - 1])
		argp_error(state, "--orders '%s': expected orders ending in 0, such as 8,4,0",
			   arg);
	for (unsigned int i = 1; i < a->nr_orders; i++)
		if (a->orders[i] >= a->orders[i - 1])
			argp_error(state, "--orders '%s': the orders must descend",
				   arg);
}

/* The value @arg of gen option @key (checked to apply to the pattern). */
static void gen_value(int key, char *arg, struct argp_state *state)
{
	struct gen_args *a = state->input;

	switch (key) {
	case OPT_SEED:
		a->seed = parse_count(state, "seed", arg, 0, ULONG_MAX);
		break;
	case OPT_SIZE:
		parse_sizes(state, a, arg);
		break;
	case OPT_BUFFERS:
		a->buffers = parse_count(state, "buffers", arg, 1, 100000000);
		break;
	case OPT_LIVE:
		a->live = parse_count(state, "live", arg, 1, 1000000);
		break;
	case OPT_COUNT:
		a->count = parse_count(state, "count", arg, 1, 100000000);
		break;
	case OPT_FRAG: {
		char *end;

		errno = 0;
		a->frag = strtod(arg, &end);
		if (errno || end == arg || *end || !(a->frag >= 0 && a->frag <= 1))
			argp_error(state, "--frag '%s': expected a probability within 0..1",
				   arg);
		break;
	}
	case OPT_BUDDYINFO:
		a->buddyinfo = arg;
		break;
	case OPT_MEM:
		a->mem = size_value(state, "mem", arg, "a size such as 4G");
		if (!a->mem)
			argp_error(state, "--mem '%s': expected a size such as 4G",
				   arg);
		break;
	case OPT_NO_PAGE_ARRAY:
		a->no_page_array = true;
		break;
	case OPT_ORDERS:
		parse_orders(state, a, arg);
		break;
	case OPT_TEST:
		parse_tests(state, a, arg);
		break;
	case OPT_LOOPS:
		a->loops = parse_count(state, "loops", arg, 1, 100000000);
		break;
	case OPT_NR_PAGES:
		a->nr_pages = parse_count(state, "nr-pages", arg, 1, 1ul << 24);
		break;
	case OPT_USE_HUGE:
		a->use_huge = true;
		break;
	case OPT_JUNK:
		a->junk = parse_count(state, "junk", arg, 1, 100000000);
		break;
	case OPT_BUSY:
		a->busy = parse_count(state, "busy", arg, 1, 100000000);
		break;
	case OPT_PCPU_OBJECTS:
		a->pcpu_objects = parse_count(state, "pcpu-objects", arg, 1,
					      100000000);
		break;
	case OPT_PHYS_ALIGN:
		a->phys_align = size_value(state, "phys-align", arg, "a power of two");
		if (!a->phys_align || (a->phys_align & (a->phys_align - 1)))
			argp_error(state, "--phys-align '%s': expected a power of two",
				   arg);
		break;
	case OPT_PHYS_BASE:
		a->phys_base = size_value(state, "phys-base", arg, "an address");
		break;
	case OPT_RODATA:
		if (!strcmp(arg, "full"))
			a->blocks = false;
		else if (!strcmp(arg, "on"))
			a->blocks = true;
		else
			argp_error(state, "--rodata '%s': expected full or on", arg);
		break;
	case OPT_HOLE:
		a->hole = size_value(state, "hole", arg, "a size");
		break;
	case OPT_JSONL:
		a->jsonl = true;
		break;
	}
}

static error_t gen_parse(int key, char *arg, struct argp_state *state)
{
	struct gen_args *a = state->input;
	const struct argp_option *opt;

	if (key >= OPT_SEED && key < OPT__END) {
		a->given |= BIT(key);
		for (opt = gen_options; opt->name || opt->doc; opt++)
			if (opt->key == key)
				canon_add(a, opt->name, arg);
		/* values are read once the pattern is known: an option of
		 * another pattern is that error, whatever its value */
		if (a->nr_deferred == MAX_DEFERRED)
			argp_error(state, "too many options");
		a->deferred[a->nr_deferred].key = key;
		a->deferred[a->nr_deferred++].arg = arg;
		return 0;
	}
	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case ARGP_KEY_ARG:
		if (a->pattern >= 0)
			argp_error(state, "unexpected argument '%s'", arg);
		for (int i = 0; i < P__NR; i++)
			if (!strcmp(arg, pattern_names[i]))
				a->pattern = i;
		if (a->pattern < 0) {
			const char *hint = vt_suggest(arg, pattern_names, P__NR);

			argp_error(state, "'%s' is not a pattern (systemheap, test_vmalloc, "
				   "ioremap, map_mem)%s%s%s", arg, hint ? "; did you mean '" : "",
				   hint ? hint : "", hint ? "'?" : "");
		}
		break;
	case ARGP_KEY_NO_ARGS:
		argp_error(state, "no pattern given (systemheap, test_vmalloc, ioremap, map_mem)");
		break;
	case ARGP_KEY_END:
		if (a->pattern < 0)
			break;
		for (opt = gen_options; opt->name || opt->doc; opt++) {
			unsigned long long bit;

			if (!opt->name || opt->key < OPT_SIZE ||
			    opt->key == OPT_JSONL)
				continue;
			bit = BIT(opt->key);
			if ((a->given & bit) && !(pattern_opts[a->pattern] & bit))
				argp_error(state, "--%s does not apply to pattern '%s'",
					   opt->name, pattern_names[a->pattern]);
		}
		if ((a->given & BIT(OPT_BUDDYINFO)) && (a->given & BIT(OPT_MEM)))
			argp_error(state, "--mem and --buddyinfo exclude each other");
		for (unsigned int i = 0; i < a->nr_deferred; i++)
			gen_value(a->deferred[i].key, a->deferred[i].arg, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child gen_children[] = {
	{ &vt_common_argp, 0, "Common options:", 5 },
	{ NULL, 0, NULL, 0 }
};

static const struct argp gen_argp = {
	.options = gen_options,
	.parser = gen_parse,
	.args_doc = "PATTERN",
	.doc = "Synthesise a seeded, reproducible trace.  PATTERN is "
	       "systemheap, test_vmalloc, ioremap or map_mem; the same options and "
	       "seed give the same bytes.\v"
	       "--granule and --va-bits set the trace's config (default "
	       "4k/48); --cpus sets full_fit_alloc_test's CPU count.  The "
	       "trace goes to -o FILE (written whole or not at all) or "
	       "stdout.  Exit status: 0 success, 2 usage, 3 bad input (a "
	       "malformed --buddyinfo file, model memory exhausted), 4 "
	       "system error.",
	.children = gen_children,
};

struct emit_ctx {
	struct vt_trace_writer *w;
};

static int emit_to_writer(void *ctx, const struct vt_event *ev,
			  struct vt_error *err)
{
	struct emit_ctx *c = ctx;

	return vt_trace_writer_event(c->w, ev, err);
}

/* Read a small text file whole (a buddyinfo snapshot). */
static char *slurp(const char *path, struct vt_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		vt_error_set(err, -errno, "cannot open '%s': %s", path,
			     strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (64u << 20)) {
				vt_error_set(err, -EINVAL,
					     "'%s' is too large for a buddyinfo snapshot",
					     path);
				goto fail;
			}
			if (VT_REALLOC_ARRAY(buf, cap)) {
				vt_err_oom(err);
				goto fail;
			}
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		vt_error_set(err, -EIO, "cannot read '%s'", path);
		goto fail;
	}
	fclose(f);
	buf[len] = 0;
	if (strlen(buf) != len) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		vt_error_set(err, -EINVAL, "'%s' is not a text file", path);
		free(buf);
		return NULL;
	}
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

/* The trace's meta object: how to regenerate it. */
static char *make_meta(const struct gen_args *a)
{
	const struct vt_model_opts *m = &a->cli->model;
	char *out = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	const char *granule = m->page_shift == 16 ? "64k" :
			      m->page_shift == 14 ? "16k" : "4k";

	if (!f)
		return NULL;
	fprintf(f, "{\"source\":\"vmaptool gen\",\"command\":\"vmaptool gen %s --granule=%s --va-bits=%u",
		pattern_names[a->pattern], granule, m->va_bits);
	if (a->pattern == P_TEST_VMALLOC && !a->junk)
		fprintf(f, " --cpus=%u", m->cpus);
	if (!(a->given & BIT(OPT_SEED)))
		fprintf(f, " --seed=%llu", (unsigned long long)a->seed);
	for (p = a->canon; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		if ((unsigned char)*p < 0x20)
			fputc('?', f);
		else
			fputc(*p, f);
	}
	fputs("\"}", f);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* @v bytes as the largest K/M/G/T unit that divides it ("4M"). */
static const char *human(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (u < 3 && v && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, unit[u]);
	return buf;
}

/* The complete trace in @f (a temporary) to stdout; closes @f. */
static int copy_out(FILE *f)
{
	char buf[65536];
	size_t n;
	int rc = 0;

	if (fflush(f) || fseek(f, 0, SEEK_SET))
		rc = vt_err("cannot read back the trace: %s", strerror(errno));
	while (!rc && (n = fread(buf, 1, sizeof(buf), f)))
		if (fwrite(buf, 1, n, stdout) != n)
			rc = vt_err("write error on stdout: %s", strerror(errno));
	if (!rc && ferror(f))
		rc = vt_err("cannot read back the trace: %s", strerror(errno));
	fclose(f);
	return rc ? VT_EC_SYSTEM : vt_out_close(stdout, NULL, true);
}

/* ---- one generator per pattern (core/trace/gen.h) -------------------- */

/* What a pattern's generator is handed. */
struct gen_run {
	const struct gen_args *a;
	const char *buddy;		/* the --buddyinfo text, or NULL */
	struct vt_gen_out *out;
	struct vt_error *err;
};

static int gen_systemheap(const struct gen_run *r)
{
	const struct gen_args *a = r->a;
	struct vt_gen_systemheap o = {
		.sizes = a->sizes, .nr_sizes = a->nr_sizes,
		.buffers = a->buffers, .live = a->live,
		.frag = a->frag, .buddyinfo = r->buddy,
		.buddyinfo_name = a->buddyinfo, .mem_bytes = a->mem,
		.no_page_array = a->no_page_array,
		.orders = a->nr_orders ? a->orders : NULL,
		.nr_orders = a->nr_orders,
	};

	return vt_gen_systemheap(&o, r->out, r->err);
}

static int gen_test_vmalloc(const struct gen_run *r)
{
	const struct gen_args *a = r->a;
	struct vt_gen_test_vmalloc o = {
		.tests = a->tests, .nr_tests = a->nr_tests,
		.loops = a->loops, .nr_pages = a->nr_pages,
		.use_huge = a->use_huge, .cpus = a->cli->model.cpus,
		.junk = a->junk, .busy = a->busy,
		.pcpu_objects = a->pcpu_objects,
	};

	return vt_gen_test_vmalloc(&o, r->out, r->err);
}

static int gen_ioremap(const struct gen_run *r)
{
	const struct gen_args *a = r->a;
	struct vt_gen_ioremap o = {
		.sizes = a->sizes, .nr_sizes = a->nr_sizes,
		.count = a->count, .live = a->live,
		.phys_align = a->phys_align,
		.phys_base = a->phys_base,
	};

	return vt_gen_ioremap(&o, r->out, r->err);
}

static int gen_map_mem(const struct gen_run *r)
{
	const struct gen_args *a = r->a;
	struct vt_gen_map_mem o = {
		.sizes = a->sizes, .nr_sizes = a->nr_sizes,
		.phys_base = a->phys_base, .hole = a->hole,
		.blocks = a->blocks,
	};

	return vt_gen_map_mem(&o, r->out, r->err);
}

static int (*const pattern_gens[P__NR])(const struct gen_run *) = {
	[P_SYSTEMHEAP] = gen_systemheap,
	[P_TEST_VMALLOC] = gen_test_vmalloc,
	[P_IOREMAP] = gen_ioremap,
	[P_MAP_MEM] = gen_map_mem,
};

/* ---- the command ------------------------------------------------------ */

/* The pattern's defaults for options not given, and the checks that need
 * the geometry; 0 or a usage error (reported). */
static int gen_settle(struct gen_args *a)
{
	/* MAX_PAGE_ORDER: ARCH_FORCE_MAX_ORDER 10 (4K), 11 (16K), 13 (64K) */
	unsigned int ps = a->cli->model.page_shift;
	unsigned int max = ps == 16 ? 13 : ps == 14 ? 11 : 10;

	if (!a->nr_sizes) {
		a->sizes[0] = a->pattern == P_IOREMAP ? 1u << 20 :
			      a->pattern == P_MAP_MEM ? 1ull << 30 : 8u << 20;
		a->nr_sizes = 1;
	}
	if (!a->live)
		a->live = a->pattern == P_IOREMAP ? 1 : 2;
	if (!a->nr_tests) {
		a->tests[0] = VT_TV_fix_size_alloc_test;
		a->nr_tests = 1;
	}
	if (a->nr_orders && a->orders[0] > max) {
		vt_err("--orders: order %u exceeds MAX_PAGE_ORDER %u of this granule",
		       a->orders[0], max);
		return VT_EC_USAGE;
	}
	if (a->pattern == P_SYSTEMHEAP && !a->buddyinfo) {
		/* the model's free memory is whole MAX_PAGE_ORDER blocks, at
		 * most 2^32 pages (core/trace/gen.c) */
		uint64_t block = 1ull << (max + ps), most = 1ull << (32 + ps);

		if (a->mem < block || a->mem > most) {
			char m[32], b[32], t[32];

			vt_err("--mem=%s is too %s: the model's memory is whole "
			       "MAX_PAGE_ORDER blocks (%s with %uK pages), at least one "
			       "and at most %s (2^32 pages)", human(a->mem, m, sizeof(m)),
			       a->mem < block ? "small" : "large", human(block, b, sizeof(b)),
			       1u << (ps - 10), human(most, t, sizeof(t)));
			return VT_EC_USAGE;
		}
	}
	return 0;
}

/* Generate the trace of @a into -o or stdout; the exit code. */
static int gen_write(const struct gen_args *a, const char *buddy)
{
	const char *output = a->cli->output;
	struct vt_trace_config cfg = { .page_shift = a->cli->model.page_shift,
				       .va_bits = a->cli->model.va_bits };
	struct emit_ctx ctx = { NULL };
	struct vt_gen_out out;
	struct vt_error err;
	char *meta = make_meta(a);
	bool to_stdout;
	FILE *f;
	int ret, rc;

	if (!meta) {
		vt_err("out of memory");
		return VT_EC_SYSTEM;
	}
	vt_error_init(&err);
	/*
	 * Some failures (model memory exhausted) show only while generating:
	 * a trace for stdout goes to an unlinked temporary file first and is
	 * copied out once complete, so stdout gets all of it or nothing, as
	 * -o FILE does.
	 */
	to_stdout = !output || !strcmp(output, "-");
	f = to_stdout ? vt_tmpfile() : vt_out_open(output);
	if (!f) {
		if (to_stdout)
			vt_err("cannot create a temporary file: %s", strerror(errno));
		free(meta);
		return VT_EC_SYSTEM;
	}
	ret = vt_trace_writer_open_file(f, a->jsonl || (output &&
				       vt_trace_path_is_jsonl(output)),
				       &cfg, meta, &ctx.w, &err);
	if (!ret) {
		out = (struct vt_gen_out){ .emit = emit_to_writer, .ctx = &ctx,
					   .seed = a->seed, .page_shift = cfg.page_shift,
					   .va_bits = cfg.va_bits };
		if (a->pattern >= 0 && a->pattern < P__NR)
			ret = pattern_gens[a->pattern](&(struct gen_run){
				a, buddy, &out, &err });
		else
			ret = vt_error_set(&err, VT_ERR_INVARIANT,
					   "no generator for pattern %d", a->pattern);
		if (ret)
			vt_trace_writer_abort(ctx.w);
		else
			ret = vt_trace_writer_commit(ctx.w, &err);
	}
	if (ret) {
		rc = vt_report_error(&err);
		if (to_stdout)
			fclose(f);
		else
			vt_out_close(f, output, false);
	} else {
		rc = to_stdout ? copy_out(f) : vt_out_close(f, output, true);
	}
	free(meta);
	return rc;
}

int cmd_gen(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool gen";
	struct gen_args a = {
		.cli = cli, .pattern = -1, .seed = 1, .buffers = 8, .live = 0,
		.count = 1, .mem = 4ull << 30, .loops = 100,
	};
	struct vt_error err;
	char *buddy = NULL;
	int rc;

	argv[0] = name;
	rc = argp_parse(&gen_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	rc = vt_out_check(cli, &(struct vt_io){ "--buddyinfo", a.buddyinfo,
						VT_IO_READ }, 1, NULL, 0, NULL);
	if (rc)
		return rc;
	rc = gen_settle(&a);
	if (!rc && a.buddyinfo) {
		vt_error_init(&err);
		buddy = slurp(a.buddyinfo, &err);
		if (!buddy)
			rc = vt_report_error(&err);
	}
	if (!rc)
		rc = gen_write(&a, buddy);
	free(buddy);
	free(a.canon);
	return rc;
}
