// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool replay [OPTION...] TRACE...: replay traces under one or more
 * strategies and report the counts (docs/vmaptool-replay.md).
 */
#include <argp.h>

#include "cli/run.h"

static error_t replay_parse(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	return vt_parse_trace_args(key, state, state->input, "trace");
}

static const struct argp replay_argp = {
	.parser = replay_parse,
	.args_doc = "TRACE...",
	.doc = "Replay traces under one or more strategies and report PTE "
	       "writes, walks, TLBIs and barriers per strategy.\v"
	       "Exit status: 0 success, 2 usage, 3 bad trace (nothing is "
	       "written to -o), 4 system error, 5 internal error.",
	.children = vt_common_children,
};

int cmd_replay(int argc, char **argv)
{
	static char name[] = "vmaptool replay";
	struct vt_trace_args a = { NULL, 0 };
	struct vt_spec_list specs;
	int rc;

	argv[0] = name;
	argp_parse(&replay_argp, argc, argv, 0, NULL, &a);
	rc = vt_run_parse_strategies(vt_cli.strategies, &specs);
	if (rc)
		return rc;
	rc = vt_run_command(a.v, a.n, &specs, false);
	vt_spec_list_release(&specs);
	return rc;
}
