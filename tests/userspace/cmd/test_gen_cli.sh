#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac gen from the outside: the published vectors, positions, errors and
# exit codes. TAP output; exit status non-zero on any failure.
set -u
. "$(dirname "$0")/../tap.sh"

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   expected: $2"
		echo "#   actual:   $3"
	fi
}

hex() { od -An -v -tx1 | tr -d ' \n'; }

block0=0ced594fb6194be61c8d8ff1d596352508040784ad6acb38cdd1f62912dab7b478b071bdbeab020c7af8ad2c7f66b2be35db3a025295bff3eca838f030f04457
f00d=e1e731ca7a17a259d4c849f5a7b4e1e6c9c584542f9a070680d09605d0a1de43
last=fe3cf26ab67e9f2da1cc1e93af5c2da4b75a8c7ff9cee02b7719d9bc0ac4859d

tap_begin
check_eq "block 0 vector" "$block0" "$("$GUAC" gen --offset 0 --length 64 | hex)"
check_eq "block 0 vector with xxd -p" "$block0" "$("$GUAC" gen --offset 0 --length 64 | xxd -p | tr -d '\n')"
check_eq "block 0xf00d by --offset" "$f00d" "$("$GUAC" gen --offset $((0xf00d * 64)) --length 32 | hex)"
check_eq "block 0xf00d by --origin" "$f00d" "$("$GUAC" gen --origin 0xf00d --length 32 | hex)"
check_eq "last block then block 0" "$last" "$("$GUAC" gen --origin 0xffffffffffffffff --length 32 | hex)"
check_eq "the wrap continues with block 0" "$block0" \
	"$("$GUAC" gen --origin 0xffffffffffffffff --offset 64 --length 64 | hex)"
check_eq "byte offset 2^64-64 is block 2^58-1" \
	"$("$GUAC" gen --origin 0x3ffffffffffffff --length 100 | hex)" \
	"$("$GUAC" gen --offset 0xffffffffffffffc0 --length 100 | hex)"
check_eq "suffixes: --offset 1K = block 16" \
	"$("$GUAC" gen --origin 16 --length 64 | hex)" "$("$GUAC" gen --offset 1K --length 64 | hex)"
check_eq "unaligned offset is a suffix of the aligned stream" \
	"$("$GUAC" gen --offset 0 --length 300 | tail -c 277 | hex)" \
	"$("$GUAC" gen --offset 23 --length 277 | hex)"
for impl in $guac_impls; do
	if "$GUAC" gen --impl "$impl" --length 0 2>/dev/null; then
		check_eq "--impl $impl gives the same 100000 bytes" \
			"$("$GUAC" gen --length 100000 --offset 77 --impl generic | cksum)" \
			"$("$GUAC" gen --length 100000 --offset 77 --impl "$impl" | cksum)"
	else
		ok "--impl $impl # SKIP not supported by this CPU"
	fi
done
check_eq "--length 0 writes nothing" "0" "$("$GUAC" gen --length 0 | wc -c | tr -d ' ')"
check_eq "--length 3M writes 3 MiB" "3145728" "$("$GUAC" gen --length 3M | wc -c | tr -d ' ')"

# Unbounded output into a reader that stops: quiet success on EPIPE.
status=$( (sh -c "'$GUAC' gen --length 100M 2>/dev/null; echo \$? >&2" | head -c 10 >/dev/null) 2>&1)
check_eq "EPIPE before --length bytes exits 2" "2" "$status"
msg=$( (sh -c "'$GUAC' gen --length 100M" | head -c 10 >/dev/null) 2>&1)
case $msg in
*"not written"*) ok "EPIPE before --length bytes says how many were not written ($msg)" ;;
*) not_ok "EPIPE before --length bytes says how many were not written: '$msg'" ;;
esac
status=$( (sh -c "'$GUAC' gen --length 10; echo \$? >&2" | head -c 10 >/dev/null) 2>&1)
check_eq "a reader that takes all --length bytes: exit 0" "0" "$status"
status=$( (sh -c "'$GUAC' gen; echo \$? >&2" | head -c 1000 >/dev/null) 2>&1)
check_eq "EPIPE ends unbounded output with status 0" "0" "$status"

# Bad input: a message naming the problem, exit status 2, nothing written.
for args in "--offset abc" "--length 1X" "--offset -5" "--origin 18446744073709551616" \
	"--length 16E" "--impl avx1024" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	out=$("$GUAC" gen $args 2>/tmp/guac-gen-err.$$ | wc -c | tr -d ' ')
	# shellcheck disable=SC2086
	"$GUAC" gen $args >/dev/null 2>&1
	status=$?
	msg=$(cat /tmp/guac-gen-err.$$)
	if [ "$status" = 2 ] && [ "$out" = 0 ] && [ -n "$msg" ]; then
		ok "rejects '$args' ($msg)"
	else
		not_ok "rejects '$args': status $status, $out bytes written, message '$msg'"
	fi
done
rm -f /tmp/guac-gen-err.$$
"$GUAC" gen --help | grep -q -- "--offset" && ok "--help documents --offset" || not_ok "--help documents --offset"
"$GUAC" --help | grep -q "gen" && ok "guac --help lists gen" || not_ok "guac --help lists gen"
"$GUAC" nosuchcmd >/dev/null 2>&1; check_eq "unknown command exits 2" 2 $?

# Numbers: decimal or 0x, never octal; binary and decimal units.
check_eq "--length 010 is ten bytes, not octal" 10 "$("$GUAC" gen --length 010 | wc -c | tr -d ' ')"
check_eq "--length 0x10 is 16 bytes" 16 "$("$GUAC" gen --length 0x10 | wc -c | tr -d ' ')"
check_eq "--length 1kB is 1000 bytes" 1000 "$("$GUAC" gen --length 1kB | wc -c | tr -d ' ')"
check_eq "--length 1KiB is 1024 bytes" 1024 "$("$GUAC" gen --length 1KiB | wc -c | tr -d ' ')"
check_eq "--length 1MB is 10^6 bytes" 1000000 "$("$GUAC" gen --length 1MB | wc -c | tr -d ' ')"
check_eq "--length 1M is 2^20 bytes" 1048576 "$("$GUAC" gen --length 1M | wc -c | tr -d ' ')"
for cmd in gen write verify manifest bench; do
	v=$("$GUAC" $cmd --version 2>&1)
	case $v in
	"guac $cmd "[0-9]*) ok "guac $cmd --version: $v" ;;
	*) not_ok "guac $cmd --version: '$v'" ;;
	esac
done
want=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$(dirname "$0")/../../../dkms.conf")
check_eq "guac --version is dkms.conf's PACKAGE_VERSION" "guac $want (stream version 1)" "$("$GUAC" --version)"
for cmd in gen write verify; do
	if "$GUAC" $cmd --help | grep -q "kB, MB, GB, TB, PB, EB are"; then
		ok "guac $cmd --help documents binary and decimal units"
	else
		not_ok "guac $cmd --help documents binary and decimal units"
	fi
done

tap_tmpdir
# Binary output to a terminal is refused unless --force (issue 36, U10), as
# zstd does: script(1) gives guac gen a pseudo-terminal.
if command -v script >/dev/null; then
	script -qec "$GUAC gen --length 16; echo status=\$?" /dev/null >"$tmp/tty" 2>&1
	check "gen to a terminal: refused, status 2, the message says how to redirect, no byte written" \
		"grep -q 'refusing to write binary data to a terminal: redirect it' '$tmp/tty' && grep -q 'status=2' '$tmp/tty' &&
		 [ \$(wc -c <'$tmp/tty') -lt 200 ]"
	script -qec "$GUAC gen --length 16 --force >/dev/tty; echo status=\$?" /dev/null >"$tmp/tty" 2>&1
	check "gen --force to a terminal: written, status 0" "grep -q 'status=0' '$tmp/tty' && ! grep -q refusing '$tmp/tty'"
else
	not_ok "script(1) is available (bsdutils)"
fi

tap_end
