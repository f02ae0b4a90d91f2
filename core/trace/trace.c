// SPDX-License-Identifier: GPL-2.0
/* Names shared by the trace readers, writers and the engine. */
#include <string.h>

#include "core/trace/trace.h"

const struct vt_op_desc vt_ops[VT_OP__NR] = {
#define VT_OP(e, n, r, u, p) [VT_OP_##e] = { .name = n, .rules = r, .undoes = u, .prot = p },
#include "core/trace/ops.def"
#undef VT_OP
};

/* The names alone, for the readers' name lookups. */
const char *const vt_op_names[VT_OP__NR] = {
#define VT_OP(e, n, r, u, p) [VT_OP_##e] = n,
#include "core/trace/ops.def"
#undef VT_OP
};

int vt_op_find(const char *name)
{
	for (int i = 0; i < VT_OP__NR; i++)
		if (!strcmp(vt_op_names[i], name))
			return i;
	return -1;
}

bool vt_op_is_map(enum vt_op op)
{
	return op < VT_OP__NR && (vt_ops[op].rules & VT_OPR_MAP);
}

int vt_op_map_of(enum vt_op op)
{
	return op < VT_OP__NR ? vt_ops[op].undoes : -1;
}

#define VT_FLAG_NAME(name) #name,
const char *const vt_flag_names[VT_FB__NR] = { VT_VM_FLAGS(VT_FLAG_NAME) };
#undef VT_FLAG_NAME

uint32_t vt_flag_find(const char *name)
{
	for (int i = 0; i < VT_FB__NR; i++)
		if (!strcmp(vt_flag_names[i], name))
			return 1u << i;
	return 0;
}

const char *const vt_prot_names[VT_PROT__NR] = {
	[VT_PROT_KERNEL] = "PAGE_KERNEL",
	[VT_PROT_KERNEL_RO] = "PAGE_KERNEL_RO",
	[VT_PROT_KERNEL_EXEC] = "PAGE_KERNEL_EXEC",
	[VT_PROT_KERNEL_NC] = "PAGE_KERNEL_NC",
	[VT_PROT_DEVICE] = "PROT_DEVICE_nGnRE",
};

int vt_prot_find(const char *name)
{
	for (int i = 0; i < VT_PROT__NR; i++)
		if (!strcmp(vt_prot_names[i], name))
			return i;
	return -1;
}

bool vt_trace_path_is_jsonl(const char *path)
{
	size_t n = strlen(path);

	return (n > 6 && !strcmp(path + n - 6, ".jsonl")) ||
	       (n > 7 && !strcmp(path + n - 7, ".ndjson"));
}
