#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the unit tests of the Python modules the generators and the Python
# tests share (tools/models/formulas.py: the formula parser and oracle;
# tools/models/generated.py: how generated files are written;
# selftests/host/expected.py: what the module prints).
# One ok / not ok line per module; a failure's unittest output as comments.
# usage: pyunit.sh [BUILDDIR]
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
mkdir -p "$out"
for t in tools/models/formulas_test.py tools/models/generated_test.py \
	selftests/host/expected_test.py; do
	name=pyunit-$(basename "$t" _test.py)
	if python3 "$top/$t" > "$out/$name.log" 2>&1; then
		echo "ok $name"
	else
		sed 's/^/# /' "$out/$name.log" | tail -30
		echo "not ok $name"
	fi
done
