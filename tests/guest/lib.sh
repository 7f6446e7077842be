#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the guest tests (sourced). Every test prints one line,
# "PASS name" or "FAIL name: why"; information lines start with '#'.
set -u

ROOT=$PWD
SCHED=${SCX_SCHED:-$ROOT/build/scx_coresched} # SCX_SCHED: another build, for A/B runs
CTL=$ROOT/build/coreschedctl
OBS=$ROOT/build/coresched-audit
PROGRESS=$ROOT/build/progress
CG=/sys/fs/cgroup
NCPU=$(nproc)
TMP=$(mktemp -d)
nfail=0
SCHED_PID=
bg_pids=()

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}
info() { echo "# $*"; }

# The shell's own reads (read, no cat) and naps (read -t on a FIFO nobody
# writes, no sleep): with every vCPU busy, each program the test shell
# starts took seconds to start in a TCG guest.
SCX_SYS=/sys/kernel/sched_ext
# sysread VAR FILE: VAR = FILE's first line (empty if unreadable).
sysread() {
	printf -v "$1" ''
	read -r "$1" 2>/dev/null <"$2"
}
scx_state() {
	local s
	sysread s $SCX_SYS/state
	echo "$s"
}
scx_ops() {
	local s
	sysread s $SCX_SYS/root/ops
	echo "$s"
}
# sched_is STATE [OPS]: sched_ext is in STATE (and its scheduler is OPS).
sched_is() {
	local s o
	sysread s $SCX_SYS/state
	[ "$s" = "$1" ] || return 1
	[ -z "${2:-}" ] && return 0
	sysread o $SCX_SYS/root/ops
	[ "$o" = "$2" ]
}
NAP_FIFO=$(mktemp -u)
mkfifo -m 600 "$NAP_FIFO" && exec {NAP_FD}<>"$NAP_FIFO" && rm -f "$NAP_FIFO"
# nap SECONDS: sleep without starting a program.
nap() { read -rt "$1" -u "$NAP_FD" _ || true; }
# poll SECS CMD...: run CMD every 0.05 s until it succeeds; false if it has
# not within SECS seconds. CMD should not fork (sched_is, smt_is): in a
# guest whose vCPUs are all busy, starting a program takes seconds.
poll() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		nap 0.05
	done
}

# start_sched ARGS...: load scx_coresched; true once it is enabled and
# the loader says so (after sched_ext's enable transition, whose leftover
# tasks run unclaimed). At a high priority: the BPF verifier runs in the
# loader, and beside tenants that spin on every vCPU a load took many
# times its idle 5 s.
start_sched() {
	nice -n -15 "$SCHED" "$@" >"$TMP/sched.out" 2>"$TMP/sched.err" &
	SCHED_PID=$!
	local i
	for ((i = 0; i < 240; i++)); do
		sched_is enabled coresched &&
			file_has "$TMP/sched.err" "enabled, mode" && return 0
		kill -0 $SCHED_PID 2>/dev/null || break
		nap 0.25
	done
	info "scheduler did not start: $(tail -n 3 "$TMP/sched.err")"
	return 1
}

# stop_sched [SIGNAL]: stop it; true if sched_ext is disabled afterwards.
stop_sched() {
	local sig=${1:-INT}
	[ -n "$SCHED_PID" ] || return 0
	kill -"$sig" $SCHED_PID 2>/dev/null
	wait $SCHED_PID 2>/dev/null
	SCHED_PID=
	poll 20 sched_is disabled
}

# run CMD...: $out, $err (whole stderr), $rc.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

# expect_fail NAME PATTERN CMD...: CMD exits 1 with stderr matching the
# extended regex PATTERN.
expect_fail() {
	local name=$1 pattern=$2
	shift 2
	run "$@"
	if [ $rc = 0 ]; then
		fail "$name" "'$*' succeeded (printed '$out')"
	elif [ $rc != 1 ]; then
		fail "$name" "'$*' exited $rc, want 1: $err"
	elif ! grep -Eq -- "$pattern" <<<"$err"; then
		fail "$name" "'$*': message does not match /$pattern/: $(tr '\n' '|' <<<"$err")"
	else
		pass "$name"
	fi
}

# Helpers of the fail-safety tests (failsafe.sh, closed.sh).
PIN=/sys/fs/bpf/scx_coresched
SPIN=$ROOT/build/cookie_spin # a prctl tenant: cookie_spin THREADS SECONDS
SMT=/sys/devices/system/cpu/smt/control
# file_has FILE STRING: a line of FILE contains STRING (no fork).
file_has() {
	local l
	while IFS= read -r l; do
		[[ $l != *"$2"* ]] || return 0
	done <"$1"
	return 1
}
# smt_is VALUE: the SMT control reads VALUE (on, off, ...).
smt_is() {
	local v
	sysread v $SMT
	[ "$v" = "$1" ]
}

# cookie_of PID: its prctl(PR_SCHED_CORE_GET) cookie, as a decimal number.
cookie_of() { "$ROOT/build/cookie_get" "$1"; }

# tag_of_id ID: the cookie in cs_cgrp_tag for cgroup id ID (empty if none),
# from bpftool's JSON: the value's bytes, little endian.
tag_of_id() {
	local json b hex=
	# shellcheck disable=SC2046 # one argument per byte, little endian
	json=$(bpftool -j map lookup pinned "$PIN/cs_cgrp_tag" key hex \
		$(printf '%016x' "$1" | sed 's/../& /g' |
			awk '{for (i = NF; i > 0; i--) printf "%s ", $i}') 2>/dev/null) ||
		return 0
	for b in $(sed -n 's/.*"value":\[\([^]]*\)\].*/\1/p' <<<"$json" | tr -d '"' | tr ',' ' '); do
		hex=${b#0x}$hex
	done
	[ ${#hex} = 16 ] && printf '%u\n' "0x$hex"
	return 0
}

# cgroup_tag CGROUP: the cookie in cs_cgrp_tag for CGROUP (empty if none).
cgroup_tag() { tag_of_id "$(stat -c %i "$1")"; }

# Wait (up to 30 s) until the scheduler runs again after a fault.
wait_enabled() { poll 30 sched_is enabled coresched; }

spin_tenants() {
	local a b
	a=$(tenant t_a)
	b=$(tenant t_b)
	"$CTL" cgroup tag "$a" >/dev/null && "$CTL" cgroup tag "$b" >/dev/null ||
		return 1
	run_in "$a" stress-ng --quiet --cpu "$NCPU" --timeout 3600
	run_in "$b" stress-ng --quiet --cpu "$NCPU" --timeout 3600
	spawn "$SPIN" "$NCPU" 3600
	spawn stress-ng --quiet --cpu $(((NCPU + 1) / 2)) --timeout 3600
	sleep 1
}

# tenant NAME: create cgroup NAME and print its path.
tenant() {
	mkdir -p "$CG/$1"
	echo "$CG/$1"
}

# stopped PID: the task is stopped (SIGSTOP); read without a fork.
stopped() {
	local s
	sysread s "/proc/$1/stat"
	s=${s##*) }
	[ "${s%% *}" = T ]
}

# start_in CGROUP CMD...: start CMD in the background inside CGROUP, its pid
# in LAST and bg_pids. The shell that execs CMD stops itself and is moved
# while stopped, so it never runs with its old cookie after the move: the
# observer reads a task's cookie when it is switched in (README,
# coresched-audit), and would see a shell that moved itself while running
# with its old cookie until its next switch.
# False (the command killed) if it could not be moved.
start_in() {
	local cg=$1
	shift
	# shellcheck disable=SC2016 # expanded by that sh
	sh -c 'kill -STOP $$ && exec "$@"' sh "$@" &
	LAST=$!
	bg_pids+=("$LAST")
	if ! poll 30 stopped "$LAST" || ! echo "$LAST" >"$cg/cgroup.procs"; then
		echo "start_in: could not move $LAST ($*) into $cg" >&2
		kill -KILL "$LAST" 2>/dev/null
		return 1
	fi
	kill -CONT "$LAST"
}

# run_in CGROUP CMD...: run CMD in the background inside CGROUP.
run_in() { start_in "$@"; }

# nice_of PID: the task's nice value in NI (/proc/PID/stat); no fork.
nice_of() {
	local s f
	sysread s "/proc/$1/stat"
	read -ra f <<<"${s##*) }"
	NI=${f[16]}
}

# cpu_ticks PID: utime + stime of the thread group, or "dead"; no fork.
cpu_ticks() {
	local s f
	if ! sysread s "/proc/$1/stat" || [ -z "$s" ]; then
		echo dead
		return
	fi
	read -ra f <<<"${s##*) }"
	echo $((f[11] + f[12]))
}

# spawn CMD...: run CMD in the background (untagged unless CMD tags).
spawn() {
	"$@" &
	bg_pids+=($!)
}

stop_bg() {
	[ ${#bg_pids[@]} -gt 0 ] || return 0
	kill "${bg_pids[@]}" 2>/dev/null
	pkill -f "^stress-ng" 2>/dev/null
	wait "${bg_pids[@]}" 2>/dev/null
	bg_pids=()
}

# observe OUT ARGS...: run the isolation observer at high priority.
observe() {
	local out=$1
	shift
	nice -n -10 "$OBS" "$@" >"$out" 2>"$out.err" </dev/null
}

# observe_bg OUT ARGS...: start the observer in the background and return
# once it watches (OBS_PID). Tests that require 0 ns start it before the
# scheduler: probes of one tracepoint run in attach order, so the observer
# then records every switch before the scheduler commits it.
observe_bg() {
	local out=$1 i
	shift
	nice -n -10 "$OBS" "$@" >"$out" 2>"$out.err" </dev/null &
	OBS_PID=$!
	for i in $(seq 1 240); do
		grep -q "observing" "$out.err" && return 0
		kill -0 $OBS_PID 2>/dev/null || return 1
		sleep 0.25
	done
	return 1
}

# stop_observer [PID]: stop an observer (default OBS_PID), which prints its
# figures on SIGINT; returns its exit status.
stop_observer() {
	local pid=${1:-$OBS_PID}
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}

# end_observer OUT: stop the observer (OBS_PID, writing OUT); its exit
# status, overlap_ns and switches in OBS_RC, OBS_OV and OBS_SW.
end_observer() {
	stop_observer
	OBS_RC=$?
	OBS_OV=$(field "$1" overlap_ns)
	OBS_SW=$(field "$1" switches)
}

# prctl_tenants NAME OBS: with the observer (OBS_PID, writing OBS) attached
# before the scheduler, run three prctl(PR_SCHED_CORE) tenants ($SPIN) and
# untagged stress-ng for 10 s, then stop the observer: PASS NAME if it saw
# switches and 0 ns of overlap, the tenants had three distinct cookies and
# the scheduler still runs. The tenants are left running (stop_bg).
prctl_tenants() {
	local name=$1 obs=$2 t cookies rc ov sw
	for t in 1 2 3; do
		spawn "$SPIN" "$NCPU" 3600
	done
	spawn stress-ng --quiet --cpu $(((NCPU + 1) / 2)) --timeout 3600
	sleep 2
	cookies=$(for t in $(pgrep -f "$SPIN"); do cookie_of "$t"; done | sort -u | grep -vx 0 | wc -l)
	sleep 8
	end_observer "$obs"
	rc=$OBS_RC ov=$OBS_OV sw=$OBS_SW
	info "$name: prctl tenants overlap_ns=$ov switches=$sw distinct_cookies=$cookies"
	if [ $rc = 0 ] && [ "$ov" = 0 ] && [ "$cookies" = 3 ] &&
		[ "${sw:-0}" -gt 0 ] && [ "$(scx_state)" = enabled ]; then
		pass "$name"
	else
		fail "$name" "observer rc=$rc overlap_ns=$ov switches=$sw distinct cookies=$cookies state=$(scx_state): $(tail -n 2 "$obs.err" | tr '\n' '|')"
		grep overlap_example "$obs" | head -n 3 | sed 's/^/# /'
	fi
}

# ensure_pins: the tag maps the observer reads exist (pinned by a first
# start of the scheduler; they outlive it).
ensure_pins() {
	[ -e /sys/fs/bpf/scx_coresched/cs_task_cookie ] && return 0
	start_sched && stop_sched
}

# field FILE KEY: a value from the observer's text output (the second word
# of each line whose first is KEY). Read by the shell: beside busy tenants
# each awk started took 2 to 3 s.
field() {
	local _k _v _r
	while read -r _k _v _r || [ -n "$_k" ]; do
		[ "$_k" != "$2" ] || echo "$_v"
	done <"$1"
}

# prog_stats FILE: "name run_time_ns run_cnt" of the scheduler's programs
# (cs_*), from bpftool; the figures need kernel.bpf_stats_enabled=1. FILE
# is left empty if bpftool fails.
prog_stats() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
try:
    progs = json.load(sys.stdin)
except ValueError:
    progs = []
for p in progs:
    if p.get("name", "").startswith("cs_"):
        print(p["name"], p.get("run_time_ns", 0), p.get("run_cnt", 0))
' >"$1"
}

# prog_cost BEFORE AFTER: "name calls ns_per_call" of each program that
# ran between two prog_stats files.
prog_cost() {
	LC_ALL=C join <(LC_ALL=C sort "$1") <(LC_ALL=C sort "$2") |
		while read -r name t0 c0 t1 c1; do
			[ $((c1 - c0)) -gt 0 ] || continue
			echo "$name $((c1 - c0)) $(((t1 - t0) / (c1 - c0)))"
		done
}

# stats_sum KEY [FROM]: the sum of the scheduler's JSON interval field KEY
# (a count) over $TMP/sched.out, from its line FROM on (default 1).
stats_sum() {
	tail -n +"${2:-1}" "$TMP/sched.out" | grep -o "\"$1\":[0-9]*" | cut -d: -f2 |
		awk '{ s += $1 } END { print s + 0 }'
}

cleanup() {
	stop_bg
	[ -n "$SCHED_PID" ] && stop_sched
	find "$CG" -depth -mindepth 1 -type d -path "$CG/t_*" -exec rmdir {} + 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

finish() {
	exit $((nfail > 0))
}

# check_topology: the guest has the SCX_TOPO (CxT, or SxCxT with sockets)
# topology tools/vm was asked for; with qemu's numbering cpu0's siblings
# are cpus 0..T-1.
check_topology() {
	local topo=${SCX_TOPO:-2x2} sockets cores threads want got ncores
	IFS=x read -r sockets cores threads <<<"$topo"
	[ -n "$threads" ] || { threads=$cores cores=$sockets sockets=1; }
	cores=$((sockets * cores))
	want="0-$((threads - 1))"
	[ "$threads" = 1 ] && want=0
	got=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
	ncores=$(for d in /sys/devices/system/cpu/cpu[0-9]*/topology; do
		echo "$(cat $d/physical_package_id) $(cat $d/core_id)"
	done | sort -u | wc -l)
	if [ "$got" = "$want" ] && [ "$NCPU" = $((cores * threads)) ] &&
		[ "$ncores" = "$cores" ]; then
		pass "topology_$topo"
	else
		fail "topology_$topo" "cpu0 siblings '$got' (want '$want'), $NCPU cpus, $ncores cores"
	fi
}
