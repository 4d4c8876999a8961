#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: build-deb.sh [OUTDIR]        (default build/deb)
#
# The Debian packages guacrng-dkms and guacrng-tools, and the source package,
# built by dpkg-buildpackage (debhelper, dh-dkms; debian/) in a clean copy of
# the tree: the files git tracks plus the new ones it does not ignore, so
# nothing of build/ or of an earlier build gets in and the work tree is left
# as it was. OUTDIR ends up with exactly this build's .deb, .dsc, .tar.xz,
# .buildinfo and .changes. Unsigned (-us -uc); no -dbgsym package.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/deb}
work=$top/build/deb-src
src=$work/guacrng

log() { echo "build-deb: $*" >&2; }

rm -rf "$work"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	# Files deleted in the work tree but not in the index are skipped.
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh) |
		(cd "$top" && xargs -0 cp -P --parents -t "$src")
else
	(cd "$top" && tar -c --exclude=./build --exclude=./.git .) | tar -x -C "$src"
fi

log "dpkg-buildpackage in $src"
start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="noautodbgsym ${DEB_BUILD_OPTIONS:-}" \
	nice dpkg-buildpackage -us -uc --build=full) >"$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	log "error: dpkg-buildpackage failed (log: $work/build.log)"
	exit 1
}

rm -rf "$out"
mkdir -p "$out"
changes=$(ls "$work"/guacrng_*.changes)
# Everything the .changes lists, and the .changes itself.
sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes" |
	while read -r f; do mv "$work/$f" "$out/"; done
mv "$changes" "$out/"
cp "$work/build.log" "$out/"
log "built in $(($(date +%s) - start)) s:"
(cd "$out" && ls -l -- *.deb *.dsc *.changes) >&2
