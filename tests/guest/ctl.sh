#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of coreschedctl: run as root in a tools/vm guest from the
# repository root, e.g.  tools/vm -- tests/guest/ctl.sh
# Prints one line per test, "PASS NAME" or "FAIL NAME: WHY"; every other
# line starts with '#'. Exits 1 if a test failed.
#
# First the error paths without a scheduler, then, if the scheduler is
# built, the tagging itself under a running scx_coresched.
# SCX_CTL_SCHEDULER overrides the scheduler binary (default
# build/scx_coresched); it must pin the tag maps like scx_coresched does.
set -u

ctl=$PWD/build/coreschedctl
sched=${SCX_CTL_SCHEDULER:-build/scx_coresched}
cg=/sys/fs/cgroup
scx=/sys/kernel/sched_ext
nfail=0
sched_pid=
pids=()
cgroups=()
tmp=$(mktemp -d)

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
}

# run CMD [ARGS...]: $out and $err get its stdout and the last line of its
# stderr (where coreschedctl puts the message), $rc its exit status.
run() {
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(tail -n 1 "$tmp/err")
}

# expect_fail NAME PATTERN CMD...: CMD must fail (non-zero, not a usage
# error) with a message on stderr matching the extended regex PATTERN.
expect_fail() {
	local name=$1 pattern=$2
	shift 2
	run "$@"
	if [ $rc = 0 ]; then
		fail "$name" "'$*' succeeded (printed '$out')"
	elif [ $rc = 2 ]; then
		fail "$name" "'$*' exited 2 (usage error): $err"
	elif ! grep -Eq -- "$pattern" <<<"$err"; then
		fail "$name" "'$*' exited $rc, message does not match /$pattern/: $err"
	else
		pass "$name"
	fi
}

# The end of the scheduler's output, as comments.
sched_log() {
	echo "# last lines of the output of $sched:"
	tail -n 40 "$tmp/sched.log" | sed 's/^/# /'
}

cgroup_cookie() {
	printf '0x%016x' $(((1 << 63) | $(stat -c %i "$1")))
}

# A sleeping task in cgroup $1; its pid in $task.
task_in() {
	sleep 1000 &
	task=$!
	pids+=("$task")
	echo "$task" >"$1/cgroup.procs"
}

new_cgroup() {
	rmdir "$1" 2>/dev/null
	mkdir "$1" && cgroups=("$1" "${cgroups[@]}")
}

# SIGINT the scheduler, wait up to 10 s for sched_ext to be disabled and
# for the process to exit (then SIGKILL it); its status in $sched_rc.
stop_scheduler() {
	local end
	sched_rc=
	[ -n "$sched_pid" ] || return 0
	kill -INT "$sched_pid" 2>/dev/null
	end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		[ "$(cat $scx/state 2>/dev/null)" = disabled ] &&
			! kill -0 "$sched_pid" 2>/dev/null && break
		sleep 0.1
	done
	if kill -0 "$sched_pid" 2>/dev/null; then
		echo "# $sched still running 10 s after SIGINT, killing it"
		kill -KILL "$sched_pid" 2>/dev/null
	fi
	wait "$sched_pid" 2>/dev/null
	sched_rc=$?
	sched_pid=
}

cleanup() {
	local p c
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	stop_scheduler
	for c in "${cgroups[@]}"; do
		rmdir "$c" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The JSON dump of pinned map $1, or nothing without bpftool.
map_dump() {
	command -v bpftool >/dev/null &&
		bpftool -j map dump pinned "/sys/fs/bpf/scx_coresched/$1" 2>/dev/null
}

tag_gen() {
	map_dump cs_ctl | grep -o '"tag_gen": *[0-9]*' | grep -o '[0-9]*$'
}

if [ ! -x "$ctl" ]; then
	fail ctl_built "$ctl not built (make build/coreschedctl)"
	exit 1
fi

# --- Without a scheduler -------------------------------------------------

if [ "$(cat $scx/state 2>/dev/null)" != disabled ]; then
	echo "# sched_ext state is '$(cat $scx/state 2>&1)', expected disabled"
fi

run "$ctl" --help
if [ $rc = 0 ] && grep -q '^Usage: coreschedctl cgroup tag PATH' "$tmp/out" &&
	grep -q 'new \[--\] CMD' "$tmp/out" && [ ! -s "$tmp/err" ]; then
	run "$ctl" -h
	[ $rc = 0 ] && grep -q '^Usage:' "$tmp/out" && pass ctl_help ||
		fail ctl_help "-h exited $rc"
else
	fail ctl_help "--help exited $rc or printed no full usage on stdout"
fi

run "$ctl" bogus
if [ $rc = 2 ] && grep -q '^Usage:' "$tmp/err" && grep -q "'bogus'" <<<"$err"; then
	pass ctl_unknown_command
else
	fail ctl_unknown_command "exited $rc (want 2, usage and 'bogus' on stderr): $err"
fi

run "$ctl" --bogus
if [ $rc = 2 ] && grep -q '^Usage:' "$tmp/err" && grep -q -- "--bogus" <<<"$err"; then
	pass ctl_unknown_option
else
	fail ctl_unknown_option "exited $rc (want 2, usage and '--bogus' on stderr): $err"
fi

run "$ctl"
[ $rc = 2 ] && grep -q '^Usage:' "$tmp/err" && pass ctl_no_command ||
	fail ctl_no_command "exited $rc, want 2 and usage on stderr"

run "$ctl" get not-a-pid
[ $rc = 2 ] && grep -q "'not-a-pid'" <<<"$err" && pass ctl_get_bad_pid ||
	fail ctl_get_bad_pid "exited $rc, want 2 naming 'not-a-pid': $err"

new_cgroup $cg/t0
expect_fail ctl_tag_no_scheduler "scx_coresched is not running.*start it" \
	"$ctl" cgroup tag t0

run "$ctl" new -- sh -c 'echo ran'
if [ $rc = 0 ] || [ "$out" = ran ]; then
	fail ctl_new_no_scheduler "ran the command without a scheduler (exit $rc)"
elif ! grep -q "scx_coresched is not running" <<<"$err"; then
	fail ctl_new_no_scheduler "exited $rc without the not-running message: $err"
else
	pass ctl_new_no_scheduler
fi

expect_fail ctl_get_no_scheduler "scx_coresched is not running" "$ctl" get

nopid=99999
while [ -e /proc/$nopid ]; do nopid=$((nopid + 1)); done
expect_fail ctl_get_missing_pid "PID $nopid\\b" "$ctl" get $nopid

# --- With the scheduler --------------------------------------------------

if [ ! -x "$sched" ]; then
	fail ctl_with_scheduler "$sched not built"
	exit 1
fi

"$sched" >"$tmp/sched.log" 2>&1 </dev/null &
sched_pid=$!
# Loading (BPF verification) is slow under TCG emulation: allow 60 s.
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
	[ "$(cat $scx/root/ops 2>/dev/null)" = coresched ] && break
	kill -0 $sched_pid 2>/dev/null || break
	sleep 0.1
done
if [ "$(cat $scx/root/ops 2>/dev/null)" != coresched ] ||
	[ "$(cat $scx/state)" != enabled ]; then
	state=$(cat $scx/state)
	if kill -0 $sched_pid 2>/dev/null; then
		why="still running but not enabled after 60 s (sched_ext state $state)"
	else
		wait $sched_pid
		why="exited with status $? (sched_ext state $state)"
	fi
	fail ctl_scheduler_start "$sched $why"
	stop_scheduler
	sched_log
	exit 1
fi
pass ctl_scheduler_start

# Cgroup tags.
new_cgroup $cg/t1
new_cgroup $cg/t1/c1
t1_cookie=$(cgroup_cookie $cg/t1)
c1_cookie=$(cgroup_cookie $cg/t1/c1)
gen0=$(tag_gen)

run "$ctl" cgroup tag t1
[ $rc = 0 ] && [ "$out" = "$t1_cookie" ] && pass ctl_cgroup_tag ||
	fail ctl_cgroup_tag "exit $rc, printed '$out', want $t1_cookie: $err"

gen1=$(tag_gen)
if [ -z "$gen0" ] || [ -z "$gen1" ]; then
	echo "# no bpftool or no BTF for cs_ctl: tag_gen not checked"
elif [ "$gen1" -gt "$gen0" ]; then
	pass ctl_tag_gen_bumped
else
	fail ctl_tag_gen_bumped "tag_gen $gen0 before tagging, $gen1 after"
fi

run "$ctl" cgroup tag $cg/t1/
[ $rc = 0 ] && [ "$out" = "$t1_cookie" ] && pass ctl_cgroup_tag_again ||
	fail ctl_cgroup_tag_again "absolute path: exit $rc, printed '$out', want $t1_cookie: $err"

task_in $cg/t1
t1_task=$task
run "$ctl" get $t1_task
[ $rc = 0 ] && [ "$out" = "$t1_cookie" ] && pass ctl_get_cgroup ||
	fail ctl_get_cgroup "task in t1: exit $rc, got '$out', want $t1_cookie: $err"

task_in $cg/t1/c1
c1_task=$task
run "$ctl" get $c1_task
[ $rc = 0 ] && [ "$out" = "$t1_cookie" ] && pass ctl_get_child_cgroup ||
	fail ctl_get_child_cgroup "task in t1/c1: exit $rc, got '$out', want $t1_cookie: $err"

run "$ctl" get
[ $rc = 0 ] && [ "$out" = 0x0000000000000000 ] && pass ctl_get_untagged ||
	fail ctl_get_untagged "get of itself in the root cgroup: exit $rc, got '$out': $err"

run sh -c "echo \$\$ >$cg/t1/cgroup.procs && exec '$ctl' get"
[ $rc = 0 ] && [ "$out" = "$t1_cookie" ] && pass ctl_get_self_in_cgroup ||
	fail ctl_get_self_in_cgroup "get in t1: exit $rc, got '$out', want $t1_cookie: $err"

# The nearest tagged ancestor wins.
run sh -c "cd $cg/t1 && exec '$ctl' cgroup tag ./c1"
if [ $rc != 0 ] || [ "$out" != "$c1_cookie" ]; then
	fail ctl_get_nearest "tag ./c1 from $cg/t1: exit $rc, printed '$out': $err"
else
	run "$ctl" get $c1_task
	c1_got=$out
	run "$ctl" get $t1_task
	if [ "$c1_got" != "$c1_cookie" ] || [ "$out" != "$t1_cookie" ]; then
		fail ctl_get_nearest "t1/c1 task has '$c1_got' (want $c1_cookie), t1 task '$out' (want $t1_cookie)"
	else
		pass ctl_get_nearest
	fi
	run "$ctl" cgroup untag t1/c1
	[ $rc = 0 ] || fail ctl_get_nearest "untag t1/c1 exited $rc: $err"
fi

run "$ctl" cgroup untag t1
if [ $rc != 0 ]; then
	fail ctl_cgroup_untag "exit $rc: $err"
else
	run "$ctl" get $t1_task
	t1_got=$out
	run "$ctl" get $c1_task
	[ "$t1_got" = 0x0000000000000000 ] && [ "$out" = 0x0000000000000000 ] &&
		pass ctl_cgroup_untag ||
		fail ctl_cgroup_untag "after untag the t1 task has '$t1_got', the t1/c1 task '$out'; want 0"
fi

expect_fail ctl_untag_untagged "$cg/t1 is not tagged" "$ctl" cgroup untag t1

# The root cgroup (id 1) can be tagged too; kernel threads never have a cookie.
run "$ctl" cgroup tag /sys/fs/cgroup
root_out=$out
run "$ctl" get
self_out=$out
run "$ctl" get 2
if [ "$root_out" != 0x8000000000000001 ] || [ "$self_out" != "$root_out" ]; then
	fail ctl_get_kthread "tagging the root printed '$root_out', get of a task in it '$self_out'"
elif [ $rc != 0 ] || [ "$out" != 0x0000000000000000 ]; then
	fail ctl_get_kthread "kthreadd (pid 2) in a tagged root: exit $rc, got '$out', want 0: $err"
else
	pass ctl_get_kthread
fi
run "$ctl" cgroup untag /sys/fs/cgroup

# Task cookies from 'new'.
script="'$ctl' get; sh -c \"'$ctl' get\"; '$ctl' get \$\$"
run "$ctl" new -- sh -c "$script"
read -r -d '' a b c <<<"$out"
if [ $rc != 0 ]; then
	fail ctl_new "exit $rc: $err"
elif [ -z "$c" ] || [ "$a" != "$b" ] || [ "$a" != "$c" ]; then
	fail ctl_new "get in CMD, in its child and of CMD differ: '$a' '$b' '$c'"
elif [ "$a" = 0x0000000000000000 ] || (((a >> 63) & 1)); then
	fail ctl_new "'$a' is not a task cookie (nonzero, bit 63 clear)"
else
	pass ctl_new
fi
first=$a

run "$ctl" new -- "$ctl" get
[ $rc = 0 ] && [ "$out" != "$first" ] && [ "$out" != 0x0000000000000000 ] &&
	pass ctl_new_fresh ||
	fail ctl_new_fresh "second new: exit $rc, cookie '$out', first was '$first': $err"

# A task cookie overrides the cgroup's.
run "$ctl" cgroup tag t1
run sh -c "echo \$\$ >$cg/t1/cgroup.procs && exec '$ctl' new -- '$ctl' get"
if [ $rc = 0 ] && [ "$out" != "$t1_cookie" ] && [ "$out" != 0x0000000000000000 ] &&
	! (((out >> 63) & 1)); then
	pass ctl_new_over_cgroup
else
	fail ctl_new_over_cgroup "new in tagged t1: exit $rc, got '$out' (t1 is $t1_cookie): $err"
fi
run "$ctl" cgroup untag t1

run "$ctl" new -- sh -c 'exit 7'
[ $rc = 7 ] && pass ctl_new_exit_status ||
	fail ctl_new_exit_status "exit $rc, want CMD's 7"

run "$ctl" new -- no-such-command-xyz
[ $rc = 127 ] && grep -q "'no-such-command-xyz'.*not found" <<<"$err" &&
	pass ctl_new_not_found ||
	fail ctl_new_not_found "exit $rc (want 127): $err"

# Bad PATHs: a clear message naming the path, nothing tagged.
expect_fail ctl_tag_file "$cg/t1/cgroup.procs is not a directory" \
	"$ctl" cgroup tag $cg/t1/cgroup.procs
expect_fail ctl_tag_missing "no-such-cg.*$cg/no-such-cg does not exist" \
	"$ctl" cgroup tag no-such-cg
expect_fail ctl_tag_not_cgroup "/tmp is not a cgroup" "$ctl" cgroup tag /tmp
if command -v setpriv >/dev/null; then
	expect_fail ctl_no_permission "permission denied.*run as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ctl" cgroup tag t1
fi

dump=$(map_dump cs_cgrp_tag)
if [ -z "$dump" ]; then
	echo "# no bpftool: cs_cgrp_tag not checked for leftovers"
elif [ "$(tr -d ' \n' <<<"$dump")" = "[]" ]; then
	pass ctl_no_leftover_tags
else
	fail ctl_no_leftover_tags "cs_cgrp_tag is not empty after the untags and failed tags: $(tr -d '\n' <<<"$dump")"
fi

stop_scheduler
if [ "$(cat $scx/state)" = disabled ]; then
	pass ctl_scheduler_stop
else
	fail ctl_scheduler_stop "state is '$(cat $scx/state)' 10 s after SIGINT"
fi
[ "$sched_rc" = 0 ] || echo "# $sched exited with status $sched_rc after SIGINT"

expect_fail ctl_tag_after_stop "scx_coresched is not running" \
	"$ctl" cgroup tag t1

if [ $nfail != 0 ]; then
	sched_log
	exit 1
fi
exit 0
