#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a fixture /sys/kernel/n3telemetry tree for n3tel's host tests.

usage: mkfixture.py [--cpus N] DIR [VARIANT] [MODEL ...]

MODEL is the name of one of Arm's telemetry descriptions (neoverse-n3, the
default, neoverse-v2, neoverse-n1, ...), read from $N3T_ARM_TELEMETRY
(default ../shared/reference/arm-telemetry next to the tree) with
tools/models/gen_models.py's own loader, so the names, codes, units, groups
and default selection are the ones the module's tables are generated from.
With several models the CPUs (four, or N with --cpus) are split between
them in order (two: cpu0-1 the first, cpu2-3 the second), a heterogeneous
system.  cpu2 has published no interval yet (idle: nan, counts 0).  system/
is the module's: the first model's CPUs, with the cumulative counts and
lost slices summed over them.

The tree is written both as text (the sysfs files, values rounded like the
module prints them: expected.py) and as the binary snapshot (uapi/linux/n3telemetry.h,
ABI 2, native byte order, with its names section); values are fixed,
made-up numbers.

variants: good (default), all-groups (every group selected), rotate (the
rotating schedule's ages: cpuN/ages and the snapshot's group_seq and
group_end_ns; the k-th selected group after topdown_l1 is k intervals old,
k = 1..5 in turn), composed (a PMU too small for some metrics: frontend_bound,
bad_speculation, retiring, ipc and ll_cache_read_hit_ratio, where selected,
are composed on every CPU and in system/, the word "composed" after their
value in the text files and their bit in the snapshot's composed bitmap;
cpu3's ll_cache_read_hit_ratio and the idle cpu2's values are nan; every
group's values from the latest interval, with cpuN/ages and the snapshot's
group ages), composed-old (the same values from an older module: no
"composed" word, and snapshot records that end before the composed bitmap,
with the group ages), malformed,
missing-file, no-snapshot, and the
snapshot errors bad-magic, swapped (the other byte order), bad-version,
bad-sizes, truncated, bad-names, bad-model-index, too-many-metrics."""
import json
import os
import re
import struct
import sys

from expected import decimals, fmt_fixed

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, 'tools', 'models'))
import gen_models  # noqa: E402

ref = os.environ.get('N3T_ARM_TELEMETRY',
                     os.path.join(top, '..', 'shared', 'reference', 'arm-telemetry'))
args = sys.argv[1:]
ncpus = 4
if args[:1] == ['--cpus']:
    ncpus = int(args[1])
    args = args[2:]
root = args[0]
variant = args[1] if len(args) > 1 else 'good'
names = args[2:] or ['neoverse-n3']
CPUS = list(range(ncpus))
IDLE = 2          # no interval published yet
MAX = 96          # N3T_SNAP_MAX_EVENTS, N3T_SNAP_MAX_METRICS
# composed (variant composed): the metrics whose events do not fit together
COMPOSED = ['frontend_bound', 'bad_speculation', 'retiring', 'ipc', 'll_cache_read_hit_ratio']
AGES = variant in ('rotate', 'composed', 'composed-old', 'stat', 'cgroup')   # cpuN/ages, the records' group ages
# stat: records of today's size (the slice counts too), and snapshot.after;
# cgroup: records of today's size too
STAT = variant in ('stat', 'cgroup')
STAT_V = 1 << 30  # stat: CPU_CYCLES of a CPU over a quarter of the run, and its ns


class Model:
    def __init__(self, name):
        m = gen_models.load(os.path.join(ref, name + '.json'))
        self.raw = m
        self.name = m['file']
        self.title = m['title']
        self.slots = m['slots']
        self.events = [e for e, _ in m['events']]
        self.codes = [c for _, c in m['events']]
        self.metrics = [(x['name'], gen_models.UNITS[x['unit']]) for x in m['metrics']]
        self.mnames = [n for n, _ in self.metrics]
        self.groups = [(f, arm, [self.mnames[i] for i in ms]) for f, arm, ms in m['groups']]
        self.default = m['default'] if variant != 'all-groups' else list(range(len(self.groups)))
        self.selected = {x for i in self.default for x in self.groups[i][2]}
        self.used = [e for e in ['INST_RETIRED', 'CPU_CYCLES', 'L1D_CACHE',
                                 'L1D_CACHE_REFILL', 'STALL_SLOT'] if e in self.events]
        # a property of the model's plan: every CPU's, system/'s, nan or not
        self.composed = {x for x in COMPOSED if x in self.selected} \
            if variant == 'composed' else set()

    def value(self, cpu, i, name):
        """fixed point (millionths) or None"""
        if cpu == IDLE or name not in self.selected:
            return None
        l1 = {'frontend_bound': [21370000, 12500000, 0, -1250000],
              'backend_bound': [34020000, 60000000, 0, 55000000],
              'retiring': [41500000, 20125000, 0, 40000000],
              'bad_speculation': [3110000, 7375000, 0, 6250000]}
        if name in l1:
            return l1[name][cpu % 4]
        if name == 'll_cache_read_hit_ratio' and cpu == 3:
            return None          # an undefined value on a live CPU
        return (cpu + 1) * 1000003 * (i + 7) % 97000000 + 1500

    def stat_k(self, e):
        """stat: the event was counted in 1/k of the run's complete slices"""
        if e == 'CPU_CYCLES':
            return 1
        if e == self.events[-1]:
            return 256      # its groups: too little
        return [1, 2, 4][self.events.index(e) % 3]

    def stat_vec(self, cpu, e):
        """stat: the event's count per STAT_V ns on a CPU (a multiple of 64)"""
        if e == 'CPU_CYCLES':
            return STAT_V
        return 64 * ((cpu + 1) * 7919 * (self.events.index(e) + 3) % 9000000 + 1000)

    def stat_delta(self, cpu, e):
        """stat: (slice count, slice ns, count, ns) over the run: 4 STAT_V
        ns of complete slices, the event counted in 1/k of them"""
        if cpu == IDLE:
            return 0, 0, 0, 0
        k = self.stat_k(e)
        return (self.stat_vec(cpu, e) * 4 // k, STAT_V * 4 // k,
                self.stat_vec(cpu, e) * 4 // k, STAT_V * 4 // k)

    def formulas(self):
        """models/<model>/formulas as the module prints it (engine.c)"""
        index = {e: i for i, e in enumerate(self.events)}

        def poly(p):
            monos = sorted(p.items(), key=lambda mc: (len(mc[0]), mc[0]))
            if not monos:
                return ' +0'
            return ''.join(f' {c:+d}' + ''.join('*slots' if f == gen_models.SLOTS
                                                 else f'*e{index[f]}' for f in mono)
                           for mono, c in monos)
        return ''.join(f'{x["name"]}{poly(x["num"])} /{poly(x["den"])}\n'
                       for x in self.raw['metrics'])

    def counts(self, cpu, e):
        """cumulative count and counted ns; system (None): the sum over the
        first model's CPUs, as the module's system/events"""
        if cpu is None:
            cs = [self.counts(c, e) for c in CPUS if cpu_model[c] == 0]
            return sum(c for c, _ in cs), sum(n for _, n in cs)
        if cpu == IDLE:
            return 0, 0
        i = self.events.index(e)
        return (cpu + 1) * 1000000000 + i * 12345, (cpu + 1) * 900000000 + i


models = [Model(n) for n in names]
cpu_model = {c: k * len(models) // len(CPUS) for k, c in enumerate(CPUS)}
first = models[0]
os.makedirs(root, exist_ok=True)


def put(rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text)


def age_seq(k):
    """rotate: the interval the k-th selected group's values come from
    (other variants with ages: the latest)"""
    if variant != 'rotate':
        return 42
    return 42 - (k + 4) % 5 - 1 if k else 42


def age_end(k):
    return 84000000000 - (42 - age_seq(k)) * 1000000000


# --- the text tree -----------------------------------------------------------
put('version', '0.3.0\n')
put('cpu_model', ''.join(m.name + '\n' for m in models))
put('slots', f'{first.slots}\n' if len(models) == 1 else
    ''.join(f'{m.name} {m.slots}\n' for m in models))
put('counters', 'programmable 6\ncycle_counter free\n')
put('interval_ms', '1000\n')
# the selection by name: each model selects its own default groups
sel = []
for m in models:
    sel += [m.groups[i][0] for i in m.default if m.groups[i][0] not in sel]
put('groups', ' '.join(sel) + '\n')
put('available_groups', ' '.join(g for g, _, _ in first.groups) + '\n')
put('sets', 'set0 CPU_CYCLES\n')
for m in models:
    put(f'models/{m.name}/events', ''.join(f'{e} 0x{c:04x}\n' for e, c in zip(m.events, m.codes)))
    put(f'models/{m.name}/metrics', ''.join(f'{n} {decimals(u)} {u}\n' for n, u in m.metrics))
    put(f'models/{m.name}/groups', ''.join(f'{f} {arm} {" ".join(ms)}\n'
                                           for f, arm, ms in m.groups))
    put(f'models/{m.name}/formulas', m.formulas())

for d, cpu in [(f'cpu{c}', c) for c in CPUS] + [('system', None)]:
    m = models[cpu_model[cpu]] if cpu is not None else first
    if cpu is not None:
        put(f'{d}/cpu_model', m.name + '\n')
    for g, _, ms in m.groups:
        lines = []
        for x in ms:
            i = m.mnames.index(x)
            v = m.value(cpu if cpu is not None else 0, i, x)
            lines.append(f'{x} {fmt_fixed(v, decimals(m.metrics[i][1]))}'
                         + (' composed' if x in m.composed else ''))
        put(f'{d}/{g}', '\n'.join(lines) + '\n')
    idle = cpu == IDLE
    # system/: lost slices summed over the first model's CPUs that published
    lost = cpu if cpu is not None else sum(c for c in CPUS if cpu_model[c] == 0 and c != IDLE)
    put(f'{d}/status', f'seq {0 if idle else 42}\nend_ns {0 if idle else 84000000000}\n'
        f'interval_ns {0 if idle else 1000000000}\nlost_slices {lost}\n'
        + ('state collecting\n' if cpu is not None else
           f'cpus_collecting {len(CPUS)}\ncpus_isolated 0\ncpus_failed 0\ncpus_unsupported 0\n') +
        ('hidden_events INST_RETIRED,OP_SPEC\n' if variant == 'hidden' and cpu in (1, None) else
         'hidden_events none\n') +
        f'set0_coverage {"0.00" if idle else "99.50"}\nset0_lost 0\n')
    put(f'{d}/events', ''.join(f'{e} {m.counts(cpu, e)[0]} {m.counts(cpu, e)[1]}\n'
                               for e in sorted(m.used, key=m.events.index)))
    if AGES:
        put(f'{d}/ages', ''.join(
            f'{m.groups[g][0]} seq 0 end_ns 0 age_ms nan\n' if idle else
            f'{m.groups[g][0]} seq {age_seq(k)} end_ns {age_end(k)} age_ms 1000\n'
            for k, g in enumerate(m.default)))

if variant == 'malformed':
    put('cpu1/general', 'ipc one-point-two\n')
if variant == 'malformed-hidden':
    with open(f'{root}/cpu1/status', 'a') as f:
        f.write('hidden_events INST_RETIRED","x\n')
if variant == 'missing-file':
    os.remove(os.path.join(root, 'cpu3/l2_cache'))

# --- the snapshot ------------------------------------------------------------
def snapshot(phase):
    """the snapshot's bytes; stat: phase 1 is the one after the run"""
    order = '=' if variant != 'swapped' else ('>' if sys.byteorder == 'little' else '<')
    lines = []
    for k, m in enumerate(models):
        gbits = sum(1 << i for i in m.default)
        lines.append(f'model {k} {m.name} {m.slots} 0x{gbits:x} {m.title}')
        lines += [f'event {k} {i} {e} 0x{c:04x}' for i, (e, c) in enumerate(zip(m.events, m.codes))]
        lines += [f'metric {k} {i} {n} {decimals(u)} {u}' for i, (n, u) in enumerate(m.metrics)]
        lines += [f'group {k} {i} {f} {arm} {" ".join(str(m.mnames.index(x)) for x in ms)}'
                  for i, (f, arm, ms) in enumerate(m.groups)]
    if variant == 'bad-names':
        lines.insert(3, 'metric 0 two ipc 3 per cycle')
    names_text = ''.join(ln + '\n' for ln in lines).encode()
    hdr_size = 56
    # a record of the first release ends at lost_slices_total; then the
    # group ages (rotate), then the composed bitmap
    rec_size = 8 + 24 + 24 + 32 + 8 * 3 * MAX + 8 + (16 * 32 if AGES else 0) + \
        (16 if variant in ('composed', 'stat', 'cgroup') else 0) + (16 * MAX + 8 if STAT else 0)
    names_off = hdr_size
    recs_off = (names_off + len(names_text) + 7) // 8 * 8
    magic = 0x5354334e if variant != 'bad-magic' else 0x12345678
    abi = 2 if variant != 'bad-version' else 1
    data = struct.pack(order + '12IQ', magic, abi, hdr_size if variant != 'bad-sizes' else 48,
                       rec_size, len(CPUS), len(models), MAX, MAX, 1000, names_off,
                       len(names_text), recs_off, 1000000)
    data += names_text + b'\0' * (recs_off - names_off - len(names_text))
    for c in CPUS:
        k = cpu_model[c]
        m = models[k]
        idle = c == IDLE
        valid = [0, 0]
        vals = [0] * MAX
        for i, (x, unit) in enumerate(m.metrics):
            v = m.value(c, i, x)
            if v is not None:
                valid[i // 64] |= 1 << (i % 64)
                # the text files hold the rounded value: give the snapshot
                # the same so both sources print identically
                dec = decimals(unit)
                v = int(fmt_fixed(v, dec).replace('.', '')) * 10 ** (6 - dec)
                vals[i] = v
        counted = [0, 0]
        ec, ens = [0] * MAX, [0] * MAX
        sc, sns = [0] * MAX, [0] * MAX
        for i, e in enumerate(m.events):
            if e in m.used:
                counted[i // 64] |= 1 << (i % 64)
                ec[i], ens[i] = m.counts(c, e)
            if STAT:
                # cumulative since load: a base, and the run's deltas after it
                d = m.stat_delta(c, e)
                sc[i] = 5000 + 11 * i + phase * d[0]
                sns[i] = 9000 + 13 * i + phase * d[1]
                ec[i] += phase * d[2]
                ens[i] += phase * d[3]
        nev, nm = len(m.events), len(m.metrics)
        if variant == 'bad-model-index' and c == 3:
            k = len(models)
        if variant == 'too-many-metrics' and c == 1:
            nm = MAX + 1
        data += struct.pack(order + 'IIQQQ6I2Q2Q', c, 0 if idle else 1, 0 if idle else 42,
                            0 if idle else 84000000000 + (phase * 5000000000 if STAT else 0),
                            0 if idle else 1000000000, 1, c,
                            k, nev, nm, 0, *valid, *counted)
        data += struct.pack(f'{order}{MAX}q', *vals) + struct.pack(f'{order}{MAX}Q', *ec) + \
            struct.pack(f'{order}{MAX}Q', *ens) + struct.pack(order + 'Q', c)
        if AGES:
            gseq, gend = [0] * 32, [0] * 32
            for k, g in enumerate(m.default):
                if not idle:
                    gseq[g], gend[g] = age_seq(k), age_end(k)
            data += struct.pack(f'{order}32Q', *gseq) + struct.pack(f'{order}32Q', *gend)
        if variant in ('composed', 'stat', 'cgroup'):
            comp = [0, 0]
            for i, (x, _) in enumerate(m.metrics):
                if x in m.composed:
                    comp[i // 64] |= 1 << (i % 64)
            data += struct.pack(order + '2Q', *comp)
        if STAT:
            data += struct.pack(f'{order}{MAX}Q', *sc) + struct.pack(f'{order}{MAX}Q', *sns) + \
                struct.pack(order + 'Q', 777 + phase * (0 if idle else STAT_V * 4))
    if variant == 'truncated':
        data = data[:-100]
    return data


def stat_expect(cpus):
    """stat: what n3tel stat --format csv prints for the CPUs @cpus and
    system, worked out with Arm's formulas (exact fractions) on the counts
    the rates give over the run: each event counted at the same rate on
    each CPU's slices, the value is the formula of the sums of the rates"""
    from fractions import Fraction
    from formulas import oracle
    out = ['scope,model,group,metric,value,unit,composed,coverage_percent']
    m = first
    spec = {x['name']: x['formula'] for x in m.raw['metrics']}
    for label, cs in ((f'cpus {",".join(map(str, cpus))}', cpus), ('system', CPUS)):
        counts = {e: Fraction(sum(m.stat_vec(c, e) for c in cs if c != IDLE)) for e in m.events}
        for g in m.default:
            f, _, ms = m.groups[g]
            evs = set()
            for x in ms:
                evs |= set(re.findall(r'\b[A-Z][A-Z0-9_]*\b', spec[x]))
            # the least share of the run's complete slices of its events
            cover = Fraction(100, max(m.stat_k(e) for e in evs))
            for x in ms:
                unit = m.metrics[m.mnames.index(x)][1]
                ks = {m.stat_k(e) for e in re.findall(r'\b[A-Z][A-Z0-9_]*\b', spec[x])}
                v = oracle(spec[x])(counts)
                shown = v is not None and cover >= 1
                fixed = int(v * 10 ** 6) if shown else None
                out.append(f'{label},{m.name},{f},{x},{fmt_fixed(fixed, decimals(unit))},{unit},'
                           f'{int(shown and len(ks) > 1)},{int(cover)}.{int(cover * 100) % 100:02d}')
    return '\n'.join(out) + '\n'


# --- cgroup: a cgroup v2 tree and the module's sums of CPUs ----------------
# (cgroup path or None for the root, effective cpuset or None to inherit,
# whether it has processes)
HEX1 = '3f' * 32
HEX2 = 'a9' * 32
POD1 = '0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9'
POD2 = '11223344-5566-7788-99aa-bbccddeeff00'
CGROUPS = [
    (None, '0-7', True),                       # the root: kernel threads, left out
    ('init.scope', '0-1', True),
    ('system.slice', '0-1', False),
    ('system.slice/sshd.service', None, True),
    ('system.slice/bench.service', '4', True),     # a container: a systemd unit
    ('kubepods.slice', '0-5', False),
    (f'kubepods.slice/kubepods-pod{POD1.replace("-", "_")}.slice', '2-3', False),
    (f'kubepods.slice/kubepods-pod{POD1.replace("-", "_")}.slice/cri-containerd-{HEX1}.scope',
     None, True),                              # a container: a pod's, 2 CPUs
    ('kubepods.slice/kubepods-besteffort.slice', '0-1', False),
    ('kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podaa.slice', None, True),
    (f'kubepods/burstable/pod{POD2}/{HEX2}', '5', True),   # cgroupfs driver
    ('idle.slice/empty.service', '6', False),  # no processes: CPU 6 is nobody's
    ('machine.slice/a.scope', '7', True),      # two on CPU 7: shared
    ('machine.slice/b.scope', '7', True),
]
# the containers, biggest first then by path, and the pools, as n3tel lists them
CG_EXPECT = [
    (f'/kubepods.slice/kubepods-pod{POD1.replace("-", "_")}.slice/cri-containerd-{HEX1}.scope',
     '2-3', {'pod_uid': POD1, 'container_id': HEX1}),
    (f'/kubepods/burstable/pod{POD2}/{HEX2}', '5', {'pod_uid': POD2, 'container_id': HEX2}),
    ('/system.slice/bench.service', '4', {'unit': 'bench.service'}),
    ('shared', '0-1,6-7', {}),
]
# --max-cgroups 1: the other two summed
CG_EXPECT_MAX1 = [CG_EXPECT[0], ('other', '4-5', {}), CG_EXPECT[3]]


def cpu_set(lst):
    out = set()
    for part in lst.split(','):
        a, _, b = part.partition('-')
        out |= set(range(int(a), int(b or a) + 1))
    return out


def sum_values(lst):
    """the made-up values of the module's sum of CPUs @lst: fixed point
    (millionths) or None, and whether composed, per metric of the first
    model"""
    m = first
    h = sum(ord(ch) * (k + 1) for k, ch in enumerate(lst))
    out = []
    for i, (x, _) in enumerate(m.metrics):
        if x not in m.selected or (lst == '5' and x == 'retiring'):
            out.append((None, False))   # not collected; the sum's retiring nan
            continue
        out.append(((h % 97 + 1) * 1000000 + i * 12340 + 5, lst == '2-3' and x == 'frontend_bound'))
    return out


def sum_counts(lst, e):
    """the module's cumulative count and counted ns of event @e summed over
    the CPUs @lst (the first model's)"""
    cs = [first.counts(c, e) for c in sorted(cpu_set(lst))]
    return sum(c for c, _ in cs), sum(n for _, n in cs)


def sum_record(lst):
    """sums/<lst>: the CPUs summed (those that published), 0, the record"""
    m = first
    cpus = cpu_set(lst)
    valid, comp, vals = [0, 0], [0, 0], [0] * MAX
    for i, (v, c) in enumerate(sum_values(lst)):
        if v is not None:
            valid[i // 64] |= 1 << (i % 64)
            vals[i] = v
        if c:
            comp[i // 64] |= 1 << (i % 64)
    live = len(cpus - {IDLE})
    data = struct.pack('=II', live, 0)
    data += struct.pack('=IIQQQ6I2Q2Q', 0xffffffff, 1, 42, 84000000000, 1000000000, 1, 0,
                        0, len(m.events), len(m.metrics), 0, *valid, 0, 0)
    cnt, ns = [0] * MAX, [0] * MAX
    for i, e in enumerate(m.events):
        cnt[i], ns[i] = sum_counts(lst, e)
    data += struct.pack(f'={MAX}q', *vals) + struct.pack(f'={MAX}Q', *cnt) + \
        struct.pack(f'={MAX}Q', *ns) + struct.pack('=Q', 0)
    gseq, gend = [0] * 32, [0] * 32
    for g in m.default:
        gseq[g], gend[g] = 42, 84000000000
    data += struct.pack('=32Q', *gseq) + struct.pack('=32Q', *gend)
    data += struct.pack('=2Q', *comp)
    data += struct.pack(f'={MAX}Q', *([0] * MAX)) * 2 + struct.pack('=Q', 0)
    assert len(data) == 8 + 4472, len(data)
    return data


def cgroup_tree():
    base = os.path.join(root, 'cgroup')
    for path, eff, procs in CGROUPS:
        d = os.path.join(base, path) if path else base
        os.makedirs(d, exist_ok=True)
        if path is None:
            put('cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n')
        if eff is not None:
            put(os.path.join(d, 'cpuset.cpus.effective'), eff + '\n')
        put(os.path.join(d, 'cgroup.procs'), '4242\n' if procs else '')
    # and a container made later on CPU 6, one emptied on 4 (cgroup.sh): the sums
    lists = {lst for _, lst, _ in CG_EXPECT + CG_EXPECT_MAX1} | {'6', '0-1,7', '0-1,4,6-7'}
    os.makedirs(os.path.join(root, 'sums'), exist_ok=True)
    for lst in lists:
        with open(os.path.join(root, 'sums', lst), 'wb') as f:
            f.write(sum_record(lst))
    # the series n3tel exports for the containers, level 1 (the first group)
    m = first
    with open(os.path.join(ref, m.name + '.json')) as f:
        arm = json.load(f)['metrics']
    l1_events = {e for x in m.groups[0][2] for e in arm[x]['events']}
    for name, expect in (('cgroup-expect.prom', CG_EXPECT), ('cgroup-expect-max1.prom',
                                                              CG_EXPECT_MAX1)):
        out = []
        for path, lst, labels in expect:
            ino = os.stat(os.path.join(base, path.lstrip('/'))).st_ino if path[0] == '/' else 0
            lab = f'cgroup="{path}"' + (f',cgroup_id="{ino}"' if ino else '') + f',cpus="{lst}"'
            for k in ('pod_uid', 'container_id', 'unit'):
                if k in labels:
                    lab += f',{k}="{labels[k]}"'
            lab += f',model="{m.name}"'
            out.append(f'n3telemetry_cgroup_cpus{{{lab}}} {len(cpu_set(lst))}')
            out.append(f'n3telemetry_cgroup_counted_cpus{{{lab}}} {len(cpu_set(lst) - {IDLE})}')
            vals = sum_values(lst)
            for x in m.groups[0][2]:
                i = m.mnames.index(x)
                v, c = vals[i]
                unit = m.metrics[i][1]
                fam = ('n3telemetry_cgroup_' + (x[:-len('_percentage')] if x.endswith('_percentage')
                                                else x) + '_ratio') \
                    if unit.startswith('percent') else 'n3telemetry_cgroup_' + x
                if v is None:
                    txt = 'NaN'
                elif unit.startswith('percent'):
                    txt = f'{v // 10 ** 8}.{v % 10 ** 8:08d}'
                else:
                    txt = f'{v // 10 ** 6}.{v % 10 ** 6:06d}'
                out.append(f'{fam}{{{lab}' + (',composed="1"' if c else '') + f'}} {txt}')
            # the cumulative counts of the events those metrics read (Arm's lists)
            for e in sorted(l1_events):
                c, n = sum_counts(lst, e)
                fam = 'n3telemetry_cgroup_event_' + e.lower()
                out.append(f'{fam}_total{{{lab}}} {c}')
                out.append(f'{fam}_counted_seconds_total{{{lab}}} {n // 10 ** 9}.{n % 10 ** 9:09d}')
        past = 2 if expect is CG_EXPECT_MAX1 else 0
        out.append(f'n3telemetry_cgroups_past_limit {past}')
        out.append('n3telemetry_cgroups_error 0')
        put(name, '\n'.join(sorted(out)) + '\n')


if variant != 'no-snapshot':
    with open(os.path.join(root, 'snapshot'), 'wb') as f:
        f.write(snapshot(0))
    if variant == 'stat':
        with open(os.path.join(root, 'snapshot.after'), 'wb') as f:
            f.write(snapshot(1))
        put('stat-expect.csv', stat_expect([0]))
    if variant == 'cgroup':
        cgroup_tree()
