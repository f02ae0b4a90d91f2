// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool compare --strategy=A,B[,...] TRACE...: strategies side by side
 * with ratios against the first (docs/vmaptool-compare.md).  --ablation
 * expands "batched" into the cumulative patch sets of Barry Song's series.
 */
#include <argp.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "core/strategy/registry.h"

struct compare_args {
	struct vt_trace_args t;
	bool ablation;
};

enum { OPT_ABLATION = 0x200 };

static const struct argp_option compare_options[] = {
	{ "ablation", OPT_ABLATION, NULL, 0,
	  "expand 'batched' into batched@1, @12, ..., @12345678", 0 },
	{ NULL, 0, NULL, 0, NULL, 0 }
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;

	(void)arg;
	switch (key) {
	case OPT_ABLATION:
		a->ablation = true;
		break;
	default:
		return vt_parse_trace_args(key, state, &a->t, "trace");
	}
	return 0;
}

static const struct argp compare_argp = {
	.options = compare_options,
	.parser = compare_parse,
	.args_doc = "TRACE...",
	.doc = "Replay traces under two or more strategies and show them side "
	       "by side with ratios against the first strategy.\v"
	       "With --ablation, a strategy written exactly 'batched' becomes "
	       "the cumulative patch sets batched@1,batched@12,...,"
	       "batched@12345678 (each adds one patch of the series, in "
	       "dependency order).",
	.children = vt_common_children,
};

/*
 * The cumulative sets satisfy every dependency rule of strategies.md 1,
 * which vt_strategy_parse() enforces anyway.
 */
static const char ablation_set[] =
	"batched@1,batched@12,batched@123,batched@1234,batched@12345,"
	"batched@123456,batched@1234567,batched@12345678";

/* @list with every exact "batched" replaced by the ablation set. */
static char *expand_ablation(const char *list, bool *found)
{
	size_t cap = strlen(list) + 1, len = 0;
	const char *p = list;
	char *out;

	*found = false;
	for (const char *c = list; *c; c++)
		if (*c == ',')
			cap += sizeof(ablation_set);
	cap += sizeof(ablation_set);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (;;) {
		size_t n = strcspn(p, ",");
		bool is_batched = n == strlen("batched") &&
				  !strncmp(p, "batched", n);
		const char *src = is_batched ? ablation_set : p;
		size_t sn = is_batched ? strlen(ablation_set) : n;

		*found |= is_batched;
		if (len)
			out[len++] = ',';
		memcpy(out + len, src, sn);
		len += sn;
		p += n;
		if (!*p)
			break;
		p++;
	}
	out[len] = '\0';
	return out;
}

int cmd_compare(int argc, char **argv)
{
	static char name[] = "vmaptool compare";
	struct compare_args a = { { NULL, 0 }, false };
	const char *list;
	char *expanded = NULL;
	struct vt_spec_list specs;
	int rc;

	argv[0] = name;
	argp_parse(&compare_argp, argc, argv, 0, NULL, &a);
	list = vt_cli.strategies ? vt_cli.strategies : vt_strategy_default_list();
	if (a.ablation) {
		bool found;

		expanded = expand_ablation(list, &found);
		if (!expanded) {
			vt_err("out of memory");
			return VT_EC_SYSTEM;
		}
		if (!found) {
			free(expanded);
			vt_err("--ablation needs the strategy 'batched' in --strategy");
			return VT_EC_USAGE;
		}
		list = expanded;
	}
	rc = vt_run_parse_strategies(list, &specs);
	free(expanded);
	if (rc)
		return rc;
	if (specs.nr < 2) {
		vt_spec_list_release(&specs);
		vt_err("compare needs at least two strategies (--strategy=A,B[,...])");
		return VT_EC_USAGE;
	}
	rc = vt_run_command(a.t.v, a.t.n, &specs, true);
	vt_spec_list_release(&specs);
	return rc;
}
