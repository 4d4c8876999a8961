#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Run the libFuzzer targets of tests/fuzz/ (built by `make fuzz-build` into
# build/fuzz/): each for SECONDS, starting from its committed seeds
# (tests/fuzz/corpus/NAME/) and its regression inputs (tests/fuzz/regress/NAME/,
# every crash found so far), with its dictionary (tests/fuzz/dict/NAME.dict)
# when it has one. New inputs go to build/fuzz/corpus/NAME/ (kept between
# runs; the committed seeds are never written), crash inputs to
# build/fuzz/artifacts/NAME/. One line per target:
#
#   fuzz NAME: N execs, M edges, K crashes
#
# N is libFuzzer's count of executed inputs (-print_final_stats), M the
# edges covered at the end (its last "cov:"), K the crash, leak, timeout and
# out-of-memory inputs this run wrote (libFuzzer stops at the first, so K is
# 0 or 1). Any K > 0 fails the run, with libFuzzer's report shown.
#
#   scripts/fuzz/run.sh [--seconds S] [--replay] [NAME...]   (default: every target)
#
# --replay runs each target once over its regression inputs and seeds only
# (no fuzzing): what a fix must keep passing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FUZZ_OUT:-$top/build/fuzz}
seconds=${FUZZ_SECONDS:-20}
replay=false
names=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--replay) replay=true; shift ;;
	-h|--help) sed -n '3,24p' "$0"; exit 0 ;;
	-*) echo "fuzz: unknown option '$1'" >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done
case $seconds in
''|*[!0-9]*|0) echo "fuzz: --seconds wants a whole number above 0, not '$seconds'" >&2; exit 2 ;;
esac
if [ ${#names[@]} -eq 0 ]; then
	for src in "$top"/tests/fuzz/fuzz_*.c; do
		n=$(basename "$src" .c)
		[ "$n" = fuzz_common ] || names+=("${n#fuzz_}")
	done
fi

# The targets' private directories: tmpfs where there is one (merge and write fsync).
shm=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=/dev/shm
work=$(mktemp -d "$shm/guac-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
for name in "${names[@]}"; do
	bin=$out/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "fuzz $name: no binary $bin (make fuzz-build)" >&2
		failed=1
		continue
	fi
	seeds=$top/tests/fuzz/corpus/$name
	regress=$top/tests/fuzz/regress/$name
	corpus=$out/corpus/$name
	arts=$out/artifacts/$name
	log=$out/log/$name.log
	mkdir -p "$corpus" "$arts" "$out/log"
	dirs=()
	for d in "$seeds" "$regress"; do
		[ -d "$d" ] && dirs+=("$d")
	done
	dict=()
	[ -f "$top/tests/fuzz/dict/$name.dict" ] && dict=(-dict="$top/tests/fuzz/dict/$name.dict")
	before=$(find "$arts" -type f | wc -l)
	rc=0
	if $replay; then
		inputs=()
		for d in "${dirs[@]}"; do
			while IFS= read -r f; do inputs+=("$f"); done < <(find "$d" -type f | sort)
		done
		if [ ${#inputs[@]} -eq 0 ]; then
			echo "fuzz-replay $name: no inputs" >&2
			failed=1
			continue
		fi
		GUAC_FUZZ_DIR=$work/$name "$bin" -close_fd_mask=3 -timeout=30 "${inputs[@]}" \
			>"$log" 2>&1 || rc=$?
		if [ $rc -ne 0 ]; then
			echo "fuzz-replay $name: ${#inputs[@]} inputs, FAILED (status $rc):"
			grep -E 'ERROR|SUMMARY|FUZZ ORACLE|Running:' "$log" | tail -20 | sed 's/^/  /'
			failed=1
		else
			echo "fuzz-replay $name: ${#inputs[@]} inputs replayed, 0 crashes"
		fi
		continue
	fi
	GUAC_FUZZ_DIR=$work/$name "$bin" -max_total_time="$seconds" -print_final_stats=1 \
		-close_fd_mask=3 -timeout=30 -rss_limit_mb=4096 -artifact_prefix="$arts/" \
		"${dict[@]}" "$corpus" "${dirs[@]}" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	crashes=$(($(find "$arts" -type f | wc -l) - before))
	echo "fuzz $name: ${execs:-0} execs, ${edges:-0} edges, $crashes crashes"
	if [ "$crashes" -gt 0 ] || [ $rc -ne 0 ]; then
		echo "fuzz $name: FAILED (libFuzzer status $rc); its report ($log):"
		grep -E 'ERROR|SUMMARY|FUZZ ORACLE|Test unit written|#[0-9]+ in ' "$log" | head -30 |
			sed 's/^/  /'
		failed=1
	fi
done
exit $failed
