// SPDX-License-Identifier: GPL-2.0
/*
 * --verify's search for the areas an event wrote under (core/mm/verify.c,
 * written_areas()) with many live areas: the work of a vmalloc and vfree
 * pair may not grow with the number of areas live beside it, counted in
 * nodes of the live-area treap visited (e->vbusy.steps: deterministic,
 * never wall time).  Shape: L one-page vmallocs kept live, then 1,024
 * pairs of a one-page vmalloc and its vfree; L = 1,024 and 16,384.  The
 * old code tested every live area against the written ranges after each
 * event: 16 times the work for 16 times the areas.  The pairs must also
 * still be checked: every vmalloc and vfree finds its own area.
 */
#include "engine-run.h"

#define PAIRS 1024

static uint64_t run(unsigned int live)
{
	struct vt_model_opts o;
	struct vt_engine *e;
	uint64_t steps;
	long index = 0;

	vt_model_opts_init(&o);
	o.verify = true;
	e = test_engine_new(&o);
	for (unsigned int i = 0; i < live; i++)
		test_id_op(e, &index, VT_OP_VMALLOC, i + 1, 4096);
	steps = e->vbusy.steps;
	for (unsigned int i = 0; i < PAIRS; i++) {
		test_id_op(e, &index, VT_OP_VMALLOC, live + i + 1, 4096);
		TEST_ASSERT_VAL("the vmalloc's area was not checked",
				e->written.nr && e->vsort[0]->id.num == live + i + 1);
		test_id_op(e, &index, VT_OP_VFREE, live + i + 1, 0);
	}
	steps = e->vbusy.steps - steps;
	TEST_ASSERT_VAL("live areas left the index", e->nr_areas == live);
	vt_engine_free(e);
	return steps;
}

int main(void)
{
	unsigned int n = 1024;
	uint64_t a = run(n), b = run(16 * n);
	double ratio = (double)b / (double)a;

	printf("verify, %u pairs: %u live areas %llu steps, %u live areas %llu steps: x%.2f\n",
	       PAIRS, n, (unsigned long long)a, 16 * n, (unsigned long long)b, ratio);
	TEST_ASSERT_VAL("no work counted", a > 0);
	TEST_ASSERT_VAL("16 times the live areas cost more than 2 times the work",
			ratio <= 2.0);
	return test_result("test-complexity-verify");
}
