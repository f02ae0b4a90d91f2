/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The strategy registry: one line per strategy, in listing order.  A
 * strategy NAME is the object vt_strategy_NAME defined in
 * core/strategy/NAME.c; adding one is that file plus one line here
 * (docs/architecture.md, "Adding a strategy").
 */
#ifndef VT_STRATEGY_REGISTRY_H
#define VT_STRATEGY_REGISTRY_H

#define VT_STRATEGY_REGISTRY(X)	\
	X(pagewise)		\
	X(zigzag)		\
	X(batched)		\
	X(batched_v2)		\
	X(segments)

/* The default --strategy list: every registered strategy with
 * in_default, comma-separated, in registry order. */
const char *vt_strategy_default_list(void);

#endif
