// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "core/stats.h"

#define VT_M_NAME(name, kind, better) #name,
const char *const vt_metric_names[VT_M__NR] = { VT_METRICS(VT_M_NAME) };
#undef VT_M_NAME

#define VT_M_KIND(name, kind, better) kind,
const enum vt_metric_kind vt_metric_kinds[VT_M__NR] = { VT_METRICS(VT_M_KIND) };
#undef VT_M_KIND

#define VT_M_BETTER(name, kind, better) better,
const enum vt_metric_better vt_metric_better[VT_M__NR] = { VT_METRICS(VT_M_BETTER) };
#undef VT_M_BETTER

int vt_metric_find(const char *name)
{
	for (int i = 0; i < VT_M__NR; i++)
		if (!strcmp(vt_metric_names[i], name))
			return i;
	return -1;
}
