#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest tests of coresched-audit: run as root in a tools/vm guest from the
# repository root, e.g.  tools/vm --cores 2 --threads 2 -- tests/guest/audit.sh
# Two tenants (cgroups t_a, t_b) spin, audited with --tenant (the cgroup
# map, which works for any scheduler):
#
#   audit_bad_input          usage and setup errors exit 2 and name the input
#   audit_broken_overlap     under broken_fifo (tests/guest/broken.bpf.c, a
#                            global FIFO that ignores cookies) the audit sees
#                            overlap and exits 1; --interval prints live lines
#   audit_coresched_clean    under scx_coresched, the tenants' cgroups
#                            tagged: 0 ns of overlap and exit 0
#   audit_trace_json         both traces parse as JSON and hold a named track
#                            per CPU in a process per core, slices of both
#                            tenants, and (broken) overlap windows
#   audit_svg                'render' makes well-formed SVG with a row per
#                            CPU and (broken) red overlap windows
#   audit_json_summary       --json ends with a summary object that parses
#   audit_offline_cpu_idle   a CPU taken offline counts as idle, not as
#                            still running its last traced task: under the
#                            default scheduler, tenant a spins on CPU 0
#                            while its sibling is offline for
#                            SCX_AUDIT_SECS (8) seconds; the overlap must
#                            be under half of that (the audit once saw the
#                            offline sibling run its stopper all along:
#                            8.5 s of overlap for 8 s offline)
#
# The traces and SVGs are kept in build/audit-test/ to be looked at.
set -u
. "$(dirname "$0")/lib.sh"

AUDIT=$ROOT/build/coresched-audit
BROKEN=$ROOT/build/broken_sched
OUT=$ROOT/build/audit-test
secs=${SCX_AUDIT_SECS:-8}
mkdir -p "$OUT"

# audit_summary FILE: the main figures, for '#' and FAIL lines.
audit_summary() {
	echo "overlap_ns=$(field "$1" overlap_ns) windows=$(field "$1" overlap_windows)" \
		"longest_ns=$(field "$1" longest_overlap_ns) switches=$(field "$1" switches)" \
		"forced_idle_pct=$(field "$1" forced_idle_pct) lost=$(field "$1" lost_events)"
}

# expect_usage WHAT PATTERN ARGS...: exit 2 and a message matching PATTERN.
expect_usage() {
	local what=$1 pattern=$2
	shift 2
	run "$AUDIT" "$@"
	if [ "$rc" != 2 ]; then
		echo "$what: exit $rc, want 2; "
	elif ! grep -qF -- "$pattern" <<<"$err"; then
		echo "$what: message does not name '$pattern': $err; "
	fi
}

test_bad_input() {
	local why=
	echo '{"x":1}' >"$TMP/notrace.json"
	why+=$(expect_usage "--bogus" "'--bogus'" --bogus)
	why+=$(expect_usage "--tenant noeq" "'noeq'" --tenant noeq)
	why+=$(expect_usage "--tenant to a missing cgroup" "/sys/fs/cgroup/t_missing" --tenant x=t_missing)
	why+=$(expect_usage "--source tenant alone" "--tenant" --source tenant)
	why+=$(expect_usage "--interval abc" "'abc'" --interval abc)
	why+=$(expect_usage "--tenant twice" "'a' is given twice" --tenant a=t_a --tenant a=t_b)
	why+=$(expect_usage "render a non-trace" "$TMP/notrace.json" render "$TMP/notrace.json" -o "$TMP/x.svg")
	[ -e "$TMP/x.svg" ] && why+="render left $TMP/x.svg behind; "
	why+=$(expect_usage "render without -o" "-o" render "$TMP/notrace.json")
	if [ -n "$why" ]; then fail audit_bad_input "$why"; else pass audit_bad_input; fi
}

# spin_both: NCPU spinners in each tenant cgroup.
spin_both() {
	run_in "$CG/t_a" stress-ng --quiet --cpu "$NCPU" --timeout 600
	run_in "$CG/t_b" stress-ng --quiet --cpu "$NCPU" --timeout 600
	sleep 1
}

# audit_bg NAME ARGS...: the audit of both tenants, in the background.
audit_bg() {
	local name=$1
	shift
	observe_bg "$TMP/$name" --tenant a=t_a --tenant b=t_b \
		--duration 600 --trace "$OUT/$name.json" "$@"
}

# end_audit NAME: stop the audit; $arc is its status.
end_audit() {
	kill -INT "$OBS_PID"
	wait "$OBS_PID"
	arc=$?
	info "$1: rc=$arc $(audit_summary "$TMP/$1")"
	grep -E '^(core|cookie|worst_pair) ' "$TMP/$1" | sed 's/^/#   /'
}

test_broken() {
	local name=audit_broken_overlap bpid ov
	if ! audit_bg broken --interval 2; then
		fail $name "audit did not start: $(tail -n 1 "$TMP/broken.err")"
		return
	fi
	"$BROKEN" 2>"$TMP/bs.err" &
	bpid=$!
	for _ in $(seq 1 120); do
		grep -q attached "$TMP/bs.err" && break
		kill -0 $bpid 2>/dev/null || break
		sleep 0.25
	done
	if [ "$(scx_ops)" != broken_fifo ]; then
		fail $name "broken_fifo did not load: $(tail -n 1 "$TMP/bs.err")"
		kill -INT "$OBS_PID" $bpid 2>/dev/null
		wait "$OBS_PID" $bpid
		return
	fi
	spin_both
	sleep "$secs"
	end_audit broken
	stop_bg
	kill -INT $bpid
	wait $bpid
	ov=$(field "$TMP/broken" overlap_ns)
	if [ "$arc" != 1 ]; then
		fail $name "exit $arc, want 1 ($(tail -n 1 "$TMP/broken.err"))"
	elif ! [ "${ov:-0}" -gt 0 ] 2>/dev/null; then
		fail $name "no overlap under a scheduler that ignores cookies"
	elif ! grep -q '^\[ *[0-9.]* s\] switches' "$TMP/broken"; then
		fail $name "no --interval line in the output"
	elif ! grep -q '^worst_pair cpus' "$TMP/broken"; then
		fail $name "no worst pair reported"
	else
		pass $name
	fi
}

test_coresched() {
	local name=audit_coresched_clean ov sw i
	if ! ensure_pins; then
		fail $name "scx_coresched did not start once: $(tail -n 2 "$TMP/sched.err")"
		return
	fi
	# The broken case's spinners are gone from the tenants' cgroups.
	for i in $(seq 1 40); do
		[ -z "$(cat "$CG/t_a/cgroup.procs" "$CG/t_b/cgroup.procs")" ] && break
		sleep 0.25
	done
	# The audit first: probes of one tracepoint run in attach order.
	if ! audit_bg ours; then
		fail $name "audit did not start: $(tail -n 1 "$TMP/ours.err")"
		return
	fi
	if ! start_sched || ! "$CTL" cgroup tag "$CG/t_a" >/dev/null ||
		! "$CTL" cgroup tag "$CG/t_b" >/dev/null; then
		fail $name "scx_coresched did not start or tag: $(tail -n 2 "$TMP/sched.err")"
		kill -INT "$OBS_PID"
		wait "$OBS_PID"
		return
	fi
	spin_both
	sleep "$secs"
	end_audit ours
	stop_bg
	ov=$(field "$TMP/ours" overlap_ns)
	sw=$(field "$TMP/ours" switches)
	if [ "$arc" = 0 ] && [ "$ov" = 0 ] && [ "${sw:-0}" -gt 0 ] &&
		[ "$(scx_state)" = enabled ]; then
		pass $name
	else
		grep overlap_example "$TMP/ours" | head -n 3 | sed 's/^/# /'
		fail $name "exit $arc overlap_ns=$ov switches=$sw state=$(scx_state) ($(tail -n 1 "$TMP/ours.err"))"
	fi
	stop_sched
}

# check_trace FILE WANT_OVERLAP: prints what is wrong with a trace.
check_trace() {
	python3 - "$1" "$2" "$NCPU" <<'PY'
import json, sys
path, want_overlap, ncpu = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
try:
    ev = json.load(open(path))["traceEvents"]
except Exception as e:
    sys.exit("%s does not parse: %s" % (path, e))
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
           if e.get("ph") == "M" and e["name"] == "thread_name"}
procs = {e["pid"]: e["args"]["name"] for e in ev
         if e.get("ph") == "M" and e["name"] == "process_name"}
why = []
cpus = sorted(int(n.split()[1]) for n in threads.values() if n.startswith("cpu "))
if cpus != list(range(ncpu)):
    why.append("cpu tracks %s, want 0..%d" % (cpus, ncpu - 1))
for (pid, tid), n in threads.items():
    if pid not in procs or not procs[pid].startswith("core "):
        why.append("track %s is not in a core process" % n)
x = [e for e in ev if e.get("ph") == "X"]
names = {e["name"] for e in x}
for t in ("a", "b"):
    if t not in names:
        why.append("no slice of tenant %s" % t)
bad = [e for e in x if (e["pid"], e["tid"]) not in threads or e["dur"] < 0]
if bad:
    why.append("%d slices on unnamed tracks or negative" % len(bad))
ov = [e for e in x if e["name"] == "overlap"]
if want_overlap and not ov:
    why.append("no overlap window marked")
if not want_overlap and ov:
    why.append("%d overlap windows marked" % len(ov))
print("; ".join(why))
print("# %s: %d events, %d tracks, %d slices, %d overlap windows, names %s"
      % (path.split("/")[-1], len(ev), len(threads), len(x), len(ov),
         sorted(names)[:6]), file=sys.stderr)
PY
}

test_trace() {
	local why='' f w
	for f in broken ours; do
		[ "$f" = broken ] && w=1 || w=0
		if [ ! -s "$OUT/$f.json" ]; then
			why+="$f: no trace written; "
			continue
		fi
		why+=$(check_trace "$OUT/$f.json" $w 2>"$TMP/ct.err")
		sed 's/^/# /;s/^# # /# /' "$TMP/ct.err"
	done
	if [ -n "${why// /}" ]; then fail audit_trace_json "$why"; else pass audit_trace_json; fi
}

test_svg() {
	local why='' f
	for f in broken ours; do
		[ -s "$OUT/$f.json" ] || { why+="$f: no trace; "; continue; }
		run "$AUDIT" render "$OUT/$f.json" -o "$OUT/$f.svg" --title "coresched-audit: $f"
		[ "$rc" = 0 ] || { why+="$f: render exit $rc: $err; "; continue; }
		why+=$(python3 - "$OUT/$f.svg" "$f" "$NCPU" <<'PY'
import sys, xml.etree.ElementTree as ET
path, what, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    root = ET.parse(path).getroot()
except Exception as e:
    sys.exit("%s: not well-formed XML: %s" % (path, e))
ns = "{http://www.w3.org/2000/svg}"
why = []
if root.tag != ns + "svg":
    why.append("root is %s" % root.tag)
texts = [t.text for t in root.iter(ns + "text")]
for c in range(ncpu):
    if "cpu %d" % c not in texts:
        why.append("no row for cpu %d" % c)
red = [r for r in root.iter(ns + "rect") if r.get("fill") == "#e00000"]
if what == "broken" and len(red) < 2:
    why.append("no red overlap window")
if what == "ours" and len(red) > 1:
    why.append("%d red rects under scx_coresched" % len(red))
print("%s: %s; " % (what, ", ".join(why)) if why else "")
PY
)
		info "$f.svg: $(stat -c %s "$OUT/$f.svg") bytes"
	done
	if [ -n "${why// /}" ]; then fail audit_svg "$why"; else pass audit_svg; fi
}

test_json_summary() {
	local why
	run "$AUDIT" --source upstream --duration 1 --interval 0.5 --json
	why=$(python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin.read().splitlines()]
s = lines[-1]
missing = [k for k in ("overlap_ns", "overlap_windows", "longest_overlap_ns",
           "forced_idle_ns", "per_core", "cookies", "switches") if k not in s]
if s.get("type") != "summary" or missing:
    print("last line is not a summary, missing %s" % missing)
elif not s["per_core"] or "overlap_ns" not in s["per_core"][0]:
    print("per_core figures missing")
' <<<"$out" 2>&1)
	if [ "$rc" -gt 1 ]; then
		fail audit_json_summary "exit $rc: $err"
	elif [ -n "$why" ]; then
		fail audit_json_summary "$why"
	else
		pass audit_json_summary
	fi
}

test_offline() {
	local name=audit_offline_cpu_idle sib ov sw on
	sib=$(tr ',-' '\n\n' </sys/devices/system/cpu/cpu0/topology/thread_siblings_list |
		grep -vx 0 | head -n 1)
	on=/sys/devices/system/cpu/cpu$sib/online
	if ! sched_is disabled || [ ! -w "$on" ]; then
		fail $name "needs no sched_ext scheduler (state $(scx_state)) and CPU 0's sibling ('$sib') hotpluggable"
		return
	fi
	if ! audit_bg offline; then
		fail $name "audit did not start: $(tail -n 1 "$TMP/offline.err")"
		return
	fi
	run_in "$CG/t_a" taskset -c 0 stress-ng --quiet --cpu 1 --timeout 600
	sleep 1
	echo 0 >"$on"
	sleep "$secs"
	echo 1 >"$on"
	sleep 1
	end_audit offline
	stop_bg
	ov=$(field "$TMP/offline" overlap_ns)
	sw=$(field "$TMP/offline" switches)
	if [ "${sw:-0}" -gt 0 ] && [ -n "$ov" ] &&
		[ "$ov" -lt $((secs * 500000000)) ] && [ "$(cat "$on")" = 1 ]; then
		pass $name
	else
		grep overlap_example "$TMP/offline" | head -n 3 | sed 's/^/# /'
		fail $name "CPU $sib offline for $secs s under tenant a on CPU 0: overlap ${ov:-?} ns (want < $((secs * 500000000))), switches ${sw:-?}, CPU $sib online '$(cat "$on")'"
	fi
}

for b in "$AUDIT" "$BROKEN"; do
	[ -x "$b" ] || { fail audit_build "$b is missing; run 'make' first"; finish; }
done
check_topology
tenant t_a >/dev/null
tenant t_b >/dev/null
test_bad_input
test_broken
test_coresched
test_trace
test_svg
test_json_summary
test_offline
finish
