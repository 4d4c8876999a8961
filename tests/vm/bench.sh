#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-VM benchmark proxy (never pass/fail): /dev/guac read throughput at
# 64 KiB and 1 MiB requests over `guac gen` with the same implementation in
# the same guest, and over /dev/urandom. Under TCG only the ratios mean
# anything, and a busy host disturbs even those: the figures are taken in
# interleaved rounds, each ratio within one round, and the medians reported.
# Output lines start with "# bench:" (TAP comments).
#
# With guacvm.bench=reads on the kernel command line (tests/vm/bench-reads.sh,
# never make check) it measures instead what one small read costs (`guac
# bench small`: /dev/guac against /dev/zero, /dev/urandom, getrandom and the
# core in-process) and 1 against 2 readers of /dev/guac, of one shared open
# file and of one each (`guac bench parallel`), in this guest.
if grep -qw 'guacvm.bench=reads' /proc/cmdline; then
	echo "# bench: reads on $(uname -r), $(nproc) CPUs, implementation $(cat /sys/class/misc/guac/implementation)"
	guac bench small --seconds 0.2 --trials 5 2>&1 | sed 's/^/# bench: /'
	guac bench parallel --threads 1,2 --seconds 0.5 --trials 7 2>&1 | sed 's/^/# bench: /'
	exit 0
fi
rounds=${GUAC_BENCH_ROUNDS:-7}
total=${GUAC_BENCH_TOTAL:-16M}
impl=$(cat /sys/class/misc/guac/implementation) || exit 1

mbps() {
	guac-vmtest bench --repeat 1 --total "$total" "$@" || echo 0
}

i=0
while [ "$i" -lt "$rounds" ]; do
	echo "$(mbps --gen "$impl") $(mbps --request 64K) $(mbps --request 1M) \
$(mbps --file /dev/urandom --request 1M)"
	i=$((i + 1))
done | awk -v impl="$impl" -v total="$total" -v rounds="$rounds" '
function median(list, n,    i, j, t) {
	for (i = 2; i <= n; i++)	# insertion sort: n is small
		for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
			t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
		}
	return n % 2 ? list[(n + 1) / 2] : (list[n / 2] + list[n / 2 + 1]) / 2
}
function ratio(a, b) { return b > 0 ? a / b : 0 }
{
	n++
	gen[n] = $1; d64[n] = $2; d1m[n] = $3; ur[n] = $4
	r64g[n] = ratio($2, $1); r1mg[n] = ratio($3, $1)
	r64u[n] = ratio($2, $4); r1mu[n] = ratio($3, $4)
}
END {
	printf "# bench: implementation %s; medians of %d interleaved rounds of %s per figure; MB/s = 10^6 bytes/s\n", impl, n, total
	printf "# bench: guac gen --impl %-7s %8.1f MB/s\n", impl, median(gen, n)
	printf "# bench: /dev/urandom 1 MiB reads %8.1f MB/s\n", median(ur, n)
	printf "# bench: /dev/guac 64 KiB reads   %8.1f MB/s  /guac gen %.2f  /urandom %.2f\n", median(d64, n), median(r64g, n), median(r64u, n)
	printf "# bench: /dev/guac 1 MiB reads    %8.1f MB/s  /guac gen %.2f  /urandom %.2f\n", median(d1m, n), median(r1mg, n), median(r1mu, n)
}'
