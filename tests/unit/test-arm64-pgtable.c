// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 descriptors and primitives (spec arm64-mapping-engine.md §2, §4,
 * §5, §7): encodings bit by bit, and the exact stores, barriers, TLBIs and
 * fixmap work each primitive counts, under both barrier models (eager
 * <= v6.15, lazy v6.16+) and with the lazy MMU mode on and off.  Every
 * check compares the WHOLE metric vector: metrics not named must stay 0.
 */
#include <errno.h>
#include <string.h>

#include "arch/arm64/arm64.h"
#include "test.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* ---- expectations over the whole counter vector ---------------------- */

#define NAME(n) #n,
static const char *const counter_names[] = { ARM64_COUNTERS(NAME) };
#undef NAME

struct kv {
	enum arm64_counter m;
	uint64_t v;
};

#define K(name, val) { ARM64_C_##name, (val) },
/* dsb ishst; isb */
#define PAIR(n) K(dsb, n) K(dsb_ishst, n) K(isb, n)
/* flush_tlb_kernel_range() issuing n single vaale1is */
#define FLUSH_SINGLES(n) K(tlbi, n) K(tlbi_vaale1is, n) \
	K(dsb, 2) K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1)
/* flush_tlb_all() */
#define FLUSH_ALL K(tlbi, 1) K(tlbi_vmalle1is, 1) \
	K(dsb, 2) K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1)
/* __flush_tlb_kernel_pgtable() */
#define FLUSH_PGTABLE(n) K(tlbi, n) K(tlbi_vaae1is, n) \
	K(dsb, 2 * (n)) K(dsb_ishst, n) K(dsb_ish, n) K(isb, n)
/* set_swapper_pgd() after boot: fixmap map (store + pair), unmap (store +
 * flush of one page) */
#define SWAPPER_FIXMAP K(fixmap_maps, 1) K(fixmap_stores, 2) PAIR(1) FLUSH_SINGLES(1)

#define EXPECT(what, st, ...) \
	expect_stats(what, __LINE__, st, (const struct kv[]){ __VA_ARGS__ { ARM64_C__NR, 0 } })

static void expect_stats(const char *what, int line, const struct arm64_counters *st,
			 const struct kv *kv)
{
	uint64_t want[ARM64_C__NR] = { 0 };

	for (; kv->m != ARM64_C__NR; kv++)
		want[kv->m] += kv->v;
	for (int i = 0; i < ARM64_C__NR; i++) {
		if (st->c[i] == want[i])
			continue;
		fprintf(stderr, "%s:%d: %s: %s = %llu, want %llu\n", __FILE__, line,
			what, counter_names[i], (unsigned long long)st->c[i],
			(unsigned long long)want[i]);
		test_failures++;
	}
}

/* ---- fixture ---------------------------------------------------------- */

struct fx {
	struct arm64_mm mm;
	struct arm64_counters st;
};

static int fx_init(struct fx *f, unsigned int ps, unsigned int va,
		   const struct arm64_mm_opts *o)
{
	int err = arm64_mm_init(&f->mm, ps, va, o);

	memset(&f->st, 0, sizeof(f->st));
	f->mm.st = &f->st;
	TEST_ASSERT_EQ("arm64_mm_init", err, 0);
	return err;
}

static void fx_release(struct fx *f)
{
	arm64_mm_release(&f->mm);
}

/* Pointer to the entry at @depth covering @va, populating the tables above
 * it; the counts of that set-up are discarded. */
static uint64_t *entry_at(struct fx *f, uint64_t va, int depth)
{
	struct arm64_mm *mm = &f->mm;
	uint32_t id = mm->pgd;

	for (int d = 0; d < depth; d++) {
		uint64_t *p = &mm->tbl[id][arm64_index(&mm->g, d, va)];

		if (!*p && arm64_populate(mm, d, p))
			return NULL;
		id = arm64_desc_table_id(mm, *p);
		if (id == UINT32_MAX)
			return NULL;
	}
	memset(&f->st, 0, sizeof(f->st));
	/* a PTE table starts as runs: the pointer primitives need its array */
	return &arm64_table_mut(mm, id)[arm64_index(&mm->g, depth, va)];
}

static const struct arm64_mm_opts lazy_opts = { .initial_empty = true };
static const struct arm64_mm_opts eager_opts = { .initial_empty = true,
						  .eager_barriers = true };

/* ---- §2 descriptor encoding ---------------------------------------------- */

static void test_prot_bits(void)
{
	struct arm64_geom g, l2, g64;
	uint64_t k;

	arm64_geom_init(&g, 12, 48);
	k = arm64_prot_bits(&g, ARM64_PAGE_KERNEL);
	TEST_ASSERT_EQ("PAGE_KERNEL", k, 0x0068000000000703ull);
	/* bit by bit */
	TEST_ASSERT_EQ("[1:0] TYPE_PAGE", k & 3, 3);
	TEST_ASSERT_EQ("[4:2] AttrIndx MT_NORMAL", (k >> 2) & 7, 0);
	TEST_ASSERT_EQ("6 USER", (k >> 6) & 1, 0);
	TEST_ASSERT_EQ("7 RDONLY", (k >> 7) & 1, 0);
	TEST_ASSERT_EQ("[9:8] SH inner shareable", (k >> 8) & 3, 3);
	TEST_ASSERT_EQ("10 AF", (k >> 10) & 1, 1);
	TEST_ASSERT_EQ("11 nG (no KPTI)", (k >> 11) & 1, 0);
	TEST_ASSERT_EQ("[49:12] no address", k & 0x0003fffffffff000ull, 0);
	TEST_ASSERT_EQ("50 GP", (k >> 50) & 1, 0);
	TEST_ASSERT_EQ("51 DBM/WRITE", (k >> 51) & 1, 1);
	TEST_ASSERT_EQ("52 CONT", (k >> 52) & 1, 0);
	TEST_ASSERT_EQ("53 PXN", (k >> 53) & 1, 1);
	TEST_ASSERT_EQ("54 UXN", (k >> 54) & 1, 1);
	TEST_ASSERT_EQ("[63:55] sw bits", k >> 55, 0);
	TEST_ASSERT_EQ("PAGE_KERNEL | PA", arm64_pa_to_desc(&g, 0x12345000ull) | k,
		       0x0068000012345703ull);

	/* PROT_DEVICE_nGnRE: AttrIndx 4 */
	TEST_ASSERT_EQ("ioremap prot", arm64_prot_bits(&g, ARM64_PROT_DEVICE_nGnRE),
		       0x0068000000000713ull);
	/* (PROT_NORMAL & ~PTE_WRITE) | PTE_RDONLY */
	TEST_ASSERT_EQ("PAGE_KERNEL_RO", arm64_prot_bits(&g, ARM64_PAGE_KERNEL_RO),
		       0x0060000000000783ull);
	/* PROT_NORMAL & ~PTE_PXN */
	TEST_ASSERT_EQ("PAGE_KERNEL_EXEC", arm64_prot_bits(&g, ARM64_PAGE_KERNEL_EXEC),
		       0x0048000000000703ull);
	/* pgprot_writecombine(): AttrIndx MT_NORMAL_NC (2) */
	TEST_ASSERT_EQ("writecombine", arm64_prot_bits(&g, ARM64_PAGE_KERNEL_NC),
		       0x006800000000070bull);

	/* LPA2: PTE_MAYBE_SHARED = 0, bits 9:8 carry PA[51:50] */
	arm64_geom_init(&l2, 12, 52);
	TEST_ASSERT_EQ("PAGE_KERNEL LPA2 4K", arm64_prot_bits(&l2, ARM64_PAGE_KERNEL),
		       0x0068000000000403ull);
	TEST_ASSERT_EQ("device LPA2 4K", arm64_prot_bits(&l2, ARM64_PROT_DEVICE_nGnRE),
		       0x0068000000000413ull);
	arm64_geom_init(&l2, 14, 52);
	TEST_ASSERT_EQ("PAGE_KERNEL LPA2 16K", arm64_prot_bits(&l2, ARM64_PAGE_KERNEL),
		       0x0068000000000403ull);
	/* 64K 52-bit is FEAT_LPA, not LPA2: SH stays in the descriptor */
	arm64_geom_init(&g64, 16, 52);
	TEST_ASSERT_EQ("PAGE_KERNEL 64K/52", arm64_prot_bits(&g64, ARM64_PAGE_KERNEL),
		       0x0068000000000703ull);
	/* a 47/36-bit 16K build is not LPA2 */
	arm64_geom_init(&l2, 14, 47);
	TEST_ASSERT_EQ("PAGE_KERNEL 16K/47", arm64_prot_bits(&l2, ARM64_PAGE_KERNEL),
		       0x0068000000000703ull);
}

static void test_pa_roundtrip(void)
{
	struct arm64_geom g;
	uint64_t pa, d;

	/* 48-bit PA: the address sits in place */
	arm64_geom_init(&g, 12, 48);
	pa = 0x0000abcdef123000ull;
	d = arm64_pa_to_desc(&g, pa);
	TEST_ASSERT_EQ("48-bit pa_to_desc", d, pa);
	TEST_ASSERT_EQ("48-bit round trip", arm64_desc_to_pa(&g, d | 0x0068000000000703ull), pa);
	TEST_ASSERT_EQ("48-bit attrs", arm64_desc_attrs(&g, d | 0x0068000000000703ull),
		       0x0068000000000703ull);
	arm64_geom_init(&g, 16, 48);
	pa = 0x0000fedcba980000ull;
	TEST_ASSERT_EQ("64K/48 round trip",
		       arm64_desc_to_pa(&g, arm64_pa_to_desc(&g, pa) | 0x0068000000000703ull), pa);

	/* LPA2 (4K): PA[49:12] in place, PA[51:50] in bits 9:8 */
	arm64_geom_init(&g, 12, 52);
	pa = (3ull << 50) | (1ull << 49) | 0x0000123456789000ull;
	d = arm64_pa_to_desc(&g, pa);
	TEST_ASSERT_EQ("LPA2 bits 9:8 = PA[51:50]", (d >> 8) & 3, 3);
	TEST_ASSERT_EQ("LPA2 bits 51:50 clear", (d >> 50) & 3, 0);
	TEST_ASSERT_EQ("LPA2 bit 49 in place", (d >> 49) & 1, 1);
	TEST_ASSERT_EQ("LPA2 low part in place", d & 0x0001fffffffff000ull,
		       pa & 0x0001fffffffff000ull);
	TEST_ASSERT_EQ("LPA2 desc", d, 0x0002123456789300ull);
	TEST_ASSERT_EQ("LPA2 round trip", arm64_desc_to_pa(&g, d | 0x0068000000000403ull), pa);
	TEST_ASSERT_EQ("LPA2 attrs", arm64_desc_attrs(&g, d | 0x0068000000000403ull),
		       0x0068000000000403ull);
	TEST_ASSERT_EQ("LPA2 PA bit 50", arm64_pa_to_desc(&g, 1ull << 50), 0x100);
	TEST_ASSERT_EQ("LPA2 PA bit 51", arm64_pa_to_desc(&g, 1ull << 51), 0x200);
	TEST_ASSERT_EQ("LPA2 desc 0x100", arm64_desc_to_pa(&g, 0x103), 1ull << 50);
	arm64_geom_init(&g, 14, 52);
	pa = (2ull << 50) | 0x0000123456788000ull;	/* 16K aligned */
	d = arm64_pa_to_desc(&g, pa);
	TEST_ASSERT_EQ("LPA2 16K desc", d, 0x0000123456788200ull);
	TEST_ASSERT_EQ("LPA2 16K round trip", arm64_desc_to_pa(&g, d | 0x403), pa);

	/* 64K, 52-bit PA (FEAT_LPA): PA[51:48] in bits 15:12 */
	arm64_geom_init(&g, 16, 52);
	pa = (0xfull << 48) | 0x0000123456780000ull;
	d = arm64_pa_to_desc(&g, pa);
	TEST_ASSERT_EQ("64K/52 bits 15:12 = PA[51:48]", (d >> 12) & 0xf, 0xf);
	TEST_ASSERT_EQ("64K/52 PA[47:16] in place", d & 0x0000ffffffff0000ull,
		       0x0000123456780000ull);
	TEST_ASSERT_EQ("64K/52 bits 51:50 clear", (d >> 50) & 3, 0);
	TEST_ASSERT_EQ("64K/52 round trip", arm64_desc_to_pa(&g, d | 0x0068000000000703ull), pa);
	pa = (0xaull << 48) | 0x0000000000050000ull;
	d = arm64_pa_to_desc(&g, pa);
	TEST_ASSERT_EQ("64K/52 bits 15:12 = 0xa", (d >> 12) & 0xf, 0xa);
	TEST_ASSERT_EQ("64K/52 round trip 2", arm64_desc_to_pa(&g, d | 0x703), pa);
	TEST_ASSERT_EQ("64K/52 attrs", arm64_desc_attrs(&g, d | 0x0068000000000703ull),
		       0x0068000000000703ull);
}

static void test_written_descriptors(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	uint64_t va, *pte, *pmd, pa = 0x40000000ull, e;
	uint32_t id;

	if (fx_init(&f, 12, 48, &lazy_opts))
		return;
	va = mm->g.vmalloc_start;
	pte = entry_at(&f, va, 3);
	pmd = entry_at(&f, va, 2);
	TEST_ASSERT_VAL("tables", pte && pmd);
	if (!pte || !pmd)
		goto out;
	/* table descriptor from arm64_populate(): 0x1000000000000403 | PA */
	id = arm64_desc_table_id(mm, *pmd);
	TEST_ASSERT_VAL("pmd points at a table", id != UINT32_MAX);
	TEST_ASSERT_EQ("table desc attrs", *pmd & ~0x0000fffffffff000ull,
		       0x1000000000000403ull);
	TEST_ASSERT_EQ("table desc PA", arm64_desc_to_pa(&mm->g, *pmd),
		       mm->table_pa_base + ((uint64_t)id << 12));
	TEST_ASSERT_VAL("table desc is PA | 0x1000000000000403",
			*pmd == (arm64_desc_to_pa(&mm->g, *pmd) | 0x1000000000000403ull));
	TEST_ASSERT_VAL("table desc points at the PTE table", mm->tbl[id] + arm64_index(&mm->g, 3, va) == pte);

	/* page, CONT page */
	e = arm64_pa_to_desc(&mm->g, pa) | arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL);
	arm64_set_pte_at(mm, pte, e);
	TEST_ASSERT_EQ("stored page desc", *pte, 0x0068000040000703ull);
	TEST_ASSERT_EQ("CONT desc", arm64_make_huge_pte(mm, e, mm->g.cont_pte_shift),
		       0x0078000040000703ull);
	TEST_ASSERT_EQ("CONT device desc",
		       arm64_make_huge_pte(mm, arm64_pa_to_desc(&mm->g, pa) |
					   arm64_prot_bits(&mm->g, ARM64_PROT_DEVICE_nGnRE),
					   mm->g.cont_pte_shift),
		       0x0078000040000713ull);
	arm64_set_huge_pte_at(mm, va, pte, arm64_make_huge_pte(mm, e, 16), 64 * KiB);
	for (int i = 0; i < 16; i++)
		TEST_ASSERT_EQ("CONT group entry", pte[i],
			       0x0078000040000703ull + ((uint64_t)i << 12));
	TEST_ASSERT_EQ("entry after the group untouched", pte[16], 0);

	/* PMD block via arm64_set_huge_block() */
	pmd = entry_at(&f, va + 2 * MiB, 2);
	TEST_ASSERT_EQ("set_huge_block", arm64_set_huge_block(mm, 2, pmd, 0x80200000ull,
			arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL)), 1);
	TEST_ASSERT_EQ("PMD block desc", *pmd, 0x0068000080200703ull & ~2ull);
	TEST_ASSERT_EQ("PMD block desc literal", *pmd, 0x0068000080200701ull);
	pmd = entry_at(&f, va + 4 * MiB, 2);
	arm64_set_huge_block(mm, 2, pmd, 0x80400000ull,
			     arm64_prot_bits(&mm->g, ARM64_PROT_DEVICE_nGnRE));
	TEST_ASSERT_EQ("device PMD block", *pmd, 0x0068000080400711ull);
out:
	fx_release(&f);

	/* LPA2: the table descriptor is PA | 0x1000000000000403 too */
	if (fx_init(&f, 12, 52, &lazy_opts))
		return;
	pte = entry_at(&f, f.mm.g.vmalloc_start, 4);
	TEST_ASSERT_VAL("LPA2 tables", pte != NULL);
	if (!pte)
		goto out2;
	{
		uint64_t *top = &f.mm.tbl[f.mm.pgd][arm64_index(&f.mm.g, 0, f.mm.g.vmalloc_start)];

		TEST_ASSERT_EQ("LPA2 table desc",
			       *top & ~arm64_pa_to_desc(&f.mm.g, arm64_desc_to_pa(&f.mm.g, *top)),
			       0x1000000000000403ull);
	}
	arm64_set_pte_at(&f.mm, pte, arm64_pa_to_desc(&f.mm.g, (1ull << 51) | 0x5000) |
			 arm64_prot_bits(&f.mm.g, ARM64_PAGE_KERNEL));
	TEST_ASSERT_EQ("LPA2 page desc", *pte, 0x0068000000005603ull);
out2:
	fx_release(&f);
}

/* ---- §4.2 set_pte_at -------------------------------------------------------- */

static void test_set_pte_at(void)
{
	for (int eager = 0; eager < 2; eager++) {
		for (int lazy = 0; lazy < 2; lazy++) {
			struct fx f;
			struct arm64_mm *mm = &f.mm;
			uint64_t *pte, e;
			char what[64];

			snprintf(what, sizeof(what), "set_pte_at eager=%d lazy=%d", eager, lazy);
			if (fx_init(&f, 12, 48, eager ? &eager_opts : &lazy_opts))
				return;
			pte = entry_at(&f, mm->g.vmalloc_start, 3);
			e = 0x80000000ull | arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL);
			if (lazy)
				arm64_lazy_mmu_enable(mm);
			arm64_set_pte_at(mm, pte, e);
			TEST_ASSERT_EQ(what, *pte, e);
			if (lazy && !eager) {
				/* deferred to lazy_mmu_disable() */
				EXPECT(what, &f.st, K(pte_writes, 1) K(set_pte_at_calls, 1));
				arm64_set_pte_at(mm, pte + 1, e + 4096);
				EXPECT(what, &f.st, K(pte_writes, 2) K(set_pte_at_calls, 2));
			} else {
				EXPECT(what, &f.st, K(pte_writes, 1) K(set_pte_at_calls, 1) PAIR(1));
				arm64_set_pte_at(mm, pte + 1, e + 4096);
				EXPECT(what, &f.st, K(pte_writes, 2) K(set_pte_at_calls, 2) PAIR(2));
			}
			if (lazy)
				arm64_lazy_mmu_disable(mm);
			/* lazy: two stores, ONE pair; else one pair each */
			EXPECT(what, &f.st, K(pte_writes, 2) K(set_pte_at_calls, 2)
			       PAIR(lazy && !eager ? 1 : 2));
			/* a disable with nothing pending emits nothing */
			arm64_lazy_mmu_enable(mm);
			arm64_lazy_mmu_disable(mm);
			EXPECT(what, &f.st, K(pte_writes, 2) K(set_pte_at_calls, 2)
			       PAIR(lazy && !eager ? 1 : 2));

			/* invalid entries: a store, no barrier, nothing pending */
			memset(&f.st, 0, sizeof(f.st));
			if (lazy)
				arm64_lazy_mmu_enable(mm);
			arm64_set_pte_at(mm, pte + 2, 0);
			arm64_set_pte_at(mm, pte + 3, e & ~PTE_VALID);
			TEST_ASSERT_EQ("invalid stored", pte[3], e & ~PTE_VALID);
			if (lazy)
				arm64_lazy_mmu_disable(mm);
			EXPECT("set_pte_at invalid", &f.st, K(set_pte_at_calls, 2));
			fx_release(&f);
		}
	}
}

/* ---- §4.5 num_contig_ptes / make_huge_pte / set_huge_pte_at --------------- */

struct ncp_case {
	unsigned int ps, va;
	bool patch1;
	uint64_t size, n, pgsize;
};

static void test_num_contig_ptes(void)
{
	static const struct ncp_case c[] = {
		/* 4K */
		{ 12, 48, false, 32 * MiB, 16, 2 * MiB },	/* CONT_PMD_SIZE */
		{ 12, 48, false, 64 * KiB, 16, 4 * KiB },	/* CONT_PTE_SIZE */
		{ 12, 48, false, 2 * MiB, 1, 2 * MiB },		/* PMD_SIZE: default */
		{ 12, 48, false, 1 * GiB, 1, 1 * GiB },		/* PUD_SIZE: default */
		{ 12, 48, false, 1 * MiB, 1, 1 * MiB },		/* WARN, (1, size) */
		{ 12, 48, false, 128 * KiB, 1, 128 * KiB },
		{ 12, 48, false, 4 * KiB, 1, 4 * KiB },
		{ 12, 48, true, 32 * MiB, 16, 2 * MiB },
		{ 12, 48, true, 64 * KiB, 16, 4 * KiB },
		{ 12, 48, true, 128 * KiB, 32, 4 * KiB },
		{ 12, 48, true, 1 * MiB, 256, 4 * KiB },
		{ 12, 48, true, 2 * MiB, 512, 4 * KiB },	/* the §4.10 bug */
		{ 12, 48, true, 16 * MiB, 4096, 4 * KiB },
		{ 12, 48, true, 96 * KiB, 1, 96 * KiB },	/* not N x CONT */
		{ 12, 48, true, 4 * KiB, 1, 4 * KiB },
		{ 12, 48, true, 1 * GiB, 1, 1 * GiB },		/* >= CONT_PMD_SIZE */
		{ 12, 48, true, 0, 1, 0 },
		/* 16K */
		{ 14, 48, false, 2 * MiB, 128, 16 * KiB },
		{ 14, 48, false, 1 * GiB, 32, 32 * MiB },
		{ 14, 48, false, 32 * MiB, 1, 32 * MiB },
		{ 14, 48, true, 32 * MiB, 2048, 16 * KiB },
		{ 14, 48, true, 16 * MiB, 1024, 16 * KiB },
		/* 64K */
		{ 16, 48, false, 2 * MiB, 32, 64 * KiB },
		{ 16, 48, false, 16 * GiB, 32, 512 * MiB },
		{ 16, 48, false, 512 * MiB, 1, 512 * MiB },
		{ 16, 48, true, 512 * MiB, 8192, 64 * KiB },
		{ 16, 48, true, 256 * MiB, 4096, 64 * KiB },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arm64_mm_opts o = { .initial_empty = true, .patch1 = c[i].patch1 };
		struct fx f;
		uint64_t pgsize = 0xdead, n;

		if (fx_init(&f, c[i].ps, c[i].va, &o))
			return;
		n = arm64_num_contig_ptes(&f.mm, c[i].size, &pgsize);
		if (n != c[i].n || pgsize != c[i].pgsize)
			fprintf(stderr, "  case %zu: ps %u size 0x%llx patch1 %d\n", i,
				c[i].ps, (unsigned long long)c[i].size, c[i].patch1);
		TEST_ASSERT_EQ("num_contig_ptes n", n, c[i].n);
		TEST_ASSERT_EQ("num_contig_ptes pgsize", pgsize, c[i].pgsize);
		EXPECT("num_contig_ptes counts nothing", &f.st);
		fx_release(&f);
	}
}

static void test_make_huge_pte(void)
{
	static const struct {
		unsigned int ps;
		bool patch1;
		unsigned int shift;
		uint64_t want;		/* for entry 0x0068000040000703 */
	} c[] = {
		{ 12, false, 30, 0x0068000040000701ull },	/* PUD_SIZE: block */
		{ 12, false, 25, 0x0078000040000701ull },	/* CONT_PMD: block + CONT */
		{ 12, false, 21, 0x0068000040000701ull },	/* PMD_SIZE: block */
		{ 12, false, 16, 0x0078000040000703ull },	/* CONT_PTE: CONT */
		{ 12, false, 20, 0x0068000040000703ull },	/* unrecognized */
		{ 12, false, 12, 0x0068000040000703ull },
		{ 12, true, 20, 0x0078000040000703ull },	/* patch 1: CONT */
		{ 12, true, 17, 0x0078000040000703ull },
		{ 12, true, 21, 0x0068000040000701ull },	/* PMD case first */
		{ 12, true, 25, 0x0078000040000701ull },
		{ 12, true, 12, 0x0068000040000703ull },
		{ 14, false, 36, 0x0068000040000703ull },	/* no PUD blocks on 16K */
		{ 14, false, 30, 0x0078000040000701ull },
		{ 14, false, 25, 0x0068000040000701ull },
		{ 14, false, 21, 0x0078000040000703ull },
		{ 14, false, 24, 0x0068000040000703ull },
		{ 14, true, 24, 0x0078000040000703ull },
		{ 16, false, 42, 0x0068000040000703ull },	/* no PUD blocks on 64K */
		{ 16, false, 34, 0x0078000040000701ull },
		{ 16, false, 29, 0x0068000040000701ull },
		{ 16, false, 21, 0x0078000040000703ull },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arm64_mm_opts o = { .initial_empty = true, .patch1 = c[i].patch1 };
		struct fx f;

		if (fx_init(&f, c[i].ps, 48, &o))
			return;
		if (arm64_make_huge_pte(&f.mm, 0x0068000040000703ull, c[i].shift) != c[i].want)
			fprintf(stderr, "  case %zu: ps %u shift %u\n", i, c[i].ps, c[i].shift);
		TEST_ASSERT_EQ("make_huge_pte",
			       arm64_make_huge_pte(&f.mm, 0x0068000040000703ull, c[i].shift),
			       c[i].want);
		fx_release(&f);
	}
}

static void test_set_huge_pte_at(void)
{
	/* CONT_PTE_SIZE on every granule, both barrier models, lazy on/off */
	static const unsigned int ps[] = { 12, 14, 16 };

	for (size_t gi = 0; gi < 3; gi++) {
		for (int eager = 0; eager < 2; eager++) {
			for (int lazy = 0; lazy < 2; lazy++) {
				struct fx f;
				struct arm64_mm *mm = &f.mm;
				uint64_t *pte, e, n, cp;
				char what[80];

				snprintf(what, sizeof(what), "set_huge_pte_at CONT ps=%u eager=%d lazy=%d",
					 ps[gi], eager, lazy);
				if (fx_init(&f, ps[gi], 48, eager ? &eager_opts : &lazy_opts))
					return;
				cp = mm->g.cont_ptes;
				TEST_ASSERT_EQ("cont_ptes", cp, ps[gi] == 12 ? 16 : ps[gi] == 14 ? 128 : 32);
				pte = entry_at(&f, mm->g.vmalloc_start, (int)mm->g.levels - 1);
				e = arm64_make_huge_pte(mm, (1ull << 32) |
						arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL),
						mm->g.cont_pte_shift);
				if (lazy)
					arm64_lazy_mmu_enable(mm);
				n = arm64_set_huge_pte_at(mm, mm->g.vmalloc_start, pte, e,
							  mm->g.cont_pte_size);
				TEST_ASSERT_EQ(what, n, cp);
				if (lazy && !eager)
					EXPECT(what, &f.st, K(pte_writes, cp)
					       K(set_huge_pte_at_calls, 1) K(cont_ranges, 1));
				if (lazy)
					arm64_lazy_mmu_disable(mm);
				EXPECT(what, &f.st, K(pte_writes, cp) K(set_huge_pte_at_calls, 1)
				       K(cont_ranges, 1) PAIR(eager ? cp : 1));
				for (uint64_t i = 0; i < cp; i++)
					TEST_ASSERT_EQ("CONT entry value", pte[i],
						       e + (i << ps[gi]));
				TEST_ASSERT_EQ("next entry untouched", pte[cp], 0);
				fx_release(&f);
			}
		}
	}
}

static void test_set_huge_pte_at_sizes(void)
{
	static const struct {
		bool patch1, eager;
		unsigned int shift;	/* arch_make_huge_pte() shift */
		uint64_t size;
		uint64_t n, cont_ranges, pairs;
	} c[] = {
		/* patch 1: 1 MiB = 256 stores, 16 CONT ranges, one pair */
		{ true, false, 20, 1 * MiB, 256, 16, 1 },
		{ true, true, 20, 1 * MiB, 256, 16, 256 },
		{ true, false, 17, 128 * KiB, 32, 2, 1 },
		/* no patch 1: 1 MiB takes num_contig_ptes' default branch */
		{ false, false, 20, 1 * MiB, 1, 0, 1 },
		{ false, true, 20, 1 * MiB, 1, 0, 1 },
		/* PMD_SIZE with patch 1: 512 PTE-strided stores (§4.10) */
		{ true, false, 21, 2 * MiB, 512, 0, 1 },
		{ false, false, 21, 2 * MiB, 1, 0, 1 },
		/* CONT_PMD_SIZE: 16 block stores at PMD stride, one range */
		{ false, false, 25, 32 * MiB, 16, 1, 1 },
		{ false, true, 25, 32 * MiB, 16, 1, 16 },
		/* PUD_SIZE */
		{ false, false, 30, 1 * GiB, 1, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arm64_mm_opts o = { .initial_empty = true, .patch1 = c[i].patch1,
					   .eager_barriers = c[i].eager };
		struct fx f;
		struct arm64_mm *mm = &f.mm;
		uint64_t *pte, e, n, pgsize, stride;
		char what[80];

		snprintf(what, sizeof(what), "set_huge_pte_at case %zu", i);
		if (fx_init(&f, 12, 48, &o))
			return;
		pte = entry_at(&f, mm->g.vmalloc_start, 3);
		e = arm64_make_huge_pte(mm, (1ull << 32) | 0x0068000000000703ull, c[i].shift);
		n = arm64_set_huge_pte_at(mm, mm->g.vmalloc_start, pte, e, c[i].size);
		TEST_ASSERT_EQ(what, n, c[i].n);
		EXPECT(what, &f.st, K(pte_writes, c[i].n) K(set_huge_pte_at_calls, 1)
		       K(cont_ranges, c[i].cont_ranges) PAIR(c[i].pairs));
		arm64_num_contig_ptes(mm, c[i].size, &pgsize);
		stride = c[i].n > 1 ? pgsize : 0;
		TEST_ASSERT_EQ("first entry", pte[0], e);
		TEST_ASSERT_EQ("last entry", pte[c[i].n - 1], e + (c[i].n - 1) * stride);
		if (c[i].n < 512)
			TEST_ASSERT_EQ("entry after", pte[c[i].n], 0);
		fx_release(&f);
	}
}

static void test_set_huge_pte_at_bbm_and_invalid(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	uint64_t *pte, e, va;

	if (fx_init(&f, 12, 48, &lazy_opts))
		return;
	va = mm->g.vmalloc_start;
	pte = entry_at(&f, va, 3);
	e = arm64_make_huge_pte(mm, 0x80000000ull | 0x0068000000000703ull, 16);
	arm64_set_huge_pte_at(mm, va, pte, e, 64 * KiB);
	memset(&f.st, 0, sizeof(f.st));
	/* valid CONT over a valid group: clear all 16 (xchg), flush the block
	 * (16 pages < MAX_DVM_OPS: 16 vaale1is), then the 16 stores */
	arm64_set_huge_pte_at(mm, va, pte, e + (1ull << 20), 64 * KiB);
	EXPECT("BBM", &f.st, K(pte_clears, 16) FLUSH_SINGLES(16) K(pte_writes, 16)
	       K(set_huge_pte_at_calls, 1) K(cont_ranges, 1) PAIR(1));
	TEST_ASSERT_EQ("BBM new value", pte[15], e + (1ull << 20) + 15 * 4096);

	/* a non-present entry: ncontig stores of the value, no barrier */
	memset(&f.st, 0, sizeof(f.st));
	TEST_ASSERT_EQ("invalid huge", arm64_set_huge_pte_at(mm, va, pte, 0, 64 * KiB), 16);
	EXPECT("set_huge_pte_at invalid", &f.st, K(set_huge_pte_at_calls, 1));
	TEST_ASSERT_EQ("invalid stored", pte[7], 0);
	fx_release(&f);
}

/* ---- §5 arm64_populate ----------------------------------------------------- */

static void test_populate(void)
{
	static const struct {
		unsigned int ps, va;
		int depth;
		bool rodata_rw, eager;
		enum arm64_counter metric;
	} c[] = {
		{ 12, 48, 1, false, false, ARM64_C_pud_writes },	/* PMD table into a PUD */
		{ 12, 48, 2, false, false, ARM64_C_pmd_writes },	/* PTE table into a PMD */
		{ 12, 48, 2, false, true, ARM64_C_pmd_writes },
		{ 12, 52, 1, false, false, ARM64_C_p4d_writes },	/* set_p4d */
		{ 12, 52, 2, false, false, ARM64_C_pud_writes },
		{ 12, 52, 3, false, false, ARM64_C_pmd_writes },
		{ 14, 47, 1, false, false, ARM64_C_pmd_writes },
		{ 16, 48, 1, false, false, ARM64_C_pmd_writes },
		/* into swapper_pg_dir */
		{ 12, 48, 0, false, false, ARM64_C_pgd_writes },
		{ 12, 48, 0, false, true, ARM64_C_pgd_writes },
		{ 12, 48, 0, true, false, ARM64_C_pgd_writes },
		{ 12, 39, 0, false, false, ARM64_C_pgd_writes },	/* every PMD table */
		{ 12, 52, 0, false, false, ARM64_C_pgd_writes },
		{ 14, 36, 0, false, false, ARM64_C_pgd_writes },	/* every PTE table */
		{ 16, 42, 0, false, false, ARM64_C_pgd_writes },
		{ 16, 42, 0, true, true, ARM64_C_pgd_writes },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arm64_mm_opts o = { .initial_empty = true, .rodata_rw = c[i].rodata_rw,
					   .eager_barriers = c[i].eager };
		struct fx f;
		struct arm64_mm *mm = &f.mm;
		uint64_t *p, va;
		uint32_t id;
		char what[80];
		int err;

		snprintf(what, sizeof(what), "populate %u/%u depth %d rodata_rw %d eager %d",
			 c[i].ps, c[i].va, c[i].depth, c[i].rodata_rw, c[i].eager);
		if (fx_init(&f, c[i].ps, c[i].va, &o))
			return;
		va = mm->g.vmalloc_start + 3 * mm->g.pmd_size;
		p = entry_at(&f, va, c[i].depth);
		TEST_ASSERT_VAL(what, p && !*p);
		if (!p)
			continue;
		err = arm64_populate(mm, c[i].depth, p);
		TEST_ASSERT_EQ(what, err, 0);
		if (c[i].depth == 0 && !c[i].rodata_rw) {
			EXPECT(what, &f.st, K(tables_allocated, 1) K(dmb, 1)
			       SWAPPER_FIXMAP { c[i].metric, 1 },);
		} else {
			EXPECT(what, &f.st, K(tables_allocated, 1) K(dmb, 1) PAIR(1)
			       { c[i].metric, 1 },);
		}
		id = arm64_desc_table_id(mm, *p);
		TEST_ASSERT_VAL("populated entry points at a table", id != UINT32_MAX);
		if (id != UINT32_MAX) {
			uint64_t nz = 0;

			TEST_ASSERT_EQ("table desc", *p,
				       arm64_pa_to_desc(&mm->g, mm->table_pa_base +
							((uint64_t)id << c[i].ps)) |
				       0x1000000000000403ull);
			for (uint64_t j = 0; j < mm->g.ptrs[c[i].depth + 1]; j++)
				nz += arm64_entry(mm, id, j) != 0;
			TEST_ASSERT_EQ("new table zeroed", nz, 0);
		}
		fx_release(&f);
	}

	/* the fixmap flush uses the range instruction rules (1 page: single) */
	{
		struct arm64_mm_opts o = { .initial_empty = true, .tlbi_range = true };
		struct fx f;
		uint64_t *p;

		if (fx_init(&f, 12, 52, &o))
			return;
		p = entry_at(&f, f.mm.g.vmalloc_start, 0);
		arm64_populate(&f.mm, 0, p);
		EXPECT("populate top, tlbi_range, LPA2", &f.st, K(tables_allocated, 1)
		       K(dmb, 1) SWAPPER_FIXMAP K(pgd_writes, 1));
		fx_release(&f);
	}
}

/* ---- §4.6 blocks ---------------------------------------------------------------- */

static void test_set_huge_block(void)
{
	for (int eager = 0; eager < 2; eager++) {
		struct fx f;
		struct arm64_mm *mm = &f.mm;
		uint64_t *pmd, *pud, old, va, k, *tab;

		if (fx_init(&f, 12, 48, eager ? &eager_opts : &lazy_opts))
			return;
		k = arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL);
		va = mm->g.vmalloc_start + 1 * GiB;
		pmd = entry_at(&f, va, 2);
		TEST_ASSERT_EQ("PMD block", arm64_set_huge_block(mm, 2, pmd, 0x80200000ull, k), 1);
		EXPECT("PMD block", &f.st, K(block_maps, 1) K(pmd_writes, 1) PAIR(1));
		TEST_ASSERT_EQ("PMD block value", *pmd, 0x0068000080200701ull);

		/* live entry, same PA, permission change only: allowed */
		memset(&f.st, 0, sizeof(f.st));
		TEST_ASSERT_EQ("RDONLY change", arm64_set_huge_block(mm, 2, pmd, 0x80200000ull,
				arm64_prot_bits(&mm->g, ARM64_PAGE_KERNEL_RO)), 1);
		EXPECT("permission change", &f.st, K(block_maps, 1) K(pmd_writes, 1) PAIR(1));
		TEST_ASSERT_EQ("RO block value", *pmd, 0x0060000080200781ull);

		/* live entry, different PA: refused, no store, no count */
		memset(&f.st, 0, sizeof(f.st));
		old = *pmd;
		TEST_ASSERT_EQ("different PA refused",
			       arm64_set_huge_block(mm, 2, pmd, 0x80400000ull, k), 0);
		EXPECT("refused", &f.st);
		TEST_ASSERT_EQ("entry unchanged", *pmd, old);
		/* live entry, same PA, different memory type: refused */
		TEST_ASSERT_EQ("memory type change refused",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull,
						    arm64_prot_bits(&mm->g, ARM64_PROT_DEVICE_nGnRE)), 0);
		/* nG -> G refused, G -> nG allowed */
		*pmd = 0x0068000080200701ull | PTE_NG;
		TEST_ASSERT_EQ("nG -> G refused",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull, k), 0);
		*pmd = 0x0068000080200701ull;
		TEST_ASSERT_EQ("G -> nG allowed",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull, k | PTE_NG), 1);
		/* a live CONT entry may not be touched */
		*pmd = 0x0078000080200701ull;
		TEST_ASSERT_EQ("CONT refused",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull, k), 0);
		/* Normal <-> Normal-Tagged counts as a permission change (§4.6) */
		*pmd = 0x0068000080200701ull;
		TEST_ASSERT_EQ("Normal -> Tagged allowed",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull,
						    k | PTE_ATTRINDX(MT_NORMAL_TAGGED)), 1);
		/* software bits (55..58, 63) may change */
		*pmd = 0x0068000080200701ull;
		TEST_ASSERT_EQ("sw bit 63 allowed",
			       arm64_set_huge_block(mm, 2, pmd, 0x80200000ull,
						    k | (1ull << 63)), 1);
		/* over a live PTE table (different PA): refused */
		tab = entry_at(&f, va + 2 * MiB, 3);
		(void)tab;
		pmd = entry_at(&f, va + 2 * MiB, 2);
		old = *pmd;
		TEST_ASSERT_EQ("block over a table refused",
			       arm64_set_huge_block(mm, 2, pmd, 0x80400000ull, k), 0);
		TEST_ASSERT_EQ("table kept", *pmd, old);
		EXPECT("refused over table", &f.st);

		/* PUD block (4K only) */
		pud = entry_at(&f, va + 1 * GiB, 1);
		TEST_ASSERT_EQ("PUD block", arm64_set_huge_block(mm, 1, pud, 0xc0000000ull, k), 1);
		EXPECT("PUD block", &f.st, K(block_maps, 1) K(pud_writes, 1) PAIR(1));
		TEST_ASSERT_EQ("PUD block value", *pud, 0x00680000c0000701ull);
		fx_release(&f);
	}

	/* 4K/39: a PUD block is a swapper_pg_dir entry: the fixmap path */
	{
		struct fx f;
		uint64_t *pud;

		if (fx_init(&f, 12, 39, &lazy_opts))
			return;
		pud = entry_at(&f, f.mm.g.vmalloc_start, 0);
		TEST_ASSERT_EQ("PUD block 4K/39",
			       arm64_set_huge_block(&f.mm, 0, pud, 0xc0000000ull,
						    0x0068000000000703ull), 1);
		EXPECT("PUD block in swapper", &f.st, K(block_maps, 1) K(pgd_writes, 1)
		       SWAPPER_FIXMAP);
		fx_release(&f);
	}
}

/* ---- §4.7 freeing lower tables -------------------------------------------------- */

static void test_free_lower_table(void)
{
	for (int eager = 0; eager < 2; eager++) {
		struct fx f;
		struct arm64_mm *mm = &f.mm;
		uint64_t *pmd, *pud, *pte, va, old;
		uint32_t pmd_tab;

		if (fx_init(&f, 12, 48, eager ? &eager_opts : &lazy_opts))
			return;
		va = mm->g.vmalloc_start;
		/* a PMD entry holding a PTE table with a live page */
		pte = entry_at(&f, va, 3);
		arm64_set_pte_at(mm, pte, 0x80000000ull | 0x0068000000000703ull);
		pmd = entry_at(&f, va, 2);
		TEST_ASSERT_EQ("pmd_free_pte_page", arm64_free_lower_table(mm, 2, pmd, va), 1);
		EXPECT("pmd_free_pte_page", &f.st, K(pmd_clears, 1) FLUSH_PGTABLE(1)
		       K(tables_freed, 1));
		TEST_ASSERT_EQ("pmd cleared", *pmd, 0);
		/* not a table (none or block): VM_WARN, return 1, nothing */
		memset(&f.st, 0, sizeof(f.st));
		TEST_ASSERT_EQ("none", arm64_free_lower_table(mm, 2, pmd, va), 1);
		arm64_set_huge_block(mm, 2, pmd, 0x80000000ull, 0x0068000000000703ull);
		memset(&f.st, 0, sizeof(f.st));
		old = *pmd;
		TEST_ASSERT_EQ("block", arm64_free_lower_table(mm, 2, pmd, va), 1);
		TEST_ASSERT_EQ("block kept", *pmd, old);
		EXPECT("not a table", &f.st);

		/* a PUD entry: its PMD table holds 3 PTE tables and 1 block */
		va = mm->g.vmalloc_start + 1 * GiB;
		for (int i = 0; i < 3; i++)
			entry_at(&f, va + (uint64_t)(i * 7) * 2 * MiB, 3);
		pmd = entry_at(&f, va + 100 * 2 * MiB, 2);
		arm64_set_huge_block(mm, 2, pmd, 0x80000000ull, 0x0068000000000703ull);
		pud = entry_at(&f, va, 1);
		pmd_tab = arm64_desc_table_id(mm, *pud);
		TEST_ASSERT_VAL("pud table", pmd_tab != UINT32_MAX);
		TEST_ASSERT_EQ("pud_free_pmd_page", arm64_free_lower_table(mm, 1, pud, va), 1);
		EXPECT("pud_free_pmd_page", &f.st, K(pud_clears, 1) K(pmd_clears, 3)
		       FLUSH_PGTABLE(4) K(tables_freed, 4));
		TEST_ASSERT_EQ("pud cleared", *pud, 0);

		/* an empty PMD table (as under the image's PUD entry with
		 * --initial=booted): 1 clear, 1 vaae1is, 1 table */
		entry_at(&f, va, 2);
		pud = entry_at(&f, va, 1);
		TEST_ASSERT_EQ("empty pmd table", arm64_free_lower_table(mm, 1, pud, va), 1);
		EXPECT("pud_free_pmd_page empty", &f.st, K(pud_clears, 1) FLUSH_PGTABLE(1)
		       K(tables_freed, 1));
		fx_release(&f);
	}
}

static void test_clear_huge(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	uint64_t *pmd, *pud, va;

	if (fx_init(&f, 12, 48, &lazy_opts))
		return;
	va = mm->g.vmalloc_start;
	pmd = entry_at(&f, va, 2);
	TEST_ASSERT_EQ("none: 0", arm64_clear_huge(mm, 2, pmd), 0);
	arm64_set_huge_block(mm, 2, pmd, 0x80000000ull, 0x0068000000000703ull);
	memset(&f.st, 0, sizeof(f.st));
	TEST_ASSERT_EQ("block: 1", arm64_clear_huge(mm, 2, pmd), 1);
	EXPECT("pmd_clear_huge", &f.st, K(pmd_clears, 1));
	TEST_ASSERT_EQ("cleared", *pmd, 0);
	entry_at(&f, va, 3);
	pmd = entry_at(&f, va, 2);
	TEST_ASSERT_EQ("table: 0", arm64_clear_huge(mm, 2, pmd), 0);
	TEST_ASSERT_VAL("table kept", *pmd != 0);
	EXPECT("table untouched", &f.st);
	pud = entry_at(&f, va + 1 * GiB, 1);
	arm64_set_huge_block(mm, 1, pud, 0xc0000000ull, 0x0068000000000703ull);
	memset(&f.st, 0, sizeof(f.st));
	TEST_ASSERT_EQ("PUD block: 1", arm64_clear_huge(mm, 1, pud), 1);
	EXPECT("pud_clear_huge", &f.st, K(pud_clears, 1));
	fx_release(&f);
}

static void test_get_and_clear(void)
{
	for (int lazy = 0; lazy < 2; lazy++) {
		struct arm64_mm_opts o = { .initial_empty = true, .patch1 = true };
		struct fx f;
		struct arm64_mm *mm = &f.mm;
		uint64_t *pte, va, e, old;

		if (fx_init(&f, 12, 48, &o))
			return;
		va = mm->g.vmalloc_start;
		pte = entry_at(&f, va, 3);
		e = 0x80000000ull | 0x0078000000000703ull;
		arm64_set_huge_pte_at(mm, va, pte, e, 1 * MiB);
		memset(&f.st, 0, sizeof(f.st));
		if (lazy)
			arm64_lazy_mmu_enable(mm);
		old = arm64_ptep_get_and_clear(mm, &pte[300]);	/* an empty slot */
		TEST_ASSERT_EQ("old empty", old, 0);
		old = arm64_ptep_get_and_clear(mm, &pte[1]);
		TEST_ASSERT_EQ("old value", old, e + 4096);
		TEST_ASSERT_EQ("cleared", pte[1], 0);
		EXPECT("ptep_get_and_clear", &f.st, K(pte_clears, 2));
		old = arm64_huge_ptep_get_and_clear(mm, &pte[16], 64 * KiB);
		TEST_ASSERT_EQ("huge old", old, e + 16 * 4096);
		EXPECT("huge_ptep_get_and_clear CONT", &f.st, K(pte_clears, 18));
		old = arm64_huge_ptep_get_and_clear(mm, &pte[32], 128 * KiB);	/* patch 1 */
		EXPECT("huge_ptep_get_and_clear 128K patch1", &f.st, K(pte_clears, 50));
		for (int i = 16; i < 64; i++)
			TEST_ASSERT_EQ("huge cleared", pte[i], 0);
		TEST_ASSERT_VAL("next group kept", pte[64] == e + 64 * 4096);
		if (lazy)
			arm64_lazy_mmu_disable(mm);
		EXPECT("clears: no barrier even at lazy exit", &f.st, K(pte_clears, 50));
		fx_release(&f);
	}
}

/* ---- §7 TLB maintenance ---------------------------------------------------------- */

/* Independent form of §7.1: P = d3*65536 + d2*2048 + d1*64 + d0*2 + e. */
static uint64_t spec_range_tlbis(uint64_t p, uint64_t *singles)
{
	uint64_t d3 = p / 65536, r = p % 65536;
	uint64_t d2 = r / 2048, d1, d0, e;

	if (d3 > 32) {		/* cannot happen for p <= 2^21 */
		*singles = 0;
		return 0;
	}
	r %= 2048;
	d1 = r / 64;
	r %= 64;
	d0 = r / 2;
	e = r % 2;
	*singles = e;
	return (d3 > 0) + (d2 > 0) + (d1 > 0) + (d0 > 0) + e;
}

static void test_flush_tlb_kernel_range(void)
{
	static const struct { uint64_t p, range; } spec[] = {
		{ 1, 1 }, { 16, 1 }, { 17, 2 }, { 257, 2 }, { 511, 3 }, { 512, 1 },
		{ 513, 2 }, { 16385, 2 }, { 262401, 3 }, { 1ull << 21, 1 },
		{ (1ull << 21) + 1, 0 /* full */ }, { 2, 1 }, { 3, 2 }, { 65536, 1 },
		{ 65537, 2 }, { 2097151, 5 },
	};

	for (int range = 0; range < 2; range++) {
		struct arm64_mm_opts o = { .initial_empty = true, .tlbi_range = range };
		struct fx f;
		uint64_t base;

		if (fx_init(&f, 12, 48, &o))
			return;
		base = f.mm.g.vmalloc_start;
		for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
			uint64_t p = spec[i].p, singles, n;
			bool full, want_full;
			char what[80];

			snprintf(what, sizeof(what), "flush range=%d P=%llu", range,
				 (unsigned long long)p);
			memset(&f.st, 0, sizeof(f.st));
			arm64_flush_tlb_kernel_range(&f.mm, base, base + (p << 12));
			if (range) {
				want_full = p > (1ull << 21);
				n = want_full ? 1 : spec_range_tlbis(p, &singles);
				if (!want_full)
					TEST_ASSERT_EQ("spec example = formula", n, spec[i].range);
				if (want_full)
					EXPECT(what, &f.st, FLUSH_ALL);
				else
					EXPECT(what, &f.st, K(tlbi, n) K(tlbi_vaale1is, singles)
					       K(tlbi_rvaale1is, n - singles) K(dsb, 2)
					       K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
			} else {
				/* P single vaale1is while P < MAX_DVM_OPS (512) */
				want_full = p >= 512;
				n = want_full ? 1 : p;
				if (want_full)
					EXPECT(what, &f.st, FLUSH_ALL);
				else
					EXPECT(what, &f.st, FLUSH_SINGLES(p));
			}
			TEST_ASSERT_EQ("arm64_tlbi_range_count",
				       arm64_tlbi_range_count(&f.mm, base, p, &full), n);
			TEST_ASSERT_EQ("full", full, want_full);
		}
		/* sweep against the independent formula */
		for (uint64_t p = 1; range && p <= 5000; p++) {
			uint64_t singles, n = spec_range_tlbis(p, &singles);

			memset(&f.st, 0, sizeof(f.st));
			arm64_flush_tlb_kernel_range(&f.mm, base, base + (p << 12));
			if (f.st.c[ARM64_C_tlbi] != n || f.st.c[ARM64_C_tlbi_vaale1is] != singles) {
				fprintf(stderr, "  P=%llu\n", (unsigned long long)p);
				TEST_ASSERT_EQ("sweep tlbi", f.st.c[ARM64_C_tlbi], n);
				TEST_ASSERT_EQ("sweep singles", f.st.c[ARM64_C_tlbi_vaale1is], singles);
				break;
			}
		}
		/* start/end rounded to pages: [base+100, base+4097) is 2 pages */
		memset(&f.st, 0, sizeof(f.st));
		arm64_flush_tlb_kernel_range(&f.mm, base + 100, base + 4097);
		if (range)
			EXPECT("rounding", &f.st, K(tlbi, 1) K(tlbi_rvaale1is, 1) K(dsb, 2)
			       K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		else
			EXPECT("rounding", &f.st, FLUSH_SINGLES(2));
		/* without LPA2 the start alignment does not matter */
		memset(&f.st, 0, sizeof(f.st));
		arm64_flush_tlb_kernel_range(&f.mm, base + 4096, base + 4096 + 32 * 4096);
		if (range)
			EXPECT("misaligned start, no LPA2", &f.st, K(tlbi, 1) K(tlbi_rvaale1is, 1)
			       K(dsb, 2) K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		else
			EXPECT("misaligned start, no LPA2", &f.st, FLUSH_SINGLES(32));
		fx_release(&f);
	}

	/* MAX_DVM_OPS = PTRS_PER_PTE on 16K and 64K */
	{
		static const struct { unsigned int ps; uint64_t dvm; } gr[] = {
			{ 14, 2048 }, { 16, 8192 },
		};

		for (int i = 0; i < 2; i++) {
			struct fx f;
			uint64_t base, ps = 1ull << gr[i].ps;

			if (fx_init(&f, gr[i].ps, 48, &lazy_opts))
				return;
			base = f.mm.g.vmalloc_start;
			arm64_flush_tlb_kernel_range(&f.mm, base, base + (gr[i].dvm - 1) * ps);
			EXPECT("MAX_DVM_OPS - 1 singles", &f.st, FLUSH_SINGLES(gr[i].dvm - 1));
			memset(&f.st, 0, sizeof(f.st));
			arm64_flush_tlb_kernel_range(&f.mm, base, base + gr[i].dvm * ps);
			EXPECT("MAX_DVM_OPS: full flush", &f.st, FLUSH_ALL);
			fx_release(&f);
		}
	}

	/* LPA2 (52-bit, 4K/16K): single ops until 64 KiB aligned */
	{
		struct arm64_mm_opts o = { .initial_empty = true, .tlbi_range = true };
		struct arm64_mm_opts nr = { .initial_empty = true };
		struct fx f;
		uint64_t base;

		if (fx_init(&f, 12, 52, &o))
			return;
		base = f.mm.g.vmalloc_start;
		/* aligned: one range op for 32 pages */
		arm64_flush_tlb_kernel_range(&f.mm, base, base + 32 * 4096);
		EXPECT("LPA2 aligned", &f.st, K(tlbi, 1) K(tlbi_rvaale1is, 1) K(dsb, 2)
		       K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		/* one page in: 15 singles to the 64K boundary, then 17 pages =
		 * one range op (16) + one single */
		memset(&f.st, 0, sizeof(f.st));
		arm64_flush_tlb_kernel_range(&f.mm, base + 4096, base + 33 * 4096);
		EXPECT("LPA2 misaligned", &f.st, K(tlbi, 17) K(tlbi_vaale1is, 16)
		       K(tlbi_rvaale1is, 1) K(dsb, 2) K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		/* 15 pages into a 64K block: at most 15 singles (a short range
		 * is all singles) */
		memset(&f.st, 0, sizeof(f.st));
		arm64_flush_tlb_kernel_range(&f.mm, base + 4096, base + 16 * 4096);
		EXPECT("LPA2 all singles", &f.st, K(tlbi, 15) K(tlbi_vaale1is, 15) K(dsb, 2)
		       K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		fx_release(&f);

		/* 16K LPA2: at most 3 singles */
		if (fx_init(&f, 14, 52, &o))
			return;
		base = f.mm.g.vmalloc_start;
		arm64_flush_tlb_kernel_range(&f.mm, base + 16384, base + 9 * 16384);
		EXPECT("LPA2 16K", &f.st, K(tlbi, 5) K(tlbi_vaale1is, 4) K(tlbi_rvaale1is, 1)
		       K(dsb, 2) K(dsb_ishst, 1) K(dsb_ish, 1) K(isb, 1));
		fx_release(&f);

		/* LPA2 without FEAT_TLBIRANGE: plain singles */
		if (fx_init(&f, 12, 52, &nr))
			return;
		base = f.mm.g.vmalloc_start;
		arm64_flush_tlb_kernel_range(&f.mm, base + 4096, base + 33 * 4096);
		EXPECT("LPA2 no range", &f.st, FLUSH_SINGLES(32));
		fx_release(&f);
	}

	/* flush_tlb_all(), __flush_tlb_kernel_pgtable() */
	{
		struct fx f;

		if (fx_init(&f, 12, 48, &lazy_opts))
			return;
		arm64_flush_tlb_all(&f.mm);
		EXPECT("flush_tlb_all", &f.st, FLUSH_ALL);
		memset(&f.st, 0, sizeof(f.st));
		arm64___flush_tlb_kernel_pgtable(&f.mm, f.mm.g.vmalloc_start);
		EXPECT("flush_tlb_kernel_pgtable", &f.st, FLUSH_PGTABLE(1));
		fx_release(&f);
	}
}

/* ---- arch_vmap_pte_range_map_size() ------------------------------------------ */

static void test_vmap_map_size(void)
{
	static const struct {
		unsigned int ps;
		bool vmap_cont, patch2;
		uint64_t addr_off, len, pa;
		unsigned int max_shift;
		uint64_t want;
	} c[] = {
		/* 4K, the four gates */
		{ 12, true, false, 0, 1 * MiB, 0x80000000, 63, 64 * KiB },
		{ 12, true, false, 0, 1 * MiB, 0x80000000, 16, 64 * KiB },
		{ 12, true, false, 0, 1 * MiB, 0x80000000, 15, 4 * KiB },	/* shift */
		{ 12, true, false, 0, 1 * MiB, 0x80000000, 12, 4 * KiB },
		{ 12, true, false, 0, 60 * KiB, 0x80000000, 63, 4 * KiB },	/* end */
		{ 12, true, false, 0, 64 * KiB, 0x80000000, 63, 64 * KiB },
		{ 12, true, false, 4 * KiB, 1 * MiB, 0x80000000, 63, 4 * KiB },	/* VA */
		{ 12, true, false, 0, 1 * MiB, 0x80001000, 63, 4 * KiB },	/* PFN */
		/* patch 2: pow2 of min(end - addr, 2^shift, PMD_SIZE/2) */
		{ 12, true, true, 0, 3 * MiB, 0x80000000, 63, 1 * MiB },
		{ 12, true, true, 0, 1 * MiB + 64 * KiB, 0x80000000, 63, 1 * MiB },
		{ 12, true, true, 0, 192 * KiB, 0x80000000, 63, 128 * KiB },
		{ 12, true, true, 0, 1 * MiB, 0x80000000, 16, 64 * KiB },
		{ 12, true, true, 0, 1 * MiB, 0x80000000, 18, 256 * KiB },
		{ 12, true, true, 0, 2 * MiB, 0x80000000, 21, 1 * MiB },
		{ 12, true, true, 64 * KiB, 960 * KiB, 0x80010000, 20, 512 * KiB },
		{ 12, true, true, 0, 60 * KiB, 0x80000000, 63, 4 * KiB },	/* gates kept */
		{ 12, true, true, 4 * KiB, 1 * MiB, 0x80000000, 63, 4 * KiB },
		{ 12, true, true, 0, 1 * MiB, 0x80001000, 63, 4 * KiB },
		{ 12, true, true, 0, 1 * MiB, 0x80000000, 15, 4 * KiB },
		/* vmap CONT off (before v6.16): always PAGE_SIZE */
		{ 12, false, false, 0, 1 * MiB, 0x80000000, 63, 4 * KiB },
		{ 12, false, true, 0, 1 * MiB, 0x80000000, 63, 4 * KiB },
		/* 16K: CONT 2 MiB, patch 2 cap 16 MiB */
		{ 14, true, false, 0, 32 * MiB, 0x80000000, 63, 2 * MiB },
		{ 14, true, true, 0, 32 * MiB, 0x80000000, 63, 16 * MiB },
		{ 14, true, true, 0, 32 * MiB, 0x80000000, 20, 16 * KiB },
		{ 14, true, false, 16 * KiB, 32 * MiB, 0x80000000, 63, 16 * KiB },
		/* 64K: CONT 2 MiB, patch 2 cap 256 MiB */
		{ 16, true, false, 0, 512 * MiB, 0x80000000, 63, 2 * MiB },
		{ 16, true, true, 0, 512 * MiB, 0x80000000, 63, 256 * MiB },
		{ 16, true, true, 0, 6 * MiB, 0x80000000, 63, 4 * MiB },
		{ 16, true, true, 0, 512 * MiB, 0x80010000, 63, 64 * KiB },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arm64_mm_opts o = { .initial_empty = true, .vmap_cont = c[i].vmap_cont,
					   .patch2 = c[i].patch2 };
		struct fx f;
		uint64_t addr, got;

		if (fx_init(&f, c[i].ps, 48, &o))
			return;
		addr = f.mm.g.vmalloc_start + c[i].addr_off;
		got = arm64_vmap_pte_range_map_size(&f.mm, addr, addr + c[i].len,
						    c[i].pa >> c[i].ps, c[i].max_shift);
		if (got != c[i].want)
			fprintf(stderr, "  map_size case %zu\n", i);
		TEST_ASSERT_EQ("arch_vmap_pte_range_map_size", got, c[i].want);
		EXPECT("map_size counts nothing", &f.st);
		fx_release(&f);
	}

	/* arch_vmap_pte_supported_shift() */
	{
		struct arm64_mm_opts on = { .initial_empty = true, .vmap_cont = true };
		struct fx f;

		if (fx_init(&f, 12, 48, &on))
			return;
		TEST_ASSERT_EQ("supported_shift 64K", arm64_vmap_pte_supported_shift(&f.mm, 64 * KiB), 16);
		TEST_ASSERT_EQ("supported_shift 1M", arm64_vmap_pte_supported_shift(&f.mm, 1 * MiB), 16);
		TEST_ASSERT_EQ("supported_shift 60K", arm64_vmap_pte_supported_shift(&f.mm, 60 * KiB), 12);
		f.mm.o.vmap_cont = false;
		TEST_ASSERT_EQ("supported_shift off", arm64_vmap_pte_supported_shift(&f.mm, 1 * MiB), 12);
		fx_release(&f);
	}
}

int main(void)
{
	test_prot_bits();
	test_pa_roundtrip();
	test_written_descriptors();
	test_set_pte_at();
	test_num_contig_ptes();
	test_make_huge_pte();
	test_set_huge_pte_at();
	test_set_huge_pte_at_sizes();
	test_set_huge_pte_at_bbm_and_invalid();
	test_populate();
	test_set_huge_block();
	test_free_lower_table();
	test_clear_huge();
	test_get_and_clear();
	test_flush_tlb_kernel_range();
	test_vmap_map_size();
	return test_result("test-arm64-pgtable");
}
