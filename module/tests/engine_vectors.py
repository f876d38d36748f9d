#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate engine_vectors.h: expected printed values of every metric of
every model for a few count vectors, computed from Arm's own formula strings
with exact rationals (fractions.Fraction), rounded half away from zero to the
unit's precision (selftests/host/expected.py, shared with the host tests).
Independent of the engine's code and tables: models, events and metrics are
named, not indexed.

Vectors per model: a realistic interval, zeros, all equal, all 2^44 - 1, a
negative frontend_bound where the model has one, the realistic interval with
other slot counts, and counts built so that some metrics (the topdown level 1
ones first) are exactly half a unit of their last printed digit.

usage: engine_vectors.py DESC.json [DESC.json ...] > engine_vectors.h"""
import json
import os
import random
import re
import sys
import zlib
from fractions import Fraction
from math import floor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'selftests', 'host'))
import expected  # noqa: E402  (units, printed text, ties: shared with the host tests)

# A realistic interval (1e9 cycles); events not listed get a fixed value
# derived from their name.
TYPICAL = dict(CPU_CYCLES=1000000000, INST_RETIRED=1800000000, STALL_SLOT=2600000000,
               STALL_SLOT_FRONTEND=1100000000, STALL_SLOT_BACKEND=1500000000,
               STALL_FRONTEND_FLUSH=40000000, OP_RETIRED=2100000000, OP_SPEC=2300000000,
               STALL_FRONTEND=300000000, STALL_BACKEND=450000000, BR_MIS_PRED=3500000,
               STALL_FRONTEND_CPUBOUND=120000000, STALL_FRONTEND_MEMBOUND=180000000,
               STALL_FRONTEND_FLOW=70000000, STALL_FRONTEND_L1I=90000000,
               STALL_FRONTEND_MEM=60000000, STALL_FRONTEND_TLB=30000000,
               STALL_BACKEND_CPUBOUND=200000000, STALL_BACKEND_MEMBOUND=250000000,
               STALL_BACKEND_RENAME=50000000, STALL_BACKEND_BUSY=130000000,
               STALL_BACKEND_L1D=110000000, STALL_BACKEND_MEM=90000000,
               STALL_BACKEND_TLB=30000000, STALL_BACKEND_ST=20000000,
               L1I_CACHE=600000000, L1I_CACHE_REFILL=9000000, L1D_CACHE=700000000,
               L1D_CACHE_REFILL=21000000, L2D_CACHE=40000000, L2D_CACHE_REFILL=7000000,
               LL_CACHE_RD=6000000, LL_CACHE_MISS_RD=2500000, BR_RETIRED=300000000,
               BR_MIS_PRED_RETIRED=3000000, BR_IMMED_RETIRED=250000000,
               BR_IND_RETIRED=20000000, BR_RETURN_RETIRED=15000000, INST_SPEC=2000000000,
               LD_SPEC=500000000, ST_SPEC=200000000, DP_SPEC=900000000, DSB_SPEC=1000000,
               ISB_SPEC=500000, DMB_SPEC=1500000, ASE_SPEC=100000000, VFP_SPEC=50000000,
               PC_WRITE_SPEC=310000000, CRYPTO_SPEC=5000000, SVE_INST_SPEC=80000000,
               SVE_PRED_SPEC=60000000, SVE_PRED_FULL_SPEC=40000000,
               SVE_PRED_PARTIAL_SPEC=15000000, SVE_PRED_EMPTY_SPEC=5000000,
               FP_HP_SPEC=1000000, FP_SP_SPEC=30000000, FP_DP_SPEC=45000000,
               FP_SCALE_OPS_SPEC=120000000, FP_FIXED_OPS_SPEC=90000000,
               L1I_TLB=600000000, L1I_TLB_REFILL=3000000, L1D_TLB=700000000,
               L1D_TLB_REFILL=8000000, L2D_TLB=11000000, L2D_TLB_REFILL=1200000,
               ITLB_WALK=400000, DTLB_WALK=900000)
TIE_METRICS = ['retiring', 'bad_speculation', 'frontend_bound', 'backend_bound', 'ipc',
               'l1d_cache_miss_ratio', 'l2_cache_mpki', 'backend_stalled_cycles']


def mobius(fn, counts, y, slots):
    """a, b, c, d with fn = (a y + b) / (c y + d) in the count y, or None;
    d = 1 (these vectors were built without the functions with d = 0)."""
    ys = [Fraction(v) for v in (3, 11, 29, 61)]
    fs = []
    for v in ys:
        f = fn(dict(counts, **{y: v}), slots)
        if f is None:
            return None
        fs.append(f)
    abcd = expected.mobius(ys, fs)
    return abcd if abcd and abcd[3] else None


def make_tie(rng, fn, names, evs, slots, dec):
    for _ in range(2000):
        counts = {n: rng.randrange(1, 1 << 12) for n in names}
        y = rng.choice(evs)
        abcd = mobius(fn, counts, y, slots)
        if abcd is None:
            continue
        k = floor(fn(counts, slots) * 10 ** dec) + rng.randrange(-20, 20)
        t = (Fraction(k) + Fraction(1, 2)) / 10 ** dec
        yv = expected.solve_tie(abcd, t)
        if yv is None:
            continue
        out = {n: v * yv.denominator for n, v in counts.items()}
        out[y] = yv.numerator
        if max(out.values()) >= expected.LIMIT or fn(out, slots) != t:
            continue
        return out
    raise SystemExit(f'no tie found for {evs}')


def typical(name):
    return TYPICAL.get(name, 1000000 + zlib.crc32(name.encode()) % 400000000)


def model_vectors(spec, model):
    slots = int(spec['product_configuration']['num_slots'])
    names = sorted({e for m in spec['metrics'].values() for e in m['events']},
                   key=lambda e: int(spec['events'][e]['code'], 16))
    fns = {n: expected.oracle(m['formula'], slots) for n, m in spec['metrics'].items()}
    typ = {n: typical(n) for n in names}
    vectors = [
        ('typical', slots, typ),
        ('zeros', slots, {n: 0 for n in names}),
        ('equal', slots, {n: 1000 for n in names}),
        ('max_range', slots, {n: expected.LIMIT - 1 for n in names}),
        ('typical_slots_4', 4, typ),
        ('typical_slots_255', 255, typ),
    ]
    if 'STALL_SLOT_FRONTEND' in names:
        vectors.append(('fe_negative', slots, dict(typ, STALL_SLOT_FRONTEND=100000000,
                                                   STALL_FRONTEND_FLUSH=90000000,
                                                   BR_MIS_PRED=90000000)))
    rng = random.Random(f'n3t-vectors-{model}')
    for mname in TIE_METRICS:
        if mname not in spec['metrics']:
            continue
        m = spec['metrics'][mname]
        counts = make_tie(rng, fns[mname], names, sorted(set(m['events'])), slots,
                          expected.decimals(m['units']))
        vectors.append((f'tie_{mname}', slots, counts))
    return names, fns, vectors


def main():
    out = ['/* SPDX-License-Identifier: GPL-2.0 */',
           '/* Generated by engine_vectors.py from Arm\'s telemetry descriptions; do not edit. */']
    table = []
    expect = []
    for path in sys.argv[1:]:
        spec = json.load(open(path))
        model = os.path.basename(path)[:-5]
        ident = re.sub(r'[^a-z0-9]', '_', model)
        names, fns, vectors = model_vectors(spec, model)
        for vname, slots, counts in vectors:
            arr = f'n3t_v_{ident}_{vname}'
            out.append(f'static const struct n3t_vcount {arr}[] = {{')
            out += [f'\t{{ "{n}", {counts[n]}ULL }},' for n in names]
            out.append('};\n')
            first = len(expect)
            for mname in sorted(spec['metrics']):
                m = spec['metrics'][mname]
                text = expected.fmt(fns[mname](counts, slots), expected.decimals(m['units']))
                expect.append(f'\t{{ "{mname}", "{text}" }},')
            table.append(f'\t{{ "{model}", "{vname}", {slots},\n\t  {arr},\n'
                         f'\t  ARRAY_SIZE({arr}), {first}, {len(expect) - first} }},')
    out.append('static const struct n3t_expect n3t_expected[] = {')
    out += expect
    out.append('};\n')
    out.append('static const struct n3t_vector n3t_vectors[] = {')
    out += table
    out.append('};')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
