// SPDX-License-Identifier: GPL-2.0
/*
 * core/suggest.c: vt_suggest() names the closest candidate when it is a
 * likely typo (a transposition, a letter off, a prefix of three letters or
 * more), of two as close the one the word begins, and none for a word far
 * from every candidate, one longer than 63 bytes (the fuzz smoke found a
 * NULL compared there, when every distance was the cap), or no candidates.
 */
#include <string.h>

#include "core/suggest.h"
#include "test.h"

static void expect(const char *what, const char *word, const char *const *c,
		   size_t n, const char *want)
{
	const char *got = vt_suggest(word, c, n);

	if (!want)
		TEST_ASSERT_VAL(what, got == NULL);
	else
		TEST_ASSERT_VAL(what, got && !strcmp(got, want));
}

int main(void)
{
	static const char *const ops[] = { "vmalloc", "vfree", "vmap", "vunmap", NULL, "purge" };
	static const char *const onoff[] = { "on", "off" };
	char big[200];

	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	expect("a letter off", "vmaloc", ops, 6, "vmalloc");
	expect("a transposition", "vfere", ops, 6, "vfree");
	expect("a prefix", "purg", ops, 6, "purge");
	expect("far from all", "frobnicate", ops, 6, NULL);
	expect("of two as close, the one begun", "of", onoff, 2, "off");
	expect("longer than 63 bytes", big, ops, 6, NULL);
	expect("longer than 63 bytes, no NULL", big, onoff, 2, NULL);
	expect("no candidates", "vmap", ops, 0, NULL);
	expect("only NULL", "vmap", ops + 4, 1, NULL);
	return test_result("test-suggest");
}
