#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of coresched-observe: run as root in a tools/vm guest from the
# repository root, e.g.  tools/vm --cores 2 --threads 2 -- tests/guest/observe.sh
# Prints one line per test, "PASS NAME" or "FAIL NAME: WHY"; every other
# line starts with '#'. Exits 1 if a test failed. No scheduler is loaded:
#
#   observe_bad_input        usage errors and missing tag maps are reported
#   observe_upstream_anchor  the kernel's own core scheduling (three
#                            prctl(PR_SCHED_CORE) tenants), measured
#   observe_detects_overlap  negative control: two tagged cgroups under the
#                            default scheduler must show overlap
set -u

obs=$PWD/build/coresched-observe
cg=/sys/fs/cgroup
pin=/sys/fs/bpf/scx_coresched
ncpu=$(nproc)
nfail=0
made_pin=
pids=()
cgroups=()
tmp=$(mktemp -d)

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}

stop_load() {
	[ ${#pids[@]} -gt 0 ] || return 0
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	pids=()
}

drop_tags() {
	local c
	stop_load
	for c in "${cgroups[@]}"; do
		rmdir "$c" 2>/dev/null
	done
	cgroups=()
	[ -n "$made_pin" ] && rm -rf "$pin"
	made_pin=
}

trap 'drop_tags; rm -rf "$tmp"' EXIT

# observe ARGS...: run the observer (at a high priority, so that it loads
# quickly among the spinners); $rc is its status, $err the last line of its
# stderr; field KEY prints a value of its text output.
observe() {
	nice -n -10 "$obs" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	err=$(tail -n 1 "$tmp/err")
}

field() {
	awk -v k="$1" '$1 == k { print $2 }' "$tmp/out"
}

# The main figures, for info and FAIL lines.
summary() {
	echo "overlap_ns=$(field overlap_ns) windows=$(field overlap_windows)" \
		"longest=$(field longest_overlap_ns) switches=$(field switches)" \
		"lost=$(field lost_events) max_wait_ns=$(field max_wait_ns)"
}

# expect_bad WHAT PATTERN ARGS...: the observer must fail with a message
# containing PATTERN; prints the problem, if any.
expect_bad() {
	local what=$1 pattern=$2
	shift 2
	observe "$@"
	if [ $rc = 0 ]; then
		echo "$what succeeded; "
	elif ! grep -qF -- "$pattern" "$tmp/err"; then
		echo "$what: message does not name '$pattern': $err; "
	fi
}

# Little-endian hex bytes of a 64-bit value, for bpftool.
le64() {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		printf '%02x ' $((($1 >> (8 * i)) & 0xff))
	done
}

# Give cgroup $1 the cookie (1 << 63) | cgid in the pinned cs_cgrp_tag.
tag_cgroup() {
	local id
	id=$(stat -c %i "$1") || return 1
	# shellcheck disable=SC2046 # one argument per byte
	bpftool map update pinned "$pin/cs_cgrp_tag" key hex $(le64 "$id") \
		value hex $(le64 $(((1 << 63) | id)))
}

# spin_in CGROUP N: N busy loops in CGROUP.
spin_in() {
	local i
	for i in $(seq "$2"); do
		(echo "$BASHPID" >"$1/cgroup.procs" && exec sh -c 'while :; do :; done') &
		pids+=($!)
	done
}

# make_tag_maps: the pinned tag maps without a running scheduler: start
# scx_coresched once and stop it (its tags and tagging programs stay).
make_tag_maps() {
	local i sched=$PWD/build/scx_coresched pid
	made_pin=1
	"$sched" &
	pid=$!
	for i in $(seq 1 240); do
		[ "$(cat /sys/kernel/sched_ext/state)" = enabled ] && break
		kill -0 $pid 2>/dev/null || return 1
		sleep 0.25
	done
	kill -INT $pid
	wait $pid
	for i in $(seq 1 80); do
		[ "$(cat /sys/kernel/sched_ext/state)" = disabled ] && return 0
		sleep 0.25
	done
	echo "sched_ext did not return to disabled"
	return 1
}

test_bad_input() {
	local name=observe_bad_input why=
	why+=$(expect_bad "--bogus" "'--bogus'" --bogus)
	why+=$(expect_bad "--duration abc" "'abc'" --duration abc)
	if [ -e "$pin" ]; then
		echo "# $pin exists: missing-map case skipped"
	else
		why+=$(expect_bad "--source ours without tag maps" \
			"$pin/cs_task_cookie" --source ours --duration 1)
	fi
	if [ -n "$why" ]; then
		fail $name "$why"
	else
		pass $name
	fi
}

test_upstream_anchor() {
	local name=observe_upstream_anchor total=$((2 * ncpu)) i pid
	local spin=$PWD/build/cookie_spin
	if [ ! -x "$spin" ]; then
		fail $name "no $spin: run make"
		return
	fi
	# Three tenants, 2 x CPUs threads in all.
	for i in 0 1 2; do
		"$spin" $(((total + 2 - i) / 3)) 30 2>>"$tmp/spin" &
		pids+=($!)
	done
	sleep 1
	for pid in "${pids[@]}"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			stop_load
			fail $name "a tenant died: $(head -n 1 "$tmp/spin")"
			return
		fi
	done
	observe --source upstream --duration 6
	stop_load
	echo "# upstream $(summary)"
	if [ $rc -gt 1 ]; then # 1: overlap seen, a measurement here
		fail $name "observer exited $rc: $err"
	elif ! [ "$(field switches)" -gt 0 ] 2>/dev/null; then
		fail $name "no switches seen: $(summary)"
	elif [ -z "$(field overlap_ns)" ] || [ -z "$(field longest_overlap_ns)" ]; then
		fail $name "no overlap figures in the output"
	else
		pass $name
	fi
}

test_detects_overlap() {
	local name=observe_detects_overlap c ov
	if [ -e "$pin" ]; then
		fail $name "$pin already exists (is a scheduler running?); not touching it"
		return
	fi
	if ! make_tag_maps >"$tmp/bpftool" 2>&1; then
		fail $name "cannot create the tag maps: $(tail -n 1 "$tmp/bpftool")"
		drop_tags
		return
	fi
	for c in $cg/observe_a $cg/observe_b; do
		rmdir "$c" 2>/dev/null
		if ! mkdir "$c" || ! tag_cgroup "$c" >"$tmp/bpftool" 2>&1; then
			fail $name "cannot create and tag $c: $(tail -n 1 "$tmp/bpftool")"
			drop_tags
			return
		fi
		cgroups+=("$c")
		spin_in "$c" "$ncpu"
	done
	observe --source ours --duration 4
	stop_load
	ov=$(field overlap_ns)
	echo "# ours, no isolation: $(summary)"
	grep '^overlap_example' "$tmp/out" | head -n 2 | sed 's/^/# /'
	drop_tags
	if [ $rc != 1 ]; then
		fail $name "expected exit 1 (overlap seen), got $rc: $err"
	elif ! [ "${ov:-0}" -gt 0 ] 2>/dev/null; then
		fail $name "no overlap seen: $(summary)"
	else
		pass $name
	fi
}

if [ ! -x "$obs" ]; then
	for t in observe_bad_input observe_upstream_anchor observe_detects_overlap; do
		fail $t "$obs is missing; run 'make' first"
	done
	exit 1
fi
echo "# $ncpu CPUs, sched_ext $(cat /sys/kernel/sched_ext/state 2>/dev/null || echo absent)"
test_bad_input
test_upstream_anchor
test_detects_overlap
[ $nfail = 0 ]
