#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: build-module.sh KVER
#
# Build guacrng.ko against the cached headers of KVER (fetch-kernel.sh) with W=1 into
# build/vm/KVER/guacrng.ko. The build runs in a private copy of the module
# sources, so it never races a build of the work tree for another kernel.
# GUAC_KDIR builds against another kernel tree (the debug kernel's), with
# GUAC_MODULE_MAKEFLAGS added to make's command line (GUAC_KUNIT=y).
set -eu
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || guac_die "usage: build-module.sh KVER"
kver=$1
kdir=${GUAC_KDIR:-$(guac_kdir "$kver")}
out=$GUAC_VM_BUILD/$kver
src=$out/src

[ -f "$kdir/Makefile" ] || guac_die "no headers for $kver in $kdir (run scripts/vm/fetch-kernel.sh)"
mkdir -p "$src"
# Only the sources Kbuild reads; rsync keeps timestamps, so rebuilds are incremental.
rsync -a --delete --include='*/' --include='*.[ch]' --include='Kbuild' --exclude='*' \
	"$GUAC_TOP/drivers" "$GUAC_TOP/include" "$src/"
mkdir -p "$src/tests"
rsync -a --delete --include='*/' --include='*.[ch]' --exclude='*' \
	"$GUAC_TOP/tests/kunit" "$src/tests/"
cp "$GUAC_TOP/Kbuild" "$src/Kbuild"

guac_log "building guacrng.ko for $kver"
# shellcheck disable=SC2086
nice make -s -C "$kdir" M="$src" W=1 ${GUAC_MODULE_MAKEFLAGS:-} modules >"$out/module-build.log" 2>&1 || {
	cat "$out/module-build.log" >&2
	guac_die "module build for $kver failed"
}
# W=1 warnings are failures too: the module must build clean on every kernel.
if grep -q 'warning:' "$out/module-build.log"; then
	cat "$out/module-build.log" >&2
	guac_die "module build for $kver has warnings"
fi
cp "$src/drivers/guacrng/guacrng.ko" "$out/guacrng.ko"
echo "$out/guacrng.ko"
