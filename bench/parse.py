# SPDX-License-Identifier: GPL-2.0-only
"""Parse the raw output of one benchmark run (a directory written by
bench/guest.sh) into a record: each tenant's figure, CPU idle, the
scheduler's counters and BPF cost per program, the observer's overlap and
forced idle in the run's window; and of one configuration's session: the
observer's overlap over all of it."""

import glob
import json
import os
import re

# How each tool's figure reads: (unit, higher is better).
TOOLS = {
    "sysbench": ("events/s", True),
    "sysmem": ("MiB/s", True),
    "oltp": ("transactions/s", True),
    "perfpipe": ("ops/s", True),
    "hackbench": ("runs/s", True),
    "build": ("compiles/s", True),
    "cyclictest": ("p99 us", False),
}

# The BPF programs whose cost is reported, in callback order.
BPF_PROGS = ["cs_select_cpu", "cs_enqueue", "cs_dispatch", "cs_tick",
             "cs_running", "cs_stopping", "cs_update_idle", "cs_commit"]
# The empty scheduler's (configuration "empty": tests/guest/broken.bpf.c).
EMPTY_PROGS = ["broken_enqueue"]


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _floats(pattern, text):
    return [float(m) for m in re.findall(pattern, text or "", re.M)]


def _sysbench(text):
    v = _floats(r"events per second:\s+([\d.]+)", text)
    return (v[0] if v else None,
            _floats(r"^\[ *\d+s \] thds: \d+ eps: ([\d.]+)", text), {})


def _sysmem(text):
    v = _floats(r"MiB transferred \(([\d.]+) MiB/sec\)", text)
    return (v[0] if v else None,
            _floats(r"^\[ *\d+s \] ([\d.]+) MiB/sec", text), {})


def _oltp(text):
    v = _floats(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text)
    return (v[0] if v else None,
            _floats(r"^\[ *\d+s \] thds: \d+ tps: ([\d.]+)", text), {})


def _perfpipe(text):
    v = _floats(r"^\s*(\d+) ops/sec", text)
    return (v[0] if v else None, [], {})


def _hackbench(text):
    v = _floats(r"^Time: ([\d.]+)", text)
    if not v or v[0] <= 0:
        return (None, [], {})
    return (1.0 / v[0], [], {"time_s": v[0]})


def _build(text):
    m = re.search(r"^ms (\d+) compiles (\d+)", text or "", re.M)
    if not m or int(m.group(1)) == 0:
        return (None, [], {})
    secs = int(m.group(1)) / 1000
    return (int(m.group(2)) / secs, [], {"time_s": secs})


def _percentile(hist, total, q):
    need = q * total
    seen = 0
    for us, n in hist:
        seen += n
        if seen >= need:
            return us
    return None


def _cyclictest(text):
    hist = [(int(a), int(b)) for a, b in
            re.findall(r"^(\d+) (\d+)\s*$", text or "", re.M)]
    over = _floats(r"^# Histogram Overflows: (\d+)", text)
    mx = _floats(r"^# Max Latencies: (\d+)", text)
    if over and over[0] > 0:
        hist.append((int(mx[0]) if mx else 10 ** 9, int(over[0])))
    total = sum(n for _, n in hist)
    if total == 0:
        return (None, [], {})
    p50 = _percentile(hist, total, 0.50)
    p99 = _percentile(hist, total, 0.99)
    return (p99, [], {"p50_us": p50, "p99_us": p99,
                      "max_us": mx[0] if mx else None, "samples": total})


PARSERS = {"sysbench": _sysbench, "sysmem": _sysmem, "oltp": _oltp,
           "perfpipe": _perfpipe, "hackbench": _hackbench,
           "build": _build, "cyclictest": _cyclictest}


def tenants(run):
    """{tenant: {tool, value, unit, higher_better, series, extra}}; the
    figures of several processes of one tenant (t.T.TOOL.K.out) add up."""
    out = {}
    for path in sorted(glob.glob(os.path.join(run, "t.*.out"))):
        parts = os.path.basename(path).split(".")
        name, tool = parts[1], parts[2]
        if tool not in PARSERS:
            continue
        value, series, extra = PARSERS[tool](_read(path))
        unit, higher = TOOLS[tool]
        t = out.setdefault(name, {"tool": tool, "value": 0.0, "unit": unit,
                                  "higher_better": higher, "series": [],
                                  "extra": extra})
        if value is None or t["value"] is None:
            t["value"] = None
        else:
            t["value"] += value
        t["series"] += series
    for name, t in out.items():
        t["cpu_s"] = tenant_cpu_s(run, name)
    return out


def tenant_cpu_s(run, name):
    """CPU seconds tenant NAME's cgroup used in the window (usage_usec of
    its cpu.stat at both snapshots), None if not read."""
    a, b = (_read(os.path.join(run, "cg.%s.usec%d" % (name, n)))
            for n in (0, 1))
    try:
        return (int(b) - int(a)) / 1e6
    except (TypeError, ValueError):
        return None


def idle_pct(run):
    """CPU idle (idle + iowait) in percent of online CPU time."""
    a, b = _read(os.path.join(run, "stat0")), _read(os.path.join(run, "stat1"))
    if not a or not b:
        return None
    x = [int(v) for v in a.split()[1:9]]
    y = [int(v) for v in b.split()[1:9]]
    d = [j - i for i, j in zip(x, y)]
    total = sum(d)
    return 100.0 * (d[3] + d[4]) / total if total > 0 else None


def sched_counters(run):
    """Means of scx_coresched's --stats lines within the window."""
    lines = _json_lines(_read(os.path.join(run, "sched.jsonl")))
    if not lines:
        return None
    secs = sum(li.get("interval_s", 0) for li in lines) or 1.0

    def mean(k):
        # None where no line has it (a build older than the figure)
        v = [li[k] for li in lines if k in li]
        return sum(v) / len(v) if v else None
    return {"intervals": len(lines),
            "forced_idle_pct": mean("forced_idle_pct"),
            "cookie_switches_per_s": mean("cookie_switches_per_s"),
            "kicks_per_s": mean("kicks_per_s"),
            "renewals_per_s": mean("renewals_per_s"),
            "sync_keeps_per_s": mean("sync_keeps_per_s"),
            "untagged_switches_per_s": mean("untagged_switches_per_s"),
            "transit_retries_per_s":
                sum(li.get("transit_retries", 0) for li in lines) / secs,
            "unclaimed_runs_per_s":
                sum(li.get("unclaimed_runs", 0) for li in lines) / secs,
            "max_wait_ms": max(li.get("max_wait_ms", 0) for li in lines)}


def bpf_cost(run, secs):
    """{program: {ns_per_call, calls_per_s, run_time_ns, run_cnt}} of
    scx_coresched's programs between the two snapshots."""
    snaps = []
    for n in (0, 1):
        try:
            snaps.append({p["id"]: p for p in
                          json.loads(_read(os.path.join(run, "bpf%d.json" % n)) or "")})
        except ValueError:
            return None
    out = {}
    for pid, b in snaps[1].items():
        name = b.get("name", "")
        if name not in BPF_PROGS + EMPTY_PROGS or pid not in snaps[0]:
            continue
        a = snaps[0][pid]
        ns = b.get("run_time_ns", 0) - a.get("run_time_ns", 0)
        cnt = b.get("run_cnt", 0) - a.get("run_cnt", 0)
        out[name] = {"run_time_ns": ns, "run_cnt": cnt,
                     "ns_per_call": ns / cnt if cnt else None,
                     "calls_per_s": cnt / secs if secs else None}
    return out or None


def _json_lines(text):
    out = []
    for line in (text or "").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def audit(run):
    """The observer's summary over a configuration's session (None if it
    did not run)."""
    d = [o for o in _json_lines(_read(os.path.join(run, "audit.json")))
         if o.get("type") == "summary"]
    if not d:
        return None
    return {k: d[-1].get(k) for k in ("source", "overlap_ns",
                                      "overlap_windows",
                                      "longest_overlap_ns", "lost_events",
                                      "observed_ns")}


def run_audit(run):
    """The observer's per-second figures over one run's window (the
    intervals bench/collect.sh kept): overlap, windows, and forced idle as
    a percentage of the CPU time of those seconds (None if it did not
    run)."""
    iv = [o for o in _json_lines(_read(os.path.join(run, "audit.jsonl")))
          if o.get("type") == "interval"]
    secs = sum(o.get("interval_s", 0) for o in iv)
    if not iv or secs <= 0:
        return None
    return {"seconds": secs, "intervals": len(iv),
            "overlap_ns": sum(o.get("overlap_ns", 0) for o in iv),
            "overlap_windows": sum(o.get("overlap_windows", 0) for o in iv),
            "forced_idle_pct": sum(o.get("forced_idle_pct", 0) *
                                   o.get("interval_s", 0) for o in iv) / secs}


def run_record(run, rnd, workload, config):
    """Everything measured in one run directory."""
    t0, t1 = (_read(os.path.join(run, "time%d" % n)) for n in (0, 1))
    secs = float(t1) - float(t0) if t0 and t1 else None
    err = _read(os.path.join(run, "error"))
    return {"round": rnd, "workload": workload, "config": config,
            "error": err.strip() if err else None, "wall_s": secs,
            "tenants": tenants(run), "idle_pct": idle_pct(run),
            "sched": sched_counters(run), "bpf": bpf_cost(run, secs),
            "audit": run_audit(run)}


def session_record(sess, rnd, config):
    """The observer's figures over every workload of one configuration."""
    err = _read(os.path.join(sess, "error"))
    return {"round": rnd, "config": config,
            "error": err.strip() if err else None, "audit": audit(sess)}
