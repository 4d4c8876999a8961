#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# FIPS 140-2 block counts from rngtest (rng-tools5) on the bytes of a source,
# judged against what ideal random data shows.
#
#   scripts/rngtest.sh SOURCE [-c BLOCKS]
#
# Perfect data fails a FIPS 140-2 block now and then: about one block in a
# thousand (each block is 20000 bits). So the check is statistical: with
# BLOCKS blocks, ideal data averages BLOCKS/1000 failures, a Poisson count,
# and the threshold is the smallest count that ideal data exceeds with
# probability below 0.1% (1000 blocks: expect 1, allow up to 5).
# Exit status: 0 within the threshold, 1 above it, 2 usage or input error.
set -eu

prog=rngtest.sh
top=$(cd "$(dirname "$0")/.." && pwd)
GUAC=${GUAC:-$top/build/userspace/guac}
FAIL_RATE=0.001		# failures per block of ideal data (rounded up)
FALSE_ALARM=0.001	# chance that ideal data exceeds the threshold

usage() {
	cat <<USAGE
Usage: scripts/rngtest.sh SOURCE [-c BLOCKS]

Run rngtest's FIPS 140-2 tests on BLOCKS blocks of 20000 bits (default 1000)
from SOURCE: a device or file (/dev/hwrng, /dev/urandom, /dev/guac), or the
word guac for the stream of 'guac gen' (\$GUAC). Prints the counts per test
and fails when the failed blocks exceed what ideal data shows: ideal data
fails about 1 block in 1000; the threshold is the smallest count that
ideal data exceeds with probability below 0.1% (Poisson).
Exit status: 0 within the threshold, 1 above it, 2 usage or input error.
USAGE
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

source= blocks=1000
while [ $# -gt 0 ]; do
	case $1 in
	-c) [ $# -ge 2 ] || die "-c needs a block count"; blocks=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$source" ] || die "unexpected argument '$1' (one SOURCE only)"; source=$1 ;;
	esac
	shift
done
[ -n "$source" ] || { usage >&2; die "missing SOURCE"; }
case $blocks in
'' | *[!0-9]* | 0*) die "invalid block count '$blocks': expected a positive whole number" ;;
esac
command -v rngtest >/dev/null || die "rngtest is not installed (rng-tools5; run scripts/install-deps.sh)"
if [ "$source" = guac ]; then
	[ -x "$GUAC" ] || die "no guac binary at $GUAC (run 'make tools' or set GUAC)"
elif [ -d "$source" ] || [ ! -r "$source" ]; then
	die "cannot read '$source' (not a readable file or device)"
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT INT TERM
# rngtest exits non-zero when any block fails: the counts decide, not that.
if [ "$source" = guac ]; then
	"$GUAC" gen | rngtest -c "$blocks" 2>"$out" || true
else
	rngtest -c "$blocks" <"$source" 2>"$out" || true
fi

field() { sed -n "s/^rngtest: FIPS 140-2$1: \([0-9]*\)\$/\1/p" "$out"; }
successes=$(field " successes")
failures=$(field " failures")
[ -n "$successes" ] && [ -n "$failures" ] ||
	die "rngtest gave no counts: $(grep -v '^rngtest: \(bits\|FIPS\|input\|Program\)' "$out" | tail -n 2)"
[ $((successes + failures)) -eq "$blocks" ] ||
	die "$source gave $((successes + failures)) of $blocks blocks (input ended early?)"

# exp() by its series: busybox awk (the test VM's) has no math functions.
threshold=$(awk -v n="$blocks" -v rate="$FAIL_RATE" -v alarm="$FALSE_ALARM" '
function exp_series(x,  sum, term, k) {
	sum = term = 1
	for (k = 1; term > sum * 1e-17; k++) { term *= x / k; sum += term }
	return sum
}
BEGIN {
	lambda = n * rate; p = 1 / exp_series(lambda); cdf = p; k = 0
	while (1 - cdf >= alarm) { k++; p *= lambda / k; cdf += p }
	print k }')

echo "rngtest $source: $blocks blocks of 20000 bits, $successes passed, $failures failed"
for t in Monobit Poker Runs "Long run" "Continuous run"; do
	printf '  %-15s %s\n' "$t:" "$(field "(2001-10-10) $t")"
done
echo "ideal data: about $(awk -v n="$blocks" -v r="$FAIL_RATE" 'BEGIN { print n * r }') failed blocks;" \
	"threshold $threshold (exceeded by ideal data with probability < 0.1%)"
if [ "$failures" -gt "$threshold" ]; then
	echo "FAIL: $failures failed blocks > $threshold"
	exit 1
fi
echo "OK: $failures failed blocks <= $threshold"
