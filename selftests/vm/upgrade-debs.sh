#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The end-to-end test's kernel upgrade (selftests/vm/e2e.sh): the arm64
# packages a Debian 12 system installs to move to bookworm-backports' kernel
# in its cloud flavour (image, headers, their common headers and kbuild, and
# what kbuild needs that the test's root filesystem lacks), fetched with
# apt-get download for the guest to install with apt.  The cloud flavour, as
# a rented instance runs: DKMS's hooks are the same for every flavour, and
# its 1,082 modules rather than the generic flavour's 4,349 are what depmod
# and update-initramfs read under emulation, three times (about 4 minutes
# of the test's 8 there).  Cached like the kernels.
# Prints the kernel's ABI name, then the cache directory (the .debs), as its
# last two lines; exits 1 if apt knows no backports kernel.
set -euo pipefail

cache=${N3T_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/n3telemetry}
abi=$("$(dirname "$0")/bpo-abi.sh")	# 6.12.NN+deb12-arm64
rel=${abi%-arm64}
abi=$rel-cloud-arm64
img=linux-image-$abi
out="$cache/upgrade-debs-$abi"

if [ ! -e "$out/.done" ]; then
	echo "upgrade-debs: fetching $img and its headers into $out" >&2
	rm -rf "$out" && mkdir -p "$out"
	chmod 777 "$out"
	# libdw1 for pahole, which the 6.12 kbuild needs: not in the root
	# filesystem (selftests/vm/rootfs.sh), whose 6.1 kbuild does without
	(cd "$out" && apt-get download -q "$img:arm64" "linux-headers-$abi:arm64" \
		"linux-headers-$rel-common:all" "linux-kbuild-$rel:arm64" \
		pahole:arm64 libdw1:arm64 >&2)
	touch "$out/.done"
fi
echo "$abi"
echo "$out"
