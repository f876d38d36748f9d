#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate a promtool unit test of the recording rules for every core.

usage: gen_rules_test.py [-o OUT.yml] DESC.json [DESC.json ...]

Synthetic hosts export what n3tel exports by default: the system aggregate
(no cpu label) with model-labelled n3telemetry_slots and, per event, a
cumulative count and a cumulative counted time, each the sum over the host's
CPUs.  The expected value of every rule is Arm's formula string evaluated by
Python itself with exact fractions over the per-counted-second event rates
(sum of counts over sum of counted seconds: per host, then over the fleet),
divided by 100 for percent units, rounded to 1e-6 (as the test rounds).
Nothing here uses gen_rules.py's parser or translation.

Hosts: one per description (one CPU; two for neoverse-v2), "hetero" (cpu0-1
neoverse-n3, cpu2-3 neoverse-v2: the system aggregate is the first core
type's, so only neoverse-n3 results), "idle" (neoverse-n3, cpu1 counted
nothing in the window next to a busy cpu0), "allidle" (nothing counted: no
results at all), "reset" (neoverse-n3, counters restart from 0 at 7m, as
after a module reload), and two neoverse-n3 hosts whose PMU composes some
metrics: "composed" exports topdown level 1 and ipc with composed="1" (ipc's
value NaN: the label marks whatever the value), "composed2" frontend_bound
only, and exports backend_bound exact; "hetero" has a composed per-CPU
series of its neoverse-v2 CPUs, which marks nothing (the rules read the
system aggregate).  A host's result of a composed metric carries
composed="1"; the fleet's is one series over the hosts that compute the
metric exactly and one with composed="1" over those that compose it.
Events count part of the time (multiplexing: 20, 30 or 60 counted seconds
a minute, per CPU and event).  Every host also exports a container on its
cpu0 (n3tel --by-cgroup: n3telemetry_cgroup_event_* with the cgroup labels,
rates of its own; "allidle"'s counted nothing, "reset"'s restarts at 7m
too), "composed2" a shared pool on cpu1, "hetero" a container on a
neoverse-v2 CPU, and host neoverse-n3 one that is gone at 7m (no result at
10m, though its counts are in the window); the containers' value series
carry their host's composed marks, and so do their cgroup: results.  Each rule is tested with one query listing
all of its series, so a missing or extra series (N1 has no topdown) fails
too.

The formula values come from tools/models/formulas.py's oracle(): Python's
own evaluation of the string, not the parser the generators share."""
import argparse
import json
import os
import random
import re
import sys
from decimal import Decimal
from fractions import Fraction
from math import floor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'models'))
import generated  # noqa: E402
from formulas import oracle  # noqa: E402  (Python's own evaluation, not the parser)

EVAL = '10m'
ROUND = Fraction(1, 10**6)
# the metrics each host exports composed (its system aggregate's); the
# value series of the exact ones named here, unmarked
COMPOSED = {'composed': ['frontend_bound', 'backend_bound', 'retiring', 'bad_speculation', 'ipc'],
            'composed2': ['frontend_bound']}
EXACT = {'composed2': ['backend_bound']}
NAN = {('composed', 'ipc')}
# per-CPU series with composed="1" (instance, cpu, model, metric): not the system's
CPU_COMPOSED = [('hetero', 2, 'neoverse-v2', 'frontend_bound')]


def rec(name, unit):
    if unit.startswith('percent'):
        return 'n3telemetry_' + re.sub(r'_percentage$', '', name) + ':ratio'
    if name.endswith('_ratio'):
        return 'n3telemetry_' + name[:-6] + ':ratio'
    return 'n3telemetry_' + name


def load(path):
    with open(path) as f:
        spec = json.load(f)
    metrics = {}
    for name, m in spec['metrics'].items():
        metrics[name] = (rec(name, m['units']), m['formula'],
                         100 if m['units'].startswith('percent') else 1,
                         value_series(name, m['units']))
    events = sorted({e for _, f, _, _ in metrics.values()
                     for e in re.findall(r'[A-Z][A-Z0-9_]*', f)})
    return dict(name=os.path.basename(path)[:-5], metrics=metrics, events=events,
                slots=int(spec['product_configuration']['num_slots']))


def value_series(name, unit):
    """n3tel's family of a metric's value: percentages as 0..1 ratios."""
    if unit.startswith('percent'):
        return 'n3telemetry_' + re.sub(r'_percentage$', '', name) + '_ratio'
    return 'n3telemetry_' + name


def rounded(x):
    """The rounding of round(x, 0.000001), or None too near a tie."""
    y = x / ROUND + Fraction(1, 2)
    k = floor(y)
    if min(y - k, k + 1 - y) < Fraction(1, 1000):
        return None
    return format((Decimal(k) / Decimal(10**6)).normalize(), 'f')


def hosts(models):
    """(instance, [(cpu, model, mode)])"""
    out = [(m, [(0, m, 'busy')] + ([(1, m, 'busy')] if m == 'neoverse-v2' else []))
           for m in sorted(models)]
    out += [('hetero', [(0, 'neoverse-n3', 'busy'), (1, 'neoverse-n3', 'busy'),
                        (2, 'neoverse-v2', 'busy'), (3, 'neoverse-v2', 'busy')]),
            ('idle', [(0, 'neoverse-n3', 'busy'), (1, 'neoverse-n3', 'idle')]),
            ('allidle', [(0, 'neoverse-n3', 'idle')]),
            ('reset', [(0, 'neoverse-n3', 'reset')]),
            ('composed', [(0, 'neoverse-n3', 'busy')]),
            ('composed2', [(0, 'neoverse-n3', 'busy'), (1, 'neoverse-n3', 'busy')])]
    return out


def composed(inst, name):
    return name in COMPOSED.get(inst, ())


def scenario(models, attempt):
    series = []
    sums = {}		# sums[(instance, model)][event] = [count per minute, counted s per minute]
    lab = lambda **kw: '{' + ', '.join(f'{k}="{v}"' for k, v in kw.items()) + '}'
    for inst, cpus in hosts(models):
        rng = random.Random(f'{inst}/{attempt}')
        first = cpus[0][1]		# the system aggregate is the first core type's
        # every core type's slot count, as n3tel exports them
        for m in sorted({m for _, m, _ in cpus}):
            series.append((f'n3telemetry_slots{lab(instance=inst, job="node", model=m)}',
                           f'{models[m]["slots"]}+0x10'))
        # the system's values n3tel exports: composed="1", or exact
        for names, mark in ((COMPOSED.get(inst, ()), '1'), (EXACT.get(inst, ()), None)):
            for name in names:
                extra = {'composed': mark} if mark else {}
                values = (' '.join(['NaN'] * 11) if (inst, name) in NAN else '0.5+0x10')
                series.append((models[first]['metrics'][name][3] +
                               lab(instance=inst, job='node', model=first, **extra), values))
        for i, cpu, m, name in CPU_COMPOSED:
            if i == inst:
                series.append((models[m]['metrics'][name][3] +
                               lab(cpu=cpu, instance=inst, job='node', model=m, composed='1'),
                               '0.5+0x10'))
        mode = {m for _, _, m in cpus}
        per = {}			# event: [count/min, counted/min, before the window]
        for cpu, m, cmode in cpus:
            if m != first:
                continue
            for e in models[m]['events']:
                r = rng.randint(1000, 9999)		# per counted second
                c = rng.choice((20, 30, 60))		# counted seconds a minute
                acc = per.setdefault(e, [0, 0, 0, 0])
                if cmode == 'idle':			# counted earlier, not now
                    acc[2] += r * c * 7
                    acc[3] += c * 7
                else:
                    acc[0] += r * c
                    acc[1] += c
        for e, (cnt, sec, cnt0, sec0) in sorted(per.items()):
            l = lab(instance=inst, job='node', model=first)
            if 'reset' in mode:
                vals = (f'0+{cnt}x6 {cnt}+{cnt}x3', f'0+{sec}x6 {sec}+{sec}x3')
            else:
                vals = (f'{cnt0}+{cnt}x10', f'{sec0}+{sec}x10')
            name = e.lower()
            series.append((f'n3telemetry_event_{name}_total{l}', vals[0]))
            series.append((f'n3telemetry_event_{name}_counted_seconds_total{l}', vals[1]))
            if sec:
                sums.setdefault((inst, first), {})[e] = [cnt, sec]
        # the containers: their own rates, every event of their model
        ctrs = [(first, {'cgroup': f'/kubepods.slice/{inst}.scope',
                         'cgroup_id': str(100 + len(sums)), 'cpus': '0',
                         'pod_uid': f'pod-{inst}'} if len(inst) % 2 else
                 {'cgroup': f'/system.slice/{inst}.service', 'cgroup_id': str(200 + len(sums)),
                  'cpus': '0', 'unit': f'{inst}.service'}, True)]
        if inst == 'composed2':
            ctrs.append((first, {'cgroup': 'shared', 'cpus': '1'}, True))
        if inst == 'hetero':		# on the second core type: its own model
            ctrs.append((cpus[2][1], {'cgroup': '/v2.slice/job.service', 'cgroup_id': '300',
                                      'cpus': '2', 'unit': 'job.service'}, True))
        if inst == 'neoverse-n3':	# gone at 7m: no result at 10m
            ctrs.append((first, {'cgroup': '/gone.service', 'cgroup_id': '400', 'cpus': '0',
                                 'unit': 'gone.service'}, False))
        for m, cl, live in ctrs:
            key = (inst, m, tuple(sorted(cl.items())))
            l = lab(instance=inst, job='node', model=m, **cl)
            series.append((f'n3telemetry_cgroup_cpus{l}',
                           '1+0x10' if live else '1+0x7 stale'))
            # its values n3tel exports: composed="1" as its host's, or exact
            for names, mark in ((COMPOSED.get(inst, ()), '1'), (EXACT.get(inst, ()), None)):
                for name in names if m == first else ():
                    extra = {'composed': mark} if mark else {}
                    series.append((models[m]['metrics'][name][3].replace(
                        'n3telemetry_', 'n3telemetry_cgroup_', 1) +
                        lab(instance=inst, job='node', model=m, **cl, **extra), '0.5+0x10'))
            for e in models[m]['events']:
                r = rng.randint(1000, 9999)
                c = rng.choice((20, 30, 60))
                name = e.lower()
                if 'allidle' in inst:
                    vals = (f'{r * c}+0x10', f'{c}+0x10')
                elif 'reset' in mode:
                    vals = (f'0+{r * c}x6 {r * c}+{r * c}x3', f'0+{c}x6 {c}+{c}x3')
                elif not live:
                    vals = (f'{r * c * 3}+{r * c}x7 stale', f'{c * 3}+{c}x7 stale')
                else:
                    vals = (f'{r * c * 3}+{r * c}x10', f'{c * 3}+{c}x10')
                series.append((f'n3telemetry_cgroup_event_{name}_total{l}', vals[0]))
                series.append((f'n3telemetry_cgroup_event_{name}_counted_seconds_total{l}',
                               vals[1]))
                if 'allidle' not in inst and live:
                    sums.setdefault(key, {})[e] = [r * c, c]
    return series, sums


def expectations(models, sums):
    """{record: [(labels, value)]} for instance (instance:) and fleet (:);
    the fleet's per metric, its hosts apart by whether they compose it"""
    exp = {}

    def add(level, inst, m, mark, name, ev, cl=()):
        r, formula, scale, _ = models[m]['metrics'][name]
        rates = {e: Fraction(cnt, sec) for e, (cnt, sec) in ev.items()}
        v = rounded(oracle(formula)(rates) / scale)
        if v is None:
            return False
        labels = ''.join(f'{k}="{x}", ' for k, x in cl) + \
            ((f'instance="{inst}", ' if inst else '') + f'model="{m}"' +
             (', composed="1"' if mark else ''))
        exp.setdefault(level + r, []).append(('{' + labels + '}', v))
        return True

    for key, ev in sorted(sums.items()):
        inst, m = key[:2]
        level, cl = ('cgroup:', key[2]) if len(key) > 2 else ('instance:', ())
        for name in sorted(models[m]['metrics']):
            if not add(level, inst, m, composed(inst, name), name, ev, cl):
                return None
    hosts_sums = {k: v for k, v in sums.items() if len(k) == 2}
    for m in sorted({m for _, m in hosts_sums}):
        for name in sorted(models[m]['metrics']):
            fleet = {}
            for (inst, mi), ev in hosts_sums.items():
                if mi != m:
                    continue
                acc = fleet.setdefault(composed(inst, name), {})
                for e, (cnt, sec) in ev.items():
                    a = acc.setdefault(e, [0, 0])
                    a[0] += cnt
                    a[1] += sec
            for mark, ev in sorted(fleet.items()):
                if not add(':', None, m, mark, name, ev):
                    return None
    return exp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-o', dest='out')
    ap.add_argument('specs', nargs='+')
    a = ap.parse_args()
    models = {}
    for p in a.specs:
        m = load(p)
        models[m['name']] = m
    for attempt in range(100):
        series, sums = scenario(models, attempt)
        exp = expectations(models, sums)
        if exp is not None:
            break
    else:
        raise SystemExit('no inputs away from rounding ties')

    o = []
    w = o.append
    w('# SPDX-License-Identifier: GPL-2.0\n')
    w('# Generated by tools/prometheus/gen_rules_test.py; do not edit.\n')
    w('# promtool test rules n3telemetry.rules.models.test.yml\n#\n')
    w(generated.comment(__doc__.split('\n\n')[1:3]))
    w('rule_files:\n  - n3telemetry.rules.yml\nevaluation_interval: 1m\ntests:\n')
    w('  - interval: 1m\n    input_series:\n')
    for s, v in series:
        w(f"      - series: '{s}'\n        values: '{v}'\n")
    w('    promql_expr_test:\n')

    def test(expr, samples):
        w(f'      - expr: {expr}\n        eval_time: {EVAL}\n')
        if not samples:
            w('        exp_samples: []\n')
            return
        w('        exp_samples:\n')
        for labels, v in samples:
            w(f"          - labels: '{labels}'\n            value: {v}\n")

    # no NaN from idle CPUs, no series for a host that counted nothing
    for s in ('instance_model_event:n3telemetry_events_per_counted_second:rate5m',
              'instance_model:n3telemetry_slots_per_counted_second:rate5m'):
        test(f'{s} != {s}', [])
        test(f'{s}{{instance="allidle"}}', [])
    test('instance:n3telemetry_frontend_bound:ratio{model="neoverse-n1"}', [])
    for s in ('cgroup_event:n3telemetry_events_per_counted_second:rate5m',
              'cgroup:n3telemetry_slots_per_counted_second:rate5m'):
        test(f'{s} != {s}', [])
        test(f'{s}{{instance="allidle"}}', [])
    test('cgroup:n3telemetry_frontend_bound:ratio{model="neoverse-n1"}', [])
    # the hosts' markers: composed="1" exactly where the system's value is
    marks = []
    for inst, names in sorted(COMPOSED.items()):
        for name in names:
            r = models['neoverse-n3']['metrics'][name][0]
            marks.append((f'{{__name__="instance_model_metric:n3telemetry_composed:group", '
                          f'composed="1", instance="{inst}", metric="{r}", '
                          f'model="neoverse-n3"}}', 1))
    test('instance_model_metric:n3telemetry_composed:group{composed="1"}', sorted(marks))
    for r in sorted(exp, key=lambda r: (r.startswith(':'), r.startswith('cgroup:'), r)):
        test(f'round({r}, 0.000001)', sorted(exp[r]))
    generated.output(a.out, ''.join(o))


if __name__ == '__main__':
    main()
