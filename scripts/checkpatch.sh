#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over every kernel source of the project (the module,
# the shared core and its headers, the uapi header, the KUnit suites), with
# checkpatch taken from Debian's linux-source package. Any warning, error or
# check fails. Ends with "checkpatch: N passed, N failed" (files).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/checkpatch
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)

[ -n "$tarball" ] || { echo "checkpatch.sh: no /usr/src/linux-source-*.tar.xz (run scripts/install-deps.sh)" >&2; exit 2; }
if [ "$(cat "$out/.from" 2>/dev/null)" != "$tarball" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	tar -xJf "$tarball" -C "$out" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	echo "$tarball" >"$out/.from"
fi

cd "$top"
passed=0
failed=0
for f in $(git ls-files 'drivers/guacrng/*.[ch]' 'include/*.h' 'tests/kunit/*.c'); do
	if "$out/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types -f "$f" >"$out/report" 2>&1 &&
		! grep -q . "$out/report"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "checkpatch: $f"
		cat "$out/report"
	fi
done
echo "checkpatch: $passed passed, $failed failed"
[ "$failed" = 0 ]
