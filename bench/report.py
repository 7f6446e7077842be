#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/report.py OUTDIR: turn the raw runs bench/guest.sh wrote into
OUTDIR/results.json, OUTDIR/report.md and OUTDIR/*.svg."""

import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parse  # noqa: E402
import stats  # noqa: E402
import svg  # noqa: E402

TITLES = {
    "cpu2": "1. sysbench cpu + sysbench cpu",
    "cpu_db": "2. sysbench cpu + database (MariaDB, sysbench oltp_read_write)",
    "four": "3. four tenants: cpu, cpu, db, db",
    "pipe": "4. pipe ping-pong pairs, one tenant (perf bench sched pipe)",
    "hackbench": "5. hackbench -g 4 -f 5, one tenant",
    "onecore": "6. one core: cpu-bound (a) vs memory-bound (b) on two siblings",
    "light": "7. light load: two tenants, half the vCPUs busy",
    "build": "8. parallel build (zlib, make -j) in two tenants",
    "latency": "9. cyclictest (lat) beside a cpu-bound tenant (a)",
}


def is_ours(c):
    """scx_coresched in some mode (ours-MODE, ours-MODE-sMS)."""
    return c.startswith("ours-")


def has_cookies(c):
    """A configuration whose tenants are isolated: overlap counts."""
    return c == "upstream" or (is_ours(c) and not c.startswith("ours-none"))



def read_env(out):
    env = {}
    with open(os.path.join(out, "env.txt")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            env[k] = v
    env["configs"] = env.get("configs", "").split()
    env["workloads"] = env.get("workloads", "").split()
    return env


def load_runs(out):
    """Records of the runs and of the configurations' sessions."""
    runs, sessions = [], []
    for d in sorted(glob.glob(os.path.join(out, "raw", "r*", "*", "*"))):
        rest, cfg = os.path.split(d)
        rest, wl = os.path.split(rest)
        rnd = int(os.path.basename(rest)[1:])
        if wl == "_session":
            sessions.append(parse.session_record(d, rnd, cfg))
        else:
            runs.append(parse.run_record(d, rnd, wl, cfg))
    return runs, sessions


def ratio(v, base, higher):
    if v is None or not base:
        return None
    if higher:
        return v / base
    return base / v if v else None


def steady(series):
    """A run's steady rate: the median of its per-second series without
    the first and the last second (the tenants of a run start and end a
    moment apart, and the last one to end runs alone for a while); None
    with fewer than three seconds."""
    return stats.median(series[1:-1]) if len(series) >= 3 else None


def tenant_spread(run, base):
    """Fairness between the tenants of one run: the coefficient of
    variation (%) of their figures normalized to default (each tenant's
    figure over its median under default), 0 = every tenant got the same
    share of what it gets alone under default; None with fewer than two
    tenants."""
    vals = [ratio(t["value"], base.get(name), t["higher_better"])
            for name, t in run["tenants"].items()]
    vals = [v for v in vals if v is not None]
    return stats.cov_pct(vals) if len(vals) >= 2 else None


def summarize(env, runs):
    """Per workload: tenants x configurations (raw and normalized to the
    median of default), fairness, idle, counters, BPF cost, overlap."""
    res = {}
    for wl in env["workloads"]:
        wr = [r for r in runs if r["workload"] == wl]
        names = sorted({t for r in wr for t in r["tenants"]})
        w = {"title": TITLES.get(wl, wl), "tenants": {}, "configs": {}}
        base, base_steady = {}, {}
        for t in names:
            dr = [r for r in wr if r["config"] == "default" and t in r["tenants"]]
            s = stats.summary([r["tenants"][t]["value"] for r in dr])
            base[t] = s["median"] if s else None
            s = stats.summary([steady(r["tenants"][t]["series"]) for r in dr])
            base_steady[t] = s["median"] if s else None
        for t in names:
            meta = next(r["tenants"][t] for r in wr if t in r["tenants"])
            tw = w["tenants"][t] = {"unit": meta["unit"],
                                    "higher_better": meta["higher_better"],
                                    "configs": {}}
            for c in env["configs"]:
                rs = [r for r in wr if r["config"] == c and t in r["tenants"]]
                vals = [r["tenants"][t]["value"] for r in rs]
                ratios = [ratio(v, base[t], meta["higher_better"]) for v in vals]
                covs = [stats.cov_pct(r["tenants"][t]["series"]) for r in rs
                        if len(r["tenants"][t]["series"]) >= 2]
                series = [r["tenants"][t]["series"] for r in rs]
                extra = [r["tenants"][t]["extra"] for r in rs]
                cpus = [r["tenants"][t]["cpu_s"] / r["wall_s"] for r in rs
                        if r["tenants"][t].get("cpu_s") is not None
                        and r["wall_s"]]
                tw["configs"][c] = {
                    "value": stats.summary(vals),
                    "ratio": stats.summary(ratios),
                    "steady_ratio": stats.summary(
                        [ratio(steady(x), base_steady[t],
                               meta["higher_better"]) for x in series]),
                    "per_second_cov_pct": stats.summary(covs),
                    "min_per_second": stats.summary(
                        [min(s) for s in series if s]),
                    "seconds": stats.summary([len(s) for s in series]),
                    "series": series,
                    "extra": extra,
                    "cpus": stats.summary(cpus),
                }
        for c in env["configs"]:
            rs = [r for r in wr if r["config"] == c]
            spread = [x for x in (tenant_spread(r, base) for r in rs)
                      if x is not None]
            au = [r.get("audit") for r in rs if r.get("audit")]
            cw = w["configs"][c] = {
                "runs": len(rs),
                "errors": [r["error"] for r in rs if r["error"]],
                "tenant_stdev_pct": stats.summary(spread),
                "forced_idle_pct": stats.summary(
                    [a["forced_idle_pct"] for a in au]),
                "overlap_ns": [a["overlap_ns"] for a in au],
                "overlap_windows": [a["overlap_windows"] for a in au],
                "idle_pct": stats.summary([r["idle_pct"] for r in rs]),
            }
            if is_ours(c):
                sc = [r["sched"] for r in rs if r["sched"]]
                cw["sched"] = {k: stats.summary([s[k] for s in sc])
                               for k in ("cookie_switches_per_s",
                                         "untagged_switches_per_s",
                                         "kicks_per_s", "renewals_per_s",
                                         "sync_keeps_per_s",
                                         "transit_retries_per_s",
                                         "unclaimed_runs_per_s",
                                         "forced_idle_pct")} if sc else None
            progs = (parse.BPF_PROGS if is_ours(c) else
                     parse.EMPTY_PROGS if c == "empty" else [])
            if progs:
                cw["bpf"] = {}
            for p in progs:
                b = [r["bpf"][p] for r in rs if r["bpf"] and p in r["bpf"]]
                cw["bpf"][p] = {
                    "ns_per_call": stats.summary([x["ns_per_call"] for x in b]),
                    "calls_per_s": stats.summary([x["calls_per_s"] for x in b]),
                }
        res[wl] = w
    return res


def fmt(s, spec="%.2f", suffix=""):
    if not s:
        return "-"
    if s["n"] == 1 or s["min"] == s["max"]:
        return (spec % s["median"]) + suffix
    return (spec + suffix + " (" + spec + "-" + spec + ")") % (
        s["median"], s["min"], s["max"])


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


def overlap_by_config(sessions):
    """{config: [audit figures of each round]} of the cookie configurations."""
    out = {}
    for s in sessions:
        if has_cookies(s["config"]) and s["audit"]:
            out.setdefault(s["config"], []).append(dict(s["audit"], round=s["round"]))
    return out


def report_md(env, res, raw_sessions):
    sessions = overlap_by_config(raw_sessions)
    cf = env["configs"]
    md = ["# scx_coresched benchmark: %s profile" % env.get("profile"), "",
          "%s; %s vCPUs (cpu0 siblings %s); kernel %s; %s round(s), %s s "
          "per run; configurations interleaved: each round enters every "
          "configuration once, in an order rotated per round, and runs "
          "every workload under it." % (env.get("date"), env.get("ncpu"), env.get("siblings"),
                          env.get("kernel"), env.get("rounds"), env.get("secs")),
          "",
          "**Read this first.** This ran in a qemu TCG guest: vCPUs are host "
          "threads, and guest SMT siblings share no execution units, so the "
          "smt-off column and the absolute ratios differ from real hardware "
          "(there, SMT siblings slow each other down and smt-off loses less). "
          "Guest timing is noisy. The comparison that counts is between the "
          "schedulers in one run. Figures are medians over rounds with "
          "(min-max).", ""]
    if env.get("db_note"):
        md += ["Database: %s." % env["db_note"], ""]
    if env.get("audit") == "1":
        md += ["The isolation observer (coresched-audit) ran in every "
               "configuration, so all pay its cost.", ""]

    md += ["## Throughput normalized to default", "",
           "Per tenant; > 1.00 is better than the default scheduler "
           "(for cyclictest p99 latency: default's p99 / this p99).", ""]
    rows = []
    for wl, w in res.items():
        for t, tw in w["tenants"].items():
            rows.append([w["title"] if t == next(iter(w["tenants"])) else "",
                         "%s (%s)" % (t, tw["unit"])] +
                        [fmt(tw["configs"][c]["ratio"], suffix="x") for c in cf])
    md += table(["workload", "tenant"] + cf, rows)

    rows = []
    for wl, w in res.items():
        for t, tw in w["tenants"].items():
            if any(tw["configs"][c]["steady_ratio"] for c in cf):
                rows.append([wl, "%s (%s)" % (t, tw["unit"])] +
                            [fmt(tw["configs"][c]["steady_ratio"], suffix="x")
                             for c in cf])
    if rows:
        md += ["## Steady state normalized to default", "",
               "The median of each run's per-second rate, its first and last "
               "second left out (the tenants of a run start and end a moment "
               "apart, and the last to end runs alone meanwhile), over "
               "default's; tenants that print a rate a second only.", ""]
        md += table(["workload", "tenant"] + cf, rows)

    md += ["## Raw figures", ""]
    rows = []
    for wl, w in res.items():
        for t, tw in w["tenants"].items():
            rows.append([wl, "%s (%s)" % (t, tw["unit"])] +
                        [fmt(tw["configs"][c]["value"], "%.1f") for c in cf])
    md += table(["workload", "tenant"] + cf, rows)

    md += ["## Fairness", "",
           "Between tenants: coefficient of variation (%) of the tenants' "
           "figures normalized to default (the stdev between tenants in "
           "percent of their mean), 0 = every tenant kept the same share of "
           "what it gets under default; '-' with one tenant. Per second: "
           "coefficient of variation (%) of each tenant's per-second rate "
           "(sysbench --report-interval 1).", ""]
    rows = []
    for wl, w in res.items():
        rows.append([wl, "between tenants"] +
                    [fmt(w["configs"][c]["tenant_stdev_pct"], "%.1f") for c in cf])
        for t, tw in w["tenants"].items():
            if any(tw["configs"][c]["per_second_cov_pct"] for c in cf):
                rows.append([wl, "%s per-second CoV %%" % t] +
                            [fmt(tw["configs"][c]["per_second_cov_pct"], "%.1f")
                             for c in cf])
    md += table(["workload", "figure"] + cf, rows)

    md += ["## CPU time per tenant", "",
           "CPUs a tenant used on average over the window (its cgroup's "
           "cpu.stat usage_usec over the window's length; the window lasts "
           "until the last tenant ends, so a tenant that ends first shows "
           "less than it used while it ran).", ""]
    rows = []
    for wl, w in res.items():
        for t, tw in w["tenants"].items():
            if not any(tw["configs"][c]["cpus"] for c in cf):
                continue
            rows.append([wl, "%s CPUs used" % t] +
                        [fmt(tw["configs"][c]["cpus"]) for c in cf])
    md += table(["workload", "figure"] + cf, rows)

    oc = res.get("onecore")
    if oc:
        md += ["## Case 6: the one core", "",
               "Per-second rate of each tenant; the smallest second shows "
               "whether a tenant starved, and so does a missing second (a "
               "starved tenant's sysbench cannot print its line either: "
               "%s s were asked for). See onecore.svg." %
               env.get("onecore_secs", "?"), ""]
        rows = []
        for t, tw in oc["tenants"].items():
            rows.append(["%s seconds reported" % t] +
                        [fmt(tw["configs"][c]["seconds"], "%.0f") for c in cf])
            rows.append(["%s min per second (%s)" % (t, tw["unit"])] +
                        [fmt(tw["configs"][c]["min_per_second"], "%.1f") for c in cf])
            rows.append(["%s per-second CoV %%" % t] +
                        [fmt(tw["configs"][c]["per_second_cov_pct"], "%.1f") for c in cf])
        md += table(["figure"] + cf, rows)

    lat = res.get("latency", {}).get("tenants", {}).get("lat")
    if lat:
        md += ["## Case 9: wakeup latency (cyclictest, us)", ""]
        rows = []
        for k in ("p50_us", "p99_us", "max_us"):
            rows.append([k] + [fmt(stats.summary(
                [e.get(k) for e in lat["configs"][c]["extra"]]), "%.0f")
                for c in cf])
        md += table(["figure"] + cf, rows)

    md += ["## Forced idle", "",
           "Forced idle % seen by the observer in every configuration alike: "
           "CPU time a CPU sat idle after a switch that left runnable tasks "
           "on its runqueue, in percent of all CPU time of the seconds of "
           "the run. scx_coresched's own figure (idle siblings because of "
           "another cookie) is in its counters below; plain CPU idle % is "
           "in results.json.", ""]
    md += table(["workload"] + cf,
                [[wl] + [fmt(w["configs"][c]["forced_idle_pct"], "%.1f")
                         for c in cf] for wl, w in res.items()])

    md += ["## Isolation: overlap seen by the observer", "",
           "Time during which two siblings ran incompatible cookies. The "
           "observer attaches before the scheduler and watches the whole "
           "configuration. Per workload: overlap ns summed over the rounds "
           "(windows), from the observer's per-second figures of each run "
           "(whole seconds, so a run's figure may take in up to a second "
           "on each side of it). Configurations without cookies have "
           "nothing to overlap.", ""]
    cc = [c for c in cf if has_cookies(c)]
    rows = []
    for wl, w in res.items():
        row = [wl]
        for c in cc:
            ov, win = w["configs"][c]["overlap_ns"], w["configs"][c]["overlap_windows"]
            row.append("%d (%d)" % (sum(ov), sum(win)) if ov else "-")
        rows.append(row)
    md += table(["workload"] + cc, rows)
    md += ["Per round, over every workload and the moments between them:", ""]
    rows = []
    for c in cc:
        for a in sessions.get(c, []):
            rows.append([c, str(a["round"]),
                         "%d" % a["overlap_ns"],
                         str(a["overlap_windows"]),
                         "%.3f" % (a["longest_overlap_ns"] / 1e6),
                         "%.1f" % (a["observed_ns"] / 1e9),
                         str(a["lost_events"])])
    md += table(["configuration", "round", "overlap ns", "windows",
                 "longest ms", "sibling-pair time observed s", "lost events"],
                rows)

    for c in [c for c in cf if is_ours(c) or c == "empty"]:
        progs = parse.BPF_PROGS if is_ours(c) else parse.EMPTY_PROGS
        md += ["## BPF cost per callback: %s" % c, "",
               "ns per call (calls per second), from kernel.bpf_stats_enabled "
               "run_time_ns / run_cnt over the run; cs_commit is the "
               "tp_btf/sched_switch commit program.", ""]
        rows = []
        for wl, w in res.items():
            b = w["configs"][c].get("bpf") or {}
            rows.append([wl] + ["%s (%s/s)" % (fmt(b.get(p, {}).get("ns_per_call"), "%.0f"),
                                              fmt(b.get(p, {}).get("calls_per_s"), "%.0f"))
                                for p in progs])
        md += table(["workload"] + progs, rows)
        if not is_ours(c):
            continue
        md += ["Scheduler counters per second (%s):" % c, ""]
        keys = ("cookie_switches_per_s", "untagged_switches_per_s",
                "kicks_per_s", "renewals_per_s", "sync_keeps_per_s",
                "transit_retries_per_s",
                "unclaimed_runs_per_s", "forced_idle_pct")
        md += table(["workload"] + list(keys),
                    [[wl] + [fmt((w["configs"][c].get("sched") or {}).get(k), "%.1f")
                             for k in keys] for wl, w in res.items()])

    md += ["## Against the targets (figures, not assertions)", ""]
    md += targets(env, res, cf, sessions)
    errs = ["- %s %s: %s" % (wl, c, e) for wl, w in res.items()
            for c in cf for e in w["configs"][c]["errors"]]
    errs += ["- round %d %s: %s" % (s["round"], s["config"], s["error"])
             for s in raw_sessions if s["error"]]
    if errs:
        md += ["## Errors", ""] + errs + [""]
    return "\n".join(md)


def starved(tw, c, secs):
    """Did a tenant of case 6 miss a second under configuration @c: a
    second with no progress, or fewer lines than the seconds it ran (one
    may fall at the edge)?"""
    series = tw["configs"][c]["series"]
    return not series or any(not s or min(s) <= 0 or len(s) < secs - 1
                             for s in series)


def onecore_target(oc, c, secs):
    """Case 6 against its target: every tenant progressed every second,
    with a per-second CoV at or below upstream's."""
    bad = [t for t, tw in oc["tenants"].items() if starved(tw, c, secs)]
    worse = []
    for t, tw in oc["tenants"].items():
        o = (tw["configs"][c]["per_second_cov_pct"] or {}).get("median")
        u = (tw["configs"].get("upstream", {}).get("per_second_cov_pct")
             or {}).get("median")
        if o is not None and u is not None and o > u:
            worse.append("%s %.1f%% > upstream's %.1f%%" % (t, o, u))
    return "  one core: %s; per-second CoV %s" % (
        "a tenant missed a second: " + ", ".join(bad) if bad else
        "every tenant progressed every second",
        "above upstream's: " + ", ".join(worse) if worse else
        "at or below upstream's")


def targets(env, res, cf, sessions):
    """Where ours stands against issue 9's targets."""
    out = ["The seeds' figures for the kernel's core scheduling, on real "
           "hardware: MySQL beside sysbench at 0.42x (Intel, v5), "
           "context switching (will-it-scale) at 0.20x, one core's "
           "tenant falling from 405 to 8.7 events/s with a 519% stdev "
           "(2019). The targets: ours at or above upstream on every row, "
           "at or above 0.9x default on rows 1, 4, 5 and 8, every tenant "
           "of row 6 progressing every second with a per-second CoV at or "
           "below upstream's, overlap 0 ns.", ""]
    secs = int(env.get("onecore_secs") or 0)
    for c in [c for c in cf if is_ours(c)]:
        behind, under = [], []
        for wl, w in res.items():
            for t, tw in w["tenants"].items():
                o = (tw["configs"][c]["ratio"] or {}).get("median")
                u = (tw["configs"].get("upstream", {}).get("ratio") or {}).get("median")
                if o is not None and u is not None and o < u:
                    behind.append("%s/%s %.2fx < %.2fx" % (wl, t, o, u))
                if wl in ("cpu2", "pipe", "hackbench", "build") and o is not None \
                        and o < 0.9:
                    under.append("%s/%s %.2fx" % (wl, t, o))
        ov = [a["overlap_ns"] for a in sessions.get(c, [])]
        out.append("- %s: behind upstream on %s; under 0.9x default on rows "
                   "1/4/5/8: %s; overlap max %s ns." %
                   (c, ", ".join(behind) or "no row", ", ".join(under) or "none",
                    "%.0f" % max(ov) if ov else "-"))
        oc = res.get("onecore")
        if oc and c != "ours-none":
            out.append(onecore_target(oc, c, secs))
    return out + [""]


def charts(out, env, res):
    cf = env["configs"]
    files = []
    for wl, w in res.items():
        vals = {}
        for t, tw in w["tenants"].items():
            for c in cf:
                s = tw["configs"][c]["ratio"]
                vals[(t, c)] = (s["median"], s["min"], s["max"]) if s else None
        name = "chart-%s.svg" % wl
        with open(os.path.join(out, name), "w") as f:
            f.write(svg.bar_chart(w["title"], list(w["tenants"]), cf, vals,
                                  "x default"))
        files.append(name)
    oc = res.get("onecore")
    if oc:
        panels = []
        for t, tw in oc["tenants"].items():
            lines = {c: tw["configs"][c]["series"][0] for c in cf
                     if tw["configs"][c]["series"] and tw["configs"][c]["series"][0]}
            panels.append(("tenant %s (%s), round 1" % (t, tw["unit"]), lines))
        with open(os.path.join(out, "onecore.svg"), "w") as f:
            f.write(svg.line_chart(oc["title"], panels, cf, "per second"))
        files.append("onecore.svg")
    return files


def main():
    if len(sys.argv) != 2 or not os.path.isfile(
            os.path.join(sys.argv[1], "env.txt")):
        sys.exit("usage: bench/report.py OUTDIR (a directory bench/guest.sh "
                 "wrote, with env.txt and raw/)")
    out = sys.argv[1]
    env = read_env(out)
    runs, sessions = load_runs(out)
    res = summarize(env, runs)
    svgs = charts(out, env, res)
    md = report_md(env, res, sessions)
    md += "\nCharts: " + ", ".join("[%s](%s)" % (s, s) for s in svgs) + "\n"
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"env": env, "workloads": res, "runs": runs,
                   "sessions": sessions}, f, indent=1)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    print("bench: wrote %s/report.md, results.json and %d charts"
          % (out, len(svgs)))


if __name__ == "__main__":
    main()
