#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Cgroup nesting at its edge, CS_MAX_CGRP_DEPTH (64) levels searched for a
# tag, from a task's own cgroup up. A tenant that may make cgroups below
# its tagged one must not get a task out of its cookie by nesting it deep.
# Cgroup t_a is tagged; below it:
#   near   t_a + 20 levels: its tag is found (the walk once stopped at 16
#          levels, and such a task ran untagged, beside untagged work)
#   edge   t_a + 63 levels (level 64): the 64th look finds the tag
#   past   t_a + 64 levels (level 65): one level too deep, 0x1 (below)
#   deep   t_a + 70 levels: no tag in its 64 nearest levels, and the root
#          further up: its trust domain is unknown, so it runs alone
#          (CS_COOKIE_LOST, 0x1)
# and, asleep, for their cookies only: in t_c, tagged 10 levels down
# (level 11), a task at level 71 (the tag within its 64 looks: found), and
# one 70 levels down an untagged t_u (0x1: untagged is not known either).
# With spinners in near (stress-ng), edge and deep (shell loops), in
# tagged t_b, and untagged stress-ng, on 2x2, the outside observer
# attached first (it derives cookies itself: the tag for near and edge,
# a cookie of its own for deep).
#   nesting_cookies      the cookie prctl(PR_SCHED_CORE_GET) reads for a
#                        task in each (the tagging programs' rule, the one
#                        the scheduler runs): t_a's, t_a's, 0x1, 0x1, the
#                        tag 10 levels down t_c, 0x1
#   nesting_cgroup_get   coreschedctl cgroup get says the same, and names
#                        the deep one unknown
#   nesting_policy_show  coreschedctl policy show explains the deep task
#   nesting_isolation    0 ns of overlap between incompatible siblings
#   nesting_deep_runs    the deep task ran (alone is not never)
#   SCX_TOPO=2x2 tools/vm -- tests/guest/nesting.sh
. tests/guest/lib.sh

secs=${SCX_SECS:-5}
lost=1 # CS_COOKIE_LOST

check_topology

# chain BASE N: make N nested cgroups below BASE, print the deepest (one
# letter a level: paths stay within a policy path's length).
chain() {
	local d=$1 i
	for ((i = 1; i <= $2; i++)); do
		d=$d/d
	done
	mkdir -p "$d" && echo "$d"
}

# level CGROUP: its nesting level below the cgroup2 root.
level() {
	local rel=${1#"$CG"/}
	tr -cd / <<<"$rel" | wc -c | awk '{ print $1 + 1 }'
}

if ! ensure_pins || ! observe_bg "$TMP/obs" --duration $((secs + 60)) \
	--require-zero; then
	fail nesting_isolation "observer did not start: $(tail -n 1 "$TMP/obs.err")"
	finish
fi
if ! start_sched --stats 2 --json; then
	fail nesting_isolation "scheduler did not start"
	finish
fi
a=$(tenant t_a)
b=$(tenant t_b)
if ! "$CTL" cgroup tag "$a" >/dev/null || ! "$CTL" cgroup tag "$b" >/dev/null; then
	fail nesting_isolation "could not tag t_a and t_b"
	finish
fi
base=$(level "$a")
near=$(chain "$a" 20)
edge=$(chain "$a" $((64 - base)))
past=$(chain "$a" $((65 - base)))
deep=$(chain "$a" 70)
c=$(tenant t_c)
cmid=$(chain "$c" 10)
cdeep=$(chain "$c" 70)
udeep=$(chain "$(tenant t_u)" 70)
"$CTL" cgroup tag "$cmid" >/dev/null || fail nesting_cookies "could not tag $cmid"
info "levels below the root: t_a $base, near $(level "$near"), edge $(level "$edge"), past $(level "$past"), deep $(level "$deep"); t_c's tag $(level "$cmid"), below it $(level "$cdeep"); untagged $(level "$udeep")"
ca=$(cgroup_tag "$a")
cc=$(cgroup_tag "$cmid")
run_in "$past" sleep 1000
p_past=$LAST
run_in "$cdeep" sleep 1000
p_cdeep=$LAST
run_in "$udeep" sleep 1000
p_udeep=$LAST

run_in "$near" stress-ng --quiet --cpu "$NCPU" --timeout $((secs + 30))
p_near=$LAST
run_in "$edge" sh -c 'while :; do :; done'
p_edge=$LAST
run_in "$deep" sh -c 'while :; do :; done'
p_deep=$LAST
run_in "$b" stress-ng --quiet --cpu "$NCPU" --timeout $((secs + 30))
spawn stress-ng --quiet --cpu $(((NCPU + 1) / 2)) --timeout $((secs + 30))
sleep 1

got="$(cookie_of "$p_near") $(cookie_of "$p_edge") $(cookie_of "$p_past") $(cookie_of "$p_deep") $(cookie_of "$p_cdeep") $(cookie_of "$p_udeep")"
want="$ca $ca $lost $lost $cc $lost"
if [ -n "$ca" ] && [ -n "$cc" ] && [ "$got" = "$want" ]; then
	pass nesting_cookies
else
	fail nesting_cookies "prctl GET near, edge, past, deep, t_c's deep, untagged deep: $got (want $want)"
fi

hex=$(printf '0x%x' "$ca")
g_near=$("$CTL" cgroup get "$near" 2>&1)
g_edge=$("$CTL" cgroup get "$edge" 2>&1)
g_deep=$("$CTL" cgroup get "$deep" 2>&1)
if [[ $g_near == *" is $hex (inherited from "* ]] &&
	[[ $g_edge == *" is $hex (inherited from "* ]] &&
	[[ $g_deep == *" is 0x1 (unknown: deeper than the 64 levels"* ]]; then
	pass nesting_cgroup_get
else
	fail nesting_cgroup_get "near: $g_near | edge: $g_edge | deep: $g_deep"
fi

# the policy's explanation of the deep task (no policy file: none names it)
show=$("$CTL" policy show --policy /dev/null --pid "$p_deep" 2>&1)
if [[ $show == *"cookie 0x1, unknown: it runs alone"*"gives: unknown (cookie 0x1"* ]]; then
	pass nesting_policy_show
else
	fail nesting_policy_show "$show"
fi

t0=$(cpu_ticks "$p_deep")
sleep "$secs"
t1=$(cpu_ticks "$p_deep")
end_observer "$TMP/obs"
info "observer: overlap_ns=$OBS_OV switches=$OBS_SW windows=$(field "$TMP/obs" overlap_windows) lost=$(field "$TMP/obs" lost_events)"
if [ "$OBS_RC" = 0 ] && [ "$OBS_OV" = 0 ] && [ "${OBS_SW:-0}" -gt 0 ] &&
	[ "$(scx_state)" = enabled ]; then
	pass nesting_isolation
else
	fail nesting_isolation "observer rc=$OBS_RC overlap_ns=$OBS_OV switches=$OBS_SW state=$(scx_state): $(tail -n 2 "$TMP/obs.err" | tr '\n' '|')"
	grep overlap_example "$TMP/obs" | head -n 3 | sed 's/^/# /'
fi
info "the deep task's CPU time in $secs s: $((t1 - t0)) ticks"
if [ $((t1 - t0)) -gt 0 ]; then
	pass nesting_deep_runs
else
	fail nesting_deep_runs "it had no CPU time in $secs s ($t0 -> $t1 ticks)"
fi
finish
