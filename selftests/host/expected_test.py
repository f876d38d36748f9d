#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of expected.py, the Python tests' shared helpers: each unit's
decimals, the printed text (ties away from zero, no negative zero, nan),
the fixed point's text agreeing with the exact value's, and the Moebius fit
and tie solution the exact-tie vectors are built with.

usage: python3 selftests/host/expected_test.py"""
import os
import random
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected  # noqa: E402
from expected import decimals, fmt, fmt_fixed, mobius, solve_tie  # noqa: E402


class Printed(unittest.TestCase):
    def test_decimals(self):
        self.assertEqual(decimals('percent of slots'), 2)
        self.assertEqual(decimals('MPKI'), 3)
        self.assertEqual(decimals('per cache access'), 4)
        with self.assertRaises(SystemExit):
            decimals('furlongs per fortnight')

    def test_rounding(self):
        for v, dec, want in ((Fraction(1, 8), 2, '0.13'), (Fraction(-1, 8), 2, '-0.13'),
                             (Fraction(1, 800), 2, '0.00'), (Fraction(-1, 800), 2, '0.00'),
                             (Fraction(-1, 200), 2, '-0.01'), (Fraction(12345, 10), 3, '1234.500'),
                             (Fraction(2, 3), 4, '0.6667'), (7, 2, '7.00'), (None, 3, 'nan')):
            with self.subTest(v=v, dec=dec):
                self.assertEqual(fmt(v, dec), want)

    def test_fixed_point(self):
        self.assertEqual(fmt_fixed(-1250000, 2), '-1.25')
        self.assertEqual(fmt_fixed(-4999, 2), '0.00')
        self.assertEqual(fmt_fixed(5000, 2), '0.01')
        self.assertEqual(fmt_fixed(None, 2), 'nan')
        rng = random.Random(1)
        for _ in range(2000):
            v, dec = rng.randrange(-10 ** 9, 10 ** 9), rng.choice((2, 3, 4))
            self.assertEqual(fmt_fixed(v, dec), fmt(Fraction(v, 10 ** 6), dec))


class Ties(unittest.TestCase):
    ys = [Fraction(v) for v in (3, 11, 29, 61)]

    def fit(self, f):
        return mobius(self.ys, [f(y) for y in self.ys])

    def test_fit(self):
        a, b, c, d = self.fit(lambda y: (2 * y + 1) / (y + 5))
        self.assertEqual((a / d, b / d, c / d), (Fraction(2, 5), Fraction(1, 5), Fraction(1, 5)))
        # a pole at 0 (d = 0): K / y
        a, b, c, d = self.fit(lambda y: 7 / y)
        self.assertEqual((a, d), (0, 0))
        self.assertEqual(b / c, 7)

    def test_not_mobius(self):
        self.assertIsNone(self.fit(lambda y: Fraction(4)))		# constant in y
        self.assertIsNone(self.fit(lambda y: y * y))			# off at the 4th point

    def test_tie(self):
        abcd = self.fit(lambda y: y / (y + 10))
        t = Fraction(1, 4) + Fraction(1, 2000)
        y = solve_tie(abcd, t)
        self.assertEqual(y / (y + 10), t)
        self.assertIsNone(solve_tie(abcd, Fraction(2)))			# y < 0
        self.assertIsNone(solve_tie(abcd, Fraction(1)))			# never reached

    def test_oracle_is_formulas(self):
        self.assertEqual(expected.oracle('A / B')({'A': 1, 'B': 4}), Fraction(1, 4))


if __name__ == '__main__':
    unittest.main()
