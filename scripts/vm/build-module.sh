#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: build-module.sh KVER
#
# Build guacrng.ko against the cached headers of KVER (fetch-kernel.sh) with
# W=1 into build/vm/KVER/guacrng.ko, and its test variant (GUAC_TEST=y: the
# test-only parameters) into build/vm/KVER/guacrng-test.ko, with the gcc the
# kernel's headers name: the host's gcc-12, or that of a chroot of the
# kernel's Debian release (chroot.sh). The builds run in private copies of the
# module sources, so they never race a build of the work tree for another
# kernel.
# GUAC_KDIR builds against another kernel tree (the debug kernel's), with
# GUAC_MODULE_MAKEFLAGS added to make's command line (GUAC_KUNIT=y).
# GUAC_ARCH=arm64: cross-built, ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
# (lib.sh's guac_kbuild_flags), with the release's gcc-aarch64-linux-gnu.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: build-module.sh KVER"
kver=$1
kdir=${GUAC_KDIR:-$(guac_kdir "$kver")}
out=$GUAC_VM_BUILD/$kver

[ -f "$kdir/Makefile" ] || guac_die "no headers for $kver in $kdir (run scripts/vm/fetch-kernel.sh)"

# The compiler: the host's, or that of a chroot of the kernel's own Debian
# release (fetch-kernel.sh notes which in the cache), where make runs with
# the headers and the build directory bind-mounted at their own paths.
set -- $(cat "$GUAC_VM_CACHE/$kver/toolchain" 2>/dev/null || echo host)
toolchain=$1
inside=
if [ -z "${GUAC_KDIR:-}" ] && [ "$toolchain" != host ]; then
	# shellcheck disable=SC2086
	"$(dirname "$0")/chroot.sh" ensure "$toolchain" "$2" $GUAC_CHROOT_PACKAGES
	mkdir -p "$out"
	inside="$(dirname "$0")/chroot.sh run $toolchain --bind $GUAC_VM_CACHE/$kver --bind $out --"
fi
# build_variant DIR MAKEFLAGS...: build the module in a private copy of the
# sources under DIR (rsync keeps timestamps, so rebuilds are incremental).
build_variant() {
	local dir=$1 log
	shift
	log=$dir/module-build.log
	guac_copy_module_sources "$dir"
	# shellcheck disable=SC2086,SC2046
	nice $inside make -s -C "$kdir" M="$dir/src" $(guac_kbuild_flags) W=1 ${GUAC_MODULE_MAKEFLAGS:-} "$@" modules >"$log" 2>&1 || {
		cat "$log" >&2
		guac_die "module build ($*) for $kver failed"
	}
	# W=1 warnings are failures too: the module must build clean on every kernel.
	if grep -q 'warning:' "$log"; then
		cat "$log" >&2
		guac_die "module build ($*) for $kver has warnings"
	fi
}

# make check runs suites side by side, several of which build for one kernel
# (vm-check, check-vm-retry and check-secureboot for 6.12): one builder of a
# directory at a time, the next finds it built. The modules are put in
# place by rename, so a reader never sees half of one.
mkdir -p "$out"
exec 8>"$out/.build.lock"
flock 8
guac_log "building guacrng.ko and its test variant for $kver${inside:+ in the $toolchain chroot}"
# The module users install, and the test variant with the test-only
# parameters (testing.c) that the fault scenarios need.
build_variant "$out"
build_variant "$out/test" GUAC_TEST=y
cp "$out/src/drivers/guacrng/guacrng.ko" "$out/.guacrng.ko.$$" && mv -f "$out/.guacrng.ko.$$" "$out/guacrng.ko"
cp "$out/test/src/drivers/guacrng/guacrng.ko" "$out/.guacrng-test.ko.$$" &&
	mv -f "$out/.guacrng-test.ko.$$" "$out/guacrng-test.ko"

# What users get takes only the parameters documented for them.
params=$(modinfo -F parm "$out/guacrng.ko" | sed 's/:.*//' | LC_ALL=C sort | tr '\n' ' ')
case "${GUAC_MODULE_MAKEFLAGS:-}" in
*GUAC_KUNIT=y*) ;;
*)
	[ "$params" = "hwrng impl quality " ] ||
		guac_die "guacrng.ko for $kver takes parameters '$params', expected 'hwrng impl quality'"
	;;
esac
echo "$out/guacrng.ko"
