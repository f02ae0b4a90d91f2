#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replay fidelity of imported real recordings (docs/vmaptool-import.md,
# "Fidelity"): each recording of tests/data/recordings is imported and
# replayed with --kernel=v6.12 --va-bits=52 --strategy=zigzag --per-event
# (own VA placement and --use-trace-va), and compared event by event with
# what the recording itself shows (tests/cli/import_replay.py); and the
# trimmed 6.1 recording of tests/data/import/v6.1-kprobes.txt against the
# shapes its kernel walked.
# Exit 77 when python3 is absent; the recordings are part of the tree.
set -u
. "$(dirname "$0")/lib.sh"
rec=$VT_DATA/recordings
test_require python3

check() {	# RECORDING TEXT-OF-THE-SAME-RUN
	echo "== $(basename "$1")"
	python3 "$VT_SRC/tests/cli/import_replay.py" "$VT_BIN" "$1" "$2" || fail "$(basename "$1") against $(basename "$2")"
}
# the trace.dat against the trace-cmd report of the same run
check "$rec/fix256_x10.trace.dat" "$rec/fix256_x10.trace-cmd-report.txt.xz"
check "$rec/fix256_x10.trace-cmd-report.txt.xz" "$rec/fix256_x10.trace-cmd-report.txt.xz"
check "$rec/fix1.trace.txt.xz" "$rec/fix1.trace.txt.xz"

# A 6.1 recording (no vmalloc:* tracepoints: the kprobes of docs/recording.md
# "Kernels before 6.2"), trimmed from the 6.1.0-57 realkernel run: imported and
# replayed under --kernel=v6.1 with the boot's geometry and --use-trace-va, each
# operation gets the address and leaf shape the probe module walked in that boot
# (its "VT N R" lines, written out below); the one exception is the vm_map_ram
# inside a vmap block whose earlier users the trimming left out (the engine's
# block starts empty, so it maps at the block's start).  --kernel=v6.12 refuses
# the addresses: they lie below its VMALLOC_START.
echo "== v6.1-kprobes.txt"
python3 - "$VT_BIN" "$VT_DATA/import/v6.1-kprobes.txt" "$TMP" <<'PY' || fail "v6.1-kprobes.txt round trip"
import json, subprocess, sys
vt, rec, tmp = sys.argv[1:]
kernel = [  # op, va, pte, pmd, pud (the boot's result lines)
    ("vmalloc", 0xffff80000a035000, 2, 0, 0), ("vfree", 0xffff80000a035000, 0, 0, 0),
    ("purge", 0, 0, 0, 0),
    ("vmalloc", 0xffff80000a800000, 0, 1, 0), ("vfree", 0xffff80000a800000, 0, 0, 0),
    ("vmap", 0xffff80000a033000, 1, 0, 0), ("vunmap", 0xffff80000a033000, 0, 0, 0),
    ("vm_map_ram", 0xffff80000a405000, 64, 0, 0), ("vm_unmap_ram", 0xffff80000a405000, 0, 0, 0),
    ("vm_map_ram", 0xffff80000a29d000, 65, 0, 0), ("vm_unmap_ram", 0xffff80000a29d000, 0, 0, 0),
    ("ioremap", 0xffff80000a033000, 1, 0, 0), ("purge", 0, 0, 0, 0),
    ("iounmap", 0xffff80000a033000, 0, 0, 0),
    ("ioremap", 0xffff800040000000, 0, 0, 1), ("iounmap", 0xffff800040000000, 0, 0, 0),
    ("purge", 0, 0, 0, 0), ("purge", 0, 0, 0, 0),
]
trace, pe = tmp + "/v61.json", tmp + "/v61.pe"
subprocess.run([vt, "import", "-q", rec, "-o", trace], check=True)
subprocess.run([vt, "replay", "-q", "--kernel=v6.1", "--va-bits=48", "--cpus=1",
                "--strategy=zigzag", "--use-trace-va", "--per-event=" + pe, "-o", "/dev/null",
                trace], check=True)
model = [json.loads(l) for l in open(pe) if l.strip()]
bad = 0
if len(model) != len(kernel):
    print("FAIL: %d replayed events, the kernel ran %d" % (len(model), len(kernel)))
    bad += 1
for i, (k, m) in enumerate(zip(kernel, model)):
    got = (m["op"], int(m["va"], 16), m["shape"]["pte"], m["shape"]["pmd_block"],
           m["shape"]["pud_block"])
    if i in (7, 8):	# the trimmed vmap block: its earlier 5 pages are not in the recording
        got = (got[0], got[1] + 0x5000) + got[2:]
    if got != k:
        print("FAIL: event %d: replayed %r, kernel %r" % (i, got, k))
        bad += 1
p = subprocess.run([vt, "replay", "-q", "--kernel=v6.12", "--use-trace-va", "-o", "/dev/null",
                    trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if p.returncode != 3:
    print("FAIL: --kernel=v6.12 took 6.1's addresses (exit %d)" % p.returncode)
    bad += 1
print("%d events compared, %d differences" % (len(model), bad))
sys.exit(1 if bad else 0)
PY
test_done
