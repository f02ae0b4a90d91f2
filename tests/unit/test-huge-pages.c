// SPDX-License-Identifier: GPL-2.0
/*
 * Huge vmallocs (VM_ALLOW_HUGE_VMAP) with random given pages (seeded,
 * reproducible), issue 15:
 *
 *  (a) every trace replays under every strategy (a page count the kernel
 *      can have is never refused);
 *  (b) --verify finds no mis-mapped page, but where a strategy with
 *      Barry Song's patch 2 overran a chunk (batch_overrun > 0): pages
 *      that cannot be of the huge order make the kernel fall back to
 *      PAGE_SHIFT ("fail:" in __vmalloc_node_range_noprof()), pages that
 *      can are mapped as huge chunks, and neither maps a wrong page;
 *  (c) pagewise and zigzag map every page of every live area to the same
 *      physical page, the one asked for;
 *  (d) an area falls back exactly when its pages are not naturally
 *      aligned, physically contiguous 2^order chunks of the huge count.
 *
 * VT_HUGE_SEED=N changes the base seed, VT_HUGE_TRACES=N the number of
 * traces per geometry; a failure names the seed and keeps the trace.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "prng.h"
#include "core/model.h"
#include "core/trace/trace.h"

/* ---- the trace ----------------------------------------------------------- */

#define MAX_EV 24
#define MAX_RUNS 512

struct area_want {
	uint64_t id;
	bool live;
	bool fallback;
	uint64_t small_nr;		/* what a PAGE_SHIFT kernel maps */			/* (d): what the kernel must do */
	struct vt_page_run *runs;	/* owned by the event */
	uint32_t nr_runs;
	uint64_t va[16];		/* per strategy, from the event callback */
	bool fell_back[16];
};

struct trace {
	struct vt_event ev[MAX_EV];
	struct area_want want[MAX_EV];	/* by event index (vmallocs) */
	unsigned int n;
	struct vt_trace_config cfg;
	uint64_t page_size, next_pfn;
};

static struct vt_page_run runs[MAX_RUNS];

static uint64_t place(struct trace *t, uint64_t align, uint64_t count, bool adjacent)
{
	uint64_t pfn;

	if (!adjacent)
		t->next_pfn += rr(1, 8192);
	pfn = (t->next_pfn + align - 1) & ~(align - 1);
	t->next_pfn = pfn + count;
	return pfn;
}

/*
 * @nr pages for a vmalloc at chunk order @order: either what
 * vm_area_alloc_pages() hands out (naturally aligned blocks of 2^order or
 * more), or something it cannot (runs of random length and alignment, a
 * broken chunk).  Returns the number of runs; *fits says which.
 */
static uint32_t gen_pages(struct trace *t, uint64_t nr, unsigned int order,
			  bool fitting, bool *fits)
{
	uint64_t c = 1ull << order, done = 0;
	uint32_t n = 0;

	if (fitting) {
		while (done < nr && n < MAX_RUNS - 1) {
			/* a block of 2^k chunks, k random, split to order 0 */
			uint64_t k = rr(0, 3), blk = c << k;

			while (blk > nr - done)
				blk >>= 1;
			runs[n++] = (struct vt_page_run){ place(t, blk, blk, chance(30)),
							  blk, 0 };
			done += blk;
		}
	} else {
		while (done < nr && n < MAX_RUNS - 1) {
			uint64_t len = chance(30) ? 1 : rr(1, nr - done);
			uint64_t al = 1ull << rr(0, order + 1);

			if (len > nr - done)
				len = nr - done;
			runs[n++] = (struct vt_page_run){ place(t, al, len, chance(20)),
							  len, 0 };
			done += len;
		}
	}
	if (done < nr)	/* run cap: the rest as one run */
		runs[n++] = (struct vt_page_run){ place(t, c, nr - done, false),
						  nr - done, 0 };
	/* (d) recomputed independently of the engine, page by page */
	*fits = true;
	{
		uint64_t pos = 0, first = 0;

		for (uint32_t r = 0; r < n; r++)
			for (uint64_t j = 0; j < runs[r].count; j++, pos++) {
				uint64_t pfn = runs[r].pfn + j;

				if (!(pos & (c - 1))) {
					first = pfn;
					if (pfn & (c - 1))
						*fits = false;
				} else if (pfn != first + (pos & (c - 1))) {
					*fits = false;
				}
			}
	}
	return n;
}

static void add_vmalloc(struct trace *t)
{
	unsigned int ps = t->cfg.page_shift;
	uint64_t pmd = 1ull << (2 * ps - 3);
	uint64_t cont = ps == 12 ? 64ull << 10 : 2ull << 20;
	uint64_t max = ps == 12 ? 9ull << 20 : 72ull << 20;
	unsigned int i = t->n++, order;
	struct vt_event *ev = &t->ev[i];
	struct area_want *w = &t->want[i];
	uint64_t size, chunk, huge_nr, small_nr, nr;
	bool fits, fitting = chance(50);
	uint32_t n;

	memset(ev, 0, sizeof(*ev));
	ev->op = VT_OP_VMALLOC;
	ev->prot = VT_PROT_KERNEL;
	ev->cpu = -1;
	ev->flags = VT_FLAG(VM_ALLOW_HUGE_VMAP);
	/* sizes around and between the CONT and PMD thresholds */
	switch (rr(0, 3)) {
	case 0:
		size = rr(cont, pmd - 1);
		break;
	case 1:
		size = rr(pmd, max);
		break;
	case 2:
		size = (chance(50) ? pmd : cont) * rr(1, 3) - (chance(50) ? rr(0, 1) : 0);
		break;
	default:
		size = rr(cont / 2, max);
		break;
	}
	if (chance(50))
		size &= ~(t->page_size - 1);
	if (!size)
		size = t->page_size;
	ev->size = size;
	/* the kernel's choice, from the raw size */
	chunk = size >= pmd ? pmd : size >= cont ? cont : t->page_size;
	order = __builtin_ctzll(chunk) - ps;
	huge_nr = ((size + chunk - 1) & ~(chunk - 1)) >> ps;
	small_nr = ((size + t->page_size - 1) & ~(t->page_size - 1)) >> ps;
	/* a huge count in chunks, or the count of the PAGE_SHIFT retry */
	nr = fitting || chance(50) ? huge_nr : small_nr;
	n = gen_pages(t, nr, order, fitting, &fits);
	if (nr != huge_nr && nr == small_nr)
		fits = false;
	else if (!fits && huge_nr != small_nr) {
		/* such pages are bad input: give the retry's count instead */
		n = gen_pages(t, small_nr, order, false, &fits);
		fits = false;
	}
	ev->runs = malloc(n * sizeof(*ev->runs));
	if (!ev->runs) {
		perror("malloc");
		exit(TEST_FAIL);
	}
	memcpy(ev->runs, runs, n * sizeof(*runs));
	ev->nr_runs = n;
	ev->has_pages = true;
	for (uint32_t r = 0; r < n; r++)
		ev->nr_pages += ev->runs[r].count << ev->runs[r].order;
	ev->id.present = true;
	ev->id.num = i;
	w->id = i;
	w->live = true;
	w->fallback = order > 0 && !fits;
	w->small_nr = small_nr;
	w->runs = ev->runs;
	w->nr_runs = n;
}

static void add_vfree(struct trace *t)
{
	unsigned int live[MAX_EV], nl = 0;
	struct vt_event *ev;

	for (unsigned int i = 0; i < t->n; i++)
		if (t->ev[i].op == VT_OP_VMALLOC && t->want[i].live)
			live[nl++] = i;
	if (!nl)
		return;
	ev = &t->ev[t->n++];
	memset(ev, 0, sizeof(*ev));
	ev->op = VT_OP_VFREE;
	ev->cpu = -1;
	ev->id.present = true;
	ev->id.num = live[rr(0, nl - 1)];
	t->want[ev->id.num].live = false;
}

static void gen(struct trace *t, unsigned int ps, unsigned int va_bits)
{
	memset(t, 0, sizeof(*t));
	t->cfg.page_shift = ps;
	t->cfg.va_bits = va_bits;
	t->page_size = 1ull << ps;
	t->next_pfn = 0x80000 + rr(0, 0xfffff);
	while (t->n < MAX_EV - 2) {
		if (t->n && chance(30))
			add_vfree(t);
		else
			add_vmalloc(t);
		if (chance(10)) {
			struct vt_event *ev = &t->ev[t->n++];

			memset(ev, 0, sizeof(*ev));
			ev->op = VT_OP_PURGE;
			ev->cpu = -1;
		}
	}
}

static void trace_release(struct trace *t)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (t->ev[i].op == VT_OP_VMALLOC)
			free(t->ev[i].runs);
}

static int write_trace(const struct trace *t, const char *path)
{
	struct vt_trace_writer *w;
	struct vt_error err;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_writer_open(path, false, &t->cfg, "{\"source\":\"test-huge-pages\"}",
				   &w, &err);
	for (unsigned int i = 0; !ret && i < t->n; i++) {
		ret = vt_trace_writer_event(w, &t->ev[i], &err);
		if (ret)
			vt_trace_writer_abort(w);
	}
	if (!ret)
		ret = vt_trace_writer_commit(w, &err);
	if (ret)
		fprintf(stderr, "writing %s: %s\n", path, err.msg);
	return ret;
}

/* ---- replay ---------------------------------------------------------------- */

static const char *const strat_names[] = {
	"pagewise", "zigzag", "batched", "batched@12345678", "batched@123456",
	"batched@1234578", "batched@345678", "batched@1234", "batched@12",
	"segments", "segments:force",
};
#define NR_STRAT (sizeof(strat_names) / sizeof(strat_names[0]))
enum { S_PAGEWISE, S_ZIGZAG };

static struct vt_strategy_spec specs[NR_STRAT];

/* Leaf ranges at the end, per strategy, to translate VAs. */
struct leaves {
	struct vt_ptdump_range *r;
	size_t n, cap;
};

struct ctx {
	struct trace *t;
	struct leaves lv[NR_STRAT];
	uint64_t mismap[NR_STRAT];
};

static void cb_event(void *c, long index, unsigned int strat, const char *op,
		     const struct vt_event *ev, uint64_t va,
		     const struct vt_stats *delta, const struct vt_shape *shape)
{
	struct ctx *x = c;

	(void)delta;
	if (!ev || ev->op != VT_OP_VMALLOC || strcmp(op, "vmalloc"))
		return;
	x->t->want[index].va[strat] = va;
	x->t->want[index].fell_back[strat] = shape->huge_fallback;
}

static void cb_mismap(void *c, long index, unsigned int strat, uint64_t first_va,
		      uint64_t expected_pa, uint64_t found_pa, uint64_t pages)
{
	struct ctx *x = c;

	(void)index;
	(void)first_va;
	(void)expected_pa;
	(void)found_pa;
	x->mismap[strat] += pages;
}

static struct leaves *cur_lv;

static int leaf_fn(void *c, const struct vt_ptdump_range *r)
{
	struct leaves *l = c;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 256;
		struct vt_ptdump_range *n = realloc(l->r, nc * sizeof(*n));

		if (!n)
			return -1;
		l->r = n;
		l->cap = nc;
	}
	l->r[l->n++] = *r;
	return 0;
}

static int at_end(void *c, unsigned int strat, struct vt_engine *e)
{
	struct ctx *x = c;

	cur_lv = &x->lv[strat];
	cur_lv->n = 0;
	return vt_engine_ptdump(e, leaf_fn, cur_lv);
}

/* The physical address @va translates to in the leaves, UINT64_MAX if none. */
static uint64_t xlat(const struct leaves *l, uint64_t va)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->r[mid].va_end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == l->n || l->r[lo].va_start > va)
		return UINT64_MAX;
	return l->r[lo].pa_start + (va - l->r[lo].va_start);
}

static unsigned long nr_traces, nr_fallbacks, nr_huge, nr_pages_cmp, nr_overrun_traces;

static void check_one(uint64_t seed, unsigned int ps, const char *dir)
{
	struct trace t;
	struct ctx x;
	struct vt_model_opts o;
	struct vt_replay_cb cb = { .ctx = &x, .event = cb_event, .mismap = cb_mismap };
	struct vt_replay_req req = {
		.specs = specs, .nr_specs = NR_STRAT, .opts = &o, .stop_after = -1,
		.at_end = at_end, .at_end_ctx = &x,
	};
	struct vt_replay_result res;
	struct vt_error err;
	char path[512];
	int before = test_failures, ret;

	rnd_s = seed;
	gen(&t, ps, 48);
	snprintf(path, sizeof(path), "%s/huge-%llx.json", dir, (unsigned long long)seed);
	if (write_trace(&t, path)) {
		test_failures++;
		trace_release(&t);
		return;
	}
	memset(&x, 0, sizeof(x));
	x.t = &t;
	vt_model_opts_init(&o);
	o.page_shift = 0;
	o.va_bits = 0;
	o.verify = true;
	req.path = path;
	vt_error_init(&err);
	memset(&res, 0, sizeof(res));
	ret = vt_replay_run(&req, &cb, &res, &err);
	nr_traces++;
	if (ret) {
		/* (a) */
		fprintf(stderr, "seed 0x%llx (%s): replay failed: event %ld: %s\n",
			(unsigned long long)seed, path, err.event, err.msg);
		test_failures++;
		goto out;
	}
	for (unsigned int s = 0; s < NR_STRAT; s++) {
		const struct vt_stats *tot = &res.s[s].total;
		bool p2 = strstr(strat_names[s], "batched") &&
			  (!strchr(strat_names[s], '@') ||
			   strchr(strchr(strat_names[s], '@'), '2'));

		/* (b) */
		if (tot->m[VT_M_mismapped_pages] &&
		    !(p2 && tot->m[VT_M_batch_overrun])) {
			fprintf(stderr, "seed 0x%llx (%s): %s mis-mapped %llu pages (overruns %llu)\n",
				(unsigned long long)seed, path, strat_names[s],
				(unsigned long long)tot->m[VT_M_mismapped_pages],
				(unsigned long long)tot->m[VT_M_batch_overrun]);
			test_failures++;
		}
		if (tot->m[VT_M_batch_overrun])
			nr_overrun_traces++;
		if (tot->m[VT_M_mismapped_pages] != x.mismap[s]) {
			fprintf(stderr, "seed 0x%llx: %s: mismapped_pages %llu, callback %llu\n",
				(unsigned long long)seed, strat_names[s],
				(unsigned long long)tot->m[VT_M_mismapped_pages],
				(unsigned long long)x.mismap[s]);
			test_failures++;
		}
	}
	for (unsigned int i = 0; i < t.n; i++) {
		struct area_want *w = &t.want[i];
		uint64_t k = 0;

		if (t.ev[i].op != VT_OP_VMALLOC)
			continue;
		nr_huge++;
		nr_fallbacks += w->fallback;
		/* (d): every strategy that takes the huge path; pagewise
		 * never does (as with nohugevmalloc) */
		for (unsigned int s = 0; s < NR_STRAT; s++) {
			bool want = s != S_PAGEWISE && w->fallback;

			if (w->fell_back[s] != want) {
				fprintf(stderr, "seed 0x%llx (%s): event %u %s: huge_fallback %d, want %d\n",
					(unsigned long long)seed, path, i,
					strat_names[s], w->fell_back[s], want);
				test_failures++;
			}
		}
		if (!w->live)
			continue;
		/* (c) */
		for (uint32_t r = 0; r < w->nr_runs; r++)
			for (uint64_t j = 0; j < (w->runs[r].count << w->runs[r].order); j++, k++) {
				uint64_t pa = (w->runs[r].pfn + j) << ps;
				uint64_t pp = xlat(&x.lv[S_PAGEWISE], w->va[S_PAGEWISE] + (k << ps));
				uint64_t pz = xlat(&x.lv[S_ZIGZAG], w->va[S_ZIGZAG] + (k << ps));

				/* pagewise (nohugevmalloc) maps the first small_nr */
				if (k >= w->small_nr)
					pp = pa;
				nr_pages_cmp++;
				if (pp != pa || pz != pa) {
					fprintf(stderr, "seed 0x%llx (%s): event %u page %llu: pagewise 0x%llx zigzag 0x%llx want 0x%llx\n",
						(unsigned long long)seed, path, i,
						(unsigned long long)k,
						(unsigned long long)pp,
						(unsigned long long)pz,
						(unsigned long long)pa);
					test_failures++;
					goto out;
				}
			}
	}
out:
	vt_replay_result_release(&res);
	for (unsigned int s = 0; s < NR_STRAT; s++)
		free(x.lv[s].r);
	trace_release(&t);
	if (test_failures == before)
		unlink(path);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	uint64_t base = getenv("VT_HUGE_SEED") ? strtoull(getenv("VT_HUGE_SEED"), NULL, 0) :
		0x15f1de11ull;
#ifdef __SANITIZE_ADDRESS__
	unsigned long traces = 12;	/* ASan: the same checks, fewer seeds */
#else
	unsigned long traces = 40;
#endif
	if (getenv("VT_HUGE_TRACES"))
		traces = strtoul(getenv("VT_HUGE_TRACES"), NULL, 0);
	struct vt_error err;
	char dir[256];

	for (unsigned int i = 0; i < NR_STRAT; i++) {
		vt_error_init(&err);
		if (vt_strategy_parse(strat_names[i], &specs[i], &err)) {
			fprintf(stderr, "%s: %s\n", strat_names[i], err.msg);
			return TEST_FAIL;
		}
	}
	snprintf(dir, sizeof(dir), "%s/vt-huge-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return TEST_FAIL;
	}
	for (unsigned long i = 0; i < traces; i++) {
		check_one(base + i * 0x9e3779b97f4a7c15ull, 12, dir);
		if (i % 4 == 3)
			check_one(base ^ (0x1000 + i), 14, dir);
	}
	printf("test-huge-pages: %lu traces, %lu huge vmallocs (%lu must fall back), %lu pages compared, %lu strategy runs with overruns; seed 0x%llx\n",
	       nr_traces, nr_huge, nr_fallbacks, nr_pages_cmp, nr_overrun_traces,
	       (unsigned long long)base);
	if (!test_failures)
		rmdir(dir);
	return test_result("test-huge-pages");
}
