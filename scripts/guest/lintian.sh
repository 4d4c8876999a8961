#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: lintian.sh [CHANGES]     (default: the .changes in build/deb)
#
# lintian on what make deb built (the .debs and the source package the
# .changes lists), at every level (-I -E --pedantic, overrides shown), failing
# on any warning or error. It runs in a bookworm chroot in the cache
# (scripts/vm/chroot.sh): lintian's dependencies would raise perl on the host,
# and the host's packages are never upgraded. Output also in build/deb/lintian.txt.
set -eu
. "$(dirname "$0")/../vm/lib.sh"

changes=${1:-$(ls "$GUAC_TOP"/build/deb/guacrng_*.changes 2>/dev/null | head -n 1)}
[ -f "$changes" ] || guac_die "no .changes (run make deb)"
changes=$(cd "$(dirname "$changes")" && pwd -P)/$(basename "$changes")
chroot=$GUAC_TOP/scripts/vm/chroot.sh
# debootstrap first, then lintian through the chroot's apt (debootstrap's own
# resolver cannot install lintian: a virtual package among its dependencies).
"$chroot" ensure bookworm file >&2
"$chroot" ensure bookworm lintian >&2
status=0
"$chroot" run bookworm --bind "$(dirname "$changes")" -- \
	runuser -u nobody -- lintian -I -E --pedantic --show-overrides --fail-on error,warning \
	"$changes" >"$(dirname "$changes")/lintian.txt" 2>&1 || status=$?
cat "$(dirname "$changes")/lintian.txt"
if [ "$status" = 0 ]; then
	echo "lintian: no error, no warning ($(grep -c . "$(dirname "$changes")/lintian.txt" || true) lines above: info, pedantic, experimental or overridden)"
else
	echo "lintian: FAIL (status $status)"
fi
exit "$status"
