#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How far a composed topdown level 1 value can be from the exact one, from
Arm's formulas alone: the table of the guide's "Few counters", recomputed.

usage: composed_bound.py GUIDE.rst DESC.json...

A composed value is the formula evaluated at each event's rate per cycle
as its own slices counted it; the exact value, at the rates of the whole
interval.  When every event's rate in its slices is within +-d of its
interval rate (relative), the worst difference is at a corner of that box:
each formula is, in any one count with the others fixed, a ratio of two
linear functions, so it is monotonic along every edge.  Evaluated with
exact fractions at every corner, around the two operating points of the
end-to-end phases (core_expect.py's A and B), for d = 5, 10 and 20 %.
Prints the worst difference of each description's four metrics, and 'ok' /
'not ok' lines: the guide's table says the same, to 0.01 points.  Also the
guide's table of the phases by slice (core_expect.py's phases(), which the
VM's composed.sh scripts): composed minus exact, as printed values; and
the largest difference over every choice of the events counted in phase A."""
import itertools
import json
import os
import re
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core_expect import IN_A, phase_counts  # noqa: E402
from expected import decimals, fmt, oracle  # noqa: E402

DELTAS = (Fraction(5, 100), Fraction(10, 100), Fraction(20, 100))


def worst(spec):
    """{d: (points, metric)} for the description's Topdown_L1."""
    metrics = spec['groups']['metrics']['Topdown_L1']['metrics']
    slots = spec['product_configuration']['num_slots']
    events = sorted({e for m in metrics for e in spec['metrics'][m]['events']})
    moved = [e for e in events if e != 'CPU_CYCLES']
    out = {}
    for d in DELTAS:
        best = (Fraction(0), '')
        for phase in ('A', 'B'):
            c = phase_counts(phase, slots, events)
            for m in metrics:
                f = oracle(spec['metrics'][m]['formula'])
                exact = f(c)
                for signs in itertools.product((-1, 1), repeat=len(moved)):
                    cc = dict(c)
                    for e, s in zip(moved, signs):
                        cc[e] = c[e] * (1 + s * d)
                    v = f(cc)
                    if v is not None and abs(v - exact) > best[0]:
                        best = (abs(v - exact), m)
        out[d] = best
    return out


def by_slice(spec):
    """[composed - exact] of topdown_l1's metrics, '+20.50'-style: the
    phases of core_expect.py's phases(), as printed values."""
    metrics = spec['groups']['metrics']['Topdown_L1']['metrics']
    slots = spec['product_configuration']['num_slots']
    events = sorted({e for m in metrics for e in spec['metrics'][m]['events']})
    a, b = phase_counts('A', slots, events), phase_counts('B', slots, events)
    sliced = [e for e in events if e != 'CPU_CYCLES']
    na = len([e for e in sliced if e in IN_A])
    whole = {e: na * a[e] + (len(sliced) - na) * b[e] for e in events}
    rated = {e: (a if e in IN_A else b)[e] for e in events}
    out = []
    for m in metrics:
        d = spec['metrics'][m]
        dec = decimals(d['units'])
        f = oracle(d['formula'])
        diff = Fraction(fmt(f(rated), dec)) - Fraction(fmt(f(whole), dec))
        out.append(f'{float(diff):+.{dec}f}')
    return out


def worst_alignment(spec):
    """The largest |composed - exact| of each topdown_l1 metric over every
    choice of the sliced events counted in phase A (the others in B), as
    printed values ('24.00')."""
    metrics = spec['groups']['metrics']['Topdown_L1']['metrics']
    slots = spec['product_configuration']['num_slots']
    events = sorted({e for m in metrics for e in spec['metrics'][m]['events']})
    a, b = phase_counts('A', slots, events), phase_counts('B', slots, events)
    sliced = [e for e in events if e != 'CPU_CYCLES']
    most = {m: Fraction(0) for m in metrics}
    for bits in itertools.product((0, 1), repeat=len(sliced)):
        in_a = {e for e, x in zip(sliced, bits) if x}
        whole = {e: len(in_a) * a[e] + (len(sliced) - len(in_a)) * b[e] for e in events}
        rated = {e: (a if e in in_a else b)[e] for e in events}
        for m in metrics:
            d = spec['metrics'][m]
            dec = decimals(d['units'])
            f = oracle(d['formula'])
            x, y = f(rated), f(whole)
            if x is not None and y is not None:
                diff = abs(Fraction(fmt(x, dec)) - Fraction(fmt(y, dec)))
                most[m] = max(most[m], diff)
    return [f'{float(most[m]):.{decimals(spec["metrics"][m]["units"])}f}' for m in metrics]


def main():
    guide = open(sys.argv[1]).read()
    rows, slices, aligned = {}, {}, {}
    for line in guide.splitlines():
        m = re.match(r'\s+``([a-z0-9-]+)``\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\w+)\s*$', line)
        if m:
            rows[m.group(1)] = [m.group(i) for i in range(2, 6)]
        m = re.match(r'\s+``([a-z0-9-]+)``((?:\s+[-+][0-9.]+){4})\s*$', line)
        if m:
            slices[m.group(1)] = m.group(2).split()
        m = re.match(r'\s+``([a-z0-9-]+)``((?:\s+[0-9]+\.[0-9]+){4})\s*$', line)
        if m:
            aligned[m.group(1)] = m.group(2).split()
    bad = 0
    for path in sys.argv[2:]:
        spec = json.load(open(path))
        if 'Topdown_L1' not in spec['groups']['metrics']:
            continue
        name = os.path.basename(path)[:-5]
        w = worst(spec)
        got = [f'{float(w[d][0]):.2f}' for d in DELTAS] + [w[DELTAS[1]][1]]
        print(f'# {name}: ' + ' '.join(got))
        ok = rows.get(name) == got
        bad += not ok
        print(f'{"ok" if ok else "not ok"} composed-bound-in-guide/{name}')
        if not ok:
            print(f'# guide says {rows.get(name)}')
        got = by_slice(spec)
        print(f'# {name} by slice: ' + ' '.join(got))
        ok = slices.get(name) == got
        bad += not ok
        print(f'{"ok" if ok else "not ok"} composed-by-slice-in-guide/{name}')
        if not ok:
            print(f'# guide says {slices.get(name)}')
        got = worst_alignment(spec)
        print(f'# {name} worst alignment: ' + ' '.join(got))
        ok = aligned.get(name) == got
        bad += not ok
        print(f'{"ok" if ok else "not ok"} composed-worst-alignment-in-guide/{name}')
        if not ok:
            print(f'# guide says {aligned.get(name)}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
