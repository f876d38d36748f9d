#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KCSAN's reports in a VM's console log.

    kcsan-reports.py CONSOLE.log

Prints each distinct report (its title, each access with its first
frames, the value change) once, with how often it came and whose race it
is: the module's own (an access of the race is in n3telemetry's or
n3t_testpmu's code: its top frame), the kernel's in code the module
called (a frame of the module further down one of the racing stacks, not
below an interrupt's entry), or the kernel's alone; then a summary line.
Exits 0 if there was no report, 1 if one is the module's own, 2 if all
are the kernel's.
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


def involvement(rep):
    """'own': an access of the race is the module's code (its top frame);
    'through': the racing accesses are the kernel's, in code the module
    called (a frame of the module below them, above any interrupt's
    entry); '': the kernel's alone."""
    interrupted = False
    top = False
    through = False
    for line in rep[1:]:
        if ACCESS.match(line) and not FRAME.match(line):
            interrupted = False
            top = True
        elif FRAME.match(line):
            if top and MODULE.search(line):
                return 'own'
            top = False
            if IRQ_ENTRY.match(line):
                interrupted = True
            elif not interrupted and MODULE.search(line):
                through = True
    return 'through' if through else ''


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
    own = through = 0
    what = {'own': "the module's own", '': "the kernel's alone",
            'through': "the kernel's, in code the module called"}
    for key, (n, rep) in seen.items():
        inv = involvement(rep)
        own += inv == 'own'
        through += inv == 'through'
        print(f'-- {n}x, {what[inv]}:')
        for line in summary(rep)[:16]:
            if not line.startswith('  Reported by'):
                print('   ' + line)
    print(f'{len(reps)} KCSAN reports, {len(seen)} distinct: {own} the module\'s own, '
          f'{through} the kernel\'s in code the module called')
    sys.exit(1 if own else 2 if reps else 0)


if __name__ == '__main__':
    main()
