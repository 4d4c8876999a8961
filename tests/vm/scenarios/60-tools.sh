# SPDX-License-Identifier: GPL-2.0
# The userspace tools against the devices themselves: guac verify reads
# /dev/guac and finds the stream, guac bench measures both devices (present,
# not "absent"), and the statistical scripts users run pass on them.

guac_loaded || guac_load

check "guac verify --length 32M /dev/guac: OK" sh -c 'guac verify --length 32M /dev/guac'
check "guac verify finds a stream written with dd skip= at its offset" sh -c '
	dd if=/dev/guac bs=1M skip=77 count=8 of=/tmp/seg.bin 2>/dev/null &&
	guac verify --offset 77M /tmp/seg.bin'
check "guac verify on a wrong offset reports a mismatch (exit 1)" sh -c '
	guac verify --offset 78M /tmp/seg.bin; [ $? = 1 ]'
rm -f /tmp/seg.bin

# bench_ok CSV SOURCE: the CSV has a measured ("ok") row for SOURCE.
bench_ok() {
	awk -F, -v src="$2" '$2 == src && $6 == "ok" { found = 1 } END { exit !found }' "$1"
}

check "guac bench dev measures /dev/guac and /dev/hwrng" sh -c '
	guac bench dev --sizes 64K --threads 1 --seconds 0.2 --csv >/tmp/bench.csv'
cat /tmp/bench.csv | tap_comment
check "guac bench: /dev/guac measured, not absent" bench_ok /tmp/bench.csv /dev/guac
check "guac bench: /dev/hwrng measured, not absent" bench_ok /tmp/bench.csv /dev/hwrng
rm -f /tmp/bench.csv

check "scripts/dieharder.sh /dev/guac --quick" sh /tests/dieharder.sh /dev/guac --quick
check "scripts/rngtest.sh /dev/hwrng" sh /tests/rngtest.sh /dev/hwrng
check "scripts/rngtest.sh /dev/guac" sh /tests/rngtest.sh /dev/guac
