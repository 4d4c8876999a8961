# SPDX-License-Identifier: GPL-2.0
# Installing on a real machine: DKMS (rebuilt for every kernel) and the tools.

DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC     := /usr/src/guacrng-$(DKMS_VERSION)
PREFIX       ?= /usr/local

# Copy the module's sources to /usr/src and let DKMS build and install them.
dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r Kbuild dkms.conf drivers include tests $(DKMS_SRC)/
	dkms add -m guacrng -v $(DKMS_VERSION)
	dkms install -m guacrng -v $(DKMS_VERSION)

dkms-uninstall:
	-dkms remove -m guacrng -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

tools-install: tools
	install -D -m 0755 $(BUILD)/userspace/guac $(DESTDIR)$(PREFIX)/bin/guac
	install -D -m 0644 include/uapi/linux/guacrng.h $(DESTDIR)$(PREFIX)/include/linux/guacrng.h

# make install into a scratch root, for each Debian kernel.
check-install: deps
	TESTS="$(TOP)/tests/install/test_install.sh $(TOP)/tests/install/test_build_guards.sh" \
		scripts/run-suites.sh install

check-suites: check-install

.PHONY: dkms-install dkms-uninstall tools-install check-install
