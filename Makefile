# SPDX-License-Identifier: GPL-2.0
#
# n3telemetry
#
#   make                 build module/n3telemetry.ko against KDIR
#   make install         the module (+ depmod), n3tel, the systemd unit, the
#                        docs, rules and dashboard (see "Installing" in
#                        Documentation/n3telemetry.rst); make uninstall
#   make check           build everything and run every test (host + arm64 VM)
#   make demo            boot an arm64 VM with the module and show live readings
#   make vm              the same VM with an interactive shell
#   make bench           cost of the module against perf stat and node_exporter (VM)
#   make tools           build the n3tel reader for this host
#   make deb             Debian packages n3telemetry-dkms and n3tel (arm64) in build/deb
#   make e2e             the packages on a Debian 12 arm64 VM with systemd, node_exporter
#                        and Prometheus (part of make check); SUITE=trixie: on Debian 13,
#                        the module signed by DKMS (part of make matrix)
#   make matrix          every Debian suite's arm64 kernel (5.10 to 7.x): built against
#                        with its own kbuild and compiler, booted, kselftests; a table

# The kernel: KDIR (its build tree) or KVER (its release); either gives the other.
ifeq ($(origin KDIR),undefined)
ifeq ($(origin KVER),undefined)
KVER := $(shell uname -r)
endif
KDIR := /lib/modules/$(KVER)/build
endif
ifeq ($(origin KVER),undefined)
KVER := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || uname -r)
endif

# Where make install puts things.  DESTDIR stages everything; INSTALL_MOD_PATH
# is the kernel's prefix for lib/modules (modules go below DESTDIR too).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/n3telemetry
DOCDIR ?= $(PREFIX)/share/doc/n3telemetry
UNITDIR ?= $(PREFIX)/lib/systemd/system
TEXTFILE_DIR ?= /var/lib/prometheus/node-exporter
INSTALL_MOD_DIR ?= updates
DEPMOD ?= depmod
MODROOT = $(DESTDIR)$(INSTALL_MOD_PATH)
MODDIR = $(MODROOT)/lib/modules/$(KVER)
# every module this tree can build (N3T_TESTS=y adds the test ones), as
# modules_install lays them out under $(INSTALL_MOD_DIR)
N3T_MODULES = module/n3telemetry module/n3telemetry_kunit selftests/testpmu/n3t_testpmu
N3T_MODDIRS = module selftests/testpmu selftests
# what depmod writes in lib/modules/KVER, removed with the directory when
# uninstall leaves it with no module and no kernel of its own (a staging tree)
DEPMOD_FILES = modules.dep modules.dep.bin modules.alias modules.alias.bin \
	modules.softdep modules.weakdep modules.symbols modules.symbols.bin \
	modules.builtin.bin modules.builtin.alias.bin modules.devname
# n3tel for the machine the module is for: a cross build (CROSS_COMPILE set)
# installs the static aarch64 binary of tools/n3tel/Makefile's arm64 target
ifeq ($(CROSS_COMPILE),)
N3TEL_TARGET := n3tel
N3TEL_BIN := tools/n3tel/n3tel
else
N3TEL_TARGET := arm64
N3TEL_BIN := tools/n3tel/n3tel-arm64
endif
UNIT := n3tel-textfile.service
ABI_DOCS := $(notdir $(wildcard Documentation/ABI/testing/*n3telemetry*))
RULES := $(notdir $(wildcard tools/prometheus/*.rules.yml))
DASHBOARDS := $(notdir $(wildcard tools/grafana/*.json))
EXAMPLES := modprobe.d/n3telemetry.conf modules-load.d/n3telemetry.conf
# rmdirs DIRS: remove those of DIRS that exist and are empty, in this order
rmdirs = for d in $(1); do [ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; done

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: install-module install-n3tel install-data

# the kernel's modules_install, then depmod on the tree installed into (never
# modprobe: the build host need not be able to load the module)
install-module: modules
	@rel=$$(cat $(KDIR)/include/config/kernel.release 2>/dev/null); [ "$$rel" = "$(KVER)" ] || \
		{ echo "KVER=$(KVER) but KDIR=$(KDIR) is $${rel:-no configured kernel}: give one of them" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(MODROOT) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) DEPMOD=true modules_install
	$(DEPMOD) -a -b $(or $(MODROOT),/) $(KVER)

install-n3tel:
	$(MAKE) -C tools/n3tel $(N3TEL_TARGET)
	install -D -m 0755 $(N3TEL_BIN) $(DESTDIR)$(BINDIR)/n3tel

# The unit names the installed n3tel and docs; modules-load.d and modprobe.d
# files are examples only: the module is loaded by enabling the unit (or by
# hand), never on every boot of every server that has the package.
install-data:
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/local/bin/n3tel|$(BINDIR)/n3tel|g' \
	    -e 's|/usr/local/share/doc/n3telemetry|$(DOCDIR)|g' \
	    -e 's|/var/lib/prometheus/node-exporter|$(TEXTFILE_DIR)|g' \
		tools/packaging/$(UNIT) > $(DESTDIR)$(UNITDIR)/$(UNIT)
	chmod 0644 $(DESTDIR)$(UNITDIR)/$(UNIT)
	install -D -m 0644 Documentation/n3telemetry.rst $(DESTDIR)$(DOCDIR)/n3telemetry.rst
	install -D -m 0644 -t $(DESTDIR)$(DOCDIR)/ABI/testing \
		$(addprefix Documentation/ABI/testing/,$(ABI_DOCS))
	install -D -m 0644 tools/packaging/n3telemetry.modprobe.conf \
		$(DESTDIR)$(DOCDIR)/examples/modprobe.d/n3telemetry.conf
	install -D -m 0644 tools/packaging/n3telemetry.modules-load.conf \
		$(DESTDIR)$(DOCDIR)/examples/modules-load.d/n3telemetry.conf
	install -D -m 0644 -t $(DESTDIR)$(DATADIR) \
		$(addprefix tools/prometheus/,$(RULES)) $(addprefix tools/grafana/,$(DASHBOARDS))

uninstall: uninstall-module uninstall-n3tel uninstall-data

# Removes this tree's modules, then runs depmod; a lib/modules/KVER left with
# no module and no kernel (a DESTDIR staging tree) goes with depmod's files.
uninstall-module:
	rm -f $(foreach m,$(N3T_MODULES),$(foreach z,.ko .ko.gz .ko.xz .ko.zst,\
		$(MODDIR)/$(INSTALL_MOD_DIR)/$(m)$(z)))
	@$(call rmdirs,$(addprefix $(MODDIR)/$(INSTALL_MOD_DIR)/,$(N3T_MODDIRS)) \
		$(MODDIR)/$(INSTALL_MOD_DIR))
	@if [ ! -d $(MODDIR) ]; then :; \
	elif [ -e $(MODDIR)/modules.builtin ] || [ -e $(MODDIR)/modules.order ] || \
	     [ -n "$$(find $(MODDIR) -name '*.ko*' -print -quit)" ]; then \
		echo "$(DEPMOD) -a -b $(or $(MODROOT),/) $(KVER)"; \
		$(DEPMOD) -a -b $(or $(MODROOT),/) $(KVER); \
	else \
		echo "$(MODDIR): no module left, removing depmod's files"; \
		rm -f $(addprefix $(MODDIR)/,$(DEPMOD_FILES)); \
		rmdir $(MODDIR) 2>/dev/null || true; \
	fi

uninstall-n3tel:
	rm -f $(DESTDIR)$(BINDIR)/n3tel

uninstall-data:
	rm -f $(DESTDIR)$(UNITDIR)/$(UNIT) $(DESTDIR)$(DOCDIR)/n3telemetry.rst \
		$(addprefix $(DESTDIR)$(DOCDIR)/ABI/testing/,$(ABI_DOCS)) \
		$(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(EXAMPLES)) \
		$(addprefix $(DESTDIR)$(DATADIR)/,$(RULES) $(DASHBOARDS))
	@$(call rmdirs,$(DESTDIR)$(DOCDIR)/ABI/testing $(DESTDIR)$(DOCDIR)/ABI \
		$(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(sort $(dir $(EXAMPLES)))) \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR))

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(wildcard selftests/testpmu),N3T_TESTS=y) \
		$(if $(wildcard selftests/bench/perfcost),N3T_BENCH=y) clean 2>/dev/null || true
	# the package's copy of the tree in /usr/src has no tools/ (nor selftests/)
	if [ -d tools/n3tel ]; then $(MAKE) -C tools/n3tel clean; fi
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

deb:
	tools/packaging/deb.sh

SUITE ?= bookworm
e2e:
	N3T_E2E_SUITE=$(SUITE) selftests/vm/e2e.sh

matrix:
	selftests/vm/matrix.sh

.PHONY: all modules install install-module install-n3tel install-data uninstall \
	uninstall-module uninstall-n3tel uninstall-data clean tools check demo vm bench deb e2e matrix
