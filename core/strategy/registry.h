/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The strategy registry: one line per strategy, in listing order.  A
 * strategy NAME is the object vt_strategy_NAME defined in
 * core/strategy/NAME.c; adding one is that file plus one line here
 * (docs/architecture.md, "Adding a strategy").
 */
#ifndef VT_STRATEGY_REGISTRY_H
#define VT_STRATEGY_REGISTRY_H

#include <stdbool.h>

#define VT_STRATEGY_REGISTRY(X)	\
	X(pagewise)		\
	X(zigzag)		\
	X(batched)		\
	X(batched_v2)		\
	X(segments)

/* The default --strategy list: every registered strategy with
 * in_default, comma-separated, in registry order. */
const char *vt_strategy_default_list(void);

/* The strategy that models the kernel as shipped: the one registered
 * with the alias "mainline" (ptdump's default). */
const char *vt_strategy_mainline(void);

/* The strategies that have an ablation set, quoted and joined by " or "
 * ("'batched'"). */
const char *vt_strategy_ablation_names(void);

/* compare --ablation: @list (comma-separated) with every name written
 * exactly as a strategy that has an ablation set replaced by that set;
 * *@found says whether one was.  Returns a malloc()ed string, NULL when
 * out of memory. */
char *vt_strategy_expand_ablation(const char *list, bool *found);

#endif
