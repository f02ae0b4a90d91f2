#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Replay fidelity of 'vmaptool import' against the recording itself.

import_replay.py VMAPTOOL RECORDING REPORT_TEXT

RECORDING is what is imported (trace.dat, or ftrace/report text, xz or
not); REPORT_TEXT is the text form of the same run (the recording itself
when it is text), from which this script extracts, independently of the
importer, what the recorded kernel did:

  (a) every vmalloc-range area: alloc_vmap_area size (guard included), in
      order;
  (b) the page_shift of its __vmap_pages_range_noflush and the number of
      walker calls (vmap_small_pages_range_noflush / vmap_range_noflush);
  (c) the __pte_alloc_kernel hits during its mapping (pmdp -> PMD index);
  (d) the order of free_vmap_area_noflush;
  (e) the __purge_vmap_area_lazy calls (kprobe start/end, tracepoint span,
      num_purged) and the lazily freed areas pending at each;
  (f) what the walker kprobes add up to: PTEs written (the pages of every
      vmap_small_pages_range_noflush / vmap_range_noflush call, less 512
      per pmd_set_huge and 512 * 512 per pud_set_huge) and PMD/PUD blocks.

Module/execmem areas (their own vstart..vend, below the vmalloc range) are
compared like the others: the import keeps them, in the module area.
(f) must equal the replay's pte_writes and block_maps totals, with either
VA placement: no mapping of the recording is left out.

Then it imports RECORDING, replays it with
  --kernel=v6.12 --va-bits=52 --per-event --strategy=zigzag --cpus=N
(N from the recording, so that lazy_max_pages is the recorded
nr_lazy_max), once with the engine's own VA placement and once with
--use-trace-va, and compares event by event.  Every difference that is
expected is explained on stdout ("DIFF ... because ..."); an unexplained
one is a FAIL.  Exit 0 if nothing failed, 1 otherwise.
"""
import json
import lzma
import re
import subprocess
import sys
import tempfile
import os

PAGE = 4096
PMD = 2 << 20

LINE = re.compile(r'^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]*\)\s+)?'
                  r'\[(?P<cpu>\d+)\]\s+(?:[.\w]{4,5}\s+)?'
                  r'(?P<ts>\d+\.\d+):\s+(?P<ev>[\w/]+):\s+(?P<rest>.*)$')
FIELD = re.compile(r'(\w+)[=:]\s*(0x[0-9a-fA-F]+|-?\d+)')

failures = 0


def fail(msg):
    global failures
    failures += 1
    print('FAIL: ' + msg)


def note(msg):
    print(msg)


def read_text(path):
    with open(path, 'rb') as f:
        head = f.read(6)
    if head == b'\xfd7zXZ\x00':
        with lzma.open(path, 'rt', errors='replace') as f:
            return f.read().splitlines()
    with open(path, 'r', errors='replace') as f:
        return f.read().splitlines()


def fields(rest):
    return {k: int(v, 16) if v.startswith('0x') else int(v)
            for k, v in FIELD.findall(rest)}


class Area:
    def __init__(self, i, pid, va, size, align, vstart, vend, ts):
        self.i, self.pid, self.va, self.size = i, pid, va, size
        self.align, self.vstart, self.vend, self.ts = align, vstart, vend, ts
        self.map = None            # (addr, end, page_shift)
        self.walks = 0             # walker calls of its mapping
        self.pte_allocs = []       # pmdp of each __pte_alloc_kernel hit
        self.freed = False
        self.comm = ''


def extract(lines, walker):
    """The recorded kernel's own account, in record order."""
    areas, seq, cpus = [], [], 0
    top = {}                       # pid -> area being set up
    live = {}                      # va -> area
    purge_kp = {}                  # pid -> (start, end) of the kprobe
    lazy = []                      # areas freed lazily, not purged yet
    for ln in lines:
        m = re.match(r'^cpus=(\d+)', ln) or re.search(r'#P:(\d+)', ln)
        if m and not cpus:
            cpus = int(m.group(1))
        m = LINE.match(ln)
        if not m:
            continue
        ev, pid, f = m.group('ev'), int(m.group('pid')), fields(m.group('rest'))
        comm = m.group('comm').strip()
        if ev == 'alloc_vmap_area':
            if f.get('failed'):
                continue
            a = Area(len(areas), pid, f['va_start'], f['size'], f['align'],
                     f['vstart'], f['vend'], m.group('ts'))
            a.comm = comm
            areas.append(a)
            top[pid] = a
            live[a.va] = a
        if ev in ('vmap_small', 'vmap_range') and f['end'] > f['addr']:
            walker['pages'] += (f['end'] - f['addr']) // PAGE
        elif ev in ('pmd_set_huge', 'pud_set_huge'):
            walker[ev] += 1
        if ev in ('vmap_pages', 'vmap_small', 'vmap_range'):
            a = top.get(pid)
            if not a or not (a.va <= f['addr'] < a.va + a.size):
                continue
            if ev == 'vmap_pages':
                a.map = (f['addr'], f['end'], f['page_shift'])
                seq.append(('map', a))
            else:
                a.walks += 1
        elif ev == 'pte_alloc_kernel':
            a = top.get(pid)
            if a and a.map:
                a.pte_allocs.append(f['pmdp'])
        elif ev == 'free_vmap_area_noflush':
            a = live.pop(f['va_start'], None)
            seq.append(('free', a, f['va_start'], f['nr_lazy']))
            if a:
                a.freed = True
                lazy.append(a)
            for p, t in list(top.items()):
                if t is a:
                    del top[p]
        elif ev == 'purge_lazy':
            purge_kp[pid] = (f['start'], f['end'], comm)
        elif ev == 'purge_vmap_area_lazy':
            kp = purge_kp.pop(pid, (None, None, comm))
            seq.append(('purge', kp, f['start'], f['end'], f['num_purged'],
                        list(lazy)))
            lazy = []
    return areas, seq, cpus or 1


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode:
        print('command failed (%d): %s\n%s' % (p.returncode, ' '.join(cmd),
                                              p.stderr))
        sys.exit(1)
    return p.stdout


def regions(start, end):
    return set(range(start // PMD, (end - 1) // PMD + 1))


def main():
    vt, recording, text = sys.argv[1:4]
    walker = {'pages': 0, 'pmd_set_huge': 0, 'pud_set_huge': 0}
    areas, seq, cpus = extract(read_text(text), walker)
    # the vmalloc range is the widest vstart..vend seen (module/execmem
    # areas have their own)
    vstart, vend = max(((a.vstart, a.vend) for a in areas),
                       key=lambda r: r[1] - r[0])
    vm = [a for a in areas if (a.vstart, a.vend) == (vstart, vend)]
    mods = [a for a in areas if a.vstart < vstart]
    kept = vm + mods
    note('recording: %s (text %s), %d CPU(s), vmalloc range 0x%x-0x%x'
         % (os.path.basename(recording), os.path.basename(text), cpus,
            vstart, vend))
    note('recorded: %d areas, %d in the vmalloc range, %d mapped; %d in '
         'the module area, %d mapped'
         % (len(areas), len(vm), sum(1 for a in vm if a.map), len(mods),
            sum(1 for a in mods if a.map)))
    big = [a for a in vm if a.size // PAGE - 1 > PAGE // 8]
    if big:
        fail('%d area(s) above 512 pages: nested page arrays are not '
             'modelled by this check' % len(big))

    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 'imported.jsonl')
        info = subprocess.run([vt, 'import', recording, '-o', trace],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True)
        if info.returncode:
            print('import failed: ' + info.stderr)
            sys.exit(1)
        imported = [json.loads(l) for l in open(trace)][1:]
        base = [vt, 'replay', '--kernel=v6.12', '--va-bits=52',
                '--per-event', '--strategy=zigzag', '--cpus=%d' % cpus, '-q']
        own = [json.loads(l) for l in run(base + [trace]).splitlines()]
        tva = [json.loads(l) for l in
               run(base + ['--use-trace-va', trace]).splitlines()]

    def lines_of(per_event):
        """index -> the event's own line; automatic purges apart"""
        by, auto = {}, []
        for d in per_event:
            if d['index'] in by:
                auto.append(d)
            else:
                by[d['index']] = d
        return by, auto

    own_by, own_auto = lines_of(own)
    tva_by, tva_auto = lines_of(tva)
    if len(own_by) != len(imported) or len(tva_by) != len(imported):
        fail('replay gave %d/%d event lines for %d imported events'
             % (len(own_by), len(tva_by), len(imported)))
        return
    for what, auto in (('own VA', own_auto), ('trace VA', tva_auto)):
        if auto:
            fail('%s replay purged automatically at event(s) %s; the '
                 'recorded kernel never reached lazy_max_pages'
                 % (what, [d['index'] for d in auto]))

    trace_va_honoured = all(
        int(tva_by[i]['va'], 16) == int(e['va'], 16)
        for i, e in enumerate(imported) if e['op'] in ('vmalloc', 'vfree'))
    if not trace_va_honoured:
        note('XFAIL: replay --use-trace-va did not place the areas at the '
             'recorded va (engine: vt_area_get_va() passes no event to '
             'alloc_vmap_area()); the checks that need it are skipped')

    # ---- (a), (b), (c), (d): walk both sequences together ----
    ops = [(i, e) for i, e in enumerate(imported) if e['op'] != 'purge']
    rec_ops = []
    for s in seq:
        if s[0] == 'map' and s[1] in kept:
            rec_ops.append(s)
        elif s[0] == 'free' and s[1] in kept and s[1].map:
            rec_ops.append(s)
    if len(ops) != len(rec_ops):
        fail('%d imported map/unmap events, %d recorded'
             % (len(ops), len(rec_ops)))
    id_area = {}
    warm = set()            # PMD regions mapped so far in the recording
    n = {'size': 0, 'shape': 0, 'tables_tva': 0, 'tables_own': 0,
         'order': 0, 'pre': 0}
    for (i, e), r in zip(ops, rec_ops):
        o, t = own_by[i], tva_by[i]
        if r[0] == 'map':
            a = r[1]
            id_area[e['id']] = a
            if e['op'] != 'vmalloc' or int(e['va'], 16) != a.va:
                fail('event %d: %s at %s, recorded vmalloc at 0x%x'
                     % (i, e['op'], e['va'], a.va))
                continue
            mapped = a.map[1] - a.map[0]
            m, sh = o['metrics'], o['shape']
            # (a) size: VA extent = mapped pages + guard
            ext = (m['pte_writes'] + 1) * PAGE
            if a.size != ext or a.size != e['size'] + PAGE:
                fail('event %d: recorded area size %d, imported %d + guard, '
                     'replay extent %d' % (i, a.size, e['size'], ext))
            else:
                n['size'] += 1
            # (b) page_shift and walks
            huge = a.map[2] > 12
            if huge:
                want = (mapped >> a.map[2], 0)
                got = (sh['pmd_block'], sh['pte'])
            else:
                want = (a.walks, 0, 0, mapped // PAGE)
                got = (m['table_walks'], m['block_maps'], sh['pmd_block'],
                       sh['pte'])
            if want != got or sh['pte_cont']:
                fail('event %d: page_shift %d, %d walker call(s) recorded; '
                     'replay walks/blocks/pte %s' % (i, a.map[2], a.walks,
                                                     got))
            else:
                n['shape'] += 1
            # (c) PTE tables
            regs = regions(a.map[0], a.map[1])
            hits = {(p & 0xfff) // 8 for p in a.pte_allocs}
            rec_regs = {g for g in regs if g % 512 in hits}
            new = regs - warm
            warm |= regs
            if len(rec_regs) != len(a.pte_allocs):
                fail('event %d: __pte_alloc_kernel pmdp %s not in the PMD '
                     'entries of 0x%x-0x%x' % (i, [hex(p) for p in a.pte_allocs],
                                               a.map[0], a.map[1]))
            if o['metrics']['tables_allocated'] == len(a.pte_allocs):
                n['tables_own'] += 1
            else:
                note('DIFF event %d (own VA): replay allocated %d PTE '
                     'table(s) at va %s, the kernel %d at va 0x%x: the VA '
                     'layouts differ (the recorded kernel had other areas '
                     'below)' % (i, o['metrics']['tables_allocated'], o['va'],
                                 len(a.pte_allocs), a.va))
            if trace_va_honoured:
                tt = t['metrics']['tables_allocated']
                pre = new - rec_regs
                if not rec_regs <= new or tt != len(new):
                    fail('event %d (trace VA): replay allocated %d table(s) '
                         'for %d PMD entries first mapped here; the kernel '
                         'allocated for entries %s' % (i, tt, len(new),
                                                       sorted(hits)))
                elif pre:
                    n['pre'] += len(pre)
                    note('DIFF event %d (trace VA): replay allocated %d PTE '
                         'table(s), the kernel %d: the PTE table(s) of '
                         '%s already existed before the recording started '
                         '(tables are never freed, vmalloc-paths.md 8.3); '
                         'the replay starts with none'
                         % (i, tt, len(rec_regs),
                            ', '.join('0x%x' % (g * PMD) for g in sorted(pre))))
                    n['tables_tva'] += 1
                else:
                    n['tables_tva'] += 1
        else:
            a = r[1]
            if e['op'] != 'vfree' or id_area.get(e['id']) is not a:
                fail('event %d: %s of id %s, recorded free of 0x%x'
                     % (i, e['op'], e.get('id'), a.va))
                continue
            # (d) unmap order and extent (guard included)
            # the guard slot is cleared only if a PTE table covers it: not
            # when it is the first page of a PMD entry still none (8.2)
            m = o['metrics']
            guard = int(o['va'], 16) + a.size - PAGE
            clears = m['pte_clears'] + (1 if guard % PMD == 0 else 0)
            if m['table_walks'] != 1 or clears * PAGE != a.size:
                fail('event %d: vfree walks %d clears %d, recorded area of '
                     '%d bytes' % (i, m['table_walks'], m['pte_clears'],
                                   a.size))
            else:
                n['order'] += 1

    # ---- (e) purges ----
    rec_purges = [s for s in seq if s[0] == 'purge']
    explicit = [s for s in rec_purges if not s[1][2].startswith('kworker/')]
    rep_purges = [i for i, e in enumerate(imported) if e['op'] == 'purge']
    note('purges: %d recorded (%d outside kworkers), %d imported'
         % (len(rec_purges), len(explicit), len(rep_purges)))
    if len(rep_purges) != len(explicit):
        fail('%d explicit purges recorded, %d imported'
             % (len(explicit), len(rep_purges)))
    # position: number of map/unmap events before each purge
    pos_rec, k = [], 0
    for s in seq:
        if s[0] == 'purge' and not s[1][2].startswith('kworker/'):
            pos_rec.append(k)
        elif s in rec_ops:
            k += 1
    pos_rep = [sum(1 for j, _ in ops if j < i) for i in rep_purges]
    if pos_rec != pos_rep:
        fail('purge positions differ: recorded %s, imported %s'
             % (pos_rec, pos_rep))
    n['purge'] = 0
    for p, (i, s) in enumerate(zip(rep_purges, explicit)):
        _, kp, tstart, tend, num, pending = s
        ours = [a for a in pending if a in kept and a.map]
        others = [a for a in pending if a not in ours]
        unknown = num - len(pending)
        pages = sum(a.size // PAGE for a in ours)
        o, t = own_by[i], tva_by[i]
        got = (o['metrics']['purges'], o['metrics']['purged_pages'])
        if got != (1 if ours else 0, pages):
            fail('purge %d (event %d): replay purges/pages %s, expected %s '
                 'from the recorded pending areas'
                 % (p, i, got, (1 if ours else 0, pages)))
            continue
        n['purge'] += 1
        tlbi = {k: v for k, v in o['metrics']['tlbi_by_kind'].items() if v}
        desc = ('purge %d (event %d): recorded kprobe start=0x%x end=0x%x, '
                'flushed span 0x%x-0x%x, %d area(s); replay %d area(s), '
                '%d page(s), TLBI %s'
                % (p, i, kp[0], kp[1], tstart, tend, num, len(ours), pages,
                   tlbi or 'none'))
        why = []
        if unknown:
            why.append('%d area(s) freed before the recording started'
                       % unknown)
        if others:
            why.append('%d module/execmem area(s) the import drops (%s)'
                       % (len(others), ', '.join('0x%x' % a.va
                                                 for a in others)))
        if kp[0] is not None and kp[0] < kp[1]:
            why.append('the direct-map range 0x%x-0x%x passed by '
                       'vm_reset_perms() (a purge event has no range)'
                       % (kp[0], kp[1]))
        if ours and trace_va_honoured:
            lo = min(a.va for a in ours)
            hi = max(a.va + a.size for a in ours)
            desc += ', replay span 0x%x-0x%x' % (lo, hi)
            if hi != tend and not others:
                fail('purge %d: recorded span end 0x%x, replay 0x%x'
                     % (p, tend, hi))
            if lo == tstart and hi == tend:
                why = []
        note(('SAME ' if not why else 'DIFF ') + desc +
             ('' if not why else ': ' + '; '.join(why)))

    # ---- (f) walker totals: no mapping left out ----
    ptes = (walker['pages'] - 512 * walker['pmd_set_huge'] -
            512 * 512 * walker['pud_set_huge'])
    blocks = walker['pmd_set_huge'] + walker['pud_set_huge']
    for what, lines in (('own VA', own), ('trace VA', tva)):
        got = (sum(d['metrics']['pte_writes'] for d in lines),
               sum(d['metrics']['block_maps'] for d in lines))
        if got != (ptes, blocks):
            fail('%s replay: %d PTE writes and %d blocks; the recording\'s '
                 'walker kprobes add up to %d and %d'
                 % ((what,) + got + (ptes, blocks)))
        else:
            note('SAME walker totals (%s): %d PTE writes, %d PMD/PUD blocks '
                 'replayed = recorded' % (what, ptes, blocks))
    m = re.search(r'mappings recorded/reproduced: (.*)', info.stderr)
    if not m:
        fail('import printed no mappings line')
    else:
        for kind, rec, rep in re.findall(r'([\w ]+?) (\d+)/(\d+)', m.group(1)):
            if rec != rep:
                fail('import: %s %s recorded, %s reproduced'
                     % (kind.strip(), rec, rep))
        note('import: mappings recorded/reproduced: ' + m.group(1))

    note('matched: %(size)d vmalloc sizes, %(shape)d page shifts/walks, '
         '%(order)d unmaps in recorded order, %(purge)d purges '
         '(pages and presence)' % n)
    note('PTE tables: own VA %d of %d mappings equal to the recorded '
         '__pte_alloc_kernel hits' % (n['tables_own'],
                                      sum(1 for r in rec_ops if r[0] == 'map')))
    if trace_va_honoured:
        note('PTE tables with --use-trace-va: %d mappings consistent, every '
             'recorded __pte_alloc_kernel matched; %d table(s) predating the '
             'recording' % (n['tables_tva'], n['pre']))


if __name__ == '__main__':
    main()
    sys.exit(1 if failures else 0)
