#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The capacity x selection oracle for the sweep kselftest, from Arm's spec.

usage: fits.py DESC.json ENGINE-HOST-TEST [MODEL]

MODEL (the engine's model name) defaults to the description's file name,
e.g. neoverse-n3 for neoverse-n3.json.  For every programmable-counter count
C (0..6), cycle counter free or busy, and selection (default, all, each
group) prints 'C CYC SELECTION RESULT': busy when there is no counter at
all, ok when at least one selected metric's events fit in C counters
(CPU_CYCLES on the cycle counter when it is free) or its formula scales
(expected.scales(): composed from rates, each event beside CPU_CYCLES, or
alone on one counter without the cycle counter), nospc otherwise.  Event
lists and group members come from the description; the group file names
(lower case) from the engine's table dump, the default selection from the
user guide (with cycle_accounting added on cores without topdown level 1)."""
import json
import os
import subprocess
import sys

from expected import scales

spec = json.load(open(sys.argv[1]))
model = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(sys.argv[1])[:-5]
tables = subprocess.run([sys.argv[2], 'tables', model], capture_output=True,
                        text=True, check=True).stdout.splitlines()
lower = {ln.split()[2]: ln.split()[1] for ln in tables if ln.startswith('group ')}
groups = {lower[k]: v['metrics'] for k, v in spec['groups']['metrics'].items()}
DEFAULT = ['topdown_l1', 'topdown_frontend', 'topdown_backend', 'general',
           'l1i_cache', 'l1d_cache', 'l2_cache', 'll_cache']
if 'topdown_l1' not in groups:
    DEFAULT.append('cycle_accounting')
selections = {'default': [g for g in DEFAULT if g in groups], 'all': list(groups)}
selections.update({g: [g] for g in groups})


def cost(metric, cyc):
    evs = set(spec['metrics'][metric]['events'])
    return len(evs) - (1 if cyc and 'CPU_CYCLES' in evs else 0)


composable = {m: scales(d['formula'], d['events']) for m, d in spec['metrics'].items()}
for c in range(7):
    for cyc in (1, 0):
        for name, gs in selections.items():
            if c == 0:
                r = 'busy'
            elif any(cost(m, cyc) <= c or composable[m] for g in gs for m in groups[g]):
                r = 'ok'
            else:
                r = 'nospc'
            print(c, cyc, name, r)
