// SPDX-License-Identifier: GPL-2.0
/* Names shared by the trace readers, writers and the engine. */
#include <string.h>

#include "core/trace/trace.h"

const char *const vt_op_names[VT_OP__NR] = {
	[VT_OP_VMAP] = "vmap",
	[VT_OP_VUNMAP] = "vunmap",
	[VT_OP_VMALLOC] = "vmalloc",
	[VT_OP_VFREE] = "vfree",
	[VT_OP_VM_MAP_RAM] = "vm_map_ram",
	[VT_OP_VM_UNMAP_RAM] = "vm_unmap_ram",
	[VT_OP_IOREMAP] = "ioremap",
	[VT_OP_IOUNMAP] = "iounmap",
	[VT_OP_PURGE] = "purge",
	[VT_OP_LINEAR_MAP] = "linear_map",
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
	return op == VT_OP_VMAP || op == VT_OP_VMALLOC ||
	       op == VT_OP_VM_MAP_RAM || op == VT_OP_IOREMAP;
}

int vt_op_map_of(enum vt_op op)
{
	switch (op) {
	case VT_OP_VUNMAP:
		return VT_OP_VMAP;
	case VT_OP_VFREE:
		return VT_OP_VMALLOC;
	case VT_OP_VM_UNMAP_RAM:
		return VT_OP_VM_MAP_RAM;
	case VT_OP_IOUNMAP:
		return VT_OP_IOREMAP;
	case VT_OP_VMAP:
	case VT_OP_VMALLOC:
	case VT_OP_VM_MAP_RAM:
	case VT_OP_IOREMAP:
	case VT_OP_PURGE:
	case VT_OP_LINEAR_MAP:
	case VT_OP__NR:
		break;
	}
	return -1;
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
