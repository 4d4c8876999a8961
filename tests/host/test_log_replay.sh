#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guac-vmtest log-replay (the crash checks' replay of dm-log-writes' log) on
# a log written here by a second, independent writer of the format
# (make_log below, from the kernel's log-writes.rst): two blocks sizes, data
# entries, a flush, a discard and marks; replaying to every entry must give
# the image the writes up to it make, --drop must leave exactly that write
# out (each of them, repeated) and --tear write only its head; a log without the magic is refused.
# Runs on the host: the log is a file, the device an image. TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
vmtest=${GUAC_VMTEST:-$top/build/vm/guac-vmtest}
tap_tmpdir

# make_log DIR BS: DIR/log, DIR/img.K for K = 0..N, the image after the
# first K entries (from zeros), DIR/img.drop5, after all but entry 5, and
# DIR/img.drop58, after all but entries 5 and 8; prints N.
make_log() {
	python3 - "$1" "$2" <<'PY'
import struct, sys, random
d, bs = sys.argv[1], int(sys.argv[2])
rng = random.Random(bs)
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
size = 64 * bs
entries = []        # (sector, nr_sectors, flags, payload)
for k in range(12):
    if k == 4:
        entries.append((0, 0, FLUSH, b""))
    elif k == 7:
        entries.append((0, 0, MARK, b"half"))
    elif k == 9:
        entries.append((rng.randrange(56), 3, DISCARD, b""))
    else:
        n = rng.randint(1, 8)
        s = rng.randrange(64 - n)
        entries.append((s, n, FUA if k % 3 == 0 else 0, bytes(rng.getrandbits(8) for _ in range(n * bs))))
entries.append((0, 0, MARK, b"dm-log-writes-end"))
log = bytearray(struct.pack("<QQQI", 0x6a736677736872, 1, len(entries), bs).ljust(bs, b"\0"))
img = bytearray(size)
drop5 = bytearray(size)     # every entry but entry 5, a data write
drop58 = bytearray(size)    # and but entry 8, another
open("%s/img.0" % d, "wb").write(img)
for k, (s, n, f, p) in enumerate(entries):
    for im in [img] + ([drop5] if k != 5 else []) + ([drop58] if k not in (5, 8) else []):
        if f & DISCARD:
            im[s * bs:(s + n) * bs] = bytes(n * bs)
        elif n:
            im[s * bs:(s + n) * bs] = p
    head = struct.pack("<QQQQ", s, n, f, len(p))
    if f & MARK:
        log += (head + p).ljust(bs, b"\0")
    else:
        log += head.ljust(bs, b"\0")
        if not f & DISCARD:
            log += p
    open("%s/img.%d" % (d, k + 1), "wb").write(img)
open("%s/img.drop5" % d, "wb").write(drop5)
open("%s/img.drop58" % d, "wb").write(drop58)
open("%s/log" % d, "wb").write(log)
print(len(entries))
PY
}

tap_begin
for bs in 512 4096; do
	d=$tmp/$bs
	mkdir "$d"
	n=$(make_log "$d" "$bs")
	bad=""
	k=0
	while [ "$k" -le "$n" ]; do
		cp "$d/img.0" "$d/dev"
		"$vmtest" log-replay "$d/log" "$d/dev" --limit "$k" >"$d/out" 2>&1 &&
			cmp -s "$d/dev" "$d/img.$k" || bad="$bad $k"
		k=$((k + 1))
	done
	check "bs $bs: replaying the first K of $n entries gives the image after K, for every K" \
		"[ -z '$bad' ]"
	"$vmtest" log-replay "$d/log" "$d/dev" --list >"$d/list"
	check "bs $bs: --list names every entry, the flush, the discard and both marks" \
		"[ \$(wc -l <'$d/list') -eq $n ] && grep -q '^entry 4: .*FLUSH' '$d/list' &&
		 grep -q '^entry 9: .*DISCARD' '$d/list' && grep -q '^entry 7: .*mark half\$' '$d/list' &&
		 grep -q 'mark dm-log-writes-end\$' '$d/list'"
	cp "$d/img.0" "$d/dev"
	"$vmtest" log-replay "$d/log" "$d/dev" --drop 5 >/dev/null
	check "bs $bs: --drop 5 gives the image of every entry but 5 (not the whole one)" \
		"cmp -s '$d/dev' '$d/img.drop5' && ! cmp -s '$d/dev' '$d/img.$n'"
	cp "$d/img.0" "$d/dev"
	"$vmtest" log-replay "$d/log" "$d/dev" --drop 5 --drop 8 >/dev/null
	check "bs $bs: --drop 5 --drop 8 gives the image of every entry but those two" \
		"cmp -s '$d/dev' '$d/img.drop58' && ! cmp -s '$d/dev' '$d/img.drop5'"
	cp "$d/img.0" "$d/dev"
	"$vmtest" log-replay "$d/log" "$d/dev" --limit 2 --tear 1:100 >/dev/null
	s=$(sed -n 's/^entry 1: sector \([0-9]*\),.*/\1/p' "$d/list")
	check "bs $bs: --tear 1:100 writes the first 100 bytes of entry 1, not the rest" \
		"cmp -s -n $((s * bs + 100)) '$d/dev' '$d/img.2' &&
		 ! cmp -s -n $((s * bs + bs)) '$d/dev' '$d/img.2'"
done
head -c 4096 /dev/zero >"$tmp/notalog"
"$vmtest" log-replay "$tmp/notalog" "$tmp/512/dev" >"$tmp/out" 2>&1
check "a log without the magic: refused (exit 1), saying so" \
	"[ \$? -eq 1 ] && grep -q 'no dm-log-writes super block' '$tmp/out'"
tap_end
