#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench, inside the VM (n3t.mode=bench): for each configuration, start
# the load, let it settle, run one pinned busy loop per CPU for a fixed number
# of guest seconds, stop the load.  Every figure goes to the console on a
# "BENCH ..." line; selftests/bench/table.py turns them into the table.
#
# Kernel command line: n3t.configs=a,b,... n3t.once=c,... (run in the first
# repetition only, after the configs) n3t.secs=S n3t.settle=S
# n3t.reps=N n3t.reads=0|1 n3t.profile=0|1 n3t.perfcost=0|1 (n3t.pfn=FUNCTION
# n3t.pdepths=1,2,3 for the profile) n3t.events=0|1 (count the kernel's
# scheduler, timer, interrupt and work-item events in every run, "BENCH ev"
# lines: tracing costs work, so not for the figures) n3t.pp=a,b,...
# n3t.pprounds=N n3t.ppreps=N n3t.ppbursts=N n3t.ppgap=MS (the
# context-switch benchmark, pingpong.c: its round trips in N bursts MS apart)
# n3t.short=1 (every window n3t.secs long, the smoke test's).
# Configurations: idle idle-20s mod-default mod-old mod-spare0 mod-sched-all
# mod-all mod-100ms mod-10s mod-1set perf-grouped perf-flat perf-all-grouped
# perf-all-flat ne-15s ne-1s ne-15s-wget; the context-switch benchmark's:
# pp-none pp-default pp-all pp-old pp-old-all pp-hold pp-hold-all.
#
# The module is a test build (N3T_TESTS=y) loaded with test_all_events=1 on
# the CPU PMU: every event of the selected groups takes a counter, as on an
# N3, though QEMU's PMU counts most of them as zero.  Every module row says
# how many events are live ("BENCH live": the sets' events less those the
# load's log names as not implemented or rejected) and fails loudly ("BENCH
# error") when fewer are live than the groups need.  The module's rows load
# it with its defaults except what the row is about: mod-old is the design
# before issues 27 and 28 at steady state (no counter left spare, a rest of
# 10%, a rotating slice every interval, every set's events held in perf's
# lists); mod-sched-all passes schedule=all (every set every interval),
# which a module without the parameter ignores with a warning (reported on a
# "BENCH info schedule-param" line); every row says on its "BENCH sets" line
# which schedule the module ran.  perf stat runs as a user would run it, human
# output to a file.  node_exporter is scraped by one persistent client
# (scrape.c: one process, one keep-alive connection); ne-15s-wget is the
# scraper of old, a wget and a sleep started every scrape.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export LD_LIBRARY_PATH=/lib/aarch64-linux-gnu
N3T=/sys/kernel/n3telemetry
DBG=/sys/kernel/debug/n3telemetry
KO=/lib/n3t/n3telemetry.ko

configs=idle,mod-default once='' events=0 secs=5 settle=1.5 reps=2 reads=0 profile=0 perfcost=0
pp='' pprounds=20000 ppreps=2 ppbursts=40 ppgap=500 short=0
pfn=n3t_slice_work pdepths="1 2 3"
# shellcheck disable=SC2013
for a in $(cat /proc/cmdline); do
	case "$a" in
	n3t.configs=*) configs=${a#n3t.configs=} ;;
	n3t.once=*) once=${a#n3t.once=} ;;
	n3t.secs=*) secs=${a#n3t.secs=} ;;
	n3t.settle=*) settle=${a#n3t.settle=} ;;
	n3t.reps=*) reps=${a#n3t.reps=} ;;
	n3t.reads=*) reads=${a#n3t.reads=} ;;
	n3t.profile=*) profile=${a#n3t.profile=} ;;
	n3t.perfcost=*) perfcost=${a#n3t.perfcost=} ;;
	n3t.pfn=*) pfn=${a#n3t.pfn=} ;;
	n3t.pdepths=*) pdepths=$(echo "${a#n3t.pdepths=}" | tr , ' ') ;;
	n3t.events=*) events=${a#n3t.events=} ;;
	n3t.pp=*) pp=${a#n3t.pp=} ;;
	n3t.short=*) short=${a#n3t.short=} ;;
	n3t.pprounds=*) pprounds=${a#n3t.pprounds=} ;;
	n3t.ppreps=*) ppreps=${a#n3t.ppreps=} ;;
	n3t.ppbursts=*) ppbursts=${a#n3t.ppbursts=} ;;
	n3t.ppgap=*) ppgap=${a#n3t.ppgap=} ;;
	esac
done
ncpu=$(nproc)

# The module on the CPU PMU by its own type number, with every event of its
# table live (test_all_events=1, a test build's: QEMU's PMCEID lists few of
# N3's events, and the module would leave the others without a counter);
# force=1 for QEMU's CPU model.
pmu=
for d in /sys/bus/event_source/devices/armv8_pmuv3*; do
	[ -r "$d/type" ] && pmu=$(cat "$d/type") && break
done
MODARGS="force=1 test_all_events=1 ${pmu:+pmu_type=$pmu}"
# the design before issues 27 and 28, at steady state
OLDARGS="spare=0 yield_pct=10 test_every=1 test_hold_all=1"
echo "BENCH info kernel $(uname -r) cpus $ncpu pmu_type ${pmu:-none} secs $secs settle $settle reps $reps"
ifconfig lo 127.0.0.1 up 2>/dev/null

# mod_load ARGS: the module, and in $rejected the events its load's log
# names as not implemented or rejected (none with test_all_events=1)
# shellcheck disable=SC2086
mod_load() {
	dl=$(dmesg | wc -l)
	insmod $KO $MODARGS "$@" || return 1
	rejected=$(dmesg | tail -n +$((dl + 1)) |
		sed -n 's/.*events not implemented or rejected[^:]*: *//p' | tr '\n' ' ')
}
mod_unload() { rmmod n3telemetry; }

# live CFG REP: "BENCH live CFG REP LIVE NEED": the distinct events of the
# loaded module's sets (NEED), less those its load's log named (LIVE); a
# BENCH error when any is missing, which fails the table and make bench
live() {
	awk -v p="BENCH live $1 $2" -v rej="$rejected" '
		BEGIN { n = split(rej, r, " "); for (i = 1; i <= n; i++) bad[r[i]] = 1 }
		{ for (i = 2; i <= NF; i++) ev[$i] = 1 }
		END { for (e in ev) { need++; if (e in bad) miss = miss " " e; else ok++ }
		      if ("..." in bad) miss = miss " (the log line was cut short)"
		      print p, ok + 0, need + 0
		      if (miss != "" || !need)
			print "BENCH error " substr(p, 12) ": " ok + 0 " of " need + 0 \
			      " events live, not implemented or rejected:" miss }' $N3T/sets
}

# perf -e lists: the module's sets, raw codes from its table (models/*/events)
perf_events() {	# perf_events GROUPS grouped|flat
	mod_load groups="$1" || return 1
	awk -v mode="$2" 'NR == FNR { code[$1] = $2; next }
		{ s = ""
		  for (i = 2; i <= NF; i++)
			s = s (s == "" ? "" : ",") "r" substr(code[$i], 3)
		  out = out (out == "" ? "" : ",") (mode == "grouped" ? "{" s "}" : s) }
		END { print out }' "$N3T/models/$(awk 'NR == 1 { print $1 }' $N3T/cpu_model)/events" $N3T/sets
	mod_unload
}
# (not on a boot that only prices perf calls: its kernel may not be the
# module's)
if [ -n "$configs" ] || [ "$profile" = 1 ]; then
	ev_default_grouped=$(perf_events default grouped)
	ev_default_flat=$(perf_events default flat)
	ev_all_grouped=$(perf_events all grouped)
	ev_all_flat=$(perf_events all flat)
	echo "BENCH info perf-events-default $ev_default_grouped"
	echo "BENCH info perf-events-all $ev_all_grouped"
fi

bgpids='' sched_said=''
bg() { "$@" & bgpids="$bgpids $!"; }
# the scraper of old: a wget and a sleep per scrape (ne-15s-wget only)
wget_scraper() {	# wget_scraper PERIOD: one scrape now, then every PERIOD seconds
	while :; do
		wget -q -O /dev/null http://127.0.0.1:9100/metrics || echo "BENCH error scrape failed"
		sleep "$1"
	done
}

start() {	# start CONFIG
	case "$1" in
	idle|idle-20s) ;;
	mod-default) mod_load ;;
	mod-old) mod_load $OLDARGS ;;
	mod-spare0) mod_load spare=0 ;;
	mod-sched-all) mod_load schedule=all ;;
	mod-all) mod_load groups=all ;;
	mod-100ms) mod_load interval_ms=100 ;;
	mod-10s) mod_load interval_ms=10000 ;;
	mod-1set) mod_load groups=topdown_l1 ;;
	perf-grouped) bg perf stat -a -I 1000 -o /tmp/perf.out -e "$ev_default_grouped" ;;
	perf-flat) bg perf stat -a -I 1000 -o /tmp/perf.out -e "$ev_default_flat" ;;
	perf-all-grouped) bg perf stat -a -I 1000 -o /tmp/perf.out -e "$ev_all_grouped" ;;
	perf-all-flat) bg perf stat -a -I 1000 -o /tmp/perf.out -e "$ev_all_flat" ;;
	ne-15s|ne-1s|ne-15s-wget)
		bg prometheus-node-exporter --web.listen-address=127.0.0.1:9100 \
			--collector.disable-defaults --collector.perf
		sleep 1
		p=${1#ne-}
		case $1 in
		*-wget) bg wget_scraper "${p%-wget}" ;;
		*) scrape "${p%s}" > /tmp/scrape.out & bgpids="$bgpids $!" ;;
		esac
		;;
	*) echo "BENCH error unknown configuration $1"; return 1 ;;
	esac
}

# SIGTERM: background jobs of a non-interactive shell ignore SIGINT
stop() {	# stop CONFIG
	case "$1" in
	mod-*) mod_unload ;;
	esac
	for p in $bgpids; do kill -TERM "$p" 2>/dev/null; done
	for p in $bgpids; do wait "$p" 2>/dev/null; done
	bgpids=
	# what the peers did: perf stat's intervals in its file (and any
	# event it could not count), the persistent client's scrapes
	case "$1" in
	perf-*)
		awk -v p="BENCH peer $1 $rep perf" '/^ *[0-9]+\.[0-9]+ / { if (!($1 in t)) ni++; t[$1] = 1; n++ }
			/<not (counted|supported)>/ { nc++ }
			END { print p, "intervals", ni + 0, "lines", n + 0, "not_counted", nc + 0 }' /tmp/perf.out
		rm -f /tmp/perf.out
		;;
	ne-15s|ne-1s)
		echo "BENCH peer $1 $rep scrape $(cat /tmp/scrape.out)"
		grep -q 'failed 0 ' /tmp/scrape.out || echo "BENCH error $1 scrapes failed: $(cat /tmp/scrape.out)"
		rm -f /tmp/scrape.out
		;;
	esac
}

# the schedule the loaded module runs: its sysfs file or parameter; "none"
# when it has neither (a module from before schedule=, every set every
# interval)
schedule() {
	# the file reads "[rotate] all": the one in brackets
	sed -n 's/.*\[\([a-z]*\)\].*/\1/p' $N3T/schedule 2>/dev/null | grep . ||
		cat /sys/module/n3telemetry/parameters/schedule 2>/dev/null || echo none
}

# per CPU: seq end_ns (status), the sampler's runs and their ns (debugfs
# cost: "cpuN name value ...", read by name), and its rests, looks, asides
# and failed creations
modstate() {
	for d in "$N3T"/cpu[0-9]*; do
		c=${d##*/cpu}
		awk -v c="$c" '$1 == "seq" { s = $2 } $1 == "end_ns" { e = $2 }
			END { print "ivl", c, s, e }' "$d/status"
	done
	[ -r $DBG/cost ] && awk '{ delete v; for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		c = substr($1, 4)
		print "cost", c, v["slices"] + 0, v["total_ns"] + 0
		print "more", c, v["rests"] + 0 " " v["looks"] + 0 " " v["asides"] + 0 " " v["create_failed"] + 0 }' $DBG/cost
}

# ages CFG REP: how old each group's values are on each CPU (cpuN/ages)
ages() {
	for d in "$N3T"/cpu[0-9]*; do
		awk -v p="BENCH ages $1 $2 ${d##*/cpu}" '{ for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
			print p, $1, v["age_ms"], v["seq"] }' "$d/ages"
	done
}

# n3t.events=1: the kernel's events in each run (scheduler, timers,
# interrupts, work items), counted per CPU, to see where work goes
ev_on() {
	T=/sys/kernel/tracing
	[ -e "$T"/trace ] || mount -t tracefs nodev $T
	echo 16384 > "$T"/buffer_size_kb
	echo > "$T"/trace
	for e in sched/sched_switch sched/sched_wakeup timer/timer_expire_entry \
		timer/hrtimer_expire_entry irq/irq_handler_entry irq/softirq_entry \
		workqueue/workqueue_execute_start ipi/ipi_raise rcu/rcu_utilization; do
		[ -e "$T"/events/$e/enable ] && echo 1 > "$T"/events/$e/enable
	done
	echo 1 > "$T"/tracing_on
}
ev_off() {	# ev_off CONFIG REP
	echo 0 > "$T"/tracing_on
	echo 0 > "$T"/events/enable
	awk -v p="BENCH ev $1 $2" '/^ *#/ { next }
		{ cpu = ""; for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { cpu = $i; break }
		  for (j = i + 1; j <= NF; j++) if ($j ~ /:$/ && $j !~ /^[0-9.]+:$/) break
		  ev = $j; k = ""
		  for (f = j + 1; f <= NF; f++)
			if ($f ~ /^\[?(function|next_comm|comm|action|name|s)=/ && k == "") k = $f
		  if (ev == "workqueue_execute_start:")
			for (f = j + 1; f < NF; f++) if ($f == "function") k = $(f + 1)
		  if (ev == "timer_expire_entry:" || ev == "hrtimer_expire_entry:")
			for (f = j + 1; f <= NF; f++) if ($f ~ /^function=/) k = $f
		  n[cpu " " ev " " k]++ }
		END { for (x in n) print p, x, n[x] }' "$T"/trace | sort
	grep -c . "$T"/trace | sed "s/^/BENCH ev $1 $2 lines /"
}

# timer interrupts (the tick, the slice timers' wakeups), every CPU: with
# several vCPUs QEMU's round robin delivers a CPU's timer interrupt at its
# turn, and merges ticks that fall due while it waits, differently from run
# to run
ticks() {
	awk -v n="$ncpu" '/arch_timer/ { s = 0; for (i = 2; i <= n + 1; i++) s += $i; print s }' \
		/proc/interrupts
}

run() {	# run CONFIG REP
	cfg=$1 rep=$2 w=$secs
	# one scrape in the window, whatever its phase; two whole 10 s
	# intervals, against as long an idle run (not in the smoke test,
	# n3t.short=1)
	[ "$short" = 1 ] || case $cfg in
	ne-15s*) [ "$w" -lt 15 ] && w=15 ;;
	idle-20s|mod-10s) [ "$w" -lt 20 ] && w=20 ;;
	# the default's rotation (every group within 15 s) whole in the
	# window, and its ages at the end a whole rotation's
	mod-default|mod-spare0) [ "$w" -lt 20 ] && w=20 ;;
	esac
	start "$cfg" || { echo "BENCH error $cfg did not start"; return; }
	# schedule= on a module without it: ignored with a warning (once a boot)
	if [ "$cfg" = mod-sched-all ] && [ -z "$sched_said" ]; then
		sched_said=1
		w1=$(dmesg | grep "unknown parameter 'schedule'" | tail -1 | sed 's/^\[[^]]*\] *//')
		echo "BENCH info schedule-param $(schedule) ${w1:+(insmod: $w1)}"
	fi
	# settle with the busy loops running
	t=$(spin now)
	spin $((t + 100000000)) "$settle" > /dev/null
	nsets=0
	[ -r $N3T/sets ] && nsets=$(grep -c . $N3T/sets) && live "$cfg" "$rep" &&
		t0=$(spin now) && modstate > /tmp/m0
	# start together, after every child is forked and pinned (pinning
	# waits for each vCPU's round-robin turn)
	[ "$events" = 1 ] && ev_on
	k0=$(ticks) tk0=$(spin now)
	ws=$((tk0 + 200000000 + ncpu * 20000000))
	spin $ws "$w" > /tmp/spin || echo "BENCH error spin failed"
	k1=$(ticks) tk1=$(spin now)
	[ "$events" = 1 ] && ev_off "$cfg" "$rep"
	if [ "$nsets" != 0 ]; then
		modstate > /tmp/m1
		echo "BENCH sets $cfg $rep $nsets $(cat $N3T/interval_ms) $(schedule)"
		# the span of the two snapshots, for slices within the window
		echo "BENCH span $cfg $rep $t0 $(spin now)"
		# per CPU, before and after: intervals (seq, end_ns), sampler
		# (runs, ns); and the difference in rests, looks, asides, failures
		awk -v p="BENCH mod $cfg $rep" 'NR == FNR { a[$1 " " $2] = $3 " " $4 " " $5 " " $6; next }
			$1 != "more" { split(a[$1 " " $2], x, " "); print p, $1, $2, x[1], x[2], $3, $4 }
			$1 == "more" { split(a[$1 " " $2], x, " ")
				print "BENCH more " substr(p, 11), $2, "rests", $3 - x[1], "looks", $4 - x[2],
				      "asides", $5 - x[3], "create_failed", $6 - x[4] }' /tmp/m0 /tmp/m1
		ages "$cfg" "$rep"
	fi
	stop "$cfg"
	sed "s/^/BENCH spin $cfg $rep /" /tmp/spin
	# the window: its length in seconds, its start (CLOCK_MONOTONIC ns)
	echo "BENCH window $cfg $rep $w $ws"
	echo "BENCH ticks $cfg $rep $tk0 $tk1 $((k1 - k0))"
}

# Other users' context switches (pingpong.c): two processes on CPU 0 pass
# a byte back and forth $pprounds times, in $ppbursts bursts $ppgap ms apart
# (40 x 0.5 s: every set of the module's rotation, 12 s with the default
# groups, 18 s with all, has its share of the bursts; the cost of a
# sched-in depends on the set that counts), the timing one holding one pinned
# task event of its own (raw 0x08 on the CPU PMU, as KVM's vPMU creates
# them; "ev") or none ("noev"), beside no module, its default groups, all
# groups, the old default (mod-old's parameters) and the old lists without
# the contention (pp-hold: every set's events held as before, but a counter
# left spare, so that the task's event does not push the module's set off
# the PMU and the module does not step aside).  Guest ns per round trip are
# instructions (-icount); one "BENCH pp CFG REP ev|noev rounds N ns T
# per_round P count C enabled E running R" line per run, and with the
# module one "BENCH ppmod CFG REP ev|noev runs S asides A looks L" line: the
# sampler's runs, step-asides and looks during it (a module that stepped
# aside holds nothing, and costs a sched-in nothing).
pingpongs() {
	r=1
	while [ $r -le "$ppreps" ]; do
		for cfg in $(echo "$pp" | tr , ' '); do
			case $cfg in
			pp-none) ;;
			pp-default) mod_load ;;
			pp-all) mod_load groups=all ;;
			pp-old) mod_load $OLDARGS ;;
			pp-old-all) mod_load $OLDARGS groups=all ;;
			pp-hold) mod_load $OLDARGS spare=1 ;;
			pp-hold-all) mod_load $OLDARGS spare=1 groups=all ;;
			*) echo "BENCH error unknown configuration $cfg"; continue ;;
			esac || { echo "BENCH error $cfg did not start"; continue; }
			[ $cfg != pp-none ] && live "$cfg" "$r"
			# the module's first intervals, the CPU busy
			t=$(spin now)
			spin $((t + 100000000)) "$settle" > /dev/null
			for m in ev noev; do
				[ $cfg != pp-none ] && c0=$(awk '{ for (i = 2; i < NF; i += 2) v[$i] += $(i + 1) }
					END { print v["slices"] + 0, v["asides"] + 0, v["looks"] + 0 }' $DBG/cost)
				o=$(pingpong "$pprounds" $m ${pmu:-4} 0x08 "$ppbursts" "$ppgap") ||
					echo "BENCH error pingpong $cfg $m failed"
				echo "BENCH pp $cfg $r $m $o"
				[ $cfg != pp-none ] && awk -v c0="$c0" -v p="BENCH ppmod $cfg $r $m" '
					{ for (i = 2; i < NF; i += 2) v[$i] += $(i + 1) }
					END { split(c0, a, " ")
					      print p, "runs", v["slices"] - a[1], "asides", v["asides"] - a[2],
						    "looks", v["looks"] - a[3] }' $DBG/cost
			done
			[ $cfg != pp-none ] && mod_unload
		done
		r=$((r + 1))
	done
}

# reading every metric of every CPU: guest ns (= instructions) per read
reads() {
	mod_load groups=all
	sleep 3
	files=
	for f in "$N3T"/system/* "$N3T"/cpu[0-9]*/*; do
		case $f in */status|*/events) ;; *) files="$files $f" ;; esac
	done
	# shellcheck disable=SC2086
	for what in base text snapshot export-prometheus export-json; do
		for i in 1 2 3; do
			case $what in
			base) ns=$(spin time cat /dev/null) ;;
			text) ns=$(spin time cat $files) ;;
			snapshot) ns=$(spin time cat /dev/n3telemetry) ;;
			export-prometheus) ns=$(spin time n3tel export --format prometheus --scope all --max-series 100000) ;;
			export-json) ns=$(spin time n3tel export --format json --scope all) ;;
			esac
			echo "BENCH read $what $i $ns"
		done
	done
	mod_unload
}

# where a slice switch's instructions go: the function graph tracer below
# the sampler, one level and two levels deep (tracing adds its own cost to
# every call it records: compare with the untraced sampler figure)
profile() {
	T=/sys/kernel/tracing
	[ -e $T/current_tracer ] || mount -t tracefs nodev $T
	mod_load
	t=$(spin now)
	spin $((t + 100000000)) "$settle" > /dev/null
	echo "BENCH info profile function $pfn"
	for depth in $pdepths; do
		echo "$pfn" > $T/set_graph_function || return
		echo "$depth" > $T/max_graph_depth
		echo 1 > $T/options/funcgraph-tail
		echo 0 > $T/options/funcgraph-irqs
		echo function_graph > $T/current_tracer
		t=$(spin now)
		spin $((t + 100000000)) 2 > /dev/null
		echo 0 > $T/tracing_on
		echo "BENCH info profile depth $depth: $(grep -c ' us ' $T/trace) traced calls"
		# "cpu) [+!] 12.345 us | name();" or "... us | } /* name */"
		awk -v d="$depth" '/ us +\|/ {
			i = index($0, "|"); body = substr($0, i + 1); pre = substr($0, 1, i - 1)
			n = split(pre, f, " "); us = f[n - 1]
			match(body, /^ */); lvl = RLENGTH / 2
			sub(/^ *\} \/\* */, "", body); sub(/ \*\/.*$/, "", body)
			sub(/^ */, "", body); sub(/\(\);?$/, "", body); sub(/ \[.*$/, "", body)
			k = lvl " " body; t[k] += us; c[k]++ }
			END { for (k in t) printf "BENCH prof %d %s %d %.3f\n", d, k, c[k], t[k] }' $T/trace
		echo nop > $T/current_tracer
		echo 1 > $T/tracing_on
	done
	mod_unload
}

# the price of each exported perf call the sampler makes (perfcost.c): one
# line per (events in the CPU's context, events enabled)
perfcost() {
	insmod /lib/n3t/n3t_perfcost.ko ${pmu:+pmu_type=$pmu} || echo "BENCH error perfcost failed"
	dmesg | sed -n 's/^.*n3t_perfcost: \(cpu\|events\)/BENCH perfcost \1/p'
	rmmod n3t_perfcost 2>/dev/null
}

# a first run after boot reads a little high: warm up once, unmeasured
t=$(spin now)
spin $((t + 100000000)) "$settle" > /dev/null

rep=1
while [ $rep -le "$reps" ]; do
	c=$configs
	[ $rep = 1 ] && [ -n "$once" ] && c="$c,$once"
	for cfg in $(echo "$c" | tr , ' '); do
		echo "BENCH info start $cfg $rep $(cut -d' ' -f1 /proc/uptime)"
		run "$cfg" "$rep"
	done
	rep=$((rep + 1))
done
[ -n "$pp" ] && pingpongs
[ "$reads" = 1 ] && reads
[ "$perfcost" = 1 ] && perfcost
[ "$profile" = 1 ] && profile
echo "BENCH end"
