# SPDX-License-Identifier: GPL-2.0
#
# n3telemetry
#
#   make                 build module/n3telemetry.ko against KDIR
#   make install         modules_install + depmod
#   make check           build everything and run every test (host + arm64 VM)
#   make demo            boot an arm64 VM with the module and show live readings
#   make vm              the same VM with an interactive shell
#   make bench           cost of the module against perf stat and node_exporter (VM)
#   make tools           build the n3tel reader for this host

KDIR ?= /lib/modules/$(shell uname -r)/build
KVER ?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || uname -r)

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(KVER)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C tools/n3tel clean
	rm -rf build

tools:
	$(MAKE) -C tools/n3tel

check:
	selftests/vm/check.sh

demo:
	selftests/vm/check.sh --demo

vm:
	selftests/vm/check.sh --shell

bench:
	selftests/bench/bench.sh

.PHONY: all modules install clean tools check demo vm bench
