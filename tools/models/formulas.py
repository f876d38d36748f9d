# SPDX-License-Identifier: GPL-2.0
"""Arm's metric formula strings: the one parser of the generators, and the
oracle they and the tests check against.

Owns the formula language of Arm's telemetry descriptions ('STALL_SLOT /
(5 * CPU_CYCLES) * 100': event names, integer literals, + - * /,
parentheses) and nothing else: no units, groups, models or output.

parse() turns a formula into an expression tree, the input of both
generators (tools/models/gen_models.py compiles it into the engine's
polynomials, tools/prometheus/gen_rules.py into PromQL):

    ('n', int)          an integer literal
    ('e', name)         an event's count (or rate)
    ('s',)              the slot count times CPU_CYCLES (see fuse_slots)
    (op, left, right)   op one of + - * /

oracle() evaluates the formula string with Python's own expression grammar
and exact fractions (its slot rule is textual, Arm's parenthesized product).
It shares nothing with the parser, so a generator can check its compiled
form against it, and the Python tests compute what the module must print
with it (selftests/host/expected.py).  Python 3 standard library only;
formulas_test.py is its unit test."""
import operator
import re
from fractions import Fraction

CYCLES = 'CPU_CYCLES'
TOKEN = re.compile(r'\s*(?:(\d+)|([A-Z][A-Z0-9_]*)|(\S))')
OPERATORS = '+-*/()'
# binary operators by precedence, loosest first; all associate to the left
PRECEDENCE = (('+', '-'), ('*', '/'))


def tokenize(text):
    """[('n', int) | ('e', name) | ('o', operator)]; ValueError on
    anything else."""
    out = []
    for num, name, op in TOKEN.findall(text):
        if num:
            out.append(('n', int(num)))
        elif name:
            out.append(('e', name))
        elif op:
            if op not in OPERATORS:
                raise ValueError(f'unexpected {op!r}')
            out.append(('o', op))
    return out


def fuse_slots(tokens, slots):
    """'S * CPU_CYCLES' / 'CPU_CYCLES * S' (S the slot count) becomes one
    ('s',) token, the slots-times-cycles product.  Only where the product is
    a unit of its own: not after '/', where a / CPU_CYCLES * 5 is
    (a / CPU_CYCLES) * 5.  A slot literal anywhere else is refused."""
    out, i = [], 0
    while i < len(tokens):
        three = tokens[i:i + 3]
        if len(three) == 3 and three[1] == ('o', '*') and \
           {three[0], three[2]} == {('n', slots), ('e', CYCLES)} and \
           (not out or out[-1] != ('o', '/')):
            out.append(('s',))
            i += 3
            continue
        if tokens[i] == ('n', slots):
            raise ValueError(f'slot count {slots} not multiplying {CYCLES}')
        out.append(tokens[i])
        i += 1
    return out


class Parser:
    """Recursive descent over the tokens, one level per PRECEDENCE entry."""

    def __init__(self, tokens):
        self.t, self.i = tokens, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def parse(self):
        v = self.binary(0)
        if self.peek() is not None:
            raise ValueError('trailing tokens')
        return v

    def binary(self, level):
        if level == len(PRECEDENCE):
            return self.atom()
        v = self.binary(level + 1)
        while self.peek() in [('o', op) for op in PRECEDENCE[level]]:
            v = (self.take()[1], v, self.binary(level + 1))
        return v

    def atom(self):
        t = self.take()
        if t == ('o', '('):
            v = self.binary(0)
            if self.take() != ('o', ')'):
                raise ValueError('unbalanced parentheses')
            return v
        if t and t[0] in 'nes':
            return t
        raise ValueError(f'unexpected token {t}')


def parse(text, slots):
    """The expression tree of a formula string; slots is the description's
    slot count (its literal multiplying CPU_CYCLES becomes ('s',)).
    ValueError names what is wrong."""
    return Parser(fuse_slots(tokenize(text), slots)).parse()


def events(tree):
    """The event names a tree reads (('s',) reads CPU_CYCLES)."""
    if tree[0] == 'e':
        return {tree[1]}
    if tree[0] in '+-*/':
        return events(tree[1]) | events(tree[2])
    return {CYCLES} if tree[0] == 's' else set()


OPS = {'+': operator.add, '-': operator.sub, '*': operator.mul, '/': operator.truediv}


def fold(tree, number, event, slot_cycles):
    """Bottom-up evaluation of a tree in any arithmetic with + - * /:
    number(int), event(name) and slot_cycles() give the leaves' values."""
    kind = tree[0]
    if kind == 'n':
        return number(tree[1])
    if kind == 'e':
        return event(tree[1])
    if kind == 's':
        return slot_cycles()
    return OPS[kind](fold(tree[1], number, event, slot_cycles),
                     fold(tree[2], number, event, slot_cycles))


def evaluate(tree, env):
    """The tree's exact value: env maps event names to Fractions and ''
    to the slots-times-cycles value.  ZeroDivisionError where it divides
    by zero."""
    return fold(tree, Fraction, lambda e: env[e], lambda: env[''])


# --- the oracle: Python's own grammar ------------------------------------------

def _exact(v):
    """v as a Fraction (quick when it is one already: the tests' counts)."""
    return v if v.__class__ is Fraction else Fraction(v)


def oracle(formula, slots=None):
    """Arm's formula string as Python evaluates it, with exact fractions.

    Returns a function (values, s=None) -> Fraction, or None where the
    formula divides by zero; values maps event names to numbers (int or
    Fraction).  With slots, the slot literal where Arm multiplies CPU_CYCLES
    by it, '(CPU_CYCLES * 5)' or '(5 * CPU_CYCLES)' as Arm writes it, reads
    the slot count s instead; the function's uses_slots says whether the
    formula has one.  A name missing from values raises KeyError."""
    text = formula
    if slots is not None:
        lit = str(slots)
        text = re.sub(r'\(\s*CPU_CYCLES\s*\*\s*' + lit + r'\s*\)', '(CPU_CYCLES * s)', text)
        text = re.sub(r'\(\s*' + lit + r'\s*\*\s*CPU_CYCLES\s*\)', '(s * CPU_CYCLES)', text)
    expr = re.sub(r'\b([A-Z][A-Z0-9_]*)\b', lambda m: f'Q(C["{m.group(1)}"])', text)
    expr = re.sub(r'(?<![\w"])(\d+)(?![\w"])', r'F(\1)', expr)
    code = eval('lambda C, s: ' + expr, {'F': Fraction, 'Q': _exact,  # noqa: S307
                                         '__builtins__': {}})

    def run(values, s=None):
        try:
            return code(values, None if s is None else Fraction(s))
        except ZeroDivisionError:
            return None
    run.uses_slots = text != formula
    return run
