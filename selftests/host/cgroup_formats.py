#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""n3tel export --by-cgroup in JSON and CSV against the Prometheus series
mkfixture.py expects (cgroup-expect.prom, from its own definitions).

usage: cgroup_formats.py EXPECT.prom EXPORT.json EXPORT.csv

JSON: the same containers and pools, their ids, labels and CPU counts; each
metric the expected series has, the same value in the module's units (a
percentage 100 times the ratio) printed at JSON's precision (the expected
millionths rounded half away from zero), null where NaN, "composed" where
composed="1".  CSV: a row per container's metric, its value the JSON's
text (nan for null), its cgroup and cgroup_id columns the JSON's.  Prints
"ok NAME" / "not ok NAME" lines.
"""
import csv
import json
import re
import sys

SERIES = re.compile(r'^(n3telemetry_cgroup_[a-z0-9_]+)\{(.*)\} (\S+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def ok(name, good, why=''):
    print(('ok ' if good else 'not ok ') + name)
    if not good and why:
        print('# ' + why)


def expected(path):
    """{cgroup: {'labels': {...}, 'cpus': n, 'counted': n, 'metrics': {fam: (text, composed)}}}"""
    out = {}
    past = None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('n3telemetry_cgroups_past_limit '):
                past = int(line.split()[1])
            m = SERIES.match(line)
            if not m:
                continue
            fam, labels, value = m.groups()
            lab = dict(LABEL.findall(labels))
            c = out.setdefault(lab['cgroup'], {'labels': lab, 'metrics': {}})
            if fam == 'n3telemetry_cgroup_cpus':
                c['cpus'] = int(value)
            elif fam == 'n3telemetry_cgroup_counted_cpus':
                c['counted'] = int(value)
            elif fam.startswith('n3telemetry_cgroup_event_'):
                continue    # the cumulative counts: Prometheus's alone (the rules')
            else:
                c['metrics'][fam[len('n3telemetry_cgroup_'):]] = (value, lab.get('composed') == '1')
    return out, past


def at_precision(ratio_text, percent, shown):
    """The expected value as JSON prints it: @shown's decimals, half away from zero."""
    if ratio_text == 'NaN':
        return None
    # Prometheus: a percentage as a ratio with 8 decimals, else 6: millionths
    whole, _, frac = ratio_text.lstrip('-').partition('.')
    digits = 8 if percent else 6
    millionths = int(whole + frac.ljust(digits, '0'))
    neg = ratio_text.startswith('-')
    dec = len(shown.partition('.')[2])
    div = 10 ** (6 - dec)
    q, r = divmod(millionths, div)
    if 2 * r >= div:
        q += 1
    s = str(q).rjust(dec + 1, '0')
    text = s[:-dec] + '.' + s[-dec:] if dec else s
    return ('-' if neg and q else '') + text


def main():
    want, past = expected(sys.argv[1])
    with open(sys.argv[2]) as f:
        doc = json.load(f, parse_float=str, parse_int=str)
    ok('json-no-error', doc.get('cgroups_error', 'absent') is None, repr(doc.get('cgroups_error')))
    ok('json-past-limit', doc.get('cgroups_past_limit') == str(past))
    got = {c['cgroup']: c for c in doc.get('cgroups', [])}
    ok('json-same-cgroups', sorted(got) == sorted(want), f'{sorted(got)} != {sorted(want)}')
    bad = []
    for name, w in want.items():
        c = got.get(name)
        if not c:
            continue
        lab = w['labels']
        for key in ('cgroup_id', 'pod_uid', 'container_id', 'unit'):
            if c.get(key) != lab.get(key):
                bad.append(f'{name} {key}: {c.get(key)} != {lab.get(key)}')
        if c.get('nr_cpus') != str(w['cpus']) or c.get('counted_cpus') != str(w['counted']):
            bad.append(f'{name}: cpus {c.get("nr_cpus")}/{c.get("counted_cpus")}')
        metrics = c.get('sum', {}).get('metrics', {})
        if 'sum' in c and c['sum'].get('model') != lab.get('model'):
            bad.append(f'{name}: model {c["sum"].get("model")}')
        for fam, (value, composed) in w['metrics'].items():
            mname = fam[:-len('_ratio')] if fam.endswith('_ratio') else fam
            m = metrics.get(mname)
            if m is None:
                bad.append(f'{name} {mname}: not in the JSON')
                continue
            shown = m['value']
            percent = m['unit'].startswith('percent')
            exp = at_precision(value, percent, shown or '0')
            if shown != exp:
                bad.append(f'{name} {mname}: {shown} != {exp} (from {value})')
            if bool(m.get('composed')) != composed:
                bad.append(f'{name} {mname}: composed {m.get("composed")} != {composed}')
    ok('json-cgroups-exact', not bad, '; '.join(bad[:4]))

    rows = list(csv.DictReader(open(sys.argv[3], newline='')))
    ok('csv-columns', rows and list(rows[0]) == ['scope', 'cpu', 'model', 'metric', 'value',
                                                 'unit', 'selected', 'composed', 'cgroup',
                                                 'cgroup_id'])
    widths = set(len(r) for r in csv.reader(open(sys.argv[3], newline='')))
    ok('csv-every-row-10-fields', widths == {10}, f'widths {sorted(widths)}')
    host = [r for r in rows if r['scope'] != 'cgroup']
    ok('csv-host-rows-no-cgroup', host and all(not r['cgroup'] and not r['cgroup_id'] for r in host))
    bad = []
    seen = set()
    for r in rows:
        if r['scope'] != 'cgroup':
            continue
        c = got.get(r['cgroup'])
        seen.add(r['cgroup'])
        if not c:
            bad.append(f'{r["cgroup"]}: not in the JSON')
            continue
        m = c['sum']['metrics'][r['metric']]
        if r['value'] != (m['value'] or 'nan') or r['cgroup_id'] != c.get('cgroup_id', '') or \
           r['composed'] != ('1' if m.get('composed') else '0') or r['model'] != c['sum']['model']:
            bad.append(f'{r["cgroup"]} {r["metric"]}: {r}')
    ok('csv-cgroup-rows-as-json', not bad and seen == set(g for g in got if 'sum' in got[g]),
       '; '.join(bad[:3]))
    # and the other way: every metric of every JSON sum has its CSV row
    have = set((r['cgroup'], r['metric']) for r in rows if r['scope'] == 'cgroup')
    want_rows = set((g, m) for g, c in got.items() if 'sum' in c for m in c['sum']['metrics'])
    ok('csv-a-row-per-json-metric', want_rows == have, f'{len(want_rows - have)} missing')


main()
