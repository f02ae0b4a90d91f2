// SPDX-License-Identifier: GPL-2.0
/*
 * --svg=FILE: the report drawn as one self-contained SVG (no script, no
 * external font, style or image), for each trace:
 *   - the counts that matter, per strategy, as bars on a log scale: every
 *     count the metric table marks as work or cost (VT_MB_FEWER in
 *     core/stats.h) that is not zero everywhere, tlbi always;
 *   - the estimated cycles of each strategy stacked by the kernel function
 *     they are charged to (cycles_by_function, docs/cost-model.md).
 * Written through cli/output.c like -o, so it is whole or absent.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report-doc.h"

#define SVG_W 900
#define LABEL_W 190	/* metric or strategy names left of the bars */
#define VALUE_W 110	/* room right of the longest bar for its value */
#define BAR_H 12
#define FONT 12

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#a0cbe8", "#ffbe7d",
	"#7f7f7f", "#8cd17d", "#b6992d", "#f1ce63", "#499894", "#86bcb6",
	"#d37295", "#fabfd2",
};
#define NR_PALETTE (sizeof(palette) / sizeof(palette[0]))

/* @s with XML's five special characters escaped, control characters as '?'. */
static void svg_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
		}
	}
}

static void text(FILE *f, int x, int y, const char *anchor, const char *weight,
		 const char *s)
{
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-weight=\"%s\">",
		x, y, anchor, weight);
	svg_text(f, s);
	fputs("</text>\n", f);
}

static json_int_t value_of(json_t *s, int i)
{
	return json_integer_value(vt_report_metric_get(json_object_get(s, "metrics"), i));
}

/* One legend entry per name, left to right, wrapping; returns the new y. */
static int legend(FILE *f, int y, const char *const *names, const int *colour, int n)
{
	int x = LABEL_W;

	for (int k = 0; k < n; k++) {
		int w = 28 + 8 * (int)strlen(names[k]);

		if (x + w > SVG_W - 10 && x > LABEL_W) {
			x = LABEL_W;
			y += 18;
		}
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			x, y - 10, palette[colour[k] % NR_PALETTE]);
		text(f, x + 16, y, "start", "normal", names[k]);
		x += w;
	}
	return y + 22;
}

/* x of @v on the log axis of @decades decades (0.1 at the origin). */
static double log_x(json_int_t v, int decades)
{
	return (log10((double)v) + 1) / (decades + 1) * (SVG_W - LABEL_W - VALUE_W);
}

static int counts_chart(FILE *f, int y, json_t *strats)
{
	size_t nr = json_array_size(strats), k;
	json_int_t max = 1;
	int decades, rows[VT_M__NR], n = 0;
	const char **names = calloc(nr ? nr : 1, sizeof(*names));
	int *colours = calloc(nr ? nr : 1, sizeof(*colours));
	char buf[64];
	json_t *s;

	if (!names || !colours) {
		free(names);
		free(colours);
		return -1;
	}
	for (int i = 0; i < VT_M__NR; i++) {
		bool any = false;

		/* cycles and ns are the estimate: the second chart draws them */
		if (vt_metric_kinds[i] != VT_MK_TOP || vt_metric_better[i] != VT_MB_FEWER ||
		    i == VT_M_cycles || i == VT_M_ns)
			continue;
		json_array_foreach(strats, k, s) {
			any |= value_of(s, i) != 0;
			if (value_of(s, i) > max)
				max = value_of(s, i);
		}
		if (any || i == VT_M_tlbi)
			rows[n++] = i;
	}
	decades = (int)ceil(log10((double)max));
	if (decades < 1)
		decades = 1;
	text(f, 10, y, "start", "bold", "Counts per strategy (log scale; 0 draws no bar)");
	y += 22;
	json_array_foreach(strats, k, s) {
		names[k] = json_string_value(json_object_get(s, "name"));
		colours[k] = (int)k;
	}
	y = legend(f, y, names, colours, (int)nr);
	/* the decades of the axis */
	for (int d = 0; d <= decades; d++) {
		double x = LABEL_W + log_x((json_int_t)pow(10, d), decades);

		snprintf(buf, sizeof(buf), "%.0f", pow(10, d));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#dddddd\"/>\n", x, y - 4, x,
			y + n * ((int)nr * (BAR_H + 2) + 8));
		text(f, (int)x, y - 6, "middle", "normal", buf);
	}
	y += 4;
	for (int r = 0; r < n; r++) {
		int i = rows[r];
		int group_h = (int)nr * (BAR_H + 2);

		text(f, LABEL_W - 8, y + group_h / 2 + FONT / 2 - 2, "end", "normal",
		     vt_metric_names[i]);
		/* the TLBIs of lazily freed pages come with their purge */
		if (i == VT_M_tlbi) {
			json_int_t pending = 0;

			json_array_foreach(strats, k, s)
				if (value_of(s, VT_M_lazy_pages_pending) > pending)
					pending = value_of(s, VT_M_lazy_pages_pending);
			snprintf(buf, sizeof(buf), "(%" JSON_INTEGER_FORMAT
				 " pages pending)", pending);
			if (pending)
				text(f, LABEL_W - 8, y + group_h / 2 + 2 * FONT,
				     "end", "normal", buf);
		}
		json_array_foreach(strats, k, s) {
			json_int_t v = value_of(s, i);
			double w = v > 0 ? log_x(v, decades) : 0;

			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"fill=\"%s\"><title>", LABEL_W, y, w, BAR_H,
				palette[k % NR_PALETTE]);
			svg_text(f, names[k]);
			fprintf(f, ": %s %" JSON_INTEGER_FORMAT "</title></rect>\n",
				vt_metric_names[i], v);
			snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, v);
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\">%s</text>\n",
				LABEL_W + w + 4, y + BAR_H - 2, FONT - 2, buf);
			y += BAR_H + 2;
		}
		y += 8;
	}
	free(names);
	free(colours);
	return y + 10;
}

static int cycles_chart(FILE *f, int y, json_t *strats, const char *profile)
{
	int funcs[VT_M__NR], colours[VT_M__NR], n = 0;
	const char *names[VT_M__NR];
	json_int_t max = 0;
	char buf[160];
	json_t *s;
	size_t k;

	for (int i = 0; i < VT_M__NR; i++) {
		bool any = false;

		if (vt_metric_kinds[i] != VT_MK_CYC)
			continue;
		json_array_foreach(strats, k, s)
			any |= value_of(s, i) != 0;
		if (!any)
			continue;
		names[n] = vt_metric_names[i] + strlen("cyc_");
		colours[n] = n;
		funcs[n++] = i;
	}
	json_array_foreach(strats, k, s)
		if (value_of(s, VT_M_cycles) > max)
			max = value_of(s, VT_M_cycles);
	snprintf(buf, sizeof(buf), "Estimated cycles by kernel function "
		 "(profile %s; linear scale)", profile ? profile : "-");
	text(f, 10, y, "start", "bold", buf);
	y += 22;
	if (!n || max <= 0) {
		text(f, LABEL_W, y, "start", "normal", "no cycles estimated");
		return y + 20;
	}
	y = legend(f, y, names, colours, n);
	json_array_foreach(strats, k, s) {
		double x = LABEL_W;

		text(f, LABEL_W - 8, y + 14, "end", "normal",
		     json_string_value(json_object_get(s, "name")));
		for (int j = 0; j < n; j++) {
			json_int_t v = value_of(s, funcs[j]);
			double w = (double)v / (double)max * (SVG_W - LABEL_W - VALUE_W);

			if (!v)
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" "
				"fill=\"%s\"><title>", x, y, w,
				palette[colours[j] % NR_PALETTE]);
			svg_text(f, json_string_value(json_object_get(s, "name")));
			fprintf(f, ": %s %" JSON_INTEGER_FORMAT " cycles</title></rect>\n",
				names[j], v);
			x += w;
		}
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
			 value_of(s, VT_M_cycles));
		text(f, (int)x + 4, y + 14, "start", "normal", buf);
		y += 24;
	}
	return y + 10;
}

int vt_report_svg(const struct vt_report *r, FILE *f)
{
	json_t *config = json_object_get(r->root, "config"), *t;
	const char *profile = json_string_value(json_object_get(config, "profile"));
	char *body = NULL, head[256];
	size_t len = 0, i;
	FILE *m = open_memstream(&body, &len);
	int y = 24;

	if (!m)
		return -ENOMEM;
	json_array_foreach(r->traces, i, t) {
		json_t *strats = json_object_get(t, "strategies");
		json_t *g = json_object_get(t, "config") ?: config;

		snprintf(head, sizeof(head), "%" JSON_INTEGER_FORMAT " events, %s granule, "
			 "%" JSON_INTEGER_FORMAT "-bit VA, kernel %s",
			 json_integer_value(json_object_get(t, "events")),
			 json_string_value(json_object_get(g, "granule")),
			 json_integer_value(json_object_get(g, "va_bits")),
			 json_string_value(json_object_get(config, "kernel_model")));
		fputs("<g font-size=\"14\">", m);
		fprintf(m, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">trace ", y);
		svg_text(m, json_string_value(json_object_get(t, "trace")));
		fputs(" (", m);
		svg_text(m, head);
		fputs(")</text></g>\n", m);
		y += 30;
		y = counts_chart(m, y, strats);
		if (y < 0)
			break;
		y = cycles_chart(m, y, strats, profile);
		y += 20;
	}
	if (fclose(m) || y < 0) {
		free(body);
		return -ENOMEM;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"%d\">\n"
		"<title>vmaptool report</title>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_W, y, SVG_W, y, FONT);
	fwrite(body, 1, len, f);
	fputs("</svg>\n", f);
	free(body);
	return ferror(f) ? -EIO : 0;
}
