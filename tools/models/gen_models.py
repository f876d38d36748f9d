#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate module/models.c from Arm's Neoverse telemetry descriptions.

usage: gen_models.py OUT.c OUT_MIDR.h DESC.json [DESC.json ...]
(also writes models.h, the declarations, next to OUT.c)
       gen_models.py --text-bounds DESC.json [DESC.json ...]
(prints the bound of each sysfs file's text per model: "FILE MODEL BYTES")

Each JSON file describes one core (or one revision range of a core): its
events, metrics (formula strings), metric groups, slot count and MIDR part
number and revision.  This script takes facts only: event names and codes,
metric names, units and groups, and compiles each formula (parsed by
formulas.py, the parser gen_rules.py uses too) into a single quotient of two
integer polynomials over the event counts and the slot count S (the literal
slot count multiplying CPU_CYCLES becomes S).  The engine evaluates those
exactly in integers (engine.c).  Every compiled formula is checked here
against the formula string itself (formulas.oracle(): Python's own
evaluation, with exact rationals) before anything is written.  Python 3
standard library only."""
import io
import itertools
import json
import os
import random
import re
import sys
from fractions import Fraction
from math import gcd

import formulas		# the parser shared with tools/prometheus/gen_rules.py
import generated	# how the generators write their files

SLOTS = 'S'

# Group file names: the N3 ABI's names for the groups Arm defines; a group
# not listed here gets its spec name in lower case.
GROUP_FILES = {
    'Topdown_L1': 'topdown_l1', 'Topdown_Frontend': 'topdown_frontend',
    'Topdown_Backend': 'topdown_backend', 'Cycle_Accounting': 'cycle_accounting',
    'General': 'general', 'MPKI': 'mpki', 'Miss_Ratio': 'miss_ratio',
    'Branch_Effectiveness': 'branch', 'ITLB_Effectiveness': 'itlb',
    'DTLB_Effectiveness': 'dtlb', 'L1I_Cache_Effectiveness': 'l1i_cache',
    'L1D_Cache_Effectiveness': 'l1d_cache', 'L2_Cache_Effectiveness': 'l2_cache',
    'LL_Cache_Effectiveness': 'll_cache', 'Operation_Mix': 'operation_mix',
    'SVE_Effectiveness': 'sve', 'FP_Arithmetic_Intensity': 'fp_arithmetic',
    'FP_Precision_Mix': 'fp_precision',
}
# Order groups are listed in (then any other group, in file order).
GROUP_ORDER = list(GROUP_FILES)
# Default selection: topdown first, then the basic effectiveness groups.
DEFAULT_GROUPS = ['topdown_l1', 'topdown_frontend', 'topdown_backend', 'general',
                  'l1i_cache', 'l1d_cache', 'l2_cache', 'll_cache']
# Without topdown level 1 (Neoverse N1), cycle accounting stands in for it.
DEFAULT_NO_TOPDOWN = ['cycle_accounting']
UNITS = ['percent of slots', 'percent of cycles', 'percent of operations', 'MPKI',
         'per cycle', 'operations per cycle', 'per branch', 'per TLB access',
         'per cache access']
UNIT_ENUM = ['PCT_SLOTS', 'PCT_CYCLES', 'PCT_OPS', 'MPKI', 'PER_CYCLE', 'OPS_PER_CYCLE',
             'PER_BRANCH', 'PER_TLB_ACCESS', 'PER_CACHE_ACCESS']
MAX_DEGREE = 3		# factors per monomial (engine.h N3T_MONO_FACTORS)
MAX_COEF = (1 << 31) - 1


# --- polynomials: {tuple(sorted factor names): int coefficient} -------------

def padd(a, b, k=1):
    r = dict(a)
    for m, c in b.items():
        r[m] = r.get(m, 0) + k * c
        if not r[m]:
            del r[m]
    return r


def pmul(a, b):
    r = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            r[m] = r.get(m, 0) + ca * cb
            if not r[m]:
                del r[m]
    return r


def pconst(c):
    return {(): c} if c else {}


def pcontent(p):
    g = 0
    for c in p.values():
        g = gcd(g, c)
    return g or 1


def pkey(p):
    return tuple(sorted(p.items()))


# --- rational functions: c * num / prod(atoms) --------------------------------
# c: Fraction; num: integer polynomial; den: {atom key: (poly, power)} where an
# atom is a polynomial with content 1 and a positive leading coefficient.

class R:
    def __init__(self, num, den=None, c=Fraction(1)):
        self.num, self.den, self.c = num, den or {}, Fraction(c)

    @staticmethod
    def const(v):
        return R(pconst(1), {}, Fraction(v))

    @staticmethod
    def var(name):
        return R({(name,): 1})

    def den_poly(self):
        p = pconst(1)
        for atom, k in self.den.values():
            for _ in range(k):
                p = pmul(p, atom)
        return p

    def scaled_num(self, den):
        """num * den / self.den as a polynomial (den a multiple of self.den)."""
        p = self.num
        for key, (atom, k) in den.items():
            for _ in range(k - self.den.get(key, (None, 0))[1]):
                p = pmul(p, atom)
        return p

    def __add__(self, o):
        den = dict(self.den)
        for key, (atom, k) in o.den.items():
            if den.get(key, (None, 0))[1] < k:
                den[key] = (atom, k)
        a, b = self.scaled_num(den), o.scaled_num(den)
        # c1 * a + c2 * b with rational c: bring both to one denominator.
        l = self.c.denominator * o.c.denominator // gcd(self.c.denominator, o.c.denominator)
        num = padd({m: c * int(self.c * l) for m, c in a.items()},
                   {m: c * int(o.c * l) for m, c in b.items()})
        return R(num, den, Fraction(1, l)).norm()

    def __neg__(self):
        return R(self.num, self.den, -self.c)

    def __sub__(self, o):
        return self + (-o)

    def __mul__(self, o):
        den = dict(self.den)
        for key, (atom, k) in o.den.items():
            den[key] = (atom, den.get(key, (None, 0))[1] + k)
        return R(pmul(self.num, o.num), den, self.c * o.c).norm()

    def inverse(self):
        if not self.num:
            raise ZeroDivisionError
        # Split the numerator into atoms: a single monomial becomes its
        # variables; a sum becomes one atom.
        c = self.c
        num = self.num
        g = pcontent(num)
        if min(num)[0:0] == () and next(iter(sorted(num.items())))[1] < 0:
            g = -g
        num = {m: v // g for m, v in num.items()}
        c *= g
        den = {}
        if len(num) == 1:
            (m, v), = num.items()
            assert v == 1
            for f in m:
                den[(((f,), 1),)] = ({(f,): 1}, den.get((((f,), 1),), (None, 0))[1] + 1)
        else:
            lead = sorted(num.items())[0][1]
            if lead < 0:
                num = {m: -v for m, v in num.items()}
                c = -c
            den[pkey(num)] = (num, 1)
        r = R(pconst(1), den, 1 / c)
        for atom, k in self.den.values():
            for _ in range(k):
                r.num = pmul(r.num, atom)
        return r.norm()

    def __truediv__(self, o):
        return self * o.inverse()

    def norm(self):
        # Cancel single-variable atoms that divide every monomial.
        for key in list(self.den):
            atom, k = self.den[key]
            if len(atom) != 1 or len(next(iter(atom))) != 1:
                continue
            f = next(iter(atom))[0]
            while k and self.num and all(f in m for m in self.num):
                nn = {}
                for m, v in self.num.items():
                    lm = list(m)
                    lm.remove(f)
                    nn[tuple(lm)] = v
                self.num = nn
                k -= 1
            if k:
                self.den[key] = (atom, k)
            else:
                del self.den[key]
        g = pcontent(self.num)
        if self.num:
            self.num = {m: v // g for m, v in self.num.items()}
            self.c *= g
        return self

    def quotient(self):
        """(N, D): integer polynomials with value == N / D, D's constant > 0."""
        n = {m: v * self.c.numerator for m, v in self.num.items()}
        d = {m: v * self.c.denominator for m, v in self.den_poly().items()}
        g = gcd(pcontent(n), pcontent(d))
        return ({m: v // g for m, v in n.items()}, {m: v // g for m, v in d.items()})


# --- formulas -------------------------------------------------------------------

def compile_formula(formula, slots):
    """(N, D): the formula (formulas.py's tree) as a quotient of two integer
    polynomials; the slot literal multiplying CPU_CYCLES becomes S."""
    tree = formulas.parse(formula, slots)
    r = formulas.fold(tree, R.const, R.var, lambda: R.var(SLOTS) * R.var(formulas.CYCLES))
    return r.quotient()


def peval(p, counts):
    total = 0
    for m, c in p.items():
        v = c
        for f in m:
            v *= counts[f]
        total += v
    return total


def self_check(name, formula, events, slots, num, den):
    """num / den equals Python's own evaluation of the formula string."""
    rng = random.Random(name)
    want_fn = formulas.oracle(formula)
    for _ in range(200):
        counts = {e: rng.randrange(1, 1 << rng.choice([4, 20, 44])) for e in events}
        counts[SLOTS] = slots
        want = want_fn(counts)
        if want is None:
            continue
        d = peval(den, counts)
        if d == 0 or Fraction(peval(num, counts), d) != want:
            raise SystemExit(f'{name}: compiled formula disagrees with {formula!r}')


# --- per-core model -------------------------------------------------------------

def cident(s):
    return re.sub(r'[^a-z0-9]', '_', s.lower())


def load(path):
    spec = json.load(open(path))
    pc = spec['product_configuration']
    slots = int(pc['num_slots'])
    base = os.path.basename(path)[:-5]
    model = dict(file=base, ident=cident(base), title=pc['product_name'],
                 implementer=int(pc['implementer'], 16), part=int(pc['part_num'], 16),
                 variant=int(pc['major_revision']), revision=int(pc['minor_revision']),
                 slots=slots, generic=bool(pc.get('generic')))
    used = set()
    for m in spec['metrics'].values():
        used |= set(m['events'])
    events = sorted(used, key=lambda e: int(spec['events'][e]['code'], 16))
    model['events'] = [(e, int(spec['events'][e]['code'], 16)) for e in events]
    for e, code in model['events']:
        if not 0 <= code <= 0xffff:
            raise SystemExit(f'{base}: {e}: event number 0x{code:x} is not 16 bits')
    if 'CPU_CYCLES' not in used:
        raise SystemExit(f'{base}: no metric uses CPU_CYCLES')
    index = {e: i for i, e in enumerate(events)}
    metrics = []
    for name in sorted(spec['metrics']):
        m = spec['metrics'][name]
        if m['units'] not in UNITS:
            raise SystemExit(f'{base}: {name}: unknown unit {m["units"]!r}')
        try:
            num, den = compile_formula(m['formula'], slots)
            self_check(f'{base}/{name}', m['formula'], events, slots, num, den)
        except (ValueError, KeyError, TypeError, ZeroDivisionError, SyntaxError) as e:
            raise SystemExit(f'{base}: {name}: bad formula {m["formula"]!r}: '
                             f'{type(e).__name__}: {e}')
        for p in (num, den):
            for mono, c in p.items():
                if len(mono) > MAX_DEGREE or abs(c) > MAX_COEF:
                    raise SystemExit(f'{base}: {name}: term too large for the engine')
                for f in mono:
                    if f != SLOTS and f not in index:
                        raise SystemExit(f'{base}: {name}: {f} not among its events')
        formula_events = set(re.findall(r'\b[A-Z][A-Z0-9_]*\b', m['formula']))
        if formula_events != set(m['events']):
            raise SystemExit(f'{base}: {name}: event list differs from its formula')
        metrics.append(dict(name=name, unit=UNITS.index(m['units']), num=num, den=den,
                            formula=m['formula']))
    model['metrics'] = metrics
    mindex = {m['name']: i for i, m in enumerate(metrics)}
    spec_groups = spec['groups']['metrics']
    order = [g for g in GROUP_ORDER if g in spec_groups] + \
            [g for g in spec_groups if g not in GROUP_ORDER]
    model['groups'] = [(GROUP_FILES.get(g, g.lower()), g,
                        [mindex[x] for x in spec_groups[g]['metrics']]) for g in order]
    files = [g[0] for g in model['groups']]
    defaults = DEFAULT_GROUPS if 'topdown_l1' in files else DEFAULT_NO_TOPDOWN + DEFAULT_GROUPS
    model['default'] = [i for i, f in enumerate(files) if f in defaults]
    return model


# --- sysfs text bounds ------------------------------------------------------------
# The longest text each sysfs file of module/sysfs.c can print, computed
# from the tables by mirroring its show() formats with the widest value of
# each conversion.  sysfs gives show() one page; the smallest arm64 page is
# PAGE_BYTES.  The bounds assume the module's limits below, which sysfs.c
# checks against its own (static_assert), as it checks each bound.

PAGE_BYTES = 4096
VALUE_BUF = 24		# engine.h N3T_VALUE_BUF: a formatted value or age
MAX_CORE_TYPES = 4		# config.h N3T_MAX_CORE_TYPES: core types at once
MAX_SETS = 64			# engine.h N3T_MAX_SETS: sets of one plan
COMPOSED = ' composed'		# sysfs.c: after a composed metric's value
U64 = '1' * 20		# %llu: 18446744073709551615
# system/events: 128-bit sums of the CPUs' 64-bit counts; those of up to
# SUM_CPUS CPUs have 22 digits at most (sysfs.c refuses a longer text)
SUM_CPUS = (10 ** 22 - 1) // (2 ** 64 - 1)
SUM = '1' * len(str(SUM_CPUS * (2 ** 64 - 1)))
U32 = '1' * 10		# %u: 4294967295
VALUE = 'v' * (VALUE_BUF - 1)
COVERAGE = '100.00'	# status: setK_coverage is at most 100.00
# status: the words of the state line (collect.c n3t_state_names and
# n3t_cpu_state_name()'s "unknown"; system/: sysfs.c status_show())
CPU_STATES = ['stopped', 'collecting', 'isolated', 'failed-no-memory',
              'failed-no-counters', 'unsupported-core', 'paused', 'stepped-aside',
              'unknown']
SYSTEM_STATES = ['collecting', 'paused']
DIR_NO_MODEL = ['unsupported', 'isolated']	# cpuN/cpu_model without a table

# (key, macro, files, what the bound assumes); a key's bound is per model
# (text_bounds()) or over the models at once (text_bounds_all()).
TEXT_FILES = [
    ('model_events', 'MODEL_EVENTS', 'models/<model>/events', 'every event'),
    ('model_metrics', 'MODEL_METRICS', 'models/<model>/metrics', 'every metric'),
    ('model_groups', 'MODEL_GROUPS', 'models/<model>/groups', 'every group'),
    ('model_formulas', 'MODEL_FORMULAS', 'models/<model>/formulas',
     "every metric's formula (engine.c n3t_format_formula())"),
    ('sets', 'SETS', 'sets, models/<model>/sets',
     "a set per metric and per rate, with their events"),
    ('group', 'GROUP_FILE', 'cpuN/<group>, system/<group>',
     'the largest group, values the widest, composed'),
    ('events', 'EVENTS', 'cpuN/events', 'every event, 20-digit counts'),
    ('system_events', 'SYSTEM_EVENTS', 'system/events',
     f'every event, the sums of {SUM_CPUS} CPUs ({len(SUM)} digits)'),
    ('ages', 'AGES', 'cpuN/ages, system/ages', 'every group selected'),
    ('status', 'STATUS', 'cpuN/status, system/status',
     'N3T_MAX_SETS sets at most'),
    ('dir_cpu_model', 'DIR_CPU_MODEL', 'cpuN/cpu_model, system/cpu_model',
     'the longest name'),
    ('group_list', 'GROUP_LIST', 'groups, available_groups',
     'the names of the N3T_MAX_CORE_TYPES models with the most'),
    ('cpu_model', 'CPU_MODEL', 'cpu_model',
     'the N3T_MAX_CORE_TYPES longest names, all forced'),
]
# Files known not to fit in a page whatever the bound: reported, not
# refused, and not in N3T_TEXT_MAX; sysfs.c says so where they are shown.
OVER_PAGE = {}


# INST_RETIRED, INST_SPEC, OP_RETIRED, OP_SPEC: n3t_always_counts()
ALWAYS_COUNTS = (0x08, 0x1b, 0x3a, 0x3b)


def metric_events(metric):
    """The events a compiled metric reads (the engine's n3t_metric_events())."""
    return {f for p in (metric['num'], metric['den']) for mono in p for f in mono
            if f != SLOTS}


def text_bounds(mdl):
    """{key: bytes}: the longest text of each per-model file of TEXT_FILES."""
    events = [e for e, _ in mdl['events']]
    names = [m['name'] for m in mdl['metrics']]
    groups = mdl['groups']
    # every set holds a metric or the rate of an event of a composed one
    # (with CPU_CYCLES, its base), and each metric is in one set or composed
    # (engine.c n3t_pack()): at most a set per metric and one per event, and
    # N3T_MAX_SETS, whose events are among their metrics' and rates' events
    nr_sets = min(MAX_SETS, len(names) + len(events))
    b = {}
    b['model_events'] = sum(len(f'{e} 0x{0xffff:04x}\n') for e in events)
    b['model_metrics'] = sum(len(f'{m["name"]} {6} {UNITS[m["unit"]]}\n')
                             for m in mdl['metrics'])
    b['model_groups'] = sum(len(f'{f} {g}' + ''.join(f' {names[i]}' for i in ms) + '\n')
                            for f, g, ms in groups)
    index = {e: i for i, e in enumerate(events)}

    def poly(p):
        monos = sorted(p.items(), key=lambda mc: (len(mc[0]), mc[0]))
        if not monos:
            return ' +0'
        return ''.join(f' {c:+d}' + ''.join('*slots' if f == SLOTS else f'*e{index[f]}'
                                             for f in mono) for mono, c in monos)
    b['model_formulas'] = sum(len(f'{m["name"]}{poly(m["num"])} /{poly(m["den"])}\n')
                              for m in mdl['metrics'])
    # a set names CPU_CYCLES once at most; every other event it names is
    # one a metric placed there or a rate counted there added
    b['sets'] = sum(len(f'set{s} CPU_CYCLES\n') for s in range(nr_sets)) + \
        sum(len(f' {e}') for m in mdl['metrics'] for e in metric_events(m)
            if e != 'CPU_CYCLES') + \
        sum(len(f' {e}') for e in events)
    b['group'] = max(sum(len(f'{names[i]} {VALUE}{COMPOSED}\n') for i in ms)
                     for _, _, ms in groups)
    b['events'] = sum(len(f'{e} {U64} {U64}\n') for e in events)
    b['system_events'] = sum(len(f'{e} {SUM} {SUM}\n') for e in events)
    b['ages'] = sum(len(f'{f} seq {U64} end_ns {U64} age_ms {VALUE}\n') for f, _, _ in groups)
    head = f'seq {U64}\nend_ns {U64}\ninterval_ns {U64}\nlost_slices {U64}\n' \
        f'sets_per_interval {U32}\n'
    cpu = f'state {max(CPU_STATES, key=len)}\n'
    system = f'state {max(SYSTEM_STATES, key=len)}\ncpus_collecting {U32}\n' \
        f'cpus_isolated {U32}\ncpus_failed {U32}\ncpus_unsupported {U32}\n' \
        f'cpus_aside {U32}\n'
    # the events every running core counts (module/coretype.c), all hidden
    always = [e for e, c in mdl['events'] if c in ALWAYS_COUNTS]
    hidden = len('hidden_events') + max(len(' none'), sum(len(f' {e}') for e in always)) + 1
    b['status'] = len(head) + max(len(cpu), len(system)) + hidden + \
        sum(len(f'set{s}_coverage {COVERAGE}\nset{s}_lost {U64}\n') for s in range(nr_sets))
    b['dir_cpu_model'] = max(len(f'{x}\n') for x in [mdl['file']] + DIR_NO_MODEL)
    return b


def text_bounds_all(models):
    """{key: bytes}: the files that list several models at once: one core type
    per core type, at most MAX_CORE_TYPES, each a different model."""
    k = min(MAX_CORE_TYPES, len(models))
    lists = []
    for some in itertools.combinations(models, k):
        names = {f for m in some for f, _, _ in m['groups']}
        lists.append(len(' '.join(sorted(names)) + '\n'))
    longest = sorted((len(m['file']) for m in models), reverse=True)[:k]
    return dict(group_list=max(lists),
                cpu_model=sum(len(f'{"x" * n} (forced)\n') for n in longest))


def text_table(models):
    """[(key, bytes, where)]: every TEXT_FILES key's bound over the models,
    where it is reached; SystemExit when one that must fit does not."""
    per = {m['file']: text_bounds(m) for m in models}
    both = text_bounds_all(models)
    rows = []
    for key, _, files, _ in TEXT_FILES:
        if key in both:
            rows.append((key, both[key], 'all'))
            continue
        model = max(per, key=lambda f: (per[f][key], f))
        rows.append((key, per[model][key], model))
    for key, n, where in rows:
        if n > PAGE_BYTES and key not in OVER_PAGE:
            files = next(t[2] for t in TEXT_FILES if t[0] == key)
            raise SystemExit(f'{where}: {files} can print {n} bytes, more than a page '
                             f'({PAGE_BYTES}): the tables do not fit the sysfs files')
    return rows


def load_or_exit(path):
    """load(), with a one-line message instead of a traceback on bad input."""
    try:
        return load(path)
    except json.JSONDecodeError as e:
        raise SystemExit(f'{path}: not valid JSON: {e}')
    except KeyError as e:
        raise SystemExit(f'{path}: missing or unknown name {e}')
    except (OSError, ValueError, TypeError, AttributeError) as e:
        raise SystemExit(f'{path}: {type(e).__name__}: {e}')


def factor_code(f, index):
    return 'N3T_F_SLOTS' if f == SLOTS else str(index[f])


def emit_poly(out, p, index):
    monos = sorted(p.items(), key=lambda mc: (len(mc[0]), mc[0]))
    items = []
    for mono, c in monos:
        fs = ', '.join(factor_code(f, index) for f in mono)
        items.append(f'{{ {c}, {len(mono)}, {{ {fs} }} }}' if fs else f'{{ {c}, 0 }}')
    return items


def emit(models, out):
    w = out.write
    w('// SPDX-License-Identifier: GPL-2.0\n')
    w('/*\n * Generated by tools/models/gen_models.py from Arm\'s Neoverse telemetry\n')
    w(' * descriptions; do not edit.  Each metric is num / den, two integer\n')
    w(' * polynomials over the event counts and the slot count (N3T_F_SLOTS).\n */\n')
    w('#include "models.h"\n')
    for mdl in models:
        idx = {e: i for i, (e, _) in enumerate(mdl['events'])}
        p = 'n3t_' + mdl['ident']
        if mdl['generic']:
            w(f'\n/* {mdl["title"]}: {mdl["file"]}.json */\n')
        else:
            w(f'\n/* {mdl["title"]} r{mdl["variant"]}p{mdl["revision"]}: {mdl["file"]}.json */\n')
        w(f'static const struct n3t_event_desc {p}_events[] = {{\n')
        for e, code in mdl['events']:
            w(f'\t{{ "{e}", 0x{code:04x} }},\n')
        w('};\n\n')
        w(f'static const struct n3t_mono {p}_mono[] = {{\n')
        pos = 0
        for m in mdl['metrics']:
            n = emit_poly(out, m['num'], idx)
            d = emit_poly(out, m['den'], idx)
            m['at'] = (pos, len(n), pos + len(n), len(d))
            pos += len(n) + len(d)
            w(f'\t/* {m["name"]} */\n')
            for item in n + d:
                w(f'\t{item},\n')
        w('};\n\n')
        w(f'static const struct n3t_metric_desc {p}_metrics[] = {{\n')
        for m in mdl['metrics']:
            a = m['at']
            w(f'\t{{ "{m["name"]}", N3T_U_{UNIT_ENUM[m["unit"]]}, {a[0]}, {a[1]}, '
              f'{a[2]}, {a[3]} }},\n')
        w('};\n\n')
        w(f'static const struct n3t_group_desc {p}_groups[] = {{\n')
        for f, g, ms in mdl['groups']:
            w(f'\t{{ "{f}", "{g}", {len(ms)}, {{ {", ".join(map(str, ms))} }} }},\n')
        w('};\n\n')
        mask = sum(1 << i for i in mdl['default'])
        w(f'const struct n3t_model {p} = {{\n')
        w(f'\t.name = "{mdl["file"]}",\n')
        w(f'\t.title = "{mdl["title"]}",\n')
        w(f'\t.implementer = 0x{mdl["implementer"]:02x},\n')
        w(f'\t.part = 0x{mdl["part"]:03x},\n')
        w(f'\t.variant = {mdl["variant"]},\n')
        w(f'\t.revision = {mdl["revision"]},\n')
        w(f'\t.slots = {mdl["slots"]},\n')
        # a generic table's slot count is the core's (PMMIR_EL1.SLOTS)
        if mdl['generic']:
            w('\t.generic = true,\n')
        w(f'\t.cycles = {idx["CPU_CYCLES"]},\n')
        w(f'\t.nr_events = ARRAY_SIZE({p}_events),\n')
        w(f'\t.nr_metrics = ARRAY_SIZE({p}_metrics),\n')
        w(f'\t.nr_groups = ARRAY_SIZE({p}_groups),\n')
        w(f'\t.default_groups = 0x{mask:x},\n')
        w(f'\t.events = {p}_events,\n')
        w(f'\t.metrics = {p}_metrics,\n')
        w(f'\t.groups = {p}_groups,\n')
        w(f'\t.mono = {p}_mono,\n')
        w('};\n')
    w('\nconst struct n3t_model *const n3t_models[] = {\n')
    for mdl in models:
        w(f'\t&n3t_{mdl["ident"]},\n')
    w('};\n\nconst unsigned int n3t_nr_models = ARRAY_SIZE(n3t_models);\n')
    w('\n/**\n * n3t_model_by_name() - find a model\'s tables by name\n')
    w(' * @name: e.g. "neoverse-v2"\n *\n * Return: the model, or NULL.\n */\n')
    w('const struct n3t_model *n3t_model_by_name(const char *name)\n{\n')
    w('\tunsigned int i;\n\n\tfor (i = 0; i < n3t_nr_models; i++)\n')
    w('\t\tif (!strcmp(n3t_models[i]->name, name))\n')
    w('\t\t\treturn n3t_models[i];\n\treturn NULL;\n}\n')


def emit_header(models, out):
    w = out.write
    w('/* SPDX-License-Identifier: GPL-2.0 */\n')
    w('/* Generated by tools/models/gen_models.py; do not edit.  The tables. */\n')
    w('#ifndef N3T_MODELS_H\n#define N3T_MODELS_H\n\n#include "engine.h"\n\n')
    for m in models:
        w(f'extern const struct n3t_model n3t_{m["ident"]};\n')
    w('\n/*\n * The longest text each sysfs file can print for any of the tables, in\n')
    w(' * bytes: 20 digits for a u64, 10 for a u32, N3T_VALUE_BUF - 1 characters\n')
    w(' * for a value or an age, at most a set per metric and per rate.  sysfs.c checks each\n')
    w(' * against show()\'s page (static_assert), and the limits the bounds assume\n')
    if OVER_PAGE:
        w(' * against its own.  N3T_TEXT_MAX: the longest of the files that fit, all\n')
        w(' * but ' + ', '.join(sorted(OVER_PAGE)) + ' (see sysfs.c).\n */\n')
    else:
        w(' * against its own.  N3T_TEXT_MAX: the longest of them.\n */\n')
    w(f'#define N3T_TEXT_VALUE_BUF\t{VALUE_BUF}\t/* N3T_VALUE_BUF */\n')
    w(f'#define N3T_TEXT_CORE_TYPES\t{MAX_CORE_TYPES}\t/* N3T_MAX_CORE_TYPES */\n')
    w(f'#define N3T_TEXT_PLAN_SETS\t{MAX_SETS}\t/* N3T_MAX_SETS */\n')
    w(f'#define N3T_TEXT_SUM_CPUS\t{SUM_CPUS}\t/* system/events: CPUs whose sums fit */\n')
    rows = text_table(models)
    for key, n, where in rows:
        _, macro, files, assume = next(t for t in TEXT_FILES if t[0] == key)
        w(f'/* {files} ({where}): {assume} */\n')
        w(f'#define N3T_TEXT_MAX_{macro}\t{n}\n')
    fit = max(n for key, n, _ in rows if key not in OVER_PAGE)
    w(f'#define N3T_TEXT_MAX\t{fit}\n')
    w('\n#endif /* N3T_MODELS_H */\n')


# Cores Arm's descriptions do not name that are built on a core they
# describe, and the table (file name) whose formulas apply to them, with
# the kernel's MIDR name (arch/arm64/include/asm/cputype.h; coretype.c
# defines the ones older kernels lack).  Every version of each is matched.
# - Azure Cobalt 100 (implementer 0x6D, part 0xD49): cputype.h says it is
#   Neoverse N2 r0p0, whose STALL_SLOT and STALL_SLOT_FRONTEND count one slot
#   more per cycle than r0p3's: the formulas of the r0p0-r0p2 table, which
#   subtract it.
# - Neoverse V3AE (part 0xD83): V3 with automotive features, the same
#   pipeline and PMU events; Arm's own topdown tool maps it to V3's.
DERIVED = {
    'neoverse-n2': ['MIDR_MICROSOFT_AZURE_COBALT_100'],
    'neoverse-v3': ['MIDR_NEOVERSE_V3AE'],
}


def emit_midr(models, out):
    """The MIDR ranges each table applies to, with the kernel's MIDR names.

    Tables of one part are sorted by revision: each applies from its own
    revision (the first from r0p0) up to the next one's; then the cores
    built on it (DERIVED), every version.  Each table's
    ranges are a list ended by an empty entry, as the kernel's
    is_midr_in_range_list() takes them."""
    w = out.write
    w('/* SPDX-License-Identifier: GPL-2.0 */\n')
    w('/*\n * Generated by tools/models/gen_models.py; do not edit.  Which table\n')
    w(' * applies to which MIDR ranges: the entries of an array of\n')
    w(' * struct n3t_midr_match (coretype.c), each table\'s ranges a list for\n')
    w(' * is_midr_in_range_list().\n */\n')
    for i, m in enumerate(models):
        if m['generic']:
            continue	# matched by its events, not by MIDR (coretype.c)
        name = 'MIDR_' + re.sub(r'[^A-Z0-9]', '_', m['title'].upper())
        same = [x for x in models if x['part'] == m['part']]
        if len(same) == 1:
            rng = f'MIDR_ALL_VERSIONS({name})'
        else:
            k = same.index(m)
            lo = (0, 0) if k == 0 else (m['variant'], m['revision'])
            if k + 1 < len(same):
                nv, nr = same[k + 1]['variant'], same[k + 1]['revision']
                hi = (nv, nr - 1) if nr else (nv - 1, 0xf)
            else:
                hi = (0xf, 0xf)
            rng = f'MIDR_RANGE({name}, {lo[0]}, {lo[1]}, {hi[0]}, {hi[1]})'
        w('{\n')
        w(f'\t.model = &n3t_{m["ident"]},\n')
        w('\t.ranges = (const struct midr_range[]) {\n')
        w(f'\t\t{rng},\n')
        for d in DERIVED.get(m['file'], []):
            w(f'\t\tMIDR_ALL_VERSIONS({d}),\n')
        w('\t\t{},\n')
        w('\t},\n')
        w('},\n')


def print_text_bounds(models):
    """FILE MODEL BYTES lines: each per-model bound, then the cross-model ones."""
    for m in models:
        for key, n in text_bounds(m).items():
            print(key, m['file'], n)
    for key, n in text_bounds_all(models).items():
        print(key, 'all', n)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == '--text-bounds':
        models = [load_or_exit(p) for p in sys.argv[2:]]
        models.sort(key=lambda m: (m['generic'], m['part'], m['variant'], m['revision']))
        print_text_bounds(models)
        return
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    models = [load_or_exit(p) for p in sys.argv[3:]]
    # Same part: sorted by revision (engine.c picks the newest not above the
    # CPU's); a generic description (product_configuration "generic": true,
    # matched by its events, its slot count the core's) last.
    models.sort(key=lambda m: (m['generic'], m['part'], m['variant'], m['revision']))
    limits = dict(events=max(len(m['events']) for m in models),
                  metrics=max(len(m['metrics']) for m in models),
                  groups=max(len(m['groups']) for m in models),
                  group_metrics=max(len(g[2]) for m in models for g in m['groups']),
                  mono=max(max(len(x['num']), len(x['den'])) for m in models
                           for x in m['metrics']))
    if limits['events'] > 96 or limits['metrics'] > 96 or limits['groups'] > 32 or \
       limits['group_metrics'] > 12 or limits['mono'] > 16:
        raise SystemExit(f'tables exceed the engine limits (engine.h): {limits}')
    for key, n, where in text_table(models):
        if key in OVER_PAGE and n > PAGE_BYTES:
            files = next(t[2] for t in TEXT_FILES if t[0] == key)
            print(f'warning: {files} can print {n} bytes ({where}), more than a page: '
                  f'{OVER_PAGE[key]}', file=sys.stderr)
    header = os.path.join(os.path.dirname(sys.argv[1]), 'models.h')
    for path, emitter in ((sys.argv[1], emit), (sys.argv[2], emit_midr), (header, emit_header)):
        out = io.StringIO()
        emitter(models, out)
        generated.write(path, out.getvalue())
    print(' '.join(f'{k}={v}' for k, v in limits.items()), file=sys.stderr)


if __name__ == '__main__':
    main()
