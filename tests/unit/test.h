/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal unit-test helpers in the style of perf's tools/perf/tests/tests.h. */
#ifndef VT_TEST_H
#define VT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_OK 0
#define TEST_FAIL 1
#define TEST_SKIP 77

static int test_failures;

#define TEST_ASSERT_VAL(text, cond)                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,  \
				text);                                      \
			test_failures++;                                    \
		}                                                           \
	} while (0)

#define TEST_ASSERT_EQ(text, got, want)                                     \
	do {                                                                \
		unsigned long long _g = (got), _w = (want);                 \
		if (_g != _w) {                                             \
			fprintf(stderr, "%s:%d: %s: got %llu (0x%llx), want %llu (0x%llx)\n", \
				__FILE__, __LINE__, text, _g, _g, _w, _w);  \
			test_failures++;                                    \
		}                                                           \
	} while (0)

static inline int test_result(const char *name)
{
	if (test_failures) {
		fprintf(stderr, "%s: %d failure(s)\n", name, test_failures);
		return TEST_FAIL;
	}
	printf("%s: ok\n", name);
	return TEST_OK;
}

#endif
