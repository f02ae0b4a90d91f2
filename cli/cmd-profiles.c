// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool profiles: would list the built-in cost profiles.  This version
 * has no cost model (no cycles or ns estimates), so it says so rather than
 * list profiles that do not exist (docs/vmaptool-profiles.md).
 */
#include <argp.h>

#include "cli/cli.h"

static const struct argp profiles_argp = {
	.doc = "List the built-in cost profiles (not available in this "
	       "version: there is no cost model yet).",
	.children = vt_common_children,
};

int cmd_profiles(int argc, char **argv)
{
	static char name[] = "vmaptool profiles";

	argv[0] = name;
	argp_parse(&profiles_argp, argc, argv, 0, NULL, NULL);
	vt_err("profiles: not available in this version");
	return VT_EC_USAGE;
}
