#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The shards of one file, written at once (several hosts on a clustered file
# system, or Slurm array tasks; issue 24): each guac write locks only its
# shard's bytes, so the shards run together and merge into a fill that
# verifies, while a second write of the same shard at the same time is still
# refused without writing anything. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

tap_begin
f=$tmp/lun
pids=""
for k in 0 1 2 3; do
	"$GUAC" write --sync --length 1G --shard $k/4 --origin 51 -m "$tmp/p$k.json" "$f" \
		>"$tmp/o$k" 2>&1 &
	pids="$pids $!"
	[ $k -eq 2 ] && pid2=$!
done
# While shard 2's writer holds its lock (its manifest says running: it is
# written after the lock is taken), the same shard again is refused.
n=0
while [ $n -lt 1000 ] && ! grep -qs '"status": "running"' "$tmp/p2.json"; do
	sleep 0.01
	n=$((n + 1))
done
"$GUAC" write --length 1G --shard 2/4 --origin 52 -m "$tmp/again.json" "$f" >"$tmp/again" 2>&1
rc=$?
check "shard 2's writer still ran during the second attempt (the test is sound)" "kill -0 $pid2 2>/dev/null"
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
check "four shards of one file written at once all succeed" "[ $fails -eq 0 ]"
check "... a second write of shard 2 meanwhile was refused (exit 2, nothing written)" \
	"[ $rc -eq 2 ] && grep -q 'being written by another guac write (it holds the lock of bytes 536870912-805306367' '$tmp/again' && [ ! -e '$tmp/again.json' ]" ||
	sed 's/^/# /' "$tmp/again"
"$GUAC" manifest merge "$tmp/w.json" "$tmp"/p[0-3].json >"$tmp/m" 2>&1
check "the parts merge" "[ \$? -eq 0 ]"
"$GUAC" verify -m "$tmp/w.json" >"$tmp/v" 2>&1
check "the whole verifies OK" "[ \$? -eq 0 ] && grep -q '^OK' '$tmp/v'"
check "... and is guac gen's stream byte for byte" "'$GUAC' gen --origin 51 --length 1G | cmp -s - '$f'"
tap_end
