#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the engine compiled in userspace; its tests; the spec cross-check;
# the uapi header compiled standalone like the kernel's headers_check.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build}
mkdir -p "$out"
CFLAGS="-O2 -Wall -Wextra -Werror -I$top/module -I$top/tools/include -I$top/uapi"

if gcc $CFLAGS -o "$out/engine-host-test" "$top/selftests/host/engine_test.c" \
	"$top/module/engine.c" "$top/module/models.c" 2> "$out/engine-host-test.err"; then
	echo "ok engine-builds-in-userspace"
	"$out/engine-host-test"
else
	cat "$out/engine-host-test.err"
	echo "not ok engine-builds-in-userspace"
fi

# the schedule run over every plan the packer makes (schedule_test.c)
if gcc $CFLAGS -o "$out/schedule-host-test" "$top/selftests/host/schedule_test.c" \
	"$top/module/schedule.c" "$top/module/engine.c" "$top/module/models.c" \
	2> "$out/schedule-host-test.err"; then
	"$out/schedule-host-test"
else
	cat "$out/schedule-host-test.err"
	echo "not ok schedule-host-test-builds"
fi

# Arm's telemetry descriptions, one JSON file per model (read-only reference)
specdir=${N3T_SPEC_DIR:-$top/../shared/reference/arm-telemetry}
# Arm's descriptions, and the project's own generic one (tools/models)
specs=("$specdir"/neoverse-*.json "$top/tools/models/generic.json")
if [ -r "${specs[0]}" ] && [ -x "$out/engine-host-test" ]; then
	python3 "$top/selftests/host/spec_check.py" "$out/engine-host-test" "${specs[@]}"
	# the KUnit vectors are what their generator makes from the descriptions
	if python3 "$top/module/tests/engine_vectors.py" "${specs[@]}" |
	   cmp -s - "$top/module/tests/engine_vectors.h"; then
		echo "ok kunit-vectors-match-generator"
	else
		echo "not ok kunit-vectors-match-generator"
	fi
	# the sweep oracle (fits.py) and the packer agree on what fits
	for spec in "${specs[@]}"; do
		model=$(basename "$spec" .json)
		# the packer's verdict on each line the oracle gives (capacity 0:
		# the module's own refusal, before packing), one process
		python3 "$top/selftests/host/fits.py" "$spec" "$out/engine-host-test" |
			awk '$1 != 0' > "$out/fits-$model.txt"
		bad=$(cut -d' ' -f1-3 "$out/fits-$model.txt" |
			"$out/engine-host-test" sets-ret "$model" |
			paste -d' ' "$out/fits-$model.txt" - |
			awk '!(($4 == "ok" && $6 == 0) || ($4 == "nospc" && $6 == -28)) {
				print $1 "/" $2 "/" $3 ": oracle " $4 ", packer " $5, $6, $7, $8 }
			END { if (NR == 0) print "no oracle lines" }')
		if [ -z "$bad" ]; then
			echo "ok fits-oracle-matches-packer/$model"
		else
			echo "# $bad" | head -5
			echo "not ok fits-oracle-matches-packer/$model"
		fi
	done
else
	echo "# SKIP spec cross-check: no descriptions in $specdir (set N3T_SPEC_DIR)"
fi

# uapi header: standalone, userspace, -Wall -Wextra -Werror, C and C++.
for std in c89 c11; do
	if printf '#include <linux/n3telemetry.h>\nint main(void){return 0;}\n' |
	   gcc -std=$std -Wall -Wextra -Werror -pedantic -I"$top/uapi" -x c -o /dev/null - 2>&1; then
		echo "ok uapi-header-standalone-$std"
	else
		echo "not ok uapi-header-standalone-$std"
	fi
done
if printf '#include <linux/n3telemetry.h>\nint main(void){return 0;}\n' |
   g++ -Wall -Wextra -Werror -I"$top/uapi" -x c++ -o /dev/null - 2>&1; then
	echo "ok uapi-header-standalone-c++"
else
	echo "not ok uapi-header-standalone-c++"
fi

# the user guide builds with docutils without a warning
if /usr/bin/rst2html --halt=warning --report=warning "$top/Documentation/n3telemetry.rst" \
	> "$out/n3telemetry.html" 2> "$out/rst.err"; then
	echo "ok docs-rst-builds"
else
	cat "$out/rst.err"
	echo "not ok docs-rst-builds"
fi
# every sysfs attribute of the ABI document is mentioned in the guide
missing=$(grep '^What:' "$top/Documentation/ABI/testing/sysfs-kernel-n3telemetry" |
	sed 's|.*/n3telemetry/||; s|^cpuX/||; s|^system/||; s|^models/<model>/||; s|/$||' |
	grep -v '^cpuX$\|^system$\|^models/<model>$' | sort -u |
	while read -r a; do grep -q "$a" "$top/Documentation/n3telemetry.rst" || echo "$a"; done)
if [ -z "$missing" ]; then echo "ok docs-guide-covers-abi"; else echo "# not in guide: $missing"; echo "not ok docs-guide-covers-abi"; fi
