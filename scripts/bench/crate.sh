#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The published Rust crate `guacamole` (crates.io, pinned to 0.17.0 in
# scripts/bench/crate/Cargo.toml and Cargo.lock) against `guac gen` and the
# userspace core, per CPU-second, so that a machine loaded by other work
# still gives ratios that hold.
#
#   scripts/bench/crate.sh [--no-core]
#
# 1. Builds the harness (cargo --release --locked, target dir
#    build/bench/crate, git-ignored) and checks that the crate produces the
#    same bytes as `guac gen`: the first MiB of Guacamole::new(0) against
#    `guac gen --length 1M` and each `--impl` the CPU has, by sha256. Any
#    difference stops the script with status 1.
# 2. Through the crate's API: Guacamole::generate into one reused 64 KiB and
#    one 1 MiB buffer, MB (10^6 bytes) per second of the thread's CPU time,
#    median of 7 trials of 0.5 s; and, unless --no-core, `guac bench core`
#    at the same sizes in the same run (its per CPU-s column).
# 3. 4 GiB to /dev/null in 1 MiB writes: the crate (the loop of its own
#    binary) against `guac gen --length 4G` and `guac gen --impl sse2|avx2|
#    avx512 --length 4G`, alternating, three rounds; CPU time (user + system)
#    from `perf stat -e task-clock` if it works here, else /usr/bin/time,
#    else bash's `time`.
# 4. The core clock before and after (a chain of dependent imul timed on the
#    thread's CPU clock), and a table with ratios to the crate.
#
# Environment: GUAC (default build/userspace/guac, built with `make tools`
# if missing), CRATE_LENGTH (4G), CRATE_ROUNDS (3), CRATE_SECONDS (0.5),
# CRATE_TRIALS (7). Writes nothing outside build/.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GUAC=${GUAC:-$ROOT/build/userspace/guac}
LENGTH=${CRATE_LENGTH:-4G}
ROUNDS=${CRATE_ROUNDS:-3}
SECONDS_PER_TRIAL=${CRATE_SECONDS:-0.5}
TRIALS=${CRATE_TRIALS:-7}
TARGET=$ROOT/build/bench/crate
BIN=$TARGET/release/guac-crate-bench
WORK=$ROOT/build/bench/crate-run
RUN_CORE=1

for arg in "$@"; do
	case $arg in
	--no-core) RUN_CORE=0 ;;
	-h | --help)
		sed -n '4,/^$/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "crate.sh: unknown argument $arg" >&2
		exit 2
		;;
	esac
done

die() {
	echo "crate.sh: $*" >&2
	exit 1
}
note() { echo "crate.sh: $*" >&2; }

if [[ ! -x $GUAC ]]; then
	if [[ $GUAC == "$ROOT/build/userspace/guac" ]]; then
		note "building $GUAC (make tools)"
		make -C "$ROOT" tools >&2
	fi
	[[ -x $GUAC ]] || die "no guac binary at $GUAC"
fi
command -v cargo >/dev/null || die "cargo not found"

note "building the harness (guacamole 0.17.0, cargo --release --locked)"
cargo build --quiet --release --locked \
	--manifest-path "$ROOT/scripts/bench/crate/Cargo.toml" \
	--target-dir "$TARGET" >&2
[[ -x $BIN ]] || die "harness not built: $BIN"

mkdir -p "$WORK"

# ---- the CPU, named with every figure ----
cpu_field() { awk -F': ' -v k="$1" '$1 ~ "^"k"[ \t]*$" {print $2; exit}' /proc/cpuinfo; }
CPU="$(cpu_field 'model name'), family $(cpu_field 'cpu family') model $(cpu_field model) stepping $(cpu_field stepping)"

# ---- 1. same bytes ----
# An implementation the CPU lacks makes `guac gen --impl` fail: probe first.
avail=()
for impl in sse2 avx2 avx512; do
	n=$("$GUAC" gen --impl "$impl" --length 64 2>/dev/null | wc -c) || n=0
	if [[ $n == 64 ]]; then avail+=("$impl"); else note "no $impl on this CPU (skipped)"; fi
done
ref=$("$BIN" gen 1048576 | sha256sum | cut -d' ' -f1)
for impl in auto "${avail[@]}"; do
	got=$("$GUAC" gen --impl "$impl" --length 1M | sha256sum | cut -d' ' -f1) ||
		die "guac gen --impl $impl --length 1M failed"
	if [[ $got != "$ref" ]]; then
		echo "FAIL: the crate and guac gen --impl $impl differ in the first MiB" >&2
		echo "  guacamole 0.17.0, Guacamole::new(0): sha256 $ref" >&2
		echo "  $GUAC gen --impl $impl --length 1M: sha256 $got" >&2
		exit 1
	fi
done

# ---- CPU time of one command, stdout to /dev/null, in ms ----
METHOD=
if perf stat -x, -e task-clock -o "$WORK/perf.probe" true 2>/dev/null &&
	grep -q '^[0-9.]*,msec,task-clock' "$WORK/perf.probe"; then
	METHOD=perf
elif [[ -x /usr/bin/time ]]; then
	METHOD=time
else
	METHOD=bash
fi

cpu_ms() {
	case $METHOD in
	perf)
		perf stat -x, -e task-clock -o "$WORK/perf.out" -- "$@" >/dev/null
		awk -F, '$3 == "task-clock" {print $1}' "$WORK/perf.out"
		;;
	time)
		/usr/bin/time -f '%U %S' -o "$WORK/time.out" -- "$@" >/dev/null
		awk '{printf "%.1f\n", ($1 + $2) * 1000}' "$WORK/time.out"
		;;
	bash)
		local TIMEFORMAT='%3U %3S'
		{ time "$@" >/dev/null; } 2>"$WORK/time.out"
		awk '{printf "%.1f\n", ($1 + $2) * 1000}' "$WORK/time.out"
		;;
	esac
}

bytes_of() { # 4G, 1M, 123 -> bytes (binary suffixes, as guac reads them)
	local v=$1 n m=1
	case $v in
	*G) n=${v%G} m=$((1 << 30)) ;;
	*M) n=${v%M} m=$((1 << 20)) ;;
	*K) n=${v%K} m=$((1 << 10)) ;;
	*) n=$v ;;
	esac
	echo $((n * m))
}
LEN_BYTES=$(bytes_of "$LENGTH")

echo "# scripts/bench/crate.sh on $CPU ($(nproc) CPUs), Linux $(uname -r), $(date -u +%FT%TZ)"
echo "# guacamole 0.17.0 (crates.io) built by $(rustc --version | cut -d' ' -f1-2), release, no target-cpu; guac: $GUAC"
echo "# same bytes: first MiB of Guacamole::new(0) = guac gen --length 1M (auto ${avail[*]}): sha256 $ref"
echo "# CPU time by: $METHOD$([[ $METHOD == perf ]] && echo ' stat -e task-clock')"
echo "# $(uptime | sed 's/^ *//')"
"$BIN" clock | sed 's/^/# before: /'

# ---- 3. LENGTH to /dev/null, alternating ----
sources=(crate gen)
for impl in "${avail[@]}"; do sources+=("gen-$impl"); done
declare -A ms
for ((r = 1; r <= ROUNDS; r++)); do
	for s in "${sources[@]}"; do
		case $s in
		crate) v=$(cpu_ms "$BIN" gen "$LEN_BYTES") ;;
		gen) v=$(cpu_ms "$GUAC" gen --length "$LENGTH") ;;
		gen-*) v=$(cpu_ms "$GUAC" gen --impl "${s#gen-}" --length "$LENGTH") ;;
		esac
		[[ -n $v ]] || die "no CPU time for $s"
		ms[$s]="${ms[$s]:-} $v"
		echo "raw $s $LENGTH cpu-ms $v"
	done
done

# ---- 2. through the API, and the core in the same run ----
api=()
for size in 65536 1048576; do
	line=$("$BIN" api "$size" "$SECONDS_PER_TRIAL" "$TRIALS")
	echo "raw $line"
	api+=("$line")
done
if ((RUN_CORE)); then
	"$GUAC" bench core --sizes 64K,1M --threads 1 --seconds "$SECONDS_PER_TRIAL" \
		--trials "$TRIALS" --csv >"$WORK/core.csv"
	grep '^core,' "$WORK/core.csv" | awk -F, '{printf "raw core %s %s per-cpu-s %s\n", $2, $4, $11}'
fi
"$BIN" clock | sed 's/^/# after: /'
echo "# $(uptime | sed 's/^ *//')"

# ---- the table ----
stats() { # "a b c" -> "median min max"
	tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {
		printf "%s %s %s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

echo
echo "$LENGTH to /dev/null in 1 MiB writes, $ROUNDS rounds alternating, CPU time (user + system); $CPU"
printf '%-16s %10s %10s %10s %12s %9s\n' source "median ms" "min ms" "max ms" "MB/CPU-s" "x crate"
read -r crate_med _ _ < <(stats "${ms[crate]}")
for s in "${sources[@]}"; do
	read -r med lo hi < <(stats "${ms[$s]}")
	awk -v s="$s" -v med="$med" -v lo="$lo" -v hi="$hi" -v c="$crate_med" -v b="$LEN_BYTES" 'BEGIN {
		printf "%-16s %10.1f %10.1f %10.1f %12.0f %8.2fx\n", s, med, lo, hi, b / 1e6 / (med / 1e3), c / med }'
done

echo
echo "In-process, MB per CPU-second (median of $TRIALS trials of $SECONDS_PER_TRIAL s); $CPU"
printf '%-16s %10s %10s %11s %11s\n' source 64K 1M "64K x crate" "1M x crate"
c64=$(awk '{print $4}' <<<"${api[0]}")
c1m=$(awk '{print $4}' <<<"${api[1]}")
printf '%-16s %10s %10s %11s %11s\n' crate-api "$c64" "$c1m" 1.00x 1.00x
if ((RUN_CORE)); then
	awk -F, -v c64="$c64" -v c1m="$c1m" '
		$1 == "core" && $4 == 65536 { a[$2] = $11; order[++n] = $2 }
		$1 == "core" && $4 == 1048576 { b[$2] = $11 }
		END {
			for (i = 1; i <= n; i++) {
				s = order[i]
				printf "%-16s %10.0f %10.0f %10.2fx %10.2fx\n", s, a[s], b[s], a[s] / c64, b[s] / c1m
			}
		}' "$WORK/core.csv"
fi
