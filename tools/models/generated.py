# SPDX-License-Identifier: GPL-2.0
"""How the generators under tools/ write what they make: gen_models.py,
../prometheus/gen_rules.py and gen_rules_test.py, ../grafana/gen_dashboard.py.

Owns the output side only: a generated file appears whole or not at all
(written to FILE.tmp, then renamed over FILE, so a failed run leaves the
committed file as it was), standard output when no file is named, and a
docstring's paragraphs as the '#' comment a generated YAML file opens with.
It lives beside gen_models.py; the other generators put this folder on
their path for it, as for formulas.py.  Python 3 standard library only."""
import os
import sys


def write(path, text):
    """text into path, atomically."""
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def output(path, text):
    """text into path (a generator's -o), or to standard output without one."""
    if path:
        write(path, text)
    else:
        sys.stdout.write(text)


def comment(paragraphs):
    """Paragraphs as '# ' lines, each paragraph followed by a '#' line."""
    out = []
    for para in paragraphs:
        out += [f'# {ln}\n' if ln else '#\n' for ln in para.split('\n')]
        out.append('#\n')
    return ''.join(out)
