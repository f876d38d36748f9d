#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make matrix's table: one row per check, one column per kernel.

usage: matrix_table.py RESULTS KERNELS SUITE...
RESULTS has 'PASS|FAIL|SKIP SUITE/name' lines (results.py's, whose kselftest
names are SUITE/ksft/SCRIPT/check, or SUITE/ksft/SCRIPT: reason for a script
that did not apply); KERNELS has 'SUITE ABI CC ...' lines (matrix.sh).  A
script's cell is 'pass N' (its N checks passed), 'FAIL k/N' or 'skip [n]',
n a note under the table giving the reason; '-' where it did not run."""
import re
import sys


def main():
    results, kernels, suites = sys.argv[1], sys.argv[2], sys.argv[3:]
    abi = {}
    for ln in open(kernels):
        f = ln.split()
        if len(f) >= 3:
            abi[f[0]] = (f[1], f[2])
    cells = {}	# (row, suite) -> [pass, fail, skip reasons]
    rows = []
    for ln in open(results):
        m = re.match(r'(PASS|FAIL|SKIP) ([^/]+)/(.*)$', ln.rstrip('\n'))
        if not m:
            continue
        res, suite, name = m.groups()
        reason = None
        k = re.match(r'ksft/([^/:]+)(?:: (.*)|/.*)?$', name)
        if suite.startswith('e2e-'):
            # e2e.sh's checks on a suite (make matrix's e2e-trixie/...): one row
            suite, row = suite[4:], 'e2e (packages, systemd, Prometheus)'
        elif k:
            row = k.group(1)
            reason = k.group(2)
        else:
            row = name
        if row not in rows:
            rows.append(row)
        c = cells.setdefault((row, suite), [0, 0, []])
        if res == 'PASS':
            c[0] += 1
        elif res == 'FAIL':
            c[1] += 1
        else:
            c[2].append(reason or name.split('/')[-1])
    notes = []

    def cell(row, s):
        c = cells.get((row, s))
        if not c:
            return '-'
        p, f, sk = c
        if f:
            return f'FAIL {f}/{p + f + len(sk)}'
        if sk and not p:
            r = sk[0]
            if r not in notes:
                notes.append(r)
            return f'skip [{notes.index(r) + 1}]'
        return f'pass {p}' + (f' +{len(sk)} skip' if sk else '')

    head = ['check'] + [f'{s} {abi.get(s, ("?",))[0]}' for s in suites]
    table = [head] + [[r] + [cell(r, s) for s in suites] for r in rows]
    w = [max(len(t[i]) for t in table) for i in range(len(head))]
    for t in table:
        print('  '.join(x.ljust(w[i]) for i, x in enumerate(t)).rstrip())
    print()
    for s in suites:
        if s in abi:
            print(f'{s}: {abi[s][0]}, built with {abi[s][1]}')
    for i, n in enumerate(notes):
        print(f'[{i + 1}] {n}')


if __name__ == '__main__':
    main()
