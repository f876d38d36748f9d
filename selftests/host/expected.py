# SPDX-License-Identifier: GPL-2.0
"""What the module must print, worked out without the module: the helpers
the Python tests share (core_expect.py, mkfixture.py, spec_check.py here,
module/tests/engine_vectors.py).

Owns the print precision of each unit (module/engine.c's n3t_units), the
text of a value as the module prints it (rounded half away from zero, never
"-0.00", "nan" for no value), the documented count range, and the
construction of exact ties (counts where a metric is exactly half a unit of
its last printed digit).  Formula values come from oracle(), re-exported
from tools/models/formulas.py: Python's own evaluation of Arm's formula
string with exact fractions, not the generators' parser.  Python 3
standard library only; expected_test.py is its unit test."""
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'tools', 'models'))
from formulas import oracle  # noqa: E402,F401  (re-exported)

LIMIT = 1 << 44		# counts below this: every value defined and exact
DECIMALS = {'percent of slots': 2, 'percent of cycles': 2, 'percent of operations': 2,
            'MPKI': 3, 'per cycle': 3, 'operations per cycle': 3,
            'per branch': 4, 'per TLB access': 4, 'per cache access': 4}


def scales(formula, events):
    """Whether the formula's value is unchanged when every event's count
    is scaled by the same factor (a ratio of like counts, which the module
    can compose from rates counted apart): evaluated with exact fractions
    at three vectors of counts, each also times 3 and times 7; the values
    must be defined at one of them at least."""
    f = oracle(formula)
    some = False
    for k in (1, 2, 3):
        counts = {e: Fraction(1000003 * k + 7919 * i * k + (50000000 if e == 'CPU_CYCLES' else 0))
                  for i, e in enumerate(sorted(events))}
        try:
            v = f(counts)
        except ZeroDivisionError:
            v = None
        for m in (3, 7):
            try:
                w = f({e: c * m for e, c in counts.items()})
            except ZeroDivisionError:
                w = None
            if v != w:
                return False
        some |= v is not None
    return some


def decimals(unit):
    """The decimals the module prints a unit's values with."""
    if unit not in DECIMALS:
        raise SystemExit(f'unknown unit {unit!r}')
    return DECIMALS[unit]


def fmt(v, dec):
    """The exact value v (a Fraction, or None for no value) as the module
    prints it: rounded half away from zero to dec decimals, never '-0.00',
    'nan' for None."""
    if v is None:
        return 'nan'
    # in integers: q = n / d, rounded half up
    n, d = abs(v.numerator) * 10 ** dec, v.denominator
    r = n // d + (1 if 2 * (n % d) >= d else 0)
    s = '-' if v < 0 and r else ''
    return f'{s}{r // 10 ** dec}.{r % 10 ** dec:0{dec}d}'


def fmt_fixed(v, dec):
    """fmt() of the module's fixed point: v in millionths (int) or None."""
    return fmt(None if v is None else Fraction(v, 10 ** 6), dec)


def mobius(ys, fs):
    """(a, b, c, d) with f(y) = (a y + b) / (c y + d) through the points
    (ys[i], fs[i]): solved through the first three, checked at the fourth.
    None where that has no single solution, where f is constant in y
    (a d = b c), or where the fourth point is off the curve."""
    # a y + b - c y f - d f = 0 at three points: the null space of a 3x4
    # system in reduced row echelon form
    rows = [[y, Fraction(1), -y * f, -f] for y, f in zip(ys[:3], fs[:3])]
    piv = []
    r = 0
    for col in range(4):
        p = next((i for i in range(r, 3) if rows[i][col]), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [x / rows[r][col] for x in rows[r]]
        for i in range(3):
            if i != r and rows[i][col]:
                k = rows[i][col]
                rows[i] = [x - k * y for x, y in zip(rows[i], rows[r])]
        piv.append(col)
        r += 1
        if r == 3:
            break
    free = [c for c in range(4) if c not in piv]
    if len(free) != 1:
        return None
    sol = [Fraction(0)] * 4
    sol[free[0]] = Fraction(1)
    for i, col in enumerate(piv):
        sol[col] = -rows[i][free[0]]
    a, b, c, d = sol
    y, f = ys[3], fs[3]
    if a * d == b * c or c * y + d == 0 or (a * y + b) / (c * y + d) != f:
        return None
    return a, b, c, d


def solve_tie(abcd, t):
    """The y > 0 where (a y + b) / (c y + d) is t, or None."""
    a, b, c, d = abcd
    if t * c == a:
        return None
    y = (b - t * d) / (t * c - a)
    return y if y > 0 else None
