#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write, for every telemetry description, one interval's test-PMU counts
and the group files the module must then print, for the in-VM test cores.sh.

usage: core_expect.py SPEC_DIR OUT_DIR [DESC.json...]
(every description in SPEC_DIR, and the ones named after it)

OUT_DIR/<model>.vec: one line, NAME=count for every event the description's
metrics use (pseudo-random, fixed seed per model, 10^6..3*10^9, CPU_CYCLES
10^9).  OUT_DIR/<model>.expect: lines "group metric value" for every group
of the description in its order, the value computed here from Arm's formula
strings with exact rationals (the slot literal as written: the test PMU has
no PMMIR_EL1), rounded half away from zero to the unit's decimals (both
expected.py's, shared with the other Python tests).  OUT_DIR/<model>.events:
"metric EVENT..." for every metric, its distinct events (what it needs of
the counters, for plans.sh).  OUT_DIR/<model>.load: the load parameters
the model needs beyond force= (a generic description's slots=, the slot
count its formulas are written with), for cores.sh and plans.sh.
OUT_DIR/<model>.scales: the metrics whose formula scales (expected.scales():
what the module composes from rates when their events do not fit together).
OUT_DIR/<model>.phases, for a description with Topdown_L1 (composed.sh):
two phases of a workload as counts of one slice of 10^9 cycles each (A
mostly frontend bound, B mostly backend bound), the topdown_l1 events
whose slices run in phase A on one counter and the cycle counter (every
other slice runs in phase B), the counts of the whole interval, and the
values topdown_l1 must print then: composed from each slice's rates, and
exact, from the interval's counts, as a whole PMU would count them; also the
slot count (S), and the counts each event gets in the slices it is counted
in (M: its phase's; on one counter each slice counts one event).  Group
file names come from the generator's naming (tools/models/gen_models.py);
nothing else is taken from the module's code."""
import glob
import json
import os
import random
import sys
from fractions import Fraction

from expected import decimals, fmt, oracle, scales

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../tools/models'))
from gen_models import GROUP_FILES  # noqa: E402


# the share of slots frontend and backend bound, of speculated operations
# retired, branch mispredictions and frontend flush stalls per cycle
PHASE = {'A': (Fraction(40, 100), Fraction(20, 100), Fraction(80, 100),
               Fraction(2, 1000), Fraction(20, 1000)),
         'B': (Fraction(10, 100), Fraction(60, 100), Fraction(95, 100),
               Fraction(5, 10000), Fraction(5, 1000))}
IN_A = ('STALL_SLOT_FRONTEND', 'OP_RETIRED', 'BR_MIS_PRED')


def phase_counts(which, slots, events):
    """One slice of 10^9 cycles of a phase: every event of the level-1
    formulas (any other event, 10^6)."""
    fe, be, ret, mis, flush = PHASE[which]
    c = 10 ** 9
    base = {'CPU_CYCLES': c, 'STALL_SLOT_FRONTEND': fe * slots * c,
            'STALL_SLOT_BACKEND': be * slots * c, 'STALL_SLOT': (fe + be) * slots * c,
            'OP_SPEC': (1 - fe - be) * slots * c, 'OP_RETIRED': ret * (1 - fe - be) * slots * c,
            'BR_MIS_PRED': mis * c, 'STALL_FRONTEND_FLUSH': flush * c}
    return {e: Fraction(int(base.get(e, 10 ** 6))) for e in events}


def phases(spec, metrics, path):
    """<model>.phases: see the module's docstring."""
    slots = spec['product_configuration']['num_slots']
    events = sorted({e for m in metrics for e in spec['metrics'][m]['events']})
    a, b = phase_counts('A', slots, events), phase_counts('B', slots, events)
    # one slice per event beside the cycle counter on one counter
    sliced = [e for e in events if e != 'CPU_CYCLES']
    in_a = [e for e in sliced if e in IN_A]
    na, nb = len(in_a), len(sliced) - len(in_a)
    whole = {e: na * a[e] + nb * b[e] for e in events}
    rated = {e: (a if e in in_a else b)[e] for e in events}
    rated['CPU_CYCLES'] = Fraction(10 ** 9)
    with open(path, 'w') as f:
        f.write(f'S {slots}\n')
        # M: each event's count in the slices it is counted in (its phase's)
        for tag, vec in (('A', a), ('B', b), ('M', rated), ('T', whole)):
            f.write(tag + ' ' + ' '.join(f'{e}={int(vec[e])}' for e in events) + '\n')
        f.write('LA ' + ' '.join(in_a) + '\n')
        for m in metrics:
            d = spec['metrics'][m]
            f.write(f'composed {m} {fmt(oracle(d["formula"])(rated), decimals(d["units"]))}\n')
            f.write(f'exact {m} {fmt(oracle(d["formula"])(whole), decimals(d["units"]))}\n')


def main():
    spec_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(spec_dir, '*.json'))) + sys.argv[3:]:
        name = os.path.basename(path)[:-5]
        spec = json.load(open(path))
        events = sorted({e for m in spec['metrics'].values() for e in m['events']})
        rng = random.Random(name)
        counts = {e: Fraction(rng.randrange(10 ** 6, 3 * 10 ** 9)) for e in events}
        counts['CPU_CYCLES'] = Fraction(10 ** 9)
        pc = spec['product_configuration']
        with open(os.path.join(out, name + '.load'), 'w') as f:
            f.write(f'slots={pc["num_slots"]}\n' if pc.get('generic') else '\n')
        with open(os.path.join(out, name + '.vec'), 'w') as f:
            f.write(' '.join(f'{e}={int(counts[e])}' for e in events) + '\n')
        with open(os.path.join(out, name + '.events'), 'w') as f:
            for m in sorted(spec['metrics']):
                f.write(' '.join([m] + sorted(set(spec['metrics'][m]['events']))) + '\n')
        with open(os.path.join(out, name + '.scales'), 'w') as f:
            for m in sorted(spec['metrics']):
                if scales(spec['metrics'][m]['formula'], spec['metrics'][m]['events']):
                    f.write(m + '\n')
        groups = spec['groups']['metrics']
        if 'Topdown_L1' in groups:
            phases(spec, groups['Topdown_L1']['metrics'], os.path.join(out, name + '.phases'))
        order = [g for g in GROUP_FILES if g in groups] + [g for g in groups if g not in GROUP_FILES]
        with open(os.path.join(out, name + '.expect'), 'w') as f:
            for g in order:
                for m in groups[g]['metrics']:
                    d = spec['metrics'][m]
                    text = fmt(oracle(d['formula'])(counts), decimals(d['units']))
                    f.write(f'{GROUP_FILES.get(g, g.lower())} {m} {text}\n')


if __name__ == '__main__':
    main()
