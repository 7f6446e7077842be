#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of coreschedctl beyond util-linux's cases (utilcli.sh):
# bad input, permissions, clear, list, --json, and the cgroup functions
# under scx_coresched (the tag limit, CS_MAX_CGRP_TAGS, at its edge). Run
# as root in a tools/vm guest with SMT from the repository root, e.g.
#   tools/vm -- tests/guest/ctl.sh
# One line per test, "PASS NAME" or "FAIL NAME: WHY"; '#' lines are
# information. Exits 1 if a test failed.
#
# The task tests run against whoever serves prctl(PR_SCHED_CORE): the
# kernel until the scheduler starts, then scx_coresched. SCX_CTL_SCHEDULER
# overrides the scheduler binary (default build/scx_coresched).
. "$(dirname "$0")/lib.sh"

SCHED=${SCX_CTL_SCHEDULER:-$SCHED}
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# cookie PID: the cookie of PID as coreschedctl get prints it.
cookie() { "$CTL" get -s "$1" 2>/dev/null | sed -n 's/^cookie of PID [0-9]* is //p'; }

# sleeper [USER-PREFIX...]: a background sleep; its pid in $task.
sleeper() {
	"$@" sleep 1000 &
	task=$!
	bg_pids+=("$task")
}

cgroup_cookie() {
	printf '0x%x' $(((1 << 63) | $(stat -c %i "$1")))
}

if [ ! -x "$CTL" ]; then
	fail ctl_built "$CTL not built (make build/coreschedctl)"
	exit 1
fi
[ "$(scx_state 2>/dev/null)" = disabled ] ||
	info "sched_ext state is '$(scx_state 2>&1)', expected disabled"

# --- Command line ------------------------------------------------------------

run "$CTL" --help
if [ $rc = 0 ] && grep -q '^Usage:' <<<"$out" &&
	grep -q 'coreschedctl cgroup share SRC DST' <<<"$out" && [ -z "$err" ]; then
	pass ctl_help
else
	fail ctl_help "exit $rc, no full usage on stdout or stderr not empty: $err"
fi

expect_fail ctl_unknown_function "Unknown function 'bogus'.*|Try 'coreschedctl --help'" \
	"$CTL" bogus
expect_fail ctl_unknown_option "Try 'coreschedctl --help' for more information" \
	"$CTL" --bogus
expect_fail ctl_bad_pid "Failed to parse PID for -s/--source: 'not-a-pid'" \
	"$CTL" get -s not-a-pid
expect_fail ctl_bad_scope "'thread' is an invalid option. Must be one of pid/tgid/pgid" \
	"$CTL" new -t thread -d 1
expect_fail ctl_clear_needs_dest "clear requires -d/--dest" "$CTL" clear
expect_fail ctl_json_where "--json is only for get, list and cgroup get" \
	"$CTL" new --json -d 1

nopid=99999
while [ -e /proc/$nopid ]; do nopid=$((nopid + 1)); done
run "$CTL" get -s $nopid
if [ $rc = 1 ] &&
	[ "$(head -n 1 <<<"$err")" = "coreschedctl: Failed to get cookie from PID $nopid: No such process" ] &&
	grep -q "PID $nopid.*check the PID" <<<"$err"; then
	pass ctl_missing_pid
else
	fail ctl_missing_pid "exit $rc: $(tr '\n' '|' <<<"$err")"
fi
expect_fail ctl_clear_missing_pid "Failed to clear cookie of PID $nopid: No such process" \
	"$CTL" clear -d $nopid

# --- Task cookies (served by the kernel here) --------------------------------

# The library's own tests (pidfd variants, clear with a cookie).
if [ -x "$ROOT/build/test_ctl_lib" ]; then
	lib_out=$("$ROOT/build/test_ctl_lib" 2>&1)
	lib_rc=$?
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) pass "ctl_lib_${line#PASS }" ;;
		FAIL\ *)
			line=${line#FAIL }
			fail "ctl_lib_${line%%:*}" "${line#*: }"
			;;
		*) info "${line#\# }" ;;
		esac
	done <<<"$lib_out"
	[ $lib_rc = 0 ] || grep -q '^FAIL' <<<"$lib_out" ||
		fail ctl_lib "test_ctl_lib exited $lib_rc without a FAIL line"
else
	fail ctl_lib "build/test_ctl_lib not built (make build/test_ctl_lib)"
fi

sleeper
t1=$task
run "$CTL" get --json -s $t1
[ $rc = 0 ] && [ "$out" = "{\"pid\": $t1, \"cookie\": \"0x0\"}" ] &&
	pass ctl_get_json || fail ctl_get_json "exit $rc: '$out' $err"

"$CTL" new -d $t1
c1=$(cookie $t1)
run "$CTL" clear -d $t1
[ $rc = 0 ] && [ "$c1" != 0x0 ] && [ -n "$c1" ] && [ "$(cookie $t1)" = 0x0 ] &&
	pass ctl_clear || fail ctl_clear "cookie was '$c1', exit $rc, now '$(cookie $t1)': $err"

# clear from a context that has a cookie: a helper thread takes cookie 0.
"$CTL" new -d $t1
run "$CTL" new -- "$CTL" -v clear -d $t1
[ $rc = 0 ] && [ "$(cookie $t1)" = 0x0 ] && pass ctl_clear_with_cookie ||
	fail ctl_clear_with_cookie "exit $rc, cookie now '$(cookie $t1)': $err"

# list: every cookie with its tasks; also without root.
sleeper
t2=$task
"$CTL" new -d $t1
"$CTL" copy -s $t1 -d $t2
c1=$(cookie $t1)
run "$CTL" list
if [ $rc = 0 ] && grep -q "^cookie $c1: 2 tasks, 0 cgroups" <<<"$out" &&
	grep -q "^  pid $t1 tgid $t1 sleep" <<<"$out" &&
	grep -q "^  pid $t2 tgid $t2 sleep" <<<"$out"; then
	pass ctl_list
else
	fail ctl_list "exit $rc, no cookie $c1 with $t1 and $t2: $(tr '\n' '|' <<<"$out") $err"
fi
run "$CTL" list --json
if [ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(sys.stdin)
c = [e for e in d["cookies"] if e["cookie"] == sys.argv[1]]
assert len(c) == 1, c
assert sorted(t["pid"] for t in c[0]["tasks"]) == sorted(map(int, sys.argv[2:])), c
assert all(t["comm"] == "sleep" for t in c[0]["tasks"]), c
' "$c1" $t1 $t2 <<<"$out"; then
	pass ctl_list_json
else
	fail ctl_list_json "exit $rc: $out"
fi

# Another user's tasks: reading and changing need ptrace rights.
sleeper "${NOBODY[@]}"
tn=$task
sleep 0.2
run "${NOBODY[@]}" "$CTL" get -s $tn
[ $rc = 0 ] && [ "$out" = "cookie of PID $tn is 0x0" ] && pass ctl_get_no_root ||
	fail ctl_get_no_root "nobody reading its own task: exit $rc: $out $err"
expect_fail ctl_get_other_user "Failed to get cookie from PID $t1: Operation not permitted.*|.*permission denied" \
	"${NOBODY[@]}" "$CTL" get -s $t1
expect_fail ctl_new_other_user "Failed to create cookie for PID $t1: Operation not permitted" \
	"${NOBODY[@]}" "$CTL" new -d $t1
[ "$(cookie $t1)" = "$c1" ] && pass ctl_other_user_unchanged ||
	fail ctl_other_user_unchanged "cookie of $t1 is '$(cookie $t1)', was $c1"
expect_fail ctl_clear_other_user "Failed to clear cookie of PID $t1: Operation not permitted" \
	"${NOBODY[@]}" "$CTL" clear -d $t1

run "${NOBODY[@]}" "$CTL" list
if [ $rc = 0 ] && ! grep -q "pid $t1 " <<<"$out" &&
	grep -q "not listed: no permission.*run as root" <<<"$err"; then
	pass ctl_list_no_root
else
	fail ctl_list_no_root "exit $rc: $(tr '\n' '|' <<<"$out") $(tr '\n' '|' <<<"$err")"
fi

# A process group with a task nobody may not trace: nothing changes.
setsid sh -c "sleep 1000 & ${NOBODY[*]} sleep 1000 & wait" &
leader=$!
sleep 0.5
pgid=$(ps -o pgid= -p $leader | tr -d ' ')
bg_pids+=($(pgrep -g "$pgid"))
pg=$(pgrep -u 65534 -g "$pgid" | head -n 1)
if [ -z "$pg" ] || [ "$pgid" = "$(ps -o pgid= -p $$ | tr -d ' ')" ]; then
	fail ctl_pgid_all_or_nothing "could not set up a mixed process group (pgid '$pgid')"
else
	expect_fail ctl_pgid_all_or_nothing "Failed to create cookie for PID $pg: Operation not permitted" \
		"${NOBODY[@]}" "$CTL" new -t pgid -d $pg
	[ "$(cookie $pg)" = 0x0 ] && pass ctl_pgid_nothing_applied ||
		fail ctl_pgid_nothing_applied "nobody's own task $pg got cookie $(cookie $pg)"
	# The same as root: every task of the group gets one cookie.
	"$CTL" new -t pgid -d $pg
	got=$(for p in $(pgrep -g "$pgid"); do cookie $p; done | sort -u)
	[ "$(wc -l <<<"$got")" = 1 ] && [ "$got" != 0x0 ] && pass ctl_pgid_root ||
		fail ctl_pgid_root "cookies in the group: $(tr '\n' ' ' <<<"$got")"
fi

# clear refuses when the caller has a cookie and can trace no task without.
"${NOBODY[@]}" "$CTL" new -d $tn
expect_fail ctl_clear_impossible "may trace no task without one" \
	"${NOBODY[@]}" "$CTL" new -- "$CTL" clear -d $tn
[ "$(cookie $tn)" != 0x0 ] && pass ctl_clear_impossible_unchanged ||
	fail ctl_clear_impossible_unchanged "cookie of $tn became 0"

# --- Cgroup functions --------------------------------------------------------

t1cg=$(tenant t_ctl1)
expect_fail ctl_cgroup_no_scheduler "scx_coresched is not running.*start it" \
	"$CTL" cgroup tag t_ctl1
expect_fail ctl_cgroup_get_no_scheduler "scx_coresched is not running" \
	"$CTL" cgroup get t_ctl1

if [ ! -x "$SCHED" ]; then
	fail ctl_with_scheduler "$SCHED not built"
	finish
fi
if ! start_sched; then
	fail ctl_scheduler_start "$SCHED did not start"
	finish
fi
pass ctl_scheduler_start

mkdir -p "$t1cg/c1"
t2cg=$(tenant t_ctl2)
want1=$(cgroup_cookie "$t1cg")
run "$CTL" -v cgroup tag t_ctl1
[ $rc = 0 ] && [ "$err" = "coreschedctl: set cookie of cgroup $t1cg to $want1" ] &&
	pass ctl_cgroup_tag || fail ctl_cgroup_tag "exit $rc: $err"

run "$CTL" cgroup get t_ctl1/c1
[ $rc = 0 ] && [ "$out" = "cookie of cgroup $t1cg/c1 is $want1 (inherited from $t1cg)" ] &&
	pass ctl_cgroup_get_inherited || fail ctl_cgroup_get_inherited "exit $rc: $out $err"
run "$CTL" cgroup get --json "$t1cg"
[ $rc = 0 ] && [ "$out" = "{\"cgroup\": \"$t1cg\", \"cookie\": \"$want1\", \"unknown\": false, \"inherited_from\": null}" ] &&
	pass ctl_cgroup_get_json || fail ctl_cgroup_get_json "exit $rc: $out $err"

run "$CTL" cgroup share t_ctl1 t_ctl2
run2=$("$CTL" cgroup get t_ctl2)
[ $rc = 0 ] && [ "$run2" = "cookie of cgroup $t2cg is $want1" ] &&
	pass ctl_cgroup_share || fail ctl_cgroup_share "exit $rc, then '$run2': $err"

run_in "$t1cg/c1" sleep 1000
tc=${bg_pids[-1]}
sleep 0.3
run "$CTL" list
if [ $rc = 0 ] && grep -q "^cookie $want1: 1 task, 2 cgroups" <<<"$out" &&
	grep -q "^  pid $tc tgid $tc sleep (by its cgroup)$" <<<"$out" &&
	grep -q "^  cgroup $t1cg$" <<<"$out" && grep -q "^  cgroup $t2cg$" <<<"$out"; then
	pass ctl_list_cgroups
else
	fail ctl_list_cgroups "exit $rc: $(tr '\n' '|' <<<"$out") $err"
fi

run "$CTL" cgroup untag t_ctl2
[ $rc = 0 ] && [ "$("$CTL" cgroup get t_ctl2)" = "cookie of cgroup $t2cg is 0x0" ] &&
	pass ctl_cgroup_untag || fail ctl_cgroup_untag "exit $rc: $err"
expect_fail ctl_untag_untagged "$t2cg is not tagged" "$CTL" cgroup untag t_ctl2
expect_fail ctl_share_untagged "$t2cg has no cookie" "$CTL" cgroup share t_ctl2 t_ctl1
expect_fail ctl_tag_not_cgroup "/tmp is not a cgroup" "$CTL" cgroup tag /tmp
expect_fail ctl_tag_file "cgroup.procs is not a directory" \
	"$CTL" cgroup tag t_ctl1/cgroup.procs
expect_fail ctl_tag_missing "$CG/no-such-cg does not exist" "$CTL" cgroup tag no-such-cg
expect_fail ctl_cgroup_no_root "permission denied.*run as root" \
	"${NOBODY[@]}" "$CTL" cgroup tag t_ctl1
"$CTL" cgroup untag t_ctl1

# The tag limit at its edge: CS_MAX_CGRP_TAGS (4,096) cgroups tagged, the
# next one refused with a message that says what to do, room again once
# tagged cgroups go (the tagging programs drop a removed cgroup's tag: the
# map then holds only the next one tagged).
many=$(tenant t_many)
res=$("$ROOT/build/tag_many" "$many" 4097 2>&1)
info "tag_many 4097: $res"
if [[ $res == "tagged 4096 held 4096 failed_at 4096 errno 7: "*"cs_cgrp_tag is full (4096 cgroups tagged); untag cgroups that no longer need a cookie and retry" ]]; then
	pass ctl_cgroup_tag_limit
else
	fail ctl_cgroup_tag_limit "want 4096 tagged and held, the 4097th refused with E2BIG (7): $res"
fi
expect_fail ctl_cgroup_tag_full "is full \\(4096 cgroups tagged\\); untag cgroups" "$CTL" cgroup tag t_ctl2
got=$("$CTL" cgroup get t_ctl2)
[ "$got" = "cookie of cgroup $t2cg is 0x0" ] && pass ctl_cgroup_tag_full_unchanged ||
	fail ctl_cgroup_tag_full_unchanged "after the refused tag: $got"
rmdir "$many"/* 2>/dev/null
res=$("$ROOT/build/tag_many" "$(tenant t_many2)" 1 2>&1)
run "$CTL" cgroup tag t_ctl2
if [ "$res" = "tagged 1 held 1 failed_at -1 errno 0: " ] && [ $rc = 0 ]; then
	pass ctl_cgroup_tag_room_again
else
	fail ctl_cgroup_tag_room_again "after removing the 4,096 tagged cgroups, tag_many 1: '$res'; coreschedctl cgroup tag: exit $rc $err"
fi
"$CTL" cgroup untag t_ctl2
rmdir "$CG/t_many2"/* 2>/dev/null

# Task cookies under scx_coresched: the same calls work.
run "$CTL" new -- "$CTL" get
[ $rc = 0 ] && [[ $out == "cookie of PID "* ]] && [[ $out != *" is 0x0" ]] &&
	pass ctl_new_under_scheduler || fail ctl_new_under_scheduler "exit $rc: $out $err"

if [ "$(scx_state)" != enabled ] || [ "$(scx_ops)" != coresched ]; then
	fail ctl_scheduler_alive "scx_coresched stopped during the tests (sched_ext $(scx_state))"
fi
stop_sched || fail ctl_scheduler_stop "sched_ext not disabled after SIGINT"
if [ $nfail != 0 ]; then
	info "last lines of the scheduler's stderr:"
	tail -n 20 "$TMP/sched.err" | sed 's/^/# /'
fi
expect_fail ctl_tag_after_stop "scx_coresched is not running" \
	"$CTL" cgroup tag t_ctl1
finish
