# SPDX-License-Identifier: GPL-2.0
# Sourced by the CLI tests that check many invocations one line each.
#
# run NAME WANT RE CMD...: CMD must exit WANT and, when RE is not empty,
# its stderr must match the extended regex RE; its output lands in
# $TMP/stdout and $TMP/stderr, a failure prints the first stderr lines and
# sets fail=1.  RUN_TIMEOUT (seconds, default 60) bounds it; RUN_VMEM_KB,
# when set, limits its address space (ulimit -v).
run()
{
	local name=$1 want=$2 re=$3 rc
	shift 3
	(if [ -n "${RUN_VMEM_KB:-}" ]; then ulimit -v "$RUN_VMEM_KB"; fi
	 timeout "${RUN_TIMEOUT:-60}" "$@") >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		fail=1
	elif [ -n "$re" ] && ! grep -Eq -- "$re" "$TMP/stderr"; then
		echo "FAIL $name: stderr does not match /$re/"
		sed 's/^/  stderr: /' "$TMP/stderr" | head -5
		fail=1
	fi
}
