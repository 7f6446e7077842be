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
#   degrade_<v>_isolation         three prctl tenants and untagged work:
#                                 0 ns overlap seen by the observer
#                                 attached first
#   degrade_<v>_refuse_mode       --prctl refuse: EPERM with BPF LSM, the
#                                 kernel's own EINVAL without it
#   degrade_<v>_serve_again       serving again after refuse
#   degrade_<v>_prctl_* (parity)  (no BPF LSM, in the serve_again run) the
#                                 prctl suite against our handler,
#                                 fork/clone inheritance included (with
#                                 BPF LSM, prctl.sh's suite runs the same
#                                 code)
#   degrade_<v>_fork_orphan_adopted  (no BPF LSM) children that could
#                                 not inherit at fork while no scheduler
#                                 ran have their parent's cookie, before
#                                 the scheduler starts and with it
#   degrade_<v>_fork_lost_alone   (no BPF LSM) children that could not
#                                 even be recorded have CS_COOKIE_LOST, run
#                                 beside neither each other nor untagged
#                                 work (0 ns overlap), and stay lost
#                                 across a scheduler restart
#   degrade_<v>_fork_lost_exec    (no BPF LSM) such a thread keeps it when
#                                 its exec gives it the leader's tid
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

# 3. Served: the plan, then isolation.
case "$blsm" in
1) want_plan='served by scx_coresched; children inherit cookies at task_alloc' ;;
*) want_plan='served by scx_coresched; children inherit cookies at task_newtask' ;;
esac
[ -x "$SPIN" ] || fail degrade_${v}_build "no $SPIN: run make"
ensure_pins || fail degrade_${v}_pins "the scheduler did not start once"
name=degrade_${v}_isolation
if observe_bg "$TMP/obs" --duration 120 && start_sched -v; then
	kernel_line_ok "$TMP/sched.err"
	if grep -qF "$want_plan" "$TMP/sched.err"; then
		pass degrade_${v}_plan
	else
		fail degrade_${v}_plan "want '$want_plan' in: $(grep -i 'prctl\|kernel:' "$TMP/sched.err" | tr '\n' '|')"
	fi
	prctl_tenants $name "$TMP/obs"
	stop_bg
	stop_sched
else
	fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/obs.err" "$TMP/sched.err" | tr '\n' '|')"
	[ -n "$OBS_PID" ] && kill $OBS_PID 2>/dev/null
	stop_sched
fi

# 4. Without BPF LSM, inheritance at task_newtask cannot fail a fork. A
# child it cannot tag is recorded (cs_fork_orphan) and gets its cookie
# when the scheduler starts; one it cannot record either is marked
# (cs_fork_lost) and runs alone on its core, and so do its children.
# SCX_CORESCHED_FAULT, read when the tagging programs are installed,
# forces each failure; the children fork while no scheduler runs.
CS=$ROOT/build/coresched

# kids_of PID N: print the N children of PID once they exist.
kids_of() {
	local i kids
	for i in $(seq 1 80); do
		kids=$(pgrep -P "$1" | sort -n | tr '\n' ' ')
		[ "$(wc -w <<<"$kids")" -ge "$2" ] && break
		sleep 0.25
	done
	echo "$kids"
}

# inject_fault NAME FAULT: install the tagging programs with FAULT (a
# scheduler start and stop), or FAIL NAME.
inject_fault() {
	SCX_CORESCHED_FAULT=$2 start_sched && stop_sched && return 0
	fail "$1" "the scheduler did not start with the fault $2 injected"
	return 1
}

# cookies PID...: their prctl GET cookies, space-separated.
cookies() {
	local k
	for k in "$@"; do cookie_of "$k"; done | tr '\n' ' '
}

fork_orphan_adopted() {
	local name=degrade_${v}_fork_orphan_adopted parent kids pc before after
	inject_fault $name fork-storage || return
	"$CS" new -- bash -c 'sleep 600 & sleep 600 & wait' &
	parent=$!
	kids=$(kids_of $parent 2)
	pc=$(cookie_of $parent)
	before=$(cookies $kids) # the recorded cookie
	if start_sched; then
		after=$(cookies $kids) # stored by the scheduler
		stop_sched
	fi
	info "$name: parent $parent cookie $pc, children $kids: $before-> ${after:-}"
	# shellcheck disable=SC2086 # one PID per word
	kill $parent $kids 2>/dev/null
	if [ "$pc" != 0 ] && [ "$before" = "$pc $pc " ] &&
		[ "${after:-}" = "$pc $pc " ] && ! grep -q WARNING "$TMP/sched.err"; then
		pass $name
	else
		fail $name "parent cookie $pc, children's cookies '$before' before the scheduler, '${after:-}' with it (want the parent's both times): $(grep WARNING "$TMP/sched.err")"
	fi
}

# Lost children spin, each in a cgroup of its own (a tenant for the
# observer, which sees them apart from each other and from everything
# else); untagged stress-ng would run beside a child taken for untagged,
# and the two children beside each other if they shared a slot. They are
# stopped until the scheduler runs: nothing is isolated before.
fork_lost_alone() {
	local name=degrade_${v}_fork_lost_alone parent kids k i before ov sw rc
	local again nlost spin='while :; do :; done'
	inject_fault $name fork-orphan || return
	"$CS" new -- bash -c "($spin) & ($spin) & wait" &
	parent=$!
	kids=$(kids_of $parent 2)
	# shellcheck disable=SC2086 # one PID per word
	kill -STOP $kids
	i=0
	for k in $kids; do
		i=$((i + 1))
		tenant t_lost$i >/dev/null
		echo "$k" >"$CG/t_lost$i/cgroup.procs"
	done
	before=$(cookies $kids)
	if ! observe_bg "$TMP/lost" --tenant lost1="$CG/t_lost1" \
		--tenant lost2="$CG/t_lost2" --duration 120 || ! start_sched; then
		fail $name "observer or scheduler did not start: $(tail -n 2 "$TMP/lost.err" "$TMP/sched.err" | tr '\n' '|')"
		[ -n "$OBS_PID" ] && kill $OBS_PID 2>/dev/null
		kill -9 $parent $kids 2>/dev/null
		stop_sched
		return
	fi
	nlost=$(sed -n 's/.*WARNING: \([0-9]*\) children.*/\1/p' "$TMP/sched.err")
	spawn stress-ng --quiet --cpu "$NCPU" --timeout 3600
	# shellcheck disable=SC2086 # one PID per word
	kill -CONT $kids
	sleep 10
	end_observer "$TMP/lost"
	rc=$OBS_RC ov=$OBS_OV sw=$OBS_SW
	# A restart keeps them lost: the marks outlive the scheduler.
	stop_sched
	start_sched && again=$(cookies $kids)
	info "$name: children $kids cookies $before(after a restart ${again:-}); overlap_ns=$ov switches=$sw; loader warned of ${nlost:-no} lost children"
	# CS_COOKIE_LOST is 1.
	if [ "$before" = "1 1 " ] && [ "${again:-}" = "1 1 " ] && [ $rc = 0 ] &&
		[ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ] && [ "${nlost:-0}" -ge 2 ] &&
		[ "$(scx_state)" = enabled ]; then
		pass $name
	else
		fail $name "children's cookies '$before', after a restart '${again:-}' (want 1 1), observer rc=$rc overlap_ns=$ov switches=$sw, state $(scx_state), loader warned of ${nlost:-no} lost children: $(tail -n 2 "$TMP/lost.err" | tr '\n' '|')"
	fi
	stop_sched
	stop_bg
	kill -9 $parent $kids 2>/dev/null
}

# A thread that could not be recorded execs: it takes its leader's tid
# (de_thread()), and its mark must follow it there.
fork_lost_exec() {
	local name=degrade_${v}_fork_lost_exec pid i comm c
	inject_fault $name fork-orphan || return
	"$CS" new -- python3 -c '
import os, threading, time
threading.Thread(target=lambda: os.execv("/bin/sleep", ["sleep", "600"])).start()
time.sleep(600)' &
	pid=$!
	for i in $(seq 1 80); do
		comm=$(cat /proc/$pid/comm 2>/dev/null)
		[ "$comm" = sleep ] && break
		sleep 0.25
	done
	c=$(cookie_of $pid)
	kill $pid 2>/dev/null
	info "$name: pid $pid ($comm) cookie $c after a thread's exec"
	if [ "$comm" = sleep ] && [ "$c" = 1 ]; then
		pass $name
	else
		fail $name "after the exec pid $pid runs '$comm' with cookie $c (want sleep, 1)"
	fi
}

if [ "$blsm" = 0 ]; then
	fork_orphan_adopted
	fork_lost_alone
	fork_lost_exec
fi

# parity: without BPF LSM, the prctl suite against our handler, with a
# scheduler running (with BPF LSM the handler and inheritance, task_alloc,
# are those prctl.sh runs it against). It runs outside any observed
# interval: it changes the cookies of running tasks, which the scheduler
# acts on at their next tick or switch (README, prctl differences).
parity() {
	local prc
	if [ "$blsm" = 1 ]; then
		info "degrade_${v}: the prctl suite with BPF LSM is prctl.sh's"
		return
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
}

# 5. --prctl refuse, then serve again (and the parity suite).
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
	parity
	stop_sched
else
	fail $name "scheduler did not start"
	[ "$blsm" = 1 ] || fail degrade_${v}_prctl_suite "the scheduler did not start"
fi
finish
