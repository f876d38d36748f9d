#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Development: build the modules and boot the test VM for a few kselftests.
#   selftests/vm/quick.sh [--6.1|--kcsan] [--mode MODE] [--append ARGS] [--icount] [--virt] [--single] TEST.sh...
# --kcsan: the KCSAN 6.12 kernel (kernel-kcsan.config; built if not cached)
# --virt: QEMU emulates EL2 (-M virtualization=on, GICv3), the kernel has KVM
# --single: one TCG thread for all vCPUs (-accel tcg,thread=single)
# Uses the kernels make check caches (run make check once first); output in
# build/quick/.  Prints the KSFT lines and any kernel splat.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/selftests/vm
out=$top/build/quick
kern=6.12 mode=check append= qargs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--6.1) kern=6.1; shift ;;
	--kcsan) kern=6.12-kcsan; shift ;;
	--mode) mode=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--icount) qargs+=(-icount shift=0); shift ;;
	--virt) qargs+=(-M virtualization=on,gic-version=3); shift ;;
	--single) qargs+=(-accel tcg,thread=single); shift ;;
	*) break ;;
	esac
done
mkdir -p "$out"
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
if [ $kern = 6.12 ]; then
	kdir=$("$vmdir/build-kernel.sh" | tail -1)
	image=$kdir/arch/arm64/boot/Image
elif [ $kern = 6.12-kcsan ]; then
	kdir=$("$vmdir/build-kernel.sh" kernel-kcsan.config | tail -1)
	image=$kdir/arch/arm64/boot/Image
	append="loglevel=5 $append"	# KCSAN's stacks are at the default level
else
	ddir=$("$vmdir/distro-kernel.sh" | tail -1)
	kdir=$ddir/kdir
	image=$ddir/vmlinuz
fi
m=$out/mod-$kern
rm -rf "$m" && mkdir -p "$m"
(cd "$top" && git ls-files -co --exclude-standard -z | rsync -a --from0 --files-from=- "$top/" "$m/")
make -s -C "$kdir" M="$m" N3T_TESTS=y modules
make -s -C "$top/tools/n3tel" arm64 && cp "$top/tools/n3tel/n3tel-arm64" "$top/build/n3tel-arm64"
"$vmdir/guest-progs.sh" "$top/build/guest-bin"
# the oracles make check makes: sweep's fits.txt, plans' fits/, cores/, midr-map.txt
spec=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}/neoverse-n3.json
# (made again every time: the tables may have changed)
if [ -r "$spec" ]; then
	gcc -O2 -I"$top/module" -I"$top/tools/include" -I"$top/uapi" -o "$top/build/engine-tables" \
		"$top/selftests/host/engine_test.c" "$top/module/engine.c" "$top/module/models.c"
	python3 "$top/selftests/host/fits.py" "$spec" "$top/build/engine-tables" > "$top/build/fits.txt"
	rm -rf "$top/build/fits" "$top/build/cores"
	mkdir -p "$top/build/fits"
	for s in "$(dirname "$spec")"/neoverse-*.json "$top/tools/models/generic.json"; do
		python3 "$top/selftests/host/fits.py" "$s" "$top/build/engine-tables" \
			> "$top/build/fits/$(basename "$s" .json).txt"
	done
	python3 "$top/selftests/host/core_expect.py" "$(dirname "$spec")" "$top/build/cores" \
		"$top/tools/models/generic.json"
	"$vmdir/full-plans.sh" "$top/build/engine-tables" "$top/build/cores"
fi
python3 "$vmdir/midr-map.py" "$top/module" "$kdir" > "$top/build/midr-map.tmp" &&
	mv "$top/build/midr-map.tmp" "$top/build/midr-map.txt" || rm -f "$top/build/midr-map.txt"
# kvmguest.sh's Linux guest: the 6.1 kernel that boots this VM
[ $kern = 6.1 ] && [ $mode = kvm ] && export N3T_GUEST_KERNEL=$image
"$vmdir/mkinitramfs.sh" "$m" "$out/initramfs-$kern.cpio.gz"
only=$(echo "$*" | tr ' ' ,)
log=$out/console-$kern.log
/usr/bin/time -f "qemu: %e s wall, %U s user, %S s system" -o "$log.time" \
	timeout --foreground 1200 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp "${VM_SMP:-4}" -m 2G \
	-nographic -no-reboot -nic none -kernel "$image" -initrd "$out/initramfs-$kern.cpio.gz" \
	-append "console=ttyAMA0 loglevel=4 panic=-1 n3t.mode=$mode ${only:+n3t.only=$only} $append" \
	"${qargs[@]}" < /dev/null > "$log" 2>&1 || true
grep -E '^KSFT' "$log" || tail -40 "$log"
cat "$log.time"
grep -E 'BUG:|WARNING:|KASAN|lockdep|circular|Oops|Call trace' "$log" | head -20 || true
[ $kern != 6.12-kcsan ] || python3 "$vmdir/kcsan-reports.py" "$log" || true
