#!/usr/bin/env python3
"""Compare what the real kernel did (probe module, QEMU plugin, ftrace) with the model.

  compare.py --vectors OUT-FTRACE          print the plugin's vectors= argument
  compare.py --trace=T --model=M.jsonl --plugin-run=OUT --plugin=P.txt --ftrace=OUT
             --kernel-config=C --release=R --vmaptool=V --out=DIR [--doc=FILE]

Per trace event: the leaf shape the module walked against the model's `shape`; the TLBIs by
kind and DSB/DMB/ISB by option the plugin counted at kernel addresses (baseline of empty
brackets subtracted; exceptions left out) against the model's metrics; the ftrace kprobe
hits against the model's block maps, purges and table allocations.  A difference is either
explained by one of the rules in EXPLAIN (each names the kernel source behind it; they are
listed in docs/validation.md) or makes the exit status 1.
"""
import bisect
import collections
import json
import re
import subprocess
import sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from a64 import decode  # noqa: E402  (after dont_write_bytecode)


# ---- the kernel's text symbols -----------------------------------------------------------------
def kallsyms(path):
    """Text symbols of /proc/kallsyms: a plain copy, or between the VT KALLSYMS markers."""
    syms = []
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    inside = "VT KALLSYMS-BEGIN" not in lines
    for line in lines:
        if line == "VT KALLSYMS-BEGIN":
            inside = True
        elif line == "VT KALLSYMS-END":
            break
        elif inside:
            p = line.split()
            if len(p) >= 3:
                syms.append((int(p[0], 16), p[2] + (" " + p[3] if len(p) > 3 else "")))
    syms.sort()
    return syms


class Symbols:
    def __init__(self, syms):
        self.syms = syms
        self.addrs = [a for a, _ in syms]

    def name(self, va):
        i = bisect.bisect_right(self.addrs, va) - 1
        return self.syms[i][1] if i >= 0 else "?"

    def find(self, name):
        for i, (a, n) in enumerate(self.syms):
            if n == name:
                return a, (self.syms[i + 1][0] if i + 1 < len(self.syms) else a + 0x800)
        return None


def vectors(path):
    s = Symbols(kallsyms(path))
    out = []
    for n in ("vectors", "__bp_harden_el1_vectors"):
        r = s.find(n)
        if r:
            out.append("vec=%x:%x" % (r[0], r[1] - r[0]))
    if not out:
        sys.exit("compare.py: no vector table in the kallsyms of %s" % path)
    print(",".join(out))


# ---- the run's outputs ------------------------------------------------------------------------------
RES = re.compile(r"^VT (\d+) R (.*)$")


def results(path):
    """index -> dict of the module's result line; plus the INFO line and the baseline count."""
    res, info, base, errors = {}, {}, 0, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("VT INFO "):
                info = dict(kv.split("=", 1) for kv in line[8:].split() if "=" in kv)
            elif line.startswith("VT BASE "):
                base += 1
            else:
                m = RES.match(line)
                if m:
                    d = dict(kv.split("=", 1) for kv in m.group(2).split())
                    res[int(m.group(1))] = d
                elif re.match(r"^VT \d+ E ", line) or re.match(r"^VT \d+ $", line):
                    errors.append(line)
    return res, info, base, errors


def plugin_counts(path):
    """seq -> list of (vaddr, insn, count, irq); seq -> exceptions."""
    sites = collections.defaultdict(list)
    exc = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "S":
                sites[int(p[1])].append((int(p[2], 16), int(p[3], 16), int(p[4]), int(p[5])))
            elif p and p[0] == "C":
                exc[int(p[1])] = int(p[2])
    return sites, exc


def ftrace_text(path):
    lines = []
    inside = False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("VT TRACE-BEGIN"):
                inside = True
            elif line.startswith("VT TRACE-END"):
                break
            elif inside:
                lines.append(line)
    return lines


KP = re.compile(r"\s(kp/)?(\w+):\s*\(")
MARK = re.compile(r"tracing_mark_write: vtop (\d+) ")


TASK = re.compile(r"^\s*(.+?)-(\d+)\s+\[")


def ftrace_counts(lines):
    """index -> Counter of kprobe event names between the op's marker and the next one.

    Only the task that ran the op (the one that wrote the marker) and kworkers (the drain of
    lazily freed areas) count: the shell's children (cat) build user page tables in between.
    """
    per = collections.defaultdict(collections.Counter)
    cur = pid = None
    # kp/purge_ret stands in for the tracepoint only where there is none (6.1), as in the importer
    has_tp = any(" purge_vmap_area_lazy: " in line for line in lines)
    brackets = 0   # the module's brackets (kp/vt_open) seen since the marker
    inside = False
    for line in lines:
        t = TASK.match(line)
        m = MARK.search(line)
        if m:
            cur = int(m.group(1))
            pid = t.group(2) if t else None
            brackets, inside = 0, False
            continue
        if " vt_open: (" in line:
            brackets, inside = brackets + 1, True
            continue
        if " vt_close: (" in line:
            inside = False
            continue
        if cur is None or not t:
            continue
        if t.group(2) != pid and not t.group(1).startswith("kworker/"):
            continue
        if " purge_vmap_area_lazy: " in line:
            # the tracepoint ends every __purge_vmap_area_lazy() pass, empty ones included
            # (vm_unmap_aliases() with nothing lazy: start=ULONG_MAX end=0 num_purged=0)
            n = re.search(r"num_purged=(\d+)", line)
            per[cur]["tp_purge" if n and int(n.group(1)) else "tp_purge_empty"] += 1
            continue
        if " purge_ret: " in line:
            if has_tp:
                continue
            # 6.1, before the tracepoint: __purge_vmap_area_lazy() returns true when it purged
            per[cur]["tp_purge" if re.search(r" ret=0*1\b", line) else "tp_purge_empty"] += 1
            continue
        m = re.search(r"\s(\w+): \((\S+)\+0x0/", line)
        if m:
            a = re.search(r" addr=(0x[0-9a-f]+)", line)
            if a and int(a.group(1), 16) < (1 << 63):
                continue
            per[cur][m.group(1)] += 1
            if inside and (m.group(1).startswith("pa_") or m.group(1) == "free_pages"):
                # the page allocator inside the op's bracket (1) or the drain's (2)
                o = re.search(r" order=(\d+)", line)
                key = ("in." if brackets == 1 else "drain.") + m.group(1)
                per[cur][key] += 1
                if o:
                    per[cur][key + ".pages"] += 1 << int(o.group(1))
    return per


def read_trace(path):
    with open(path) as f:
        text = f.read()
    first, _, rest = text.partition("\n")
    try:
        head = json.loads(first)
        if "events" not in head:
            return [json.loads(l) for l in rest.splitlines() if l.strip()]
    except json.JSONDecodeError:
        pass
    return json.loads(text)["events"]


def model_lines(path):
    """index -> (event line, triggered purge line or None)."""
    per = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            per[d["index"]].append(d)
    out = {}
    for i, ls in per.items():
        out[i] = (ls[0], ls[1] if len(ls) > 1 else None)
    return out


# ---- kernel functions whose barriers the model counts -----------------------------------------------
# The mapping engine as the model sees it: the page-table code of mm/vmalloc.c (vmap_*_range,
# vunmap_*_range inlined into these), the table allocation of mm/memory.c, arm64's block and
# table helpers (arch/arm64/mm/mmu.c), the lazy purge with its inlined flush_tlb_kernel_range()
# and vmalloc's own smp_wmb() (clear_vm_uninitialized_flag(), inlined into
# __vmalloc_node_range_noprof).  Barriers elsewhere (page and slab allocators, RCU, locks,
# the scheduler) are other kernel work the model does not claim to count; they are listed
# per function in docs/validation.md.
ENGINE = {
    "vmap_small_pages_range_noflush", "vmap_range_noflush", "__vmap_pages_range_noflush",
    "vmap_pages_range_noflush", "vmap_pages_range", "__vunmap_range_noflush",
    "vunmap_range_noflush", "vunmap_range", "__pte_alloc_kernel", "__pmd_alloc", "__pud_alloc",
    "__p4d_alloc", "pmd_set_huge", "pud_set_huge", "pmd_free_pte_page", "pud_free_pmd_page",
    "pmd_clear_huge", "pud_clear_huge", "set_swapper_pgd", "__purge_vmap_area_lazy",
    "_vm_unmap_aliases", "__vmalloc_node_range_noprof", "vmap", "vm_map_ram", "vm_unmap_ram",
    "vb_free", "free_vmap_block", "__ioremap_prot", "generic_ioremap_prot", "ioremap_page_range",
    "vfree", "vunmap", "remove_vm_area", "free_unmap_vmap_area", "__vmalloc_area_node",
    "vmap_pages_pud_range", "vmap_pages_pmd_range", "vmap_pages_pte_range", "__set_ptes",
    "set_ptes", "__set_pte", "set_pte_at", "__ptep_get_and_clear", "ptep_get_and_clear",
    # 6.1's names (before the _noprof split of 6.10)
    "__vmalloc_node_range",
    # helpers gcc 16 emits out of line (Linux 7.2 as Debian builds it): the lazy-MMU barriers
    # (arch/arm64/include/asm/pgtable.h: queue_pte_barriers(), emit_pte_barriers(),
    # arch_leave_lazy_mmu_mode() -> lazy_mmu_mode_disable()) and the TLB maintenance of
    # arch/arm64/include/asm/tlbflush.h; their barriers are mapping work
    "lazy_mmu_mode_disable", "lazy_mmu_mode_enable", "queue_pte_barriers", "emit_pte_barriers",
    "flush_tlb_kernel_range", "__flush_tlb_kernel_pgtable",
}


# the generations before lazy-MMU barriers and range kernel flushes (docs/model.md)
EAGER_GENERATIONS = ("v6.1", "v6.12")
MAX_DVM_OPS = 512  # PTRS_PER_PTE (arch/arm64/include/asm/tlbflush.h, v6.12)
MAPS = ("vmalloc", "vmap", "vm_map_ram", "ioremap")

# The page allocator: each model metric and the kernel calls (kprobes of kprobe_events,
# counted inside the module's bracket only) it is compared with, the first probe of each
# alternative that this build has out of line (mm/page_alloc.c: 7.2's __free_frozen_pages(),
# free_frozen_page_commit(), free_one_page(), free_pages_bulk() -> free_prepared_contig_range();
# 6.1 and 6.12's free_unref_page() / __free_pages_ok(), free_unref_page_commit()).
PAGE_ALLOC = (
    ("free_calls", (("pa_free_frozen",), ("pa_free_unref", "pa_free_ok"))),
    ("free_pcp", (("pa_commit",), ("pa_commit_unref",))),
    ("free_buddy", (("pa_free_one", "pa_free_one_c"),)),
    ("contig_range_calls", (("pa_prep_contig",), ("pa_contig",))),
)
# Not compared: rmqueue_locks and buddy_blocks count rmqueue_bulk() refills and
# rmqueue_buddy() calls, which depend on what the per-CPU lists hold, and the kernel's hold
# whatever boot left there while the model's start empty (core/mm/page_alloc.h); 6.12 and 7.2
# also inline both into rmqueue().
SHAPE = (("pte", "pte"), ("pte_cont", "cont"), ("pmd_block", "pmd"), ("pud_block", "pud"))
BARRIERS = ("dsb.ish", "dsb.ishst", "dmb", "isb")


def flush_tlbis(start, end, tlbi_range, lpa2, per_page):
    """The TLBIs of flush_tlb_kernel_range(start, end), 4K pages, as a Counter.

    arch/arm64/include/asm/tlbflush.h (torvalds/linux v7.2 and v6.12; the model's
    arch/arm64/tlb.c): v6.12 flushes everything above MAX_DVM_OPS pages, else one vaale1is per
    page; since 6.13 __flush_tlb_range_limit_excess() flushes everything above
    MAX_TLBI_RANGE_PAGES (with range ops) or from MAX_DVM_OPS pages (without), and
    __flush_tlb_range_op() issues single vaale1is ops for the last page and, with LPA2, until
    the start is 64K aligned, range ops (rvaale1is) of up to 32 units of 2^(5*scale+1) pages
    from scale 3 down.
    """
    c = collections.Counter()
    start &= ~0xfff
    end = (end + 0xfff) & ~0xfff
    pages = (end - start) >> 12
    if per_page:
        c["tlbi.vmalle1is" if pages > MAX_DVM_OPS else "tlbi.vaale1is"] += 1 if pages > MAX_DVM_OPS else pages
        return c
    if (pages > (32 << 16)) if tlbi_range else (pages >= MAX_DVM_OPS):
        c["tlbi.vmalle1is"] += 1
        return c
    if not tlbi_range:
        c["tlbi.vaale1is"] += pages
        return c
    scale = 3
    while pages > 0:
        if pages == 1 or (lpa2 and start & 0xffff):
            c["tlbi.vaale1is"] += 1
            start += 0x1000
            pages -= 1
            continue
        unit = 1 << (5 * scale + 1)
        num = min(pages // unit, 32)
        if num:
            c["tlbi.rvaale1is"] += 1
            start += (num * unit) << 12
            pages -= num * unit
        scale -= 1
    return c


def sections(va, size):
    """The PTE tables (2 MiB sections) a PTE-mapped range [va, va + size) spans."""
    return ((va + size - 1) >> 21) - (va >> 21) + 1 if size else 0


def base_name(sym):
    return re.sub(r"\.(isra|constprop|part|cold)\.\d+.*$", "", sym.split()[0])


class Comparison:
    # what validation_doc.py reads of this module, through the comparison it is
    # handed (it imports nothing of compare.py, which imports it)
    PAGE_ALLOC = PAGE_ALLOC

    def __init__(self, a):
        self.a = a
        self.events = read_trace(a["trace"])
        self.model = model_lines(a["model"])
        self.res, self.info, self.nbase, self.errors = results(a["plugin-run"])
        self.fres, self.finfo, _, ferr = results(a["ftrace"])
        self.errors += ferr
        self.syms = Symbols(kallsyms(a.get("kallsyms", a["ftrace"])))
        self.sites, self.exc = plugin_counts(a["plugin"])
        self.ftrace = ftrace_text(a["ftrace"])
        self.fcount = ftrace_counts(self.ftrace)
        self.purge_spans = self.spans()
        # the kprobes this kernel could not place (init.sh: VT NOPROBE p:kp/NAME)
        self.noprobe = set()
        with open(a["ftrace"], errors="replace") as f:
            for line in f:
                if line.startswith("VT NOPROBE "):
                    self.noprobe.add(line.split()[2].split("/")[-1])
        self.pa = []   # (index, op, {metric: (kernel, model)})
        # page-allocator calls are counted inside the module's brackets (kp/vt_open,
        # kp/vt_close); a recording without them is not compared on them
        self.brackets = any(" vt_open: (" in line for line in self.ftrace)
        self.rows = []
        self.table = []  # (index, op, kernel counts, model counts, ftrace counts, model line)
        self.other = collections.Counter()   # (function, insn) -> count outside ENGINE
        self.fails = 0
        self.explained = collections.Counter()

    def spans(self):
        """index -> list of (start, end) of the kernel's __purge_vmap_area_lazy calls."""
        out = collections.defaultdict(list)
        cur = None
        for line in self.ftrace:
            m = MARK.search(line)
            if m:
                cur = int(m.group(1))
                continue
            m = re.search(r" purge_lazy: \(\S+\) start=(0x[0-9a-f]+) end=(0x[0-9a-f]+)", line)
            if m and cur is not None:
                out[cur].append((int(m.group(1), 16), int(m.group(2), 16)))
        return out

    def kernel_counts(self, seq):
        """Counter of tlbi.KIND, dsb.OPT, dmb, isb in ENGINE functions; tlbi from anywhere."""
        c = collections.Counter()
        for va, insn, n, irq in self.sites.get(seq, []):
            kind, opt = decode(insn)
            fn = base_name(self.syms.name(va))
            c["irq." + kind] += irq
            if not n:
                continue
            if kind == "tlbi":
                c["tlbi." + opt] += n
                if fn in ("pmd_free_pte_page", "pud_free_pmd_page", "__flush_tlb_kernel_pgtable"):
                    c["tables.free"] += n
                continue
            if kind == "dmb" and fn in ("__pte_alloc_kernel", "__pmd_alloc", "__pud_alloc",
                                        "__p4d_alloc"):
                c["tables.alloc"] += n
            key = "dsb." + opt if kind == "dsb" else kind
            if fn in ENGINE:
                c[key] += n
            else:
                self.other[(fn, key)] += n
                c["other." + key] += n
        return c

    @staticmethod
    def model_counts(line):
        c = collections.Counter()
        if not line:
            return c
        m = line["metrics"]
        for k, v in m["tlbi_by_kind"].items():
            c["tlbi." + k] += v
        for k, v in m["dsb_by_kind"].items():
            c["dsb." + k] += v
        c["dmb"] += m["dmb"]
        c["isb"] += m["isb"]
        return c

    def run(self):
        a = self.a
        # the baseline: the smallest count of each key over the empty brackets
        base = None
        for s in range(self.nbase):
            c = self.kernel_counts(s)
            base = c if base is None else collections.Counter(
                {k: min(base[k], c[k]) for k in set(base) | set(c)})
        self.base = base or collections.Counter()
        self.other.clear()
        seq = self.nbase
        for i, ev in enumerate(self.events):
            r = self.res.get(i)
            if r is None:
                self.fail(i, ev["op"], "module", "no result line (the operation failed)")
                continue
            mline, mpurge = self.model.get(i, (None, None))
            kc = self.kernel_counts(seq) - self.base
            seq += 1
            kd = collections.Counter()
            if r.get("drain") == "1":
                kd = self.kernel_counts(seq) - self.base
                seq += 1
            self.compare_op(i, ev, r, mline, kc, self.fres.get(i))
            if mpurge or r.get("drain") == "1":
                self.compare_drain(i, mpurge, kd, r)
        return self.finish()

    def fail(self, i, op, what, text):
        self.rows.append((i, op, what, text, "DIFF"))
        self.fails += 1

    def note(self, i, op, what, text, rule):
        self.rows.append((i, op, what, text, rule))
        self.explained[rule] += 1

    def compare_op(self, i, ev, r, m, kc, fr):
        op = ev["op"]
        if m is None:
            self.fail(i, op, "model", "no per-event line")
            return
        mm = m["metrics"]
        # leaf shape
        ks = {k: int(r[rk]) for k, rk in SHAPE}
        ms = {k: m["shape"][k] for k, _ in SHAPE}
        if ks != ms:
            self.fail(i, op, "shape", "kernel %s, model %s" % (fmt(ks), fmt(ms)))
        # instructions (plugin run)
        mc = self.model_counts(m)
        keys = sorted(k for k in set(kc) | set(mc) if k.startswith("tlbi."))
        diffs = {k: (kc[k], mc[k]) for k in keys + list(BARRIERS) if kc[k] != mc[k]}
        moved = int(r["va"], 16) != int(m["va"], 16)
        if diffs:
            # rule "placement": the kernel placed the area elsewhere (its vmalloc space starts
            # with boot-time areas), so other page tables existed there.  Each table allocated
            # costs __pte_alloc_kernel()/__pmd_alloc()'s smp_wmb() and set_pmd()/set_pud()'s
            # dsb(ishst); isb() (mm/memory.c; arch/arm64/include/asm/pgtable.h); each PTE table
            # a block replaces costs pmd_free_pte_page()'s __flush_tlb_kernel_pgtable():
            # dsb(ishst); tlbi vaae1is; dsb(ish); isb() (arch/arm64/mm/mmu.c, tlbflush.h).
            da = kc["tables.alloc"] - mm["tables_allocated"]
            df = kc["tables.free"] - mm["tables_freed"]
            # under lazy barriers (6.16+: vmap_pte_range() and vunmap_pte_range() in
            # arch_enter/leave_lazy_mmu_mode(), mm/vmalloc.c; arm64's emit_pte_barriers(),
            # arch/arm64/include/asm/pgtable.h) a PTE table's section costs one dsb(ishst);
            # isb() however many PTEs it writes: an area crossing one more 2 MiB boundary at
            # the kernel's address costs one more pair
            dsec = 0
            if self.lazy() and not ks["pmd_block"] and not ks["pud_block"] and op in MAPS:
                dsec = sections(int(r["va"], 16), int(r["size"], 16)) - \
                    sections(int(m["va"], 16), int(r["size"], 16))
            want = collections.Counter({"dmb": da, "dsb.ishst": da + df + dsec, "isb": da + df + dsec,
                                        "dsb.ish": df, "tlbi.vaae1is": df})
            got = {k: kc[k] - mc[k] for k in diffs}
            fl = self.flushed(r.get("flush"))
            if moved and (da or df or dsec) and all(got[k] == want[k] for k in diffs) and \
                    all(want[k] == 0 or k in diffs for k in want):
                self.note(i, op, "instructions", "kernel %s, model %s (tables %+d allocated, %+d freed; "
                          "PTE sections %+d)" % (fmtc(kc, diffs), fmtc(mc, diffs), da, df, dsec), "placement")
            elif fl is not None and all(k.startswith("tlbi.") for k in diffs) and \
                    all(kc[k] == fl[k] for k in set(fl) | set(diffs)):
                # rule "flushed range": the purge flushed the range of the kernel's own areas
                # (the vmalloc:purge_vmap_area_lazy tracepoint of this boot, read by the
                # module), and its TLBIs are exactly what flush_tlb_kernel_range() issues for
                # that range (flush_tlbis())
                self.note(i, op, "instructions", "kernel %s, model %s (kernel flushed %s)" % (
                    fmtc(kc, diffs), fmtc(mc, diffs), r.get("flush")), "flushed range")
            else:
                self.fail(i, op, "instructions", "kernel %s, model %s" % (
                    fmtc(kc, diffs), fmtc(mc, diffs)))
        # function counts (ftrace run)
        if fr is None:
            self.fail(i, op, "ftrace", "no result line in the ftrace run")
            return
        fc = self.fcount.get(i, collections.Counter())
        fmoved = int(fr["va"], 16) != int(m["va"], 16)
        checks = [
            ("block maps", "pmd_set_huge + pud_set_huge", fc["pmd_set_huge"] + fc["pud_set_huge"],
             "block_maps", mm["block_maps"], False),
            ("walks", "vmap_small_pages_range_noflush + vmap_range_noflush + __vunmap_range_noflush",
             fc["vmap_small"] + fc["vmap_range"] + fc["vunmap_range"], "table_walks",
             mm["table_walks"], False),
            # the model's `purges` counts the passes that purged areas: the
            # vmalloc:purge_vmap_area_lazy tracepoints with num_purged > 0 (an empty pass of
            # vm_unmap_aliases() flushes nothing and is not counted)
            ("purges", "vmalloc:purge_vmap_area_lazy with num_purged > 0",
             fc["tp_purge"] - (1 if r.get("drain") == "1" else 0), "purges", mm["purges"], False),
            ("tables", "__pte_alloc_kernel + __pmd_alloc + __pud_alloc + __p4d_alloc",
             sum(fc[k] for k in ("pte_alloc_kernel", "pmd_alloc", "pud_alloc", "p4d_alloc")),
             "tables_allocated", mm["tables_allocated"], True),
            ("tables freed", self.pte_free_name() + " + pud_free_pmd_page",
             self.tables_freed(fc), "tables_freed", mm["tables_freed"], True),
        ]
        for what, kname, kv, mname, mv, placed in checks:
            if kv == mv:
                continue
            text = "kernel %s %d, model %s %d" % (kname, kv, mname, mv)
            if placed and fmoved:
                self.note(i, op, what, text + " (kernel va %s, model va %s)" % (fr["va"], m["va"]),
                          "placement")
            else:
                self.fail(i, op, what, text)
        self.compare_page_alloc(i, op, fc, mm)
        self.table.append((i, op, kc, mc, fc, m))

    def pte_free_name(self):
        # a compiler-split clone is its function: pud_free_pmd_page() calls
        # pmd_free_pte_page.part.0 (gcc 16, 7.2), which a kprobe on pmd_free_pte_page misses,
        # and pmd_free_pte_page() is then a wrapper that calls the clone when it frees: the
        # clone alone counts the PTE tables freed
        return "pmd_free_pte_page" if "pmd_free_pte_part" in self.noprobe or not self.brackets \
            else "pmd_free_pte_page.part.0"

    def tables_freed(self, fc):
        """Page tables the kernel freed: PTE tables (see pte_free_name) and PMD tables."""
        pte = fc["pmd_free_pte"] if self.pte_free_name() == "pmd_free_pte_page" else fc["pmd_free_pte_part"]
        return pte + fc["pud_free_pmd"]

    def pa_probes(self, metric):
        """The probes of the first alternative of METRIC this kernel has, or None."""
        for alt in dict(PAGE_ALLOC)[metric]:
            if any(p not in self.noprobe for p in alt):
                return [p for p in alt if p not in self.noprobe]
        return None

    def compare_page_alloc(self, i, op, fc, mm):
        """free_calls, free_pcp, free_buddy against the calls inside the op's bracket."""
        row = {}
        if not self.brackets:
            return
        # rule "page tables": the kernel frees a page table a block replaces at once
        # (pmd_free_pte_page(), pud_free_pmd_page() -> pte_free_kernel(), pmd_free():
        # arch/arm64/mm/mmu.c; one order-0 page each through __free_pages() to a per-CPU
        # list); the model counts those in tables_freed, and its free_calls are vfree's pages
        # only (docs/report-format.md)
        tp = self.tables_freed(fc)
        for metric, _ in PAGE_ALLOC:
            probes = self.pa_probes(metric)
            if probes is None:
                continue
            kv = sum(fc["in." + p] for p in probes)
            if metric in ("free_calls", "free_pcp") and tp and kv - tp == mm[metric]:
                self.note(i, op, "page allocator", "kernel %s %d, model %s %d (%d page tables freed)" % (
                    " + ".join(probes), kv, metric, mm[metric], tp), "page tables")
                kv -= tp
            row[metric] = (kv, mm[metric])
            # contig_range_calls counts physically contiguous runs of the vfree'd pages: they
            # depend on the pfns the buddy handed out (the kernel's memory after boot, the
            # model's a fresh unfragmented buddy: core/mm/page_alloc.h), as addresses depend
            # on placement; reported, not judged
            if metric != "contig_range_calls" and kv != mm[metric]:
                self.fail(i, op, "page allocator", "kernel %s %d, model %s %d" % (
                    " + ".join(probes), kv, metric, mm[metric]))
        if any(k or m for k, m in row.values()):
            self.pa.append((i, op, row))

    def compare_drain(self, i, mp, kd, r):
        op = "purge (lazy drain)"
        if not mp or r.get("drain") != "1":
            self.fail(i, op, "drain", "kernel drain %s, model triggered purge %s"
                      % (r.get("drain"), "yes" if mp else "no"))
            return
        mc = self.model_counts(mp)
        keys = sorted(k for k in set(kd) | set(mc) if k.startswith("tlbi."))
        diffs = {k: (kd[k], mc[k]) for k in keys + list(BARRIERS) if kd[k] != mc[k]}
        fl = self.flushed(r.get("dflush"))
        if diffs and fl is not None and all(k.startswith("tlbi.") for k in diffs) and \
                all(kd[k] == fl[k] for k in set(fl) | set(diffs)):
            self.note(i, op, "instructions", "kernel %s, model %s (kernel flushed %s)" % (
                fmtc(kd, diffs), fmtc(mc, diffs), r.get("dflush")), "flushed range")
        elif diffs:
            self.fail(i, op, "instructions", "kernel %s, model %s" % (fmtc(kd, diffs), fmtc(mc, diffs)))
        self.table.append((i, op, kd, mc, collections.Counter(), mp))

    def opt(self, name, default):
        v = default
        for o in self.model_opts():
            if o.startswith("--" + name + "="):
                v = o.split("=", 1)[1]
        return v

    def eager(self):
        """The model's generation has eager barriers and the per-page kernel flush of 6.12 and
        before (docs/model.md: v6.1 and v6.12; lazy barriers and range flushes from v6.16)."""
        return self.opt("kernel", "v6.12") in EAGER_GENERATIONS

    def lazy(self):
        """Lazy-MMU barriers in the model's generation (docs/model.md: v6.16, v7.2, mainline)."""
        return not self.eager()

    def flushed(self, text):
        """Counter of the TLBIs flush_tlb_kernel_range() issues for the module's ranges."""
        if not text or "more" in text:
            return None
        c = collections.Counter()
        for rng in text.split(","):
            a, b = (int(x, 16) for x in rng.split(":"))
            c += flush_tlbis(a, b, self.opt("tlbi-range", "off") == "on", self.opt("va-bits", "52") == "52",
                             self.eager())
        return c

    def model_opts(self):
        """The model's options: run.sh's --model-opts, or v6.12 at the booted VA size."""
        if self.a.get("model-opts"):
            return self.a["model-opts"].split()
        return ["--kernel=v6.12", "--va-bits=" + self.info.get("vabits_actual", self.info.get("va_bits", "52")),
                "--cpus=1", "--strategy=zigzag"]

    def known(self):
        """tools/realkernel/known-differences-SERIES.txt: model disagreements awaiting an engine fix."""
        out = {}
        path = self.a.get("known")
        if not path:
            return out
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    key, _, why = line.rstrip("\n").partition(" | ")
                    out[unplaced(key.strip())] = why.strip()
        return out

    def round_trip(self):
        """vmaptool import of the ftrace run, replayed, against the kernel's own shapes."""
        self.rt = {"rows": [], "warnings": [], "matched": 0, "imported": 0, "dropped": collections.Counter()}
        v, out = self.a.get("vmaptool"), self.a.get("out")
        if not v or not out:
            return
        txt = out + "/ftrace.txt"
        with open(txt, "w") as f:
            f.writelines(self.ftrace)
        imp = out + "/imported.json"
        p = subprocess.run([v, "import", txt, "-o", imp], capture_output=True, text=True)
        self.rt["warnings"] = [l for l in p.stderr.splitlines() if l.strip()]
        if p.returncode:
            self.fail(-1, "import", "round trip", "vmaptool import failed: " + p.stderr.strip())
            return
        pe = out + "/imported.jsonl"
        # the same model options as the comparison (the booted kernel's generation, VA size
        # and FEAT_TLBIRANGE: run.sh --model-opts)
        p = subprocess.run([v, "replay", "-q"] + self.model_opts() + [
                            "--use-trace-va", "--per-event=" + pe,
                            "-o", "/dev/null", imp], capture_output=True, text=True)
        if p.returncode:
            # the run's folder is OUT, so that a known difference does not name it
            self.fail(-1, "import", "round trip", "replay of the import failed: " +
                      p.stderr.strip().replace(out + "/", "OUT/"))
            return
        model = model_lines(pe)
        ievents = read_trace(imp)
        self.rt["imported"] = len(ievents)
        kres = sorted(self.fres.items())
        k = 0
        seen = set()
        for j, ev in enumerate(ievents):
            if ev["op"] == "purge":
                continue
            va = int(ev.get("va", "0"), 16) if isinstance(ev.get("va"), str) else ev.get("va", 0)
            # the kernel's next operation of the same kind at the same address
            while k < len(kres) and not (kres[k][1]["op"] == ev["op"] and int(kres[k][1]["va"], 16) == va):
                k += 1
            if k == len(kres):
                self.fail(j, ev["op"], "round trip", "imported event at va 0x%x matches no kernel operation" % va)
                k = 0
                continue
            i, r = kres[k]
            seen.add(i)
            m = model[j][0]
            ks = {key: int(r[rk]) for key, rk in SHAPE}
            ms = {key: m["shape"][key] for key, _ in SHAPE}
            # the same boot's function counts: block maps and top-down walks
            fc = self.fcount.get(i, collections.Counter())
            kb = fc["pmd_set_huge"] + fc["pud_set_huge"]
            kw = fc["vmap_small"] + fc["vmap_range"] + fc["vunmap_range"]
            mb, mw = m["metrics"]["block_maps"], m["metrics"]["table_walks"]
            ok = ks == ms and int(m["va"], 16) == va and kb == mb and kw == mw
            self.rt["rows"].append((j, ev["op"], i, r["va"], fmt(ks), fmt(ms), m["va"], ok))
            if ok:
                self.rt["matched"] += 1
            else:
                self.fail(j, ev["op"], "round trip",
                          "event %d (kernel op %d): kernel %s at %s, block maps %d, walks %d; "
                          "imported+replayed %s at %s, block_maps %d, table_walks %d"
                          % (j, i, fmt(ks), r["va"], kb, kw, fmt(ms), m["va"], mb, mw))
            k += 1
        # the whole run must come back: every operation, and each explicit purge once (the
        # drain worker's are the engine's own, not imported)
        for i, r in kres:
            if i not in seen and r["op"] != "purge":
                self.rt["dropped"][r["op"]] += 1
                self.fail(i, r["op"], "round trip", "kernel operation at %s is not in the import" % r["va"])
        kp = sum(1 for _, r in kres if r["op"] == "purge")
        ip = sum(1 for ev in ievents if ev["op"] == "purge")
        self.rt["purges"] = ip
        if kp != ip:
            self.fail(-1, "purge", "round trip", "the kernel ran %d explicit purges, the import has %d" % (kp, ip))

    def geometry(self):
        """The model's vmalloc range is the booted kernel's: VMALLOC_START and VMALLOC_END as
        the module's info line reports them (generation, VA size: --modules-region and
        --vmalloc-end), tried with one-page vmallocs at and just past each end under
        --use-trace-va (the page and its guard page must fit exactly)."""
        v, out = self.a.get("vmaptool"), self.a.get("out")
        if not v or not out or "vmalloc_start" not in self.info or "vmalloc_end" not in self.info:
            return
        start, end = int(self.info["vmalloc_start"], 16), int(self.info["vmalloc_end"], 16)
        path = out + "/geometry.json"
        fails = self.fails
        for va, fits, what in ((start, True, "VMALLOC_START"), (start - 4096, False, "below VMALLOC_START"),
                               (end - 8192, True, "the last page below VMALLOC_END"),
                               (end - 4096, False, "past VMALLOC_END")):
            with open(path, "w") as f:
                json.dump({"format": "vmaptool-trace", "version": 1, "events": [
                    {"op": "vmalloc", "id": 1, "size": 4096, "va": "0x%x" % va}]}, f)
            p = subprocess.run([v, "replay", "-q"] + self.model_opts() + [
                                "--use-trace-va", "-o", "/dev/null", path], capture_output=True, text=True)
            if (p.returncode == 0) != fits:
                self.fail(-1, "geometry", "vmalloc range",
                          "a page at 0x%x (%s of the kernel's 0x%x..0x%x) %s in the model" % (
                              va, what, start, end, "does not fit" if fits else "fits"))
        if self.fails == fails:
            self.geometry_checked = (start, end)

    def finish(self):
        for line in self.errors:
            self.fail(-1, "?", "module", line)
        self.geometry()
        self.round_trip()
        known = self.known()
        used = set()
        rows = []
        for i, op, what, text, rule in self.rows:
            key = unplaced("%d %s %s: %s" % (i, op, what, text))
            if rule == "DIFF" and key in known:
                rule = "known"
                used.add(key)
                self.fails -= 1
                self.explained["known"] += 1
            rows.append((i, op, what, text, rule))
        self.rows = rows
        for key in known:
            if key not in used:
                self.fail(-1, "known", "stale", "listed in known-differences-SERIES.txt but not seen: " + key)
        for i, op, what, text, rule in self.rows:
            if rule:
                print("%s %3d %-12s %-12s %s%s" % ("DIFF" if rule == "DIFF" else "EXPL", i, op, what, text,
                                                   "" if rule == "DIFF" else " [%s]" % rule))
        n = len(self.events)
        summary = "%d events, %d unexplained differences, %d explained (%s)" % (
            n, self.fails, sum(self.explained.values()),
            ", ".join("%s %d" % kv for kv in sorted(self.explained.items())) or "none")
        print("realkernel: " + summary)
        if getattr(self, "geometry_checked", None):
            print("realkernel: vmalloc range 0x%x..0x%x: the model's under the same options" %
                  self.geometry_checked)
        if self.rt["imported"]:
            print("realkernel: import round trip: %d imported events (%d explicit purges), %d match the "
                  "kernel's address, shape, block maps and walks; "
                  "kernel operations not imported: %s" % (
                      self.rt["imported"], self.rt.get("purges", 0), self.rt["matched"],
                      ", ".join("%s %d" % kv for kv in sorted(self.rt["dropped"].items())) or "none"))
        if self.a.get("doc"):
            import validation_doc
            validation_doc.write(self, self.a["doc"], summary, known)
        return 1 if self.fails else 0

def unplaced(text):
    """A difference without its kernel addresses (they move from boot to boot): ADDR."""
    return re.sub(r"0x[0-9a-f]{9,}", "ADDR", text)


def fmt(s):
    return "pte %d cont %d pmd %d pud %d" % (s["pte"], s["pte_cont"], s["pmd_block"], s["pud_block"])


def fmtc(c, keys):
    return ", ".join("%s %d" % (k, c[k]) for k in sorted(keys))


def main(argv):
    args = {}
    for a in argv[1:]:
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            args[k] = v
        elif a == "--vectors":
            args["vectors"] = True
        else:
            args.setdefault("_", []).append(a)
    if args.get("vectors"):
        vectors(args["_"][0])
        return 0
    return Comparison(args).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
