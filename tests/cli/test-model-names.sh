#!/usr/bin/env bash
# Names follow the kernel (issue 8): every kernel function docs/model.md's
# table lists in its first column, f(), has its model defined under core/
# as vt_f() or under arch/ as arm64_f() (or, for an arch hook core calls by
# its kernel name, as f() in arch/arch.h).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$VT_SRC"
missing=0 n=0
funcs=$(grep '^| ' docs/model.md | awk -F'|' 'NR > 1 { print $2 }' |
	grep -oE '`[A-Za-z_][A-Za-z0-9_]*\(\)`' | tr -d '`()' | sort -u)
for f in $funcs; do
	n=$((n + 1))
	if grep -rqE "^[a-z][^;=]*\b(vt_|arm64_)$f\(" core arch ||
	   grep -qE "^static inline [^;=]*\b$f\(" arch/arch.h; then
		continue
	fi
	echo "docs/model.md lists $f() but there is no vt_$f() or arm64_$f()" >&2
	missing=$((missing + 1))
done
[ "$n" -ge 40 ] || { echo "only $n functions found in docs/model.md" >&2; exit 1; }
# the functions issue 8 names
for f in pmd_set_huge __purge_vmap_area_lazy purge_vmap_node vmap \
	 __vmalloc_node_range_noprof vmap_pmd_range; do
	grep -qx -- "$f" <<<"$funcs" || { echo "docs/model.md does not list $f()" >&2; missing=$((missing + 1)); }
done
[ "$missing" -eq 0 ] || fail "$missing kernel functions not found under their names"
echo "$n kernel functions checked"
test_done
