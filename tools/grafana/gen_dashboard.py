#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the Grafana dashboard for n3telemetry fleets.

usage: gen_dashboard.py [-o OUT.json]

Panels read the recording rules (tools/prometheus/n3telemetry.rules.yml:
instance: and fleet : series, computed from each host's system aggregate,
and cgroup: series, from the containers' sums n3tel exports with
--by-cgroup) and, for the per-CPU heatmaps, the per-CPU gauges n3tel exports with
--scope cpu or --scope all.  Variables: datasource, instance and model
(multi-select, "All" matches every value), and topn for the fleet rankings.
A composed series (composed="1": the host's PMU cannot count the metric's
events together) is shown apart: its legend ends in "~composed" (every
query adds a label "shown", its legend's labels and then "~composed" for a
composed series), its line is dashed and stacks apart, and no panel
averages or sums it with exact ones.
Python 3 standard library only; selftests/host/rules.sh checks that the
committed file is what this script makes and that every query reads only
series the exporter or the rules produce."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'models'))
import generated  # noqa: E402  (how the generators write their files)

DS = {'type': 'prometheus', 'uid': '${datasource}'}
MARK = '~composed'	# ends the legend of a composed series
INST = 'instance=~"$instance", model=~"$model"'
FLEET = 'model=~"$model"'

L1 = [('retiring', 'Retiring'), ('bad_speculation', 'Bad speculation'),
      ('frontend_bound', 'Frontend bound'), ('backend_bound', 'Backend bound')]
FRONTEND = ['frontend_core_bound', 'frontend_mem_bound', 'frontend_core_flush_bound',
            'frontend_core_flow_bound', 'frontend_mem_cache_bound', 'frontend_mem_tlb_bound',
            'frontend_cache_l1i_bound', 'frontend_cache_l2i_bound']
BACKEND = ['backend_core_bound', 'backend_mem_bound', 'backend_core_rename_bound',
           'backend_busy_bound', 'backend_mem_cache_bound', 'backend_mem_tlb_bound',
           'backend_mem_store_bound', 'backend_cache_l1d_bound', 'backend_cache_l2d_bound']
CACHE_MPKI = ['l1i_cache_mpki', 'l1d_cache_mpki', 'l2_cache_mpki', 'll_cache_read_mpki']
CACHE_MISS = ['l1i_cache_miss', 'l1d_cache_miss', 'l2_cache_miss', 'll_cache_read_miss']
TLB_MPKI = ['itlb_mpki', 'dtlb_mpki', 'l1i_tlb_mpki', 'l1d_tlb_mpki', 'l2_tlb_mpki']
TLB_MISS = ['itlb_walk', 'dtlb_walk', 'l1i_tlb_miss', 'l1d_tlb_miss', 'l2_tlb_miss']
BRANCH = ['branch_mpki']
BRANCH_RATIO = ['branch_misprediction', 'branch_direct', 'branch_indirect', 'branch_return']
# Grafana has no unit for these
IPC = 'suffix: instructions/cycle'
MPKI = 'suffix: MPKI'


class Board:
    def __init__(self):
        self.panels, self.y, self.x, self.row_h, self.id = [], 0, 0, 0, 0

    def row(self, title):
        self.newline()
        self.id += 1
        self.panels.append({'type': 'row', 'title': title, 'id': self.id, 'collapsed': False,
                            'gridPos': {'h': 1, 'w': 24, 'x': 0, 'y': self.y}, 'panels': []})
        self.y += 1

    def newline(self):
        if self.x:
            self.y += self.row_h
            self.x, self.row_h = 0, 0

    # every panel says what its numbers are: a Grafana unit id, or
    # 'suffix:TEXT' for the metrics Grafana has no unit for
    def panel(self, kind, title, targets, unit, w=12, h=8, desc=None, stack=False,
              extra=None, composed=True):
        if self.x + w > 24:
            self.newline()
        self.id += 1
        p = {'type': kind, 'title': title, 'id': self.id, 'datasource': DS,
             'gridPos': {'h': h, 'w': w, 'x': self.x, 'y': self.y},
             'targets': [dict(refId=chr(ord('A') + i), datasource=DS, **t)
                         for i, t in enumerate(targets)],
             'fieldConfig': {'defaults': {}, 'overrides': []}, 'options': {}}
        if desc:
            p['description'] = desc
        p['fieldConfig']['defaults']['unit'] = unit
        if stack:
            p['fieldConfig']['defaults']['custom'] = {'stacking': {'mode': 'normal'},
                                                      'fillOpacity': 60}
            p['fieldConfig']['defaults']['max'] = 1
        if composed and kind == 'timeseries':
            # composed series: dashed, and stacked apart from exact ones
            props = [{'id': 'custom.lineStyle', 'value': {'fill': 'dash', 'dash': [10, 10]}}]
            if stack:
                props.append({'id': 'custom.stacking',
                              'value': {'mode': 'normal', 'group': 'composed'}})
            p['fieldConfig']['overrides'].append(
                {'matcher': {'id': 'byRegexp', 'options': f'.*{MARK}.*'}, 'properties': props})
        if extra:
            for k, v in extra.items():
                p[k] = v
        self.panels.append(p)
        self.x += w
        self.row_h = max(self.row_h, h)


def ratio(prefix, name, sel):
    return f'{prefix}n3telemetry_{name}:ratio{{{sel}}}'


def plain(prefix, name, sel):
    return f'{prefix}n3telemetry_{name}{{{sel}}}'


def t(expr, legend):
    return {'expr': expr, 'legendFormat': legend}


def marked(expr, *labels):
    """expr's series with the label shown: the values of labels, then MARK
    for a composed one (Grafana prints a label a series lacks by its name,
    so the legend uses shown, which every series has)."""
    mark = f'label_replace({expr}, "mark", "{MARK}", "composed", "1")'
    return 'label_join(' + mark + ', "shown", " ", ' + \
        ', '.join(f'"{x}"' for x in labels + ('mark',)) + ')'


def fleet(series, names):
    """The fleet (:) series of each metric name, one line per model (and
    one more where hosts compose it); series is plain or ratio."""
    return [t(marked(series(':', n, FLEET), 'model'), f'{n} {{{{shown}}}}') for n in names]


def heatmap(b, name, title):
    b.panel('heatmap', title,
            [dict(t(marked(f'n3telemetry_{name}_ratio{{instance=~"$instance", model=~"$model", '
                           f'cpu!=""}}', 'cpu'),
                    '{{instance}} cpu{{shown}}'), format='time_series')],
            w=12, h=9, unit='percentunit',
            desc='One row per CPU: needs per-CPU series on the hosts '
                 '(n3tel textfile --scope all).',
            extra={'options': {'calculate': False, 'yAxis': {'axisPlacement': 'left'},
                               'color': {'scheme': 'Oranges', 'mode': 'scheme'},
                               'cellGap': 1}})


def build():
    b = Board()
    b.row('Fleet')
    b.panel('timeseries', 'Fleet topdown level 1',
            [t(marked(ratio(':', n, FLEET), 'model'), f'{label} {{{{shown}}}}')
             for n, label in L1],
            unit='percentunit', stack=True,
            desc=f'Per model; hosts that compose a metric (not exact) in series of '
                 f'their own, {MARK}, dashed and stacked apart.')
    b.panel('timeseries', 'IPC: fleet and hosts',
            [t(marked(plain(':', 'ipc', FLEET), 'model'), 'fleet {{shown}}'),
             t(marked(plain('instance:', 'ipc', INST), 'instance'), '{{shown}}')], unit=IPC)
    b.panel('bargauge', 'Top $topn hosts: backend bound',
            [dict(t(marked(f'topk($topn, {ratio("instance:", "backend_bound", INST)})',
                           'instance'), '{{shown}}'), instant=True)], w=8, unit='percentunit')
    b.panel('bargauge', 'Top $topn hosts: frontend bound',
            [dict(t(marked(f'topk($topn, {ratio("instance:", "frontend_bound", INST)})',
                           'instance'), '{{shown}}'), instant=True)], w=8, unit='percentunit')
    b.panel('bargauge', 'Bottom $topn hosts: IPC',
            [dict(t(marked(f'bottomk($topn, {plain("instance:", "ipc", INST)})', 'instance'),
                    '{{shown}}'), instant=True)], w=8, unit=IPC)

    b.row('Topdown level 1 by host')
    for n, label in L1:
        b.panel('timeseries', f'{label} by host',
                [t(marked(ratio('instance:', n, INST), 'instance'), '{{shown}}')], w=6,
                unit='percentunit')
    heatmap(b, 'backend_bound', 'Backend bound per CPU')
    heatmap(b, 'frontend_bound', 'Frontend bound per CPU')

    b.row('Topdown level 2 (drill down: pick hosts above)')
    b.panel('timeseries', 'Frontend bound, broken down',
            [t(marked(f'avg by (model, composed) ({ratio("instance:", n, INST)})', 'model'),
               f'{n} {{{{shown}}}}') for n in FRONTEND],
            unit='percentunit', desc='Mean over the selected hosts, the hosts that compose '
                                     'a metric apart. Neoverse N3 only.')
    b.panel('timeseries', 'Backend bound, broken down',
            [t(marked(f'avg by (model, composed) ({ratio("instance:", n, INST)})', 'model'),
               f'{n} {{{{shown}}}}') for n in BACKEND],
            unit='percentunit', desc='Mean over the selected hosts, the hosts that compose '
                                     'a metric apart. Neoverse N3 only.')

    b.row('Caches, TLBs, branches')
    b.panel('timeseries', 'Cache MPKI (fleet)', fleet(plain, CACHE_MPKI), w=8, unit=MPKI)
    b.panel('timeseries', 'Cache miss ratios (fleet)', fleet(ratio, CACHE_MISS), w=8,
            unit='percentunit')
    b.panel('timeseries', 'Cache MPKI by host',
            [t(marked(plain('instance:', n, INST), 'instance'), f'{n} {{{{shown}}}}')
             for n in CACHE_MPKI[1:]],
            w=8, unit=MPKI)
    b.panel('timeseries', 'TLB MPKI (fleet)', fleet(plain, TLB_MPKI), w=8, unit=MPKI)
    b.panel('timeseries', 'TLB walk and miss ratios (fleet)', fleet(ratio, TLB_MISS), w=8,
            unit='percentunit')
    b.panel('timeseries', 'Branch MPKI (fleet)', fleet(plain, BRANCH), w=8, unit=MPKI)
    b.panel('timeseries', 'Branch mix and mispredictions (fleet)', fleet(ratio, BRANCH_RATIO),
            w=8, unit='percentunit')

    b.row('Containers (n3tel textfile --by-cgroup)')
    desc = ('Containers: cgroups whose CPUs no other cgroup with processes may use '
            '(Kubernetes\' static CPU manager, systemd AllowedCPUs=, cpuset partitions), '
            'exact sums over their CPUs; shared: the other CPUs together. Needs '
            'n3tel textfile --by-cgroup on the hosts.')
    # the rankings: containers, not the pools
    CTR = INST + ', cgroup!~"shared|other"'
    for n, label in L1:
        b.panel('timeseries', f'{label} by container',
                [t(marked(ratio('cgroup:', n, INST), 'instance', 'cgroup'), '{{shown}}')],
                w=6, unit='percentunit', desc=desc)
    b.panel('bargauge', 'Top $topn containers: backend bound',
            [dict(t(marked(f'topk($topn, {ratio("cgroup:", "backend_bound", CTR)})',
                           'instance', 'cgroup'), '{{shown}}'), instant=True)],
            w=8, unit='percentunit', desc=desc)
    b.panel('bargauge', 'Top $topn containers: frontend bound',
            [dict(t(marked(f'topk($topn, {ratio("cgroup:", "frontend_bound", CTR)})',
                           'instance', 'cgroup'), '{{shown}}'), instant=True)],
            w=8, unit='percentunit', desc=desc)
    b.panel('timeseries', 'CPUs of each container and pool',
            [t(f'sum by (instance, cgroup) (n3telemetry_cgroup_cpus{{{INST}}})',
               '{{instance}} {{cgroup}}')], w=8, unit='suffix: CPUs', composed=False,
            desc='How many CPUs each container has to itself, and the shared pool.')

    b.row('Collection health')
    b.panel('timeseries', 'Exporter up and counters readable',
            [t(f'min by (instance) (n3telemetry_up{{instance=~"$instance"}})', 'up {{instance}}'),
             t(f'min by (instance) (n3telemetry_events_readable{{instance=~"$instance"}})',
               'counters {{instance}}')], w=8, unit='bool')
    b.panel('timeseries', 'Coverage: share of time each event was counted (mean per CPU)',
            [t('instance_model_event:n3telemetry_event_counted_seconds:rate5m{' + INST + '}\n'
               '/ on (instance, model) group_left ()\n'
               'sum by (instance, model) (n3telemetry_cpus{' + INST + ', state="collecting"})',
               '{{instance}} {{event}}')], w=8, unit='percentunit')
    b.panel('timeseries', 'CPUs by state',
            [t(f'sum by (instance, state) (n3telemetry_cpus{{{INST}}})',
               '{{instance}} {{state}}')], w=8, unit='suffix: CPUs')
    b.panel('timeseries', 'Lost slices per second',
            [t(f'sum by (instance) (rate(n3telemetry_lost_slices_total{{{INST}, cpu=""}}[5m]))',
               '{{instance}}')], w=8, unit='suffix: slices/s')
    mark = 'instance_model_metric:n3telemetry_composed:group'
    b.panel('timeseries', 'Composed metrics per host (not exact: PMU too small)',
            [t(f'sum by (instance) ({mark}{{{INST}, composed="1"}})\n'
               f'or\n0 * sum by (instance) ({mark}{{{INST}}})', '{{instance}}')],
            w=8, unit='suffix: metrics', composed=False,
            desc='Metrics whose events the host\'s PMU cannot count together: it '
                 'composes them from rates counted apart (0: every metric exact).')

    def var(name, query):
        return {'name': name, 'type': 'query', 'datasource': DS, 'query': query,
                'refresh': 2, 'includeAll': True, 'multi': True, 'allValue': '.*',
                'current': {'text': 'All', 'value': '$__all'}}

    return {
        'title': 'n3telemetry: Neoverse topdown',
        'uid': 'n3telemetry',
        'schemaVersion': 39,
        'version': 5,
        'time': {'from': 'now-6h', 'to': 'now'},
        'refresh': '1m',
        'tags': ['n3telemetry', 'arm', 'topdown'],
        'templating': {'list': [
            {'name': 'datasource', 'type': 'datasource', 'query': 'prometheus'},
            var('instance', 'label_values(n3telemetry_up, instance)'),
            var('model', 'label_values(n3telemetry_slots, model)'),
            {'name': 'topn', 'type': 'custom', 'query': '5,10,20',
             'current': {'text': '10', 'value': '10'},
             'options': [{'text': v, 'value': v, 'selected': v == '10'}
                         for v in ('5', '10', '20')]},
        ]},
        'panels': b.panels,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-o', dest='out')
    a = ap.parse_args()
    generated.output(a.out, json.dumps(build(), indent=2) + '\n')


if __name__ == '__main__':
    main()
