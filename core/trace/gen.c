// SPDX-License-Identifier: GPL-2.0
/*
 * Trace generators: seeded, reproducible workloads written as trace events.
 * The same seed and options give the same events on every machine (the
 * generator is splitmix64 and no floating point reaches an event field).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "core/alloc.h"
#include "core/input.h"
#include "core/trace/gen.h"

/* The largest MAX_PAGE_ORDER of any granule (64K pages: 13). */
#define VT_GEN_MAX_ORDER 13

/* ---- splitmix64 ------------------------------------------------------ */

void vt_rng_init(struct vt_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t vt_rng_next(struct vt_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t vt_rng_below(struct vt_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)vt_rng_next(r) * n) >> 64);
}

double vt_rng_double(struct vt_rng *r)
{
	return (vt_rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- a buddy free-area model ------------------------------------------ */

/*
 * Free blocks per order, every block naturally aligned, buddies merged on
 * free as __free_one_page() does.  A block is taken from a random position
 * of its free list (seeded) rather than the list head, so that buffers
 * scatter over memory as they do on a long-running system.
 */
struct buddy {
	uint64_t base;			/* pfn of offset 0, max-order aligned */
	uint64_t nr;			/* pages, a multiple of the max block */
	unsigned int max_order;
	uint8_t *head;			/* order + 1 of a free block starting here */
	uint32_t *pos;			/* its index in fl[order] */
	struct {
		uint32_t *v;
		size_t n, cap;
	} fl[VT_GEN_MAX_ORDER + 1];
	struct vt_rng *rng;
};

static int fl_add(struct buddy *b, uint32_t off, unsigned int order)
{
	typeof(b->fl[0]) *l = &b->fl[order];

	if (VT_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return -ENOMEM;
	b->pos[off] = l->n;
	l->v[l->n++] = off;
	b->head[off] = order + 1;
	return 0;
}

static void fl_del(struct buddy *b, uint32_t off, unsigned int order)
{
	typeof(b->fl[0]) *l = &b->fl[order];
	uint32_t i = b->pos[off], last = l->v[--l->n];

	l->v[i] = last;
	b->pos[last] = i;
	b->head[off] = 0;
}

static int buddy_init(struct buddy *b, uint64_t base, uint64_t nr,
		      unsigned int max_order, struct vt_rng *rng)
{
	memset(b, 0, sizeof(*b));
	b->base = base;
	b->nr = nr;
	b->max_order = max_order;
	b->rng = rng;
	b->head = calloc(nr, 1);
	b->pos = malloc(nr * sizeof(*b->pos));
	return b->head && b->pos ? 0 : -ENOMEM;
}

static void buddy_release(struct buddy *b)
{
	free(b->head);
	free(b->pos);
	for (unsigned int o = 0; o <= VT_GEN_MAX_ORDER; o++)
		free(b->fl[o].v);
}

/* Models __rmqueue_smallest() + expand(): returns the pfn or -1. */
static int64_t buddy_alloc(struct buddy *b, unsigned int order)
{
	unsigned int o = order;
	uint32_t off;

	while (o <= b->max_order && !b->fl[o].n)
		o++;
	if (o > b->max_order)
		return -1;
	off = b->fl[o].v[vt_rng_below(b->rng, b->fl[o].n)];
	fl_del(b, off, o);
	while (o > order) {
		o--;
		if (fl_add(b, off + (1u << o), o))
			return -2;
	}
	return b->base + off;
}

/* Models __free_one_page(): merge with free buddies up to max_order. */
static int buddy_free(struct buddy *b, uint64_t pfn, unsigned int order)
{
	uint32_t off = pfn - b->base;

	while (order < b->max_order) {
		uint32_t bud = off ^ (1u << order);

		if (bud >= b->nr || b->head[bud] != order + 1)
			break;
		fl_del(b, bud, order);
		off &= ~(1u << order);
		order++;
	}
	return fl_add(b, off, order);
}

/* All of [base, base + nr) free, in max-order blocks. */
static int buddy_fill(struct buddy *b)
{
	for (uint64_t off = 0; off < b->nr; off += 1ull << b->max_order)
		if (fl_add(b, off, b->max_order))
			return -ENOMEM;
	return 0;
}

/* MAX_PAGE_ORDER per granule: arch/arm64/Kconfig ARCH_FORCE_MAX_ORDER. */
static unsigned int max_order_of(unsigned int page_shift)
{
	return page_shift == 16 ? 13 : page_shift == 14 ? 11 : 10;
}

static int check_out(const struct vt_gen_out *out, struct vt_error *err)
{
	if (out->page_shift != 12 && out->page_shift != 14 &&
	    out->page_shift != 16)
		return vt_error_set(err, -EINVAL,
				    "page shift %u is not 12, 14 or 16",
				    out->page_shift);
	return 0;
}

/*
 * Parse /proc/buddyinfo text ("Node 0, zone   Normal   c0 c1 ... cN")
 * and sum the free-block counts per order over all zones.
 */
static int parse_buddyinfo(const char *text, const char *name,
			   unsigned int max_order, uint64_t *counts,
			   struct vt_error *err)
{
	unsigned long lineno = 0;
	const char *s = text;
	bool any = false;

	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		char line[1024], *p, *tok, *save = NULL;
		unsigned int o = 0;
		int field = 0;

		lineno++;
		if (len >= sizeof(line)) {
			snprintf(err->file, sizeof(err->file), "%s", name);
			err->line = lineno;
			return vt_error_set(err, -EINVAL,
					    "buddyinfo line is too long");
		}
		memcpy(line, s, len);
		line[len] = 0;
		s += len + (eol ? 1 : 0);
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p)
			continue;
		for (tok = strtok_r(p, " \t\r", &save); tok;
		     tok = strtok_r(NULL, " \t\r", &save), field++) {
			char *end;
			unsigned long long c;

			if (field == 0 && !strcmp(tok, "Node"))
				continue;
			if (field == 1 && tok[strlen(tok) - 1] == ',')
				continue;
			if (field == 2 && !strcmp(tok, "zone"))
				continue;
			if (field == 3)
				continue;	/* zone name */
			if (field < 4)
				goto bad;
			errno = 0;
			c = strtoull(tok, &end, 10);
			if (*end || errno || tok[0] == '-')
				goto bad;
			if (o > max_order) {
				snprintf(err->file, sizeof(err->file), "%s", name);
				err->line = lineno;
				return vt_error_set(err, -EINVAL,
						    "buddyinfo has more than %u orders (MAX_PAGE_ORDER is %u for this granule)",
						    max_order + 1, max_order);
			}
			if (c > (1ull << 32) || counts[o] + c > (1ull << 32))
				goto bad;
			counts[o++] += c;
		}
		if (field < 5)
			goto bad;
		any = true;
		continue;
bad:
		snprintf(err->file, sizeof(err->file), "%s", name);
		err->line = lineno;
		return vt_error_set(err, -EINVAL,
				    "not a /proc/buddyinfo line: expected 'Node N, zone NAME' and a free-block count per order");
	}
	if (!any) {
		snprintf(err->file, sizeof(err->file), "%s", name);
		return vt_error_set(err, -EINVAL,
				    "buddyinfo has no zone lines");
	}
	return 0;
}

/*
 * Place the @need free blocks of order @o into the unused pages of
 * @used[0, nr).  Two free buddies of one order would have been merged
 * (__free_one_page()), so below MAX_PAGE_ORDER each aligned pair of order-@o
 * slots holds at most one: the candidates are the wholly unused pairs (one
 * unit each; at the top order each slot is a unit of its own).  @need of
 * them are chosen by selection sampling (Knuth, TAOCP 3.4.2, algorithm S):
 * one pass, uniform, and it cannot fail while there are units enough.
 */
static int place_order(struct buddy *b, uint8_t *used, uint64_t nr,
		       unsigned int o, unsigned int max_order, uint64_t need,
		       struct vt_rng *rng)
{
	unsigned int uo = o < max_order ? o + 1 : o;	/* unit size order */
	uint64_t unit = 1ull << uo, units = 0;

	if (!need)
		return 0;
	/* higher orders were placed first, aligned to their (larger) size:
	 * a unit is either wholly used or wholly unused */
	for (uint64_t off = 0; off < nr; off += unit)
		units += !used[off];
	if (need > units)
		return VT_ERR_INVARIANT;
	for (uint64_t off = 0; off < nr && need; off += unit) {
		uint64_t at = off;

		if (used[off])
			continue;
		if (vt_rng_below(rng, units--) >= need)
			continue;
		if (uo != o)
			at += vt_rng_below(rng, 2) << o;
		memset(used + at, 1, 1ull << o);
		if (fl_add(b, at, o))
			return -ENOMEM;
		need--;
	}
	return 0;
}

/*
 * Place the free blocks of a buddyinfo snapshot at random aligned spots of
 * a span twice their size, highest order first; everything else is memory
 * in use by others.  The span always has room: when order o is placed,
 * the unused space is at least twice the pages still to place, so there
 * are at least counts[o] free pairs of order-o slots (place_order()).
 */
static int buddy_from_counts(struct buddy *b, uint64_t base,
			     const uint64_t *counts, unsigned int max_order,
			     struct vt_rng *rng, struct vt_error *err)
{
	uint64_t free_pages = 0, nr, block = 1ull << max_order;
	uint8_t *used;
	int ret;

	for (unsigned int o = 0; o <= max_order; o++)
		free_pages += counts[o] << o;
	if (!free_pages)
		return vt_error_set(err, VT_ERR_BAD_REQUEST,
				    "buddyinfo has no free memory");
	nr = (2 * free_pages + block - 1) / block * block;
	if (nr < 4 * block)
		nr = 4 * block;
	if (nr > (1ull << 32))
		return vt_error_set(err, -EINVAL,
				    "buddyinfo describes more memory than the model holds");
	ret = buddy_init(b, base, nr, max_order, rng);
	if (ret)
		return vt_error_set(err, ret, "out of memory");
	used = calloc(nr, 1);
	if (!used)
		return vt_err_oom(err);
	for (int o = max_order; o >= 0; o--) {
		ret = place_order(b, used, nr, o, max_order, counts[o], rng);
		if (ret == -ENOMEM)
			ret = vt_err_oom(err);
		else if (ret)
			ret = vt_error_set(err, ret,
					   "cannot place the buddyinfo blocks of order %d",
					   o);
		if (ret)
			break;
	}
	free(used);
	return ret;
}

/* ---- event helpers ---------------------------------------------------- */

struct block {
	uint64_t pfn;
	unsigned int order;
};

struct runs {
	struct vt_page_run *v;
	size_t n, cap;
};

/* Append a block, merging it into the last run when it continues it. */
static int runs_add(struct runs *r, uint64_t pfn, unsigned int order)
{
	if (r->n) {
		struct vt_page_run *last = &r->v[r->n - 1];

		if (last->order == order &&
		    last->pfn + (last->count << order) == pfn) {
			last->count++;
			return 0;
		}
	}
	if (VT_ALLOC_GROW(r->v, r->n + 1, r->cap))
		return -ENOMEM;
	r->v[r->n++] = (struct vt_page_run){ .pfn = pfn, .order = order,
					     .count = 1 };
	return 0;
}

static void ev_init(struct vt_event *ev, enum vt_op op, uint64_t id,
		    const char *caller)
{
	memset(ev, 0, sizeof(*ev));
	ev->op = op;
	ev->prot = op == VT_OP_IOREMAP ? VT_PROT_DEVICE : VT_PROT_KERNEL;
	ev->cpu = -1;
	ev->caller = caller;
	if (op != VT_OP_PURGE) {
		ev->id.present = true;
		ev->id.num = id;
	}
}

static int emit_simple(const struct vt_gen_out *out, enum vt_op op,
		       uint64_t id, uint64_t size, uint64_t align,
		       uint32_t flags, const char *caller, struct vt_error *err)
{
	struct vt_event ev;

	ev_init(&ev, op, id, caller);
	ev.size = size;
	ev.align = align;
	ev.flags = flags;
	return out->emit(out->ctx, &ev, err);
}

/* A set of live mappings: pick one at random to release. */
struct live {
	struct lbuf {
		uint64_t id;
		struct block *blocks;
		size_t nr;
	} *v;
	size_t n, cap;
};

static int sh_live_add(struct live *l, struct lbuf b)
{
	if (VT_ALLOC_GROW(l->v, l->n + 1, l->cap))
		return -ENOMEM;
	l->v[l->n++] = b;
	return 0;
}

static struct lbuf live_take(struct live *l, struct vt_rng *rng)
{
	size_t i = vt_rng_below(rng, l->n);
	struct lbuf b = l->v[i];

	l->v[i] = l->v[--l->n];
	return b;
}

static void live_release(struct live *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].blocks);
	free(l->v);
}

/* ---- systemheap ------------------------------------------------------- */

static const char sh_caller[] = "system_heap_do_vmap";

/* vunmap a buffer and give its pages back (system_heap_dma_buf_release). */
static int sh_release(const struct vt_gen_out *out, struct buddy *b,
		      struct lbuf *lb, struct vt_error *err)
{
	int ret = emit_simple(out, VT_OP_VUNMAP, lb->id, 0, 0, 0, sh_caller,
			      err);

	for (size_t i = 0; !ret && i < lb->nr; i++)
		if (buddy_free(b, lb->blocks[i].pfn, lb->blocks[i].order))
			ret = vt_err_oom(err);
	free(lb->blocks);
	lb->blocks = NULL;
	return ret;
}

static const unsigned int sh_orders[] = { 8, 4, 0 };

/*
 * Models system_heap_allocate() in drivers/dma-buf/heaps/system_heap.c
 * (linux-mm, read 2026-04): alloc_largest_available() tries orders 8, 4, 0
 * (or @o->orders) that fit the remaining size and do not exceed the order
 * of the previous page; orders 8 and 4 are __GFP_COMP high-order attempts
 * without reclaim, which is where --frag makes them fail.  Deviation: a
 * failed order-0 allocation fails the generator rather than the one buffer.
 */
static int sh_alloc(const struct vt_gen_systemheap *o, struct buddy *b,
		    struct vt_rng *rng, uint64_t npages, struct lbuf *lb,
		    struct vt_error *err)
{
	const unsigned int *orders = o->orders ? o->orders : sh_orders;
	unsigned int nr_orders = o->orders ? o->nr_orders : 3;
	unsigned int max_order = orders[0];
	uint64_t remaining = npages;
	size_t cap = 0;

	lb->nr = 0;
	lb->blocks = NULL;
	while (remaining) {
		int64_t pfn = -1;
		unsigned int got = 0;

		for (unsigned int i = 0; i < nr_orders; i++) {
			unsigned int ord = orders[i];

			if (remaining < (1ull << ord) || max_order < ord)
				continue;
			if (ord > b->max_order)
				continue;
			if (ord && o->frag > 0 && vt_rng_double(rng) < o->frag)
				continue;
			pfn = buddy_alloc(b, ord);
			if (pfn == -2)
				return vt_err_oom(err);
			if (pfn >= 0) {
				got = ord;
				break;
			}
		}
		if (pfn < 0)
			return vt_error_set(err, VT_ERR_BAD_REQUEST,
					    "the model's physical memory is exhausted (raise --mem or lower --live)");
		if (VT_ALLOC_GROW(lb->blocks, lb->nr + 1, cap))
			return vt_err_oom(err);
		lb->blocks[lb->nr++] = (struct block){ pfn, got };
		remaining -= 1ull << got;
		max_order = got;
	}
	return 0;
}

/* The options of vt_gen_systemheap() that no allocation can check. */
static int sh_check(const struct vt_gen_systemheap *o, unsigned int max_order,
		    struct vt_error *err)
{
	if (!o->nr_sizes || !o->buffers || !o->live)
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "systemheap needs sizes, buffers and live > 0");
	if (o->frag < 0 || o->frag > 1)
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "fragmentation %g is not within 0..1", o->frag);
	if (o->orders) {
		if (!o->nr_orders || o->nr_orders > VT_GEN_MAX_HEAP_ORDERS ||
		    o->orders[o->nr_orders - 1])
			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "heap orders must end in 0 (at most %d orders)",
					    VT_GEN_MAX_HEAP_ORDERS);
		for (unsigned int i = 0; i < o->nr_orders; i++)
			if (o->orders[i] > max_order ||
			    (i && o->orders[i] >= o->orders[i - 1]))
				return vt_error_set(err, VT_ERR_BAD_OPTION,
						    "heap orders must descend strictly and not exceed MAX_PAGE_ORDER (%u)",
						    max_order);
	}
	for (unsigned int i = 0; i < o->nr_sizes; i++)
		if (!o->sizes[i] || o->sizes[i] > (1ull << 40)) {
			char b[64];

			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "buffer size %s is not within 1..1T",
					    vt_input_size_text(o->sizes[i], b, sizeof(b)));
		}
	return 0;
}

/* The buddy allocator the heap draws from: from --buddyinfo, or --mem all free. */
static int sh_buddy(const struct vt_gen_systemheap *o, const struct vt_gen_out *out,
		    unsigned int max_order, struct buddy *b, struct vt_rng *rng,
		    struct vt_error *err)
{
	uint64_t base = o->base_pfn ? o->base_pfn : 0x80000000ull >> out->page_shift;
	int ret;

	if (base & ((1ull << max_order) - 1))
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "base pfn 0x%llx is not aligned to MAX_PAGE_ORDER",
				    (unsigned long long)base);
	if (o->buddyinfo) {
		uint64_t counts[VT_GEN_MAX_ORDER + 1] = { 0 };

		ret = parse_buddyinfo(o->buddyinfo, o->buddyinfo_name ?
				      o->buddyinfo_name : "buddyinfo",
				      max_order, counts, err);
		if (ret)
			return ret;
		return buddy_from_counts(b, base, counts, max_order, rng, err);
	} else {
		uint64_t block = 1ull << max_order;
		uint64_t nr = (o->mem_bytes >> out->page_shift) / block * block;

		if (!nr || nr > (1ull << 32)) {
			char txt[64];

			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "memory size %s is not within one MAX_PAGE_ORDER block and 2^32 pages",
					    vt_input_size_text(o->mem_bytes, txt, sizeof(txt)));
		}
		ret = buddy_init(b, base, nr, max_order, rng);
		if (!ret)
			ret = buddy_fill(b);
		if (ret)
			vt_error_set(err, ret, "out of memory");
		return ret;
	}
}

struct sh_state {
	struct buddy b;
	struct live live;
	struct runs runs;
	struct vt_rng rng;
	uint64_t id;
};

/*
 * One buffer of @npages: when @o->live are mapped, release one of them
 * picked at random (live_take()),
 * allocate its pages, then system_heap_do_vmap(): vmalloc(sizeof(struct
 * page *) * npages) for the page array, vmap(), vfree(array).
 */
static int sh_buffer(const struct vt_gen_systemheap *o, const struct vt_gen_out *out,
		     struct sh_state *st, uint64_t npages, struct vt_error *err)
{
	uint64_t array_id = 0;
	struct vt_event ev;
	struct lbuf lb;
	int ret;

	if (st->live.n == o->live) {
		struct lbuf old = live_take(&st->live, &st->rng);

		ret = sh_release(out, &st->b, &old, err);
		if (ret)
			return ret;
	}
	ret = sh_alloc(o, &st->b, &st->rng, npages, &lb, err);
	if (ret) {
		free(lb.blocks);
		return ret;
	}
	st->runs.n = 0;
	for (size_t i = 0; i < lb.nr; i++)
		if (runs_add(&st->runs, lb.blocks[i].pfn, lb.blocks[i].order)) {
			free(lb.blocks);
			return vt_err_oom(err);
		}

	if (!o->no_page_array) {
		array_id = st->id++;
		ret = emit_simple(out, VT_OP_VMALLOC, array_id,
				  npages * 8, 0, 0, sh_caller, err);
	}
	lb.id = st->id++;
	ev_init(&ev, VT_OP_VMAP, lb.id, sh_caller);
	ev.flags = VT_FLAG(VM_MAP);
	ev.runs = st->runs.v;
	ev.nr_runs = st->runs.n;
	ev.has_pages = true;
	ev.nr_pages = npages;
	if (!ret)
		ret = out->emit(out->ctx, &ev, err);
	if (!ret && !o->no_page_array)
		ret = emit_simple(out, VT_OP_VFREE, array_id, 0, 0, 0,
				  sh_caller, err);
	if (!ret && sh_live_add(&st->live, lb))
		ret = vt_err_oom(err);
	if (ret)
		free(lb.blocks);
	return ret;
}

int vt_gen_systemheap(const struct vt_gen_systemheap *o,
		      const struct vt_gen_out *out, struct vt_error *err)
{
	unsigned int max_order = max_order_of(out->page_shift);
	uint64_t page_size = 1ull << out->page_shift;
	struct sh_state st = { .id = 1 };
	int ret;

	ret = check_out(out, err);
	if (ret)
		return ret;
	ret = sh_check(o, max_order, err);
	if (ret)
		return ret;
	vt_rng_init(&st.rng, out->seed);
	ret = sh_buddy(o, out, max_order, &st.b, &st.rng, err);
	if (ret)
		goto out;
	for (unsigned long n = 0; n < o->buffers; n++) {
		uint64_t len = o->sizes[n % o->nr_sizes];

		ret = sh_buffer(o, out, &st, (len + page_size - 1) >> out->page_shift, err);
		if (ret)
			goto out;
	}
	while (st.live.n) {
		struct lbuf old = live_take(&st.live, &st.rng);

		ret = sh_release(out, &st.b, &old, err);
		if (ret)
			goto out;
	}
out:
	live_release(&st.live);
	free(st.runs.v);
	buddy_release(&st.b);
	return ret;
}

/* ---- test_vmalloc ------------------------------------------------------ */

#define VT_TV_NAME(name) #name,
const char *const vt_tv_test_names[VT_TV__NR] = { VT_TV_TESTS(VT_TV_NAME) };
#undef VT_TV_NAME

int vt_tv_test_find(const char *name)
{
	for (int i = 0; i < VT_TV__NR; i++)
		if (!strcmp(vt_tv_test_names[i], name))
			return i;
	return -1;
}

struct tv {
	const struct vt_gen_test_vmalloc *o;
	const struct vt_gen_out *out;
	struct vt_rng rng;
	uint64_t page_size;
	uint64_t id;
	const char *caller;
	struct vt_error *err;
};

/* vmalloc(@size) (or __vmalloc_node(size, align, ...)); returns the id. */
static int tv_vmalloc(struct tv *t, uint64_t size, uint64_t align,
		      uint32_t flags, uint64_t *id)
{
	*id = t->id++;
	return emit_simple(t->out, VT_OP_VMALLOC, *id, size, align, flags,
			   t->caller, t->err);
}

static int tv_vfree(struct tv *t, uint64_t id)
{
	return emit_simple(t->out, VT_OP_VFREE, id, 0, 0, 0, t->caller, t->err);
}

/* vmalloc and vfree @n objects of @size held in an array of ids. */
static int tv_alloc_array(struct tv *t, uint64_t **ids, unsigned long n)
{
	*ids = malloc((n ? n : 1) * sizeof(**ids));
	if (!*ids)
		return vt_err_oom(t->err);
	return 0;
}

/* fls() of the kernel: 1-based index of the highest set bit. */
static unsigned int fls_u(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/* THREAD_ALIGN << 1 of fix_align_alloc_test: arch/arm64/include/asm/
 * memory.h, with VMAP_STACK and no KASAN: THREAD_SHIFT = max(14,
 * PAGE_SHIFT), THREAD_ALIGN = 2 * THREAD_SIZE. */
static uint64_t thread_align2(unsigned int page_shift)
{
	unsigned int thread_shift = page_shift > 14 ? page_shift : 14;

	return (2ull << thread_shift) << 1;
}

/*
 * The test cases of lib/test_vmalloc.c (linux-mm, read 2026-04), one
 * function each, one call per test_func() iteration, sequential_test_order.
 * Deviations: get_random_*() is our seeded generator; kvfree_rcu() frees at
 * once (the grace period is not modelled); pcpu_alloc_test emits only its
 * vmalloc'ed pointer array (the percpu allocator's own areas are not API
 * calls the trace format has).
 */
static unsigned long tv_nr_pages(const struct tv *t)
{
	return t->o->nr_pages ? t->o->nr_pages : 1;
}

static int tv_fix_size_alloc_test(struct tv *t)
{
	uint64_t a;
	int ret = 0;

	for (unsigned long i = 0; !ret && i < t->o->loops; i++) {
		ret = tv_vmalloc(t, tv_nr_pages(t) * t->page_size, 0,
				 t->o->use_huge ? VT_FLAG(VM_ALLOW_HUGE_VMAP) : 0,
				 &a);
		if (!ret)
			ret = tv_vfree(t, a);
	}
	return ret;
}

static int tv_full_fit_alloc_test(struct tv *t)
{
	const struct vt_gen_test_vmalloc *o = t->o;
	uint64_t ps = t->page_size, a, c, *p = NULL, *q = NULL;
	unsigned long i, n;
	int ret;

	n = o->junk ? o->junk : fls_u(o->cpus ? o->cpus : 1) * ((32ull << 20) / ps);
	ret = tv_vmalloc(t, 8 * n, 0, 0, &a);
	if (!ret)
		ret = tv_vmalloc(t, 8 * n, 0, 0, &c);
	if (!ret)
		ret = tv_alloc_array(t, &p, n);
	if (!ret)
		ret = tv_alloc_array(t, &q, n);
	for (i = 0; !ret && i < n; i++) {
		ret = tv_vmalloc(t, ps, 0, 0, &p[i]);
		if (!ret)
			ret = tv_vmalloc(t, ps, 0, 0, &q[i]);
	}
	for (i = 0; !ret && i < n; i++)
		ret = tv_vfree(t, q[i]);
	for (i = 0; !ret && i < o->loops; i++) {
		uint64_t tmp;

		ret = tv_vmalloc(t, ps, 0, 0, &tmp);
		if (!ret)
			ret = tv_vfree(t, tmp);
	}
	for (i = 0; !ret && i < n; i++)
		ret = tv_vfree(t, p[i]);
	if (!ret)
		ret = tv_vfree(t, a);
	if (!ret)
		ret = tv_vfree(t, c);
	free(p);
	free(q);
	return ret;
}

static int tv_long_busy_list_alloc_test(struct tv *t)
{
	uint64_t ps = t->page_size, a, *p = NULL;
	unsigned long i, n = t->o->busy ? t->o->busy : 15000;
	int ret;

	ret = tv_vmalloc(t, 8 * n, 0, 0, &a);
	if (!ret)
		ret = tv_alloc_array(t, &p, n);
	for (i = 0; !ret && i < n; i++)
		ret = tv_vmalloc(t, ps, 0, 0, &p[i]);
	for (i = 0; !ret && i < t->o->loops; i++) {
		uint64_t p1, p2;

		ret = tv_vmalloc(t, 100 * ps, 0, 0, &p1);
		if (!ret)
			ret = tv_vmalloc(t, ps, 0, 0, &p2);
		if (!ret)
			ret = tv_vfree(t, p1);
		if (!ret)
			ret = tv_vfree(t, p2);
	}
	for (i = 0; !ret && i < n; i++)
		ret = tv_vfree(t, p[i]);
	if (!ret)
		ret = tv_vfree(t, a);
	free(p);
	return ret;
}

static int tv_random_size_alloc_test(struct tv *t)
{
	uint64_t a;
	int ret = 0;

	for (unsigned long i = 0; !ret && i < t->o->loops; i++) {
		/* get_random_u32_inclusive(1, 100) */
		uint64_t pages = 1 + vt_rng_below(&t->rng, 100);

		ret = tv_vmalloc(t, pages * t->page_size, 0, 0, &a);
		if (!ret)
			ret = tv_vfree(t, a);
	}
	return ret;
}

static int tv_fix_align_alloc_test(struct tv *t)
{
	uint64_t a;
	int ret = 0;

	for (unsigned long i = 0; !ret && i < t->o->loops; i++) {
		ret = tv_vmalloc(t, 5 * t->page_size,
				 thread_align2(t->out->page_shift), 0, &a);
		if (!ret)
			ret = tv_vfree(t, a);
	}
	return ret;
}

static int tv_random_size_align_alloc_test(struct tv *t)
{
	uint64_t a;
	int ret = 0;

	for (unsigned long i = 0; !ret && i < t->o->loops; i++) {
		unsigned int rnd = vt_rng_next(&t->rng) & 0xff;

		ret = tv_vmalloc(t, ((rnd % 10) + 1) * t->page_size,
				 1ull << (rnd % 23), 0, &a);
		if (!ret)
			ret = tv_vfree(t, a);
	}
	return ret;
}

static int tv_pcpu_alloc_test(struct tv *t)
{
	uint64_t a;
	int ret;

	ret = tv_vmalloc(t, 8 * (t->o->pcpu_objects ? t->o->pcpu_objects : 35000),
			 0, 0, &a);
	if (!ret)
		ret = tv_vfree(t, a);
	return ret;
}

static int tv_kvfree_rcu_1_arg_vmalloc_test(struct tv *t)
{
	uint64_t a;
	int ret = 0;

	for (unsigned long i = 0; !ret && i < t->o->loops; i++) {
		ret = tv_vmalloc(t, t->page_size, 0, 0, &a);
		if (!ret)
			ret = tv_vfree(t, a);
	}
	return ret;
}

/* kvfree_rcu(p, rcu) frees as kvfree_rcu(p) does, here at once. */
static int tv_kvfree_rcu_2_arg_vmalloc_test(struct tv *t)
{
	return tv_kvfree_rcu_1_arg_vmalloc_test(t);
}

/* alloc_pages_bulk() of nr_pages order-0 pages, mapped and unmapped
 * test_loop_count times. */
static int tv_vm_map_ram_test(struct tv *t)
{
	unsigned long nr_pages = tv_nr_pages(t), i;
	struct vt_rng brng = t->rng;
	struct runs runs = { 0 };
	struct buddy b;
	struct vt_event ev;
	uint64_t a;
	int ret;

	ret = buddy_init(&b, 0x80000000ull >> t->out->page_shift, 1ull << 20,
			 max_order_of(t->out->page_shift), &brng);
	if (!ret)
		ret = buddy_fill(&b);
	for (i = 0; !ret && i < nr_pages; i++) {
		int64_t pfn = buddy_alloc(&b, 0);

		if (pfn < 0 || runs_add(&runs, pfn, 0))
			ret = -ENOMEM;
	}
	buddy_release(&b);
	if (ret) {
		free(runs.v);
		return vt_error_set(t->err, -ENOMEM, "cannot model %lu pages",
				    nr_pages);
	}
	t->rng = brng;
	for (i = 0; !ret && i < t->o->loops; i++) {
		a = t->id++;
		ev_init(&ev, VT_OP_VM_MAP_RAM, a, t->caller);
		ev.runs = runs.v;
		ev.nr_runs = runs.n;
		ev.has_pages = true;
		ev.nr_pages = nr_pages;
		ret = t->out->emit(t->out->ctx, &ev, t->err);
		if (!ret)
			ret = emit_simple(t->out, VT_OP_VM_UNMAP_RAM, a, 0, 0, 0,
					  t->caller, t->err);
	}
	free(runs.v);
	return ret;
}

/*
 * As lib/test_vmalloc.c's test_case_array[] (struct test_case_desc: a name
 * and a test_func), indexed by enum vt_tv_test.  The kernel's
 * align_shift_alloc_test is not in it: its requests fail by design and
 * leave no trace.
 */
static const struct tv_test_case_desc {
	const char *test_name;
	int (*test_func)(struct tv *t);
} tv_test_case_array[VT_TV__NR] = {
#define VT_TV_CASE(name) [VT_TV_##name] = { #name, tv_##name },
	VT_TV_TESTS(VT_TV_CASE)
#undef VT_TV_CASE
};

static int tv_run(struct tv *t, enum vt_tv_test test)
{
	t->caller = tv_test_case_array[test].test_name;
	return tv_test_case_array[test].test_func(t);
}

int vt_gen_test_vmalloc(const struct vt_gen_test_vmalloc *o,
			const struct vt_gen_out *out, struct vt_error *err)
{
	struct tv t = { .o = o, .out = out, .id = 1, .err = err };
	int ret = check_out(out, err);

	if (ret)
		return ret;
	if (!o->nr_tests)
		return vt_error_set(err, VT_ERR_BAD_OPTION, "no test_vmalloc test given");
	if (o->nr_pages > (1ul << 24))
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "nr_pages %lu is too large", o->nr_pages);
	vt_rng_init(&t.rng, out->seed);
	t.page_size = 1ull << out->page_shift;
	for (unsigned int i = 0; !ret && i < o->nr_tests; i++) {
		if ((unsigned int)o->tests[i] >= VT_TV__NR)
			return vt_error_set(err, VT_ERR_BAD_OPTION, "invalid test %d",
					    o->tests[i]);
		ret = tv_run(&t, o->tests[i]);
	}
	return ret;
}

/* ---- ioremap ------------------------------------------------------------ */

/* Largest power of two that divides @x's size class: 2^floor(log2 x). */
static uint64_t pow2_floor(uint64_t x)
{
	return 1ull << (63 - __builtin_clzll(x));
}

int vt_gen_ioremap(const struct vt_gen_ioremap *o, const struct vt_gen_out *out,
		   struct vt_error *err)
{
	uint64_t page_size = 1ull << out->page_shift, id = 1;
	uint64_t cursor = o->phys_base ? o->phys_base : 0x10000000ull;
	uint64_t *live = NULL;
	size_t nr_live = 0;
	struct vt_rng rng;
	int ret = check_out(out, err);

	if (ret)
		return ret;
	if (!o->nr_sizes || !o->count || !o->live)
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "ioremap needs sizes, a count and live > 0");
	if (o->phys_align & (o->phys_align - 1))
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "physical alignment %llu is not a power of two",
				    (unsigned long long)o->phys_align);
	for (unsigned int i = 0; i < o->nr_sizes; i++)
		if (!o->sizes[i] || o->sizes[i] > (1ull << 40)) {
			char b[64];

			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "ioremap size %s is not within 1..1T",
					    vt_input_size_text(o->sizes[i], b, sizeof(b)));
		}
	live = malloc(o->live * sizeof(*live));
	if (!live)
		return vt_err_oom(err);
	vt_rng_init(&rng, out->seed);
	for (unsigned long n = 0; !ret && n < o->count; n++) {
		uint64_t size = o->sizes[n % o->nr_sizes];
		uint64_t align = o->phys_align ? o->phys_align : pow2_floor(size);
		uint64_t phys;
		struct vt_event ev;

		if (align < page_size)
			align = page_size;
		if (nr_live == o->live) {
			size_t i = vt_rng_below(&rng, nr_live);

			ret = emit_simple(out, VT_OP_IOUNMAP, live[i], 0, 0, 0,
					  NULL, err);
			live[i] = live[--nr_live];
			if (ret)
				break;
		}
		/* A gap of 0-3 pages, then the alignment: bump allocation
		 * never reuses an address, so live ranges never overlap. */
		phys = cursor + vt_rng_below(&rng, 4) * page_size;
		phys = (phys + align - 1) & ~(align - 1);
		if (phys + size > (1ull << 48)) {
			ret = vt_error_set(err, VT_ERR_BAD_REQUEST,
					   "ioremap %lu at 0x%llx is beyond the 48-bit physical address size",
					   n, (unsigned long long)phys);
			break;
		}
		cursor = phys + ((size + page_size - 1) & ~(page_size - 1));
		ev_init(&ev, VT_OP_IOREMAP, id, NULL);
		ev.phys = phys;
		ev.size = size;
		live[nr_live++] = id++;
		ret = out->emit(out->ctx, &ev, err);
	}
	while (!ret && nr_live) {
		size_t i = vt_rng_below(&rng, nr_live);

		ret = emit_simple(out, VT_OP_IOUNMAP, live[i], 0, 0, 0, NULL, err);
		live[i] = live[--nr_live];
	}
	free(live);
	return ret;
}

/*
 * What map_mem() of the trace's geometry can map (arch/arm64/mm/mmu.c,
 * asm/memory.h): physical addresses below 2^PA_BITS, and a linear map of
 * [PAGE_OFFSET, PAGE_END) from PHYS_OFFSET, memstart_addr rounded down to
 * ARM64_MEMSTART_ALIGN; the replay refuses a linear_map event beyond
 * either (core/mm/linear.c vt_map_mem()).
 */
struct map_mem_limits {
	unsigned int va_bits, pa_bits;
	uint64_t pa_end, memstart, lin;
};

static int map_mem_limits(const struct vt_gen_out *out, uint64_t phys,
			  struct map_mem_limits *l, struct vt_error *err)
{
	struct arm64_geom g;

	l->va_bits = out->va_bits ? out->va_bits : 48;
	if (arm64_geom_init(&g, out->page_shift, l->va_bits))
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "%uK pages with %u-bit VA is not a Kconfig-valid pair",
				    1u << (out->page_shift - 10), l->va_bits);
	l->pa_bits = g.pa_bits;
	l->pa_end = 1ull << g.pa_bits;
	l->memstart = phys & ~(arm64_memstart_align(&g) - 1);
	l->lin = arm64_linear_size(&g);
	return 0;
}

int vt_gen_map_mem(const struct vt_gen_map_mem *o, const struct vt_gen_out *out,
		   struct vt_error *err)
{
	uint64_t page_size = 1ull << out->page_shift;
	uint64_t phys = o->phys_base ? o->phys_base : 0x80000000ull;
	struct map_mem_limits l = { 0 };
	int ret = check_out(out, err);

	if (!ret)
		ret = map_mem_limits(out, phys, &l, err);
	if (ret)
		return ret;
	if (!o->nr_sizes)
		return vt_error_set(err, VT_ERR_BAD_OPTION, "map_mem needs the memory size");
	if ((phys | o->hole) & (page_size - 1))
		return vt_error_set(err, VT_ERR_BAD_OPTION,
				    "the DRAM base and the holes must be page-aligned");
	for (unsigned int i = 0; !ret && i < o->nr_sizes; i++) {
		struct vt_event ev;

		if (!o->sizes[i] || (o->sizes[i] & (page_size - 1)))
			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "memory range %u (%llu bytes at 0x%llx) is not a positive multiple of the page size",
					    i, (unsigned long long)o->sizes[i],
					    (unsigned long long)phys);
		if (phys >= l.pa_end || o->sizes[i] > l.pa_end - phys)
			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "memory range %u (%llu bytes at 0x%llx) ends beyond the %u-bit physical address size (%lluT)",
					    i, (unsigned long long)o->sizes[i],
					    (unsigned long long)phys, l.pa_bits,
					    (unsigned long long)(l.pa_end >> 40));
		if (phys - l.memstart + o->sizes[i] > l.lin)
			return vt_error_set(err, VT_ERR_BAD_OPTION,
					    "memory range %u (%llu bytes at 0x%llx) ends beyond the linear map: [PAGE_OFFSET, PAGE_END) of a %u-bit VA kernel holds %lluT from PHYS_OFFSET 0x%llx (give --va-bits=52 for more)",
					    i, (unsigned long long)o->sizes[i],
					    (unsigned long long)phys,
					    l.va_bits, (unsigned long long)(l.lin >> 40),
					    (unsigned long long)l.memstart);
		ev_init(&ev, VT_OP_LINEAR_MAP, 0, NULL);
		ev.id.present = false;
		ev.phys = phys;
		ev.size = o->sizes[i];
		ev.flags = VT_FLAG(NO_EXEC_MAPPINGS);
		if (!o->blocks)
			ev.flags |= VT_FLAG(NO_BLOCK_MAPPINGS) | VT_FLAG(NO_CONT_MAPPINGS);
		ret = out->emit(out->ctx, &ev, err);
		phys += o->sizes[i] + o->hole;
	}
	return ret;
}
