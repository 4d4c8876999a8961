#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docs/device.md's table of the edges is the one guac-vmtest checks: the
# table `guac-vmtest edges --print-expected` prints for the documented
# kernels (the expectations of tests/vm/vmtest/async.c) must equal the doc's,
# cell for cell; and a one-cell change to the doc must be caught. Runs on the
# host: printing the expectations needs no device. TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
vmtest=${GUAC_VMTEST:-$top/build/vm/guac-vmtest}
doc=$top/docs/device.md
# The kernels the doc's table covers, oldest first (its "; 5.10:" notes).
kernels="5.10.0 6.1.0 6.12.0 7.3.0"
tap_tmpdir

# The markdown table that starts with "| offset | read |", to its last row.
doc_table() {
	awk '/^\| offset \| read \|/ { on = 1 } on && !/^\|/ { exit } on' "$1"
}

tap_begin
# shellcheck disable=SC2086
check "guac-vmtest edges --print-expected $kernels prints a table" \
	'"$vmtest" edges --print-expected $kernels >"$tmp/expected" && [ "$(wc -l <"$tmp/expected")" -eq 10 ]'
check "docs/device.md has the edges table" 'doc_table "$doc" >"$tmp/doc" && [ -s "$tmp/doc" ]'
check "docs/device.md's edges table is the one the check expects" 'diff -u "$tmp/doc" "$tmp/expected"'
sed 's/^| -4096, count 64 | - | EINVAL (VFS) |/| -4096, count 64 | - | EOVERFLOW (VFS) |/' "$doc" >"$tmp/mutated.md"
check "the comparison catches a changed cell" \
	'doc_table "$tmp/mutated.md" >"$tmp/mutated" && ! cmp -s "$tmp/doc" "$tmp/mutated" && ! diff -q "$tmp/mutated" "$tmp/expected" >/dev/null'
check "--print-expected refuses a release that is not MAJOR.MINOR" \
	'! "$vmtest" edges --print-expected bogus >/dev/null 2>&1'
tap_end
