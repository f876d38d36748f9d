#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check the engine against Arm's machine-readable telemetry descriptions.

usage: spec_check.py ENGINE-HOST-TEST DESC.json [DESC.json ...]

For each description (one model of the engine, named like the file): the
engine's tables (engine-host-test tables MODEL) are compared with the JSON:
events and codes, metric names, units and events, groups with Arm's names,
slot count and product name.  Then the description's own formula strings are
evaluated here with exact rationals (fractions.Fraction) and compared with
what the engine prints (engine-host-test eval MODEL) and with its fixed-point
value (raw MODEL):

  printed: the exact value rounded half away from zero to the unit's decimals
           (percent: 2; MPKI, per cycle, operations per cycle: 3; per
           branch, TLB access, cache access: 4), "nan" when the formula
           divides by zero, or when the value is beyond the fixed point
           (|value| * 10^6 >= 2^63);
  raw:     trunc(value * 10^6) exactly.

Count vectors: edge cases (zeros, one event zero, one event non-zero,
2^44 - 1), pseudo-random counts below 2^44 (fixed seed), exact ties
(counts constructed so the value is exactly half a unit of the last printed
digit) and counts next to those ties, each with the description's slot count
and with others (the slot literal multiplying CPU_CYCLES is the slot count);
beyond the documented range (a count >= 2^44) the engine may print "nan"
but never a wrong number.  The formula values, the printed text and the
tie construction are expected.py's, shared with the other Python tests.
Prints ok / not ok lines."""
import json
import os
import random
import re
import subprocess
import sys
from fractions import Fraction
from math import floor

from expected import LIMIT, decimals, fmt, mobius, oracle, solve_tie

S64_MAX = (1 << 63) - 1
MIN_TIES = 12			# exact ties constructed per metric (description's slots)

binary = sys.argv[1]
failures = 0


def check(ok, name, why=''):
    global failures
    print(('ok ' if ok else 'not ok ') + name)
    if not ok:
        failures += 1
        if why:
            print('# ' + why)


def trunc6(v):
    # in integers (a Fraction's or an int's numerator and denominator):
    # Fraction arithmetic made this check a quarter of the host tests' time
    q = abs(v.numerator) * 10 ** 6 // v.denominator
    return -q if v < 0 else q


def tables(model):
    r = subprocess.run([binary, 'tables', model], capture_output=True, text=True)
    return r.returncode, r.stdout.splitlines()


def table_checks(spec, model, lines):
    events = [ln.split()[1:] for ln in lines if ln.startswith('event ')]
    metrics = {}
    for ln in lines:
        if ln.startswith('metric '):
            head, evs = ln[7:].split('|')
            name, unit = head.split(' ', 1)
            metrics[name] = (unit, sorted(evs.split()))
    groups = [ln.split()[1:] for ln in lines if ln.startswith('group ')]
    head = [ln.split(None, 4)[1:] for ln in lines if ln.startswith('model ')]
    pc = spec['product_configuration']
    check(head == [[model, str(pc['num_slots']), head[0][2] if head else '',
                    pc['product_name']]], f'spec-model/{model}', f'{head}')
    used = set()
    for m in spec['metrics'].values():
        used |= set(m['events'])
    codes = [int(spec['events'][n]['code'], 16) for n, _ in events]
    check(sorted(n for n, _ in events) == sorted(used) and
          all(int(c, 16) == want for (_, c), want in zip(events, codes)) and
          codes == sorted(set(codes)), f'spec-event-table/{model}')
    check(sorted(metrics) == sorted(spec['metrics']), f'spec-metric-names/{model}',
          f'{sorted(set(metrics) ^ set(spec["metrics"]))}')
    bad = [n for n, m in spec['metrics'].items()
           if n not in metrics or metrics[n] != (m['units'], sorted(set(m['events'])))]
    check(not bad, f'spec-metric-units-and-events/{model}', f'{bad}')
    want = {k: v['metrics'] for k, v in spec['groups']['metrics'].items()}
    got = {g[1]: g[2:] for g in groups}
    files = [g[0] for g in groups]
    check(got == want and len(groups) == len(want) and len(set(files)) == len(files) and
          all(re.fullmatch(r'[a-z0-9_]+', f) for f in files), f'spec-groups/{model}',
          f'{sorted(set(got) ^ set(want))}')
    return [n for n, _ in events], [(n, metrics[n][0]) for n in sorted(metrics)]


def make_tie(rng, fn, names, evs, slots, dec):
    """Counts below 2^44 where fn is exactly (k + 1/2) / 10^dec, or None."""
    counts = {n: Fraction(rng.randrange(1, 1 << rng.choice([6, 10, 14]))) for n in names}
    y = rng.choice(evs)
    ys = [Fraction(v) for v in (3, 11, 29, 61)]
    fs = []
    for v in ys:
        counts[y] = v
        f = fn(counts, slots)
        if f is None:
            return None
        fs.append(f)
    abcd = mobius(ys, fs)
    if abcd is None:
        return None		# constant in y, or not a Moebius function of y
    k = floor(fs[0] * 10 ** dec) + rng.randrange(-40, 40)
    t = (Fraction(k) + Fraction(1, 2)) / 10 ** dec
    yv = solve_tie(abcd, t)
    if yv is None:
        return None
    counts[y] = yv
    # the metrics are ratios of counts: scaling them all keeps the value
    scale = yv.denominator
    out = {n: int(v * scale) for n, v in counts.items()}
    top = max(out.values())
    if top >= LIMIT:
        return None
    if rng.random() < 0.7 and LIMIT // top > 2:
        lam = rng.randrange(1, LIMIT // top)
        out = {n: v * lam for n, v in out.items()}
    if fn({n: Fraction(v) for n, v in out.items()}, slots) != t:
        return None
    return out, y


def run_engine(mode, model, vectors, names):
    inp = ''.join(f'{s} ' + ' '.join(str(c[n]) for n in names) + '\n' for s, c in vectors)
    r = subprocess.run([binary, mode, model], input=inp, capture_output=True, text=True)
    return [ln.split() for ln in r.stdout.splitlines()]


def check_model(path):
    spec = json.load(open(path))
    model = os.path.basename(path)[:-5]
    slots = int(spec['product_configuration']['num_slots'])
    rc, lines = tables(model)
    check(rc == 0 and lines, f'engine-has-model/{model}')
    if rc or not lines:
        return
    names, metrics = table_checks(spec, model, lines)
    if sorted(n for n, _ in metrics) != sorted(spec['metrics']):
        return
    fns = {}
    slot_metrics = []
    for n, _ in metrics:
        # the slot literal where Arm multiplies CPU_CYCLES by it is the slot count
        fns[n] = oracle(spec['metrics'][n]['formula'], slots)
        if fns[n].uses_slots:
            slot_metrics.append(n)
    # where Arm multiplies CPU_CYCLES by the slot literal, it is the slot count
    check(all(u == 'percent of slots' for n, u in metrics if n in slot_metrics) and
          (not slot_metrics or len(slot_metrics) >= 3), f'spec-slot-metrics/{model}',
          f'{slot_metrics}')
    rng = random.Random(f'n3t-{model}')
    other_slots = [0, 1, 4, 8, 255, rng.randrange(2, 255)]
    vectors = []		# (slots, counts, kind)

    def add(s, counts, kind):
        vectors.append((s, counts, kind))

    ne = len(names)
    top = LIMIT - 1
    add(slots, {n: 0 for n in names}, 'edge')
    add(slots, {n: 1 for n in names}, 'edge')
    add(slots, {n: 1000 for n in names}, 'edge')
    add(slots, {n: top for n in names}, 'edge')
    add(255, {n: top for n in names}, 'edge')
    for i, e in enumerate(names):
        add(slots, {n: 0 if n == e else rng.randrange(1, 1 << 30) for n in names}, 'edge')
        add(slots, {n: top if n == e else 0 for n in names}, 'edge')
        add(slots, {n: 1 if n == e else top for n in names}, 'edge')
        add(slots, {n: top if n == e else 1 for n in names}, 'edge')
        add(slots, {n: (top if (i + j) & 1 else 1) for j, n in enumerate(names)}, 'edge')
    for _ in range(1500):
        bits = rng.choice([4, 10, 20, 32, 40, 44])
        s = slots if rng.random() < 0.75 else rng.choice(other_slots)
        add(s, {n: rng.randrange(0, 1 << bits) if rng.random() > 0.02 else 0
                for n in names}, 'random')
    # exact ties and their neighbours, every metric
    ties = {}
    for n, unit in metrics:
        dec = decimals(unit)
        evs = sorted(set(spec['metrics'][n]['events']))
        for s in [slots] + (other_slots[1:] if n in slot_metrics else []):
            want = MIN_TIES if s == slots else 2
            got = 0
            for _ in range(400 * want):
                if got >= want:
                    break
                r = make_tie(rng, fns[n], names, evs, s, dec)
                if r is None:
                    continue
                counts, y = r
                got += 1
                add(s, counts, 'tie')
                for dy in (-1, 1):
                    nb = dict(counts)
                    nb[y] += dy
                    if 0 <= nb[y] < LIMIT:
                        add(s, nb, 'near')
            ties[(n, s)] = got
    short = [f'{n}@{s}:{g}' for (n, s), g in ties.items() if g < (MIN_TIES if s == slots else 2)]
    check(not short, f'exact-ties-constructed/{model}', f'too few ties: {short}')
    # beyond the documented range: nan or exact
    for _ in range(300):
        add(rng.choice([slots, 255]), {n: rng.randrange(0, 1 << rng.choice([45, 50, 56, 63, 64]))
                                       for n in names}, 'beyond')
    for v in (LIMIT, (1 << 63) - 1, (1 << 64) - 1):
        add(slots, {n: v for n in names}, 'beyond')
        add(255, {n: v if i % 3 else 1 for i, n in enumerate(names)}, 'beyond')

    printed = run_engine('eval', model, [(s, c) for s, c, _ in vectors], names)
    raw = run_engine('raw', model, [(s, c) for s, c, _ in vectors], names)
    check(len(printed) == len(vectors) and len(raw) == len(vectors) and
          all(len(x) == len(metrics) for x in printed + raw), f'spec-eval-ran/{model}')
    if len(printed) != len(vectors) or len(raw) != len(vectors):
        return
    bad = {}
    nan_beyond = 0
    tie_checked = {}
    for (s, counts, kind), line, rline in zip(vectors, printed, raw):
        fc = {n: Fraction(c) for n, c in counts.items()}
        for (n, unit), got, gotraw in zip(metrics, line, rline):
            v = fns[n](fc, s)
            dec = decimals(unit)
            if v is None or abs(trunc6(v)) > S64_MAX:
                want, wantraw = 'nan', 'nan'
            else:
                want, wantraw = fmt(v, dec), str(trunc6(v))
            ok = got == want and gotraw == wantraw
            if kind == 'beyond' and got == 'nan' and gotraw == 'nan':
                ok = True
                nan_beyond += want != 'nan'
            if kind == 'tie' and v is not None and (v * 10 ** dec * 2).denominator == 1 and \
               (v * 10 ** dec * 2) % 2 == 1:
                tie_checked[n] = tie_checked.get(n, 0) + 1
            if not ok:
                bad.setdefault((n, kind), f'slots {s} {counts} -> got {got} ({gotraw}), '
                                          f'want {want} ({wantraw})')
    for n, _ in metrics:
        why = '; '.join(f'{k}: {bad[(n, k)]}' for k in ('edge', 'random', 'tie', 'near', 'beyond')
                        if (n, k) in bad)
        check(not why, f'spec-formula/{model}/{n}', why)
    check(all(tie_checked.get(n, 0) >= MIN_TIES for n, _ in metrics),
          f'exact-ties-checked/{model}')
    print(f'# {model}: {len(vectors)} vectors, {sum(ties.values())} exact ties, '
          f'{nan_beyond} values beyond 2^44 counts refused (nan)')


for p in sys.argv[2:]:
    check_model(p)
sys.exit(1 if failures else 0)
