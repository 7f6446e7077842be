#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/profile_report.py OBJ OUT: the section profile of bench/profile.

OBJ is the profiled scheduler's BPF object (build/prof/coresched.bpf.o),
whose BTF names the sections (enum cs_prof_sec, include/cs_prof.h); OUT
holds bench/profile_guest.sh's snapshots. Prints, per workload, each
section's ns per pass, passes per second and share of all CPU time, as a
markdown table, and writes it to OUT/report.md too."""
import json
import subprocess
import sys


def section_names(obj):
    btf = json.loads(subprocess.run(
        ['bpftool', '-j', 'btf', 'dump', 'file', obj],
        check=True, capture_output=True, text=True).stdout)
    for t in btf['types']:
        if t.get('kind') == 'ENUM' and t.get('name') == 'cs_prof_sec':
            names = {v['val']: v['name'] for v in t['values']}
            return [names[i] for i in sorted(names) if
                    names[i] != 'CS_PROF_NR']
    sys.exit(f'{obj}: no enum cs_prof_sec in its BTF: built without make prof?')


def counters(path):
    with open(path) as f:
        dump = json.load(f)
    bss = dump[0]['formatted']['value']['.bss']
    d = {k: v for x in bss for k, v in x.items()}
    return d['prof_ns'], d['prof_cnt']


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    obj, out = sys.argv[1:]
    names = section_names(obj)
    with open(f'{out}/ncpu') as f:
        ncpu = int(f.read())
    lines = [f'Section profile of scx_coresched --mode strict ({ncpu} vCPUs; '
             'ns per pass include the clock reads of one mark, see '
             'CS_PROF_EMPTY; % is of all CPU time of the run).', '']
    for wl in ('cpu2', 'hackbench', 'pipe'):
        try:
            ns0, c0 = counters(f'{out}/{wl}.before.json')
            ns1, c1 = counters(f'{out}/{wl}.after.json')
            with open(f'{out}/{wl}.ns') as f:
                run_ns = int(f.read())
        except (OSError, ValueError, KeyError) as e:
            lines += [f'{wl}: no figures ({e})', '']
            continue
        lines += [f'### {wl} ({run_ns / 1e9:.1f} s)', '',
                  '| section | ns per pass | passes/s | % of CPU |',
                  '|---|---|---|---|']
        for i, name in enumerate(names):
            dn, dc = ns1[i] - ns0[i], c1[i] - c0[i]
            if not dc:
                continue
            lines.append(f'| {name[len("CS_PROF_"):].lower()} | {dn / dc:.0f} | '
                         f'{dc / (run_ns / 1e9):.0f} | '
                         f'{100 * dn / (run_ns * ncpu):.2f} |')
        lines.append('')
    text = '\n'.join(lines)
    print(text)
    with open(f'{out}/report.md', 'w') as f:
        f.write(text)


if __name__ == '__main__':
    main()
