// SPDX-License-Identifier: GPL-2.0
/* What-if options of the modelled kernel (interfaces.md 1.3). */
#include "core/model.h"

const char *const vt_kernel_names[3] = {
	[VT_KERNEL_V6_12] = "v6.12",
	[VT_KERNEL_V6_16] = "v6.16",
	[VT_KERNEL_MAINLINE] = "mainline",
};

void vt_model_opts_init(struct vt_model_opts *o)
{
	*o = (struct vt_model_opts){
		.page_shift = 12,
		.va_bits = 48,
		.cpus = 8,
	};
	vt_model_opts_kernel(o, VT_KERNEL_MAINLINE);
}

void vt_model_opts_kernel(struct vt_model_opts *o, enum vt_kernel_gen gen)
{
	o->kernel = gen;
	o->eager_barriers = gen == VT_KERNEL_V6_12;
	o->vmap_cont = gen != VT_KERNEL_V6_12;
	o->vmalloc_high_order = gen == VT_KERNEL_MAINLINE;
	o->flush_per_page = gen == VT_KERNEL_V6_12;
}

const char *vt_model_describe(void)
{
	return
	"--barriers=lazy|eager   lazy: arm64 lazy-MMU batching of kernel-mapping barriers,\n"
	"                        queue_pte_barriers() (v6.16, Ryan Roberts, 5fdd05efa1cd;\n"
	"                        lazy_mmu_mode_enable() in linux-mm/linux-mm @ 00cc00cd1fb6);\n"
	"                        eager: a dsb ishst + isb after every valid kernel store (<= v6.15)\n"
	"--vmap-cont=on|off      arch_vmap_pte_range_map_size(), arch_vmap_pte_supported_shift(),\n"
	"                        arch_vmap_pte_range_unmap_size() in arch/arm64/include/asm/vmalloc.h\n"
	"                        (v6.16+; linux-mm/linux-mm @ 47729a9d66f7)\n"
	"--vmalloc-pages=...     high-order: vm_area_alloc_pages() after a06157804399 (v6.19-rc1);\n"
	"                        order0: the bulk allocator before it\n"
	"--purge=lazy|immediate  lazy: free_vmap_area_noflush() + lazy_max_pages() purge;\n"
	"                        immediate: a purge after every unmap\n"
	"--tlbi-range            FEAT_TLBIRANGE in flush_tlb_kernel_range() (asm/tlbflush.h,\n"
	"                        linux-mm/linux-mm @ 3c9e86d84801)\n"
	"--kernel-flush=...      range-ops: flush_tlb_kernel_range() with\n"
	"                        __flush_tlb_range_limit_excess() and range TLBIs (after v6.12;\n"
	"                        linux-mm/linux-mm @ 3c9e86d84801); per-page: one vaale1is per page,\n"
	"                        flush_tlb_all() above MAX_DVM_OPS pages (v6.12)\n"
	"--initial=booted|empty  booted: upper tables of the vmalloc area exist (not counted)\n"
	"--cpus=N                lazy_max_pages() = fls(N) * 32 MiB / PAGE_SIZE\n"
	"--kernel=v6.12          eager barriers, no vmap CONT, order-0 vmalloc pages,\n"
	"                        per-page kernel TLB flush (Debian 12)\n"
	"--kernel=v6.16          lazy barriers, vmap CONT, order-0 vmalloc pages\n"
	"--kernel=mainline       lazy barriers, vmap CONT, high-order vmalloc pages (default)\n";
}
