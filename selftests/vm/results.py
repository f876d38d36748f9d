#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a test VM console log into one 'PASS|FAIL|SKIP name' line per test.

KUnit output (lines prefixed 'KUNIT: ') is parsed with the kernel's own
tools/testing/kunit/kunit.py parse; kselftest output ('KSFT: ') is KTAP,
counted leaf by leaf.  The kernel log ('DMESG: ') is searched for splats,
'KMEMLEAK: ' for leak reports."""
import argparse
import re
import subprocess
import sys
import tempfile

SPLAT = re.compile(r'(BUG:|WARNING:|KASAN|UBSAN|Oops|Call trace:|'
                   r'possible (recursive|circular) locking|'
                   r'inconsistent lock state|suspicious RCU usage|'
                   r'sleeping function called from invalid context|'
                   r'Kernel panic|unreferenced object)')


def prefixed(lines, tag):
    p = tag + ': '
    return [ln[ln.index(p) + len(p):] for ln in lines if p in ln]


def kunit(lines, parser, tag, out):
    body = prefixed(lines, 'KUNIT')
    if not parser:
        return
    if not body:
        out.append(('FAIL', f'{tag}/kunit-output-present'))
        return
    with tempfile.NamedTemporaryFile('w', suffix='.log', delete=False) as f:
        f.write('\n'.join(body) + '\n')
    r = subprocess.run([sys.executable, parser, 'parse', f.name],
                       capture_output=True, text=True)
    with open(f.name + '.parsed', 'w') as g:
        g.write(r.stdout + r.stderr)
    n = 0
    for ln in r.stdout.splitlines():
        m = re.search(r'\[(PASSED|FAILED|SKIPPED|CRASHED)\] (.+)$', ln)
        if not m or '====' in ln:
            continue
        n += 1
        out.append(('PASS' if m.group(1) in ('PASSED', 'SKIPPED') else 'FAIL',
                    f'{tag}/kunit/{m.group(2).strip()}'))
    if r.returncode != 0 or n == 0:
        sys.stderr.write(r.stdout[-3000:] + r.stderr[-2000:])
        out.append(('FAIL', f'{tag}/kunit-parse'))


def ksft(lines, tag, out):
    body = prefixed(lines, 'KSFT')
    if not body:
        out.append(('FAIL', f'{tag}/kselftest-output-present'))
        return
    script = None
    leaf_fail = False
    leaves = 0
    skip_all = ''
    for ln in body:
        m = re.match(r'# Subtest: (\S+)', ln)
        if m:
            script, leaf_fail, leaves, skip_all = m.group(1), False, 0, ''
            continue
        # a script that does not apply: "1..0 # SKIP reason" (KTAP)
        m = re.match(r'    1\.\.0\s*#\s*SKIP\s*(.*)$', ln)
        if m and script:
            skip_all = m.group(1) or 'skipped'
            continue
        m = re.match(r'    (not ok|ok) \d+ (.*?)(\s+#\s*(SKIP.*))?$', ln)
        if m and script:
            ok = m.group(1) == 'ok'
            leaf_fail |= not ok
            leaves += 1
            res = ('SKIP' if m.group(4) else 'PASS') if ok else 'FAIL'
            out.append((res, f'{tag}/ksft/{script}/{m.group(2)}'))
            continue
        m = re.match(r'(not ok|ok) \d+ (\S+)(.*)$', ln)
        if m:
            if m.group(1) == 'not ok' and not leaf_fail:
                out.append(('FAIL', f'{tag}/ksft/{m.group(2)}'))
            elif m.group(1) == 'ok' and re.match(r'\s*#\s*SKIP', m.group(3)) and not leaves:
                out.append(('SKIP', f'{tag}/ksft/{m.group(2)}: {skip_all or "skipped"}'))
            script = None
        elif ln.startswith('Bail out!'):
            out.append(('FAIL', f'{tag}/ksft/bail-out: {ln[9:].strip()}'))
        elif ln.startswith('    #') or ln.startswith('#'):
            pass


ALLOC_FAIL = re.compile(r'\[\s*(\d+\.\d+)\] .*(vmalloc error:|page allocation failure:)')
STAMP = re.compile(r'\[\s*(\d+\.\d+)\] Call trace:')


def after_alloc_failure(line, lines):
    """A 'Call trace:' of the kernel's own allocation-failure report
    (warn_alloc), which the fault-injection tests cause on purpose."""
    m = STAMP.search(line)
    if not m:
        return False
    t = float(m.group(1))
    return any(0 <= t - float(a.group(1)) < 1.0
               for a in (ALLOC_FAIL.search(ln) for ln in lines) if a)


DYING = re.compile(r'CPU(\d+) enqueued tasks \((\d+) total\):')
TASK = re.compile(r'\tpid: \d+, name: (\S+)')


def fair_server_at_dying(lines):
    """The kernel's own warning, not the module's: 6.12's sched_cpu_dying()
    counts its fair server (a deadline entity, which a CFS task on that CPU
    starts and whose timer enqueues it) in rq->nr_running, and stops it only
    on the line after the check.  Such a report says 2 running and lists the
    CPU's stopper, migration/N, alone: no task was left behind.  Returns the
    indexes of each such report's lines (from "cut here" to its task list);
    a report that lists any other task is not among them."""
    excused = set()
    for i, ln in enumerate(lines):
        if 'Dying CPU not properly vacated!' not in ln:
            continue
        start = next((j for j in range(i, max(i - 3, -1), -1)
                      if 'cut here' in lines[j]), i)
        end = next((j for j in range(i, min(i + 80, len(lines)))
                    if DYING.search(lines[j])), None)
        if end is None:
            continue
        m = DYING.search(lines[end])
        names = []
        k = end + 1
        while k < len(lines) and (t := TASK.search(lines[k])):
            names.append(t.group(1))
            k += 1
        if m.group(2) == '2' and names == [f'migration/{m.group(1)}']:
            excused.update(range(start, k))
    return excused


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--kunit-parser')
    # the debug kernel's check boots end with a kmemleak scan (init's
    # kmemleak()): with KUnit (--kunit-parser) or with --kmemleak
    ap.add_argument('--kmemleak', action='store_true')
    ap.add_argument('--tag', required=True)
    ap.add_argument('log')
    a = ap.parse_args()
    lines = open(a.log, errors='replace').read().splitlines()
    out = []
    kunit(lines, a.kunit_parser, a.tag, out)
    ksft(lines, a.tag, out)
    # KCSAN's reports (the KCSAN kernel) are judged by kcsan-reports.py
    fair = fair_server_at_dying(lines)
    splats = [ln for i, ln in enumerate(lines)
              if SPLAT.search(ln) and 'KMEMLEAK: ' not in ln
              and 'BUG: KCSAN: ' not in ln and not after_alloc_failure(ln, lines)
              and i not in fair]
    for s in splats[:20]:
        sys.stderr.write('splat: ' + s + '\n')
    out.append(('FAIL' if splats else 'PASS', f'{a.tag}/no-kernel-splat'))
    n = sum('Dying CPU not properly vacated!' in lines[i] for i in fair)
    if n:
        out.append(('SKIP', f'{a.tag}/kernel-dying-cpu-fair-server: {n} of the kernel\'s '
                    '"Dying CPU not properly vacated!" warnings counted its fair server, '
                    'no task (sched_cpu_dying() checks before it stops the server)'))
    if a.kunit_parser or a.kmemleak:
        leaks = [ln for ln in prefixed(lines, 'KMEMLEAK') if 'unreferenced object' in ln]
        for s in prefixed(lines, 'KMEMLEAK')[:40]:
            if leaks:
                sys.stderr.write('kmemleak: ' + s + '\n')
        out.append(('FAIL' if leaks else 'PASS', f'{a.tag}/kmemleak-scan-clean'))
    for r, n in out:
        print(r, n)


if __name__ == '__main__':
    main()
