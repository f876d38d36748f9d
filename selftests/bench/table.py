#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the VM's "BENCH ..." console lines into the cost table."""
import argparse
import re
import sys


def events(engine_c):
    """NAME 0xCODE for every event of the module's table."""
    pat = re.compile(r'\[N3T_EV_\w+\]\s*=\s*\{\s*"(\w+)",\s*(0x[0-9a-fA-F]+)')
    with open(engine_c) as f:
        found = pat.findall(f.read())
    if not found:
        sys.exit(f'table.py: no event table in {engine_c}')
    for name, code in found:
        print(name, code)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--events', metavar='ENGINE_C')
    ap.add_argument('--smoke', action='store_true')
    ap.add_argument('--kernel', default='')
    ap.add_argument('logs', nargs='*')
    a = ap.parse_args()
    if a.events:
        events(a.events)
        return 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
