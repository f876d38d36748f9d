#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ABI name (6.12.NN+deb12-arm64) of the arm64 kernel bookworm-backports'
# linux-image-arm64 depends on, from the apt lists: the kernel make bench
# measures on (selftests/bench/bpo-kernel.sh) and the one the end-to-end
# test upgrades to (upgrade-debs.sh).  Exits 1, saying why, if apt knows none.
set -euo pipefail

ver=$(apt-cache policy linux-image-arm64:arm64 | awk '$1 ~ /bpo/ { print $1; exit }')
[ -n "$ver" ] || { echo "bpo-abi: no backports linux-image-arm64:arm64 in apt lists" >&2; exit 1; }
img=$(apt-cache depends "linux-image-arm64:arm64=$ver" |
	sed -n 's/.*Depends: \(linux-image-[^:]*\).*/\1/p' | head -1)
[ -n "$img" ] || { echo "bpo-abi: linux-image-arm64 $ver depends on no image" >&2; exit 1; }
echo "${img#linux-image-}"
