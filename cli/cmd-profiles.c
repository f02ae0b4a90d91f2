// SPDX-License-Identifier: GPL-2.0
/*
 * vmaptool profiles: list the built-in cost profiles (the JSON files of the
 * project's profiles/ folder) with their CPU, clock, features and errata;
 * -v adds every price with its source, anchor, plausible range, how well
 * the data determine it and where its anchor comes from
 * (docs/vmaptool-profiles.md, docs/cost-model.md).
 */
#include <argp.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report-doc.h"
#include "core/cost/profile.h"

static error_t profiles_parse(int key, char *arg, struct argp_state *state)
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

static const struct argp profiles_argp = {
	.parser = profiles_parse,
	.doc = "List the built-in cost profiles (the default is "
	       VT_PROFILE_DEFAULT "); with -v every price with its source "
	       "(measured, fitted or hardware default), anchor, plausible "
	       "range and how well the published data determine it.",
	.children = vt_common_children,
};

static json_t *num6(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_real(strtod(buf, NULL));
}

static json_t *profile_json(const struct vt_profile *p, bool verbose)
{
	json_t *o = json_object(), *c;

	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "default", json_boolean(!strcmp(p->name, VT_PROFILE_DEFAULT)));
	json_object_set_new(o, "cpu", json_string(p->cpu));
	json_object_set_new(o, "freq_mhz", num6(p->freq_mhz));
	json_object_set_new(o, "tlbi_range", json_boolean(p->tlbi_range));
	json_object_set_new(o, "ARM64_ERRATUM_4118414", json_boolean(p->erratum_4118414));
	json_object_set_new(o, "description", json_string(p->description));
	if (!verbose)
		return o;
	c = json_object();
	for (int e = 0; e < VT_CE__NR; e++) {
		const struct vt_cost_param *cp = &p->p[e];
		json_t *x = json_object();

		json_object_set_new(x, "cycles", num6(cp->cycles));
		json_object_set_new(x, "anchor", num6(cp->anchor));
		json_object_set_new(x, "range", num6(cp->range));
		json_object_set_new(x, "source", json_string(vt_cost_source_names[cp->source]));
		if (cp->determined >= 0)
			json_object_set_new(x, "determined", num6(cp->determined));
		json_object_set_new(x, "function", json_string(vt_cost_events[e].function));
		json_object_set_new(x, "basis", json_string(cp->basis));
		json_object_set_new(c, vt_cost_events[e].name, x);
	}
	json_object_set_new(o, "costs", c);
	json_object_set_new(o, "freq_basis", json_string(p->freq_basis));
	json_object_set_new(o, "errata_basis", json_string(p->errata_basis));
	json_object_set_new(o, "calibration", json_string(p->calibration));
	return o;
}

/* "@label @text", @text wrapped at 79 columns under its own start */
static void field(FILE *out, int indent, const char *label, const char *text)
{
	int col = fprintf(out, "%*s%s", indent, "", label);

	vt_wrap(out, text, col, col, 79);
}

/* A profile as lines of at most 79 columns: name, CPU, clock; what it
 * switches on; its description; with -v its prices and their bases. */
static void profile_text(FILE *out, const struct vt_profile *p, int verbose)
{
	fprintf(out, "%-12s %-44s %5.0f MHz%s\n", p->name, p->cpu, p->freq_mhz,
		strcmp(p->name, VT_PROFILE_DEFAULT) ? "" : "  (default)");
	if (p->tlbi_range || p->erratum_4118414)
		fprintf(out, "             %s%s%s\n", p->tlbi_range ? "FEAT_TLBIRANGE" : "",
			p->tlbi_range && p->erratum_4118414 ? " " : "",
			p->erratum_4118414 ? "ARM64_ERRATUM_4118414" : "");
	field(out, 13, "", p->description);
	if (!verbose)
		return;
	fprintf(out, "             %-16s %9s %9s %7s %-9s %s\n", "event", "cycles", "anchor",
		"range", "source", "determined");
	for (int e = 0; e < VT_CE__NR; e++) {
		const struct vt_cost_param *cp = &p->p[e];
		char det[16] = "-";

		if (cp->determined >= 0)
			snprintf(det, sizeof(det), "%.2f", cp->determined);
		fprintf(out, "             %-16s %9.4g %9.4g %6.3gx %-9s %s\n",
			vt_cost_events[e].name, cp->cycles, cp->anchor, cp->range,
			vt_cost_source_names[cp->source], det);
		if (verbose > 1)
			field(out, 17, "", cp->basis);
	}
	field(out, 13, "clock: ", p->freq_basis);
	field(out, 13, "errata: ", p->errata_basis);
	field(out, 13, "calibration: ", p->calibration);
}

int cmd_profiles(struct vt_cli *cli, int argc, char **argv)
{
	static char name[] = "vmaptool profiles";
	struct vt_error err;
	struct vt_profile p;
	json_t *arr = NULL;
	unsigned int nr;
	char **names;
	FILE *out;
	int ret = 0, wr = 0;

	argv[0] = name;
	ret = argp_parse(&profiles_argp, argc, argv, 0, NULL, cli);
	if (ret)
		return vt_err_argp(ret);
	ret = vt_out_check(cli, NULL, 0, NULL, 0, NULL);
	if (ret)
		return ret;
	vt_error_init(&err);
	if (vt_profile_names(&names, &nr, &err))
		return vt_report_error(&err);
	if (cli->format == VT_FMT_JSON)
		arr = json_array();
	out = vt_out_open(cli->output);
	if (!out) {
		vt_profile_names_free(names, nr);
		json_decref(arr);
		return VT_EC_SYSTEM;
	}
	for (unsigned int i = 0; i < nr && !ret; i++) {
		ret = vt_profile_load(names[i], &p, &err);
		if (ret)
			break;
		if (arr)
			json_array_append_new(arr, profile_json(&p, cli->verbose));
		else
			profile_text(out, &p, cli->verbose);
	}
	if (!ret && arr) {
		json_t *root = json_object();

		json_object_set_new(root, "format", json_string("vmaptool-profiles"));
		json_object_set_new(root, "version", json_integer(1));
		json_object_set_new(root, "default", json_string(VT_PROFILE_DEFAULT));
		json_object_set_new(root, "profiles", arr);
		arr = NULL;
		wr = json_dumpf(root, out, JSON_INDENT(2) | JSON_SORT_KEYS) || fputc('\n', out) == EOF;
		json_decref(root);
	}
	json_decref(arr);
	vt_profile_names_free(names, nr);
	if (ret) {
		vt_out_close(out, cli->output, false);
		return vt_report_error(&err);
	}
	return vt_out_close(out, cli->output, true) ?: (wr ? VT_EC_SYSTEM : 0);
}
