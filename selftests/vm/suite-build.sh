#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build this tree's modules against one Debian suite's arm64 kernel
# (suite-kernel.sh), in that suite's chroot with its kbuild and compiler.
#   suite-build.sh SUITE DEST [make args: W=1, N3T_TESTS=y, ...]
# DEST is a directory on the host; the tree is copied into the chroot
# (/n3t/build/NAME, NAME the last part of DEST), built there, and DEST
# becomes a symlink to it.  Exits with make's status; the build's output
# goes to stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suite=${1:?usage: suite-build.sh SUITE DEST [make args]}
dest=${2:?usage: suite-build.sh SUITE DEST [make args]}
shift 2
root=$("$here/suite-kernel.sh" "$suite" | tail -1)
# shellcheck source=/dev/null
. "$root/n3t-kernel.env"
name=$(basename "$dest")
in=/n3t/build/$name
rm -rf "${root:?}$in" "$dest"
mkdir -p "$root$in" "$(dirname "$dest")"
(cd "$top" && git ls-files -co --exclude-standard -z 2>/dev/null |
	rsync -a --from0 --files-from=- "$top/" "$root$in/") ||
	rsync -a --exclude build --exclude .git "$top/" "$root$in/"
ln -s "$root$in" "$dest"
echo "suite-build: $suite $ABI ($CC): make $*"
"$here/suite-chroot.sh" --run "$root" make -C "$KDIR" M="$in" ARCH=arm64 \
	CROSS_COMPILE=aarch64-linux-gnu- CC="$CC" "$@" modules
