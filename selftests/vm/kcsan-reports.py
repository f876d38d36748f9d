#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KCSAN's reports in a VM's console log.

    kcsan-reports.py CONSOLE.log

Prints each distinct report (its title, each access with its first
frames, the value change) once, with how often it came and whether it
involves the module (a frame of n3telemetry or n3t_testpmu in the stack of
one of the racing contexts, not below an interrupt's entry), then a summary line.  Exits 0 if there was no report, 1 if one
involves the module, 2 if every one is in the kernel's own code alone.
The stacks are printed at the default log level: the console needs
loglevel=5 for them.  The lines the VM's init copies from dmesg at the end
(DMESG: ...) are not counted again.
"""
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
FRAME = re.compile(r'^\s*\S+\+0x[0-9a-f]+/0x[0-9a-f]+')
ACCESS = re.compile(r'^(read|write|race at unknown origin|.*\bto 0x)')
MODULE = re.compile(r'\[(n3telemetry|n3t_testpmu)\]|\bn3t_')
# an interrupt's entry: the frames below it are the interrupted context's
IRQ_ENTRY = re.compile(r'^\s*(call_on_irq_stack|el1_interrupt|el1h_64_irq|el0_interrupt)\+')
FRAMES = 3


def reports(lines):
    """Yield each report's lines, from its BUG: line to its closing rule."""
    cur = None
    for raw in lines:
        if raw.startswith('DMESG: '):
            continue
        line = TS.sub('', raw.rstrip('\n'))
        if 'BUG: KCSAN:' in line:
            if cur:
                yield cur
            cur = [line[line.index('BUG: KCSAN:'):]]
        elif cur is not None:
            if line.startswith('====='):
                yield cur
                cur = None
            else:
                cur.append(line)
    if cur:
        yield cur


def involves_module(rep):
    """Whether a frame of the module is in one of the racing contexts."""
    interrupted = False
    for line in rep:
        if ACCESS.match(line) and not FRAME.match(line):
            interrupted = False
        elif IRQ_ENTRY.match(line):
            interrupted = True
        elif not interrupted and MODULE.search(line):
            return True
    return False


def summary(rep):
    """The title, each access and its first frames, the value change."""
    out = [rep[0]]
    frames = FRAMES
    for line in rep[1:]:
        if not line.strip():
            continue
        if ACCESS.match(line) and not FRAME.match(line):
            out.append('  ' + line)
            frames = 0
        elif FRAME.match(line) and frames < FRAMES:
            out.append('    ' + line.strip())
            frames += 1
        elif line.startswith('value changed') or line.startswith('Reported by'):
            out.append('  ' + line)
            frames = FRAMES
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], errors='replace') as f:
        reps = list(reports(f))
    seen = {}
    for rep in reps:
        key = rep[0]
        if key not in seen:
            seen[key] = [0, rep]
        seen[key][0] += 1
    mod = 0
    for key, (n, rep) in seen.items():
        ours = involves_module(rep)
        mod += ours
        print(f'-- {n}x, {"involves the module" if ours else "kernel only"}:')
        for line in summary(rep)[:16]:
            if not line.startswith('  Reported by'):
                print('   ' + line)
    print(f'{len(reps)} KCSAN reports, {len(seen)} distinct, '
          f'{mod} of them involving the module')
    sys.exit(1 if mod else 2 if reps else 0)


if __name__ == '__main__':
    main()
