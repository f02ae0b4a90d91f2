#!/usr/bin/env python3
"""Turn a vmaptool trace (spec/interfaces.md section 2) into the probe module's op list.

One output line per trace event, in trace order, in the command language of
module/vtprobe.c.  Trace ids become module slots (reused after the unmap).  A vmalloc's own
page list is not used: the real kernel allocates its pages itself, as it does for the model
when a trace gives none.  The pages of a vmap or vm_map_ram become runs
ORDER:COUNT:CONTIG: COUNT compound blocks of 2^ORDER pages, or COUNT physically contiguous
order-0 pages (CONTIG=1); their pfns are the kernel's, not the trace's.

Usage: trace2ops.py TRACE [-o OPS]
"""
import json
import sys

SLOTS = 1024


def num(v):
    if isinstance(v, str):
        return int(v, 0)
    return int(v)


def read_trace(path):
    with open(path) as f:
        text = f.read()
    first, _, rest = text.partition("\n")
    try:
        head = json.loads(first)
        if "events" not in head:
            return head, [json.loads(l) for l in rest.splitlines() if l.strip()]
    except json.JSONDecodeError:
        pass
    doc = json.loads(text)
    return doc, doc["events"]


def runs(pages):
    out = []
    for r in pages:
        order = num(r.get("order", 0))
        count = num(r.get("count", 1))
        out.append("%d:%d:%d" % (order, count, 1 if order == 0 and count > 1 else 0))
    return " ".join(out)


def convert(events):
    free = list(range(SLOTS - 1, -1, -1))
    live = {}
    lines = []
    for i, ev in enumerate(events):
        op = ev["op"]
        key = json.dumps(ev.get("id"))
        if op in ("vmalloc", "vmap", "vm_map_ram", "ioremap"):
            if key in live:
                raise ValueError("event %d: id %s is already mapped" % (i, key))
            if not free:
                raise ValueError("event %d: more than %d live mappings" % (i, SLOTS))
            slot = free.pop()
            live[key] = slot
            if op == "vmalloc":
                if "align" in ev:
                    raise ValueError("event %d: vmalloc with align has no module op" % i)
                # the caller's size in bytes: the kernel rounds it (a huge vmalloc of
                # 65535 bytes is not one of 65536: it maps no CONT block)
                huge = 1 if "VM_ALLOW_HUGE_VMAP" in ev.get("flags", []) else 0
                lines.append("vmalloc %d %d %d" % (slot, num(ev["size"]), huge))
            elif op == "ioremap":
                lines.append("ioremap %d 0x%x 0x%x" % (slot, num(ev["phys"]), num(ev["size"])))
            else:
                lines.append("%s %d %s" % (op, slot, runs(ev["pages"])))
        elif op in ("vfree", "vunmap", "vm_unmap_ram", "iounmap"):
            if key not in live:
                raise ValueError("event %d: id %s is not mapped" % (i, key))
            slot = live.pop(key)
            free.append(slot)
            lines.append("%s %d" % (op, slot))
        elif op == "purge":
            lines.append("purge")
        else:
            raise ValueError("event %d: op %s has no module op" % (i, op))
    return lines


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "-o"):
        sys.stderr.write("usage: trace2ops.py TRACE [-o OPS]\n")
        return 2
    _, events = read_trace(argv[1])
    try:
        lines = convert(events)
    except (ValueError, KeyError) as e:
        sys.stderr.write("trace2ops: %s: %s\n" % (argv[1], e))
        return 3
    text = "".join(l + "\n" for l in lines)
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
