#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build an arm64 test kernel from Debian's linux-source-6.12 and a
# fragment beside this script: kernel.config (the debug kernel: KASAN,
# lockdep, kmemleak) by default, or the one named, e.g. kernel-kcsan.config.
# The result is cached outside the tree, keyed by source version, fragment
# name and hash, so it is built once, under a lock: a second caller (the
# host tests' install.sh beside make check) waits for the first's build
# instead of removing its tree half-way.
#   build-kernel.sh [FRAGMENT]
#
# Prints the cache directory (holding Image and the configured tree, usable
# as KDIR) on stdout as its last line.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "build-kernel: $tarball missing (run deps.sh)" >&2; exit 1; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
frag=${1:-kernel.config}
[ -r "$here/$frag" ] || { echo "build-kernel: no fragment $here/$frag" >&2; exit 1; }
fraghash=$(cat "$here/$frag" "$0" | sha256sum | cut -c1-12)
# kernel.config: kernel-6.12-..., kernel-NAME.config: kernel-6.12-NAME-...
name=${frag%.config}
name=6.12${name#kernel}
out="$cache/kernel-$name-$srcver-$fraghash"

mkdir -p "$cache"
exec 9> "$cache/kernel-$name.lock"
flock 9
if [ -e "$out/.done" ]; then
	echo "$out"
	exit 0
fi

echo "build-kernel: building $frag kernel $srcver (fragment $fraghash) in $out" >&2
rm -rf "$out" && mkdir -p "$out"
tar -C "$out" -xf "$tarball" --strip-components=1
cd "$out"
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
make -s allnoconfig KCONFIG_ALLCONFIG="$here/$frag" >&2
# Verify that every option of the fragment took effect.
bad=0
while IFS= read -r line; do
	case "$line" in ''|'#'*) continue ;; esac
	opt=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" .config && { echo "build-kernel: $opt should be off" >&2; bad=1; }
	else
		grep -qx "$line" .config || { echo "build-kernel: $line did not stick" >&2; bad=1; }
	fi
done < "$here/$frag"
[ $bad = 0 ] || exit 1
make -s -j"$(nproc)" Image modules modules_prepare >&2
touch .done
echo "$out"
