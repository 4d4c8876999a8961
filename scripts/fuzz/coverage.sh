#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Source coverage of the fuzz targets' inputs (make fuzz-coverage): the
# targets of tests/fuzz/ built with clang's -fprofile-instr-generate
# -fcoverage-mapping (no sanitizers) into COV_OUT (build/fuzz-cov/), each run
# once over its committed seeds and regression inputs (tests/fuzz/corpus/NAME/,
# tests/fuzz/regress/NAME/) and, with --generated, also over what earlier fuzz
# runs kept (build/fuzz/corpus/NAME/). The profiles are merged
# (llvm-profdata-14) and llvm-cov-14 prints line and region coverage per
# source file of the readers of outside input, then one line:
#
#   fuzz-coverage: L% of lines, R% of regions of the parsers (N inputs, T targets)
#
#   scripts/fuzz/coverage.sh [--generated] [NAME...]   (default: every target)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${COV_OUT:-$top/build/fuzz-cov}
gen_dir=${FUZZ_OUT:-$top/build/fuzz}/corpus
generated=false
names=()
while [ $# -gt 0 ]; do
	case $1 in
	--generated) generated=true; shift ;;
	-h|--help) sed -n '3,15p' "$0"; exit 0 ;;
	-*) echo "fuzz-coverage: unknown option '$1'" >&2; exit 2 ;;
	*) names+=("$1"); shift ;;
	esac
done
profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata || true)
cov=$(command -v llvm-cov-14 || command -v llvm-cov || true)
if [ -z "$profdata" ] || [ -z "$cov" ]; then
	echo "fuzz-coverage: llvm-profdata-14 and llvm-cov-14 are needed (Debian package llvm," \
		"scripts/install-deps.sh)" >&2
	exit 2
fi
if [ ${#names[@]} -eq 0 ]; then
	for src in "$top"/tests/fuzz/fuzz_*.c; do
		n=$(basename "$src" .c)
		[ "$n" = fuzz_common ] || names+=("${n#fuzz_}")
	done
fi

# The readers of outside input: the parsers, and the commands' option parsing.
u=$top/tools/userspace
files=("$u/storage/json.c" "$u/storage/manifest.c" "$u/storage/manifest_merge.c"
	"$u/storage/shard.c" "$u/storage/fleet.c"
	"$u/lib/util.c" "$u/cmd/cmd_gen.c" "$u/cmd/cmd_write.c" "$u/cmd/cmd_verify.c"
	"$u/cmd/cmd_manifest.c" "$u/cmd/cmd_bench.c" "$u/cmd/cmd_report.c" "$u/cmd/cmd_doctor.c"
	"$u/storage/verify_check.c" "$u/storage/fill.c" "$u/doctor/doctor_module.c"
	"$u/doctor/doctor_keys.c")

shm=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=/dev/shm
work=$(mktemp -d "$shm/guac-fuzz-cov.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$out/prof"
mkdir -p "$out/prof"
objects=()
total=0
for name in "${names[@]}"; do
	bin=$out/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "fuzz-coverage $name: no binary $bin" >&2
		exit 1
	fi
	inputs=()
	dirs=("$top/tests/fuzz/corpus/$name" "$top/tests/fuzz/regress/$name")
	$generated && dirs+=("$gen_dir/$name")
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || continue
		while IFS= read -r f; do inputs+=("$f"); done < <(find "$d" -type f | sort)
	done
	[ ${#inputs[@]} -gt 0 ] || continue
	rc=0
	# In chunks: a command line holds a few thousand generated inputs at most.
	for ((i = 0; i < ${#inputs[@]}; i += 500)); do
		LLVM_PROFILE_FILE=$out/prof/$name-%p.profraw GUAC_FUZZ_DIR=$work/$name \
			"$bin" -close_fd_mask=3 -timeout=30 "${inputs[@]:i:500}" \
			>"$out/prof/$name.log" 2>&1 || rc=$?
		if [ $rc -ne 0 ]; then
			echo "fuzz-coverage $name: replay FAILED (status $rc), see $out/prof/$name.log" >&2
			exit 1
		fi
	done
	total=$((total + ${#inputs[@]}))
	objects+=("-object=$bin")
	echo "fuzz-coverage $name: ${#inputs[@]} inputs replayed"
done
"$profdata" merge -sparse -o "$out/fuzz.profdata" "$out"/prof/*.profraw
# The first -object is the binary llvm-cov takes as its main one.
main=${objects[0]#-object=}
"$cov" report "$main" "${objects[@]:1}" -instr-profile="$out/fuzz.profdata" \
	"${files[@]}" | sed "s|$top/||" | tee "$out/report.txt"
awk -v n="$total" -v t="${#objects[@]}" '/^TOTAL/ {
	printf "fuzz-coverage: %s of lines, %s of regions of the parsers (%d inputs, %d targets)\n",
		$10, $4, n, t }' "$out/report.txt"
