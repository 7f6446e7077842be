#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/check.py OUTDIR [PREFIX CONFIGS WORKLOADS]: check a benchmark
results directory (the harness test, tests/guest/bench.sh). CONFIGS and
WORKLOADS (space-separated) are the runs asked for, by default all 5 x 9;
PREFIX starts every test name (default bench_). Prints PASS/FAIL lines;
exits 1 on a FAIL."""

import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

failed = 0


PREFIX = "bench_"
ALL_CONFIGS = "default upstream smt-off ours-strict ours-fill"
ALL_WORKLOADS = "cpu2 cpu_db four pipe hackbench onecore light build latency"


def check(name, ok, why):
    global failed
    name = PREFIX + name[len("bench_"):]
    if ok:
        print("PASS " + name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def main():
    global PREFIX
    if len(sys.argv) not in (2, 5):
        sys.exit("usage: bench/check.py OUTDIR [PREFIX CONFIGS WORKLOADS]")
    out = sys.argv[1]
    args = sys.argv[2:] or [PREFIX, ALL_CONFIGS, ALL_WORKLOADS]
    PREFIX = args[0]
    want_configs, want_workloads = args[1].split(), args[2].split()
    try:
        with open(os.path.join(out, "results.json")) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        check("bench_results_json", False, "results.json: %s" % e)
        sys.exit(1)
    env = res["env"]
    missing, empty = [], []
    for w in env["workloads"]:
        for c in env["configs"]:
            runs = [r for r in res["runs"]
                    if r["workload"] == w and r["config"] == c]
            if not runs:
                missing.append("%s/%s" % (w, c))
            for r in runs:
                bad = [t for t, v in r["tenants"].items() if v["value"] is None]
                if r["error"] or not r["tenants"] or bad:
                    empty.append("%s/%s: %s" % (w, c, r["error"] or
                                                "no figure for %s" % (bad or "any tenant")))
    check("bench_results_json", env["workloads"] == want_workloads and
          env["configs"] == want_configs and not missing,
          "workloads %s (want %s), configurations %s (want %s), missing runs: %s" %
          (env["workloads"], want_workloads, env["configs"], want_configs,
           missing))
    check("bench_every_run_measured", not empty, "; ".join(empty[:6]))
    bpf = [r for r in res["runs"] if r["config"].startswith("ours")
           and r["bpf"] and (r["bpf"].get("cs_commit") or {}).get("run_cnt")]
    check("bench_bpf_cost", bpf, "no ours run has cs_commit run_cnt from the bpf stats")
    want = int(env["rounds"]) * len(env["configs"])
    audit = [s for s in res["sessions"] if s["audit"] is not None]
    check("bench_audit", len(audit) == want,
          "%d of %d configuration rounds have the observer's figures"
          % (len(audit), want))
    # Each run's window has the observer's seconds (per-workload overlap
    # and forced idle), when the observer ran.
    if env.get("audit") == "1":
        blind = ["%s/%s r%d" % (r["workload"], r["config"], r["round"])
                 for r in res["runs"]
                 if not (r.get("audit") or {}).get("intervals")]
        check("bench_audit_per_run", not blind,
              "runs without the observer's per-second figures: %s"
              % blind[:6])

    try:
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
    except OSError as e:
        md = ""
        check("bench_report_md", False, str(e))
    if md:
        rows = [w for w in res["workloads"].values() if w["title"] not in md]
        heads = [h for h in ("## Throughput normalized to default", "## Fairness",
                             "## Forced idle", "## Isolation",
                             "## BPF cost per callback", "share no execution units",
                             "## Against the targets")
                 if h not in md]
        heads += [h for w, h in (("onecore", "## Case 6"),
                                 ("latency", "## Case 9"))
                  if w in env["workloads"] and h not in md]
        tables_ok = all(line.count("|") == md.splitlines()[i - 1].count("|")
                        for i, line in enumerate(md.splitlines())
                        if line.startswith("|---"))
        check("bench_report_md", not rows and not heads and tables_ok,
              "missing rows %s, sections %s, table header/rule mismatch %s"
              % (rows, heads, not tables_ok))

    svgs = sorted(glob.glob(os.path.join(out, "*.svg")))
    bad = []
    for s in svgs:
        try:
            root = ET.parse(s).getroot()
            if root.tag != "{http://www.w3.org/2000/svg}svg" or \
                    not root.findall(".//{http://www.w3.org/2000/svg}path"):
                bad.append(os.path.basename(s) + ": no svg root or no paths")
        except ET.ParseError as e:
            bad.append("%s: %s" % (os.path.basename(s), e))
    # a bar chart per workload, and onecore's per-second chart if it ran
    want = len(env["workloads"]) + ("onecore" in env["workloads"])
    check("bench_svg", len(svgs) == want and not bad,
          "%d SVGs (want %d), bad: %s" % (len(svgs), want, bad))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
