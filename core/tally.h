/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-event accounting of a replay (core/replay.c): each event's
 * counts priced by the cost model (vt_cost_fill(), rounded per event so
 * that per-event lines add up to the totals) and added to the strategy's
 * totals and its op's row.
 *
 * Events of one shape -- the same op and the same nonzero counts, as most
 * events of a trace of small vmallocs are -- are priced once and tallied in
 * one slot with how many were seen; a slot is added to the results, that
 * many times over, when another shape takes its place and at
 * vt_tally_flush().  The results are exactly those of adding every event
 * in turn (uint64_t sums wrap alike), and the work per event follows the
 * counts it made (the touched bits of struct vt_stats), not the 70
 * metrics.
 */
#ifndef VT_TALLY_H
#define VT_TALLY_H

#include <stdbool.h>

#include "core/model.h"
#include "core/stats.h"

struct vt_profile;
struct vt_tally;

/* A tally pricing with @p (NULL: the cost metrics stay 0); NULL when out
 * of memory. */
struct vt_tally *vt_tally_new(const struct vt_profile *p);
void vt_tally_free(struct vt_tally *t);

/*
 * vt_tally_add() - count @s, one event of @op (its touched bits say which
 * counts it made), towards @r.  Unless @keep, @s is cleared; with @keep it
 * is left with its prices added, for the caller to read (--per-event) and
 * clear.  What is tallied reaches @r by vt_tally_flush() (or earlier).
 */
void vt_tally_add(struct vt_tally *t, struct vt_strategy_result *r, enum vt_op op,
		  struct vt_stats *s, bool keep);

/* Add everything tallied to @r: call before @r is read. */
void vt_tally_flush(struct vt_tally *t, struct vt_strategy_result *r);

#endif
