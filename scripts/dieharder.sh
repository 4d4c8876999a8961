#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# dieharder on the bytes of a source, with a summary that can be trusted:
# every WEAK result is re-run on fresh data in dieharder's resolve-ambiguity
# mode (-Y 1) before it is reported.
#
#   scripts/dieharder.sh SOURCE [--quick] [--log FILE] [--summarize FILE]
#
# SOURCE is a device or file path (/dev/hwrng, /dev/urandom, /dev/guac) or
# the word `guac` for the stream from `guac gen` ($GUAC, default
# build/userspace/guac). Exit status: 0 no test FAILED, 1 some test FAILED,
# 2 usage error or dieharder not producing results.
set -eu

prog=dieharder.sh
top=$(cd "$(dirname "$0")/.." && pwd)
GUAC=${GUAC:-$top/build/userspace/guac}
# Fast tests (a few seconds in all) that still read megabytes: birthdays,
# 6x8 binary rank, count-the-1s stream, parking lot, STS monobit.
QUICK_TESTS="0 3 8 10 100"
# Re-runs read guac at distinct offsets 2^50 bytes apart: fresh, never reused data.
RERUN_STRIDE=1125899906842624

usage() {
	cat <<USAGE
Usage: scripts/dieharder.sh SOURCE [--quick] [--log FILE] [--summarize FILE]

Run dieharder -g 200 (raw bytes on standard input) on SOURCE and summarize
the PASSED, WEAK and FAILED counts with the names of the WEAK and FAILED
tests. WEAK results are re-run with -Y 1 (resolve ambiguity: more p-samples
until the test passes or fails clearly) on fresh data before the summary.

  SOURCE           a device or file (/dev/urandom, /dev/hwrng, /dev/guac), or
                   the word guac for the stream of 'guac gen' (\$GUAC)
  --quick          run only tests $QUICK_TESTS (seconds, for CI)
                   instead of the whole battery (-a, an hour or more)
  --log FILE       keep dieharder's own output of the main run in FILE
  --summarize FILE take the main run's results from FILE (a saved dieharder
                   output) instead of running it; WEAK ones are still re-run

A file as SOURCE must hold enough bytes: the full battery reads hundreds of
GB, and dieharder rewinds a short file, which makes tests fail. Re-runs read
a file again from its start; /dev/guac and guac at offsets 2^50 bytes apart,
other devices give fresh data.
Exit status: 0 no FAILED test, 1 a test FAILED, 2 usage or run error.
USAGE
}

die() {
	echo "$prog: $*" >&2
	exit 2
}

source= quick=0 log= summarize=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--log) [ $# -ge 2 ] || die "--log needs a FILE"; log=$2; shift ;;
	--summarize) [ $# -ge 2 ] || die "--summarize needs a FILE"; summarize=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$source" ] || die "unexpected argument '$1' (one SOURCE only)"; source=$1 ;;
	esac
	shift
done
[ -n "$source" ] || { usage >&2; die "missing SOURCE"; }
command -v dieharder >/dev/null || die "dieharder is not installed (run scripts/install-deps.sh)"
if [ "$source" = guac ]; then
	[ -x "$GUAC" ] || die "no guac binary at $GUAC (run 'make tools' or set GUAC)"
elif [ -d "$source" ] || [ ! -r "$source" ]; then
	die "cannot read '$source' (not a readable file or device)"
fi
[ -z "$summarize" ] || [ -r "$summarize" ] || die "cannot read '$summarize'"

# feed RUN: the bytes of SOURCE for run number RUN on standard output.
feed() {
	if [ "$source" = guac ]; then
		"$GUAC" gen --offset $(($1 * RERUN_STRIDE))
	elif [ "$(readlink -f -- "$source")" = /dev/guac ]; then
		# /dev/guac is deterministic: each run reads its own stretch.
		dd if="$source" iflag=skip_bytes skip=$(($1 * RERUN_STRIDE)) bs=64K 2>/dev/null
	else
		cat -- "$source" 2>/dev/null
	fi
}

# Result lines "name|ntup|tsamples|psamples|p-value|ASSESSMENT" as "name ntup ASSESSMENT".
results() {
	awk -F'|' 'NF == 6 && $6 ~ /PASSED|WEAK|FAILED/ {
		gsub(/ /, "", $1); gsub(/ /, "", $2); gsub(/ /, "", $6); print $1, $2, $6 }' "$@"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
main=${log:-$tmp/main.log}

if [ -n "$summarize" ]; then
	cp -- "$summarize" "$tmp/main.log"
	main=$tmp/main.log
	echo "$prog: results of the main run from $summarize"
elif [ $quick = 1 ]; then
	echo "$prog: $source, quick subset: dieharder -g 200 -d N for N in $QUICK_TESTS"
	: >"$main"
	for t in $QUICK_TESTS; do
		feed 0 | dieharder -g 200 -d "$t" >>"$main" 2>"$tmp/err" || true
	done
else
	echo "$prog: $source, full battery: dieharder -g 200 -a"
	feed 0 | dieharder -g 200 -a >"$main" 2>"$tmp/err" || true
fi
results "$main" >"$tmp/results"
[ -s "$tmp/results" ] || die "dieharder reported no results: $(cat "$tmp/err" 2>/dev/null | head -n 3)"

# Resolve each WEAK result, replacing it by the outcome of the re-run.
run=1
: >"$tmp/final"
: >"$tmp/reruns"
while read -r name ntup verdict; do
	if [ "$verdict" = WEAK ]; then
		if [ "$ntup" = 0 ]; then nflag=; else nflag="-n $ntup"; fi
		# shellcheck disable=SC2086
		feed $run | dieharder -g 200 -d "$name" $nflag -Y 1 >"$tmp/rerun" 2>&1 || true
		# The re-run's last verdict for this test and ntup is the resolved one.
		new=$(results "$tmp/rerun" | awk -v n="$name" -v t="$ntup" '$1 == n && $2 == t { v = $3 } END { print v }')
		echo "$name/$ntup: WEAK -> ${new:-no result (kept WEAK)}" >>"$tmp/reruns"
		verdict=${new:-WEAK}
		run=$((run + 1))
	fi
	echo "$name $ntup $verdict" >>"$tmp/final"
done <"$tmp/results"

count() { awk -v v="$1" '$3 == v' "$tmp/final" | wc -l | tr -d ' '; }
names() { awk -v v="$1" '$3 == v { printf "%s%s/%s", sep, $1, $2; sep = " " }' "$tmp/final"; }
passed=$(count PASSED) weak=$(count WEAK) failed=$(count FAILED)

if [ -s "$tmp/reruns" ]; then
	echo "WEAK results re-run with -Y 1 on fresh data:"
	sed 's/^/  /' "$tmp/reruns"
fi
echo "SUMMARY $source: PASSED $passed, WEAK $weak, FAILED $failed"
[ "$weak" = 0 ] || echo "WEAK:   $(names WEAK)"
[ "$failed" = 0 ] || echo "FAILED: $(names FAILED)"
[ "$failed" = 0 ]
