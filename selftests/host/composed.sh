#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: how far composed topdown level 1 values can be from exact ones, from
# Arm's formulas (composed_bound.py), is what the guide's "Few counters"
# table says.  The module's own arithmetic of composed values is checked in
# the VM (composed.sh) and by engine-host-test.
# usage: composed.sh [BUILDDIR]
top=$(cd "$(dirname "$0")/../.." && pwd)
specdir=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}
if [ ! -r "$specdir/neoverse-n3.json" ]; then
	echo "not ok composed-bound (no Arm descriptions in $specdir)"
	exit 1
fi
python3 "$top/selftests/host/composed_bound.py" "$top/Documentation/n3telemetry.rst" \
	"$specdir"/neoverse-*.json "$top/tools/models/generic.json"
