#!/usr/bin/env python3
"""Write tools/realkernel/validation.json, the bundled validation trace (deterministic).

vmalloc of 1..1024 pages, vmalloc_huge of 16..1536 pages, vmap of scattered, contiguous and
compound pages, vm_map_ram below and above VMAP_MAX_ALLOC (64 pages), ioremap of aligned and
unaligned physical ranges of the QEMU virt board's PCIe windows (low: 0x10000000-0x3effffff,
high: 0x8000000000 + 512 GiB) up to a 1 GiB PUD block; an explicit purge after each group, so
the lazily freed pages stay below lazy_max_pages() (8192 with one CPU) except where the
1 GiB iounmaps are meant to trigger the drain.
Usage: gen-validation.py > validation.json
"""
import json

events = []
nid = [0]


def new_id():
    nid[0] += 1
    return nid[0]


def pfns():
    # pfns are informational (the module's pages are the kernel's own); keep them distinct
    pfns.next += 0x400
    return "0x%x" % pfns.next


pfns.next = 0x60000

for n in (1, 2, 3, 4, 8, 15, 16, 17, 31, 32, 63, 64, 100, 128, 255, 256, 511, 512, 513,
          1000, 1023, 1024):
    i = new_id()
    events.append({"op": "vmalloc", "id": i, "size": n * 4096})
    events.append({"op": "vfree", "id": i})
events.append({"op": "purge"})

for n in (16, 64, 256, 511, 512, 513, 1024, 1536):
    i = new_id()
    events.append({"op": "vmalloc", "id": i, "size": n * 4096, "flags": ["VM_ALLOW_HUGE_VMAP"]})
    events.append({"op": "vfree", "id": i})
events.append({"op": "purge"})

vmaps = [
    [{"order": 0}],                                            # one page
    [{"order": 0} for _ in range(16)],                         # 16 scattered pages
    [{"order": 0, "count": 64}],                               # 64 contiguous order-0 pages
    [{"order": 8, "count": 2}, {"order": 4, "count": 5}, {"order": 0, "count": 3}],  # system heap
    [{"order": 4, "count": 32}],                               # 32 compound order-4 pages
    [{"order": 9, "count": 4}],                                # 4 compound 2 MiB pages
    [{"order": 0, "count": 512}],                              # 2 MiB contiguous order-0
]
for runs in vmaps:
    i = new_id()
    pages = []
    for r in runs:
        r = dict(r)
        r["pfn"] = pfns()
        pages.append(r)
    events.append({"op": "vmap", "id": i, "pages": pages, "flags": ["VM_MAP"]})
    events.append({"op": "vunmap", "id": i})
events.append({"op": "purge"})

for n in (1, 4, 64, 65, 256):
    i = new_id()
    events.append({"op": "vm_map_ram", "id": i,
                   "pages": [{"pfn": pfns(), "order": 0, "count": n}]})
    events.append({"op": "vm_unmap_ram", "id": i})
events.append({"op": "purge"})

iomaps = [
    (0x10000000, 0x1000),        # one page, aligned
    (0x10001234, 0x2000),        # unaligned: three pages
    (0x10010000, 0x10000),       # 64 KiB
    (0x10100000, 0x100000),      # 1 MiB
    (0x10200000, 0x200000),      # 2 MiB aligned: a PMD block
    (0x10401000, 0x200000),      # 2 MiB at an unaligned phys: pages
    (0x10600000, 0x600000),      # 6 MiB aligned: 3 PMD blocks
    (0x10e00000, 0x2ff000),      # 3 MiB - 4 KiB: a PMD block and pages
]
live = []
for phys, size in iomaps:
    i = new_id()
    events.append({"op": "ioremap", "id": i, "phys": "0x%x" % phys, "size": "0x%x" % size})
    live.append(i)
for i in live:
    events.append({"op": "iounmap", "id": i})
events.append({"op": "purge"})
for phys, size in ((0x8000000000, 0x40000000),          # 1 GiB aligned: a PUD block
                   (0x8040200000, 0x40000000)):         # 1 GiB, 2 MiB-aligned: PMD blocks
    i = new_id()
    events.append({"op": "ioremap", "id": i, "phys": "0x%x" % phys, "size": "0x%x" % size})
    events.append({"op": "iounmap", "id": i})
events.append({"op": "purge"})

doc = {"format": "vmaptool-trace", "version": 1,
       "meta": {"source": "tools/realkernel/gen-validation.py: realkernel validation trace"},
       "config": {"granule": "4k", "va_bits": 52},
       "events": events}
print(json.dumps(doc, indent=1))
