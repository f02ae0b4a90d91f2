// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool entry point: the cmds[] table, the top-level argp parser and
 * main(), which owns the common options (struct vt_cli, parsed by
 * cli/common.c) and hands them to the command it dispatches to.
 *
 * Parsing stops at the command word (ARGP_IN_ORDER; see STYLE.md 2) so that
 * each subcommand parses the rest itself with the common options as an
 * argp child: they work on either side of the command word.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#ifndef VT_VERSION
#define VT_VERSION "0.0.0"
#endif

const char *argp_program_version = "vmaptool " VT_VERSION;

static vt_cmd_fn cmd_help;

static const struct vt_cmd cmds[] = {
	{ "replay", cmd_replay, "replay traces under one or more strategies",
	  VT_APPLIES_REPLAY | VT_APPLIES_PER_EVENT | VT_APPLIES_CSV |
	  VT_APPLIES_RENDER | VT_APPLIES_COST_OF },
	{ "compare", cmd_compare, "strategies side by side, ratios against the first",
	  VT_APPLIES_REPLAY | VT_APPLIES_PER_EVENT | VT_APPLIES_CSV |
	  VT_APPLIES_RENDER | VT_APPLIES_COST_OF },
	{ "gate", cmd_gate, "exit 1 if a report regressed against a baseline",
	  VT_APPLIES_REPLAY },
	{ "gen", cmd_gen, "synthesise a trace (systemheap, test_vmalloc, ioremap, ...)",
	  VT_APPLIES_GEOMETRY | VT_APPLIES_CPUS },
	{ "import", cmd_import, "trace-cmd trace.dat or ftrace text -> trace",
	  VT_APPLIES_GEOMETRY | VT_APPLIES_VMLINUX },
	{ "ptdump", cmd_ptdump, "page tables after a replay, arm64 ptdump style",
	  VT_APPLIES_FORMAT | VT_APPLIES_CSV | VT_APPLIES_STRATEGY |
	  VT_APPLIES_GEOMETRY | VT_APPLIES_MODEL | VT_APPLIES_VMLINUX },
	{ "inspect", cmd_inspect, "geometry, config and symbols of a kernel image",
	  VT_APPLIES_FORMAT | VT_APPLIES_VMLINUX },
	{ "strategies", cmd_strategies, "list the built-in strategies",
	  VT_APPLIES_FORMAT | VT_APPLIES_CSV },
	{ "profiles", cmd_profiles, "list the built-in cost profiles",
	  VT_APPLIES_FORMAT },
	{ "calibrate", cmd_calibrate, "fit the cost profiles to published figures",
	  VT_APPLIES_FORMAT },
	{ "help", cmd_help, "this text, or a command's: vmaptool help [COMMAND]", 0 },
	/* unlisted (no summary): the bash completion's source of words */
	{ "__complete", cmd_complete, NULL, 0 },
	{ NULL, NULL, NULL, 0 }
};

/* ---- the top-level parser ------------------------------------------- */

struct top_args {
	struct vt_cli *cli;	/* the common options given before the word */
	int cmd_index;		/* argv index of the command word; -1: none */
};

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_args *a = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		vt_common_input(state, a->cli);
		break;
	case ARGP_KEY_ARG:
		/* The command word: the rest belongs to the subcommand. */
		a->cmd_index = state->next - 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (a->cmd_index < 0)
			argp_error(state, "missing command");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* List the commands from cmds[] after the options in --help. */
static char *top_help_filter(int key, const char *text, void *input)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)text;
	f = open_memstream(&buf, &len);
	if (!f)
		return (char *)text;
	fputs("Commands:\n", f);
	for (const struct vt_cmd *c = cmds; c->name; c++)
		if (c->summary)
			fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fputs("\n'vmaptool COMMAND --help' describes a command's own options. "
	      "Exit status: 0 success, 1 gate found a regression, 2 usage, "
	      "3 bad input, 4 system error, 5 internal error.", f);
	if (text)
		fprintf(f, "\n\n%s", text);
	if (fclose(f)) {
		free(buf);
		return (char *)text;
	}
	return buf;
}

static const struct argp top_argp = {
	.parser = top_parse,
	.args_doc = "COMMAND [ARG...]",
	.doc = "Replay vmap/vmalloc/ioremap traces through a model of the arm64 "
	       "kernel-mapping engine and count PTE writes, walks, TLBIs and "
	       "barriers per strategy.\v",
	.children = vt_common_children,
	.help_filter = top_help_filter,
};

static const struct vt_cmd *cmd_find(const char *name)
{
	for (const struct vt_cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void unknown_command(const char *word)
{
	const char *names[sizeof(cmds) / sizeof(cmds[0])];
	const char *hint;
	size_t n = 0;

	for (const struct vt_cmd *c = cmds; c->name; c++)
		if (c->summary)
			names[n++] = c->name;
	hint = vt_suggest(word, names, n);
	if (hint)
		vt_err("'%s' is not a vmaptool command; did you mean '%s'? "
		       "(see 'vmaptool help')", word, hint);
	else
		vt_err("'%s' is not a vmaptool command; see 'vmaptool help'", word);
}

/* The top-level --help, with argp's own options: argp prints it and exits 0. */
static int top_help(struct vt_cli *cli)
{
	static char prog[] = "vmaptool", help_opt[] = "--help";
	char *av[] = { prog, help_opt, NULL };
	struct top_args a = { cli, -1 };

	vt_common_show_all();
	cli->cmd = NULL;
	return vt_err_argp(argp_parse(&top_argp, 2, av, ARGP_IN_ORDER, NULL, &a));
}

/* vmaptool help [COMMAND]: the top-level help, or COMMAND --help. */
static int cmd_help(struct vt_cli *cli, int argc, char **argv)
{
	static char help_opt[] = "--help";
	const struct vt_cmd *c;
	char *av[3];

	if (argc > 2) {
		vt_err("help: one command at most; see 'vmaptool help'");
		return VT_EC_USAGE;
	}
	/* help -h, help --help: as every command takes them, help's own */
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return top_help(cli);
	c = cmd_find(argv[1]);
	if (!c) {
		unknown_command(argv[1]);
		return VT_EC_USAGE;
	}
	if (c->fn == cmd_help)
		return top_help(cli);
	cli->cmd = c;
	vt_common_show_for(c);
	av[0] = argv[1];
	av[1] = help_opt;
	av[2] = NULL;
	return c->fn(cli, 2, av);	/* argp prints the help and exits 0 */
}

/*
 * stdout is checked before exiting, as perf's and git's run_builtin() do:
 * a report lost to a full disk must not look like success.
 */
static int check_stdout(int rc)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);

	if (fclose(stdout) != 0)
		failed = 1;
	/* vt_out_close() has already said so when rc is VT_EC_SYSTEM */
	if (failed && rc != VT_EC_SYSTEM) {
		vt_err("write error on stdout: %s", strerror(errno));
		if (rc == 0 || rc == 1)
			rc = VT_EC_SYSTEM;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct vt_cli cli;
	struct top_args top = { &cli, -1 };
	const struct vt_cmd *cmd;
	int rc;

	argp_err_exit_status = VT_EC_USAGE;
	vt_common_init(&cli);
	rc = argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &top);
	if (rc)
		return check_stdout(vt_err_argp(rc));
	cmd = cmd_find(argv[top.cmd_index]);
	if (!cmd) {
		unknown_command(argv[top.cmd_index]);
		return check_stdout(VT_EC_USAGE);
	}
	for (unsigned int i = 0; i < cli.nr_top_keys; i++)
		if (!vt_common_applies(cmd, cli.top_keys[i])) {
			char name[64];

			vt_err("%s does not apply to '%s'; see 'vmaptool help %s'",
			       vt_common_option_name(cli.top_keys[i], name, sizeof(name)),
			       cmd->name, cmd->name);
			return check_stdout(VT_EC_USAGE);
		}
	cli.cmd = cmd;
	vt_common_show_for(cmd);
	rc = cmd->fn(&cli, argc - top.cmd_index, argv + top.cmd_index);
	return vt_out_finish(check_stdout(rc));
}
