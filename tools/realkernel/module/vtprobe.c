// SPDX-License-Identifier: GPL-2.0
/*
 * vtprobe: performs the operations of a vmaptool trace on a real arm64 kernel and reports,
 * after each one, the address chosen and the leaf shape of the kernel page tables over the
 * area (tools/realkernel/README.md).
 *
 * Interface: /proc/vtprobe.  Each write(2) is one command line; it is executed at once and
 * its result line can then be read back.  Commands (slots are small integers chosen by the
 * converter, trace2ops.py):
 *
 *   info                              geometry of the running kernel
 *   nop                               an empty bracket (the plugin's baseline)
 *   vmalloc SLOT BYTES HUGE           vmalloc() (HUGE=0) or vmalloc_huge() (HUGE=1) of
 *                                     exactly BYTES (not rounded: the kernel rounds)
 *   vfree SLOT
 *   vmap SLOT ORDER:COUNT:CONTIG ...  vmap() of the pages of the runs: COUNT blocks of
 *   vm_map_ram SLOT RUNS...           2^ORDER pages (compound when ORDER > 0); CONTIG=1 makes
 *                                     the blocks of a run physically contiguous
 *   vunmap SLOT / vm_unmap_ram SLOT   and free the pages
 *   ioremap SLOT PHYS SIZE            ioremap() (device nGnRE)
 *   iounmap SLOT
 *   purge                             vm_unmap_aliases()
 *
 * Every operation runs between two HINT instructions (hint #120 opens, hint #121 closes) that
 * are NOPs for the CPU and markers for the QEMU plugin (plugin/vtinsn.c).  When an operation
 * leaves the lazy-free count above lazy_max_pages(), mm/vmalloc.c's free_vmap_area_noflush()
 * has only scheduled drain_vmap_work; it is flushed here inside a bracket of its own and
 * reported as a "purge" line, which is where vmaptool charges it.  Each command runs as
 * SCHED_FIFO (sched_set_fifo()), so the kworker cannot run the drain it schedules (or
 * anything else) between the operation's bracket and that check: under CONFIG_PREEMPT_LAZY
 * (Linux 7.2) it otherwise runs wherever the next preemption point is.
 *
 * Non-exported symbols come from kallsyms_lookup_name(), whose address a kprobe gives.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/io.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/pgtable.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <asm/cpufeature.h>

/*
 * Before 6.9 (Debian 12's 6.1): no __ptep_get() (arm64's contpte split, 6.9), no
 * MAX_PAGE_ORDER (MAX_ORDER until 6.8), and neither LPA2 nor 5-level tables
 * (pgtable_l5_enabled(), lpa2_is_enabled(): arm64 LPA2 support, 6.9).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
#define __ptep_get(p) READ_ONCE(*(p))
#define vt_l5() 0
#define vt_lpa2() 0
#else
#define vt_l5() pgtable_l5_enabled()
#define vt_lpa2() lpa2_is_enabled()
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
#define MAX_PAGE_ORDER MAX_ORDER
#endif

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vmaptool ground-truth probe");

#define VT_SLOTS 1024
#define VT_OUT 512

enum vt_kind { VT_NONE, VT_VMALLOC, VT_VMAP, VT_RAM, VT_IO };

struct vt_slot {
	enum vt_kind kind;
	void *addr;
	unsigned long npages;     /* pages mapped (vmap, vm_map_ram) */
	struct page **pages;      /* one entry per base page */
	unsigned long nblocks;    /* allocated blocks, to free them */
	struct page **blocks;
	unsigned int *orders;
};

static struct vt_slot slots[VT_SLOTS];
static char out[VT_OUT];
static unsigned long seq;
static DEFINE_MUTEX(vt_lock);

static unsigned long (*vt_lookup)(const char *name);
static struct mm_struct *vt_init_mm;
static struct vm_struct *(*vt_find_vm_area)(const void *addr);
static struct work_struct *vt_drain_work;
static void *vt_drain_fn;   /* drain_vmap_area_work(), to recognise the work when queued */
static pgd_t *vt_pgd;       /* init_mm.pgd: swapper_pg_dir */

/*
 * The ranges the kernel's purges flushed inside the current bracket: the
 * vmalloc:purge_vmap_area_lazy tracepoint (6.2+) reports __purge_vmap_area_lazy()'s
 * flush_tlb_kernel_range(start, end) range and the areas purged.  A probe of ours on it
 * (no barriers) records them, so a purge's TLBIs are checked against the range this boot
 * flushed (its placement is not the model's).
 */
#define VT_FLUSHES 4
static unsigned long vt_fl[VT_FLUSHES][2];
static unsigned int vt_nfl;
static struct tracepoint *vt_purge_tp;

static void vt_purge_probe(void *data, unsigned long start, unsigned long end, unsigned int n)
{
	if (n && vt_nfl < VT_FLUSHES) {
		vt_fl[vt_nfl][0] = start;
		vt_fl[vt_nfl][1] = end;
	}
	if (n)
		vt_nfl++;
}

static void vt_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "purge_vmap_area_lazy"))
		vt_purge_tp = tp;
}

/* " KEY=S:E,S:E" of the flushes recorded since the bracket opened (empty: none) */
static void vt_flushes(char *buf, size_t len, const char *key)
{
	unsigned int i, n = min(vt_nfl, (unsigned int)VT_FLUSHES);
	size_t o;

	buf[0] = 0;
	if (!vt_nfl)
		return;
	o = scnprintf(buf, len, " %s=", key);
	for (i = 0; i < n; i++)
		o += scnprintf(buf + o, len - o, "%s0x%lx:0x%lx", i ? "," : "", vt_fl[i][0], vt_fl[i][1]);
	if (vt_nfl > n)
		scnprintf(buf + o, len - o, ",more");
}

/*
 * Out of line, so that the ftrace boot can probe them (kp/vt_open, kp/vt_close): the page
 * allocator's calls are counted between them only, not in the shell's fork and exit around
 * each command, nor in the module's own allocation of vmap pages.
 */
static noinline void vt_open(void)
{
	vt_nfl = 0;
	asm volatile("hint #120" ::: "memory");
}

static noinline void vt_close(void)
{
	asm volatile("hint #121" ::: "memory");
}

struct vt_shape {
	unsigned long pte, cont, pmd, pud;
};

/* Walk init_mm over [start, end) and count the leaves (as vmaptool's per-event shape). */
static void vt_walk(unsigned long start, unsigned long end, struct vt_shape *s)
{
	unsigned long a = start;

	memset(s, 0, sizeof(*s));
	while (a < end) {
		pgd_t *pgdp = pgd_offset_pgd(vt_pgd, a);
		p4d_t *p4dp;
		pud_t *pudp;
		pmd_t *pmdp;
		pte_t *ptep;
		pud_t pud;
		pmd_t pmd;
		pte_t pte;

		if (pgd_none(READ_ONCE(*pgdp))) {
			a = pgd_addr_end(a, end);
			continue;
		}
		p4dp = p4d_offset(pgdp, a);
		if (p4d_none(READ_ONCE(*p4dp))) {
			a = p4d_addr_end(a, end);
			continue;
		}
		pudp = pud_offset(p4dp, a);
		pud = READ_ONCE(*pudp);
		if (pud_none(pud)) {
			a = pud_addr_end(a, end);
			continue;
		}
		if (pud_leaf(pud)) {
			s->pud++;
			a = pud_addr_end(a, end);
			continue;
		}
		pmdp = pmd_offset(pudp, a);
		pmd = READ_ONCE(*pmdp);
		if (pmd_none(pmd)) {
			a = pmd_addr_end(a, end);
			continue;
		}
		if (pmd_leaf(pmd)) {
			s->pmd++;
			a = pmd_addr_end(a, end);
			continue;
		}
		ptep = pte_offset_kernel(pmdp, a);
		pte = __ptep_get(ptep);
		if (pte_valid(pte)) {
			s->pte++;
			if (pte_cont(pte))
				s->cont++;
		}
		a += PAGE_SIZE;
	}
}

static void vt_free_pages(struct vt_slot *sl)
{
	unsigned long i;

	for (i = 0; i < sl->nblocks; i++)
		__free_pages(sl->blocks[i], sl->orders[i]);
	kvfree(sl->pages);
	kvfree(sl->blocks);
	kvfree(sl->orders);
	sl->pages = NULL;
	sl->blocks = NULL;
	sl->orders = NULL;
	sl->nblocks = 0;
	sl->npages = 0;
}

/*
 * Allocate the pages of "ORDER:COUNT:CONTIG" runs.  Compound blocks (order > 0) are
 * allocated with __GFP_COMP as the dma-buf system heap does; a contiguous run of order-0
 * pages is one high-order allocation split into order-0 pages (split_page()).
 */
static int vt_alloc_runs(struct vt_slot *sl, const char *args)
{
	unsigned long total = 0, nb = 0, pi = 0, bi = 0, i;
	char *copy, *p, *tok;
	int pass, ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		copy = kstrdup(args, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		p = copy;
		while (!ret && (tok = strsep(&p, " ")) != NULL) {
			unsigned int order, count, contig;

			if (!*tok)
				continue;
			if (sscanf(tok, "%u:%u:%u", &order, &count, &contig) != 3 ||
			    order > MAX_PAGE_ORDER || !count || count > 65536) {
				ret = -EINVAL;
				break;
			}
			if (pass == 0) {
				total += (unsigned long)count << order;
				nb += count;
			} else if (order == 0 && contig && count > 1) {
				unsigned int o = get_order((unsigned long)count << PAGE_SHIFT);
				struct page *pg = alloc_pages(GFP_KERNEL, o);

				if (!pg) {
					ret = -ENOMEM;
					break;
				}
				split_page(pg, o);
				for (i = count; i < (1UL << o); i++)
					__free_page(pg + i);
				for (i = 0; i < count; i++) {
					sl->blocks[bi] = pg + i;
					sl->orders[bi++] = 0;
					sl->pages[pi++] = pg + i;
				}
			} else {
				for (i = 0; i < count; i++) {
					gfp_t gfp = GFP_KERNEL | (order ? __GFP_COMP : 0);
					struct page *pg = alloc_pages(gfp, order);
					unsigned long j;

					if (!pg) {
						ret = -ENOMEM;
						break;
					}
					sl->blocks[bi] = pg;
					sl->orders[bi++] = order;
					for (j = 0; j < (1UL << order); j++)
						sl->pages[pi++] = pg + j;
				}
			}
			sl->nblocks = bi;
		}
		kfree(copy);
		if (pass == 0 && !ret) {
			if (!total)
				return -EINVAL;
			sl->pages = kvmalloc_array(total, sizeof(*sl->pages), GFP_KERNEL);
			sl->blocks = kvmalloc_array(nb, sizeof(*sl->blocks), GFP_KERNEL);
			sl->orders = kvmalloc_array(nb, sizeof(*sl->orders), GFP_KERNEL);
			if (!sl->pages || !sl->blocks || !sl->orders)
				ret = -ENOMEM;
			sl->npages = total;
		}
	}
	return ret;
}

/* The mapped range of an area (guard page excluded), for the walk. */
static void vt_range(struct vt_slot *sl, unsigned long *start, unsigned long *end)
{
	unsigned long a = (unsigned long)sl->addr & PAGE_MASK;
	struct vm_struct *vm;

	*start = a;
	*end = a;
	if (sl->kind == VT_RAM) {
		*end = a + (sl->npages << PAGE_SHIFT);
		return;
	}
	vm = vt_find_vm_area((void *)a);
	if (vm)
		*end = (unsigned long)vm->addr + get_vm_area_size(vm);
}

static int vt_exec(char *line)
{
	struct vt_slot *sl = NULL;
	char *p = line, *cmd;
	unsigned long slot = 0, start = 0, end = 0, lazy = 0;
	struct vt_shape s = { 0 };
	const char *op;
	char fl[160], dfl[160];
	int ret = 0;

	cmd = strsep(&p, " ");
	op = cmd;
	if (!strcmp(cmd, "info")) {
		snprintf(out, sizeof(out),
			 "INFO release=%s va_bits=%d vabits_actual=%llu levels=%d l5=%d lpa2=%d tlbi_range=%d page_offset=0x%lx vmalloc_start=0x%lx vmalloc_end=0x%lx pmd_huge=%d pud_huge=%d lazy_cpus=%u\n",
			 utsname()->release, VA_BITS, (unsigned long long)vabits_actual,
			 CONFIG_PGTABLE_LEVELS, vt_l5(), vt_lpa2(), system_supports_tlb_range(),
			 (unsigned long)PAGE_OFFSET,
			 (unsigned long)VMALLOC_START, (unsigned long)VMALLOC_END,
			 arch_vmap_pmd_supported(PAGE_KERNEL), arch_vmap_pud_supported(PAGE_KERNEL),
			 num_online_cpus());
		return 0;
	}
	if (strcmp(cmd, "nop") && strcmp(cmd, "purge")) {
		char *t = strsep(&p, " ");

		if (!t || kstrtoul(t, 0, &slot) || slot >= VT_SLOTS)
			return -EINVAL;
		sl = &slots[slot];
	}

	if (!strcmp(cmd, "nop")) {
		vt_open();
		vt_close();
	} else if (!strcmp(cmd, "purge")) {
		vt_open();
		vm_unmap_aliases();
		vt_close();
	} else if (!strcmp(cmd, "vmalloc")) {
		unsigned long n, huge;
		char *a = strsep(&p, " "), *b = strsep(&p, " ");

		if (sl->kind != VT_NONE || !a || !b || kstrtoul(a, 0, &n) || kstrtoul(b, 0, &huge) || !n)
			return -EINVAL;
		vt_open();
		sl->addr = huge ? vmalloc_huge(n, GFP_KERNEL) : vmalloc(n);
		vt_close();
		if (!sl->addr)
			return -ENOMEM;
		sl->kind = VT_VMALLOC;
		vt_range(sl, &start, &end);
	} else if (!strcmp(cmd, "vmap") || !strcmp(cmd, "vm_map_ram")) {
		bool ram = cmd[2] == '_';

		if (sl->kind != VT_NONE || !p)
			return -EINVAL;
		ret = vt_alloc_runs(sl, p);
		if (ret) {
			vt_free_pages(sl);
			return ret;
		}
		vt_open();
		if (ram)
			sl->addr = vm_map_ram(sl->pages, sl->npages, NUMA_NO_NODE);
		else
			sl->addr = vmap(sl->pages, sl->npages, VM_MAP, PAGE_KERNEL);
		vt_close();
		if (!sl->addr) {
			vt_free_pages(sl);
			return -ENOMEM;
		}
		sl->kind = ram ? VT_RAM : VT_VMAP;
		vt_range(sl, &start, &end);
	} else if (!strcmp(cmd, "ioremap")) {
		unsigned long phys, size;
		char *a = strsep(&p, " "), *b = strsep(&p, " ");

		if (sl->kind != VT_NONE || !a || !b || kstrtoul(a, 0, &phys) || kstrtoul(b, 0, &size))
			return -EINVAL;
		vt_open();
		sl->addr = (void __force *)ioremap(phys, size);
		vt_close();
		if (!sl->addr)
			return -ENOMEM;
		sl->kind = VT_IO;
		vt_range(sl, &start, &end);
	} else if (!strcmp(cmd, "vfree") || !strcmp(cmd, "vunmap") ||
		   !strcmp(cmd, "vm_unmap_ram") || !strcmp(cmd, "iounmap")) {
		enum vt_kind want = cmd[1] == 'f' ? VT_VMALLOC : cmd[1] == 'u' ? VT_VMAP :
				    cmd[1] == 'm' ? VT_RAM : VT_IO;

		if (sl->kind != want)
			return -EINVAL;
		vt_range(sl, &start, &end);
		vt_open();
		switch (want) {
		case VT_VMALLOC: vfree(sl->addr); break;
		case VT_VMAP: vunmap(sl->addr); break;
		case VT_RAM: vm_unmap_ram(sl->addr, sl->npages); break;
		default: iounmap((void __iomem __force *)sl->addr); break;
		}
		vt_close();
		if (want == VT_VMAP || want == VT_RAM)
			vt_free_pages(sl);
		sl->kind = VT_NONE;
	} else {
		return -EINVAL;
	}
	vt_flushes(fl, sizeof(fl), "flush");
	dfl[0] = 0;
	seq++;
	/* free_vmap_area_noflush() scheduled the drain: run it now, bracketed on its own */
	if (vt_drain_work && work_pending(vt_drain_work)) {
		vt_open();
		flush_work(vt_drain_work);
		vt_close();
		vt_flushes(dfl, sizeof(dfl), "dflush");
		seq++;
		lazy = 1;
	}
	if (end > start)
		vt_walk(start, end, &s);
	snprintf(out, sizeof(out),
		 "R op=%s slot=%lu va=0x%lx size=0x%lx pte=%lu cont=%lu pmd=%lu pud=%lu drain=%lu%s%s\n",
		 op, slot, start, end - start, s.pte, s.cont, s.pmd, s.pud, lazy, fl, dfl);
	return 0;
}

static ssize_t vt_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char *line;
	int ret;

	if (len > 65536)
		return -E2BIG;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	strim(line);
	mutex_lock(&vt_lock);
	sched_set_fifo(current);
	ret = vt_exec(line);
	sched_set_normal(current, 0);
	if (ret)
		snprintf(out, sizeof(out), "E err=%d\n", ret);
	mutex_unlock(&vt_lock);
	kfree(line);
	return ret ? ret : len;
}

static ssize_t vt_read(struct file *f, char __user *ubuf, size_t len, loff_t *off)
{
	ssize_t r;

	mutex_lock(&vt_lock);
	r = simple_read_from_buffer(ubuf, len, off, out, strlen(out));
	mutex_unlock(&vt_lock);
	return r;
}

static const struct proc_ops vt_fops = {
	.proc_write = vt_write,
	.proc_read = vt_read,
	.proc_lseek = default_llseek,
};

/*
 * Without data symbols in kallsyms (6.1: CONFIG_KALLSYMS_ALL off) drain_vmap_work cannot be
 * looked up: a kprobe on queue_work_on(cpu, wq, work) finds it the first time
 * free_vmap_area_noflush() queues it (schedule_work()), by its function.
 */
static int vt_queue_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct work_struct *w = (struct work_struct *)regs->regs[2];

	if (!vt_drain_work && w && (void *)w->func == vt_drain_fn)
		vt_drain_work = w;
	return 0;
}

static struct kprobe vt_queue_kp = { .symbol_name = "queue_work_on", .pre_handler = vt_queue_pre };
static bool vt_queue_registered;

/* The kernel's root table: init_mm.pgd, or TTBR1_EL1's (swapper_pg_dir) when unnamed. */
static pgd_t *vt_root(void)
{
	u64 ttbr;

	if (vt_init_mm)
		return vt_init_mm->pgd;
	/* BADDR is [47:1] with 48-bit output addresses (no LPA/LPA2 before 6.9's LPA2) */
	ttbr = read_sysreg(ttbr1_el1) & GENMASK_ULL(47, 1) & PAGE_MASK;
	return (pgd_t *)phys_to_virt(ttbr);
}

static int __init vt_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	vt_lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	vt_init_mm = (void *)vt_lookup("init_mm");
	vt_find_vm_area = (void *)vt_lookup("find_vm_area");
	vt_drain_work = (void *)vt_lookup("drain_vmap_work");
	vt_drain_fn = (void *)vt_lookup("drain_vmap_area_work");
	if (!vt_find_vm_area) {
		pr_err("vtprobe: find_vm_area not in kallsyms\n");
		return -ENOENT;
	}
	vt_pgd = vt_root();
	if (!vt_drain_work && vt_drain_fn && !register_kprobe(&vt_queue_kp))
		vt_queue_registered = true;
	for_each_kernel_tracepoint(vt_find_tp, NULL);
	if (vt_purge_tp && tracepoint_probe_register(vt_purge_tp, (void *)vt_purge_probe, NULL))
		vt_purge_tp = NULL;
	if (!vt_drain_work && !vt_queue_registered)
		pr_warn("vtprobe: drain_vmap_work not found: lazy purges not bracketed\n");
	if (!proc_create("vtprobe", 0600, NULL, &vt_fops)) {
		if (vt_purge_tp)
			tracepoint_probe_unregister(vt_purge_tp, (void *)vt_purge_probe, NULL);
		if (vt_queue_registered)
			unregister_kprobe(&vt_queue_kp);
		return -ENOMEM;
	}
	return 0;
}

static void __exit vt_exit(void)
{
	remove_proc_entry("vtprobe", NULL);
	if (vt_purge_tp) {
		tracepoint_probe_unregister(vt_purge_tp, (void *)vt_purge_probe, NULL);
		tracepoint_synchronize_unregister();
	}
	if (vt_queue_registered)
		unregister_kprobe(&vt_queue_kp);
}

module_init(vt_init);
module_exit(vt_exit);
