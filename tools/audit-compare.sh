#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/audit-compare.sh [RESULTS_DIR]: run by 'make audit-compare' inside a
# tools/vm guest. The same workload -- two tenants, each a cgroup whose
# process takes its own core scheduling cookie (prctl PR_SCHED_CORE_CREATE,
# tests/guest/cookie_spin.c) and spins one thread per CPU -- runs twice:
#
#   ours      under scx_coresched (its tagging programs serve the prctl)
#   upstream  under the kernel's own core scheduling, no sched_ext
#             scheduler loaded (scx_coresched --uninstall first)
#
# Both are audited the same way, by coresched-audit with one --tenant per
# cgroup, so one yardstick measures both. Prints both audits and a table,
# and writes ours.json/ours.svg and upstream.json/upstream.svg (traces and
# their timelines) and both audits' text into RESULTS_DIR (default
# build/audit-compare). Exits 0 once both ran, whatever they measured.
. tests/guest/lib.sh

R=${1:-build/audit-compare}
secs=${SCX_SECS:-10}
mkdir -p "$R"
a=$(tenant t_cmp_a)
b=$(tenant t_cmp_b)

# measure NAME: the audit first, then the tenants; $R/NAME.{txt,json,svg}.
measure() {
	local name=$1
	observe_bg "$R/$name.txt" --tenant "a=$a" --tenant "b=$b" \
		--duration 600 --interval 2 --trace "$R/$name.json" ||
		{ cat "$R/$name.txt.err"; return 1; }
	[ "$name" = upstream ] || start_sched || return 1
	# Each tenant takes its cookie (coreschedctl new: prctl
	# PR_SCHED_CORE_CREATE, then exec) before it joins its cgroup, and
	# joins it before it spins: the audit's tenant map never runs ahead of
	# the cookie, and no running task changes tenant (the audit reads a
	# task's cookie when it is switched in).
	spawn "$CTL" new -- sh -c 'echo $$ >"$0/cgroup.procs" && exec stress-ng --quiet --cpu "$1" --timeout "$2"' \
		"$a" "$NCPU" $((secs + 30))
	spawn "$CTL" new -- sh -c 'echo $$ >"$0/cgroup.procs" && exec stress-ng --quiet --cpu "$1" --timeout "$2"' \
		"$b" "$NCPU" $((secs + 30))
	sleep "$secs"
	kill -INT "$OBS_PID"
	wait "$OBS_PID"
	info "$name: audit exit $?"
	stop_bg
	[ "$name" = upstream ] || stop_sched
	"$OBS" render "$R/$name.json" -o "$R/$name.svg" \
		--title "coresched-audit: two tenants under $name ($NCPU CPUs, ${secs}s)"
	echo "== audit under $name"
	cat "$R/$name.txt"
}

echo "== $NCPU CPUs; siblings of cpu0: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)"
ensure_pins || { cat "$TMP/sched.err"; exit 1; }
measure ours || exit 1
"$SCHED" --uninstall || exit 1
measure upstream || exit 1

echo "== side by side"
printf '%-20s %14s %14s\n' figure ours upstream
for k in overlap_ns overlap_windows longest_overlap_ns forced_idle_pct switches lost_events; do
	printf '%-20s %14s %14s\n' "$k" "$(field "$R/ours.txt" $k)" "$(field "$R/upstream.txt" $k)"
done
for t in a b; do
	printf '%-20s %14s %14s\n' "share_pct $t" \
		"$(awk -v t=$t '$1 == "cookie" && $NF == t { print $4 }' "$R/ours.txt")" \
		"$(awk -v t=$t '$1 == "cookie" && $NF == t { print $4 }' "$R/upstream.txt")"
done
echo "== written: $(cd "$R" && ls ours.* upstream.* | tr '\n' ' ')"
