#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac probe (issue 37, item 5) on image files made into fake-capacity drives
# by shims/fake_capacity.c: addresses that wrap (at a power of two, at a
# multiple of the first round's spacing), writes lost past a size (reads old
# data, or zeros), one bad spot (no size limit), and a genuine image, which
# must not raise an alarm. Every verdict is checked against what the shim
# does, every probe must leave the image as it was (the blocks written back in
# reverse order undo aliased writes too), Ctrl-C included; --destructive
# leaves its blocks; bad input is refused with nothing written. The VM suite
# (tests/vm/scenarios/72-probe.sh) does the same on device-mapper devices.
# TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
shims=$(cd "$(dirname "$0")/../shims" && pwd)
CC=${CC:-cc}

tap_begin
if ! $CC -shared -fPIC -o "$tmp/fake.so" "$shims/fake_capacity.c" -ldl 2>"$tmp/cc.err"; then
	not_ok "build the fake-capacity shim" "$tmp/cc.err"
	tap_end
	exit
fi
img=$tmp/drive.img
"$GUAC" gen --origin 7 --length 64M >"$img"
sum=$(md5sum <"$img")
ino=$(stat -c %i "$img")

# probe NAME [ENV=VALUE...]: guac probe of the image under the shim with
# these settings; output in $tmp/NAME.out, exit status in $tmp/NAME.rc.
probe() {
	local name=$1 rc=0
	shift
	env LD_PRELOAD="$tmp/fake.so" FAKE_INO="$ino" "$@" "$GUAC" probe "$img" \
		>"$tmp/$name.out" 2>&1 || rc=$?
	echo "$rc" >"$tmp/$name.rc"
	sed 's/^/# /' "$tmp/$name.out"
}
rc() { [ "$(cat "$tmp/$1.rc")" = "$2" ]; }
says() { grep -qF "$2" "$tmp/$1.out"; }
unchanged() { [ "$(md5sum <"$img")" = "$sum" ]; }

probe genuine
check "a genuine image: GENUINE, exit 0" 'rc genuine 0 && says genuine "GENUINE: all "'
check "... and it holds what it held before" unchanged

probe wrap16 FAKE_WRAP=$((16 << 20))
check "addresses wrap at 16 MiB of 64: FAKE CAPACITY, exit 1" \
	'rc wrap16 1 && says wrap16 "FAKE CAPACITY: addresses wrap every 16777216 bytes"'
check "... usable: the first 16 MiB, and the sfdisk line to keep to them" \
	'says wrap16 "usable: the first 16777216 bytes (16.00 MiB) of the 67108864 claimed" &&
	 says wrap16 "start=2048, size=30720'"'"' | sfdisk --label dos"'
check "... and the writes that aliased are undone: the image as it was" unchanged

probe wrap24 FAKE_WRAP=$((24 << 20))
check "addresses wrap at 24 MiB (not a power of two, a multiple of the spacing): the period" \
	'rc wrap24 1 && says wrap24 "addresses wrap every 25165824 bytes"'
check "... the image as it was" unchanged

probe drop FAKE_DROP=$((40 * 1048576 + 12288))
check "writes lost from 40 MiB + 12 KiB on (reads old data): the limit to the block, exit 1" \
	'rc drop 1 && says drop "from byte 41955328 on, every probe block lost what was written (the first held what it held before: the write was dropped)" &&
	 says drop "usable: the first 41955328 bytes"'
check "... in more than one round (the boundary refined)" \
	'! says drop "in 1 rounds"'
check "... the image as it was" unchanged

probe zeros FAKE_DROP=$((8 * 1048576)) FAKE_DROP_READS=zeros
check "lost from 8 MiB on, reading zeros: the limit, and what the blocks held" \
	'rc zeros 1 && says zeros "from byte 8388608 on" && says zeros "nothing: all 0x00 or all 0xff"'

probe bad FAKE_BAD=$((32 * 1048576))
check "one bad block at 32 MiB with good ones after it: DAMAGED, not a size limit" \
	'rc bad 1 && says bad "DAMAGED: the block at byte 33554432" && ! says bad "FAKE CAPACITY"'
check "... the image as it was" unchanged

# Ctrl-C: the blocks written so far are written back; exit 130.
env LD_PRELOAD="$tmp/fake.so" FAKE_INO="$ino" FAKE_SLOW_NS=20000000 "$GUAC" probe "$img" \
	>"$tmp/int.out" 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
echo "$?" >"$tmp/int.rc"
sed 's/^/# /' "$tmp/int.out"
check "SIGINT mid-probe: INTERRUPTED, exit 130, every block written back" \
	'rc int 130 && says int "INTERRUPTED" && says int "every block written back"'
check "... the image as it was" unchanged

"$GUAC" probe --destructive "$img" >"$tmp/destr.out" 2>&1
echo "$?" >"$tmp/destr.rc"
check "--destructive: GENUINE, and its probe blocks stay on the image" \
	'rc destr 0 && says destr "left on the device (--destructive)" && ! unchanged'

# Refusals: nothing written, exit 2.
"$GUAC" gen --length 64M >"$img"
sum=$(md5sum <"$img")
for args in "$tmp/missing.img" "/dev/null" "$tmp" "--force $img" "--block 1000 $img" "$img $img"; do
	# shellcheck disable=SC2086 # the arguments are a list
	"$GUAC" probe $args >"$tmp/ref.out" 2>&1
	echo "$?" >"$tmp/ref.rc"
	check "guac probe $args: refused, exit 2, with a message" \
		'rc ref 2 && [ -s "$tmp/ref.out" ] && [ ! -e "$tmp/missing.img" ] && unchanged'
done
if command -v mkfs.ext4 >/dev/null; then
	truncate -s 64M "$tmp/fs.img"
	mkfs.ext4 -q -F "$tmp/fs.img" >/dev/null 2>&1
	fsum=$(md5sum <"$tmp/fs.img")
	"$GUAC" probe --destructive "$tmp/fs.img" >"$tmp/fs.out" 2>&1
	echo "$?" >"$tmp/fs.rc"
	check "--destructive on an ext4 image: refused unless --force, naming what it holds" \
		'rc fs 2 && says fs "ext4" && [ "$(md5sum <"$tmp/fs.img")" = "$fsum" ]'
	"$GUAC" probe "$tmp/fs.img" >"$tmp/fs.out" 2>&1
	echo "$?" >"$tmp/fs.rc"
	check "... without --destructive it is probed and left as it was" \
		'rc fs 0 && [ "$(md5sum <"$tmp/fs.img")" = "$fsum" ]'
else
	not_ok "mkfs.ext4 is missing (e2fsprogs: scripts/install-deps.sh)"
fi
tap_end
