// SPDX-License-Identifier: GPL-2.0
/*
 * TLB maintenance of arch/arm64/include/asm/tlbflush.h (linux-mm/linux-mm
 * @ 3c9e86d84801): flush_tlb_kernel_range() with
 * __flush_tlb_range_limit_excess() and __flush_tlb_range_op(),
 * flush_tlb_all(), __flush_tlb_kernel_pgtable().  Counts instructions.
 */
#include "arch/arm64/arm64.h"

#define ST(mm, x) ARM64_COUNT((mm)->st, x)

/* MAX_TLBI_RANGE_PAGES = __TLBI_RANGE_PAGES(31, 3) = 32 << 16 */
#define MAX_TLBI_RANGE_PAGES (32ull << 16)

uint64_t arm64_tlbi_range_count(const struct arm64_mm *mm, uint64_t start,
				uint64_t pages, bool *full)
{
	uint64_t n = 0;
	int scale = 3;

	/* v6.12: "if ((end - start) > (MAX_DVM_OPS * PAGE_SIZE))
	 * flush_tlb_all()", else one vaale1is per page, range ops or not
	 * (android-common 6.12.30 arch/arm64/include/asm/tlbflush.h) */
	if (mm->o.flush_per_page) {
		*full = pages > mm->g.ptrs_per_pte;
		return *full ? 1 : pages;
	}
	if (mm->o.tlbi_range ? pages > MAX_TLBI_RANGE_PAGES
			     : pages >= mm->g.ptrs_per_pte) {
		*full = true;
		return 1;
	}
	*full = false;
	if (!mm->o.tlbi_range)
		return pages;
	/* __flush_tlb_range_op(): with LPA2, single ops until 64K aligned */
	while (pages > 0) {
		if (pages == 1 ||
		    (mm->g.lpa2 && (start & ((64ull << 10) - 1)))) {
			n++;
			start += mm->g.page_size;
			pages--;
			continue;
		}
		/* __TLBI_RANGE_NUM(pages, scale): up to 32 units of 2^(5s+1) */
		uint64_t unit = 1ull << (5 * scale + 1);
		uint64_t num = pages / unit;

		if (num > 32)
			num = 32;
		if (num) {
			n++;
			start += (num * unit) << mm->g.page_shift;
			pages -= num * unit;
		}
		scale--;
	}
	return n;
}

void arm64_flush_tlb_all(struct arm64_mm *mm)
{
	ST(mm, dsb)++;
	ST(mm, dsb_ishst)++;
	ST(mm, tlbi)++;
	ST(mm, tlbi_vmalle1is)++;
	ST(mm, dsb)++;
	ST(mm, dsb_ish)++;
	ST(mm, isb)++;
}

void arm64_flush_tlb_kernel_range(struct arm64_mm *mm, uint64_t start, uint64_t end)
{
	uint64_t ps = mm->g.page_size, pages, n, singles = 0;
	bool full;

	start &= ~(ps - 1);
	end = (end + ps - 1) & ~(ps - 1);
	pages = (end - start) >> mm->g.page_shift;
	n = arm64_tlbi_range_count(mm, start, pages, &full);
	if (full) {
		arm64_flush_tlb_all(mm);
		return;
	}
	ST(mm, dsb)++;
	ST(mm, dsb_ishst)++;
	if (!mm->o.tlbi_range || mm->o.flush_per_page) {
		singles = n;
	} else {
		/* split the count into single and range ops */
		uint64_t p = pages, s = start;
		int scale = 3;

		while (p > 0) {
			if (p == 1 || (mm->g.lpa2 && (s & ((64ull << 10) - 1)))) {
				singles++;
				s += ps;
				p--;
				continue;
			}
			uint64_t unit = 1ull << (5 * scale + 1), num = p / unit;

			if (num > 32)
				num = 32;
			if (num) {
				s += (num * unit) << mm->g.page_shift;
				p -= num * unit;
			}
			scale--;
		}
	}
	ST(mm, tlbi) += n;
	ST(mm, tlbi_vaale1is) += singles;
	ST(mm, tlbi_rvaale1is) += n - singles;
	ST(mm, dsb)++;
	ST(mm, dsb_ish)++;
	ST(mm, isb)++;
}

void arm64___flush_tlb_kernel_pgtable(struct arm64_mm *mm, uint64_t addr)
{
	(void)addr;
	ST(mm, dsb)++;
	ST(mm, dsb_ishst)++;
	ST(mm, tlbi)++;
	ST(mm, tlbi_vaae1is)++;
	ST(mm, dsb)++;
	ST(mm, dsb_ish)++;
	ST(mm, isb)++;
}
