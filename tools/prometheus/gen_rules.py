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

Composed metrics are kept apart from exact ones.  On a PMU too small for a
metric's events together the module composes it (each event counted apart)
and n3tel exports its value with composed="1".  Per host and metric,
instance_model_metric:n3telemetry_composed:group (metric: the record name)
is 1 for every host with counts, with composed="1" where the host's system
value of that metric carries it.  The host's result takes that label
(exact ones have none, as before), and the fleet sums its hosts' rates by
(model, event, composed) for each metric
(model_metric_event:n3telemetry_events_per_counted_second:rate5m and
model_metric:n3telemetry_slots_per_counted_second:rate5m, metric: the
record name), so each fleet metric is one series over its exact hosts and,
if any, one with composed="1" over the hosts that compose it; they are
never summed together.

Containers: n3tel textfile/export --by-cgroup adds per container (a cgroup
whose CPUs no other has) and pool the same two cumulative series per event,
n3telemetry_cgroup_event_*, summed over its CPUs by the module, with the
labels cgroup, cgroup_id, cpus and, when its path has them, pod_uid,
container_id or unit.  The cgroup level computes every metric from them
as the instance level does from the host's (cgroup:n3telemetry_..., one
series per container, its host's slot count); a container's result takes
composed="1" where its own value series has it
(cgroup_metric:n3telemetry_composed:group, as the host's marker).  A
container whose cpuset changes is a new series (its cpus label), never a
counter reset; a container's rates are kept only while its
n3telemetry_cgroup_cpus is exported, so one gone, or its old cpuset, leaves
no result behind for the window's 5 minutes.

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
# composed: per (instance, model) and record, 1, with composed="1" where the
# host exports that metric composed; the fleet's rates per record, split by it
COMPOSED = 'composed'
COMPOSED_MARK = 'instance_model_metric:n3telemetry_composed:group'
FLEET_SPLIT_RATE = f'model_metric_event:n3telemetry_events_per_counted_second:rate{WINDOW}'
FLEET_SPLIT_SLOT_RATE = f'model_metric:n3telemetry_slots_per_counted_second:rate{WINDOW}'
# containers (n3tel --by-cgroup): per container or pool, the same two
# cumulative series per event, summed over its CPUs; a container is the
# labels below (its cpus label: a sum over other CPUs is another series)
CG_LABELS = 'instance, model, cgroup, cgroup_id, cpus, pod_uid, container_id, unit'
CG_COUNT = f'cgroup_event:n3telemetry_event_count:rate{WINDOW}'
CG_COUNTED = f'cgroup_event:n3telemetry_event_counted_seconds:rate{WINDOW}'
CG_RATE = f'cgroup_event:n3telemetry_events_per_counted_second:rate{WINDOW}'
CG_SLOT_RATE = f'cgroup:n3telemetry_slots_per_counted_second:rate{WINDOW}'
CG_LIVE = 'n3telemetry_cgroup_cpus'	# exported while the container is there
CG_MARK = 'cgroup_metric:n3telemetry_composed:group'
CYCLES = formulas.CYCLES


def count_series(e):
    """The exporter's cumulative count of event e: one family per event."""
    return f'n3telemetry_event_{e.lower()}_total'


def counted_series(e):
    """The exporter's cumulative time event e was counted."""
    return f'n3telemetry_event_{e.lower()}_counted_seconds_total'


def cg_count_series(e):
    """A container's cumulative count of event e (n3tel --by-cgroup)."""
    return f'n3telemetry_cgroup_event_{e.lower()}_total'


def cg_counted_series(e):
    """A container's cumulative time event e was counted."""
    return f'n3telemetry_cgroup_event_{e.lower()}_counted_seconds_total'


def value_series(name, unit):
    """The exporter's family of a metric's value (n3tel's prom_name()):
    percentages as 0..1 ratios named ..._ratio."""
    if unit.startswith('percent'):
        if name.endswith('_percentage'):
            name = name[:-len('_percentage')]
        return f'n3telemetry_{name}_ratio'
    return f'n3telemetry_{name}'


def sel(models):
    if len(models) == 1:
        return f'model="{models[0]}"'
    return 'model=~"' + '|'.join(models) + '"'


class Level:
    """One aggregation level: the rate series its formulas read (the
    fleet's: its record's own, split by composed), the labels an operation
    between two of them ignores, and how a result is marked composed."""
    def __init__(self, name, prefix, rate, slot_rate, split, mark_on='instance, model',
                 marker=COMPOSED_MARK):
        self.name, self.prefix, self.rate, self.slot_rate = name, prefix, rate, slot_rate
        self.split = split		# the rates carry the record (metric) and composed
        self.ignoring = 'event, metric' if split else 'event'
        self.mark_on, self.marker = mark_on, marker

    def metric(self, rec):
        return f', metric="{rec}"' if self.split else ''

    def event(self, e, models, rec):
        return f'{self.rate}{{{sel(models)}{self.metric(rec)}, event="{e}"}}'

    def slots(self, models, rec):
        return f'{self.slot_rate}{{{sel(models)}{self.metric(rec)}}}'

    def mark(self, lines, rec):
        """The host's result takes composed="1" from its marker, a
        container's from its own; the fleet's rates have it already."""
        if self.split:
            return lines
        return ['('] + ['  ' + ln for ln in lines] + [
            ')',
            f'* on ({self.mark_on}) group_left ({COMPOSED})',
            f'  {self.marker}{{metric="{rec}"}}']


LEVELS = [Level('instance', 'instance:', INST_RATE, INST_SLOT_RATE, False),
          Level('fleet', ':', FLEET_SPLIT_RATE, FLEET_SPLIT_SLOT_RATE, True),
          Level('cgroup', 'cgroup:', CG_RATE, CG_SLOT_RATE, False, CG_LABELS, CG_MARK)]


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
    # containers: the same per container, the host's slot count
    for series, rec in ((cg_count_series, CG_COUNT), (cg_counted_series, CG_COUNTED)):
        for e in sorted(events):
            out.append((rec, f'sum by ({CG_LABELS}) (rate({series(e)}[{w}]))', {'event': e}))
    # only while the container is there: a rate() over the window would
    # keep one gone (or whose cpuset changed: a new series) for 5 minutes
    live = 'instance, model, cgroup, cgroup_id, cpus'
    out += [
        (CG_RATE, f'{CG_COUNT}\n/ ({CG_COUNTED} > 0)\nand on ({live}) {CG_LIVE}'),
        (CG_SLOT_RATE,
         f'sum without (event) ({CG_RATE}{{event="{CYCLES}"}})\n'
         f'* on (instance, model) group_left {INST_SLOTS}'),
    ]
    return out


def composed_rules(order):
    """Per record: the hosts' marker, from the exporter's value series
    with composed="1" (every host with counts has one, composed="1" or
    no such label); the fleet's rates of the record's events (and slots)
    summed by composed over the hosts, as the marker says.  order: the
    records, each with its variants (tree, models) and value series."""
    w = WINDOW
    out = []
    for rec, variants, values in order:
        models = sorted(m for _, ms in variants for m in ms)
        evs = sorted(set().union(*(formulas.events(tree) for tree, _ in variants)))
        slots = any(uses_slots(tree) for tree, _ in variants)
        label = {'metric': rec}
        src = ' or '.join(f'{v}{{{sel(models)}, cpu="", {COMPOSED}="1"}}' for v in values)
        out.append((COMPOSED_MARK,
                    f'group by (instance, model, {COMPOSED}) ({src})\n'
                    f'or on (instance, model)\n'
                    f'group by (instance, model) ({INST_COUNTED}{{{sel(models)}}})', label))
        # a container's, from its own value series (n3telemetry_cgroup_...)
        src = ' or '.join(f'{v.replace("n3telemetry_", "n3telemetry_cgroup_", 1)}'
                          f'{{{sel(models)}, {COMPOSED}="1"}}' for v in values)
        out.append((CG_MARK,
                    f'group by ({CG_LABELS}, {COMPOSED}) ({src})\n'
                    f'or on ({CG_LABELS})\n'
                    f'group by ({CG_LABELS}) ({CG_COUNTED}{{{sel(models)}}})', label))

        def split(series, matchers, by):
            return (f'sum by ({by}) (\n'
                    f'  {series}{{{matchers}}}\n'
                    f'  * on (instance, model) group_left ({COMPOSED})\n'
                    f'    {COMPOSED_MARK}{{metric="{rec}"}}\n'
                    f')')

        evsel = (f'event="{evs[0]}"' if len(evs) == 1 else
                 'event=~"' + '|'.join(evs) + '"')
        by = f'model, event, {COMPOSED}'
        out.append((FLEET_SPLIT_RATE,
                    split(INST_COUNT, f'{sel(models)}, {evsel}', by) + '\n/ (\n' +
                    indent(split(INST_COUNTED, f'{sel(models)}, {evsel}', by)) +
                    ' > 0\n)', label))
        if slots:
            by = f'model, {COMPOSED}'
            out.append((FLEET_SPLIT_SLOT_RATE,
                        split(INST_SLOT_COUNT, sel(models), by) + '\n/ (\n' +
                        indent(split(INST_COUNTED, f'{sel(models)}, event="{CYCLES}"', by)) +
                        ' > 0\n)', label))
    return out


def indent(text):
    return '\n'.join('  ' + ln for ln in text.split('\n'))


def uses_slots(t):
    if t[0] == 's':
        return True
    return t[0] in PREC and (uses_slots(t[1]) or uses_slots(t[2]))


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


def promql(t, level, models, rec):
    """PromQL text; every binary operation between two vectors ignores the
    event label (the operands are one event's rate each; the fleet's, the
    record's metric label too, and match on composed)."""
    def vec(t):
        return t[0] in 'es' or (t[0] in PREC and (vec(t[1]) or vec(t[2])))

    def go(t, parent, right):
        if t[0] == 'n':
            return str(t[1])
        if t[0] == 'e':
            return level.event(t[1], models, rec)
        if t[0] == 's':
            return level.slots(models, rec)
        op, a, b = t
        mod = f' ignoring ({level.ignoring})' if vec(a) and vec(b) else ''
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


def load(path, values=None):
    """(model, slots, {metric: (record name, tree)}); with a dict values,
    also {metric: the exporter's value family} into it."""
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
                if values is not None:
                    values[name] = value_series(name, m['units'])
            except (ValueError, ZeroDivisionError) as e:
                raise SystemExit(f'{path}: {name}: {m["formula"]!r}: {e}')
    except (OSError, ValueError) as e:
        raise SystemExit(f'{path}: {e}')
    except (KeyError, TypeError) as e:
        raise SystemExit(f'{path}: missing or malformed {e}')
    return model, slots, metrics


def generate(paths):
    families = {}		# (model, metric): the exporter's value family
    models = []
    for p in paths:
        values = {}
        models.append(load(p, values))
        families.update({(models[-1][0], name): v for name, v in values.items()})
    models.sort(key=lambda x: x[0])
    names = {}
    for model, _, metrics in models:
        for name, (rec, _) in metrics.items():
            if names.setdefault(rec, name) != name:
                raise SystemExit(f'{model}: {name} and {names[rec]} both record {rec}')
    # one rule per record name; models whose translation is the same share a
    # variant (model=~"a|b"); variants are joined with "or" (their models are
    # disjoint, and promtool refuses two rules recording the same series)
    rules, values = {}, {}
    for model, _, metrics in models:
        for name, (rec, tree) in metrics.items():
            variants = rules.setdefault(rec, {})
            variants.setdefault(repr(tree), (tree, []))[1].append(model)
            values.setdefault(rec, set()).add(families[model, name])
    order = [(rec, sorted(rules[rec].values(), key=lambda v: v[1])) for rec in
             sorted(rules, key=lambda r: names[r])]

    out = []
    w = out.append
    w('# SPDX-License-Identifier: GPL-2.0\n')
    w('# Generated by tools/prometheus/gen_rules.py from Arm\'s Neoverse telemetry\n')
    w('# descriptions (' + ', '.join(f'{m} {s} slots' for m, s, _ in models) + ').\n')
    w('# Do not edit: change the generator and regenerate.\n#\n')
    w(generated.comment(__doc__.split('\n\n')[1:6]))
    w('groups:\n')
    w('  - name: n3telemetry_rates\n    rules:\n')
    used = set()
    for _, _, metrics in models:
        for _, tree in metrics.values():
            used |= formulas.events(tree)
    composed = composed_rules([(rec, variants, sorted(values[rec])) for rec, variants in order])
    for rule in rates_group(used) + composed:
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
            lines = []
            for k, (tree, ms) in enumerate(variants):
                v = layout(promql(tree, level, ms, rec))
                if len(variants) > 1:
                    v = [('or ' if k else '') + '('] + ['  ' + l for l in v] + [')']
                lines += v
            for l in level.mark(lines, rec):
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
                  f'{len(metrics)} fleet + {len(metrics)} container rules', file=sys.stderr)
        print(f'{len(order)} rules per level, '
              f'{sum(len(v) for _, v in order)} formula variants', file=sys.stderr)
    generated.output(a.out, text)


if __name__ == '__main__':
    main()
