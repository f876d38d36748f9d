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
count its formulas are written with), for cores.sh and plans.sh.  Group
file names come from the generator's naming (tools/models/gen_models.py);
nothing else is taken from the module's code."""
import glob
import json
import os
import random
import sys
from fractions import Fraction

from expected import decimals, fmt, oracle

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../tools/models'))
from gen_models import GROUP_FILES  # noqa: E402


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
        groups = spec['groups']['metrics']
        order = [g for g in GROUP_FILES if g in groups] + [g for g in groups if g not in GROUP_FILES]
        with open(os.path.join(out, name + '.expect'), 'w') as f:
            for g in order:
                for m in groups[g]['metrics']:
                    d = spec['metrics'][m]
                    text = fmt(oracle(d['formula'])(counts), decimals(d['units']))
                    f.write(f'{GROUP_FILES.get(g, g.lower())} {m} {text}\n')


if __name__ == '__main__':
    main()
