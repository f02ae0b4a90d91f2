// SPDX-License-Identifier: GPL-2.0
/*
 * "Did you mean ...?": the candidate with the smallest edit distance (git's
 * help.c uses the same idea with Damerau-Levenshtein), when it is close
 * enough to be a typo.  core/ for the names a trace holds (an op, a flag),
 * cli/ for commands, strategies, metrics and options.
 */
#include <stddef.h>
#include <string.h>

#include "core/suggest.h"

/* Levenshtein distance with adjacent transpositions (optimal string
 * alignment); words longer than 63 bytes are never close. */
static unsigned int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int d[64][64];

	if (la > 63 || lb > 63)
		return 1000;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned int c = a[i - 1] != b[j - 1];
			unsigned int v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + c < v)
				v = d[i - 1][j - 1] + c;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *vt_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned int bd = 1000;
	size_t lw = strlen(word);

	for (size_t i = 0; i < n; i++) {
		unsigned int d;

		if (!cands[i])
			continue;
		d = distance(word, cands[i]);
		/* a prefix of at least 3 letters is as good as one typo */
		if (lw >= 3 && !strncmp(cands[i], word, lw) && d > 1)
			d = 1;
		/* of two as close, one the word begins ('of': off, not on) */
		if (d < bd || (d == bd && best && strncmp(best, word, lw) &&
			       !strncmp(cands[i], word, lw))) {
			bd = d;
			best = cands[i];
		}
	}
	/* close: at most 2 edits, and fewer than half the word */
	return best && bd <= 2 && bd * 2 <= (lw > 2 ? lw : 2) ? best : NULL;
}
