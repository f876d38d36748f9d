#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test VM's initramfs: static busybox (Debian's busybox-static:arm64,
# extracted, never installed), the modules built in MODDIR, the kselftests and
# the arm64 n3tel reader when it was built.  With N3T_GUEST_KERNEL (an arm64
# Image, or gzip-compressed one), also what kvmguest.sh boots as a KVM guest:
# that kernel, decompressed, as /lib/n3t/guest-Image, and the guest's own
# initramfs, /lib/n3t/guest-initrd.cpio.gz: kvmperf (guest-progs.sh) as /init;
# and /lib/n3t/guestmod-initrd.cpio.gz, the module inside the guest
# (selftests/n3telemetry/guestmod-init as /init, and pmuuser).
# usage: [N3T_GUEST_KERNEL=IMAGE] mkinitramfs.sh MODDIR OUTPUT.cpio.gz
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
moddir=$1 output=$2
cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
bb=$cache/busybox-arm64
if [ ! -x "$bb/bin/busybox" ]; then
	mkdir -p "$bb/debs" && chmod 777 "$bb/debs"
	(cd "$bb/debs" && apt-get download -q busybox-static:arm64 >&2)
	dpkg-deb -x "$bb"/debs/busybox-static_*.deb "$bb"
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,lib/n3t,selftests}
chmod 1777 "$root/tmp"
cp "$bb/bin/busybox" "$root/bin/"
for a in sh ash cat echo ls mount umount insmod rmmod lsmod mkdir rm cp mv sed grep \
	egrep awk wc head tail cut tr sort uniq sleep usleep dmesg poweroff reboot setsid \
	cttyhack seq od hexdump printf test [ expr dd stat chmod chown id su env basename \
	dirname true false find xargs date timeout kill ps uname tee diff cmp mktemp \
	realpath readlink chpst setuidgid ln touch watch clear stty nproc; do
	ln -sf busybox "$root/bin/$a"
done
ln -sf ../bin/busybox "$root/sbin/poweroff"
echo 'root:x:0:0:root:/:/bin/sh' > "$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
cp "$top/selftests/vm/init" "$root/init"
find "$moddir" -name '*.ko' -exec cp {} "$root/lib/n3t/" \;
cp "$top"/selftests/n3telemetry/* "$root/selftests/"
# the kernel's KTAP helpers where an installed kselftest tree has them
# (../kselftest/ktap_helpers.sh); without them lib.sh uses its own
ktap=$(ls "$cache"/kernel-6.12-*/tools/testing/selftests/kselftest/ktap_helpers.sh 2>/dev/null | head -1 || true)
if [ -n "$ktap" ]; then
	mkdir -p "$root/kselftest"
	cp "$ktap" "$root/kselftest/"
fi
cp "$top/Documentation/ABI/testing/sysfs-kernel-n3telemetry" "$root/selftests/"
[ -r "$top/build/fits.txt" ] && cp "$top/build/fits.txt" "$root/selftests/"
[ -d "$top/build/fits" ] && cp -r "$top/build/fits" "$root/selftests/"
[ -d "$top/build/cores" ] && cp -r "$top/build/cores" "$root/selftests/"
[ -r "$top/build/midr-map.txt" ] && cp "$top/build/midr-map.txt" "$root/selftests/"
[ -x "$top/build/n3tel-arm64" ] && cp "$top/build/n3tel-arm64" "$root/bin/n3tel"
[ -d "$top/build/guest-bin" ] && cp "$top"/build/guest-bin/* "$root/bin/"
if [ -n "${N3T_GUEST_KERNEL:-}" ]; then
	[ -x "$root/bin/kvmperf" ] || { echo "mkinitramfs: no kvmperf (guest-progs.sh)" >&2; exit 1; }
	if [ "$(head -c2 "$N3T_GUEST_KERNEL" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		zcat "$N3T_GUEST_KERNEL" > "$root/lib/n3t/guest-Image"
	else
		cp "$N3T_GUEST_KERNEL" "$root/lib/n3t/guest-Image"
	fi
	groot=$root/guest-root
	mkdir -p "$groot/dev"
	cp "$root/bin/kvmperf" "$groot/init"
	(cd "$groot" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9) \
		> "$root/lib/n3t/guest-initrd.cpio.gz"
	rm -rf "$groot"
	# and one with the module inside the guest: busybox, the modules
	# built in MODDIR (for the guest's kernel: this one), guestmod-init
	# as /init
	mkdir -p "$groot"/{bin,sbin,dev,proc,sys,tmp,lib/n3t}
	cp -a "$root"/bin/busybox "$groot/bin/"
	(cd "$root/bin" && find . -type l -lname busybox -exec cp -a {} "$groot/bin/" \;)
	ln -sf ../bin/busybox "$groot/sbin/poweroff"
	cp "$root"/lib/n3t/*.ko "$groot/lib/n3t/"
	cp "$root/bin/pmuuser" "$groot/bin/"	# kvmtraps.sh's perf user
	cp "$top/selftests/n3telemetry/guestmod-init" "$groot/init"
	chmod 755 "$groot/init"
	(cd "$groot" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -9) \
		> "$root/lib/n3t/guestmod-initrd.cpio.gz"
	rm -rf "$groot"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$output"
