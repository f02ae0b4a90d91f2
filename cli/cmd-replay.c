// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool replay [OPTION...] TRACE...: replay traces under one or more
 * strategies and report the counts (docs/vmaptool-replay.md).
 */
#include <argp.h>

#include "cli/run.h"

struct replay_args {
	struct vt_cli *cli;
	struct vt_trace_args t;
};

static error_t replay_parse(int key, char *arg, struct argp_state *state)
{
	struct replay_args *a = state->input;

	(void)arg;
	if (key == ARGP_KEY_INIT) {
		vt_common_input(state, a->cli);
		return 0;
	}
	return vt_parse_trace_args(key, state, &a->t, "trace");
}

static const struct argp replay_argp = {
	.parser = replay_parse,
	.args_doc = "TRACE...",
	.doc = "Replay traces under one or more strategies and report PTE "
	       "writes, walks, TLBIs and barriers per strategy.\v"
	       "A TRACE that names no file and holds no '/' is the bundled "
	       "trace of that name (NAME, NAME.json or NAME.jsonl in "
	       "share/vmaptool/traces): 'vmaptool replay default'.  "
	       "Exit status: 0 success, 2 usage, 3 bad trace (nothing is "
	       "written to -o), 4 system error, 5 internal error.",
	.children = vt_common_children,
};

int cmd_replay(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool replay";
	struct replay_args a = { cli, { NULL, 0, NULL, NULL } };
	struct vt_spec_list specs;
	int rc;

	argv[0] = name;
	rc = argp_parse(&replay_argp, argc, argv, 0, NULL, &a);
	if (rc)
		return vt_err_argp(rc);
	rc = vt_cli_vmlinux_apply(cli, true, name);
	if (rc)
		return rc;
	rc = vt_run_parse_strategies(cli->strategies, &specs);
	if (rc)
		return rc;
	if (vt_trace_args_bundled(&a.t)) {
		vt_spec_list_release(&specs);
		return vt_err_oom_exit();
	}
	rc = vt_run_command(cli, a.t.v, a.t.shown, a.t.n, &specs, false);
	vt_trace_args_release(&a.t);
	vt_spec_list_release(&specs);
	return rc;
}
