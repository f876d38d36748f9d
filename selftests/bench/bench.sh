#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the cost of always-on telemetry, side by side with perf stat and
# node_exporter's perf collector, as busy-loop work lost per CPU per guest
# second, on Debian 12's production arm64 6.1 kernel under
# qemu-system-aarch64 -icount shift=0,sleep=off (one guest instruction per
# guest ns, whatever the host does).  See README, "Cost".
#
#   bench.sh            the full matrix (1, 4, 16 vCPUs; scaling to 64)
#   bench.sh --smoke    1 vCPU, two configurations, a few seconds: checks the
#                       harness yields a complete table (make check runs it)
#
# Environment: N3T_BENCH_CPUS="1 4 16", N3T_BENCH_SCALE="1 4 16 64",
# N3T_BENCH_SECS=10, N3T_BENCH_REPS=2.  Results: build/bench/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/bench
out=$top/build/bench
mode=full
case "${1:-}" in
--smoke) mode=smoke ;;
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

step "module (production build, no test hooks) against $(basename "$ddir")"
src=$out/src
rm -rf "$src" && mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z 2>/dev/null |
	rsync -a --from0 --files-from=- "$top/" "$src/") ||
	rsync -a --exclude build --exclude .git "$top/" "$src/"
make -s -C "$ddir/kdir" M="$src" modules > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
mkdir -p "$out/mod" && cp "$src/module/n3telemetry.ko" "$out/mod/"

step "guest programs: n3tel, busy loop, perf and node_exporter from Debian"
make -s -C "$src/tools/n3tel" arm64 > "$out/n3tel.log" 2>&1 || { cat "$out/n3tel.log"; exit 1; }
gdeps=$("$here/guest-deps.sh" | tail -1)
ov=$out/overlay
rm -rf "$ov" && mkdir -p "$ov/bin" "$ov/bench"
cp -a "$gdeps/root/." "$ov/"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -o "$ov/bin/spin" "$here/spin.c"
cp "$src/tools/n3tel/n3tel-arm64" "$ov/bin/n3tel"
cp "$here/guest.sh" "$ov/bench/"
for a in wget ifconfig; do ln -s busybox "$ov/bin/$a"; done
# raw event codes by name, from the module's own table
python3 "$here/table.py" --events "$src/module/engine.c" > "$ov/bench/events"

step "initramfs"
"$top/selftests/vm/mkinitramfs.sh" "$out/mod" "$out/base.cpio.gz"
(cd "$ov" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$out/overlay.cpio.gz"
cat "$out/base.cpio.gz" "$out/overlay.cpio.gz" > "$out/initramfs.cpio.gz"

# boot TAG CPUS TIMEOUT APPEND...: one repeatable boot, console in $out/TAG.log
boot() {
	local tag=$1 cpus=$2 tmo=$3 rc=0 b0
	shift 3
	b0=$(date +%s)
	timeout --foreground "$tmo" qemu-system-aarch64 -M virt,gic-version=3 -cpu max \
		-smp "$cpus" -m 2G -icount shift=0,sleep=off -nographic -no-reboot -nic none \
		-kernel "$ddir/vmlinuz" -initrd "$out/initramfs.cpio.gz" \
		-append "console=ttyAMA0 loglevel=4 panic=-1 nokaslr n3t.mode=bench $*" \
		< /dev/null > "$out/$tag.log" 2>&1 || rc=$?
	echo "   $tag: ${cpus} vCPU, $(( $(date +%s) - b0 ))s wall"
	grep -q '^BENCH end' "$out/$tag.log" || { tail -20 "$out/$tag.log"; return 1; }
	[ $rc = 0 ] || echo "   $tag: qemu exit $rc"
}

secs=${N3T_BENCH_SECS:-10}
reps=${N3T_BENCH_REPS:-2}
logs=()
if [ $mode = smoke ]; then
	step "smoke: 1 vCPU, idle and module default"
	boot smoke 1 120 n3t.configs=idle,mod-default n3t.secs=2 n3t.settle=1 n3t.reps=2
	python3 "$here/table.py" --smoke "$out/smoke.log"
	echo "== smoke done in $(( $(date +%s) - t0 ))s"
	exit 0
fi

all=idle,mod-default,mod-all,mod-100ms,mod-1set,perf-grouped,perf-flat,perf-all-grouped,perf-all-flat,ne-15s,ne-1s
for n in ${N3T_BENCH_CPUS:-1 4 16}; do
	step "cost at $n vCPU"
	cfgs=$all
	[ "$n" -gt 1 ] && cfgs=idle,mod-default,mod-all,mod-100ms,perf-grouped,perf-flat,ne-15s,ne-1s
	boot "cost-$n" "$n" 7200 "n3t.configs=$cfgs" "n3t.secs=$secs" n3t.settle=3 "n3t.reps=$reps"
	logs+=("$out/cost-$n.log")
done
for n in ${N3T_BENCH_SCALE:-1 4 16 64}; do
	step "instructions per slice and reads at $n vCPU"
	reads=0
	case $n in 4|64) reads=1 ;; esac
	boot "scale-$n" "$n" 7200 n3t.configs=idle,mod-default n3t.secs=3 n3t.settle=2 \
		n3t.reps=2 "n3t.reads=$reads"
	logs+=("$out/scale-$n.log")
done
step "table"
python3 "$here/table.py" --kernel "Debian $(basename "$ddir" | sed 's/^distro-//')" "${logs[@]}" |
	tee "$out/table.txt"
echo "== bench done in $(( $(date +%s) - t0 ))s; table in $out/table.txt"
