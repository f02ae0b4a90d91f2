#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmaptool inspect on Debian's arm64 kernel package (docs/vmaptool-inspect.md): the image
# and configuration that tools/realkernel/fetch.sh keeps in its cache (downloading them with
# apt when the cache lacks them).  Every field inspect reports is checked against the
# package's /boot/config-RELEASE read here with grep, the release against the package's, and
# replay --vmlinux against replay with the same options typed out.  Exit 77 (skip) when the
# Debian archive is unreachable and nothing is cached.  Label `realkernel`: not part of
# `ctest --preset ci`; run by `ctest --preset realkernel`.
set -u
VT_SRC=${VT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
VT_BIN=${VT_BIN:-$VT_SRC/build/ci/vmaptool}
cache=${VT_REALKERNEL_CACHE:-$HOME/.cache/vmaptool-realkernel}/6.12
fail() { echo "FAIL: $*" >&2; exit 1; }

"$VT_SRC/tools/realkernel/fetch.sh" 6.12 "$cache"
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: the Debian package archive is unreachable and tools/realkernel's cache ($cache) has no kernel image"
	exit 77
fi
[ $rc = 0 ] || fail "tools/realkernel/fetch.sh exited $rc"
rel=$(cat "$cache/release")
img=$(cat "$cache/image")
cfg=$(cat "$cache/config")
[ -s "$img" ] && [ -s "$cfg" ] || fail "the cache has no $img or $cfg"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "inspecting $img (Debian package $(cat "$cache/pkgversion" 2>/dev/null))"

# Debian builds without IKCONFIG: then inspect alone says what it cannot know
if grep -qx 'CONFIG_IKCONFIG=y' "$cfg"; then
	"$VT_BIN" inspect --vmlinux="$img" -j >"$out/ik.json" || fail "inspect of an IKCONFIG image"
else
	"$VT_BIN" inspect --vmlinux="$img" >"$out/ik.txt" 2>"$out/ik.err"
	rc=$?
	[ $rc = 3 ] || fail "inspect without --kconfig of an image without IKCONFIG exited $rc, not 3"
	grep -q "no IKCONFIG" "$out/ik.err" && grep -q "VA_BITS" "$out/ik.err" &&
		grep -q "/boot/config-$rel" "$out/ik.err" || fail "the message: $(cat "$out/ik.err")"
	[ -s "$out/ik.txt" ] && fail "inspect printed a report on stdout with exit 3"
fi

"$VT_BIN" inspect --vmlinux="$img" --kconfig="$cfg" -j >"$out/i.json" || fail "inspect --kconfig exited $?"
"$VT_BIN" inspect --vmlinux="$img" --kconfig="$cfg" || fail "inspect (text) exited $?"
python3 - "$out/i.json" "$cfg" "$rel" "$VT_SRC/docs/inspect.schema.json" <<'PY' || exit 1
import json, re, sys
import jsonschema
j = json.load(open(sys.argv[1]))
cfg = open(sys.argv[2]).read()
rel = sys.argv[3]
jsonschema.validate(j, json.load(open(sys.argv[4])))
def val(k):
    m = re.search(r'^CONFIG_%s=(.*)$' % k, cfg, re.M)
    return m.group(1) if m else None
gran = [g for g in ("4K", "16K", "64K") if val("ARM64_%s_PAGES" % g) == "y"]
want = {
    "release": rel,
    "granule": gran[0].lower(),
    "header_granule": gran[0].lower(),
    "va_bits": int(val("ARM64_VA_BITS")),
    "pgtable_levels": int(val("PGTABLE_LEVELS")),
    "contpte": val("ARM64_CONTPTE") == "y",
    "huge_vmalloc": val("HAVE_ARCH_HUGE_VMALLOC") == "y",
    "huge_vmap": val("HAVE_ARCH_HUGE_VMAP") == "y",
    "lpa2": val("ARM64_LPA2") == "y",
}
bad = [f"{k}: inspect {j[k]!r}, the package {v!r}" for k, v in want.items() if j[k] != v]
if not j["banner"].startswith("Linux version %s (" % rel):
    bad.append("banner %r" % j["banner"])
major, minor = map(int, rel.split(".")[:2])
gen = "v6.12" if (major, minor) < (6, 16) else "v6.16" if (major, minor) < (6, 19) else "mainline"
if j["kernel"]["nearest"] != gen:
    bad.append("nearest %s, want %s" % (j["kernel"]["nearest"], gen))
if j["config"]["source"] != "file" or j["functions"] is not None:
    bad.append("config source %s, functions %r" % (j["config"]["source"], j["functions"]))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
print("inspect agrees with the package on", ", ".join(sorted(want)), "and the generation", gen)
sys.exit(1 if bad else 0)
PY

# replay --vmlinux is replay with the image's options typed out
opts=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["replay_options"])' "$out/i.json")
"$VT_BIN" replay -j --vmlinux="$img" --kconfig="$cfg" "$VT_SRC/traces/default.json" >"$out/a.json" ||
	fail "replay --vmlinux exited $?"
# shellcheck disable=SC2086	# the options as inspect printed them
"$VT_BIN" replay -j $opts "$VT_SRC/traces/default.json" >"$out/b.json" || fail "replay $opts exited $?"
cmp -s "$out/a.json" "$out/b.json" || fail "replay --vmlinux differs from replay $opts"
echo "replay --vmlinux = replay $opts"
