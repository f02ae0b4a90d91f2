/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VT_SUGGEST_H
#define VT_SUGGEST_H

#include <stddef.h>

/*
 * The one of @cands (@n of them, NULL entries skipped) closest to @word by
 * edit distance with transpositions, when it is close enough to be a typo
 * (at most 2 edits and fewer than half the word; a prefix of three letters
 * or more counts as one); of two as close, the one @word begins.  NULL
 * when none is.
 */
const char *vt_suggest(const char *word, const char *const *cands, size_t n);

#endif
