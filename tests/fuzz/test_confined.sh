#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The option fuzz targets never touch what their input names outside their
# private directory: guac write's plan reads its target (libblkid's probe,
# the size and sector), so fuzz_opts_write plans a stand-in for any target
# outside it. Traced with strace: a target named /etc/hostname (a file that
# is there to be opened) is never opened, while the stand-in t.img is (the
# trace sees the plan's opens at all). TAP output.
#   tests/fuzz/test_confined.sh FUZZ_OUT
set -u
. "$(dirname "$0")/../userspace/tap.sh"
out=$1
tap_tmpdir

tap_begin
mkdir "$tmp/dir"
trace() {	# trace NAME ARGS...: fuzz_opts_write on the NUL-separated ARGS, its opens in $tmp/NAME
	name=$1
	shift
	printf '%s\0' "$@" >"$tmp/$name.in"
	# LeakSanitizer cannot run under ptrace: the leak check is fuzz-short's, not this one's.
	ASAN_OPTIONS=detect_leaks=0 GUAC_FUZZ_DIR=$tmp/dir strace -f -qq -e trace=open,openat -o "$tmp/$name.log" \
		"$out/fuzz_opts_write" -runs=1 "$tmp/$name.in" >"$tmp/$name.out" 2>&1
}
trace outside --length 4096 --dry-run /etc/hostname
check "a target outside the private directory: the plan ran (exit 0)" "[ \$? -eq 0 ]"
check "... and /etc/hostname was never opened" "! grep -q '\"/etc/hostname\"' '$tmp/outside.log'"
trace inside --length 4096 --dry-run t.img
check "the stand-in t.img in the private directory: the trace sees its open" \
	"[ \$? -eq 0 ] && grep -q '\"t.img\"\\|/t.img\"' '$tmp/inside.log'"
tap_end
