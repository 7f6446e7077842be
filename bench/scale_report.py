# SPDX-License-Identifier: GPL-2.0-only
"""bench/scale's report: scale.txt -> report.md and scale-COOKIES.svg."""
import os
import sys

from svg import bar_chart

PROGS = ["cs_select_cpu", "cs_enqueue", "cs_dispatch", "cs_tick",
         "cs_running", "cs_commit"]


def parse(path):
    rows = []
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            rows.append(kv)
    return rows


def growth_of(v):
    """The last figure over the first, of those there are."""
    have = [x for x in v if x]
    return "%.2fx" % (have[-1] / have[0]) if len(have) > 1 else "-"


def main():
    out = sys.argv[1]
    rows = parse(os.path.join(out, "scale.txt"))
    cost, calls, fi, secs, ej, calib = {}, {}, {}, {}, {}, {}
    for r in rows:
        key = (int(r["ncpu"]), int(r["cookies"]))
        if "prog" in r:
            cost[key + (r["prog"],)] = int(r["ns_per_call"])
            calls[key + (r["prog"],)] = int(r["calls"])
            secs[key] = float(r.get("secs", 10))
        elif "forced_idle_pct" in r:
            fi[key] = r["forced_idle_pct"]
        elif "ejections" in r:
            ej[key] = r["ejections"]
        elif "calib" in r:
            calib[key] = int(r["ns_per_run"])
    cpus = sorted({k[0] for k in fi} | {k[0] for k in cost})
    cookies = sorted({k[1] for k in fi} | {k[1] for k in cost})
    md = ["# scx_coresched: BPF cost per call as the machine grows", "",
          "ns per call (run_time_ns / run_cnt of each program, kernel "
          "bpf stats), over the measured window; TCG guests, so compare "
          "within the table. Growth: largest guest / smallest. The "
          "yardstick is a fixed amount of BPF work (bench/calib.bpf.c) "
          "timed beside the load: how much slower the guest runs BPF "
          "as it grows (TCG: more vCPUs on the same host cores).", ""]
    for k in cookies:
        head = ["callback"] + ["%d vCPUs" % n for n in cpus] + ["growth"]
        md.append("## %d live cookies" % k)
        md.append("")
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * len(head))
        values = {}
        for p in PROGS:
            v = [cost.get((n, k, p)) for n in cpus]
            md.append("| %s | %s | %s |" % (
                p, " | ".join(str(x) if x else "-" for x in v),
                growth_of(v)))
            for n, x in zip(cpus, v):
                if x:
                    values[(p[3:], "%d vCPUs" % n)] = (x, x, x)
        md.append("| yardstick (bench/calib) | %s | %s |" % (
            " | ".join(str(calib.get((n, k), "-")) for n in cpus),
            growth_of([calib.get((n, k)) for n in cpus])))
        md.append("| forced idle %% | %s | |" % " | ".join(
            fi.get((n, k), "-") for n in cpus))
        md.append("| dispatch calls/s/vCPU | %s | |" % " | ".join(
            "%.0f" % (calls[(n, k, "cs_dispatch")] / n / secs[(n, k)])
            if (n, k, "cs_dispatch") in calls else "-" for n in cpus))
        md.append("| ejections (watchdog) | %s | |" % " | ".join(
            ej.get((n, k), "-") for n in cpus))
        md.append("")
        md.append("In yardsticks (each ns per call divided by the "
                  "yardstick's ns per run in the same window): the "
                  "scheduler's own growth, the machine's slowdown "
                  "taken out.")
        md.append("")
        md.append("| " + " | ".join(head) + " |")
        md.append("|" + "---|" * len(head))
        for p in PROGS:
            v = [cost[(n, k, p)] / calib[(n, k)]
                 if (n, k, p) in cost and calib.get((n, k)) else None
                 for n in cpus]
            md.append("| %s | %s | %s |" % (
                p, " | ".join("%.2f" % x if x else "-" for x in v),
                growth_of(v)))
        md.append("")
        svg = bar_chart("ns per BPF call, %d cookies" % k,
                        [p[3:] for p in PROGS],
                        ["%d vCPUs" % n for n in cpus], values,
                        "ns per call", ref=None)
        with open(os.path.join(out, "scale-%d.svg" % k), "w") as f:
            f.write(svg)
        md.append("![](scale-%d.svg)" % k)
        md.append("")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
