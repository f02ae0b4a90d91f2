/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VT_FUZZ_CHECK(cond): what every harness body (tests/fuzz/fuzz-*.h)
 * asserts of the code under test.  A failed check names the file, line and
 * condition and aborts, which libFuzzer reports as a crash and
 * tests/unit/test-fuzz-seeds.c as a failed seed.
 */
#ifndef VT_FUZZ_CHECK_H
#define VT_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define VT_FUZZ_CHECK(cond)                                                 \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n",   \
				__FILE__, __LINE__, #cond);                 \
			abort();                                            \
		}                                                           \
	} while (0)

#endif
