#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: sparse.sh [SERIES...]    (default: 6.12)
#
# sparse over every source of the module: `make C=2 W=1 modules` against the
# headers of each kernel series (fetched into the cache by
# scripts/vm/fetch-kernel.sh), for the module users get and for its test
# variant (GUAC_TEST=y, which adds testing.c and the GUAC_TEST code). C=2
# checks every file, rebuilt or not. A kernel built by another release's gcc
# is checked in that release's chroot (chroot.sh), with that release's
# sparse, as build-module.sh builds it. Each build runs in a private copy of
# the sources under build/sparse/SERIES/. Any sparse warning or error fails.
# A series or variant where sparse checked no file fails: kbuild turns C=2
# off with one line when it judges the sparse too old. That is why `latest`
# is not the default: 7.x's headers use __typeof_unqual__, which Debian's
# newest sparse (0.6.4, trixie and sid) cannot parse, and kbuild then checks
# nothing (Debian's 7.x headers also lack scripts/checker-valid.sh, the test).
# Ends with "sparse: N passed, N failed" (files checked, over every series
# and both variants).
set -eu

GUAC_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$GUAC_TOP/scripts/vm/lib.sh"

command -v sparse >/dev/null || guac_die "no sparse on PATH (run scripts/install-deps.sh)"
[ $# -gt 0 ] || set -- 6.12

# check_variant DIR MAKEFLAGS...: build in DIR/src with sparse on every file;
# print the findings per file and add to the counts.
check_variant() {
	dir=$1
	shift
	guac_copy_module_sources "$dir"
	# Not parallel: sparse's lines must follow the CHECK line of their file.
	# shellcheck disable=SC2086
	nice $inside make -C "$kdir" M="$dir/src" C=2 W=1 "$@" modules >"$dir/sparse.log" 2>&1 || {
		cat "$dir/sparse.log" >&2
		guac_die "module build ($*) failed"
	}
	# What follows "  CHECK file", up to the next kbuild line, is sparse's.
	awk -v src="$dir/src/" -v variant="$series${*:+ $*}" '
		function strip(s,  i) {
			while ((i = index(s, src)) > 0)
				s = substr(s, 1, i - 1) substr(s, i + length(src))
			return s
		}
		function done_file() {
			if (file == "")
				return
			if (findings) {
				failed++
				printf "sparse (%s): %s\n%s", variant, file, text
			} else {
				passed++
			}
			file = ""
		}
		/^  [A-Z]+ / {
			done_file()
			if ($1 == "CHECK") {
				file = strip($2)
				findings = 0
				text = ""
			}
			next
		}
		file != "" {
			text = text strip($0) "\n"
			if (/(warning|error):/)
				findings++
		}
		END {
			done_file()
			print passed + 0, failed + 0
		}
	' "$dir/sparse.log" >"$dir/sparse.report"
	sed '$d' "$dir/sparse.report"
	read -r p f <<EOF
$(tail -n 1 "$dir/sparse.report")
EOF
	[ "$p" -gt 0 ] || [ "$f" -gt 0 ] ||
		guac_die "sparse checked no file for $series${*:+ $*}: $(grep -m 1 'C=2\|checker' "$dir/sparse.log" || echo "see $dir/sparse.log")"
	passed=$((passed + p))
	failed=$((failed + f))
}

passed=0
failed=0
for series; do
	kver=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" "$series")
	kdir=$(guac_kdir "$kver")
	[ -f "$kdir/Makefile" ] || guac_die "no headers for $kver in $kdir"
	out=$GUAC_TOP/build/sparse/$series
	# The compiler, and so sparse, of the kernel's own release.
	# shellcheck disable=SC2046
	set -- $(cat "$GUAC_VM_CACHE/$kver/toolchain" 2>/dev/null || echo host)
	inside=
	if [ "$1" != host ]; then
		# shellcheck disable=SC2086
		"$GUAC_TOP/scripts/vm/chroot.sh" ensure "$1" "$2" sparse $GUAC_CHROOT_PACKAGES
		mkdir -p "$out"
		inside="$GUAC_TOP/scripts/vm/chroot.sh run $1 --bind $GUAC_VM_CACHE/$kver --bind $out --"
	fi
	echo "sparse: $series ($kver${inside:+, in the $1 chroot}): $(${inside:-} sparse --version 2>/dev/null || echo sparse)"
	check_variant "$out"
	check_variant "$out/test" GUAC_TEST=y
done
echo "sparse: $passed passed, $failed failed"
[ "$failed" = 0 ]
