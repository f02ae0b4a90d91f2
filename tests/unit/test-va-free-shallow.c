// SPDX-License-Identifier: GPL-2.0
/*
 * unit/test-va-free with va_free.c's path limit at 3 nodes instead of
 * 128: every descent deeper than that takes the paths a tree deeper than
 * VA_PATH takes (the neighbours looked up again, erase and insert by
 * split and join, the recursive lowest fit), which a random treap of the
 * sizes the tests reach never does at 128.  The same comparison with the
 * reference must hold.
 */
#define VA_PATH 3
#include "core/mm/va_free.c"
#include "test-va-free.c"
