#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Side-by-side benchmark, run inside one tools/vm guest (see bench/run):
# the default scheduler, upstream core scheduling (prctl cookies) and
# scx_coresched (strict), interleaved and repeated; prints medians and
# ratios to the default scheduler.
#   1. pipe ping-pong: two tasks of one cookie (perf bench sched pipe)
#   2. two tenants x NCPU cpu-bound threads: CPU idle % (forced idle) and
#      each tenant's share of CPU time
. tests/guest/lib.sh

rounds=${SCX_ROUNDS:-3}
secs=${SCX_SECS:-6}
loops=${SCX_LOOPS:-20000}

# upstream_new CMD...: run CMD with a fresh prctl(PR_SCHED_CORE) cookie.
upstream_new() {
	python3 -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(62, 1, 0, 1, 0):  # PR_SCHED_CORE, CREATE, self, PIDTYPE_TGID
    sys.exit("prctl(PR_SCHED_CORE_CREATE): %s" % os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# with CONFIG CMD...: run CMD in a new cookie under CONFIG.
with() {
	local cfg=$1
	shift
	case $cfg in
	default) "$@" ;;
	upstream) upstream_new "$@" ;;
	ours) "$CTL" new -- "$@" ;;
	esac
}

setup() {
	case $1 in
	ours) start_sched >/dev/null || exit 1 ;;
	# Our tagging programs answer prctl(PR_SCHED_CORE) while installed:
	# remove them so that the kernel's own core scheduling serves it.
	*) stop_sched && "$SCHED" --uninstall ;;
	esac
}

pipe_ops() {
	with "$1" perf bench sched pipe -l "$loops" 2>/dev/null |
		awk '/ops\/sec/ { print $1 }'
}

# tenants_run CONFIG: while two tenants spin for @secs, print the system
# idle % and tenant A's share of their CPU time.
tenants_run() {
	local cfg=$1 a b i0 t0 i1 t1 ua ub
	a=$(tenant t_ba)
	b=$(tenant t_bb)
	if [ "$cfg" = ours ]; then
		"$CTL" cgroup tag "$a" >/dev/null
		"$CTL" cgroup tag "$b" >/dev/null
	fi
	run_in "$a" bash -c "$(declare -f with upstream_new); CTL=$CTL; with $cfg stress-ng --quiet --cpu $NCPU --timeout $((secs + 4))"
	run_in "$b" bash -c "$(declare -f with upstream_new); CTL=$CTL; with $cfg stress-ng --quiet --cpu $NCPU --timeout $((secs + 4))"
	sleep 2
	read -r _ u n s i0 _ < /proc/stat; t0=$((u + n + s + i0))
	ua=$(awk '$1 == "usage_usec" { print $2 }' "$a/cpu.stat")
	ub=$(awk '$1 == "usage_usec" { print $2 }' "$b/cpu.stat")
	sleep "$secs"
	read -r _ u n s i1 _ < /proc/stat; t1=$((u + n + s + i1))
	ua=$(($(awk '$1 == "usage_usec" { print $2 }' "$a/cpu.stat") - ua))
	ub=$(($(awk '$1 == "usage_usec" { print $2 }' "$b/cpu.stat") - ub))
	stop_bg
	sleep 1
	rmdir "$a" "$b"
	echo "$((100 * (i1 - i0) / (t1 - t0))) $((100 * ua / (ua + ub + 1)))"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for r in $(seq 1 "$rounds"); do
	for cfg in default upstream ours; do
		setup $cfg
		echo "$(pipe_ops $cfg)" >>"$TMP/pipe.$cfg"
		tenants_run $cfg >>"$TMP/ten.$cfg"
		info "round $r $cfg: pipe $(tail -n 1 "$TMP/pipe.$cfg") ops/s; idle% A-share% $(tail -n 1 "$TMP/ten.$cfg")"
	done
done
stop_sched

base=$(median <"$TMP/pipe.default")
echo "== $NCPU CPUs ($(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list) siblings), $rounds rounds, medians"
for cfg in default upstream ours; do
	p=$(median <"$TMP/pipe.$cfg")
	idle=$(awk '{ print $1 }' "$TMP/ten.$cfg" | median)
	share=$(awk '{ print $2 }' "$TMP/ten.$cfg" | median)
	printf "%-9s pipe ping-pong %8.0f ops/s (%.2fx default)  two tenants: idle %5.1f%%  tenant A share %5.1f%%\n" \
		"$cfg" "$p" "$(awk -v a="$p" -v b="$base" 'BEGIN { print b ? a / b : 0 }')" "$idle" "$share"
done
