#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac bench in its quick mode: every suite runs, the JSON and CSV parse and
# hold a row for every source (measured, or absent when this machine lacks
# it, never a zero), the plot is a PNG, and bad options are refused. The
# core suite has its yardsticks (ChaCha20, AES-128-CTR, memcpy), each other
# row with its ratio to ChaCha20; the kpath suite has its inplace and bounce
# rows, bounce with its ratio; the small suite has ns per call for every
# source and size with the ratios to /dev/zero, and says whether glibc's
# getrandom is the vDSO; the parallel suite has 1 and 2 threads with the
# throughput per thread and the scaling efficiency.
# Benchmarks measure; nothing here judges a speed. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

# query FILE PYTHON-EXPRESSION: evaluate over the parsed JSON document `d`.
query() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# is_true FILE PYTHON-EXPRESSION: succeed if the expression is True.
is_true() { [ "$(query "$1" "$2")" = True ]; }

# status FILE SUITE SOURCE: the distinct statuses of that source's rows.
status() {
	query "$1" "' '.join(sorted({r['status'] for r in d['results'] if r['suite'] == '$2' and r['source'] == '$3'}))"
}

# positive FILE SUITE SOURCE: every row of that source measured, with a median > 0.
positive() {
	is_true "$1" "all(r['status'] == 'ok' and r['median'] > 0 for r in d['results'] if r['suite'] == '$2' and r['source'] == '$3') and any(r['source'] == '$3' for r in d['results'])"
}

has_flag() { grep -qw "$1" /proc/cpuinfo; }
# The /proc/cpuinfo flag of an instruction: its name, but arm64's "rng" for RNDR and RNDRRS.
insn_flag() {
	case $1 in
	rndr | rndrrs) echo rng ;;
	*) echo "$1" ;;
	esac
}

quick="--seconds 0.02 --trials 3 --sizes 64,64K --threads 1,2"

tap_begin
check "bench core --json runs" "\"$GUAC\" bench core $quick --json >\"$tmp/core.json\""
check "core JSON parses" "query \"$tmp/core.json\" 'len(d[\"results\"])' >/dev/null"
for impl in $guac_impls; do
	if "$GUAC" gen --impl "$impl" --length 0 2>/dev/null; then
		check "core: guac-$impl measured at every size and thread count" \
			"[ \"\$(query \"$tmp/core.json\" \"sum(1 for r in d['results'] if r['source'] == 'guac-$impl' and r['status'] == 'ok')\")\" = 4 ] && positive \"$tmp/core.json\" core guac-$impl"
		check "core: guac-$impl has its ratio to chacha20" \
			"is_true \"$tmp/core.json\" \"all(r['ratio'] > 0 and r['ratio_to'] == 'chacha20-evp' for r in d['results'] if r['source'] == 'guac-$impl')\""
	else
		check "core: guac-$impl is absent on this CPU, not zero" \
			"[ \"\$(status \"$tmp/core.json\" core guac-$impl)\" = absent ]"
	fi
done
check "core: chacha20-evp measured" "positive \"$tmp/core.json\" core chacha20-evp"
for yardstick in aes128-ctr-evp memcpy; do
	check "core: $yardstick measured at every size and thread count" \
		"[ \"\$(query \"$tmp/core.json\" \"sum(1 for r in d['results'] if r['source'] == '$yardstick' and r['status'] == 'ok')\")\" = 4 ] && positive \"$tmp/core.json\" core $yardstick"
	check "core: $yardstick has its ratio to chacha20, per CPU-second" \
		"is_true \"$tmp/core.json\" \"all(r['ratio'] > 0 and r['ratio_to'] == 'chacha20-evp' and abs(r['ratio'] - r['per_cpu_second'] / [c['per_cpu_second'] for c in d['results'] if c['source'] == 'chacha20-evp' and c['size'] == r['size'] and c['threads'] == r['threads']][0]) < 1e-3 * r['ratio'] for r in d['results'] if r['source'] == '$yardstick')\""
done
check "core: chacha20-evp, the reference, has no ratio" \
	"is_true \"$tmp/core.json\" \"all(r['ratio'] is None and r['ratio_to'] is None for r in d['results'] if r['source'] == 'chacha20-evp')\""
check "core: min <= median <= max everywhere" \
	"is_true \"$tmp/core.json\" \"all(r['min'] <= r['median'] <= r['max'] for r in d['results'] if r['status'] == 'ok')\""
check "core: every measured row has its rate per CPU-second" \
	"is_true \"$tmp/core.json\" \"all(r['per_cpu_second'] > 0 for r in d['results'] if r['status'] == 'ok')\""
check "JSON names the machine" "query \"$tmp/core.json\" 'd[\"machine\"][\"cpu\"]' | grep -q ."

check "bench dev --json runs" "\"$GUAC\" bench dev --seconds 0.02 --trials 1 --sizes 4K --threads 1 --json >\"$tmp/dev.json\""
if [ -e /dev/guac ]; then
	check "dev: /dev/guac measured" "positive \"$tmp/dev.json\" dev /dev/guac"
else
	check "dev: missing /dev/guac reported absent" "[ \"\$(status \"$tmp/dev.json\" dev /dev/guac)\" = absent ]"
fi
check "dev: /dev/urandom measured" "positive \"$tmp/dev.json\" dev /dev/urandom"
check "dev: getrandom measured" "positive \"$tmp/dev.json\" dev getrandom"

check "bench hwrng --json runs" "\"$GUAC\" bench hwrng --seconds 0.02 --trials 1 --sizes 64 --threads 1 --json >\"$tmp/hwrng.json\""
for insn in $guac_insns; do
	if has_flag "$(insn_flag "$insn")"; then
		check "hwrng: $insn has ns per word, success rate and retries" \
			"is_true \"$tmp/hwrng.json\" \"all(r['ns_per_word'] > 0 and 0 < r['success_rate'] <= 1 and r['retries_per_word'] >= 0 for r in d['results'] if r['source'] == '$insn')\" && positive \"$tmp/hwrng.json\" hwrng $insn"
	else
		check "hwrng: $insn absent on this CPU" "[ \"\$(status \"$tmp/hwrng.json\" hwrng $insn)\" = absent ]"
	fi
done

check "bench nonce --json runs" "\"$GUAC\" bench nonce --seconds 0.02 --trials 1 --json >\"$tmp/nonce.json\""
check "nonce: getrandom per-value and amortized latencies" \
	"[ \"\$(query \"$tmp/nonce.json\" \"sorted(r['mode'] for r in d['results'] if r['source'] == 'getrandom' and r['unit'] == 'ns/value' and r['median'] > 0)\")\" = \"['amortized', 'per-value']\" ]"

best=$("$GUAC" bench core --seconds 0.01 --trials 1 --sizes 64 --threads 1 --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["best_impl"])')
check "bench kpath runs (table)" \
	"\"$GUAC\" bench kpath --seconds 0.02 --trials 1 --sizes 4K,64K --threads 1 >\"$tmp/kpath.txt\""
check "kpath table: an inplace row per size, with the best implementation" \
	"[ \$(grep -Ec '^kpath +inplace +$best +(4K|64K) +1 ' \"$tmp/kpath.txt\") = 2 ]"
check "kpath table: a bounce row per size, with its ratio to inplace" \
	"[ \$(grep -Ec '^kpath +bounce +$best +(4K|64K) +1 .* [0-9]+\.[0-9]+x inplace\$' \"$tmp/kpath.txt\") = 2 ]"
check "kpath --csv has both rows, bounce with its ratio to inplace" \
	"\"$GUAC\" bench kpath --seconds 0.02 --trials 1 --sizes 64K --threads 1 --csv >\"$tmp/kpath.csv\" && head -n 1 \"$tmp/kpath.csv\" | grep -q ',per_cpu_second,ratio,ratio_to,' && grep -Eq '^kpath,inplace,$best,65536,1,ok,([^,]*,){5},,' \"$tmp/kpath.csv\" && grep -Eq '^kpath,bounce,$best,65536,1,ok,([^,]*,){5}[0-9.]+,inplace,' \"$tmp/kpath.csv\" && [ \$(grep -c '^kpath,' \"$tmp/kpath.csv\") = 2 ]"
check "bench kpath --json runs with its default sizes" \
	"\"$GUAC\" bench kpath --seconds 0.01 --trials 1 --threads 1 --json >\"$tmp/kpath.json\""
check "kpath: default sizes 4K, 64K, 1M for both sources" \
	"[ \"\$(query \"$tmp/kpath.json\" \"sorted((r['source'], r['size']) for r in d['results'] if r['status'] == 'ok')\")\" = \"[('bounce', 4096), ('bounce', 65536), ('bounce', 1048576), ('inplace', 4096), ('inplace', 65536), ('inplace', 1048576)]\" ]"
check "kpath: every bounce row has a ratio to inplace per CPU-second" \
	"is_true \"$tmp/kpath.json\" \"all(r['ratio'] > 0 and r['ratio_to'] == 'inplace' and abs(r['ratio'] - r['per_cpu_second'] / [c['per_cpu_second'] for c in d['results'] if c['source'] == 'inplace' and c['size'] == r['size']][0]) < 1e-3 * r['ratio'] for r in d['results'] if r['source'] == 'bounce')\""
check "kpath --impl generic uses it" \
	"\"$GUAC\" bench kpath --impl generic --seconds 0.01 --trials 1 --sizes 4K --threads 1 --csv | grep -c '^kpath,[a-z]*,generic,4096,1,ok,' | grep -qx 2"
check "bench all includes kpath" \
	"\"$GUAC\" bench all --seconds 0.01 --trials 1 --sizes 4K --threads 1 --csv | grep -c '^kpath,' | grep -qx 2"

check "bench small --json runs" \
	"\"$GUAC\" bench small --seconds 0.01 --trials 1 --json >\"$tmp/small.json\""
check "small: default sizes 4, 16, 64, 256, 4K for /dev/zero" \
	"[ \"\$(query \"$tmp/small.json\" \"[r['size'] for r in d['results'] if r['source'] == '/dev/zero' and r['status'] == 'ok' and r['median'] > 0 and r['cpu_ns_per_call'] > 0]\")\" = '[4, 16, 64, 256, 4096]' ]"
for src in getrandom-libc getrandom-sys /dev/urandom guac_stream_fill; do
	check "small: $src measured at every size, with its ratio to /dev/zero" \
		"is_true \"$tmp/small.json\" \"sum(1 for r in d['results'] if r['source'] == '$src' and r['status'] == 'ok' and r['median'] > 0 and r['vs_dev_zero'] > 0) == 5\""
done
check "small: glibc's getrandom says vdso or syscall, and its row agrees" \
	"is_true \"$tmp/small.json\" \"d['machine']['libc_getrandom'] in ('vdso', 'syscall') and all(r['mode'] == d['machine']['libc_getrandom'] for r in d['results'] if r['source'] == 'getrandom-libc')\""
check "small: the vDSO getrandom is measured or absent with a reason, never zero" \
	"is_true \"$tmp/small.json\" \"all((r['status'] == 'ok' and r['median'] > 0) or (r['status'] == 'absent' and r['why']) for r in d['results'] if r['source'] == 'getrandom-vdso')\""
if [ -e /dev/guac ]; then
	check "small: /dev/guac measured" \
		"is_true \"$tmp/small.json\" \"all(r['status'] == 'ok' and r['median'] > 0 for r in d['results'] if r['source'] == '/dev/guac')\""
else
	check "small: missing /dev/guac reported absent" \
		"is_true \"$tmp/small.json\" \"all(r['status'] == 'absent' for r in d['results'] if r['source'] == '/dev/guac')\""
fi
check "bench small prints its rows (table, --sizes)" \
	"\"$GUAC\" bench small --seconds 0.01 --trials 1 --sizes 16 >\"$tmp/small.txt\" && grep -q '^# guac bench small on .*(family [0-9]*, model [0-9]*, stepping' \"$tmp/small.txt\" && grep -Eq '^small +/dev/zero +read +16 ' \"$tmp/small.txt\" && grep -Eq '^small +guac_stream_fill +[a-z0-9]+ +16 ' \"$tmp/small.txt\""
check "bench small --csv has one row per source" \
	"\"$GUAC\" bench small --seconds 0.01 --trials 1 --sizes 64 --csv >\"$tmp/small.csv\" && head -n 1 \"$tmp/small.csv\" | grep -q '^suite,source,mode,size,status,ns_per_call,' && [ \$(grep -c '^small,' \"$tmp/small.csv\") = 7 ]"
check "bench parallel --json runs" \
	"\"$GUAC\" bench parallel --seconds 0.02 --trials 1 --threads 1,2 --sizes 64K --json >\"$tmp/par.json\""
check "parallel: guac_stream_fill and /dev/zero at 1 and 2 threads, per thread and scaling" \
	"is_true \"$tmp/par.json\" \"all(sorted(r['threads'] for r in d['results'] if r['source'] == s and r['status'] == 'ok' and r['median'] > 0 and r['per_thread'] > 0 and r['efficiency'] > 0) == [1, 2] for s in ('guac_stream_fill', 'zero-own-fd'))\""
for src in guac-own-fd guac-shared-pread guac-shared-read; do
	if [ -e /dev/guac ]; then
		check "parallel: $src measured" \
			"is_true \"$tmp/par.json\" \"sum(1 for r in d['results'] if r['source'] == '$src' and r['status'] == 'ok' and r['median'] > 0) == 2\""
	else
		check "parallel: $src absent without /dev/guac" \
			"is_true \"$tmp/par.json\" \"[r['status'] for r in d['results'] if r['source'] == '$src'] == ['absent']\""
	fi
done
check "bench parallel prints its rows (table, default 1M)" \
	"\"$GUAC\" bench parallel --seconds 0.01 --trials 1 --threads 1,2 >\"$tmp/par.txt\" && [ \$(grep -Ec '^parallel +guac_stream_fill +[a-z0-9]+ +1M +[12] ' \"$tmp/par.txt\") = 2 ]"
check "bench parallel --impl generic uses it" \
	"\"$GUAC\" bench parallel --impl generic --seconds 0.01 --trials 1 --threads 1 --csv | grep -q '^parallel,guac_stream_fill,generic,1048576,1,ok,'"

# A row per implementation and the three yardsticks (ChaCha20, AES-CTR, memcpy).
core_rows=$(($(echo $guac_impls | wc -w) + 3))
check "bench --csv has the header and one line per row" \
	"\"$GUAC\" bench core --seconds 0.02 --trials 1 --sizes 1K --threads 1 --csv >\"$tmp/core.csv\" && head -n 1 \"$tmp/core.csv\" | grep -q '^suite,source,mode,size,threads,status,median,min,max,unit,' && [ \$(grep -c '^core,' \"$tmp/core.csv\") = $core_rows ]"
check "bench table names the trials" \
	"\"$GUAC\" bench core --seconds 0.02 --trials 1 --sizes 1K --threads 1 | grep -q 'median \[min, max\] of 1 trials'"
check "--plot writes a PNG" \
	"\"$GUAC\" bench core $quick --plot \"$tmp/p.png\" >/dev/null && [ \"\$(od -An -tx1 -N8 \"$tmp/p.png\" | tr -d ' ')\" = 89504e470d0a1a0a ]"

for bad in "--sizes 0" "--sizes 2G" "--threads 0" "--seconds 0" "--seconds x" "--trials 1.5" \
	"--csv --json" "nosuch" "core extra" "kpath --impl nosuch" "core --impl generic" \
	"small --threads 2" "small --plot x.png" "small --sizes 0" "small extra" \
	"parallel --plot x.png" "parallel --threads 0" "parallel --impl nosuch"; do
	# shellcheck disable=SC2086
	check "refused: bench $bad (exit 2)" "\"$GUAC\" bench $bad --seconds 0.01 >/dev/null 2>&1; [ \$? = 2 ]"
done
# Buffers beyond the machine's memory (two of 1 GiB a thread for 1024 threads,
# 2 TiB) are refused before any is taken, with the numbers (guac write's and
# verify's check). ulimit -v and timeout keep a bench that ran anyway harmless.
mem=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
for s in core parallel; do
	(ulimit -v 4194304; timeout 60 "$GUAC" bench $s --sizes 1G --threads 1024 --seconds 0.01 \
		--trials 1) >/dev/null 2>"$tmp/e"
	rc=$?
	check "refused: bench $s --sizes 1G --threads 1024 on $mem bytes of memory (exit 2, numbers named)" \
		"[ $mem -ge 2199023255552 ] || { [ $rc -eq 2 ] && grep -q 'refusing to bench: 1024 threads at size 1073741824 need 2199023255552 bytes (2.00 TiB) .* memory, $mem bytes' '$tmp/e'; }"
done
check "--help explains and exits 0" "\"$GUAC\" bench --help | grep -q 'is reported as absent, never as'"
check "--help describes kpath" "\"$GUAC\" bench --help | grep -q 'kpath .*read path'"
check "--help describes small and parallel" \
	"\"$GUAC\" bench --help >\"$tmp/help2.txt\" && grep -q '^  small  ns per call' \"$tmp/help2.txt\" && grep -q '^  parallel  ' \"$tmp/help2.txt\""
check "--help names the core yardsticks" \
	"\"$GUAC\" bench --help >\"$tmp/help.txt\" && grep -q 'chacha20-evp' \"$tmp/help.txt\" && grep -q 'aes128-ctr-evp' \"$tmp/help.txt\" && grep -q '(memcpy, the cache and memory ceiling)' \"$tmp/help.txt\""

tap_end
