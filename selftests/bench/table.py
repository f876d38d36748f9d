#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the VM's "BENCH ..." console lines into the cost table.

Work lost: the busy loops (one per CPU, two instructions per iteration) run
fewer iterations per guest second than with nothing loaded; the difference,
in instructions, divided by the number of CPUs.  Under -icount shift=0 a
guest nanosecond is one instruction, so the figures are instruction counts.

  table.py [--kernel K] LOG...          the table
  table.py --smoke LOG                  the table, and fail unless complete
"""
import argparse
import math
import statistics
import re
import sys
from collections import defaultdict

INS_PER_ITER = 2
ORDER = ['idle', 'idle-20s', 'mod-default', 'mod-yield0', 'mod-sched-all', 'mod-all', 'mod-100ms', 'mod-10s',
         'mod-1set', 'perf-grouped', 'perf-flat', 'perf-all-grouped', 'perf-all-flat',
         'ne-15s', 'ne-1s', 'ne-15s-wget']
# the module's rows: every parameter at its default but those named
DESC = {
    'idle': 'nothing loaded',
    'idle-20s': 'nothing loaded, 20 s window',
    'mod-default': 'module, default, 1 s',
    'mod-yield0': 'module, yield_pct=0 (no rest), 1 s',
    'mod-sched-all': 'module, schedule=all, 1 s',
    'mod-all': 'module, all groups, 1 s',
    'mod-100ms': 'module, default, 100 ms',
    'mod-10s': 'module, default, 10 s',
    'mod-1set': 'module, topdown_l1 only, 1 s',
    'perf-grouped': 'perf stat -I 1000, sets grouped',
    'perf-flat': 'perf stat -I 1000, events flat',
    'perf-all-grouped': 'perf stat, all sets, grouped',
    'perf-all-flat': 'perf stat, all events, flat',
    'ne-15s': 'node_exporter perf, 15 s',
    'ne-1s': 'node_exporter perf, 1 s',
    'ne-15s-wget': 'node_exporter, 15 s, wget+sleep',
}
# a peer that did less of its work than this is marked in the table
PEER_DONE = 0.9
# issue 22's targets (1 vCPU, per CPU-second, one run)
TARGET_RATIO = 25
TARGET_DRIFT = 0.02
TARGET_FLAT = 0.10
# the set switch the module's perf calls cost before issue 22 (README):
# shown beside the measured figure, no longer a target
OLD_TARGET_SLICE = 25000


def sched_name(words):
    """the schedule a "BENCH sets" line reports: "rotate", "all", "none"
    (a module from before schedule=) or what the module printed; a sysfs
    choice list such as "[rotate] all" gives the bracketed one"""
    txt = ' '.join(words) or 'none'
    m = re.search(r'\[([^]]+)\]', txt)
    return m.group(1) if m else txt


def slices_per_interval(nsets, sched):
    """slices in one interval: every set in turn for "all" (and a module
    without schedule=), topdown level 1's set and one other for "rotate"
    """
    if sched in ('all', 'none'):
        return nsets
    if sched == 'rotate':
        return min(nsets, 2)
    return None



def spi_ok(spi, exp):
    """the sampler's runs an interval are the schedule's slices; logs from
    before guest.sh subtracted the rest's end (yield_pct) count one more"""
    return abs(spi / exp - 1) <= 0.25 or abs(spi / (exp + 1) - 1) <= 0.25

class Boot:
    """One VM boot: its runs, per configuration and repetition."""

    def __init__(self, path):
        self.path = path
        self.cpus = 0
        self.errors = []
        self.spin = defaultdict(dict)      # (cfg, rep) -> cpu -> (iters, ns)
        self.window = {}                   # (cfg, rep) -> seconds
        self.wstart = {}                   # (cfg, rep) -> its start, CLOCK_MONOTONIC ns
        self.ticks = {}                    # (cfg, rep) -> timer interrupts a CPU a second
        self.span = {}                     # (cfg, rep) -> ns between snapshots
        self.secs = 0
        self.sets = {}                     # (cfg, rep) -> (nsets, interval_ms, schedule)
        self.peer = defaultdict(dict)      # (cfg, rep) -> {key: value} (perf stat, scrapes)
        self.sched_param = None            # what insmod said of schedule=
        self.ivl = defaultdict(dict)       # (cfg, rep) -> cpu -> (dseq, dns)
        self.ivl_end = defaultdict(dict)   # (cfg, rep) -> cpu -> last interval end, ns
        self.cost = defaultdict(dict)      # (cfg, rep) -> cpu -> (dslices, dns)
        self.reads = defaultdict(list)     # what -> [ns]
        self.prof = defaultdict(list)      # depth -> [(level, name, calls, us)]
        self.perfcost = {}                 # (events, on) -> {call: ns}
        self.plan = None                   # the default sets: [[event code]]
        self.complete = False
        with open(path, errors='replace') as f:
            for ln in f:
                i = ln.find('BENCH ')
                if i < 0:
                    continue
                self.line(ln[i:].split())

    def line(self, w):
        k = w[1]
        if k == 'info' and w[2] == 'kernel':
            self.kernel = w[3]
            self.cpus = int(w[5])
            self.secs = float(w[9])
            self.settle = float(w[11]) if len(w) > 11 else 1.5
        elif k == 'error':
            self.errors.append(' '.join(w[2:]))
        elif k == 'end':
            self.complete = True
        elif k == 'spin':      # spin CFG REP cpu N iters I ns T
            cfg, rep, cpu, it, ns = w[2], int(w[3]), int(w[5]), int(w[7]), int(w[9])
            self.spin[(cfg, rep)][cpu] = (it, ns)
        elif k == 'span':      # span CFG REP T0_NS T1_NS
            self.span[(w[2], int(w[3]))] = int(w[5]) - int(w[4])
        elif k == 'window':    # window CFG REP SECONDS [START_NS]
            self.window[(w[2], int(w[3]))] = float(w[4])
            if len(w) > 5:
                self.wstart[(w[2], int(w[3]))] = int(w[5])
        elif k == 'ticks':     # ticks CFG REP T0_NS T1_NS COUNT (every CPU)
            dt = int(w[5]) - int(w[4])
            if dt > 0 and self.cpus:
                self.ticks[(w[2], int(w[3]))] = int(w[6]) / (dt / 1e9) / self.cpus
        elif k == 'sets':      # sets CFG REP NSETS INTERVAL_MS [SCHEDULE]
            self.sets[(w[2], int(w[3]))] = (int(w[4]), int(w[5]), sched_name(w[6:]))
        elif k == 'peer':      # peer CFG REP perf|scrape KEY VALUE ...
            self.peer[(w[2], int(w[3]))] = {
                w[i]: int(w[i + 1]) for i in range(5, len(w) - 1, 2) if w[i + 1].isdigit()}
        elif k == 'info' and w[2] == 'schedule-param':
            self.sched_param = ' '.join(w[3:])
        elif k == 'mod':       # mod CFG REP ivl|cost CPU a0 b0 a1 b1
            cfg, rep, kind, cpu = w[2], int(w[3]), w[4], int(w[5])
            try:
                a0, b0, a1, b1 = (int(x) for x in w[6:10])
            except ValueError:
                return
            if kind == 'ivl' and a0 > 0 and a1 > a0:
                self.ivl[(cfg, rep)][cpu] = (a1 - a0, b1 - b0)
                self.ivl_end[(cfg, rep)][cpu] = b1
            elif kind == 'cost' and a1 > a0:
                self.cost[(cfg, rep)][cpu] = (a1 - a0, b1 - b0)
        elif k == 'info' and w[2] == 'perf-events-default' and len(w) > 3:
            self.plan = [g.split(',') for g in w[3].strip('{}').split('},{')]
        elif k == 'perfcost' and w[2] == 'events' and len(w) == 14:
            # perfcost events N on K enable E disable D read_on R read_off R
            self.perfcost[(int(w[3]), int(w[5]))] = {
                w[i]: int(w[i + 1]) for i in range(6, 14, 2)}
        elif k == 'prof':      # prof DEPTH LEVEL NAME CALLS US
            self.prof[int(w[2])].append((int(w[3]), w[4], int(w[5]), float(w[6])))
        elif k == 'read':      # read WHAT I NS
            self.reads[w[2]].append(int(w[4]))

    def configs(self):
        seen = {c for c, _ in self.spin}
        return [c for c in ORDER if c in seen] + sorted(seen - set(ORDER))

    def reps(self, cfg):
        return sorted(r for c, r in self.spin if c == cfg)

    def total_rate(self, cfg, rep):
        """busy-loop instructions per guest second, all CPUs

        The same at every vCPU count: every loop's iterations over the
        common window.  (Under -icount QEMU runs the vCPUs round robin on
        one virtual clock, so a loop's own span depends on when its vCPU
        got its turn; spin counts the iterations run inside the window to
        within 1000 instructions at either end.)"""
        r = self.spin[(cfg, rep)]
        if len(r) != self.cpus:
            return None
        if self.cpus == 1 and (cfg, rep) not in self.wstart:
            # a log of the harness before the window's start was printed:
            # its loop counted in whole 100k-instruction chunks, which only
            # its own span, from its first to its last chunk, measures well
            it, ns = next(iter(r.values()))
            return it / ns * 1e9 * INS_PER_ITER
        w = self.window.get((cfg, rep))
        if w is None:       # logs without window lines
            w = {'ne-15s': max(self.secs, 15), 'idle-20s': max(self.secs, 20),
                 'mod-10s': max(self.secs, 20)}.get(cfg, self.secs)
        return sum(it for it, _ in r.values()) / w * INS_PER_ITER

    # a 20 s run is measured against idle runs of 20 s: periodic kernel work
    # (writeback every 5 s, ...) falls differently into windows of other lengths
    BASE = {'mod-10s': 'idle-20s', 'idle-20s': 'idle-20s'}

    def mean_rate(self, cfg):
        v = [self.total_rate(cfg, r) for r in self.reps(cfg)]
        v = [x for x in v if x]
        return sum(v) / len(v) if v else None

    def win_len(self, cfg):
        w = [self.window[k] for k in self.window if k[0] == cfg]
        return w[0] if w else None

    def base(self, cfg='idle'):
        b = self.mean_rate(self.BASE.get(cfg, 'idle'))
        # a window of another length than both idle runs' (ne-15s: 15 s) is
        # measured against the idle rate of its length, between the two in
        # 1/window: what a run costs once (starting the loops, the window's
        # edges: about 6M instructions on 6.1) spread over its window, which
        # at 5 s against 20 s is 0.9M a second, five times node_exporter
        w, w5, w20 = self.win_len(cfg), self.win_len('idle'), self.win_len('idle-20s')
        b5, b20 = self.mean_rate('idle'), self.mean_rate('idle-20s')
        if None in (b, b5, b20, w, w5, w20) or w in (w5, w20) or w5 == w20:
            return b
        once = (b20 - b5) / (1 / w5 - 1 / w20)
        return b20 + once / w20 - once / w

    def peer_done(self, cfg, rep):
        """the share of its nominal work a peer did in the run: perf stat's
        intervals, the client's scrapes (one at its start, then one a
        period), over what the run's length (settle, start delay, window)
        allows; with many vCPUs QEMU's round robin delays their timers and
        node_exporter may not answer at all"""
        p = self.peer.get((cfg, rep))
        w = self.window.get((cfg, rep))
        if not p or w is None:
            return None
        span = getattr(self, 'settle', 1.5) + 0.2 + 0.02 * self.cpus + w
        if 'intervals' in p:
            return p['intervals'] / int(span)
        m = re.match(r'ne-(\d+)s', cfg)
        if 'scrapes' in p and m:
            return p['scrapes'] / (1 + int(span // int(m.group(1))))
        return None

    def window_slices(self, cfg, rep, spi):
        """slices that ended inside the spin window, per CPU (mean): the
        interval ends are evenly spaced (status seq and end_ns at the two
        snapshots), the schedule's spi slices an interval end evenly between
        them; None without the window's start or a whole interval"""
        ws = self.wstart.get((cfg, rep))
        if ws is None or not spi:
            return None
        we = ws + self.window[(cfg, rep)] * 1e9
        n = []
        for cpu, (dseq, dns) in self.ivl[(cfg, rep)].items():
            e1 = self.ivl_end[(cfg, rep)].get(cpu)
            if not dseq or not dns or e1 is None:
                return None
            d = dns / dseq / spi            # one slice, ns
            # slice ends at e1 + j d, j any integer: those in [ws, we)
            n.append(math.ceil((we - e1) / d) - math.ceil((ws - e1) / d))
        return sum(n) / len(n) if n and len(n) == self.cpus else None

    def run(self, cfg, rep):
        """figures of one run, per CPU"""
        base, rate = self.base(cfg), self.total_rate(cfg, rep)
        out = {}
        if base is None or rate is None:
            return out
        out['lost'] = (base - rate) / self.cpus
        if (cfg, rep) in self.ticks:
            out['ticks'] = self.ticks[(cfg, rep)]
        done = self.peer_done(cfg, rep)
        if done is not None:
            out['done'] = done
        if (cfg, rep) in self.sets:
            nsets, ms, sched = self.sets[(cfg, rep)]
            spi = slices_per_interval(nsets, sched)
            out['nominal'] = spi * 1000.0 / ms if ms and spi else None
            out['nominal_ms'] = ms
            out['spi_exp'] = spi
            iv = self.ivl[(cfg, rep)]
            co = self.cost[(cfg, rep)]
            span = self.span.get((cfg, rep))
            if iv and sum(n for _, n in iv.values()):
                # intervals per second on each CPU, averaged over CPUs: the
                # interval ends with its last slice, its length (status
                # end_ns) is the slices' timing
                per = [s / n * 1e9 for s, n in iv.values() if n]
                out['ivl_ms'] = 1e3 / (sum(per) / len(per))
                if co and span:
                    # slices the sampler ran between the snapshots, per interval
                    out['spi'] = (sum(s for s, _ in co.values()) /
                                  (span / 1e9 * sum(per)))
                # the schedule's count where the sampler ran it (a window's
                # partial intervals blur the measured one a little)
                if spi and spi_ok(out.get('spi', spi), spi):
                    out['slices'] = spi * sum(per) / len(per)
                    out['ins_slice'] = out['lost'] / out['slices']
            win = self.window_slices(cfg, rep, spi)
            if win is not None:
                # the slices the sampler ran inside the window, per CPU:
                # the same count at every vCPU count
                out['win_slices'] = win
                out['slices'] = win / self.window[(cfg, rep)]
                out['ins_slice'] = out['lost'] / out['slices'] if win else None
            if 'slices' not in out and co and span:
                # no interval ended before the window (a long interval):
                # the slices run between the snapshots around it
                out['slices'] = sum(s for s, _ in co.values()) / (span / 1e9) / self.cpus
                out['ins_slice'] = out['lost'] / out['slices']
            if win is None and self.cpus > 1 and co and span:
                # (logs without the window's start) round robin: a vCPU's
                # timers wait for its turn, and the long-run rate is not the
                # window's; count the slices run between the snapshots
                # around it instead
                rate = sum(s for s, _ in co.values()) / (span / 1e9) / self.cpus
                out['ins_slice'] = out['lost'] / rate
            if co:
                # the median CPU's: local_clock() is the one virtual clock,
                # so with several vCPUs a round-robin turn that falls inside
                # a slice adds the other vCPUs' instructions to its time
                out['sampler'] = statistics.median(n / s for s, n in co.values() if s)
        return out


def fmt(v, unit=''):
    if v is None:
        return '-'
    a = abs(v)
    if a >= 1e6:
        return f'{v / 1e6:.2f}M{unit}'
    if a >= 1e4:
        return f'{v / 1e3:.0f}k{unit}'
    if a >= 1e3:
        return f'{v / 1e3:.1f}k{unit}'
    return f'{v:.0f}{unit}'


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None
    return sum(vals) / len(vals), max(vals) - min(vals)


def num(v, spec):
    return '-' if v is None else format(v, spec)


def boot_means(b):
    """{cfg: mean and spread of every figure over the runs}"""
    means = {}
    for cfg in b.configs():
        runs = [b.run(cfg, r) for r in b.reps(cfg)]
        m = {'n': len(runs)}
        for key in ('lost', 'slices', 'nominal', 'ins_slice', 'sampler', 'ivl_ms',
                    'nominal_ms', 'spi', 'spi_exp', 'done', 'win_slices', 'ticks'):
            m[key], m[key + '_spread'] = stats([r.get(key) for r in runs])
        m['sched'] = sorted({b.sets[(cfg, r)][2] for r in b.reps(cfg) if (cfg, r) in b.sets})
        peers = [b.peer[(cfg, r)] for r in b.reps(cfg) if (cfg, r) in b.peer]
        if peers:
            m['peer'] = {k: sum(p.get(k, 0) for p in peers) / len(peers) for k in peers[0]}
        means[cfg] = m
    return means


def cost_tables(cost, out):
    """work lost side by side for every vCPU count; the module's slices"""
    sizes = sorted(cost)
    cfgs = [c for c in ORDER if any(c in cost[n] for n in sizes)]
    nruns = {m['n'] for n in sizes for m in cost[n].values()}
    runs = '-'.join(str(r) for r in sorted({min(nruns, default=0), max(nruns, default=0)}))
    out.append('Work lost, guest instructions per CPU per guest second (mean of '
               f'{runs} runs, spread = max-min; x mod = times the module default)')
    out.append(f'  {"":32}' + ''.join(f' {f"{n} vCPU":>22}' for n in sizes))
    out.append(f'  {"configuration":32}' + ' {:>7} {:>6} {:>7}'.format('lost', 'spread', 'x mod') * len(sizes))
    short = False
    for cfg in cfgs:
        line = f'  {DESC.get(cfg, cfg):32}'
        for n in sizes:
            m = cost[n].get(cfg)
            mod = cost[n].get('mod-default', {}).get('lost')
            if not m:
                line += f' {"":>7} {"":>6} {"":>7}'
                continue
            idle = cfg.startswith('idle')
            ratio = m['lost'] / mod if not idle and mod and mod > 0 and m['lost'] is not None else None
            lost = 'base' if idle else fmt(m['lost'])
            if m.get('done') is not None and m['done'] < PEER_DONE:
                lost += '*'
                short = True
            line += f' {lost:>7} {fmt(m["lost_spread"]):>6} {num(ratio, ".1f"):>7}'
        out.append(line)
    if short:
        out.append(f'  * the peer did less than {PEER_DONE:.0%} of its nominal work in the run (perf stat\'s '
                   'intervals, scrapes')
        out.append('    answered; see the peers below): QEMU runs N vCPUs round robin, each at 1/N of the '
                   'guest\'s')
        out.append('    instructions a second, so its timers slip and node_exporter may not even answer; '
                   'the figure')
        out.append('    is not its cost at its nominal rate')
    out.append('')
    out.append('The module: slices per CPU per guest second (those that ended in the window) /')
    out.append('nominal (slices an interval / interval; an interval is every set for schedule=all,')
    out.append('topdown_l1\'s set and one other for rotate),')
    out.append('instructions per slice (work lost / slices) and, at 1 vCPU, inside n3t_slice_work')
    out.append('(debugfs cost; with several vCPUs a round-robin switch inside the sampler inflates')
    out.append(f'it); at {sizes[0]} vCPU: the schedule the module ran ("none": it has no schedule=, every')
    out.append('set every interval), intervals measured/nominal ms (status seq, end_ns) and slices')
    out.append('per interval the sampler ran (debugfs cost) / the schedule\'s')
    out.append(f'  {"":32}' + ''.join(f' {f"{n} vCPU":>23}' for n in sizes) +
               f' {"sampler":>8} {"schedule":>8} {"interval ms":>13} {"sl/ivl":>8}')
    out.append(f'  {"configuration":32}' + ' {:>13} {:>9}'.format('slices/s', 'ins/slice') * len(sizes))
    for cfg in cfgs:
        if not cfg.startswith('mod-'):
            continue
        line = f'  {DESC.get(cfg, cfg):32}'
        for n in sizes:
            m = cost[n].get(cfg, {})
            sl = ('-' if m.get('slices') is None else
                  f'{m["slices"]:.2f}/{num(m.get("nominal"), "g")}')
            line += f' {sl:>13} {fmt(m.get("ins_slice")):>9}'
        m = cost[sizes[0]].get(cfg, {})
        ivl = (f'{num(m.get("ivl_ms"), ".1f")}/{num(m.get("nominal_ms"), "g")}'
               if m.get('nominal_ms') else '-')
        spi = f'{num(m.get("spi"), ".1f")}/{num(m.get("spi_exp"), "g")}'
        out.append(line + f' {fmt(m.get("sampler")):>8} {",".join(m.get("sched", [])) or "-":>8}'
                   f' {ivl:>13} {spi:>8}')
    out.append('')
    out.append('The peers, mean per run: perf stat\'s intervals in its output file and lines')
    out.append('<not counted>/<not supported>; the persistent client\'s scrapes answered,')
    out.append('reconnections and bytes per scrape (one connection throughout: 0 reconnections);')
    out.append('(%): of what the run\'s length allows at the nominal rate')
    for cfg in cfgs:
        parts = []
        for n in sizes:
            p = cost[n].get(cfg, {}).get('peer')
            if not p:
                continue
            done = cost[n][cfg].get('done')
            done = '' if done is None else f' ({done:.0%})'
            if cfg.startswith('perf-'):
                parts.append(f'{n} vCPU: {p.get("intervals", 0):.1f} intervals{done}, '
                             f'{p.get("not_counted", 0):.0f} not counted')
            else:
                per = p.get('bytes', 0) / p['scrapes'] if p.get('scrapes') else 0
                parts.append(f'{n} vCPU: {p.get("scrapes", 0):.1f} scrapes{done}, '
                             f'{p.get("reconnects", 0):.0f} reconn., {fmt(per)}B')
        if parts:
            out.append(f'  {DESC.get(cfg, cfg):32} ' + '; '.join(parts))


def read_table(b, out):
    base = min(b.reads.get('base', [0]) or [0])
    out.append(f'{b.cpus} vCPU, all groups: one read of every metric of every CPU '
               f'(guest instructions, least of 3, less {fmt(base)} for starting a program)')
    for what, label in (('text', 'text files (cat of every file)'),
                        ('snapshot', 'snapshot (/dev/n3telemetry)'),
                        ('export-prometheus', 'n3tel export --format prometheus'),
                        ('export-json', 'n3tel export --format json')):
        v = b.reads.get(what)
        if v:
            ins = min(v) - base
            out.append(f'  {label:40} {fmt(ins):>8}  {fmt(ins / b.cpus):>7} per CPU')


def prof_table(b, out):
    """the function graph below the sampler, per slice, deepest run"""
    depth = max(b.prof)
    rows = sorted(b.prof[depth], key=lambda r: (r[0], -r[3]))
    top = [r for r in rows if r[1] == 'n3t_slice_work']
    if not top:
        return
    slices, total = top[0][2], top[0][3]
    out.append(f'Where a slice switch goes (module default, {b.cpus} vCPU): function graph '
               f'tracer below n3t_slice_work, {depth} levels, {slices} slices;')
    out.append('  traced time inflates every call, so read the shares, not the sizes')
    out.append(f'  {"function":36} {"calls/slice":>11} {"share":>6}')
    for lvl, name, calls, us in rows:
        if lvl < 2 or us < total * 0.005:
            continue
        out.append(f'  {"  " * (lvl - 2) + name:36} {calls / slices:>11.1f} {us / total:>6.0%}')


def fit_enable(pc):
    """least squares: enable(n, k) = a + b n + c k, n events in the CPU's
    context, k of them enabled"""
    pts = [(n, k, v['enable']) for (n, k), v in pc.items()]
    if len(pts) < 3:
        return None
    # normal equations, 3 x 3, by Cramer's rule
    xs = [(1, n, k) for n, k, _ in pts]
    m = [[sum(x[i] * x[j] for x in xs) for j in range(3)] for i in range(3)]
    r = [sum(x[i] * y for x, (_, _, y) in zip(xs, pts)) for i in range(3)]

    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if not d:
        return None
    coef = []
    for i in range(3):
        mi = [row[:] for row in m]
        for j in range(3):
            mi[j][i] = r[j]
        coef.append(det(mi) / d)
    resid = max(abs(coef[0] + coef[1] * n + coef[2] * k - y) for n, k, y in pts)
    return coef, resid


def plan_cost(sets, order, price):
    """perf-call instructions per slice of the module's switch, in this order:
    a counter the next set shares stays on; the others are disabled, every
    member is read (those still on while counting), the new ones enabled"""
    nev = len(set().union(*sets))
    total = 0
    for i, s in enumerate(order):
        a, b = sets[s], sets[order[(i + 1) % len(order)]]
        keep, old, new = a & b, a - b, b - a
        total += len(old) * (price['disable'] + price['read_off']) + len(keep) * price['read_on']
        total += sum(price['enable'](nev, len(keep) + j) for j in range(len(new)))
    return total / len(order)


def perfcost_table(b, plan, sampler, out):
    """the price of each perf call on this kernel, and what the default
    plan's switch must cost at those prices"""
    pc = b.perfcost
    f = fit_enable(pc)
    if not f:
        return None
    (a0, a1, a2), resid = f

    def mean(call):
        return sum(v[call] for v in pc.values()) / len(pc)
    price = {'enable': lambda n, k: a0 + a1 * n + a2 * k, 'disable': mean('disable'),
             'read_on': mean('read_on'), 'read_off': mean('read_off')}
    out.append(f'What each perf call costs on {getattr(b, "kernel", "?")} ({b.cpus} vCPU, '
               f'perfcost/: {len(pc)} points, n events in the CPU\'s context, k of them on):')
    out.append(f'  perf_event_enable()      {fmt(a0)} + {a1:.0f} n + {fmt(a2)} k '
               f'(fit within {fmt(resid)}): it reschedules the CPU\'s whole context')
    out.append(f'  perf_event_disable()     {fmt(price["disable"])}')
    out.append(f'  perf_event_read_value()  {fmt(price["read_on"])} counting, '
               f'{fmt(price["read_off"])} disabled')
    if not plan:
        return None
    sets = [set(s) for s in plan]
    now = plan_cost(sets, list(range(len(sets))), price)
    nev = len(set().union(*sets))
    members = sum(len(s) for s in sets)
    line = (f'  default plan ({len(sets)} sets, {nev} events, {members} members): its switch at '
            f'these prices {fmt(now)} per slice')
    if sampler:
        line += f' (the sampler measured {fmt(sampler)})'
    out.append(line)
    if len(sets) <= 8:
        import itertools
        best = min(plan_cost(sets, [0] + list(p), price)
                   for p in itertools.permutations(range(1, len(sets))))
        out.append(f'  in the cheapest order of its sets: {fmt(best)}')
        return best
    return now


def check_target(out, name, ok, detail):
    word = 'unknown' if ok is None else ('met' if ok else 'NOT met')
    out.append(f'  {word:8} {name}: {detail}')


def scale_drift(scale):
    """the scaling runs' interval lengths against nominal, for the record
    (QEMU's round robin slows every vCPU's timers as vCPUs are added)"""
    d = [(n, m['ivl_ms'] / m['nominal_ms'] - 1) for n, m in sorted(scale.items())
         if m.get('ivl_ms') and m.get('nominal_ms')]
    if not d:
        return ''
    return '; intervals in the scaling runs ' + ', '.join(f'{n}: {x * 100:+.1f}%' for n, x in d)


def report(boots, kernel):
    out = [f'make bench, {kernel}, qemu-system-aarch64 -M virt,gic-version=3 -cpu max '
           f'-icount shift=0,sleep=off', '']
    cost = {}
    for b in boots:
        if not b.scale and b.spin:
            cost[b.cpus] = boot_means(b)
    if cost:
        cost_tables(cost, out)
        out.append('')
    scale, sidle = {}, {}
    for b in sorted(boots, key=lambda b: b.cpus):
        if b.scale:
            bm = boot_means(b)
            scale[b.cpus] = bm.get('mod-default', {})
            sidle[b.cpus] = bm.get('idle', {})
    if scale:
        secs = sorted({w for b in boots if b.scale for w in b.window.values()})
        out.append('Module default by vCPUs, the same method at every count: the busy loops\' work lost')
        out.append(f'in the window ({"/".join(f"{w:g}" for w in secs)} s) against idle runs of the '
                   'same length, over the slices')
        out.append('that ended in it (per CPU, from the interval ends in status); sampler: inside')
        out.append('n3t_slice_work (debugfs cost, the median CPU); outside: the rest of a slice\'s cost')
        out.append(f'  {"vCPUs":>5} {"runs":>4} {"slices":>6} {"lost/s":>7} {"ins/slice":>9} {"spread":>7}'
                   f' {"sampler":>8} {"outside":>8} {"interval ms":>13} {"ticks idle/mod":>15}')
        for n, m in sorted(scale.items()):
            ivl = (f'{num(m.get("ivl_ms"), ".1f")}/{num(m.get("nominal_ms"), "g")}'
                   if m.get('nominal_ms') else '-')
            ins, smp = m.get('ins_slice'), m.get('sampler')
            outside = ins - smp if ins is not None and smp is not None else None
            out.append(f'  {n:>5} {m.get("n", 0):>4} {num(m.get("win_slices"), ".1f"):>6} '
                       f'{fmt(m.get("lost")):>7} {fmt(ins):>9} '
                       f'{fmt(m.get("ins_slice_spread")):>7} {fmt(smp):>8} {fmt(outside):>8} {ivl:>13}'
                       f' {num(sidle[n].get("ticks"), ".0f"):>7}/{num(m.get("ticks"), ".0f"):<7}')
        out.append('  (slices: a CPU\'s in one run\'s window; lost/s: per CPU per guest second; ticks:')
        out.append('  timer interrupts a CPU a second around the window: the 250 Hz tick at 1 vCPU, where')
        out.append('  it comes on time (the slice timers are deferrable: they fire at a tick); with')
        out.append('  several vCPUs QEMU\'s round robin delivers a CPU\'s at its turn and merges the')
        out.append('  ticks that fell due meanwhile, differently in each run, and a tick more or less')
        out.append('  is work more or less beside the module\'s)')
        out.append('')
    for b in sorted(boots, key=lambda b: b.cpus):
        if b.reads:
            read_table(b, out)
            out.append('')
    for b in boots:
        if b.prof:
            prof_table(b, out)
            out.append('')
    # the prices on each kernel probed; the floor is the cost runs' kernel's
    floor = None
    plan = next((b.plan for b in boots if b.plan), None)
    ckernel = next((getattr(b, 'kernel', None) for b in boots if b.spin and not b.scale), None)
    for b in sorted(boots, key=lambda b: getattr(b, 'kernel', '') != ckernel):
        if b.perfcost and not b.scale:
            same = getattr(b, 'kernel', None) == ckernel
            sampler = cost.get(b.cpus, {}).get('mod-default', {}).get('sampler') if same else None
            f = perfcost_table(b, plan, sampler, out)
            if same or ckernel is None:
                floor = floor or f
            out.append('')

    out.append('Targets of issue 22 (1 vCPU unless said; per CPU-second, mean of the runs), '
               'reported, never asserted:')
    one = cost.get(1, {})
    mod = one.get('mod-default', {})
    ml = mod.get('lost')
    sched = ','.join(mod.get('sched', [])) or '?'
    pg = one.get('perf-grouped', {}).get('lost')
    r = pg / ml if pg and ml and ml > 0 else None
    check_target(out, f'module default >= {TARGET_RATIO}x cheaper than perf stat grouped, same events',
                 None if r is None else r >= TARGET_RATIO,
                 f'{num(r, ".1f")}x ({fmt(pg)} / {fmt(ml)})')
    ne = one.get('ne-15s', {}).get('lost')
    old = one.get('ne-15s-wget', {}).get('lost')
    check_target(out, 'module default cheaper than node_exporter\'s perf collector at 15 s',
                 None if ne is None or ml is None else ml < ne,
                 f'{fmt(ml)} vs {fmt(ne)} (one persistent client'
                 + (f'; {fmt(old)} with a wget and a sleep per scrape' if old is not None else '')
                 + ')')
    ivl, nom_ms = mod.get('ivl_ms'), mod.get('nominal_ms')
    d = ivl / nom_ms - 1 if ivl and nom_ms else None
    spi, spi_exp = mod.get('spi'), mod.get('spi_exp')
    # the slices an interval are the schedule's (a count, not a time: a
    # partial interval at either end of the window blurs it a little)
    sched_ok = spi is None or spi_exp is None or spi_ok(spi, spi_exp)
    check_target(out, f'slices on time, within {TARGET_DRIFT:.0%} of nominal',
                 None if d is None else abs(d) <= TARGET_DRIFT and sched_ok,
                 f'intervals {num(ivl, ".1f")} ms of {num(nom_ms, "g")} ({num(None if d is None else d * 100, "+.2f")}%), '
                 f'{num(spi_exp * 1e3 / ivl if spi_exp and ivl else None, ".2f")} slices/s of '
                 f'{num(mod.get("nominal"), ".2f")}; '
                 f'{num(spi, ".1f")} slices an interval, schedule {sched}: {num(spi_exp, "g")}'
                 + scale_drift(scale))
    per = {n: m.get('ins_slice') for n, m in scale.items() if m.get('ins_slice')}
    if len(per) >= 2 and min(per) in per:
        ref = per[min(per)]
        dev = max(abs(v / ref - 1) for v in per.values())
        check_target(out, f'instructions per slice flat +-{TARGET_FLAT:.0%} from '
                     f'{min(per)} to {max(per)} vCPUs', dev <= TARGET_FLAT,
                     ', '.join(f'{n}: {fmt(v)}' for n, v in sorted(per.items())) +
                     f' (max deviation from {min(per)} vCPU: {dev:.1%}; runs, slices a CPU in '
                     'each, spread of the runs: ' +
                     ', '.join(f'{n}: {scale[n].get("n", 0)}x{num(scale[n].get("win_slices"), ".0f")} '
                               f'{fmt(scale[n].get("ins_slice_spread"))}' for n in sorted(per)) +
                     '; ticks a CPU a second, idle/module: ' +
                     ', '.join(f'{n}: {num(sidle[n].get("ticks"), ".0f")}/{num(scale[n].get("ticks"), ".0f")}'
                               for n in sorted(per)) + ')')
    else:
        check_target(out, 'instructions per slice flat', None, 'no scaling runs')
    ins = mod.get('ins_slice')
    out.append(f'  (not a target: {fmt(ins)} instructions per slice switch, {fmt(mod.get("sampler"))} '
               f'inside the sampler' + (f', its perf calls at least {fmt(floor)}' if floor else '') +
               f'; the old target was {fmt(OLD_TARGET_SLICE)})')
    said = {b.sched_param for b in boots if b.sched_param}
    if 'none' in sched or any(p.startswith('none') for p in said):
        out.append('  This module has no schedule= parameter (schedule=all loaded: '
                   f'{"; ".join(sorted(said)) or "not run"}): every module row ran every set '
                   'every interval; the default row is schedule=all, not the multi-rate default '
                   'the targets are for.')
    return out


def smoke(boots):
    """complete and sane, not fast: every run present, numbers in range"""
    bad = []
    for b in boots:
        if not b.complete:
            bad.append(f'{b.path}: no "BENCH end"')
        bad += [f'{b.path}: {e}' for e in b.errors]
        # with every vCPU busy the guest runs 1e9 instructions a second
        if b.base() is None or not 0.9e9 < b.base() <= 1.01e9:
            bad.append(f'{b.path}: busy-loop rate {b.base()} out of range')
        for cfg, n in (('idle', 2), ('mod-default', 2), ('mod-sched-all', 1),
                       ('perf-grouped', 1), ('ne-1s', 1)):
            if len(b.reps(cfg)) < n:
                bad.append(f'{b.path}: fewer than {n} runs of {cfg}')
            elif not cfg.startswith('idle') and any(
                    b.run(cfg, r).get('lost') is None for r in b.reps(cfg)):
                bad.append(f'{b.path}: {cfg}: no work-lost figure')
        # the peers ran as the table says: perf stat wrote its intervals to
        # its file, the client scraped over one connection
        for r in b.reps('perf-grouped'):
            if b.peer[('perf-grouped', r)].get('intervals', 0) < 1:
                bad.append(f'{b.path}: perf-grouped run {r}: no interval in perf stat\'s file')
        for r in b.reps('ne-1s'):
            p = b.peer[('ne-1s', r)]
            if p.get('scrapes', 0) < 2 or p.get('failed', 1) or p.get('reconnects', 1):
                bad.append(f'{b.path}: ne-1s run {r}: scrapes {p}')
        if b.reps('mod-sched-all') and b.sched_param is None:
            bad.append(f'{b.path}: no schedule-param line (did schedule=all load?)')
        m = [b.run('mod-default', r) for r in b.reps('mod-default')]
        for r in m:
            if not 0 < r.get('lost', -1) < 1e8:
                bad.append(f'{b.path}: module lost work {r.get("lost")} out of range')
            if not 1 < (r.get('slices') or 0) < 20:
                bad.append(f'{b.path}: slices/s {r.get("slices")} out of range')
            if not 1e3 < (r.get('sampler') or 0) < 1e7:
                bad.append(f'{b.path}: sampler ns/slice {r.get("sampler")} out of range')
        # the perf-call probe: three sizes or more, each with 0 to 5
        # counters on (as far as it has events), every call a positive cost
        sizes = {n for n, _ in b.perfcost}
        want = {(n, k) for n in sizes for k in range(6) if k < n}
        if len(sizes) < 3 or set(b.perfcost) != want:
            bad.append(f'{b.path}: perfcost points missing: sizes {sorted(sizes)}, '
                       f'{sorted(want - set(b.perfcost))}')
        if any(v <= 0 for p in b.perfcost.values() for v in p.values()):
            bad.append(f'{b.path}: a perf call priced at 0')
        if not b.plan:
            bad.append(f'{b.path}: no default plan')
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--smoke', action='store_true')
    ap.add_argument('--kernel', default='')
    ap.add_argument('logs', nargs='*')
    a = ap.parse_args()
    boots = []
    for p in a.logs:
        b = Boot(p)
        b.scale = 'scale-' in p.rsplit('/', 1)[-1]
        boots.append(b)
    kernel = a.kernel or f'kernel {getattr(boots[0], "kernel", "?")}' if boots else a.kernel
    print('\n'.join(report(boots, kernel)))
    if a.smoke:
        bad = smoke(boots)
        for x in bad:
            print('smoke:', x)
        print('smoke: table complete' if not bad else 'smoke: FAILED')
        return 1 if bad else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())
