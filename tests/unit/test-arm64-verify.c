// SPDX-License-Identifier: GPL-2.0
/*
 * The verifier (arm64_translate(), arm64_check_cont()): tables are built by
 * hand through the model's API (arm64_mm_init, arm64_populate at each
 * depth, then descriptors written directly), then walked.  Deliberately
 * broken tables must be caught.
 */
#include <errno.h>
#include <string.h>

#include "arch/arm64/arm64.h"
#include "test.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

#define PAGE_KERNEL	0x0068000000000703ull
#define BLOCK_KERNEL	0x0068000000000701ull

struct fx {
	struct arm64_mm mm;
	struct arm64_counters st;
};

static int fx_init(struct fx *f, unsigned int ps, unsigned int va)
{
	struct arm64_mm_opts o = { .initial_empty = true };
	int err = arm64_mm_init(&f->mm, ps, va, &o);

	memset(&f->st, 0, sizeof(f->st));
	f->mm.st = &f->st;
	TEST_ASSERT_EQ("arm64_mm_init", err, 0);
	return err;
}

/* The entry at @depth covering @va; tables above it populated on demand. */
static uint64_t *entry_at(struct fx *f, uint64_t va, int depth)
{
	struct arm64_mm *mm = &f->mm;
	uint32_t id = mm->pgd;

	for (int d = 0; d < depth; d++) {
		uint64_t *p = &mm->tbl[id][arm64_index(&mm->g, d, va)];

		if (!*p && arm64_populate(mm, d, p))
			return NULL;
		if (!arm64_desc_table(*p))
			return NULL;
		id = arm64_desc_table_id(mm, *p);
		if (id == UINT32_MAX)
			return NULL;
	}
	/* a PTE table starts as runs: the pointer primitives need its array */
	return &arm64_table_mut(mm, id)[arm64_index(&mm->g, depth, va)];
}

static int xlat(struct fx *f, uint64_t va, struct arm64_xlat *x)
{
	memset(x, 0xa5, sizeof(*x));
	return arm64_translate(&f->mm, va, x);
}

/* ---- arm64_translate() ---------------------------------------------------- */

static void test_translate_4k(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	struct arm64_xlat x;
	uint64_t base, *pte, *pmd, *pud, *pgd;

	if (fx_init(&f, 12, 48))
		return;
	base = mm->g.vmalloc_start;

	/* empty tree: fault at the top */
	TEST_ASSERT_EQ("empty: fault", (long long)xlat(&f, base, &x), (long long)-EFAULT);

	/* page descriptor */
	pte = entry_at(&f, base, 3);
	TEST_ASSERT_VAL("tables", pte != NULL);
	if (!pte)
		goto out;
	TEST_ASSERT_EQ("tables allocated by populate", f.st.c[ARM64_C_tables_allocated], 3);
	TEST_ASSERT_EQ("table present, PTE none: fault", (long long)xlat(&f, base, &x),
		       (long long)-EFAULT);
	pte[0] = 0x80000000ull | PAGE_KERNEL;
	TEST_ASSERT_EQ("page: ok", xlat(&f, base + 0x123, &x), 0);
	TEST_ASSERT_EQ("page pa", x.pa, 0x80000123ull);
	TEST_ASSERT_EQ("page depth", x.depth, 3);
	TEST_ASSERT_EQ("page desc", x.desc, 0x80000000ull | PAGE_KERNEL);
	TEST_ASSERT_EQ("page not cont", x.cont, 0);
	TEST_ASSERT_EQ("next page: fault", (long long)xlat(&f, base + 4096, &x),
		       (long long)-EFAULT);

	/* CONT page descriptors */
	for (int i = 0; i < 16; i++)
		pte[16 + i] = (0x90000000ull + (uint64_t)i * 4096) | PAGE_KERNEL | PTE_CONT;
	TEST_ASSERT_EQ("cont: ok", xlat(&f, base + 20 * 4096 + 8, &x), 0);
	TEST_ASSERT_EQ("cont pa", x.pa, 0x90004008ull);
	TEST_ASSERT_EQ("cont flag", x.cont, 1);
	TEST_ASSERT_EQ("cont depth", x.depth, 3);

	/* invalid entry with attributes: fault */
	pte[40] = (0x80000000ull | PAGE_KERNEL) & ~PTE_VALID;
	TEST_ASSERT_EQ("invalid pte: fault", (long long)xlat(&f, base + 40 * 4096, &x),
		       (long long)-EFAULT);
	/* a "block" (0b01) at level 3 is reserved: fault */
	pte[41] = 0x80000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("0b01 at level 3: fault", (long long)xlat(&f, base + 41 * 4096, &x),
		       (long long)-EFAULT);

	/* PMD block (2 MiB) */
	pmd = entry_at(&f, base + 2 * MiB, 2);
	*pmd = 0x40200000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("pmd block: ok", xlat(&f, base + 2 * MiB + 0x12345, &x), 0);
	TEST_ASSERT_EQ("pmd block pa", x.pa, 0x40212345ull);
	TEST_ASSERT_EQ("pmd block depth", x.depth, 2);
	TEST_ASSERT_EQ("pmd block desc", x.desc, 0x40200000ull | BLOCK_KERNEL);
	TEST_ASSERT_EQ("pmd block last byte", (xlat(&f, base + 4 * MiB - 1, &x), x.pa),
		       0x403fffffull);
	/* CONT PMD block */
	pmd = entry_at(&f, base + 4 * MiB, 2);
	*pmd = 0x40400000ull | BLOCK_KERNEL | PTE_CONT;
	TEST_ASSERT_EQ("cont pmd block", xlat(&f, base + 4 * MiB + 5, &x), 0);
	TEST_ASSERT_VAL("cont pmd block cont", x.cont && x.depth == 2 && x.pa == 0x40400005ull);

	/* PUD block (1 GiB, 4K only) */
	pud = entry_at(&f, base + 1 * GiB, 1);
	*pud = 0xc0000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("pud block: ok", xlat(&f, base + 1 * GiB + 0x3456789, &x), 0);
	TEST_ASSERT_EQ("pud block pa", x.pa, 0xc3456789ull);
	TEST_ASSERT_EQ("pud block depth", x.depth, 1);

	/* a block at level 0 (PGD of 4K/48) cannot exist: fault */
	pgd = entry_at(&f, 0xffff008000000000ull, 0);
	*pgd = 0x8000000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("block at L0: fault", (long long)xlat(&f, 0xffff008000001000ull, &x),
		       (long long)-EFAULT);
	/* a table descriptor that points at no table of ours: fault */
	pud = entry_at(&f, base + 2 * GiB, 1);
	*pud = 0x12345000ull | 0x1000000000000403ull;
	TEST_ASSERT_EQ("dangling table: fault", (long long)xlat(&f, base + 2 * GiB, &x),
		       (long long)-EFAULT);
	/* invalid PMD entry */
	pmd = entry_at(&f, base + 6 * MiB, 2);
	*pmd = (0x40600000ull | BLOCK_KERNEL) & ~PTE_VALID;
	TEST_ASSERT_EQ("invalid pmd: fault", (long long)xlat(&f, base + 6 * MiB, &x),
		       (long long)-EFAULT);
out:
	arm64_mm_release(mm);
}

/* Blocks where the granule forbids them, and 2/5-level walks. */
static void test_translate_geometries(void)
{
	struct fx f;
	struct arm64_xlat x;
	uint64_t base, *e;

	/* 16K/48: no PUD (level-1) blocks; PMD blocks are 32 MiB */
	if (fx_init(&f, 14, 48))
		return;
	base = f.mm.g.vmalloc_start;
	e = entry_at(&f, base, 1);
	*e = 0x1000000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("16K level-1 block: fault", (long long)xlat(&f, base, &x),
		       (long long)-EFAULT);
	e = entry_at(&f, base + 64 * GiB, 2);
	*e = 0x42000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("16K pmd block", xlat(&f, base + 64 * GiB + 0x1234567, &x), 0);
	TEST_ASSERT_VAL("16K pmd block pa", x.pa == 0x43234567ull && x.depth == 2);
	e = entry_at(&f, base + 128 * GiB, 3);
	*e = 0x4000ull * 5 | PAGE_KERNEL;
	TEST_ASSERT_EQ("16K page", xlat(&f, base + 128 * GiB + 0x3ff0, &x), 0);
	TEST_ASSERT_EQ("16K page pa", x.pa, 0x17ff0ull);
	arm64_mm_release(&f.mm);

	/* 64K/42: two levels, the PMD (512 MiB) is the top table */
	if (fx_init(&f, 16, 42))
		return;
	base = f.mm.g.vmalloc_start;
	e = entry_at(&f, base, 0);
	*e = 0x20000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("64K/42 top block", xlat(&f, base + 0x1234567, &x), 0);
	TEST_ASSERT_VAL("64K/42 top block pa", x.pa == 0x21234567ull && x.depth == 0);
	e = entry_at(&f, base + 512 * MiB, 1);
	*e = 0x30000ull | PAGE_KERNEL;
	TEST_ASSERT_EQ("64K/42 page", xlat(&f, base + 512 * MiB + 0xfff8, &x), 0);
	TEST_ASSERT_VAL("64K/42 page pa", x.pa == 0x3fff8ull && x.depth == 1);
	arm64_mm_release(&f.mm);

	/* 4K/52 (LPA2): five levels and a PA above 2^50 */
	if (fx_init(&f, 12, 52))
		return;
	base = f.mm.g.vmalloc_start;
	e = entry_at(&f, base, 4);
	TEST_ASSERT_VAL("5 levels", e != NULL);
	if (e) {
		*e = arm64_pa_to_desc(&f.mm.g, (3ull << 50) | 0x7000) | 0x0068000000000403ull;
		TEST_ASSERT_EQ("LPA2 page", xlat(&f, base + 0x10, &x), 0);
		TEST_ASSERT_EQ("LPA2 page pa", x.pa, (3ull << 50) | 0x7010);
		TEST_ASSERT_EQ("LPA2 depth", x.depth, 4);
	}
	e = entry_at(&f, base + 1 * GiB, 2);
	if (e) {
		*e = arm64_pa_to_desc(&f.mm.g, (1ull << 50) | (5ull << 30)) |
		     0x0068000000000401ull;
		TEST_ASSERT_EQ("LPA2 pud block", xlat(&f, base + 1 * GiB + 0x99, &x), 0);
		TEST_ASSERT_EQ("LPA2 pud block pa", x.pa, (1ull << 50) | (5ull << 30) | 0x99);
	}
	/* level 0 (the P4D of a 5-level build) holds no blocks */
	e = entry_at(&f, base + 512 * GiB, 1);
	if (e) {
		*e = (512 * GiB) | 0x0068000000000401ull;
		TEST_ASSERT_EQ("LPA2 L0 block: fault", (long long)xlat(&f, base + 512 * GiB, &x),
			       (long long)-EFAULT);
	}
	arm64_mm_release(&f.mm);
}

/* ---- arm64_check_cont() --------------------------------------------------- */

/* Fill CONT group @g (16 entries) of @pte with PA @pa and attributes @attr. */
static void cont_group(uint64_t *pte, int g, uint64_t pa, uint64_t attr)
{
	for (int i = 0; i < 16; i++)
		pte[g * 16 + i] = (pa + (uint64_t)i * 4096) | attr | PTE_CONT;
}

static void test_check_cont(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	uint64_t base, *pte, first, bad;
	struct arm64_xlat x;

	if (fx_init(&f, 12, 48))
		return;
	base = mm->g.vmalloc_start;
	pte = entry_at(&f, base, 3);
	if (!pte)
		goto out;

	/* group 0: correct; group 1: plain pages (not CONT, not checked) */
	cont_group(pte, 0, 0x80000000ull, PAGE_KERNEL);
	for (int i = 0; i < 16; i++)
		pte[16 + i] = (0x81000000ull + (uint64_t)i * 4096) | PAGE_KERNEL;
	first = 0xdead;
	TEST_ASSERT_EQ("correct group passes", arm64_check_cont(mm, base, base + 2 * MiB, &first), 0);
	TEST_ASSERT_EQ("first_va untouched", first, 0xdead);

	/* group 2: half set (8 CONT entries, 8 none) */
	for (int i = 0; i < 8; i++)
		pte[32 + i] = (0x82000000ull + (uint64_t)i * 4096) | PAGE_KERNEL | PTE_CONT;
	bad = arm64_check_cont(mm, base, base + 2 * MiB, &first);
	TEST_ASSERT_EQ("half-set group caught", bad, 1);
	TEST_ASSERT_EQ("half-set first_va", first, base + 2 * 64 * KiB);

	/* group 3: half CONT, half plain valid pages */
	for (int i = 0; i < 16; i++)
		pte[48 + i] = (0x83000000ull + (uint64_t)i * 4096) | PAGE_KERNEL |
			      (i < 8 ? PTE_CONT : 0);
	bad = arm64_check_cont(mm, base + 3 * 64 * KiB, base + 4 * 64 * KiB, &first);
	TEST_ASSERT_EQ("CONT + plain mix caught", bad, 1);
	TEST_ASSERT_EQ("mix first_va", first, base + 3 * 64 * KiB);
	/* only the last entry CONT: still a group */
	for (int i = 0; i < 16; i++)
		pte[48 + i] = (0x83000000ull + (uint64_t)i * 4096) | PAGE_KERNEL |
			      (i == 15 ? PTE_CONT : 0);
	TEST_ASSERT_EQ("lone CONT entry caught",
		       arm64_check_cont(mm, base + 3 * 64 * KiB, base + 4 * 64 * KiB, NULL), 1);

	/* group 4: wrong (non-contiguous) address in the middle */
	cont_group(pte, 4, 0x84000000ull, PAGE_KERNEL);
	pte[64 + 9] = 0x84100000ull | PAGE_KERNEL | PTE_CONT;
	TEST_ASSERT_EQ("non-contiguous caught",
		       arm64_check_cont(mm, base + 4 * 64 * KiB, base + 5 * 64 * KiB, &first), 1);
	TEST_ASSERT_EQ("non-contiguous first_va", first, base + 4 * 64 * KiB);
	/* ...and two entries swapped */
	cont_group(pte, 4, 0x84000000ull, PAGE_KERNEL);
	pte[64 + 2] = (0x84000000ull + 3 * 4096) | PAGE_KERNEL | PTE_CONT;
	pte[64 + 3] = (0x84000000ull + 2 * 4096) | PAGE_KERNEL | PTE_CONT;
	TEST_ASSERT_EQ("swapped entries caught",
		       arm64_check_cont(mm, base + 4 * 64 * KiB, base + 5 * 64 * KiB, NULL), 1);

	/* group 5: contiguous but the PA is not CONT_PTE_SIZE aligned */
	cont_group(pte, 5, 0x85001000ull, PAGE_KERNEL);
	TEST_ASSERT_EQ("misaligned PA caught",
		       arm64_check_cont(mm, base + 5 * 64 * KiB, base + 6 * 64 * KiB, NULL), 1);

	/* group 6: a correct group shifted by one slot (VA-misaligned): the
	 * aligned window sees a non-CONT first entry */
	for (int i = 0; i < 16; i++)
		pte[96 + 1 + i] = (0x86000000ull + (uint64_t)i * 4096) | PAGE_KERNEL | PTE_CONT;
	TEST_ASSERT_EQ("VA-misaligned group caught",
		       arm64_check_cont(mm, base + 6 * 64 * KiB, base + 8 * 64 * KiB, NULL), 2);

	/* group 8: mixed attributes (one entry read-only) */
	cont_group(pte, 8, 0x88000000ull, PAGE_KERNEL);
	pte[128 + 5] = (pte[128 + 5] & ~PTE_WRITE) | PTE_RDONLY;
	TEST_ASSERT_EQ("mixed attributes caught",
		       arm64_check_cont(mm, base + 8 * 64 * KiB, base + 9 * 64 * KiB, NULL), 1);
	/* ...or a different memory type */
	cont_group(pte, 8, 0x88000000ull, PAGE_KERNEL);
	pte[128 + 15] |= PTE_ATTRINDX(MT_DEVICE_nGnRE);
	TEST_ASSERT_EQ("mixed memory type caught",
		       arm64_check_cont(mm, base + 8 * 64 * KiB, base + 9 * 64 * KiB, NULL), 1);
	/* repaired: passes */
	cont_group(pte, 8, 0x88000000ull, PAGE_KERNEL);
	TEST_ASSERT_EQ("repaired group passes",
		       arm64_check_cont(mm, base + 8 * 64 * KiB, base + 9 * 64 * KiB, NULL), 0);
	/* a correct device group passes */
	cont_group(pte, 9, 0x89000000ull, 0x0068000000000713ull);
	TEST_ASSERT_EQ("device group passes",
		       arm64_check_cont(mm, base + 9 * 64 * KiB, base + 10 * 64 * KiB, NULL), 0);

	/* the whole PTE table: groups 2, 3, 4, 5, 6, 7 broken; first is 2 */
	bad = arm64_check_cont(mm, base, base + 2 * MiB, &first);
	TEST_ASSERT_EQ("broken groups in the table", bad, 6);
	TEST_ASSERT_EQ("first broken group", first, base + 2 * 64 * KiB);
	/* a range starting mid-group checks the whole aligned group */
	TEST_ASSERT_EQ("unaligned start rounds down",
		       arm64_check_cont(mm, base + 2 * 64 * KiB + 4096,
					base + 2 * 64 * KiB + 8192, NULL), 1);

	/* groups written by the model's own set_huge_pte_at() pass */
	{
		uint64_t *p2 = entry_at(&f, base + 2 * MiB, 3);

		for (int g = 0; g < 32; g++)
			arm64_set_huge_pte_at(mm, base + 2 * MiB + (uint64_t)g * 64 * KiB,
					      p2 + g * 16,
					      arm64_make_huge_pte(mm, (0xa0000000ull +
						      (uint64_t)g * 64 * KiB) | PAGE_KERNEL, 16),
					      64 * KiB);
		TEST_ASSERT_EQ("set_huge_pte_at groups pass",
			       arm64_check_cont(mm, base + 2 * MiB, base + 4 * MiB, NULL), 0);
		TEST_ASSERT_EQ("and translate", xlat(&f, base + 3 * MiB + 0x10, &x), 0);
		TEST_ASSERT_EQ("set_huge_pte_at pa", x.pa, 0xa0100010ull);
	}
out:
	arm64_mm_release(mm);
}

/* 16K: CONT groups are 128 entries */
static void test_check_cont_16k(void)
{
	struct fx f;
	uint64_t base, *pte;

	if (fx_init(&f, 14, 48))
		return;
	base = f.mm.g.vmalloc_start;
	pte = entry_at(&f, base, 3);
	if (pte) {
		for (int i = 0; i < 128; i++)
			pte[i] = (0x80000000ull + (uint64_t)i * 16384) | PAGE_KERNEL | PTE_CONT;
		TEST_ASSERT_EQ("16K group passes",
			       arm64_check_cont(&f.mm, base, base + 2 * MiB, NULL), 0);
		pte[127] = 0;
		TEST_ASSERT_EQ("16K group missing last entry",
			       arm64_check_cont(&f.mm, base, base + 2 * MiB, NULL), 1);
	}
	arm64_mm_release(&f.mm);
}

/* ---- findings the replay verifier relies on ----------------------------- */

/* A mapping to the wrong page is visible: translate returns the PA that was
 * written, not the one intended. */
static void test_wrong_address(void)
{
	struct fx f;
	struct arm64_xlat x;
	uint64_t base, *pte, intended = 0x80005000ull;
	uint64_t mismapped = 0;

	if (fx_init(&f, 12, 48))
		return;
	base = f.mm.g.vmalloc_start;
	pte = entry_at(&f, base, 3);
	if (!pte)
		goto out;
	for (int i = 0; i < 8; i++)
		arm64_set_pte_at(&f.mm, &pte[i], (intended + (uint64_t)i * 4096) | PAGE_KERNEL);
	/* the bug: slot 5 gets the PFN of slot 6 */
	pte[5] = (intended + 6 * 4096) | PAGE_KERNEL;
	for (int i = 0; i < 8; i++) {
		TEST_ASSERT_EQ("translates", xlat(&f, base + (uint64_t)i * 4096, &x), 0);
		if (x.pa != intended + (uint64_t)i * 4096)
			mismapped++;
	}
	TEST_ASSERT_EQ("one page mismapped", mismapped, 1);
	TEST_ASSERT_EQ("slot 5 translation", (xlat(&f, base + 5 * 4096, &x), x.pa),
		       intended + 6 * 4096);
out:
	arm64_mm_release(&f.mm);
}

/* A PMD block written where a PTE table was expected shadows the table:
 * translate returns the block's PA. */
static void test_overlapping_block(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	struct arm64_xlat x;
	uint64_t base, *pte, *pmd, table;

	if (fx_init(&f, 12, 48))
		return;
	base = mm->g.vmalloc_start + 8 * MiB;
	pte = entry_at(&f, base, 3);
	if (!pte)
		goto out;
	for (int i = 0; i < 512; i++)
		arm64_set_pte_at(mm, &pte[i], (0x80000000ull + (uint64_t)i * 4096) | PAGE_KERNEL);
	TEST_ASSERT_EQ("via the table", (xlat(&f, base + 7 * 4096, &x), x.pa),
		       0x80007000ull);
	pmd = entry_at(&f, base, 2);
	table = *pmd;
	/* pmd_set_huge() refuses to replace a live table ... */
	TEST_ASSERT_EQ("set_huge_block over a table refused",
		       arm64_set_huge_block(mm, 2, pmd, 0x40000000ull, PAGE_KERNEL), 0);
	TEST_ASSERT_EQ("table kept", *pmd, table);
	/* ... but a buggy walker that stores the block anyway shadows it */
	*pmd = 0x40000000ull | BLOCK_KERNEL;
	TEST_ASSERT_EQ("overlap: translates", xlat(&f, base + 7 * 4096, &x), 0);
	TEST_ASSERT_EQ("overlap: block pa, not the table's page", x.pa, 0x40007000ull);
	TEST_ASSERT_EQ("overlap: leaf at the PMD", x.depth, 2);
	TEST_ASSERT_VAL("overlap: differs from the intended page", x.pa != 0x80007000ull);

	/* the proper sequence: pmd_free_pte_page() then the block */
	*pmd = table;
	TEST_ASSERT_EQ("free table", arm64_free_lower_table(mm, 2, pmd, base), 1);
	TEST_ASSERT_EQ("block after free",
		       arm64_set_huge_block(mm, 2, pmd, 0x40000000ull, PAGE_KERNEL), 1);
	TEST_ASSERT_EQ("block pa", (xlat(&f, base + 0x1fffff, &x), x.pa), 0x401fffffull);
out:
	arm64_mm_release(mm);
}

/*
 * arm64_check_cont() skips the range of a PMD entry with no PTE table (a
 * block, or nothing) and a run table none of whose runs is CONT, and goes
 * on at the next PMD entry: [block][plain run table][CONT run table with a
 * misaligned group][nothing][array with a broken group] from mid-block.
 */
static void test_check_cont_skips(void)
{
	struct fx f;
	struct arm64_mm *mm = &f.mm;
	uint64_t base, *pmd, *pte, first = 0;
	uint32_t id[2];

	if (fx_init(&f, 12, 48))
		return;
	base = mm->g.vmalloc_start + 16 * MiB;
	pmd = entry_at(&f, base, 2);
	if (!pmd)
		goto out;
	TEST_ASSERT_EQ("block", arm64_set_huge_block(mm, 2, pmd, 0x40000000ull, PAGE_KERNEL), 1);
	for (int t = 0; t < 2; t++) {
		pmd = entry_at(&f, base + (uint64_t)(t + 1) * 2 * MiB, 2);
		if (!pmd || arm64_populate(mm, 2, pmd))
			goto out;
		id[t] = arm64_desc_table_id(mm, *pmd);
		TEST_ASSERT_VAL("a run table", arm64_is_run_table(mm, id[t]));
	}
	/* table 1: 512 plain pages, one run; table 2: CONT groups 0-7, the
	 * PA of groups 5-7 one page off CONT alignment */
	for (int i = 0; i < 512; i++)
		arm64_tbl_set_pte_at(mm, id[0], (uint64_t)i,
				     (0x90000000ull + (uint64_t)i * 4096) | PAGE_KERNEL);
	arm64_tbl_set_huge_ptes(mm, id[1], 0, base + 4 * MiB,
				arm64_make_huge_pte(mm, 0xa0000000ull | PAGE_KERNEL, 16),
				64 * KiB, 5);
	arm64_tbl_set_huge_ptes(mm, id[1], 80, base + 4 * MiB + 5 * 64 * KiB,
				arm64_make_huge_pte(mm, 0xb0001000ull | PAGE_KERNEL, 16),
				64 * KiB, 3);
	TEST_ASSERT_VAL("still runs", arm64_is_run_table(mm, id[0]) &&
				      arm64_is_run_table(mm, id[1]));
	pte = entry_at(&f, base + 8 * MiB, 3);	/* nothing at base + 6 MiB */
	if (!pte)
		goto out;
	cont_group(pte, 2, 0x85001000ull, PAGE_KERNEL);	/* misaligned */
	TEST_ASSERT_EQ("three misaligned, one past the gap",
		       arm64_check_cont(mm, base + 64 * KiB, base + 10 * MiB, &first), 4);
	TEST_ASSERT_EQ("the first after the block and the plain table", first,
		       base + 4 * MiB + 5 * 64 * KiB);
	TEST_ASSERT_EQ("past the gap",
		       arm64_check_cont(mm, base + 5 * MiB, base + 10 * MiB, &first), 1);
	TEST_ASSERT_EQ("its group", first, base + 8 * MiB + 2 * 64 * KiB);
	TEST_ASSERT_EQ("the block and the plain table alone",
		       arm64_check_cont(mm, base, base + 4 * MiB, NULL), 0);
out:
	arm64_mm_release(mm);
}

int main(void)
{
	test_translate_4k();
	test_translate_geometries();
	test_check_cont();
	test_check_cont_16k();
	test_check_cont_skips();
	test_wrong_address();
	test_overlapping_block();
	return test_result("test-arm64-verify");
}
