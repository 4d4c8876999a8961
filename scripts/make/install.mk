# SPDX-License-Identifier: GPL-2.0
# Installing on a real machine from the source tree: DKMS (rebuilt for every
# kernel) and the tools. The packages (make deb, docs/install.md) are the
# other way, and the one that also loads the module at boot.

DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf 2>/dev/null)
DKMS_SRC     := /usr/src/guacrng-$(DKMS_VERSION)
# What DKMS builds the production module from, as guacrng-dkms ships it:
# no test code (testing.c is built only with GUAC_TEST=y, tests/ only with
# GUAC_KUNIT=y).
DKMS_FILES   := Kbuild dkms.conf include drivers/guacrng/Kbuild \
		$(filter-out drivers/guacrng/testing.c,$(wildcard drivers/guacrng/*.[ch]))
PREFIX       ?= /usr/local

# Copy the module's sources to /usr/src and let DKMS build and install them
# for the running kernel (and, through AUTOINSTALL, every kernel to come).
dkms-install:
	@if dpkg-query -W -f='$${Status}' guacrng-dkms 2>/dev/null | grep -q 'ok installed'; then \
		echo "dkms-install: the guacrng-dkms package owns $(DKMS_SRC); remove it first (apt remove guacrng-dkms)" >&2; \
		exit 1; \
	fi
	@if [ -n "$$(dkms status -m guacrng -v $(DKMS_VERSION) 2>/dev/null)" ]; then \
		echo "dkms remove -m guacrng -v $(DKMS_VERSION) --all"; \
		dkms remove -m guacrng -v $(DKMS_VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp --parents -r $(DKMS_FILES) $(DKMS_SRC)/
	dkms add -m guacrng -v $(DKMS_VERSION)
	dkms install -m guacrng -v $(DKMS_VERSION)

dkms-uninstall:
	-dkms remove -m guacrng -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

tools-install: tools
	$(MAKE) -C tools/userspace install O=$(BUILD)/userspace DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	install -D -m 0644 include/uapi/linux/guacrng.h $(DESTDIR)$(PREFIX)/include/linux/guacrng.h

# make install into a scratch root, for each Debian kernel.
check-install: deps
	TESTS="$(TOP)/tests/install/test_install.sh $(TOP)/tests/install/test_build_guards.sh" \
		scripts/run-suites.sh install

CHECK_SUITES += check-install

.PHONY: dkms-install dkms-uninstall tools-install check-install
