// SPDX-License-Identifier: GPL-2.0
/*
 * The commit vmaptool was built from (compare --summary's footer), from
 * the header scripts/commit-id.cmake writes at every build: only this file
 * includes it, so a new commit recompiles one file.
 */
#include "cli/cli.h"
#include "vt-commit.h"

const char *vt_build_commit(void)
{
	return VT_COMMIT;
}
