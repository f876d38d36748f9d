#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the cost of always-on telemetry, side by side with perf stat and
# node_exporter's perf collector, as busy-loop work lost per CPU per guest
# second, on Debian 12's production arm64 6.1 kernel under
# qemu-system-aarch64 -icount shift=0,sleep=off (one guest instruction per
# guest ns, whatever the host does).  See Documentation/n3telemetry.rst, "Cost".
#
#   bench.sh            the full matrix (1, 4, 16 vCPUs; scaling to 64; the
#                       context-switch benchmark at 1 vCPU; the PMU traps of
#                       a KVM guest with the module inside)
#   bench.sh --smoke    1 vCPU, 1 s runs: idle and the module's default twice,
#                       every other module row, perf stat grouped and
#                       node_exporter (the persistent client) once, a short
#                       context-switch benchmark, and the perf-call probe:
#                       checks the harness yields a complete table, targets
#                       reported, never asserted (make check runs it)
#
# The module is a test build (N3T_TESTS=y) loaded with test_all_events=1, so
# that every event of the selected groups takes a counter as on an N3
# (guest.sh); a row with fewer live events than its groups need is a BENCH
# error, and the table, and so make bench, fail.
#
# Environment: N3T_BENCH_CPUS="1 4 16", N3T_BENCH_SCALE="1 4 16 64" (empty:
# no scaling boots), N3T_BENCH_SECS=5, N3T_BENCH_SCALE_SECS=20 (the scaling
# runs' window), N3T_BENCH_REPS=2 (the scaling runs' too),
# N3T_BENCH_TRAP_SECS=15 (the KVM guest's traps: each run's window),
# N3T_BENCH_CONFIGS (the 1 vCPU boot's configurations, guest.sh; the
# default leaves out perf-all-grouped, perf-all-flat and ne-15s-wget),
# N3T_BENCH_PP (the context-switch benchmark's configurations, guest.sh),
# N3T_BENCH_PP_ROUNDS=20000 and N3T_BENCH_PP_REPS=2 (its round trips a
# run, and runs), N3T_BENCH_BPO=1 (0: no perf-call
# prices on the backports kernel), N3T_BENCH_JOBS=$(nproc), N3T_BENCH_ARGS
# (kernel arguments for every boot, e.g. n3t.events=1: guest.sh).  Results:
# build/bench/ (the smoke: build/bench-smoke/).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/bench
out=$top/build/bench
mode=full
case "${1:-}" in
--smoke) mode=smoke out=$top/build/bench-smoke ;;
"") ;;
*) echo "usage: $0 [--smoke]" >&2; exit 2 ;;
esac
t0=$(date +%s)
step() { printf '== [%4ss] %s\n' "$(( $(date +%s) - t0 ))" "$*"; }
mkdir -p "$out"

step "host packages"
"$top/selftests/vm/deps.sh"
step "Debian 12 arm64 6.1 kernel"
ddir=$("$top/selftests/vm/distro-kernel.sh" | tail -1)
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-

step "module (test build: test_all_events=) and the perf-call probe against $(basename "$ddir")"
src=$out/src
rm -rf "$src" && mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z 2>/dev/null |
	rsync -a --from0 --files-from=- "$top/" "$src/") ||
	rsync -a --exclude build --exclude .git "$top/" "$src/"
# the module's directory alone: N3T_TESTS=y at the top would add the test PMU
make -s -C "$ddir/kdir" M="$src/module" N3T_TESTS=y modules > "$out/build.log" 2>&1 ||
	{ cat "$out/build.log"; exit 1; }
make -s -C "$ddir/kdir" M="$src/selftests/bench/perfcost" modules >> "$out/build.log" 2>&1 ||
	{ cat "$out/build.log"; exit 1; }
rm -rf "$out/mod" && mkdir -p "$out/mod"
cp "$src/module/n3telemetry.ko" "$src/selftests/bench/perfcost/n3t_perfcost.ko" "$out/mod/"

step "guest programs: n3tel, busy loop, scrape client, perf and node_exporter from Debian"
make -s -C "$src/tools/n3tel" arm64 > "$out/n3tel.log" 2>&1 || { cat "$out/n3tel.log"; exit 1; }
gdeps=$("$here/guest-deps.sh" | tail -1)
ov=$out/overlay
rm -rf "$ov" && mkdir -p "$ov/bin" "$ov/bench"
cp -a "$gdeps/root/." "$ov/"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -o "$ov/bin/spin" "$here/spin.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -o "$ov/bin/scrape" "$here/scrape.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -o "$ov/bin/pingpong" "$here/pingpong.c"
cp "$src/tools/n3tel/n3tel-arm64" "$ov/bin/n3tel"
cp "$here/guest.sh" "$ov/bench/"
for a in wget ifconfig; do ln -s busybox "$ov/bin/$a"; done
# raw event codes by name, from the module's own table

step "initramfs"
"$top/selftests/vm/mkinitramfs.sh" "$out/mod" "$out/base.cpio.gz"
# the traps' boot: the test VM's, with Debian's 6.1 kernel as its KVM guest
"$top/selftests/vm/guest-progs.sh" "$top/build/guest-bin"
N3T_GUEST_KERNEL=$ddir/vmlinuz "$top/selftests/vm/mkinitramfs.sh" "$out/mod" "$out/initramfs-kvm.cpio.gz"
(cd "$ov" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$out/overlay.cpio.gz"
cat "$out/base.cpio.gz" "$out/overlay.cpio.gz" > "$out/initramfs.cpio.gz"

# boot TAG CPUS TIMEOUT APPEND...: one repeatable boot, console in $out/TAG.log
# (the 6.1 kernel and initramfs unless KERNEL= and INITRD= say otherwise)
boot() {
	local tag=$1 cpus=$2 tmo=$3 rc=0 b0
	shift 3
	b0=$(date +%s)
	timeout --foreground "$tmo" qemu-system-aarch64 -M virt,gic-version=3 -cpu max,pauth-impdef=on \
		-smp "$cpus" -m 2G -icount shift=0,sleep=off -nographic -no-reboot -nic none \
		-kernel "${KERNEL:-$ddir/vmlinuz}" -initrd "${INITRD:-$out/initramfs.cpio.gz}" \
		-append "console=ttyAMA0 loglevel=4 panic=-1 nokaslr n3t.mode=bench $*" \
		< /dev/null > "$out/$tag.log" 2>&1 || rc=$?
	echo "   $tag: ${cpus} vCPU, $(( $(date +%s) - b0 ))s wall${rc/#0/}"
	grep -q '^BENCH end' "$out/$tag.log" || { tail -20 "$out/$tag.log"; return 1; }
}

# traps TAG APPEND...: what the module costs a KVM guest in PMU register
# traps (selftests/n3telemetry/kvmtraps.sh): the 6.1 kernel as a KVM host
# (QEMU emulates EL2) with a Linux guest of the same kernel, the module and
# pmuuser inside it; console in $out/TAG.log, the table's lines in
# $out/TAG.txt
traps() {
	local tag=$1 rc=0 b0
	shift
	b0=$(date +%s)
	rm -f "$out/$tag.txt"
	timeout --foreground 1800 qemu-system-aarch64 -M virt,gic-version=3,virtualization=on \
		-cpu max,pauth-impdef=on -smp 2 -m 2G -icount shift=0,sleep=off -nographic -no-reboot \
		-nic none -kernel "$ddir/vmlinuz" -initrd "$out/initramfs-kvm.cpio.gz" \
		-append "console=ttyAMA0 loglevel=4 panic=-1 nokaslr n3t.mode=check n3t.only=kvmtraps.sh $*" \
		< /dev/null > "$out/$tag.log" 2>&1 || rc=$?
	echo "   $tag: 2 vCPU, KVM guest of 1, $(( $(date +%s) - b0 ))s wall${rc/#0/}"
	grep -qE 'KSFT: *# Totals: pass:6 fail:0' "$out/$tag.log" || { grep KSFT "$out/$tag.log" | tail -30; return 1; }
	sed -n 's/^KSFT: *# TRAPS //p' "$out/$tag.log" | awk '
		{ v[$1] = $2; order[++n] = $1 }
		END {
			print "PMU register traps a KVM guest takes per guest second (kvm_sys_access on the host;"
			print "Debian 12 6.1 host and guest, 1 vCPU spinning, the guest PMU 6 counters and cycles)"
			for (i = 1; i <= n; i++)
				printf "  %-14s %8.1f %s\n", order[i], v[order[i]],
					(order[i] == "none" ? "" : sprintf("(%.1f beyond the guest alone)", v[order[i]] - v["none"]))
			d = v["default"] - v["none"]; p = v["perf-default"] - v["none"]
			printf "  %-8s default at least 10x fewer than perf-default: %.1f against %.1f (%.1fx)\n",
				(d * 10 <= p ? "met" : "NOT met"), d, p, (d > 0 ? p / d : 0)
		}' > "$out/$tag.txt"
}

secs=${N3T_BENCH_SECS:-5}
reps=${N3T_BENCH_REPS:-2}
jobs=${N3T_BENCH_JOBS:-$(nproc)}
if [ $mode = smoke ]; then
	step "smoke: 1 vCPU, idle, every module row, perf stat, node_exporter, context switches, 1 s runs"
	boot smoke 1 900 n3t.configs=idle,mod-default \
		n3t.once=mod-old,mod-sched-all,mod-1set,mod-10s,mod-100ms,mod-all,perf-grouped,ne-1s \
		n3t.secs=1 n3t.settle=0.8 n3t.reps=2 n3t.short=1 n3t.perfcost=1 \
		n3t.pp=pp-none,pp-default,pp-all,pp-old,pp-hold n3t.pprounds=2000 n3t.ppreps=1 n3t.ppbursts=4 n3t.ppgap=200
	python3 "$here/table.py" --smoke "$out/smoke.log"
	echo "== smoke done in $(( $(date +%s) - t0 ))s"
	exit 0
fi

# The perf calls' prices on Debian 12's backports kernel too (6.12), to see
# whether a newer perf core changes them: the probe alone, built against its
# headers, on the same initramfs.
if [ "${N3T_BENCH_BPO:-1}" != 0 ] && bdir=$("$here/bpo-kernel.sh" | tail -1); then
	bsrc=$out/perfcost-bpo
	rm -rf "$bsrc" && cp -r "$src/selftests/bench/perfcost" "$bsrc"
	# no BTF for an out-of-tree probe: the headers come without pahole's vmlinux
	make -s -C "$bdir/kdir" M="$bsrc" CONFIG_DEBUG_INFO_BTF_MODULES= modules \
		>> "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
	bov=$out/overlay-bpo
	rm -rf "$bov" && mkdir -p "$bov/lib/n3t" && cp "$bsrc/n3t_perfcost.ko" "$bov/lib/n3t/"
	(cd "$bov" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) \
		> "$out/overlay-bpo.cpio.gz"
	cat "$out/initramfs.cpio.gz" "$out/overlay-bpo.cpio.gz" > "$out/initramfs-bpo.cpio.gz"
else
	bdir=
fi

# Every boot is independent (the guest's clock is its instruction count):
# run up to $jobs at a time.
step "boots, $jobs at a time"
all=${N3T_BENCH_CONFIGS:-idle,idle-20s,mod-default,mod-old,mod-spare0,mod-sched-all,mod-all,mod-100ms,mod-10s,mod-1set,perf-grouped,perf-flat,ne-15s,ne-1s}
few=idle,idle-20s,mod-default,mod-old,mod-sched-all,mod-all,mod-100ms,perf-grouped,perf-flat,ne-15s,ne-1s
specs=()
for n in ${N3T_BENCH_CPUS-1 4 16}; do
	c=$few
	[ "$n" = 1 ] && c=$all
	specs+=("cost-$n $n n3t.configs=$c n3t.secs=$secs n3t.settle=1.5 n3t.reps=$reps")
done
for n in ${N3T_BENCH_SCALE-1 4 16 64}; do
	r=0
	case $n in 4|64) r=1 ;; esac
	# the default's window is 20 s (a whole rotation): against idle runs as long
	specs+=("scale-$n $n n3t.configs=idle-20s,mod-default n3t.secs=${N3T_BENCH_SCALE_SECS:-20} n3t.settle=1.5 n3t.reps=$reps n3t.reads=$r")
done
# other users' context switches: a task with a pinned event ping-ponging
# with one without, on one CPU, beside no module, the default, all groups
# and the design before: the old default, and its lists with a counter
# spare (guest.sh, pingpong.c)
specs+=("pingpong 1 n3t.configs= n3t.settle=1.5 n3t.pp=${N3T_BENCH_PP:-pp-none,pp-default,pp-all,pp-old,pp-old-all,pp-hold,pp-hold-all} n3t.pprounds=${N3T_BENCH_PP_ROUNDS:-20000} n3t.ppreps=${N3T_BENCH_PP_REPS:-2}")
# where the sampler's instructions go: function graph below n3t_slice_work
# and what each perf call it makes costs on this kernel (perfcost/)
specs+=("profile 1 n3t.configs= n3t.settle=1.5 n3t.profile=1 n3t.perfcost=1")
[ -n "$bdir" ] && specs+=("prices-bpo 1 n3t.configs= n3t.settle=0.5 n3t.perfcost=1")
# N3T_BENCH_ONLY="tag ...": boot only those again (e.g. "profile"); the table
# takes the other boots' logs from the last run.  N3T_BENCH_PROFILE adds
# kernel arguments to the profile boot (n3t.pfn=FUNCTION n3t.pdepths=1,2,3).
tlogs=()
if [ -n "${N3T_BENCH_ONLY:-}" ]; then
	keep=()
	for s in "${specs[@]}"; do
		case " $N3T_BENCH_ONLY " in
		*" ${s%% *} "*) keep+=("$s") ;;
		*) [ -e "$out/${s%% *}.log" ] && tlogs+=("$out/${s%% *}.log") ;;
		esac
	done
	specs=("${keep[@]}")
fi
logs=() pids=() fail=0
# the traps' boot (N3T_BENCH_ONLY: when it names "traps")
tr_pid=
case " ${N3T_BENCH_ONLY:-traps} " in
*" traps "*) traps traps "N3T_TRAP_SECS=${N3T_BENCH_TRAP_SECS:-15}" & tr_pid=$! ;;
esac
for s in "${specs[@]}"; do
	read -r tag n args <<< "$s"
	[ "$tag" = profile ] && args="$args ${N3T_BENCH_PROFILE:-}"
	args="$args ${N3T_BENCH_ARGS:-}"
	logs+=("$out/$tag.log")
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || fail=1; done
	k='' i=''
	[ "$tag" = prices-bpo ] && k=$bdir/vmlinuz i=$out/initramfs-bpo.cpio.gz
	# shellcheck disable=SC2086
	KERNEL=$k INITRD=$i boot "$tag" "$n" 7200 $args &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
[ -z "$tr_pid" ] || wait "$tr_pid" || fail=1
[ $fail = 0 ] || echo "== some boots failed; the table shows what there is"

step "table"
# a BENCH error (fewer events live than the groups need, a peer that
# failed) fails the table, and make bench, after it is printed
python3 "$here/table.py" --kernel "Debian $(basename "$ddir" | sed 's/^distro-//')" \
	"${logs[@]}" "${tlogs[@]}" > "$out/table.txt" || fail=2
if [ -s "$out/traps.txt" ]; then
	echo >> "$out/table.txt"
	cat "$out/traps.txt" >> "$out/table.txt"
fi
cat "$out/table.txt"
[ $fail != 2 ] || { echo "== bench FAILED: BENCH errors (end of the table)"; exit 1; }
echo "== bench done in $(( $(date +%s) - t0 ))s; table in $out/table.txt"
