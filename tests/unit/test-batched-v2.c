// SPDX-License-Identifier: GPL-2.0
/*
 * Properties of batched-v2 (linux-mm @ e7e1a07bffed, core/strategy/batched_v2.c)
 * on generated traces (seeded, reproducible):
 *
 *  (a) every vmap under batched-v2 leaves a valid leaf on every page of its
 *      area, as pagewise does (the event's shape: PTEs + PMD blocks =
 *      pages), and pagewise maps every page right (--verify: 0)
 *  (b) the only pages batched-v2 maps wrong are the ones --verify reports,
 *      and --verify reports some exactly in the events that have a
 *      batch_overrun (RFC 2/8's hazard, strategies.md 4.11): an event
 *      without one maps every page to its frame
 *  (c) everything unmapped and purged leaves no leaf and no lazy page
 *  (d) arrays of discontiguous compound chunks whose orders are 0 or at
 *      least CONT_PTE's order: batched-v2 = batched, every metric
 *      (get_vmap_batch_order() finds exactly the compound page)
 *  (e) arrays of discontiguous compound chunks of any order: a vmap's
 *      table_walks = maximal runs of equal batchable order up to the
 *      first chunk below CONT_PTE's order, plus one walk from it to the
 *      end; its set_pte_at_calls = the pages from that chunk to the end
 *
 * VT_PROP_SEED=N changes the base seed, VT_PROP_TRACES=N the number of
 * traces, VT_PROP_KEEP=1 keeps the trace files.  A failure names the seed
 * and keeps the failing trace.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "core/model.h"
#include "core/trace/trace.h"

static uint64_t rnd_s;

/* splitmix64 */
static uint64_t rnd(void)
{
	uint64_t z = (rnd_s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rr(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static bool chance(unsigned int pct)
{
	return rnd() % 100 < pct;
}

/* ---- traces ----------------------------------------------------------- */

#define MAX_EV 128
#define MAX_LIVE 10
#define MAX_RUNS 512

enum kind {
	K_MIXED,	/* every vmap style, vmalloc, ioremap (a)-(c) */
	K_CMP_BIG,	/* compound chunks of order 0 or >= CONT order (d) */
	K_CMP_ANY,	/* compound chunks of any order (e) */
};

struct trace {
	struct vt_event ev[MAX_EV];
	unsigned int n;
	struct vt_trace_config cfg;
	uint64_t next_pfn;
	uint64_t live[MAX_EV];
	unsigned int nr_live;
	uint64_t next_id;
	unsigned int cont_order;	/* log2(CONT_PTES) */
	unsigned int max_order;		/* MAX_PAGE_ORDER */
};

static struct vt_page_run runs[MAX_RUNS];
static uint32_t nr_runs;
static uint64_t nr_pages;

static struct vt_event *ev_new(struct trace *t, enum vt_op op)
{
	struct vt_event *ev = &t->ev[t->n++];

	memset(ev, 0, sizeof(*ev));
	ev->op = op;
	ev->prot = op == VT_OP_IOREMAP ? VT_PROT_DEVICE : VT_PROT_KERNEL;
	ev->cpu = -1;
	return ev;
}

/*
 * @count blocks of @order (compound when @order > 0, split pages when
 * @order is 0 and @count > 1), starting at an address aligned to
 * 2^@align_order (and to its order) plus @offset pages; @adjacent: right
 * after the previous block if its alignment allows.  Otherwise at least
 * one page away, so two blocks are never physically contiguous.
 */
static void add_run(struct trace *t, unsigned int order, uint64_t count,
		    unsigned int align_order, bool adjacent, uint64_t offset)
{
	uint64_t a = 1ull << (align_order > order ? align_order : order), pfn;

	if (nr_runs == MAX_RUNS)
		return;
	if (!adjacent)
		t->next_pfn += rr(1, 4096);
	pfn = (t->next_pfn + a - 1) & ~(a - 1);
	if (!adjacent)
		pfn += offset;
	t->next_pfn = pfn + (count << order);
	runs[nr_runs++] = (struct vt_page_run){ pfn, count, order };
	nr_pages += count << order;
}

static void gen_vmap_pages(struct trace *t, enum kind kind, uint64_t max)
{
	unsigned int style = kind == K_MIXED ? rr(0, 5) : 6;

	nr_runs = 0;
	nr_pages = 0;
	switch (style) {
	case 0: {	/* split contiguous runs, naturally aligned */
		unsigned int k = rr(1, 3);

		for (unsigned int i = 0; i < k && nr_pages < max; i++) {
			unsigned int o = rr(0, 10);

			add_run(t, 0, rr(1, 1ull << o), o, chance(20), 0);
		}
		break;
	}
	case 1: {	/* split contiguous runs from any PFN */
		unsigned int k = rr(1, 3);

		for (unsigned int i = 0; i < k && nr_pages < max; i++)
			add_run(t, 0, rr(1, max), 0, false, rr(0, 255));
		break;
	}
	case 2:		/* system heap: descending 8, 4, 0, discontiguous */
	case 3: {	/* ... the same, with blocks that happen to be adjacent */
		uint64_t n8 = rr(0, 6), n4 = rr(0, 15), n0 = rr(0, 20);

		if (!n8 && !n4 && !n0)
			n0 = 1;
		for (uint64_t i = 0; i < n8; i++)
			add_run(t, 8, 1, 0, style == 3 && chance(50), 0);
		for (uint64_t i = 0; i < n4; i++)
			add_run(t, 4, 1, 0, style == 3 && chance(50), 0);
		for (uint64_t i = 0; i < n0; i++)
			add_run(t, 0, 1, 0, style == 3 && chance(70), 0);
		break;
	}
	case 4: {	/* heap-like with order-1..3 chunks (split or compound) */
		unsigned int k = rr(1, 24);

		for (unsigned int i = 0; i < k && nr_pages < max; i++) {
			unsigned int o = rr(0, 9);

			if (o && o < 4 && chance(50))	/* a split block */
				add_run(t, 0, 1ull << o, o, chance(30), 0);
			else
				add_run(t, o, 1, 0, chance(30), 0);
		}
		break;
	}
	case 5:
	default: {	/* compound chunks of random orders (K_CMP_*: apart) */
		unsigned int k = rr(1, 16);

		for (unsigned int i = 0; i < k; i++) {
			unsigned int o;

			if (kind == K_CMP_BIG)
				o = chance(30) ? 0 : rr(t->cont_order, t->max_order);
			else
				o = rr(0, t->max_order);
			if (nr_pages && nr_pages + (1ull << o) > max)
				break;
			/* count 2 = two adjacent blocks: only in K_MIXED */
			add_run(t, o, kind == K_MIXED ? rr(1, 2) : 1, 0,
				kind == K_MIXED && chance(25), 0);
		}
		break;
	}
	}
}

static void set_pages(struct vt_event *ev)
{
	ev->runs = malloc(nr_runs * sizeof(*ev->runs));
	if (!ev->runs) {
		perror("malloc");
		exit(TEST_FAIL);
	}
	memcpy(ev->runs, runs, nr_runs * sizeof(*ev->runs));
	ev->nr_runs = nr_runs;
	ev->has_pages = true;
	ev->nr_pages = nr_pages;
}

static void live_add(struct trace *t, struct vt_event *ev)
{
	ev->id.present = true;
	ev->id.num = t->next_id++;
	t->live[t->nr_live++] = ev->id.num;
}

/* A trace of @kind that ends with everything unmapped and a purge. */
static void gen_trace(struct trace *t, enum kind kind)
{
	unsigned int events = rr(4, 60);
	uint64_t max = (8ull << 20) >> t->cfg.page_shift;
	struct { uint64_t id; enum vt_op op; } ops[MAX_EV];
	unsigned int nops = 0;

	for (unsigned int k = 0; k < events && t->n < MAX_EV - MAX_LIVE - 2; k++) {
		unsigned int p = rr(0, 99);
		struct vt_event *ev;

		if (t->nr_live && (t->nr_live >= MAX_LIVE || p < 30)) {
			unsigned int i = rr(0, t->nr_live - 1);
			enum vt_op op = VT_OP_VUNMAP;

			for (unsigned int j = 0; j < nops; j++)
				if (ops[j].id == t->live[i])
					op = ops[j].op == VT_OP_VMALLOC ? VT_OP_VFREE :
					     ops[j].op == VT_OP_IOREMAP ? VT_OP_IOUNMAP :
					     VT_OP_VUNMAP;
			ev = ev_new(t, op);
			ev->id.present = true;
			ev->id.num = t->live[i];
			t->live[i] = t->live[--t->nr_live];
			continue;
		}
		if (kind != K_MIXED || p < 65) {
			gen_vmap_pages(t, kind, max);
			ev = ev_new(t, VT_OP_VMAP);
			set_pages(ev);
		} else if (p < 80) {
			ev = ev_new(t, VT_OP_VMALLOC);
			ev->size = rr(1, max) << t->cfg.page_shift;
			if (chance(50))
				ev->flags = VT_FLAG(VM_ALLOW_HUGE_VMAP);
		} else if (p < 90) {
			ev = ev_new(t, VT_OP_IOREMAP);
			ev->size = rr(1, 512) << t->cfg.page_shift;
			ev->phys = (0x40000000ull + (rr(0, 1023) << 21)) +
				   (chance(50) ? 0 : rr(0, 511) << t->cfg.page_shift);
		} else {
			ev_new(t, VT_OP_PURGE);
			continue;
		}
		live_add(t, ev);
		ops[nops].id = ev->id.num;
		ops[nops].op = ev->op;
		nops++;
	}
	while (t->nr_live) {
		unsigned int i = t->nr_live - 1;
		enum vt_op op = VT_OP_VUNMAP;
		struct vt_event *ev;

		for (unsigned int j = 0; j < nops; j++)
			if (ops[j].id == t->live[i])
				op = ops[j].op == VT_OP_VMALLOC ? VT_OP_VFREE :
				     ops[j].op == VT_OP_IOREMAP ? VT_OP_IOUNMAP :
				     VT_OP_VUNMAP;
		ev = ev_new(t, op);
		ev->id.present = true;
		ev->id.num = t->live[i];
		t->nr_live--;
	}
	ev_new(t, VT_OP_PURGE);
}

static void trace_init(struct trace *t, unsigned int page_shift)
{
	memset(t, 0, sizeof(*t));
	t->cfg.page_shift = page_shift;
	t->cfg.va_bits = 48;
	t->next_pfn = 0x100000 + rr(0, 0xfffff);
	/* CONT_PTES: 16 (4K), 128 (16K), 32 (64K); MAX_PAGE_ORDER 10, 11, 13 */
	t->cont_order = page_shift == 12 ? 4 : page_shift == 14 ? 7 : 5;
	t->max_order = page_shift == 12 ? 9 : page_shift == 14 ? 9 : 8;
}

static void trace_release(struct trace *t)
{
	for (unsigned int i = 0; i < t->n; i++)
		free(t->ev[i].runs);
	t->n = 0;
}

static int write_trace(const struct trace *t, const char *path)
{
	struct vt_trace_writer *w;
	struct vt_error err;
	int ret;

	vt_error_init(&err);
	ret = vt_trace_writer_open(path, true, &t->cfg,
				   "{\"source\":\"test-batched-v2\"}", &w, &err);
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

/* ---- replay ----------------------------------------------------------- */

enum { S_PAGEWISE, S_BATCHED, S_V2, NR_STRAT };
static const char *const strat_names[NR_STRAT] = {
	"pagewise", "batched", "batched-v2",
};
static struct vt_strategy_spec specs[NR_STRAT];

struct per_event {
	uint64_t pages_leaf[NR_STRAT];	/* (a) leaves over the area */
	uint64_t nr_pages;
	uint64_t mismapped[NR_STRAT];	/* --verify, this event */
	uint64_t cb_mismap[NR_STRAT];	/* the mismap callback */
	uint64_t overrun[NR_STRAT];
	uint64_t walks[NR_STRAT];
	uint64_t set_pte_at[NR_STRAT];
	bool is_vmap;
};

struct ctx {
	struct per_event ev[MAX_EV];
	uint64_t pmd_pages;		/* pages under one PMD block */
	uint64_t leaves[NR_STRAT];
};

static void cb_event(void *c, long index, unsigned int strat, const char *op,
		     const struct vt_event *ev, uint64_t va,
		     const struct vt_stats *d, const struct vt_shape *s)
{
	struct ctx *x = c;
	struct per_event *p;

	(void)va;
	(void)op;
	if (!ev || index < 0 || index >= MAX_EV)
		return;	/* an automatic purge: no mapping changes */
	p = &x->ev[index];
	p->is_vmap = ev->op == VT_OP_VMAP;
	p->nr_pages = ev->nr_pages;
	p->pages_leaf[strat] = s->pte + s->pmd_block * x->pmd_pages;
	p->mismapped[strat] = d->m[VT_M_mismapped_pages];
	p->overrun[strat] = d->m[VT_M_batch_overrun];
	p->walks[strat] = d->m[VT_M_table_walks];
	p->set_pte_at[strat] = d->m[VT_M_set_pte_at_calls];
}

static void cb_mismap(void *c, long index, unsigned int strat, uint64_t first_va,
		      uint64_t expected_pa, uint64_t found_pa, uint64_t pages)
{
	struct ctx *x = c;

	(void)first_va;
	(void)expected_pa;
	(void)found_pa;
	if (index >= 0 && index < MAX_EV)
		x->ev[index].cb_mismap[strat] += pages;
}

static int leaf_fn(void *c, const struct vt_ptdump_range *r)
{
	*(uint64_t *)c += r->nr;
	return 0;
}

static int at_end(void *c, unsigned int strat, struct vt_engine *e)
{
	struct ctx *x = c;

	return vt_engine_ptdump(e, leaf_fn, &x->leaves[strat]);
}

static int replay(const char *path, struct ctx *x, struct vt_replay_result *res)
{
	struct vt_model_opts o;
	struct vt_replay_cb cb = { .ctx = x, .event = cb_event, .mismap = cb_mismap };
	struct vt_replay_req req = {
		.path = path, .specs = specs, .nr_specs = NR_STRAT, .opts = &o,
		.stop_after = -1, .at_end = at_end, .at_end_ctx = x,
	};
	struct vt_error err;
	int ret;

	vt_model_opts_init(&o);
	o.page_shift = 0;
	o.va_bits = 0;
	o.verify = true;
	vt_error_init(&err);
	ret = vt_replay_run(&req, &cb, res, &err);
	if (ret)
		fprintf(stderr, "%s: replay failed (%d): event %ld: %s\n", path,
			ret, err.event, err.msg);
	return ret;
}

/* ---- the properties --------------------------------------------------- */

static char dir[256];
static unsigned long nr_checks, vmaps_checked, overrun_events, equal_traces;
static uint64_t v2_mismapped;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		nr_checks++;                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "seed 0x%llx (%s): ",                 \
				(unsigned long long)seed, path);              \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			test_failures++;                                      \
			keep = true;                                          \
		}                                                             \
	} while (0)

static bool same_result(const struct vt_strategy_result *a,
			const struct vt_strategy_result *b)
{
	for (int m = 0; m < VT_M__NR; m++) {
		if (a->total.m[m] != b->total.m[m])
			return false;
		for (int op = 0; op < VT_OP__NR; op++)
			if (a->per_op[op].m[m] != b->per_op[op].m[m])
				return false;
	}
	return true;
}

/*
 * (e) recomputed from the runs: every block is one chunk (blocks are
 * compound and never adjacent); its shift is its order when that is at
 * least CONT_PTE's order, else it is not batchable and ends the scan.
 */
static void expected_v2(const struct vt_event *ev, unsigned int cont_order,
			uint64_t *walks, uint64_t *tail_pages)
{
	int prev = -1;
	uint64_t left = ev->nr_pages;

	*walks = 0;
	*tail_pages = 0;
	for (uint32_t r = 0; r < ev->nr_runs; r++) {
		for (uint64_t c = 0; c < ev->runs[r].count; c++) {
			int o = ev->runs[r].order;
			int shift = o >= (int)cont_order ? o : 0;

			if (shift != prev) {
				(*walks)++;
				prev = shift;
			}
			if (!shift) {
				*tail_pages = left;
				return;
			}
			left -= 1ull << o;
		}
	}
}

static void check_trace(uint64_t seed, enum kind kind, unsigned int page_shift)
{
	static struct trace t;
	static struct ctx x;
	struct vt_replay_result r;
	char path[300];
	bool keep = false;

	rnd_s = seed;
	trace_init(&t, page_shift);
	gen_trace(&t, kind);
	snprintf(path, sizeof(path), "%s/v2-%d-%llx.jsonl", dir, kind,
		 (unsigned long long)seed);
	if (write_trace(&t, path)) {
		test_failures++;
		trace_release(&t);
		return;
	}
	memset(&x, 0, sizeof(x));
	x.pmd_pages = 1ull << (page_shift - 3);
	if (replay(path, &x, &r)) {
		CHECK(0, "replay failed");
		goto out;
	}
	for (unsigned int i = 0; i < t.n; i++) {
		const struct per_event *p = &x.ev[i];

		for (unsigned int s = 0; s < NR_STRAT; s++)
			CHECK(p->cb_mismap[s] == p->mismapped[s],
			      "event %u %s: mismap callback %llu pages, metric %llu",
			      i, strat_names[s], (unsigned long long)p->cb_mismap[s],
			      (unsigned long long)p->mismapped[s]);
		CHECK(p->mismapped[S_PAGEWISE] == 0, "(a) event %u: pagewise mismapped %llu",
		      i, (unsigned long long)p->mismapped[S_PAGEWISE]);
		/* (b) */
		CHECK((p->mismapped[S_V2] != 0) == (p->overrun[S_V2] != 0),
		      "(b) event %u: batched-v2 mismapped %llu pages, %llu overruns",
		      i, (unsigned long long)p->mismapped[S_V2],
		      (unsigned long long)p->overrun[S_V2]);
		v2_mismapped += p->mismapped[S_V2];
		overrun_events += p->overrun[S_V2] != 0;
		if (!p->is_vmap)
			continue;
		vmaps_checked++;
		/* (a) */
		CHECK(p->pages_leaf[S_PAGEWISE] == p->nr_pages &&
		      p->pages_leaf[S_V2] == p->nr_pages,
		      "(a) vmap event %u of %llu pages: leaves pagewise %llu, batched-v2 %llu",
		      i, (unsigned long long)p->nr_pages,
		      (unsigned long long)p->pages_leaf[S_PAGEWISE],
		      (unsigned long long)p->pages_leaf[S_V2]);
		CHECK(p->mismapped[S_V2] <= p->nr_pages,
		      "(b) vmap event %u: %llu mismapped of %llu", i,
		      (unsigned long long)p->mismapped[S_V2],
		      (unsigned long long)p->nr_pages);
		if (kind != K_MIXED) {
			uint64_t walks, tail;

			expected_v2(&t.ev[i], t.cont_order, &walks, &tail);
			CHECK(p->walks[S_V2] == walks && p->set_pte_at[S_V2] == tail,
			      "(e) vmap event %u: table_walks %llu (want %llu), set_pte_at_calls %llu (want %llu)",
			      i, (unsigned long long)p->walks[S_V2],
			      (unsigned long long)walks,
			      (unsigned long long)p->set_pte_at[S_V2],
			      (unsigned long long)tail);
		}
	}
	/* (c) */
	for (unsigned int s = 0; s < NR_STRAT; s++) {
		CHECK(x.leaves[s] == 0, "(c) %s: %llu leaves left", strat_names[s],
		      (unsigned long long)x.leaves[s]);
		CHECK(r.s[s].total.m[VT_M_lazy_pages_pending] == 0,
		      "(c) %s: lazy pages pending", strat_names[s]);
	}
	/* (d) */
	if (kind == K_CMP_BIG) {
		equal_traces++;
		CHECK(same_result(&r.s[S_BATCHED], &r.s[S_V2]),
		      "(d) batched and batched-v2 differ");
	}
	vt_replay_result_release(&r);
out:
	if (!keep && !getenv("VT_PROP_KEEP"))
		unlink(path);
	trace_release(&t);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *s = getenv("VT_PROP_SEED");
	const char *nt = getenv("VT_PROP_TRACES");
	uint64_t base = s ? strtoull(s, NULL, 0) : 0xb2b20001;
	unsigned long traces = nt ? strtoul(nt, NULL, 0) : 60;
	static const unsigned int shifts[] = { 12, 12, 12, 14, 16 };
	struct vt_error err;

	for (unsigned int i = 0; i < NR_STRAT; i++) {
		vt_error_init(&err);
		if (vt_strategy_parse(strat_names[i], &specs[i], &err)) {
			fprintf(stderr, "%s: %s\n", strat_names[i], err.msg);
			return TEST_FAIL;
		}
	}
	snprintf(dir, sizeof(dir), "%s/vt-v2-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return TEST_FAIL;
	}
	for (unsigned long i = 0; i < traces; i++) {
		uint64_t seed = base + i * 0x9e3779b97f4a7c15ull;

		check_trace(seed, K_MIXED, shifts[i % 5]);
		check_trace(seed ^ 0x1000, K_CMP_BIG, shifts[(i + 1) % 5]);
		check_trace(seed ^ 0x2000, K_CMP_ANY, shifts[(i + 2) % 5]);
	}
	printf("test-batched-v2: %lu traces of each kind, %lu vmaps checked, %lu events with an overrun (%llu pages mismapped), %lu traces batched = batched-v2; %lu checks; seed 0x%llx\n",
	       traces, vmaps_checked, overrun_events,
	       (unsigned long long)v2_mismapped, equal_traces, nr_checks,
	       (unsigned long long)base);
	if (!test_failures || !getenv("VT_PROP_KEEP"))
		rmdir(dir);
	return test_result("test-batched-v2");
}
