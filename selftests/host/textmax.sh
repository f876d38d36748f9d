#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: every sysfs file's text fits in show()'s page for every table.
# tools/models/gen_models.py bounds the longest text of each file
# (N3T_TEXT_MAX_* in module/models.h, checked against PAGE_SIZE by
# static_assert in module/sysfs.c).  Here: the bounds are at least the
# longest texts really made from the engine's tables and packer
# (textmax.c: sysfs.c's formats at their widest, over every capacity and
# many selections), per model as well (gen_models.py --text-bounds); the
# files that must fit do; and a table too large for a page is refused.
# usage: textmax.sh [BUILDDIR]
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
mkdir -p "$out"
specdir=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}
gen=$top/tools/models/gen_models.py
page=4096
tmp=$(mktemp -d "$out/textmax.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. the longest real texts against the generated bounds
if gcc -O2 -Wall -Wextra -Werror -I"$top/module" -I"$top/tools/include" -I"$top/uapi" \
	-o "$out/textmax" "$top/selftests/host/textmax.c" "$top/module/engine.c" \
	"$top/module/models.c" 2> "$tmp/cc.err"; then
	echo "ok textmax-builds"
else
	sed 's/^/# /' "$tmp/cc.err"
	echo "not ok textmax-builds"
	exit 1
fi
"$out/textmax" > "$tmp/real" || echo "not ok textmax-runs"
# Arm's descriptions, and the project's own generic one (tools/models)
specs=("$specdir"/neoverse-*.json "$top/tools/models/generic.json")
if [ -r "${specs[0]}" ]; then
	python3 "$gen" --text-bounds "${specs[@]}" > "$tmp/per-model" 2> "$tmp/gen.err" ||
		{ sed 's/^/# /' "$tmp/gen.err"; echo "not ok textmax-generator-bounds"; }
else
	echo "# SKIP per-model bounds: no descriptions in $specdir (set N3T_SPEC_DIR)"
	: > "$tmp/per-model"
fi
python3 - "$tmp/real" "$tmp/per-model" "$page" <<'PY'
import sys
real, bound, per = [], {}, {}
for line in open(sys.argv[1]):
    w = line.split()
    if w[0] == 'real' and w[1] != 'max_sets':
        real.append((w[1], w[2], int(w[3]), ' '.join(w[4:])))
    elif w[0] == 'bound':
        bound[w[1]] = int(w[2])
for line in open(sys.argv[2]):
    key, model, n = line.split()
    per[key, model] = int(n)
page = int(sys.argv[3])
for key, model, n, how in real:
    b, pb = bound[key], per.get((key, model))
    ok = n <= b and (pb is None or n <= pb)
    note = f' (per model {pb})' if pb is not None else ''
    print(f'# {key} {model}: real {n}, bound {b}{note}{", " + how if how else ""}')
    print(f'{"ok" if ok else "not ok"} text-bound/{key}/{model}')
# models.h holds the largest per-model bound of each file
if per:
    bad = [k for k in bound if k != 'max' and
           bound[k] != max(n for (key, _), n in per.items() if key == k)]
    if bad:
        print(f'# models.h differs from gen_models.py --text-bounds: {bad}')
    print(f'{"not ok" if bad else "ok"} text-bounds-header-matches-generator')
# every file fits
for key, b in sorted(bound.items()):
    print(f'# {key}: at most {b} bytes of {page}')
    print(f'{"ok" if b <= page else "not ok"} text-fits-page/{key}')
PY

# 2. a table too large for a page is refused: models.sh (mutate long-*).
