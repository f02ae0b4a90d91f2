/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driving an engine event by event in the unit tests that count its work
 * (test-complexity-holes, test-complexity-verify): an engine of the
 * mainline strategy, an event that must apply, a vmalloc or vfree of one
 * numeric id.  Any failure ends the test.
 */
#ifndef VT_TEST_ENGINE_RUN_H
#define VT_TEST_ENGINE_RUN_H

#include "core/mm/engine.h"
#include "test.h"

static inline struct vt_engine *test_engine_new(const struct vt_model_opts *o)
{
	struct vt_strategy_spec spec;
	struct vt_engine *e;
	struct vt_error err;

	vt_error_init(&err);
	if (vt_strategy_parse("mainline", &spec, &err) || vt_engine_new(&spec, o, &e)) {
		fprintf(stderr, "engine: %s\n", err.msg);
		exit(TEST_FAIL);
	}
	return e;
}

static inline void test_apply(struct vt_engine *e, long index, struct vt_event *ev)
{
	struct vt_error err;
	uint64_t va;

	vt_error_init(&err);
	if (vt_engine_apply(e, index, ev, &va, &err)) {
		fprintf(stderr, "event %ld: %s\n", index, err.msg);
		exit(TEST_FAIL);
	}
}

/* Event *@index (then the next) of @op (VT_OP_VMALLOC of @size bytes, or
 * VT_OP_VFREE) on id @id. */
static inline void test_id_op(struct vt_engine *e, long *index, enum vt_op op,
			      uint64_t id, uint64_t size)
{
	struct vt_event ev = { .op = op, .cpu = -1, .size = size };

	ev.id.present = true;
	ev.id.num = id;
	test_apply(e, (*index)++, &ev);
}

#endif
