#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of formulas.py, the formula parser and oracle both generators
use: tokens, precedence and associativity, the slot rule, the errors each
generator reports, and (with Arm's descriptions at hand: N3T_SPEC_DIR, or
../shared/reference/arm-telemetry next to the tree) that the parser's tree
and the oracle agree on every formula Arm ships.

usage: python3 -m unittest tools/models/formulas_test.py (or run it)"""
import glob
import json
import os
import random
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import formulas  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_DIR = os.environ.get('N3T_SPEC_DIR',
                          os.path.join(TOP, '..', 'shared', 'reference', 'arm-telemetry'))


def text(tree):
    """A tree back as a fully parenthesized string; SC is the ('s',) leaf."""
    if tree[0] in '+-*/':
        return f'({text(tree[1])} {tree[0]} {text(tree[2])})'
    return 'SC' if tree[0] == 's' else str(tree[1])


class Tokens(unittest.TestCase):
    def test_kinds(self):
        self.assertEqual(formulas.tokenize(' L1D_CACHE_REFILL/(5 *CPU_CYCLES) '),
                         [('e', 'L1D_CACHE_REFILL'), ('o', '/'), ('o', '('), ('n', 5),
                          ('o', '*'), ('e', 'CPU_CYCLES'), ('o', ')')])

    def test_unexpected(self):
        with self.assertRaisesRegex(ValueError, "unexpected '%'"):
            formulas.tokenize('STALL_SLOT % CPU_CYCLES')
        with self.assertRaisesRegex(ValueError, "unexpected 'x'"):
            formulas.tokenize('x')


class Parse(unittest.TestCase):
    def parse(self, s, slots=5):
        return text(formulas.parse(s, slots))

    def test_precedence_and_left_association(self):
        self.assertEqual(self.parse('A + B * C'), '(A + (B * C))')
        self.assertEqual(self.parse('A - B - C'), '((A - B) - C)')
        self.assertEqual(self.parse('A / B * 100'), '((A / B) * 100)')
        self.assertEqual(self.parse('(A - B) / C'), '((A - B) / C)')
        self.assertEqual(self.parse('100 * (A / B - C)'), '(100 * ((A / B) - C))')

    def test_slot_rule(self):
        # the literal multiplying CPU_CYCLES, either side, is one leaf
        self.assertEqual(formulas.parse('A / (5 * CPU_CYCLES)', 5),
                         ('/', ('e', 'A'), ('s',)))
        self.assertEqual(formulas.parse('A / (CPU_CYCLES * 5)', 5),
                         ('/', ('e', 'A'), ('s',)))
        self.assertEqual(self.parse('A / (CPU_CYCLES * 8)', 8), '(A / SC)')
        # another core's slot count is just a number
        self.assertEqual(self.parse('A / (CPU_CYCLES * 8)', 5), '(A / (CPU_CYCLES * 8))')
        self.assertEqual(formulas.events(formulas.parse('A / (5 * CPU_CYCLES)', 5)),
                         {'A', 'CPU_CYCLES'})

    def test_slot_literal_refused_elsewhere(self):
        for s in ('A / CPU_CYCLES * 5', 'A / 5 / CPU_CYCLES', 'A * 5'):
            with self.subTest(s), self.assertRaisesRegex(ValueError, 'slot count 5'):
                formulas.parse(s, 5)

    def test_errors(self):
        for s, msg in (('(A / B', 'unbalanced'), ('A / B )', 'trailing'),
                       ('A / / B', 'unexpected token'), ('', 'unexpected token')):
            with self.subTest(s), self.assertRaisesRegex(ValueError, msg):
                formulas.parse(s, 5)


class Evaluate(unittest.TestCase):
    def test_exact(self):
        tree = formulas.parse('(1 - A / (5 * CPU_CYCLES)) * 100', 5)
        env = {'A': Fraction(3), 'CPU_CYCLES': Fraction(7), '': Fraction(35)}
        self.assertEqual(formulas.evaluate(tree, env), Fraction(3200, 35))

    def test_only_a_division_by_zero_raises(self):
        env = {'A': Fraction(0), 'B': Fraction(2)}
        self.assertEqual(formulas.evaluate(formulas.parse('B + A', 5), env), 2)
        with self.assertRaises(ZeroDivisionError):
            formulas.evaluate(formulas.parse('B / A', 5), env)


class Oracle(unittest.TestCase):
    def test_exact_and_nan(self):
        f = formulas.oracle('A / B * 100')
        self.assertEqual(f({'A': 1, 'B': 3}), Fraction(100, 3))
        self.assertIsNone(f({'A': 1, 'B': 0}))
        self.assertFalse(f.uses_slots)
        with self.assertRaises(KeyError):
            f({'A': 1})

    def test_slots(self):
        for s in ('A / (CPU_CYCLES * 5)', 'A / ( 5*CPU_CYCLES )'):
            f = formulas.oracle(s, 5)
            self.assertTrue(f.uses_slots)
            self.assertEqual(f({'A': 8, 'CPU_CYCLES': 2}, 4), 1)
        self.assertEqual(formulas.oracle('A / (CPU_CYCLES * 5)')({'A': 10, 'CPU_CYCLES': 2}), 1)

    def test_names_with_digits(self):
        f = formulas.oracle('L1D_CACHE_REFILL / L1D_CACHE * 1000')
        self.assertEqual(f({'L1D_CACHE_REFILL': 1, 'L1D_CACHE': 4}), 250)


@unittest.skipUnless(glob.glob(os.path.join(SPEC_DIR, 'neoverse-*.json')),
                     f'no descriptions in {SPEC_DIR}')
class ArmFormulas(unittest.TestCase):
    def test_tree_agrees_with_oracle(self):
        for path in sorted(glob.glob(os.path.join(SPEC_DIR, 'neoverse-*.json'))):
            with open(path) as f:
                spec = json.load(f)
            slots = int(spec['product_configuration']['num_slots'])
            rng = random.Random(path)
            for name, m in sorted(spec['metrics'].items()):
                with self.subTest(f'{os.path.basename(path)}/{name}'):
                    tree = formulas.parse(m['formula'], slots)
                    self.assertEqual(formulas.events(tree), set(m['events']))
                    want = formulas.oracle(m['formula'], slots)
                    for _ in range(10):
                        env = {e: Fraction(rng.randrange(1, 1 << 20)) for e in m['events']}
                        s = rng.choice((slots, 4, 8, 10))
                        env[''] = s * env.get(formulas.CYCLES, 0)
                        w = want(env, s)
                        if w is not None:
                            self.assertEqual(formulas.evaluate(tree, env), w)


if __name__ == '__main__':
    unittest.main()
