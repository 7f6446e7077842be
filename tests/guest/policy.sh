#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The declarative policy (scx_coresched --policy, bpf/policy.bpf.c) with
# tests/guest/policy.conf: "children /t_vms" and "cgroup /t_shared".
#   SCX_POLICY_BOOT=1  the cgroups are created after the scheduler started
#   SCX_POLICY_BOOT=2  (a second guest: a "reboot") t_vms and two children
#                      exist before it starts; a third child comes later
#   tools/vm --cores 2 --threads 2 -- tests/guest/policy.sh
#
# Tests (suffix _boot1 or _boot2):
#   policy_missing_path_warned  boot 1: the loader warns that /t_vms does
#                               not exist yet, and starts
#   policy_tagged_at_mkdir      every child of /t_vms (and /t_shared) has
#                               its own cookie in cs_cgrp_tag before a task
#                               is moved in, and its first task reports it
#   policy_isolation            two such children run spinners (plus
#                               untagged ones): the observer, started before
#                               the scheduler, sees 0 ns of overlap
#   policy_show                 coreschedctl policy show names the rule of a
#                               spinner, a hand tag and an untagged cgroup
#   policy_tagged_while_stopped a child created while no scheduler runs is
#                               tagged (the program is pinned), and is
#                               isolated once the scheduler is back
#   policy_check                policy check accepts policy.conf, and fails
#                               on a bad file naming the line
. tests/guest/lib.sh

boot=${SCX_POLICY_BOOT:-1}
secs=${SCX_SECS:-8}
POLICY=$ROOT/tests/guest/policy.conf
PIN=/sys/fs/bpf/scx_coresched
VMS=$CG/t_vms
sfx=_boot$boot

# tag_of_id ID: the cookie in cs_cgrp_tag for cgroup id ID (empty if none).
tag_of_id() {
	# shellcheck disable=SC2046 # one argument per byte, little endian
	bpftool -j map lookup pinned "$PIN/cs_cgrp_tag" key hex \
		$(printf '%016x' "$1" | sed 's/../& /g' |
			awk '{for (i = NF; i > 0; i--) printf "%s ", $i}') 2>/dev/null |
		python3 -c 'import json, sys; d = json.load(sys.stdin); print("0x%x" % int.from_bytes(bytes(int(x, 16) for x in d["value"]), "little"))' 2>/dev/null
}

# own_cookie CGROUP: the cookie a cgroup tagged by the policy must have.
own_cookie() { printf '0x%x' $(((1 << 63) | $(stat -c %i "$1"))); }

# first_task_cookie CGROUP: move a shell in as the cgroup's first task and
# print the cookie that task reports (prctl PR_SCHED_CORE_GET).
first_task_cookie() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" get' "$1" "$CTL" |
		awk '{print $NF}'
}

# check_tagged NAME CGROUP...: map entry first, then the first task.
check_tagged() {
	local name=$1 cg want got first bad=
	shift
	for cg in "$@"; do
		want=$(own_cookie "$cg")
		got=$(tag_of_id "$(stat -c %i "$cg")")
		if [ "$got" != "$want" ]; then
			bad="$bad ${cg#"$CG"}: map entry '${got:-none}' (want $want);"
			continue
		fi
		first=$(first_task_cookie "$cg")
		[ "$first" = "$want" ] ||
			bad="$bad ${cg#"$CG"}: first task cookie '$first' (want $want);"
	done
	if [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "$bad"
	fi
}

# isolate NAME A B: spinners in cgroups A and B plus untagged ones, watched
# by an observer that started before the scheduler (which must be stopped
# when this is called); leaves the scheduler running.
isolate() {
	local name=$1 a=$2 b=$3 rc ov sw
	if ! observe_bg "$TMP/obs" --duration $((secs + 60)) --require-zero; then
		fail "$name" "observer did not start: $(tail -n 1 "$TMP/obs.err")"
		return 1
	fi
	if ! start_sched --policy "$POLICY"; then
		fail "$name" "scheduler did not start: $(tail -n 2 "$TMP/sched.err")"
		kill $OBS_PID
		return 1
	fi
	run_in "$a" stress-ng --quiet --cpu "$NCPU" --timeout 600
	run_in "$b" stress-ng --quiet --cpu "$NCPU" --timeout 600
	spawn stress-ng --quiet --cpu $(((NCPU + 1) / 2)) --timeout 600
	sleep "$secs"
	end_observer "$TMP/obs"
	rc=$OBS_RC ov=$OBS_OV sw=$OBS_SW
	info "$name: overlap_ns=$ov windows=$(field "$TMP/obs" overlap_windows) switches=$sw"
	if [ $rc = 0 ] && [ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ] &&
		[ "$(scx_state)" = enabled ]; then
		pass "$name"
	else
		grep overlap_example "$TMP/obs" | head -n 3 | sed 's/^/# /'
		fail "$name" "observer rc=$rc overlap_ns=$ov switches=$sw state=$(scx_state) ($(tail -n 1 "$TMP/obs.err"))"
	fi
}

check_topology
if ! ensure_pins; then
	fail "policy_start$sfx" "scheduler did not start once: $(tail -n 2 "$TMP/sched.err")"
	finish
fi

# --- scheduler running with the policy --------------------------------------
if [ "$boot" = 2 ]; then
	mkdir -p "$VMS/vm1" "$VMS/vm2" "$CG/t_shared"
fi
isolate_started=0
if [ "$boot" = 1 ]; then
	# The policy is loaded before any of its cgroups exist.
	if observe_bg "$TMP/obs" --duration $((secs + 60)) --require-zero &&
		start_sched --policy "$POLICY"; then
		isolate_started=1
	fi
	if [ $isolate_started = 1 ] &&
		grep -q "children /t_vms': $VMS does not exist yet" "$TMP/sched.err"; then
		pass "policy_missing_path_warned$sfx"
	else
		fail "policy_missing_path_warned$sfx" "$(tail -n 3 "$TMP/sched.err")"
	fi
	mkdir -p "$VMS/vm1" "$VMS/vm2" "$CG/t_shared"
	check_tagged "policy_tagged_at_mkdir$sfx" "$VMS/vm1" "$VMS/vm2" "$CG/t_shared"
	kill -INT $OBS_PID 2>/dev/null
	wait $OBS_PID 2>/dev/null
	stop_sched
else
	# Existing cgroups: tagged by the loader's scan at start.
	if start_sched --policy "$POLICY"; then
		mkdir "$VMS/vm3"
		check_tagged "policy_tagged_at_mkdir$sfx" "$VMS/vm1" "$VMS/vm2" "$VMS/vm3" "$CG/t_shared"
		info "loader: $(grep 'policy ' "$TMP/sched.err" | tail -n 1)"
		stop_sched
	else
		fail "policy_tagged_at_mkdir$sfx" "scheduler did not start: $(tail -n 2 "$TMP/sched.err")"
	fi
fi

isolate "policy_isolation$sfx" "$VMS/vm1" "$VMS/vm2"

# policy show: the rule of a spinner, a hand tag, an untagged cgroup.
spid=$(head -n 1 "$VMS/vm1/cgroup.procs")
mkdir -p "$CG/t_hand" "$CG/t_none"
"$CTL" cgroup tag "$CG/t_hand" >/dev/null
s1=$("$CTL" policy show --policy "$POLICY" --pid "$spid" 2>&1)
s2=$("$CTL" policy show --policy "$POLICY" "$CG/t_hand" 2>&1)
s3=$("$CTL" policy show --policy "$POLICY" t_none 2>&1)
s4=$("$CTL" policy show --policy "$POLICY" t_shared 2>&1)
s5=$("$CTL" policy show --policy "$POLICY" 2>&1)
nvms=$(find "$VMS" -mindepth 1 -maxdepth 1 -type d | wc -l)
info "show: $s1"
info "show: $s2"
info "show: $s3"
info "show: $s4"
if [[ "$s1" == *"in cgroup /t_vms/vm1: cookie $(own_cookie "$VMS/vm1") from cgroup /t_vms/vm1: tagged by rule 1 ($POLICY:5: children /t_vms)"* ]] &&
	[[ "$s2" == *"tagged by hand"* ]] && [[ "$s3" == *"untagged (cookie 0)"* ]] &&
	[[ "$s4" == *"tagged by rule 2 ($POLICY:6: cgroup /t_shared)"* ]] &&
	[[ "$s5" == *"$nvms of $nvms child cgroups of $VMS tagged"* ]]; then
	pass "policy_show$sfx"
else
	fail "policy_show$sfx" "unexpected output: $s1 | $s2 | $s3 | $s4 | $s5"
fi
stop_bg
stop_sched

# --- no scheduler: the pinned program still tags ------------------------------
mkdir "$VMS/vm4"
check_tagged "policy_tagged_while_stopped$sfx" "$VMS/vm4"
isolate "policy_isolation_after_stop$sfx" "$VMS/vm1" "$VMS/vm4"
stop_bg
stop_sched

# --- policy check ---------------------------------------------------------------
out=$("$CTL" policy check "$POLICY" 2>&1)
rc=$?
printf 'cgroup /ok\n\n# fine\nchildren /sys/fs/bpf/x\n' >"$TMP/bad.policy"
bout=$("$CTL" policy check "$TMP/bad.policy" 2>&1)
brc=$?
if [ $rc = 0 ] && [[ "$out" == *"2 rules, OK"* ]] && [ $brc != 0 ] &&
	[[ "$bout" == *"$TMP/bad.policy:4: '/sys/fs/bpf/x' is outside /sys/fs/cgroup"* ]]; then
	pass "policy_check$sfx"
else
	fail "policy_check$sfx" "good: rc=$rc '$out'; bad: rc=$brc '$bout'"
fi
# The loader refuses the bad file too, naming the line.
if ! "$SCHED" --policy "$TMP/bad.policy" 2>"$TMP/bad.err" >/dev/null &&
	grep -q "bad.policy:4:" "$TMP/bad.err" && [ "$(scx_state)" = disabled ]; then
	pass "policy_loader_refuses_bad_file$sfx"
else
	fail "policy_loader_refuses_bad_file$sfx" "$(tail -n 2 "$TMP/bad.err")"
fi
finish
