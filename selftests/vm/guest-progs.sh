#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kselftests' C helpers, static for the arm64 test VM, into DIR (the
# initramfs copies DIR to /bin): pmuuser, another perf user; capuser, a
# user with chosen capabilities (access.sh); sumreq, one N3T_IOC_SUM
# request (cgroup.sh); loadnth, a load whose n-th allocation fails
# (faults.sh); kvmguest, a VMM whose guest's
# PMU counts, and kvmperf, the /init of its Linux guest (kvmguest.sh;
# mkinitramfs.sh puts it into the guest's initramfs).
# usage: guest-progs.sh DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
mkdir -p "$dir"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/pmuuser" \
	"$top/selftests/n3telemetry/pmuuser.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/capuser" \
	"$top/selftests/n3telemetry/capuser.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -I"$top/uapi" -o "$dir/sumreq" \
	"$top/selftests/n3telemetry/sumreq.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/loadnth" \
	"$top/selftests/n3telemetry/loadnth.c"
aarch64-linux-gnu-gcc -O2 -static -pthread -Wall -Wextra -Werror -o "$dir/kvmguest" \
	"$top/selftests/n3telemetry/kvmguest.c"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/kvmperf" \
	"$top/selftests/n3telemetry/kvmperf.c"
