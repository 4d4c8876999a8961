#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sparse over every source of the module: `make C=2 W=1 modules` against
# Debian's 6.12 headers (fetched into the cache by scripts/vm/fetch-kernel.sh),
# for the module users get and for its test variant (GUAC_TEST=y, which adds
# testing.c and the GUAC_TEST code). C=2 checks every file, rebuilt or not.
# Each build runs in a private copy of the sources under build/sparse/, as
# scripts/vm/build-module.sh does. Any sparse warning or error fails. Ends
# with "sparse: N passed, N failed" (files checked, over both variants).
set -eu

GUAC_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$GUAC_TOP/scripts/vm/lib.sh"

command -v sparse >/dev/null || guac_die "no sparse on PATH (run scripts/install-deps.sh)"
kver=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" 6.12)
kdir=$(guac_kdir "$kver")
[ -f "$kdir/Makefile" ] || guac_die "no headers for $kver in $kdir"
out=$GUAC_TOP/build/sparse

# check_variant DIR MAKEFLAGS...: build in DIR/src with sparse on every file;
# print the findings per file and add to the counts.
check_variant() {
	dir=$1
	shift
	guac_copy_module_sources "$dir"
	# Not parallel: sparse's lines must follow the CHECK line of their file.
	nice make -C "$kdir" M="$dir/src" C=2 W=1 "$@" modules >"$dir/sparse.log" 2>&1 || {
		cat "$dir/sparse.log" >&2
		guac_die "module build ($*) failed"
	}
	# What follows "  CHECK file", up to the next kbuild line, is sparse's.
	awk -v src="$dir/src/" -v variant="${*:-default}" '
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
	passed=$((passed + p))
	failed=$((failed + f))
}

passed=0
failed=0
check_variant "$out"
check_variant "$out/test" GUAC_TEST=y
[ "$passed" -gt 0 ] || guac_die "sparse checked no file (see $out/sparse.log)"
echo "sparse: $passed passed, $failed failed"
[ "$failed" = 0 ]
