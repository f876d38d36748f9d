#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the module is layered, not a circle.  Builds the module (a copy of
# the tree, against the debug 6.12 arm64 tree, N3T_KDIR=... for another; a
# test build, N3T_TESTS=y, so that the test hooks' calls count too) and
# checks with layers.py that neither the #include graph of module/ nor its
# call graph (nm of each module/*.o: a symbol undefined in A and defined in
# B is an edge A -> B) nor the two together have a cycle.
# usage: layers.sh [BUILDDIR]
# N3T_LAYERS_BUILT=DIR: a test build of this tree already made (make
# check's W=1/sparse one, BUILDDIR/6.12): its objects, no build here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${N3T_LAYERS_BUILT:-}" ]; then
	if [ -e "$N3T_LAYERS_BUILT/module/n3telemetry.ko" ]; then
		echo "ok layers-module-builds"
		python3 "$top/selftests/host/layers.py" "$N3T_LAYERS_BUILT/module" \
			"$N3T_LAYERS_BUILT/module"
		exit
	fi
	echo "# $N3T_LAYERS_BUILT/module/n3telemetry.ko missing"
	echo "not ok layers-module-builds"
	exit 1
fi
out=${1:-$top/build}/layers
rm -rf "$out" && mkdir -p "$out"
kdir=${N3T_KDIR:-$("$top/selftests/vm/build-kernel.sh" | tail -1)}
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	git -C "$top" ls-files -co --exclude-standard -z |
		rsync -a --from0 --files-from=- "$top/" "$out/"
else
	rsync -a --exclude /build --exclude .git "$top/" "$out/"
fi
if ! make -s -C "$kdir" M="$out" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- N3T_TESTS=y \
	modules > "$out/build.log" 2>&1; then
	sed 's/^/# /' "$out/build.log" | tail -20
	echo "not ok layers-module-builds"
	exit 1
fi
echo "ok layers-module-builds"
python3 "$top/selftests/host/layers.py" "$out/module" "$out/module"
