// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a report back (gate): load and check a vmaptool-report
 * document, and recover how it was made (the what-if options through the
 * option table of core/options.def, the strategies, per_op, the geometry
 * of each trace) so that gate can replay traces the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"
#include "core/input.h"

static int schema(struct vt_error *err, const char *path, const char *what)
{
	snprintf(err->file, sizeof(err->file), "%s", path);
	return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
			    "not a valid vmaptool report: %s", what);
}

int vt_report_load(const char *path, struct vt_report **out,
		   struct vt_error *err)
{
	return vt_report_load_max(path, 0, out, err);
}

int vt_report_load_max(const char *path, uint64_t max,
		       struct vt_report **out, struct vt_error *err)
{
	struct vt_report *r;
	json_error_t jerr;
	const char *format;
	json_t *root, *t;
	size_t i;
	int ret;

	*out = NULL;
	/* "-", pipes and devices like every input; held whole: bounded */
	ret = vt_input_load_json(path, "report", max, JSON_REJECT_DUPLICATES,
				 &root, &jerr, err);
	if (ret)
		return ret;
	if (!root) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		err->line = jerr.line > 0 ? (unsigned long)jerr.line : 0;
		err->column = jerr.column > 0 ? (unsigned long)jerr.column : 0;
		return vt_error_set(err, VT_ERR_TRACE_SYNTAX,
				    "report is not valid JSON: %s", jerr.text);
	}
	format = json_string_value(json_object_get(root, "format"));
	if (!format || strcmp(format, VT_REPORT_FORMAT) ||
	    !json_is_integer(json_object_get(root, "version")) ||
	    json_integer_value(json_object_get(root, "version")) != VT_REPORT_VERSION) {
		snprintf(err->file, sizeof(err->file), "%s", path);
		json_decref(root);
		return vt_error_set(err, VT_ERR_TRACE_VERSION,
				    "not a %s version %d document",
				    VT_REPORT_FORMAT, VT_REPORT_VERSION);
	}
	if (!json_is_array(json_object_get(root, "traces")) ||
	    !json_is_object(json_object_get(root, "config"))) {
		json_decref(root);
		return schema(err, path, "no \"traces\" array or \"config\" object");
	}
	json_array_foreach(json_object_get(root, "traces"), i, t) {
		json_t *s;
		size_t k;

		if (!json_is_string(json_object_get(t, "trace")) ||
		    !json_is_array(json_object_get(t, "strategies"))) {
			json_decref(root);
			return schema(err, path, "a trace without \"trace\" or \"strategies\"");
		}
		json_array_foreach(json_object_get(t, "strategies"), k, s)
			if (!json_is_string(json_object_get(s, "name")) ||
			    !json_is_object(json_object_get(s, "metrics"))) {
				json_decref(root);
				return schema(err, path,
					      "a strategy without \"name\" or \"metrics\"");
			}
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		json_decref(root);
		return vt_error_set(err, -ENOMEM, "out of memory");
	}
	r->root = root;
	r->traces = json_object_get(root, "traces");
	r->have_config = true;
	vt_report_trace_geometry(r, (size_t)-1, &r->page_shift, &r->va_bits);
	*out = r;
	return 0;
}

size_t vt_report_nr_traces(const struct vt_report *r)
{
	return json_array_size(r->traces);
}

const char *vt_report_trace_path(const struct vt_report *r, size_t i)
{
	return json_string_value(json_object_get(json_array_get(r->traces, i),
						 "trace"));
}

static void geometry_of(json_t *c, unsigned int *page_shift,
			unsigned int *va_bits)
{
	const char *g = json_string_value(json_object_get(c, "granule"));
	int ps = g ? vt_granule_shift(g) : -1;

	if (ps > 0)
		*page_shift = (unsigned int)ps;
	if (json_is_integer(json_object_get(c, "va_bits")))
		*va_bits = (unsigned int)json_integer_value(json_object_get(c, "va_bits"));
}

void vt_report_trace_geometry(const struct vt_report *r, size_t i,
			      unsigned int *page_shift, unsigned int *va_bits)
{
	json_t *t = json_array_get(r->traces, i);

	*page_shift = 12;
	*va_bits = 48;
	geometry_of(json_object_get(r->root, "config"), page_shift, va_bits);
	if (t && json_object_get(t, "config"))
		geometry_of(json_object_get(t, "config"), page_shift, va_bits);
}

/*
 * Value of option @opt in a report's config.options, written as the
 * report writes it (vt_option_value_word()): returns 0 and sets @v, or -1.
 */
static int read_option(json_t *opts, const struct vt_option *opt,
			enum vt_kernel_gen gen, unsigned int *v)
{
	json_t *j = json_object_get(opts, opt->json);
	const char *word = json_string_value(j);
	char buf[64];
	int i;

	/*
	 * An option the baseline does not name was added after it was made:
	 * it then ran as the option's default (or what its generation sets)
	 * does, which is what a new option must default to
	 * (docs/options.md), so new options do not break stored baselines.
	 */
	if (!j) {
		*v = opt->kernel[gen] ? opt->kernel[gen] - 1 : opt->def;
		return 0;
	}
	if (opt->kind == VT_OK_NUMBER) {
		if (!json_is_integer(j))
			return -1;
		*v = (unsigned int)json_integer_value(j);
		return 0;
	}
	i = word ? vt_option_word_index(opt, word) : -1;
	if (i < 0)
		return -1;
	*v = opt->kind == VT_OK_FLAG ? (unsigned int)i : opt->values[i];
	/* only the word a report writes for that value */
	if (strcmp(vt_option_value_word(opt, *v, buf, sizeof(buf)), word))
		return -1;
	return 0;
}

const char *vt_report_profile_name(const struct vt_report *r)
{
	return json_string_value(json_object_get(json_object_get(r->root, "config"),
						 "profile"));
}

int vt_report_setup(const struct vt_report *r, struct vt_model_opts *o,
		    char **strategies, bool *per_op, struct vt_error *err)
{
	json_t *config = json_object_get(r->root, "config");
	json_t *opts = json_object_get(config, "options");
	const char *km = json_string_value(json_object_get(config, "kernel_model"));
	json_t *strats, *s;
	size_t len = 0, k;
	char *list;

	vt_model_opts_init(o);
	/* "v6.12" or "v6.12 with overrides" */
	for (int g = 0; km && g < VT_KERNEL__NR; g++) {
		size_t n = strlen(vt_kernels[g].name);

		if (!strncmp(km, vt_kernels[g].name, n) &&
		    (km[n] == '\0' || km[n] == ' '))
			o->kernel = (enum vt_kernel_gen)g;
	}
	if (!json_is_object(opts))
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline has no config.options object");
	for (int i = 0; i < VT_OPT__NR; i++) {
		unsigned int v;

		if (read_option(opts, &vt_options[i], o->kernel, &v))
			return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
					    "baseline option '%s' missing or invalid",
					    vt_options[i].json);
		vt_option_set(o, (enum vt_option_id)i, v);
	}

	strats = json_object_get(json_array_get(r->traces, 0), "strategies");
	*per_op = json_object_get(json_array_get(strats, 0), "per_op") != NULL;
	json_array_foreach(strats, k, s)
		len += strlen(json_string_value(json_object_get(s, "name"))) + 1;
	if (!len)
		return vt_error_set(err, VT_ERR_TRACE_SCHEMA,
				    "baseline has no strategies");
	list = malloc(len);
	if (!list)
		return vt_error_set(err, -ENOMEM, "out of memory");
	list[0] = '\0';
	json_array_foreach(strats, k, s) {
		if (k)
			strcat(list, ",");
		strcat(list, json_string_value(json_object_get(s, "name")));
	}
	*strategies = list;
	return 0;
}
