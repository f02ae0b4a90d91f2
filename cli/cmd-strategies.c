// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool strategies: list the built-in strategies and axes with what
 * they model; -v adds every what-if option and the kernel commit it
 * models (docs/vmaptool-strategies.md).
 */
#include <argp.h>

#include "cli/report.h"

static error_t strategies_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, state->input);	/* the input is the vt_cli */
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp strategies_argp = {
	.parser = strategies_parse,
	.doc = "List the built-in strategies and axes; with -v also the "
	       "what-if options of the modelled kernel and the commits they "
	       "model.",
	.children = vt_common_children,
};

int cmd_strategies(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool strategies";
	FILE *out;
	int wr;

	argv[0] = name;
	wr = argp_parse(&strategies_argp, argc, argv, 0, NULL, cli);
	if (wr)
		return vt_err_argp(wr);
	wr = vt_out_check(cli, NULL, 0, NULL, 0, NULL);
	if (wr)
		return wr;
	out = vt_out_open(cli->output);
	if (!out)
		return VT_EC_SYSTEM;
	wr = vt_report_strategies(out, cli->format, vt_strategy_infos(),
				  cli->verbose > 0);
	return vt_out_close(out, cli->output, true) ?: (wr ? VT_EC_SYSTEM : 0);
}
