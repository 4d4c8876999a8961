#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make install` against each Debian kernel's headers, into a scratch
# INSTALL_MOD_PATH: the module lands under the release the kernel reports
# (not what Debian's 6.1 headers put in kernel.release) and depmod lists it.
# Builds in a private copy of the sources. TAP; exit status non-zero on failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
work=$top/build/install-test

tap_begin
for series in 6.1 6.12; do
	kver=$("$top/scripts/vm/fetch-kernel.sh" "$series" 2>/dev/null) || {
		not_ok "$series: fetch the kernel headers"
		continue
	}
	kdir=$(GUAC_TOP=$top sh -c '. "$GUAC_TOP/scripts/vm/lib.sh"; guac_kdir "$1"' sh "$kver")
	rm -rf "$work"
	mkdir -p "$work/src"
	(cd "$top" && git ls-files -z Makefile Kbuild drivers include scripts/make |
		xargs -0 cp --parents -t "$work/src")
	if make -C "$work/src" install KDIR="$kdir" INSTALL_MOD_PATH="$work/root" \
		>"$work/log" 2>&1; then
		ok "$kver: make install"
	else
		not_ok "$kver: make install" "$work/log"
		continue
	fi
	ko=$(cd "$work/root/lib/modules/$kver" 2>/dev/null && find . -name 'guacrng.ko*' | sed 's|^\./||')
	if [ -n "$ko" ]; then ok "$kver: installed as lib/modules/$kver/$ko"; else not_ok "$kver: no guacrng.ko under lib/modules/$kver"; fi
	if grep -q "^$ko:" "$work/root/lib/modules/$kver/modules.dep" 2>/dev/null; then
		ok "$kver: depmod lists it"
	else
		not_ok "$kver: depmod lists it"
	fi
	if [ "$(modinfo -F vermagic "$work/root/lib/modules/$kver/$ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
		ok "$kver: vermagic matches the directory"
	else
		not_ok "$kver: vermagic matches the directory"
	fi
done
rm -rf "$work"
tap_end
