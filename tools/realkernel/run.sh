#!/usr/bin/env bash
# Ground truth from a real arm64 kernel: replay a vmaptool trace on one of Debian's arm64
# kernels under QEMU (TCG) and compare it with `vmaptool replay --kernel=GEN` (series.sh).
#
#   tools/realkernel/run.sh [--series=6.1|6.12|7.2|unstable] [--vmaptool=PATH] [--doc=FILE]
#                           [--out=DIR] [TRACE]
#
# --series defaults to 6.12.  TRACE defaults to tools/realkernel/validation.json.  Everything
# downloaded or built goes to $VT_REALKERNEL_CACHE/SERIES (default
# ~/.cache/vmaptool-realkernel/SERIES); the run's files to --out (default $CACHE/SERIES/run).
# --doc=FILE writes the comparison as the series' section of FILE (docs/validation.md).
# Exit: 0 every difference explained, 1 an unexplained difference, 77 the package archive is
# unreachable or no longer has the series, and nothing is cached (a skip), 2 usage, other: a
# step failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=series.sh
. "$here/series.sh"
base=${VT_REALKERNEL_CACHE:-${HOME:-/root}/.cache/vmaptool-realkernel}
vmaptool=$top/build/ci/vmaptool
doc=
out=
series=6.12
trace=$here/validation.json
for a in "$@"; do
	case "$a" in
	--series=*) series=${a#*=} ;;
	--vmaptool=*) vmaptool=${a#*=} ;;
	--doc=*) doc=${a#*=} ;;
	--out=*) out=${a#*=} ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $a" >&2; exit 2 ;;
	*) trace=$a ;;
	esac
done
series_load "$series" || { echo "run.sh: unknown series $series (known: $SERIES_ALL unstable)" >&2; exit 2; }
cache=$base/$series
out=${out:-$cache/run}
[ -x "$vmaptool" ] || { echo "run.sh: no vmaptool at $vmaptool (build it, or --vmaptool=)" >&2; exit 2; }
mkdir -p "$cache" "$out"
log() { echo "realkernel[$series]: $*" >&2; }
SECONDS=0

# ---- 1. packages (apt only) --------------------------------------------------------------
"$here/fetch.sh" "$series" "$cache" || exit $?
rel=$(cat "$cache/release")
root=$cache/root
kdir=$root/usr/src/linux-headers-$rel
image=$(cat "$cache/image")
config=$(cat "$cache/config")

# ---- 2. probe module and plugin ------------------------------------------------------------
mod=$cache/module-$rel
mkdir -p "$mod"
if cmp -s "$here/module/vtprobe.c" "$mod/vtprobe.c" && cmp -s "$here/module/Kbuild" "$mod/Kbuild" &&
   [ -s "$mod/vtprobe.ko" ]; then
	log "probe module for $rel is up to date"
else
	cp "$here/module/vtprobe.c" "$here/module/Kbuild" "$mod/"
	rm -f "$mod/vtprobe.ko"
	log "building the probe module against $rel"
	# BTF for modules needs pahole; the module needs none
	# shellcheck disable=SC2086	# the series' make arguments
	make -s -C "$kdir" M="$mod" CONFIG_DEBUG_INFO_BTF_MODULES= $S_MAKE modules >"$out/module.log" 2>&1 ||
		{ cat "$out/module.log" >&2; rm -f "$mod/vtprobe.c"; exit 4; }
fi
log "building the QEMU plugin"
gcc -O2 -shared -fPIC -Wall -Wextra -Werror -fvisibility=hidden \
	-o "$out/vtinsn.so" "$here/plugin/vtinsn.c"

# ---- 3. ops and initramfs --------------------------------------------------------------------
python3 "$here/trace2ops.py" "$trace" -o "$out/ops"
initrd() { # MODE -> $out/initrd-MODE.cpio.gz
	local d=$out/initrd-$1
	rm -rf "$d"
	mkdir -p "$d/bin"
	cp "$root/bin/busybox" "$d/bin/busybox"
	cp "$here/init.sh" "$d/init"
	chmod +x "$d/init"
	cp "$mod/vtprobe.ko" "$out/ops" "$here/kprobe_events" "$d/"
	echo "$1" >"$d/mode"
	# the kernel's text symbols are listed once per kernel (reading /proc/kallsyms under TCG
	# takes a minute); with nokaslr they are the same at every boot
	[ "$1" = ftrace ] && [ ! -s "$syms" ] && touch "$d/kallsyms"
	(cd "$d" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$out/initrd-$1.cpio.gz"
}
boot() { # MODE [QEMU ARGS...]
	local mode=$1
	shift
	initrd "$mode"
	rm -f "$out/out-$mode.txt"
	log "booting $rel ($mode)"
	# -cpu max with QEMU's own pointer-authentication hash instead of QARMA5: the same
	# features for the guest (the kernel signs every return address, and emulating QARMA5
	# makes a boot about 2.5 times slower); PAC values are never counted

	timeout 480 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 1 -m 2G -nographic -nic none \
		-no-reboot -device virtio-serial-pci,romfile= \
		-chardev file,id=vtout,path="$out/out-$mode.txt" \
		-device virtserialport,chardev=vtout,name=vt \
		-kernel "$image" -initrd "$out/initrd-$mode.cpio.gz" \
		-append "console=ttyAMA0 nokaslr quiet loglevel=3 rdinit=/init" "$@" \
		>"$out/console-$mode.txt" 2>&1 </dev/null || true
	# without a virtio serial port (virtio_console a module: 6.1) init.sh wrote to the console
	if ! grep -q '^VT DONE' "$out/out-$mode.txt" 2>/dev/null && grep -q '^VT DONE' "$out/console-$mode.txt"; then
		tr -d '\r' <"$out/console-$mode.txt" | sed -n '/^VT BOOTED/,$p' >"$out/out-$mode.txt"
	fi
	grep -q '^VT DONE' "$out/out-$mode.txt" 2>/dev/null ||
		{ log "the $mode boot did not finish: see $out/console-$mode.txt"; tail -20 "$out/console-$mode.txt" >&2; exit 5; }
}
# ftrace run first: it also lists the kernel's text symbols (kallsyms) when not cached
syms=$cache/kallsyms-$rel.txt
boot ftrace
if [ ! -s "$syms" ]; then
	sed -n '/^VT KALLSYMS-BEGIN$/,/^VT KALLSYMS-END$/p' "$out/out-ftrace.txt" | sed '1d;$d' >"$syms.tmp"
	mv "$syms.tmp" "$syms"
fi
vec=$(python3 "$here/compare.py" --vectors "$syms")
boot plugin -plugin "$out/vtinsn.so,out=$out/plugin.txt,$vec"

# ---- 4. the model and the comparison --------------------------------------------------------
# the model's geometry and CPU are the booted kernel's, as the probe module reports them: the
# VA size the kernel runs with (a CPU without LPA2 folds CONFIG_ARM64_VA_BITS=52 to 48) and
# whether it uses FEAT_TLBIRANGE (system_supports_tlb_range(): -cpu max has it)
vabits=$(sed -n 's/^CONFIG_ARM64_VA_BITS=//p' "$config")
info=$(grep -m1 '^VT INFO ' "$out/out-plugin.txt")
booted=$(echo "$info" | sed -n 's/.* vabits_actual=\([0-9]*\).*/\1/p')
if [ "$booted" != "$vabits" ]; then
	log "the kernel runs with $booted-bit VAs, not CONFIG_ARM64_VA_BITS=$vabits: modelling $booted"
	vabits=$booted
fi
tlbirange=off
echo "$info" | grep -q ' tlbi_range=1' && tlbirange=on
mopts="--kernel=$S_GEN --va-bits=$vabits --tlbi-range=$tlbirange --cpus=1 --strategy=$S_STRAT"
# shellcheck disable=SC2086	# the model's options
"$vmaptool" replay -q $mopts --per-event="$out/model.jsonl" -o /dev/null "$trace"
known=
[ "$(cd "$(dirname "$trace")" && pwd)/$(basename "$trace")" = "$here/validation.json" ] &&
	known=$here/known-differences-$series.txt
[ -n "$known" ] && [ ! -e "$known" ] && known=
set +e
python3 "$here/compare.py" --trace="$trace" --kernel-config="$config" --release="$rel" \
	--series="$series" --model-opts="$mopts" \
	--pkgversion="$(cat "$cache/pkgversion" 2>/dev/null)" ${known:+--known="$known"} \
	--kallsyms="$syms" --ftrace="$out/out-ftrace.txt" --plugin-run="$out/out-plugin.txt" \
	--plugin="$out/plugin.txt" --model="$out/model.jsonl" --vmaptool="$vmaptool" \
	--imported="$out/imported.json" --out="$out" ${doc:+--doc="$doc"}
rc=$?
log "$rel against --kernel=$S_GEN: exit $rc after ${SECONDS}s"
exit $rc
