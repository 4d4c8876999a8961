#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The arm64 guac (make guac-arm64: build/arm64/guac), run under
# qemu-aarch64 on amd64 ($GUAC_RUN, empty on an arm64 host): gen with the
# NEON implementation against the portable one at odd offsets and lengths,
# at the 2^32 and 2^64 block wraps; an x86 implementation refused with the
# list this build has; a file written by guac write verified by guac verify,
# then damaged (zeros, and a misdirected sector for the diagnosis's sweep,
# which runs at NEON's width) and diagnosed. TAP output.
set -u
. "$(dirname "$0")/../userspace/tap.sh"

GUAC=${GUAC:-build/arm64/guac}
GUAC_RUN=${GUAC_RUN-qemu-aarch64-static}

# guac ARGS...: the arm64 guac, through the emulator when there is one.
guac() {
	$GUAC_RUN "$GUAC" "$@"
}

tap_tmpdir
tap_begin

guac --version >"$tmp/version" 2>&1
check "guac --version runs (an aarch64 binary$([ -n "$GUAC_RUN" ] && echo " under $GUAC_RUN"))" \
	"[ $? -eq 0 ] && grep -q '^guac ' '$tmp/version'"
# e_machine (bytes 18-19 of the ELF header) 183: EM_AARCH64.
machine=$(od -An -tu2 -j18 -N2 "$GUAC" | tr -d ' ')
check "the binary is aarch64 (e_machine $machine)" "[ '$machine' = 183 ]"

guac gen --help >"$tmp/help" 2>&1
check "gen --help names this build's implementations" \
	"grep -q -- '--impl NAME     auto, generic or neon (default auto)' '$tmp/help'"

# same_bytes DESCRIPTION GEN-ARGS: --impl neon, generic and auto give the same bytes.
same_bytes() {
	guac gen --impl neon $2 >"$tmp/neon" 2>"$tmp/err" &&
		guac gen --impl generic $2 >"$tmp/generic" 2>>"$tmp/err" &&
		guac gen $2 >"$tmp/auto" 2>>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$tmp/neon" ] && cmp -s "$tmp/neon" "$tmp/generic" &&
		cmp -s "$tmp/neon" "$tmp/auto"; then
		ok "gen --impl neon = generic = auto: $1"
	else
		cmp "$tmp/neon" "$tmp/generic" >>"$tmp/err" 2>&1
		not_ok "gen --impl neon = generic = auto: $1 (status $rc)" "$tmp/err"
	fi
}

same_bytes "1 MiB from 0" "--length 1M"
same_bytes "odd offset and length" "--offset 12345 --length 1000003"
same_bytes "one byte short of a step" "--offset 64 --length 255"
# The whole blocks start at 0xffffffd3 (...d3 for 2^64), so that a 4-block
# step straddles the wrap (0xffffffff, 0x100000000, ...): its lanes carry.
same_bytes "a step across the 2^32 block wrap" "--origin 0xffffffd2 --offset 7 --length 65531"
same_bytes "a step across the 2^64 block wrap" "--origin 0xffffffffffffffd2 --offset 61 --length 99999"
same_bytes "from 2 blocks before the 2^32 wrap" "--origin 0xfffffffe --length 4096"

guac gen --impl avx2 --length 64 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "gen --impl avx2 on arm64: status 2, no output" "[ $rc -eq 2 ] && [ ! -s '$tmp/out' ]"
check "the error names the implementations this build has" \
	"grep -q \"unknown implementation 'avx2' (this build has auto, generic or neon)\" '$tmp/err'"

# guac write, then guac verify, of a file.
S=4096
SIZE=$((8 << 20))
guac write --length $SIZE --origin 0 --impl neon -m "$tmp/f.json" "$tmp/f" >"$tmp/w.txt" 2>&1
rc=$?
check "write --impl neon of an 8 MiB file: status 0" "[ $rc -eq 0 ] && grep -q '^OK: $SIZE of $SIZE bytes' '$tmp/w.txt'"
check "the file holds gen --impl generic's bytes" \
	"guac gen --impl generic --length $SIZE | cmp -s - '$tmp/f'"
guac verify -m "$tmp/f.json" "$tmp/f" >"$tmp/v.txt" 2>&1
rc=$?
check "verify of that file: OK" "[ $rc -eq 0 ] && grep -q '^OK: $SIZE bytes' '$tmp/v.txt'"
guac verify --impl generic -m "$tmp/f.json" "$tmp/f" >"$tmp/v.txt" 2>&1
check "verify --impl generic of that file: OK" "[ $? -eq 0 ] && grep -q '^OK: $SIZE bytes' '$tmp/v.txt'"

# Damage: sector 10 zeroed, sector 13 holding sector 1500's data.
dd if=/dev/zero of="$tmp/f" bs=$S seek=10 count=1 conv=notrunc status=none
dd if="$tmp/f" of="$tmp/f" bs=$S skip=1500 seek=13 count=1 conv=notrunc status=none
guac verify --sector $S -m "$tmp/f.json" "$tmp/f" >"$tmp/bad.txt" 2>&1
rc=$?
check "verify of the damaged file: status 1, 2 bad sectors" \
	"[ $rc -eq 1 ] && grep -q '^MISMATCH: 2 bad 4096-byte sectors' '$tmp/bad.txt'"
check "sector 10 is ALL_ZERO" "grep -q '^  sector 10 (byte 40960): ALL_ZERO: ' '$tmp/bad.txt'"
check "sector 13 is found MISDIRECTED, meant for LBA 1500" \
	"grep -q 'MISDIRECTED: holds stream offset $((1500 * S)), meant for LBA 1500 ' '$tmp/bad.txt'"
grep -q 'MISDIRECTED' "$tmp/bad.txt" || sed 's/^/#   /' "$tmp/bad.txt"

guac bench core --seconds 0.05 --trials 1 --sizes 4K --threads 1 >"$tmp/bench.txt" 2>&1
check "bench core has a guac-neon row and no x86 one" \
	"grep -q '^core  *guac-neon ' '$tmp/bench.txt' && ! grep -q 'guac-sse2\|guac-avx' '$tmp/bench.txt'"

tap_end
