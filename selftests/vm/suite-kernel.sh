#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One Debian suite's newest arm64 kernel, ready to build modules against
# and to boot: in the suite's chroot (suite-chroot.sh), the arm64
# linux-image, linux-headers and -common packages unpacked at their own
# paths (apt-get download, dpkg-deb -x, never installed), the amd64
# linux-kbuild package their scripts/ point to installed, and the cross gcc
# the kernel was built with (its .kernelvariables name gcc-N).
#   suite-kernel.sh SUITE     (bullseye ... experimental, see suite-chroot.sh)
# Prints the directory (the chroot) as its last line; in it, n3t-kernel.env
# says ABI= (the kernel's release), KDIR= (the headers, a path in the
# chroot), VMLINUZ= (the kernel, in the chroot too) and CC= (the compiler, in the
# chroot).  Build with suite-chroot.sh --run DIR make -C $KDIR M=...
# ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
suite=${1:?usage: suite-kernel.sh SUITE}
root=$("$here/suite-chroot.sh" "$suite" | tail -1)
run() { "$here/suite-chroot.sh" --run "$root" "$@"; }
env=$root/n3t-kernel.env

if [ -e "$env" ]; then
	echo "$root"
	exit 0
fi
exec 9> "$root.lock"
flock 9
if [ -e "$env" ]; then
	echo "$root"
	exit 0
fi
t0=$(date +%s)
case $suite in
trixie-backports | experimental) from=$suite ;;
*) from= ;;
esac
run apt-get update -qq >&2
rm -rf --one-file-system "$root/n3t/debs" "$root/n3t/unpacked"
mkdir -p "$root/n3t/debs" "$root/n3t/unpacked" "$root/n3t/boot"
chmod 777 "$root/n3t/debs"
# linux-image-arm64's versions in the suite (only the -backports or
# experimental ones when the suite adds those), newest first: the first
# whose image, headers and -common the archive serves (a mirror may list
# a -security kernel whose arm64 files it does not have)
vers=$(run apt-cache madison linux-image-arm64:arm64 |
	awk -F' *[|] *' -v s="${from:-.}" '$3 ~ s { print $2 }' | sort -Vru)
[ -n "$vers" ] || { echo "suite-kernel: no linux-image-arm64:arm64 in $suite" >&2; exit 1; }
abi=
for ver in $vers; do
	img=$(run apt-cache depends "linux-image-arm64:arm64=$ver" |
		sed -n 's/.*Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
	a=${img#linux-image-}
	a=${a%-unsigned}
	headers=linux-headers-$a
	common=$(run apt-cache depends "$headers:arm64" |
		sed -n 's/.*Depends: <\{0,1\}\(linux-headers-[^:>]*-common[^:>]*\).*/\1/p' | head -1)
	kbuild=$(run apt-cache depends "$headers:arm64" |
		sed -n 's/.*Depends: <\{0,1\}\(linux-kbuild-[^:>]*\).*/\1/p' | head -1)
	if [ -z "$common" ] || [ -z "$kbuild" ]; then
		echo "suite-kernel: $headers names no -common or linux-kbuild package" >&2
		continue
	fi
	# from 7.x the image package is an empty one, the kernel in
	# linux-binary-ABI (its modules in linux-modules-ABI)
	bin=$(run apt-cache depends "$img:arm64" |
		sed -n 's/.*Depends: <\{0,1\}\(linux-binary-[^:>]*\).*/\1/p' | head -1)
	echo "suite-kernel: $suite: linux-image-arm64 $ver, $a" >&2
	rm -f "$root"/n3t/debs/*.deb
	if run sh -c "cd /n3t/debs && apt-get download -q $img:arm64 ${bin:+$bin:arm64} \
		$headers:arm64 $common:all" >&2; then
		abi=$a
		break
	fi
	echo "suite-kernel: $a not served whole, trying an older one" >&2
done
[ -n "$abi" ] || { echo "suite-kernel: no arm64 kernel of $suite could be fetched" >&2; exit 1; }
# unpacked aside (the image's /lib/modules would replace a merged-/usr
# chroot's /lib symlink), then the headers to their own paths, where
# their symlinks to each other and to linux-kbuild hold
for d in "$root"/n3t/debs/*.deb; do
	dpkg-deb -x "$d" "$root/n3t/unpacked"
done
cp -a "$root"/n3t/unpacked/usr/src/. "$root/usr/src/"
# /boot/vmlinuz-ABI, or from 7.x /usr/lib/modules/ABI/vmlinuz
for v in "boot/vmlinuz-$abi" "usr/lib/modules/$abi/vmlinuz" "lib/modules/$abi/vmlinuz"; do
	[ ! -f "$root/n3t/unpacked/$v" ] || cp "$root/n3t/unpacked/$v" "$root/n3t/boot/vmlinuz-$abi"
done
[ -f "$root/n3t/boot/vmlinuz-$abi" ] || { echo "suite-kernel: no vmlinuz in $img" >&2; exit 1; }
rm -rf "$root/n3t/unpacked"
kdir=/usr/src/$headers
# linux-kbuild of the headers' own version (5.10's name is the series')
hver=$(dpkg-deb -f "$root/n3t/debs/${headers}_"*.deb Version)
# the compiler the kernel was built with: .kernelvariables sets CC to
# $(CROSS_COMPILE)gcc-N, or the kernel's config names it
gccv=$(sed -n 's/.*CROSS_COMPILE)gcc-\([0-9]*\).*/\1/p' "$root$kdir/.kernelvariables" 2>/dev/null | head -1)
[ -n "$gccv" ] || gccv=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' \
	"$root$kdir/.config" | head -1)
# W=1 runs scripts/kernel-doc: perl (Pod::Usage), python3 from 6.18 on
pkgs=("$kbuild=$hver" perl python3)
if run apt-cache show "gcc-$gccv-aarch64-linux-gnu" > /dev/null 2>&1; then
	pkgs+=("gcc-$gccv-aarch64-linux-gnu")
	cc=aarch64-linux-gnu-gcc-$gccv
else
	echo "suite-kernel: no gcc-$gccv-aarch64-linux-gnu in $suite: the suite's default cross gcc" >&2
	cc=aarch64-linux-gnu-gcc
fi
run apt-get install -y -qq --no-install-recommends ${from:+-t "$from"} "${pkgs[@]}" >&2
rm -rf "$root/n3t/debs"

run test -x "$kdir/scripts/basic/fixdep" ||
	{ echo "suite-kernel: $kdir/scripts has no fixdep (is $kbuild installed?)" >&2; exit 1; }
cat > "$env.tmp" <<EOF
SUITE=$suite
ABI=$abi
KDIR=$kdir
VMLINUZ=/n3t/boot/vmlinuz-$abi
CC=$cc
EOF
mv "$env.tmp" "$env"
echo "suite-kernel: $suite $abi ready in $(( $(date +%s) - t0 ))s" >&2
echo "$root"
