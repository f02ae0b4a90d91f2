// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool __complete KIND: the words an option or operand takes, one a
 * line, from the tables that define them, for the bash completion
 * (scripts/completion/vmaptool.bash); unlisted in 'vmaptool help'.
 * docs/vmaptool-help.md, "Completion".
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report.h"
#include "core/cost/profile.h"
#include "core/trace/gen.h"

static void words(const char *const *w)
{
	for (; *w; w++)
		puts(*w);
}

/* A name vt_bundled_trace() resolves: a trace of the data folder (.json or
 * .jsonl), not the gate's baseline.json */
static int is_bundled_trace(const struct dirent *e)
{
	const char *dot = strrchr(e->d_name, '.');

	return e->d_name[0] != '.' && dot && strcmp(e->d_name, "baseline.json") &&
	       (!strcmp(dot, ".json") || !strcmp(dot, ".jsonl"));
}

/* Those names without their extension, sorted */
static void bundled_traces(void)
{
	struct dirent **list;
	char path[4096];
	int n;

	if (snprintf(path, sizeof(path), "%s/traces", vt_data_dir()) >=
	    (int)sizeof(path))
		return;
	n = scandir(path, &list, is_bundled_trace, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;

		printf("%.*s\n", (int)(strrchr(name, '.') - name), name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

int cmd_complete(struct vt_cli *cli, int argc, char **argv)
{
	static const char usage[] = "usage: vmaptool __complete "
		"formats|profiles|kernels|patterns|tests|axes|strategies|"
		"metrics|traces";
	const char *kind = argc == 2 ? argv[1] : "";

	(void)cli;
	if (!strcmp(kind, "formats")) {
		words(vt_format_names);
	} else if (!strcmp(kind, "patterns")) {
		words(vt_gen_pattern_names);
	} else if (!strcmp(kind, "kernels")) {
		for (int k = 0; k < VT_KERNEL__NR; k++)
			puts(vt_kernels[k].name);
	} else if (!strcmp(kind, "tests")) {	/* gen --test: the cases, or all */
		for (int t = 0; t < VT_TV__NR; t++)
			puts(vt_tv_test_names[t]);
		puts("all");
	} else if (!strcmp(kind, "axes")) {
		for (unsigned int b = 0; b < 32; b++)
			if (vt_axis_name(1u << b))
				puts(vt_axis_name(1u << b));
	} else if (!strcmp(kind, "strategies")) {	/* names, aliases, axes */
		for (const struct vt_strategy_info *i = vt_strategy_infos(); i->name; i++)
			puts(i->name);
	} else if (!strcmp(kind, "metrics")) {	/* compare --metrics */
		for (int i = 0; i < VT_M__NR; i++) {
			char buf[64];
			const char *n = vt_summary_metric_name(i, buf, sizeof(buf));

			if (n)
				puts(n);
		}
	} else if (!strcmp(kind, "traces")) {	/* bundled traces by name */
		bundled_traces();
	} else if (!strcmp(kind, "profiles")) {
		struct vt_error err;
		unsigned int nr = 0;
		char **names = NULL;

		vt_error_init(&err);
		if (vt_profile_names(&names, &nr, &err))
			return vt_report_error(&err);
		for (unsigned int i = 0; i < nr; i++)
			puts(names[i]);
		vt_profile_names_free(names, nr);
	} else {
		vt_err("%s", usage);
		return VT_EC_USAGE;
	}
	return ferror(stdout) ? VT_EC_SYSTEM : 0;
}
