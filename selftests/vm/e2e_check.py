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
                               against Arm's formula, with exact rationals,
                               on the rates it took, and those rates against
                               VECTOR (NAME=count ...); no other n3telemetry
                               rule may have a value
  rules SPEC                   every rule of the description has a finite value
  cgroup SPEC VECTOR SELECTOR  the level-1 metrics of the container the
                               selector names (n3telemetry_cgroup_* families)
                               against Arm's formula on VECTOR, exact to the
                               module's fixed point (1e-6 of the unit)
  dashboard JSON [--row|--skip-row TITLE]
                               every panel has a unit, and every query of every
                               panel (variables: every instance and model,
                               topn 10) parses and returns a finite value
Prints "ok NAME" / "not ok NAME" lines (and why, after '#').  With
E2E_CHECK_AT=UNIXTIME every query is asked at that time (a saved run's TSDB
replayed by a Prometheus of its own)."""
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
from gen_rules import value_series as value_series_of  # noqa: E402

# The rules divide each event's count by its own counted time, and the
# module adds to that time each counter's perf time_running between two of
# its reads: the members of a set are read one after another, so their
# times differ by the microseconds between those reads (more when the host
# preempts the TCG vCPU mid-read: 1.4e-5 of the counted time seen here, ten
# times that on a busier host).  A formula that subtracts close values
# (ll_cache_read_hit = 1 - a miss ratio of 0.94) magnifies that fifteenfold,
# so a rule is not compared with the formula on the vector directly.
# Instead: each event's count is exactly whole injections of the vector
# (exact), so are the rates of the counts (to within FLOAT_TOL), every
# event's count per counted second is the vector's value times one common
# rate to within TIME_TOL, and each rule equals Arm's formula evaluated
# (exact rationals) on the very per-event rates it takes, to within
# FLOAT_TOL (Prometheus computes in float64, ~1e-16 an operation;
# a wrong formula, slot count or event moves a value by far more).  The
# counts being exact, TIME_TOL bounds the counted times alone: a host that
# preempts the vCPU for a second mid-read stays within it, an event given
# another set's time, or its time twice, does not.
TIME_TOL = 1e-2
FLOAT_TOL = 1e-12


# the time every query is asked at (None: now); exact pins it
AT = os.environ.get('E2E_CHECK_AT') or None


def query(url, expr, at=None):
    args = {'query': expr}
    if at is not None or AT is not None:
        args['time'] = at if at is not None else AT
    q = urllib.parse.urlencode(args)
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


def event_totals(url, model):
    """Each event's cumulative count in system/ (cpu=""), by event name."""
    out = {}
    for m, v in query(url, '{__name__=~"n3telemetry_event_.+_total", cpu="", model="%s"}' % model):
        name = m['__name__']
        if not name.endswith('_counted_seconds_total'):
            out[name[len('n3telemetry_event_'):-len('_total')].upper()] = v
    return out


def event_rates(url, rule, model, at=None):
    return {m['event']: v for m, v in query(url, f'{rule}{{model="{model}"}}', at)}


def cmd_exact(url, spec, vector, events_file):
    global AT
    # every answer of one moment: a rule's value and its time, and the
    # rates and counts alike (the groups evaluate every 5 s meanwhile)
    if AT is None:
        AT = f'{time.time():.3f}'
    model, slots, metrics, raw = metrics_of(spec)
    counts = {k: Fraction(int(v)) for k, v in
              (kv.split('=') for kv in open(vector).read().split())}
    counted = set(open(events_file).read().split())
    ok = True

    # the inputs: whole injections of the vector, every event alike
    totals = event_totals(url, model)
    n = Fraction(totals.get('CPU_CYCLES', 0)) / counts['CPU_CYCLES']
    bad = [f'{e}: {totals.get(e)!r}, want {float(n * counts[e])!r}' for e in sorted(counted)
           if e not in totals or Fraction(totals[e]) != n * counts[e]]
    ok &= result('exact/counts-are-the-same-whole-injections-of-every-event',
                 n > 0 and n.denominator == 1 and not bad,
                 f'{n} injections of CPU_CYCLES\n' + '\n'.join(bad))
    # their rates: the same for every event (a label the rules swap shows)
    cr = event_rates(url, 'instance_model_event:n3telemetry_event_count:rate5m', model)
    per = {e: cr[e] / float(counts[e]) for e in counted if e in cr}
    lo, hi = min(per.values(), default=0), max(per.values(), default=0)
    ok &= result('exact/every-event-count-rate-is-the-vector-times-one-rate',
                 len(per) == len(counted) and lo > 0 and (hi - lo) / lo <= FLOAT_TOL,
                 f'{len(per)} of {len(counted)} events; spread {(hi - lo) / (lo or 1):.2e}')
    rules = {'instance:': 'instance_model_event:n3telemetry_events_per_counted_second:rate5m',
             ':': 'model_event:n3telemetry_events_per_counted_second:rate5m'}
    for prefix, rule in rules.items():
        r = event_rates(url, rule, model)
        per = {e: r[e] / float(counts[e]) for e in counted if e in r and math.isfinite(r[e])}
        lo, hi = min(per.values(), default=0), max(per.values(), default=0)
        ok &= result(f'exact/{prefix}every-event-per-counted-second-is-the-vector-times-one-rate',
                     len(per) == len(counted) and lo > 0 and (hi - lo) / lo <= TIME_TOL,
                     f'{len(per)} of {len(counted)} events; spread {(hi - lo) / (lo or 1):.2e} '
                     f'(min {min(per, key=per.get, default="-")}, max {max(per, key=per.get, default="-")})')
        print(f'#   {prefix} events per counted second: spread {(hi - lo) / (lo or 1):.1e} '
              f'of the common rate (bound {TIME_TOL:.0e})')

    # the rules: Arm's formula on the rates they take.  A rule group reads
    # the rates group's latest sample, which may still be the one before
    # the latest by the rule's time (the groups run apart, and the rates
    # group takes a while): the formula on either must match
    want_present = set()
    rates_at = {}

    def rates_before(prefix, t):
        """The rates samples a rule evaluated at t may have read."""
        if (prefix, t) not in rates_at:
            sel = f'{rules[prefix]}{{model="{model}"}}'
            ts = query(url, f'max(timestamp({sel}))', t)
            cands = []
            if ts:
                cands.append(event_rates(url, rules[prefix], model, ts[0][1]))
                cands.append(event_rates(url, rules[prefix], model, f'{ts[0][1] - 0.001:.3f}'))
            rates_at[(prefix, t)] = cands
        return rates_at[(prefix, t)]

    for name, (rec, _) in sorted(metrics.items()):
        if not set(raw[name]['events']) <= counted:
            continue
        on_vector = expected(raw, name, counts)
        for prefix in ('instance:', ':'):
            series = prefix + rec
            want_present.add(series)
            sel = f'{series}{{model="{model}"}}'
            got = query(url, sel)
            at = query(url, f'timestamp({sel})')
            wants, why = [], 'no sample'
            for r in rates_before(prefix, at[0][1]) if len(at) == 1 else []:
                try:
                    w = expected(raw, name, {e: Fraction(v) for e, v in r.items()})
                except KeyError as e:
                    why = f'no rate of {e}'
                except ValueError:
                    why = 'a rate is not a number'
                else:
                    if w is None:
                        why = 'the formula divides by zero'
                    else:
                        wants.append(float(w))
            if len(got) != 1 or not wants or on_vector is None:
                ok = result(f'exact/{series}', False, f'{len(got)} samples; {why}')
                continue
            g, v = got[0][1], float(on_vector)
            errs = [abs(g - w) / abs(w) if w else abs(g) for w in wants]
            err = min(errs)
            if not (math.isfinite(g) and err <= FLOAT_TOL):
                ok = result(f'exact/{series}', False, f'got {g!r}, the formula on its rates {wants!r} '
                            f'(rel {errs}); on the vector {v!r}')
            else:
                print(f'#   {series} = {g!r} (the formula on its rates: rel {err:.1e}'
                      f'{"" if errs[0] == err else ", the rates before"}; '
                      f'on the vector {v!r}: rel {abs(g - v) / abs(v) if v else abs(g):.1e})')
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


def cgroup_rules(url, model, metrics, raw, names, selector, counts):
    """The container level's rule of each metric (cgroup:) equals Arm's
    formula on the container's own per-counted-second rates (the rates
    group's sample the rule read, or the one before), to within FLOAT_TOL;
    how far from the formula on the vector is printed (TIME_TOL's skew)."""
    ok = True
    rate = f'cgroup_event:n3telemetry_events_per_counted_second:rate5m{{{selector}, model="{model}"}}'
    for name in names:
        series = 'cgroup:' + metrics[name][0]
        sel = f'{series}{{{selector}, model="{model}"}}'
        got = query(url, sel)
        at = query(url, f'timestamp({sel})')
        wants, why = [], 'no sample'
        ts = query(url, f'max(timestamp({rate}))', at[0][1]) if len(at) == 1 else []
        for t in ([ts[0][1], f'{ts[0][1] - 0.001:.3f}'] if ts else []):
            r = {m['event']: v for m, v in query(url, rate, t)}
            try:
                w = expected(raw, name, {e: Fraction(v) for e, v in r.items()})
            except KeyError as e:
                why = f'no rate of {e}'
            except ValueError:
                why = 'a rate is not a number'
            else:
                if w is None:
                    why = 'the formula divides by zero'
                else:
                    wants.append(float(w))
        if len(got) != 1 or not wants:
            ok = result(f'cgroup-rules/{series}', False, f'{len(got)} samples; {why}')
            continue
        g = got[0][1]
        errs = [abs(g - w) / abs(w) if w else abs(g) for w in wants]
        if not (math.isfinite(g) and min(errs) <= FLOAT_TOL):
            ok = result(f'cgroup-rules/{series}', False,
                        f'got {g!r}, the formula on its rates {wants!r} (rel {errs})')
        else:
            v = expected(raw, name, counts)
            print(f'#   {series} = {g!r} (the formula on its rates: rel {min(errs):.1e}; on the '
                  f'vector {float(v)!r}: rel {abs(g - float(v)) / abs(float(v)) if v else abs(g):.1e})')
            result(f'cgroup-rules/{series}', True)
    return ok


def cmd_cgroup(url, spec, vector, selector):
    """The container's CPUs counted whole injections of VECTOR in each
    interval (one set: every event in every slice), so its level-1 values
    are the formula on VECTOR, truncated to the module's fixed point; and
    its recording rules (cgroup:) the formula on its rates."""
    model, slots, metrics, raw = metrics_of(spec)
    counts = {k: Fraction(int(v)) for k, v in
              (kv.split('=') for kv in open(vector).read().split())}
    l1 = json.load(open(spec))['groups']['metrics']['Topdown_L1']['metrics']
    ok = True
    for name in l1:
        unit = raw[name]['units']
        fam = value_series_of(name, unit).replace('n3telemetry_', 'n3telemetry_cgroup_', 1)
        got = query(url, f'{fam}{{{selector}, model="{model}"}}')
        want = expected(raw, name, counts)
        # the module's value: millionths of the unit, truncated toward zero
        tol = 1e-8 if unit.startswith('percent') else 1e-6
        if len(got) != 1 or want is None or abs(got[0][1] - float(want)) > tol * 1.01:
            ok = result(f'cgroup/{name}', False, f'{fam}: {got}, want {float(want or 0)}')
        else:
            result(f'cgroup/{name}', True)
    return cgroup_rules(url, model, metrics, raw, l1, selector, counts) and ok


def panel_exprs(dash):
    """(panel, its queries, the title of the row it is in)"""
    row = ''
    for p in dash['panels']:
        if p.get('type') == 'row':
            row = p.get('title', '')
        for sub in [p] + p.get('panels', []):
            if sub.get('type') == 'row':
                continue
            yield sub, [t['expr'] for t in sub.get('targets', [])], row


def cmd_dashboard(url, path, how='all', row=''):
    """Every panel's queries answer, with finite values; with --row TEXT
    only the panels of rows whose title starts with TEXT, with --skip-row
    TEXT the others."""
    dash = json.load(open(path))
    subst = {'$instance': '.*', '$model': '.*', '$topn': '10'}
    ok = True
    npanels = nq = 0
    for p, exprs, in_row in panel_exprs(dash):
        if how != 'all' and (how == '--row') != in_row.startswith(row):
            continue
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
    part = '' if how == 'all' else f'{"" if how == "--row" else "not-"}{row.split()[0].lower()}-'
    return result(f'dashboard/{part}{npanels}-panels-{nq}-queries-answer-with-units',
                  ok and npanels > 0)


def main():
    url, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if cmd == 'wait':
        return cmd_wait(url, *args)
    if cmd == 'value':
        for m, v in query(url, args[0]):
            print(v)
        return 0
    fn = {'exact': cmd_exact, 'rules': cmd_rules, 'dashboard': cmd_dashboard,
          'cgroup': cmd_cgroup}[cmd]
    return 0 if fn(url, *args) else 1


if __name__ == '__main__':
    sys.exit(main())
