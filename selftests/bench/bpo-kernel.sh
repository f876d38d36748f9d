#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: Debian 12's newest prebuilt arm64 kernel from bookworm-backports
# (6.12), its headers and the amd64 kbuild that goes with them, fetched with
# apt-get download and unpacked with dpkg-deb -x (never installed), headers
# made usable as KDIR.  Cached like the 6.1 kernel (selftests/vm/distro-kernel.sh).
# Prints the cache directory (vmlinuz, KDIR under kdir/) as its last line;
# exits 1 if apt knows no backports kernel.
set -euo pipefail

cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
abi=$("$(dirname "$0")/../vm/bpo-abi.sh")	# 6.12.NN+deb12-arm64
img=linux-image-$abi
rel=${abi%-arm64}
common=linux-headers-$rel-common
kbuild=linux-kbuild-$rel
out="$cache/bpo-$abi"

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
echo "bpo-kernel: fetching $img, its headers and $kbuild into $out" >&2
rm -rf "$out" && mkdir -p "$out/debs" "$out/root"
chmod 777 "$out/debs"
(cd "$out/debs" && apt-get download -q "$img:arm64" "linux-headers-$abi:arm64" \
	"$common:all" "$kbuild:amd64" >&2)
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
cp "$out/root/boot/vmlinuz-$abi" "$out/vmlinuz"

kdir="$out/root/usr/src/linux-headers-$abi"
for d in "$kdir" "$out/root/usr/src/$common"; do
	rm -f "$d/scripts" "$d/tools"
	ln -s "$out/root/usr/lib/$kbuild/scripts" "$d/scripts"
	ln -s "$out/root/usr/lib/$kbuild/tools" "$d/tools"
done
sed -i "s|/usr/src/${common}|$out/root/usr/src/${common}|g" "$kdir/Makefile"
ln -sfn "$kdir" "$out/kdir"
rm -rf "$out/debs"
touch "$out/.done"
echo "$out"
