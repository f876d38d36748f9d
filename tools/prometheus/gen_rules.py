#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the Prometheus recording rules from Arm's telemetry descriptions.

usage: gen_rules.py [-o OUT.yml] DESC.json [DESC.json ...]
(writes to standard output without -o)

Every metric of every description becomes one recording rule per instance
and one per fleet, selected by the model label (the description's file name,
as n3tel exports it), so each core is computed with its own formula.  Models
whose formulas translate to the same PromQL share a rule (model=~"a|b").
Inputs are the host's system aggregate as n3tel exports it by default (the
series without a cpu label): one cumulative count and one cumulative counted
time per event, summed over the host's CPUs by the module, offline CPUs
included, so they never go backwards.  Per instance and event, the count's
rate divided by the counted time's rate is the event's rate per counted
second (this undoes multiplexing; an idle CPU adds nothing to either, so it
cannot make a NaN).  The fleet divides the sums of both rates over its
hosts.  Arm's slot literal multiplying CPU_CYCLES becomes the host's
n3telemetry_slots for that model, applied per instance before any fleet sum
(slots x cycles is recorded as its own rate), so a host whose PMU reports
another slot count is still right.

Record names: percent units become 0..1 ratios named ...:ratio, so do the
"per access" metrics whose name ends in _ratio; others keep their name
(instance:n3telemetry_ipc, :n3telemetry_branch_mpki).

Formulas are parsed by tools/models/formulas.py, the parser the table
generator uses too.  The translation is checked here before anything is
written: each rule's expression tree is evaluated with exact rationals
against Python's own evaluation of Arm's formula string (formulas.oracle()).
Python 3 standard library only."""
import argparse
import json
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'models'))
import formulas  # noqa: E402  (the parser gen_models.py uses too)
import generated  # noqa: E402

# --- the series layout: everything that names a series or a label ------------
# (a change of the exporter's layout should only touch this block)
WINDOW = '5m'
SYSTEM = 'cpu=""'	# the host's system aggregate: the series without a cpu label
SLOTS = 'n3telemetry_slots'
INST_COUNT = f'instance_model_event:n3telemetry_event_count:rate{WINDOW}'
INST_COUNTED = f'instance_model_event:n3telemetry_event_counted_seconds:rate{WINDOW}'
INST_RATE = f'instance_model_event:n3telemetry_events_per_counted_second:rate{WINDOW}'
FLEET_RATE = f'model_event:n3telemetry_events_per_counted_second:rate{WINDOW}'
INST_SLOTS = 'instance_model:n3telemetry_slots:max'
INST_SLOT_COUNT = f'instance_model:n3telemetry_slots_count:rate{WINDOW}'
INST_SLOT_RATE = f'instance_model:n3telemetry_slots_per_counted_second:rate{WINDOW}'
FLEET_SLOT_RATE = f'model:n3telemetry_slots_per_counted_second:rate{WINDOW}'
CYCLES = formulas.CYCLES


def count_series(e):
    """The exporter's cumulative count of event e: one family per event."""
    return f'n3telemetry_event_{e.lower()}_total'


def counted_series(e):
    """The exporter's cumulative time event e was counted."""
    return f'n3telemetry_event_{e.lower()}_counted_seconds_total'


class Level:
    """One aggregation level: the rate series its formulas read."""
    def __init__(self, name, prefix, rate, slot_rate):
        self.name, self.prefix, self.rate, self.slot_rate = name, prefix, rate, slot_rate

    @staticmethod
    def sel(models):
        if len(models) == 1:
            return f'model="{models[0]}"'
        return 'model=~"' + '|'.join(models) + '"'

    def event(self, e, models):
        return f'{self.rate}{{{self.sel(models)}, event="{e}"}}'

    def slots(self, models):
        return f'{self.slot_rate}{{{self.sel(models)}}}'


LEVELS = [Level('instance', 'instance:', INST_RATE, INST_SLOT_RATE),
          Level('fleet', ':', FLEET_RATE, FLEET_SLOT_RATE)]


def rates_group(events):
    """Per (instance, model, event) count and counted-time rates of the
    host's system aggregate (one rule per event, which adds the event
    label as a rule label), their quotient, and per (model, event) for the fleet; slots."""
    w = WINDOW
    out = []
    for series, rec in ((count_series, INST_COUNT), (counted_series, INST_COUNTED)):
        for e in sorted(events):
            out.append((rec,
                        f'sum by (instance, model) (rate({series(e)}{{{SYSTEM}}}[{w}]))',
                        {'event': e}))
    out += [
        (INST_RATE, f'{INST_COUNT}\n/ ({INST_COUNTED} > 0)'),
        (INST_SLOTS, f'max by (instance, model) ({SLOTS})'),
        # slots x cycles: the host's slot count, before any fleet sum
        (INST_SLOT_COUNT,
         f'{INST_SLOTS} * on (instance, model)\n'
         f'sum by (instance, model) ({INST_COUNT}{{event="{CYCLES}"}})'),
        (INST_SLOT_RATE,
         f'{INST_SLOT_COUNT}\n'
         f'/ on (instance, model) (sum by (instance, model) ({INST_COUNTED}{{event="{CYCLES}"}}) > 0)'),
        (FLEET_RATE,
         f'sum by (model, event) ({INST_COUNT})\n'
         f'/ (sum by (model, event) ({INST_COUNTED}) > 0)'),
        (FLEET_SLOT_RATE,
         f'sum by (model) ({INST_SLOT_COUNT})\n'
         f'/ (sum by (model) ({INST_COUNTED}{{event="{CYCLES}"}}) > 0)'),
    ]
    return out


# --- translation -------------------------------------------------------------------
# (formulas.parse() makes the trees: see tools/models/formulas.py)

def unscale(t, k):
    """t / k: the literal k taken out where it is a factor (x * 100, 100 * x,
    sums of such, numerators), else t / k."""
    def take(t):
        if t[0] in '+-':
            a, b = take(t[1]), take(t[2])
            return a and b and (t[0], a, b)
        if t[0] == '*':
            if t[2] == ('n', k):
                return t[1]
            if t[1] == ('n', k):
                return t[2]
            a = take(t[1])
            if a:
                return ('*', a, t[2])
            b = take(t[2])
            return b and ('*', t[1], b)
        if t[0] == '/':
            a = take(t[1])
            return a and ('/', a, t[2])
        return None

    return take(t) or ('/', t, ('n', k))


PREC = {op: i + 1 for i, ops in enumerate(formulas.PRECEDENCE) for op in ops}


def promql(t, level, models):
    """PromQL text; every binary operation between two vectors ignores the
    event label (the operands are one event's rate each)."""
    def vec(t):
        return t[0] in 'es' or (t[0] in PREC and (vec(t[1]) or vec(t[2])))

    def go(t, parent, right):
        if t[0] == 'n':
            return str(t[1])
        if t[0] == 'e':
            return level.event(t[1], models)
        if t[0] == 's':
            return level.slots(models)
        op, a, b = t
        mod = ' ignoring (event)' if vec(a) and vec(b) else ''
        s = f'{go(a, op, False)} {op}{mod} {go(b, op, True)}'
        if parent and (PREC[parent] > PREC[op] or right and PREC[parent] == PREC[op]
                       and not (parent == op and op in '+*')):
            s = f'({s})'
        return s

    return go(t, None, False)


def split_top(s, ops):
    """Split s before each of ops (' + ', ...) outside brackets and quotes."""
    out, depth, start, i, quote = [], 0, 0, 0, False
    while i < len(s):
        c = s[i]
        if c == '"':
            quote = not quote
        elif not quote:
            depth += 1 if c in '({[' else -1 if c in ')}]' else 0
            if depth == 0 and i > start and s.startswith(ops, i):
                out.append(s[start:i])
                start = i + 1
        i += 1
    out.append(s[start:])
    return out


def layout(s):
    """One operand a line: terms of the top-level sum, then their factors."""
    lines = []
    for i, term in enumerate(split_top(s, (' + ', ' - '))):
        for j, f in enumerate(split_top(term, (' * ', ' / '))):
            lines.append(('  ' if i else '') + ('  ' if j else '') + f)
    return lines


# --- descriptions ------------------------------------------------------------------

def record_name(name, unit):
    """Today's names: percent units and *_ratio metrics become :ratio."""
    if unit.startswith('percent'):
        if name.endswith('_percentage'):
            name = name[:-len('_percentage')]
        return f'n3telemetry_{name}:ratio'
    if name.endswith('_ratio'):
        return f'n3telemetry_{name[:-len("_ratio")]}:ratio'
    return f'n3telemetry_{name}'


def translate(model, slots, name, m):
    """The metric's tree over event rates and the slots rate, as a ratio
    for percent units; checked against the formula string."""
    formula, unit = m['formula'], m['units']
    tree = formulas.parse(formula, slots)
    percent = unit.startswith('percent')
    if percent:
        tree = unscale(tree, 100)
    evs = sorted(formulas.events(tree))
    if set(evs) != set(m.get('events', evs)):
        raise ValueError(f'events {evs} differ from the listed {sorted(m["events"])}')
    rng = random.Random(f'{model}/{name}')
    python_value = formulas.oracle(formula)
    checked = 0
    for _ in range(20):
        env = {e: Fraction(rng.randint(1, 10**6)) for e in evs}
        env[''] = slots * env.get(CYCLES, 0)
        want = python_value(env)
        if want is None:
            continue
        want /= 100 if percent else 1
        if formulas.evaluate(tree, env) != want:
            raise ValueError('translation disagrees with the formula')
        checked += 1
    if not checked:
        raise ValueError('division by zero for every input')
    return tree


def load(path):
    try:
        with open(path) as f:
            spec = json.load(f)
        model = os.path.basename(path)[:-len('.json')]
        slots = int(spec['product_configuration']['num_slots'])
        descs = spec['metrics']
        metrics = {}
        for name in sorted(descs):
            m = descs[name]
            try:
                metrics[name] = (record_name(name, m['units']), translate(model, slots, name, m))
            except (ValueError, ZeroDivisionError) as e:
                raise SystemExit(f'{path}: {name}: {m["formula"]!r}: {e}')
    except (OSError, ValueError) as e:
        raise SystemExit(f'{path}: {e}')
    except (KeyError, TypeError) as e:
        raise SystemExit(f'{path}: missing or malformed {e}')
    return model, slots, metrics


def generate(paths):
    models = sorted((load(p) for p in paths), key=lambda x: x[0])
    names = {}
    for model, _, metrics in models:
        for name, (rec, _) in metrics.items():
            if names.setdefault(rec, name) != name:
                raise SystemExit(f'{model}: {name} and {names[rec]} both record {rec}')
    # one rule per record name; models whose translation is the same share a
    # variant (model=~"a|b"); variants are joined with "or" (their models are
    # disjoint, and promtool refuses two rules recording the same series)
    rules = {}
    for model, _, metrics in models:
        for name, (rec, tree) in metrics.items():
            variants = rules.setdefault(rec, {})
            variants.setdefault(repr(tree), (tree, []))[1].append(model)
    order = [(rec, sorted(rules[rec].values(), key=lambda v: v[1])) for rec in
             sorted(rules, key=lambda r: names[r])]

    out = []
    w = out.append
    w('# SPDX-License-Identifier: GPL-2.0\n')
    w('# Generated by tools/prometheus/gen_rules.py from Arm\'s Neoverse telemetry\n')
    w('# descriptions (' + ', '.join(f'{m} {s} slots' for m, s, _ in models) + ').\n')
    w('# Do not edit: change the generator and regenerate.\n#\n')
    w(generated.comment(__doc__.split('\n\n')[1:4]))
    w('groups:\n')
    w('  - name: n3telemetry_rates\n    rules:\n')
    used = set()
    for _, _, metrics in models:
        for _, tree in metrics.values():
            used |= formulas.events(tree)
    for rule in rates_group(used):
        rec, expr = rule[:2]
        w(f'      - record: {rec}\n        expr: |\n')
        for l in expr.split('\n'):
            w(f'          {l}\n')
        for k, v in (rule[2] if len(rule) > 2 else {}).items():
            w(f'        labels:\n          {k}: {v}\n')
    for level in LEVELS:
        w(f'  - name: n3telemetry_{level.name}\n    rules:\n')
        for rec, variants in order:
            w(f'      - record: {level.prefix}{rec}\n        expr: |\n')
            for k, (tree, ms) in enumerate(variants):
                lines = layout(promql(tree, level, ms))
                if len(variants) > 1:
                    lines = [('or ' if k else '') + '('] + ['  ' + l for l in lines] + [')']
                for l in lines:
                    w(f'          {l}\n')
    return ''.join(out), models, order


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-o', dest='out')
    ap.add_argument('--summary', action='store_true',
                    help='print the number of rules per model to stderr')
    ap.add_argument('specs', nargs='+')
    a = ap.parse_args()
    text, models, order = generate(a.specs)
    if a.summary:
        for model, _, metrics in models:
            print(f'{model}: {len(metrics)} metrics, {len(metrics)} instance + '
                  f'{len(metrics)} fleet rules', file=sys.stderr)
        print(f'{len(order)} rules per level, '
              f'{sum(len(v) for _, v in order)} formula variants', file=sys.stderr)
    generated.output(a.out, text)


if __name__ == '__main__':
    main()
