// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool inspect --vmlinux=FILE: not available in this version
 * (docs/vmaptool-inspect.md).  It prints nothing it has not read.
 */
#include <argp.h>

#include "cli/cli.h"

static const struct argp_option inspect_options[] = {
	{ "vmlinux", 0x500, "FILE", 0, "the kernel image (ELF, EM_AARCH64)", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t inspect_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	(void)state;
	return key == 0x500 ? 0 : ARGP_ERR_UNKNOWN;
}

static const struct argp inspect_argp = {
	.options = inspect_options,
	.parser = inspect_parse,
	.doc = "Geometry, configuration and symbols of a real kernel image "
	       "(not available in this version).",
	.children = vt_common_children,
};

int cmd_inspect(int argc, char **argv)
{
	static char name[] = "vmaptool inspect";

	argv[0] = name;
	argp_parse(&inspect_argp, argc, argv, 0, NULL, NULL);
	vt_err("inspect: not available in this version");
	return VT_EC_USAGE;
}
