#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian 12's prebuilt arm64 6.1 kernel and headers (apt-get download,
# unpacked with dpkg-deb -x, never installed) and make the headers usable as
# KDIR with the host's linux-kbuild-6.1.  Cached like the debug kernel.
#   distro-kernel.sh [FLAVOUR]   generic (the default: linux-image-arm64's,
#                                6.1.0-NN-arm64) or cloud (6.1.0-NN-cloud-arm64)
# Prints the cache directory (vmlinuz, KDIR under kdir/) as its last line.
set -euo pipefail

cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
img=$(apt-cache depends linux-image-arm64:arm64 | sed -n 's/.*Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
[ -n "$img" ] || { echo "distro-kernel: no linux-image-arm64:arm64 in apt lists" >&2; exit 1; }
abi=${img#linux-image-}		# 6.1.0-NN-arm64
common=linux-headers-${abi%-arm64}-common
case ${1:-generic} in
generic) ;;
cloud) abi=${abi%-arm64}-cloud-arm64 img=linux-image-$abi ;;
*) echo "distro-kernel: unknown flavour $1 (generic, cloud)" >&2; exit 2 ;;
esac
out="$cache/distro-$abi"

if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
# once, under a lock (make e2e beside make check on a cold cache)
mkdir -p "$cache"
exec 9> "$cache/distro-$abi.lock"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi
echo "distro-kernel: fetching $img and headers into $out" >&2
rm -rf "$out" && mkdir -p "$out/debs" "$out/root"
chmod 777 "$out/debs"
(cd "$out/debs" && apt-get download -q "$img:arm64" "linux-headers-$abi:arm64" "$common:all" >&2)
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
cp "$out/root/boot/vmlinuz-$abi" "$out/vmlinuz"

kdir="$out/root/usr/src/linux-headers-$abi"
# The arm64 headers package points scripts/ and tools/ at the arm64 kbuild
# package; use the host's (same 6.1 series) instead, and make the arch
# Makefile include the unpacked common headers.
for d in "$kdir" "$out/root/usr/src/$common"; do
	rm -f "$d/scripts" "$d/tools"
	ln -s /usr/lib/linux-kbuild-6.1/scripts "$d/scripts"
	ln -s /usr/lib/linux-kbuild-6.1/tools "$d/tools"
done
sed -i "s|/usr/src/${common}|$out/root/usr/src/${common}|g" "$kdir/Makefile"
ln -sfn "$kdir" "$out/kdir"
touch "$out/.done"
echo "$out"
