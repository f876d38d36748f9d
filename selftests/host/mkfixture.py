#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a fixture /sys/kernel/n3telemetry tree for n3tel's host tests.

usage: mkfixture.py ENGINE_HOST_TEST DIR [variant]
variants: good (default), malformed, missing-file, bad-magic, bad-version,
bad-sizes, no-snapshot.  Metric names, units and event names are taken from
the engine (engine-host-test tables); values are fixed, made-up numbers,
written both as text (rounded like the module) and in the binary snapshot
(uapi/linux/n3telemetry.h layout)."""
import os
import struct
import subprocess
import sys

binary, root = sys.argv[1], sys.argv[2]
variant = sys.argv[3] if len(sys.argv) > 3 else 'good'
tables = subprocess.run([binary, 'tables'], capture_output=True, text=True, check=True).stdout
events = [ln.split()[1] for ln in tables.splitlines() if ln.startswith('event ')]
metrics = []
for ln in tables.splitlines():
    if ln.startswith('metric '):
        name, unit = ln[7:].split('|')[0].split(' ', 1)
        metrics.append((name, unit))
groups = [(ln.split()[1], ln.split()[3:]) for ln in tables.splitlines() if ln.startswith('group ')]
DEFAULT = ['topdown_l1', 'topdown_frontend', 'topdown_backend', 'general',
           'l1i_cache', 'l1d_cache', 'l2_cache', 'll_cache']
selected = {m for g, ms in groups if g in DEFAULT for m in ms}
CPUS = [0, 1, 2, 3]
IDLE = 2          # no interval published yet


def decimals(unit):
    if unit.startswith('percent'):
        return 2
    if unit in ('MPKI', 'per cycle', 'operations per cycle'):
        return 3
    return 4


def value(cpu, i, name):
    """fixed point (millionths) or None"""
    if cpu == IDLE or name not in selected:
        return None
    l1 = {'frontend_bound': [21370000, 12500000, 0, -1250000],
          'backend_bound': [34020000, 60000000, 0, 55000000],
          'retiring': [41500000, 20125000, 0, 40000000],
          'bad_speculation': [3110000, 7375000, 0, 6250000]}
    if name in l1:
        return l1[name][cpu]
    if name == 'll_cache_read_hit_ratio' and cpu == 3:
        return None          # an undefined value on a live CPU
    return (cpu + 1) * 1000003 * (i + 7) % 97000000 + 1500


def fmt(v, dec):
    if v is None:
        return 'nan'
    div = 10 ** (6 - dec)
    q = (abs(v) + div // 2) // div
    s = '-' if v < 0 and q else ''
    return f'{s}{q // 10 ** dec}.{q % 10 ** dec:0{dec}d}'


os.makedirs(root, exist_ok=True)


def put(rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text)


put('version', '0.2.0\n')
put('cpu_model', 'neoverse-n3\n')
put('slots', '5\n')
put('counters', 'programmable 6\ncycle_counter free\n')
put('interval_ms', '1000\n')
put('groups', ' '.join(DEFAULT) + '\n')
put('available_groups', ' '.join(g for g, _ in groups) + '\n')
put('sets', 'set0 CPU_CYCLES\n')
used_events = ['INST_RETIRED', 'CPU_CYCLES', 'L1D_CACHE', 'L1D_CACHE_REFILL', 'STALL_SLOT']


def counts(cpu, e):
    return (cpu + 1) * 1000000000 + events.index(e) * 12345, (cpu + 1) * 900000000 + events.index(e)


for d, cpu in [(f'cpu{c}', c) for c in CPUS] + [('system', None)]:
    for g, ms in groups:
        lines = []
        for m in ms:
            i = [n for n, _ in metrics].index(m)
            v = value(cpu if cpu is not None else 0, i, m)
            lines.append(f'{m} {fmt(v, decimals(metrics[i][1]))}')
        put(f'{d}/{g}', '\n'.join(lines) + '\n')
    idle = cpu == IDLE
    put(f'{d}/status', f'seq {0 if idle else 42}\nend_ns {0 if idle else 84000000000}\n'
        f'interval_ns {0 if idle else 1000000000}\nlost_slices {cpu or 0}\n'
        + ('state collecting\n' if cpu is not None else
           'cpus_collecting 4\ncpus_isolated 0\ncpus_failed 0\n') +
        f'set0_coverage {"0.00" if idle else "99.50"}\nset0_lost 0\n')
    put(f'{d}/events', ''.join(f'{e} {counts(cpu or 0, e)[0]} {counts(cpu or 0, e)[1]}\n'
                               for e in sorted(used_events, key=events.index)))

if variant == 'malformed':
    put('cpu1/general', 'ipc one-point-two\n')
if variant == 'missing-file':
    os.remove(os.path.join(root, 'cpu3/l2_cache'))

if variant != 'no-snapshot':
    magic = 0x5354334e if variant != 'bad-magic' else 0x12345678
    abi = 1 if variant != 'bad-version' else 2
    nev, nm = len(events), len(metrics)
    rec_size = 8 + 24 + 8 + 32 + 8 * (nm + 2 * nev)
    hdr_size = 48 if variant != 'bad-sizes' else 40
    group_bits = sum(1 << [g for g, _ in groups].index(g) for g in DEFAULT)
    data = struct.pack('<10IQ', magic, abi, hdr_size, rec_size, len(CPUS), nev, nm, 5, 1000,
                       group_bits, 1000000)
    for c in CPUS:
        idle = c == IDLE
        valid = [0, 0]
        vals = []
        for i, (m, unit) in enumerate(metrics):
            v = value(c, i, m)
            if v is not None:
                valid[i // 64] |= 1 << (i % 64)
                # the text files hold the rounded value: give the snapshot
                # the same so both sources print identically
                dec = decimals(unit)
                v = int(fmt(v, dec).replace('.', '')) * 10 ** (6 - dec)
            vals.append(v or 0)
        counted = [0, 0]
        ec, ens = [], []
        for i, e in enumerate(events):
            if e in used_events:
                counted[i // 64] |= 1 << (i % 64)
                a, b = counts(c, e)
            else:
                a = b = 0
            ec.append(a)
            ens.append(b)
        data += struct.pack('<IIQQQII2Q2Q', c, 0 if idle else 1, 0 if idle else 42,
                            0 if idle else 84000000000, 0 if idle else 1000000000, 1, c,
                            *valid, *counted)
        data += struct.pack(f'<{nm}q', *vals) + struct.pack(f'<{nev}Q', *ec) + \
            struct.pack(f'<{nev}Q', *ens)
    with open(os.path.join(root, 'snapshot'), 'wb') as f:
        f.write(data)
