// SPDX-License-Identifier: GPL-2.0
/*
 * Property test with a structure-aware generator of valid-but-extreme
 * traces (issue 12, docs/reliability.md): every Kconfig-valid geometry;
 * pfns and physical addresses at the top of the PA space; the largest
 * page orders; vmalloc sizes of 1 byte, a page +- 1, a PMD +- 1, the whole
 * vmalloc area and 2^64 - 1; alignments up to 2^63; ids up to 2^63 - 1
 * and long strings; every VM_* flag; recorded VAs at the ends of the
 * vmalloc area (--use-trace-va); purges between everything.  Most traces
 * are valid to the end; some end in one request the kernel refuses.
 *
 * Each trace is replayed by the vmaptool binary (VT_BIN) under every
 * strategy family with --verify, in a child with a bounded address space
 * (not under ASan, whose shadow needs more), and must end with exit 0 or
 * 3, never by a signal and never with 4 or 5, in less than
 * EXTREME_MAX_RSS_MB of memory.
 *
 * VT_EXTREME_SEED=N changes the base seed, VT_EXTREME_TRACES=N the number
 * of traces; a failing trace is kept and named.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "prng.h"
#include "core/model.h"

#define EXTREME_MAX_RSS_MB 768
#define EXTREME_AS_LIMIT (2ull << 30)
/* the pages one generated mapping has at most: memory stays bounded
 * (fewer under ASan, where every page costs far more time) */
static uint64_t EXTREME_MAX_PAGES = 1ull << 14;

/* One of the extreme values around @x: x, x - 1, x + 1 (wrapping) */
static uint64_t near(uint64_t x)
{
	switch (rnd() % 3) {
	case 0:
		return x;
	case 1:
		return x - 1;
	default:
		return x + 1;
	}
}

struct gen {
	FILE *f;
	unsigned int ps, va_bits, pa_bits, max_order;
	uint64_t live[64];
	bool live_str[64];
	unsigned int live_op[64];
	unsigned int op;		/* of the last map_event() */
	unsigned int nlive;
	uint64_t next_id;
	unsigned long events;
};

static const char *const flag_names[] = {
	"VM_IOREMAP", "VM_ALLOC", "VM_MAP", "VM_USERMAP", "VM_DMA_COHERENT",
	"VM_UNINITIALIZED", "VM_NO_GUARD", "VM_KASAN", "VM_FLUSH_RESET_PERMS",
	"VM_MAP_PUT_PAGES", "VM_ALLOW_HUGE_VMAP", "VM_DEFER_KMEMLEAK", "VM_SPARSE",
};

static void put_id(struct gen *g, uint64_t id, bool str)
{
	if (str)
		fprintf(g->f, ",\"id\":\"id-%" PRIu64 "-%0200d\"", id, 0);
	else
		fprintf(g->f, ",\"id\":%" PRIu64, id);
}

static void put_flags(struct gen *g)
{
	const char *sep = "";

	if (!chance(60))
		return;
	fputs(",\"flags\":[", g->f);
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(*flag_names); i++)
		if (chance(15)) {
			fprintf(g->f, "%s\"%s\"", sep, flag_names[i]);
			sep = ",";
		}
	fputc(']', g->f);
}

/* page runs at the top or the bottom of the PA space, the largest orders */
static void put_pages(struct gen *g, uint64_t max_pages)
{
	uint64_t pfn_end = 1ull << (g->pa_bits - g->ps), total = 0;
	unsigned int n = rr(1, chance(20) ? 300 : 4);
	const char *sep = "";

	fputs(",\"pages\":[", g->f);
	for (unsigned int i = 0; i < n && total < max_pages; i++) {
		unsigned int order = chance(50) ? g->max_order : rr(0, g->max_order);
		uint64_t bs = 1ull << order, count, pfn;

		if (bs > max_pages - total)
			order = 0, bs = 1;
		count = rr(1, (max_pages - total) / bs < 8 ? (max_pages - total) / bs : 8);
		pfn = chance(50) ? pfn_end - count * bs : (chance(50) ? 0 : rr(0, pfn_end / bs - count) * bs);
		pfn &= ~(bs - 1);
		fprintf(g->f, "%s{\"pfn\":\"0x%" PRIx64 "\",\"order\":%u,\"count\":%" PRIu64 "}",
			sep, pfn, order, count);
		sep = ",";
		total += count * bs;
	}
	fputc(']', g->f);
}

static void put_va(struct gen *g)
{
	/* the ends of the kernel half of the VA space */
	if (chance(5))
		fprintf(g->f, ",\"va\":\"0x%llx\"", (unsigned long long)(
			chance(50) ? ~0ull << g->va_bits : near(~0ull) & ~((1ull << g->ps) - 1)));
}

static void map_event(struct gen *g, bool invalid)
{
	uint64_t pmd = 1ull << (g->ps * 2 - 3), page = 1ull << g->ps;
	uint64_t id = chance(10) ? INT64_MAX - rr(0, 100) : g->next_id++;
	bool str = chance(10);

	g->op = rnd() % 4;
	switch (g->op) {
	case 0:
		fputs("{\"op\":\"vmap\"", g->f);
		put_id(g, id, str);
		put_pages(g, invalid ? EXTREME_MAX_PAGES : rr(1, chance(10) ? EXTREME_MAX_PAGES : 600));
		break;
	case 1: {
		static const uint64_t big[] = { UINT64_MAX, UINT64_MAX - 4095, 1ull << 63, 1ull << 62 };
		uint64_t size = invalid ? big[rnd() % 4] :
			(uint64_t[]){ 1, near(page), near(pmd), near(2 * pmd),
				      rr(1, EXTREME_MAX_PAGES * page) }[rnd() % 5];

		if (!size)
			size = 1;
		fputs("{\"op\":\"vmalloc\"", g->f);
		put_id(g, id, str);
		fprintf(g->f, ",\"size\":\"0x%" PRIx64 "\"", size);
		if (chance(30))
			fprintf(g->f, ",\"align\":\"0x%" PRIx64 "\"",
				(uint64_t)1 << rr(0, invalid ? 63 : g->ps * 2 - 2));
		break;
	}
	case 2:
		fputs("{\"op\":\"vm_map_ram\"", g->f);
		put_id(g, id, str);
		put_pages(g, invalid ? EXTREME_MAX_PAGES : rr(1, 130));
		break;
	default: {
		uint64_t pa_end = (uint64_t)1 << g->pa_bits;
		uint64_t size = invalid ? near(pa_end) : rr(1, 64 * pmd);
		uint64_t phys = chance(50) ? pa_end - size : rr(0, pa_end - size);

		fputs("{\"op\":\"ioremap\"", g->f);
		put_id(g, id, str);
		fprintf(g->f, ",\"phys\":\"0x%llx\",\"size\":\"0x%llx\"",
			(unsigned long long)(invalid ? near(phys) : phys),
			(unsigned long long)size);
		break;
	}
	}
	put_flags(g);
	put_va(g);
	fputs("}\n", g->f);
	if (g->nlive < 64) {
		g->live[g->nlive] = id;
		g->live_op[g->nlive] = g->op;
		g->live_str[g->nlive++] = str;
	}
}

static void gen_trace(struct gen *g)
{
	static const unsigned int geo[][2] = {
		{ 12, 39 }, { 12, 48 }, { 12, 52 }, { 14, 36 }, { 14, 47 },
		{ 14, 48 }, { 14, 52 }, { 16, 42 }, { 16, 48 }, { 16, 52 },
	};
	const unsigned int *p = geo[rnd() % (sizeof(geo) / sizeof(*geo))];
	unsigned int n = rr(1, 60);

	g->ps = p[0];
	g->va_bits = p[1];
	g->pa_bits = g->va_bits == 52 ? 52 : 48;
	g->max_order = g->ps == 16 ? 13 : g->ps == 14 ? 11 : 10;
	g->nlive = 0;
	g->next_id = chance(50) ? 0 : INT64_MAX - 1000;
	fprintf(g->f, "{\"format\":\"vmaptool-trace\",\"version\":1,\"config\":"
		"{\"granule\":\"%uk\",\"va_bits\":%u}}\n", 1u << (g->ps - 10), g->va_bits);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int k = rnd() % 10;

		if (k < 5 || !g->nlive) {
			map_event(g, false);
		} else if (k < 9) {
			unsigned int j = rnd() % g->nlive;
			static const char *const unmap[] = { "vunmap", "vfree", "vm_unmap_ram", "iounmap" };

			/* now and then the wrong unmap op: exit 3 */
			fprintf(g->f, "{\"op\":\"%s\"",
				unmap[chance(5) ? rnd() % 4 : g->live_op[j]]);
			put_id(g, g->live[j], g->live_str[j]);
			fputs("}\n", g->f);
			g->live[j] = g->live[--g->nlive];
			g->live_op[j] = g->live_op[g->nlive];
			g->live_str[j] = g->live_str[g->nlive];
		} else {
			fputs("{\"op\":\"purge\"}\n", g->f);
		}
	}
	if (chance(30))
		map_event(g, true);
}

int main(void)
{
	const char *bin = getenv("VT_BIN"), *e;
	uint64_t seed = 0x5eed12;
	unsigned long n = 24, exit3 = 0;
	bool asan;
	char dir[] = "/tmp/vt-extreme.XXXXXX", path[64], cmd[256];
	static const char *const strategies =
		"pagewise,zigzag,batched,batched@1234567,segments,segments:force";

	if (!bin || access(bin, X_OK)) {
		printf("skip: VT_BIN not set\n");
		return 77;
	}
	if ((e = getenv("VT_EXTREME_SEED")))
		seed = strtoull(e, NULL, 0);
	if ((e = getenv("VT_EXTREME_TRACES")))
		n = strtoul(e, NULL, 0);
	snprintf(cmd, sizeof(cmd), "ldd '%s' 2>/dev/null | grep -q libasan", bin);
	asan = !system(cmd);
	if (asan) {
		EXTREME_MAX_PAGES = 1ull << 11;
		if (!getenv("VT_EXTREME_TRACES"))
			n = 8;
	}
	TEST_ASSERT_VAL("mkdtemp", mkdtemp(dir));
	for (unsigned long t = 0; t < n; t++) {
		struct gen g = { 0 };
		struct rusage ru;
		int status;
		pid_t pid;

		rnd_s = seed + t;
		snprintf(path, sizeof(path), "%s/t%lu.jsonl", dir, t);
		g.f = fopen(path, "w");
		TEST_ASSERT_VAL("trace file", g.f);
		if (!g.f)
			break;
		gen_trace(&g);
		fclose(g.f);
		pid = fork();
		if (!pid) {
			int devnull = open("/dev/null", O_WRONLY);

			if (!asan) {
				struct rlimit rl = { EXTREME_AS_LIMIT, EXTREME_AS_LIMIT };

				setrlimit(RLIMIT_AS, &rl);
			}
			dup2(devnull, 1);
			dup2(devnull, 2);
			alarm(asan ? 1200 : 300);
			execl(bin, bin, "replay", "--verify", "-q", "--strategy", strategies,
			      (t & 1) ? "--use-trace-va" : "--per-op", path, (char *)NULL);
			_exit(127);
		}
		TEST_ASSERT_VAL("fork", pid > 0);
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
			break;
		if (WIFSIGNALED(status) || !WIFEXITED(status) ||
		    (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3) ||
		    (!asan && ru.ru_maxrss > EXTREME_MAX_RSS_MB * 1024)) {
			fprintf(stderr, "seed 0x%" PRIx64 ": %s: %s %d, max RSS %ld KiB (kept)\n",
				seed + t, path,
				WIFSIGNALED(status) ? "signal" : "exit",
				WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
				ru.ru_maxrss);
			test_failures++;
			continue;
		}
		exit3 += WEXITSTATUS(status) == 3;
		if (!getenv("VT_EXTREME_KEEP"))
			unlink(path);
	}
	if (!test_failures)
		rmdir(dir);
	printf("%lu extreme traces (%lu refused with exit 3)\n", n, exit3);
	return test_result("test-extreme");
}
