#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Questions e2e.sh asks the Prometheus that scrapes the test VM.

usage: e2e_check.py URL COMMAND ...
  wait EXPR OP VALUE SECONDS   until the query's first sample OP VALUE
                               (OP: eq ge gt); exit 1 on time-out
  value EXPR                   print the query's samples, one a line
  exact SPEC VECTOR EVENTS     every instance: and fleet : rule of the
                               description's metrics whose events are all in
                               EVENTS (a file, names separated by blanks)
                               against Arm's formula on VECTOR (NAME=count
                               ...) with exact rationals; no other n3telemetry
                               rule may have a value
  rules SPEC                   every rule of the description has a finite value
  dashboard JSON               every panel has a unit, and every query of every
                               panel (variables: every instance and model,
                               topn 10) parses and returns a finite value
Prints "ok NAME" / "not ok NAME" lines (and why, after '#')."""
import json
import math
import os
import re
import sys
import time
import urllib.parse
import urllib.request
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../tools/prometheus'))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../tools/models'))
from formulas import oracle  # noqa: E402  (the one formula parser's exact oracle)
from gen_rules import load, record_name  # noqa: E402

# Relative tolerance of the exact comparison.  The scripted counts are exact
# integers and Prometheus computes in float64 (~1e-16 per operation), but
# each event's counted time is its own perf time_running: the module enables
# and reads a set's events one after another, so their times differ by the
# microseconds between those calls (tens of microseconds under QEMU's TCG)
# out of the tens of seconds counted, which the rules' per-counted-second
# rates carry into every ratio.  1e-4 bounds that with margin; an error in a
# formula, a slot count or an event moves a value by far more.
TOL = 1e-4


def query(url, expr):
    q = urllib.parse.urlencode({'query': expr})
    with urllib.request.urlopen(f'{url}/api/v1/query?{q}', timeout=30) as r:
        d = json.load(r)
    if d.get('status') != 'success':
        raise ValueError(d.get('error', 'query failed'))
    res = d['data']['result']
    if d['data']['resultType'] == 'scalar':
        return [({}, float(res[1]))]
    return [(s['metric'], float(s['value'][1])) for s in res]


def query_err(url, expr):
    """The query's samples, or the error Prometheus gave (a parse error
    comes back as HTTP 400)."""
    try:
        return query(url, expr), None
    except urllib.error.HTTPError as e:
        try:
            return None, json.load(e).get('error', str(e))
        except ValueError:
            return None, str(e)
    except ValueError as e:
        return None, str(e)


def result(name, ok, why=''):
    print(f'{"ok" if ok else "not ok"} {name}')
    if why:
        for line in why.rstrip().split('\n'):
            print(f'# {line}')
    return ok


def cmd_wait(url, expr, op, value, secs):
    end = time.time() + float(secs)
    want = float(value)
    ops = {'eq': lambda a: a == want, 'ge': lambda a: a >= want, 'gt': lambda a: a > want}
    last = None
    while time.time() < end:
        try:
            s = query(url, expr)
            last = s
            if s and ops[op](s[0][1]):
                return 0
        except (OSError, ValueError):
            pass
        time.sleep(2)
    print(f'# wait: {expr} {op} {value}: last {last}', file=sys.stderr)
    return 1


def metrics_of(spec):
    model, slots, metrics = load(spec)
    raw = json.load(open(spec))['metrics']
    return model, slots, metrics, raw


def expected(raw, name, counts):
    m = raw[name]
    v = oracle(m['formula'])(counts)
    if v is None:
        return None
    return v / 100 if m['units'].startswith('percent') else v


def cmd_exact(url, spec, vector, events_file):
    model, slots, metrics, raw = metrics_of(spec)
    counts = {k: Fraction(int(v)) for k, v in
              (kv.split('=') for kv in open(vector).read().split())}
    counted = set(open(events_file).read().split())
    ok = True
    want_present = set()
    for name, (rec, _) in sorted(metrics.items()):
        if not set(raw[name]['events']) <= counted:
            continue
        want = expected(raw, name, counts)
        for prefix in ('instance:', ':'):
            series = prefix + rec
            want_present.add(series)
            got = query(url, f'{series}{{model="{model}"}}')
            if len(got) != 1 or want is None:
                ok = result(f'exact/{series}', False,
                            f'{len(got)} samples, expected {float(want or 0)!r}')
                continue
            g = got[0][1]
            w = float(want)
            err = abs(g - w) / abs(w) if w else abs(g)
            if not (math.isfinite(g) and err <= TOL):
                ok = result(f'exact/{series}', False, f'got {g!r}, want {w!r} (rel {err:.2e})')
            else:
                print(f'#   {series} = {g!r} (want {w!r}, rel {err:.1e})')
    # nothing else: a rule of an event that is not counted has no value
    names = {s[0]['__name__'] for s in
             query(url, '{__name__=~"instance:n3telemetry_.+|:n3telemetry_.+"}')}
    extra = names - want_present
    missing = want_present - names
    result('exact/only-the-counted-metrics-have-values', not extra and not missing,
           f'extra: {sorted(extra)}\nmissing: {sorted(missing)}' if extra or missing else '')
    return result(f'exact/{len(want_present)}-rules-equal-the-formulas', ok)


def cmd_rules(url, spec):
    model, slots, metrics, raw = metrics_of(spec)
    ok = True
    n = 0
    series = ['instance_model:n3telemetry_slots_per_counted_second:rate5m',
              'model:n3telemetry_slots_per_counted_second:rate5m']
    for name, (rec, _) in sorted(metrics.items()):
        series += ['instance:' + rec, ':' + rec]
    for s in series:
        got = query(url, f'{s}{{model="{model}"}}')
        n += 1
        if len(got) != 1 or not math.isfinite(got[0][1]):
            ok = result(f'rules/{s}', False, f'{got}')
    for s in ('instance_model_event:n3telemetry_events_per_counted_second:rate5m',
              'model_event:n3telemetry_events_per_counted_second:rate5m'):
        got = {g[0].get('event') for g in query(url, f'{s}{{model="{model}"}}')
               if math.isfinite(g[1])}
        want = {e for m in raw.values() for e in m['events']}
        n += 1
        if got != want:
            ok = result(f'rules/{s}', False, f'missing events: {sorted(want - got)}')
    return result(f'rules/every-rule-of-{model}-has-a-value ({n} series)', ok)


def panel_exprs(dash):
    for p in dash['panels']:
        for sub in [p] + p.get('panels', []):
            if sub.get('type') == 'row':
                continue
            yield sub, [t['expr'] for t in sub.get('targets', [])]


def cmd_dashboard(url, path):
    dash = json.load(open(path))
    subst = {'$instance': '.*', '$model': '.*', '$topn': '10'}
    ok = True
    npanels = nq = 0
    for p, exprs in panel_exprs(dash):
        npanels += 1
        title = p.get('title', '?')
        if not p.get('fieldConfig', {}).get('defaults', {}).get('unit'):
            ok = result(f'dashboard/unit: {title}', False, 'no unit')
        if not exprs:
            ok = result(f'dashboard/query: {title}', False, 'no query')
        for e in exprs:
            nq += 1
            q = re.sub(r'\$\w+', lambda m: subst.get(m.group(0), m.group(0)), e)
            got, err = query_err(url, q)
            # a per-CPU gauge is one interval's value, nan where a slice of
            # that interval counted nothing (the guest's injection loop
            # starved by a busy host): asked again until the next files,
            # it must turn finite; a query with no series is not retried
            end = time.time() + 45
            while (not err and got and not all(math.isfinite(v) for _, v in got)
                   and time.time() < end):
                time.sleep(3)
                got, err = query_err(url, q)
            if err:
                ok = result(f'dashboard/query: {title}', False, f'{q}\n{err}')
            elif not got or not all(math.isfinite(v) for _, v in got):
                ok = result(f'dashboard/query: {title}', False, f'{q}\nreturned {got[:4]}')
    return result(f'dashboard/{npanels}-panels-{nq}-queries-answer-with-units', ok)


def main():
    url, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if cmd == 'wait':
        return cmd_wait(url, *args)
    if cmd == 'value':
        for m, v in query(url, args[0]):
            print(v)
        return 0
    fn = {'exact': cmd_exact, 'rules': cmd_rules, 'dashboard': cmd_dashboard}[cmd]
    return 0 if fn(url, *args) else 1


if __name__ == '__main__':
    sys.exit(main())
