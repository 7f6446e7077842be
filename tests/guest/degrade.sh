#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What scx_coresched does on kernels that lack something (src/cs_features.c
# has the table), run on one kernel and boot per call. tests/run says what
# this boot has:
#   SCX_KCORE=1|0  the kernel has its own core scheduling (CONFIG_SCHED_CORE;
#                  0 with the 'nocore' kernel variant)
#   SCX_BLSM=1|0   BPF LSM programs run (0 when booted with lsm=capability)
# Run as root in a tools/vm guest from the repository root, e.g.
#   tools/vm --kernel "$(kernel/build.sh --variant nocore)" -- \
#       env SCX_KCORE=0 SCX_BLSM=1 tests/guest/degrade.sh
#
#   degrade_<v>_kernel            the boot has what tests/run says it has
#   degrade_<v>_refuses_unsafe    (own core scheduling, no BPF LSM) the
#                                 loader refuses, names cause and fix, and
#                                 leaves nothing attached
#   degrade_<v>_plan              the loader states the plan this kernel
#                                 allows
#   degrade_<v>_prctl_* (parity)  the prctl suite against our handler,
#                                 fork/clone inheritance included
#   degrade_<v>_isolation         three prctl tenants and untagged work:
#                                 0 ns overlap seen by the observer
#                                 attached first
#   degrade_<v>_refuse_mode       --prctl refuse: EPERM with BPF LSM, the
#                                 kernel's own EINVAL without it
#   degrade_<v>_serve_again       serving again after refuse
# <v> is core or nocore, then lsm or nolsm.
set -u
. "$(dirname "$0")/lib.sh"

kcore=${SCX_KCORE:?set SCX_KCORE}
blsm=${SCX_BLSM:?set SCX_BLSM}
v=$([ "$kcore" = 1 ] && echo core || echo nocore)_$([ "$blsm" = 1 ] && echo lsm || echo nolsm)

# prctl_errno CMD SCOPE: errno of prctl(PR_SCHED_CORE, CMD, 0, SCOPE, 0)
# from a fresh process (0 on success).
prctl_errno() {
	python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
c = ctypes.c_ulonglong(0)
addr = ctypes.byref(c) if sys.argv[1] == "0" else None
r = libc.prctl(62, int(sys.argv[1]), 0, int(sys.argv[2]), addr)
print(0 if r == 0 else ctypes.get_errno())' "$1" "$2"
}

# 1. The boot is what the caller says, and the loader finds the same
# (its -v line; BPF LSM is probed by running a program, not read).
has_core=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	grep -c "'core_cookie' type_id")
has_core=$([ "$has_core" -gt 0 ] && echo 1 || echo 0)
want_kernel="kernel: kprobe override yes, BPF LSM $([ "$blsm" = 1 ] && echo active || echo 'built, not active'), own core scheduling $([ "$kcore" = 1 ] && echo yes || echo no)"
# kernel_line_ok NAME: the loader's stderr has the expected kernel line.
kernel_line_ok() {
	if grep -qF "$want_kernel" "$1"; then
		pass degrade_${v}_kernel
	else
		fail degrade_${v}_kernel "want '$want_kernel' from the loader, got: $(grep 'kernel:' "$1" | tr '\n' '|')"
	fi
}
if [ "$has_core" != "$kcore" ]; then
	fail degrade_${v}_boot "core_cookie in BTF: $has_core (want $kcore)"
fi

# 2. Own core scheduling without BPF LSM: nothing could keep it off.
if [ "$kcore" = 1 ] && [ "$blsm" = 0 ]; then
	name=degrade_${v}_refuses_unsafe
	run timeout 120 "$SCHED" --no-restart -v
	echo "$err" >"$TMP/refused.err"
	kernel_line_ok "$TMP/refused.err"
	pins=$(ls "$PIN" 2>/dev/null | grep -c '^link_')
	if [ $rc = 1 ] && grep -q CONFIG_SCHED_CORE <<<"$err" &&
		grep -q 'lsm=' <<<"$err" && [ "$pins" = 0 ] &&
		[ "$(scx_state)" = disabled ]; then
		pass $name
	else
		fail $name "rc=$rc, $pins links pinned, state $(scx_state): $(tr '\n' '|' <<<"$err")"
	fi
	finish
fi

# 3. Served: the plan, the parity suite, isolation.
case "$blsm" in
1) want_plan='served by scx_coresched; children inherit cookies at task_alloc' ;;
*) want_plan='served by scx_coresched; children inherit cookies at task_newtask' ;;
esac
gcc -O2 -pthread -o "$TMP/cookie_spin" tests/guest/cookie_spin.c ||
	fail degrade_${v}_build "cannot build cookie_spin"
ensure_pins || fail degrade_${v}_pins "the scheduler did not start once"
name=degrade_${v}_isolation
if observe_bg "$TMP/obs" --duration 120 && start_sched -v; then
	kernel_line_ok "$TMP/sched.err"
	if grep -qF "$want_plan" "$TMP/sched.err"; then
		pass degrade_${v}_plan
	else
		fail degrade_${v}_plan "want '$want_plan' in: $(grep -i 'prctl\|kernel:' "$TMP/sched.err" | tr '\n' '|')"
	fi
	timeout -k 5 60 "$ROOT/build/prctl_parity" ours >"$TMP/parity" 2>&1 </dev/null
	prc=$?
	sed -n 's/^\(PASS\|FAIL\) /&degrade_'"$v"'_/p' "$TMP/parity"
	nfail=$((nfail + $(grep -c '^FAIL ' "$TMP/parity")))
	if [ $prc != 0 ] && ! grep -q '^FAIL ' "$TMP/parity"; then
		fail degrade_${v}_prctl_suite "exit $prc without a FAIL line: $(tail -n 3 "$TMP/parity" | tr '\n' '|')"
	elif ! grep -q '^PASS ' "$TMP/parity"; then
		fail degrade_${v}_prctl_suite "no results: $(tail -n 3 "$TMP/parity" | tr '\n' '|')"
	fi
	for t in 1 2 3; do
		spawn "$TMP/cookie_spin" "$NCPU" 3600
	done
	spawn stress-ng --quiet --cpu $(((NCPU + 1) / 2)) --timeout 3600
	sleep 2
	cookies=$(for p in $(pgrep -f "$TMP/cookie_spin"); do cookie_of "$p"; done | sort -u | grep -vx 0 | wc -l)
	sleep 8
	kill -INT $OBS_PID
	wait $OBS_PID
	orc=$?
	ov=$(field "$TMP/obs" overlap_ns)
	sw=$(field "$TMP/obs" switches)
	info "$v: prctl tenants overlap_ns=$ov switches=$sw distinct_cookies=$cookies"
	if [ $orc = 0 ] && [ "$ov" = 0 ] && [ "$cookies" = 3 ] &&
		[ "${sw:-0}" -gt 0 ] && [ "$(scx_state)" = enabled ]; then
		pass $name
	else
		fail $name "observer rc=$orc overlap_ns=$ov switches=$sw cookies=$cookies state=$(scx_state): $(tail -n 2 "$TMP/obs.err" | tr '\n' '|')"
	fi
	stop_bg
	stop_sched
else
	fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/obs.err" "$TMP/sched.err" | tr '\n' '|')"
	[ -n "$OBS_PID" ] && kill $OBS_PID 2>/dev/null
	stop_sched
fi

# 4. --prctl refuse, then serve again.
name=degrade_${v}_refuse_mode
want=$([ "$blsm" = 1 ] && echo 1 || echo 22) # EPERM; else the kernel's EINVAL
if start_sched --prctl refuse; then
	e_create=$(prctl_errno 1 1)
	e_get=$(prctl_errno 0 0)
	if [ "$e_create" = "$want" ] && [ "$e_get" = "$want" ]; then
		pass $name
	else
		fail $name "CREATE errno $e_create, GET errno $e_get, want $want"
	fi
	stop_sched
else
	fail $name "scheduler did not start with --prctl refuse"
fi
name=degrade_${v}_serve_again
if start_sched; then
	e_create=$(prctl_errno 1 1)
	[ "$e_create" = 0 ] && pass $name ||
		fail $name "CREATE errno $e_create after restarting with --prctl serve"
	stop_sched
else
	fail $name "scheduler did not start"
fi
finish
