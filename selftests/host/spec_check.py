#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check the engine against Arm's machine-readable N3 specification.

The spec's own formula strings are evaluated here with exact rationals
(fractions.Fraction) and compared with what the engine prints, for fixed
edge vectors and pseudo-random count vectors (fixed seed).  The event table,
metric units and event lists and the groups are compared too.  Prints
ok / not ok lines."""
import json
import random
import re
import subprocess
import sys
from fractions import Fraction

spec = json.load(open(sys.argv[1]))
binary = sys.argv[2]
tables = subprocess.run([binary, 'tables'], capture_output=True, text=True).stdout.splitlines()
events = [ln.split()[1:] for ln in tables if ln.startswith('event ')]
names = [e[0] for e in events]
metrics = {}
for ln in tables:
    if ln.startswith('metric '):
        head, evs = ln[7:].split('|')
        name, unit = head.split(' ', 1)
        metrics[name] = (unit, sorted(evs.split()))
groups = [ln.split()[1:] for ln in tables if ln.startswith('group ')]


def check(ok, name, why=''):
    print(('ok ' if ok else 'not ok ') + name)
    if not ok and why:
        print('# ' + why)


used = set()
for m in spec['metrics'].values():
    used |= set(m['events'])
check(sorted(names) == sorted(used) and
      all(int(spec['events'][n]['code'], 16) == int(c, 16) for n, c in events),
      'spec-event-table')
check(list(metrics) == list(spec['metrics']), 'spec-metric-names')
check(all(metrics[n][0] == m['units'] and metrics[n][1] == sorted(m['events'])
          for n, m in spec['metrics'].items()), 'spec-metric-units-and-events')
check([(g[1], g[2:]) for g in groups] ==
      [(k, v['metrics']) for k, v in spec['groups']['metrics'].items()] or
      sorted((g[1], tuple(g[2:])) for g in groups) ==
      sorted((k, tuple(v['metrics'])) for k, v in spec['groups']['metrics'].items()),
      'spec-groups')


def decimals(unit):
    if unit.startswith('percent'):
        return 2
    if unit in ('MPKI', 'per cycle', 'operations per cycle'):
        return 3
    return 4


def exact(formula, counts):
    expr = re.sub(r'\b([A-Z][A-Z0-9_]+)\b', lambda m: f'counts["{m.group(1)}"]', formula)
    expr = re.sub(r'(?<![\w"])(\d+)(?![\w"])', r'Fraction(\1)', expr)
    try:
        return eval(expr, {'Fraction': Fraction, 'counts': counts})
    except ZeroDivisionError:
        return None


def last_digits(text, dec):
    if text == 'nan':
        return None
    return int(text.replace('.', '').replace('-0', '-') or '0') if '.' in text else None


rng = random.Random(0x4e33)
vectors = [[0] * len(names), [1] * len(names), [(1 << 63) - 1] * len(names)]
for _ in range(3000):
    scale = rng.choice([10, 1000, 10 ** 6, 10 ** 9, 1 << 40, 1 << 62])
    vectors.append([rng.randrange(0, scale) for _ in names])
inp = ''.join('5 ' + ' '.join(map(str, v)) + '\n' for v in vectors)
res = subprocess.run([binary, 'eval'], input=inp, capture_output=True, text=True).stdout.splitlines()
bad = {}
for v, line in zip(vectors, res):
    counts = {n: Fraction(c) for n, c in zip(names, v)}
    for (name, m), got in zip(spec['metrics'].items(), line.split()):
        want = exact(m['formula'], counts)
        dec = decimals(m['units'])
        if want is None:
            ok = got == 'nan'
        elif got == 'nan':
            # the engine refuses values beyond s64 fixed point
            ok = abs(want) * 10 ** 6 >= 2 ** 63
        else:
            ok = abs(Fraction(got) - want) <= Fraction(1, 10 ** dec)
        if not ok:
            bad.setdefault(name, f'{v} -> got {got}, want {float(want) if want is not None else None}')
check(len(res) == len(vectors), 'spec-eval-ran')
for name in spec['metrics']:
    check(name not in bad, f'spec-formula/{name}', bad.get(name, ''))
