// SPDX-License-Identifier: GPL-2.0
/*
 * The free VA space (core/mm/va_free.c, the augmented treap that models
 * the kernel's free_vmap_area_root) with many holes (issue 22, item 1):
 * doubling the holes may cost at most 2.5 times the work, counted in
 * nodes of the tree visited (e->free.steps: deterministic, never wall
 * time), measured over four doublings (16 times the holes, at most 2.5^4
 * times the work; a quadratic search would cost 256 times): one doubling
 * alone measures the depth of one random path of the treap (the search
 * of an area longer than every hole descends to the top range, at a
 * depth of 7 in one tree and 10 in the next).  Shapes: N one-page vmallocs with every other one freed and
 * purged (N/2 holes of two pages, the area and its guard page), then N/2
 * vmallocs of three pages that fit no hole, then N/2 more of one page that
 * fit the holes from the lowest; and the same with the second round
 * asking for an alignment of 32 KiB that only every other hole meets, which a
 * subtree maximum alone cannot prune.
 */
#include "engine-run.h"

static uint64_t run(unsigned int n, uint64_t align)
{
	struct vt_model_opts o;
	struct vt_engine *e;
	uint64_t steps;
	long index = 0;

	vt_model_opts_init(&o);
	e = test_engine_new(&o);
	for (unsigned int i = 0; i < n; i++)
		test_id_op(e, &index, VT_OP_VMALLOC, i + 1, 4096);
	for (unsigned int i = 0; i < n; i += 2)
		test_id_op(e, &index, VT_OP_VFREE, i + 1, 0);
	{
		struct vt_event ev = { .op = VT_OP_PURGE, .cpu = -1 };

		test_apply(e, index++, &ev);
	}
	for (unsigned int i = 0; i < n; i++) {
		struct vt_event ev = { .op = VT_OP_VMALLOC, .cpu = -1,
				       .size = i < n / 2 ? 3 * 4096 : 4096,
				       .align = align };

		ev.id.present = true;
		ev.id.num = n + i + 1;
		test_apply(e, index++, &ev);
	}
	steps = e->free.steps;
	vt_engine_free(e);
	return steps;
}

int main(void)
{
	for (int k = 0; k < 2; k++) {
		uint64_t align = k ? 32768 : 0;
		unsigned int n = 4096;
		uint64_t a = run(n, align), b = run(16 * n, align);
		double ratio = (double)b / (double)a;

		printf("holes, align %llu: %u areas %llu steps, %u areas %llu steps: x%.2f\n",
		       (unsigned long long)align, n, (unsigned long long)a, 16 * n,
		       (unsigned long long)b, ratio);
		TEST_ASSERT_VAL("16 times the holes cost more than 2.5^4 times the work",
				ratio <= 2.5 * 2.5 * 2.5 * 2.5);
	}
	return test_result("test-complexity-holes");
}
