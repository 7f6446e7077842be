#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# prctl(PR_SCHED_CORE) parity: the same suite (build/prctl_parity) first
# against the kernel's own core scheduling, with no sched_ext scheduler
# loaded ("kernel"), then against scx_coresched's prctl handler while the
# scheduler runs ("ours"); then the scheduler is stopped and sched_ext
# must be disabled again. Run as root in a tools/vm guest from the
# repository root:
#   tools/vm --cores 2 --threads 2 -- tests/guest/prctl.sh
# Prints one line per test, "PASS NAME" or "FAIL NAME: WHY"; other lines
# start with '#'. Exits 1 if a test failed.
#
# The "ours" half never passes by falling through to the kernel: the
# handler program must be loaded and must have run during the suite.
set -u
. "$(dirname "$0")/lib.sh"

PARITY=$ROOT/build/prctl_parity
HANDLER=cs_prctl # scx_coresched's PR_SCHED_CORE program (bpf/tagging.bpf.c)
STATS=/proc/sys/kernel/bpf_stats_enabled

# handler_runs: how often the handler program has run (needs bpf stats);
# empty if it is not loaded.
handler_runs() {
	local out
	out=$(bpftool -j prog show name "$HANDLER" 2>/dev/null) || return 0
	[ -n "$out" ] && [ "$out" != "[]" ] || return 0
	out=$(grep -o '"run_cnt":[0-9]*' <<<"$out" | head -n 1)
	echo "${out#*:}" | sed 's/^$/0/'
}

# parity BACKEND: run the suite (at most 60 s) and pass its lines on.
parity() {
	local backend=$1 out=$TMP/parity.$1 rc
	if [ ! -x "$PARITY" ]; then
		fail "prctl_${backend}_suite" "$PARITY is not built"
		return
	fi
	timeout -k 5 60 "$PARITY" "$backend" >"$out" 2>&1 </dev/null
	rc=$?
	grep -E '^(PASS|FAIL) ' "$out"
	grep -vE '^(PASS|FAIL) ' "$out" | sed 's/^/# /'
	nfail=$((nfail + $(grep -c '^FAIL ' "$out")))
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		fail "prctl_${backend}_suite" "timed out after 60 s"
	elif [ $rc != 0 ] && ! grep -q '^FAIL ' "$out"; then
		fail "prctl_${backend}_suite" "exited $rc without a FAIL line"
	elif ! grep -q '^PASS ' "$out" && ! grep -q '^FAIL ' "$out"; then
		fail "prctl_${backend}_suite" "printed no results"
	fi
}

# 1. The kernel's own core scheduling: no scheduler, no handler.
state=$(scx_state)
runs=$(handler_runs)
if [ "$state" = disabled ] && [ -z "$runs" ]; then
	pass prctl_kernel_backend
else
	fail prctl_kernel_backend "sched_ext state '$state', handler $HANDLER ${runs:+loaded}${runs:-not loaded}: not the kernel's own"
fi
parity kernel

# 2. scx_coresched's handler.
stats_before=$(cat $STATS 2>/dev/null)
echo 1 >$STATS 2>/dev/null
if ! start_sched; then
	fail prctl_ours_backend "scx_coresched did not start; the suite did not run"
else
	runs=$(handler_runs)
	if [ -z "$runs" ]; then
		fail prctl_ours_backend "scx_coresched runs but no program $HANDLER is loaded: prctl goes to the kernel"
	else
		pass prctl_ours_backend
	fi
	parity ours
	after=$(handler_runs)
	if [ -n "$runs" ] && [ -n "$after" ] && [ "$after" -gt "$runs" ]; then
		pass prctl_ours_handler_ran
	else
		fail prctl_ours_handler_ran "$HANDLER run count ${runs:-none} before the suite, ${after:-none} after (bpf stats: $(cat $STATS 2>/dev/null))"
	fi
	if [ "$(scx_state)" = enabled ] && [ "$(scx_ops)" = coresched ] &&
		kill -0 "$SCHED_PID" 2>/dev/null; then
		pass prctl_ours_sched_survived
	else
		fail prctl_ours_sched_survived "after the suite: state '$(scx_state)', ops '$(scx_ops)'"
		tail -n 10 "$TMP/sched.err" | sed 's/^/# /'
	fi
fi
[ -n "$stats_before" ] && echo "$stats_before" >$STATS 2>/dev/null

# 3. Stopped, sched_ext is disabled again.
if stop_sched; then
	pass prctl_sched_stopped
else
	fail prctl_sched_stopped "sched_ext state '$(scx_state)' after stopping scx_coresched"
fi
finish
