#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Ctrl-C on guac verify of a pipe whose writer stalls (still open, writing
# nothing): one SIGINT must end the read that waits there, and guac must
# print its report and exit 130 at once, as docs/guac.md says; before the
# fix only a third Ctrl-C ended it (the reader thread stayed in read()).
# The FIFO's write end is held by this shell (fd 3) and never written after
# the data of the case. The signal goes once guac's handler is in place and
# every thread of it sleeps (the reader in read(), the main thread waiting
# for it). A 5 s guard kills a guac that does not end. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"

tap_tmpdir
tap_cleanup() { exec 3>&-; }
trap 'exit 130' INT TERM

# blocked PID THREADS: wait, 10 s at most, until process PID catches SIGINT
# (SigCgt) and has at least THREADS threads, all asleep (state S).
blocked() {
	n=0
	while [ $n -lt 1000 ]; do
		if awk '/^SigCgt/ { exit !(substr($2, 16, 1) ~ /[2367abefABEF]/) }' \
			/proc/"$1"/status 2>/dev/null &&
		   cat /proc/"$1"/task/*/stat 2>/dev/null |
			awk -v want="$2" '{ n++; if ($3 != "S") bad = 1 } END { exit !(n >= want && !bad) }'; then
			return 0
		fi
		sleep 0.01
		n=$((n + 1))
	done
	return 1
}

# interrupt PID THREADS: one SIGINT once PID is blocked; $rc is its status,
# $ended whether it ended within 5 s (else it is killed: the guard).
interrupt() {
	blocked "$1" "$2" || echo "# pid $1 never blocked with $2 threads"
	kill -INT "$1"
	n=0
	while [ $n -lt 500 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.01
		n=$((n + 1))
	done
	ended=yes
	if kill -0 "$1" 2>/dev/null; then
		ended=no
		kill -KILL "$1" 2>/dev/null
	fi
	wait "$1"
	rc=$?
}

# json FIELD FILE: the value of "FIELD": in a one-line JSON report.
json() {
	grep -o "\"$1\":[^,}]*" "$2" | head -1 | sed 's/^[^:]*://'
}

tap_begin
fifo=$tmp/fifo
mkfifo "$fifo"
exec 3<>"$fifo"	# a writer that stays open and writes nothing

# 1. Nothing ever comes: the reader thread waits in read() from the start.
"$GUAC" verify -n 1G "$fifo" >"$tmp/o1" 2>"$tmp/e1" 3>&- &
interrupt $! 2
check "stalled pipe, no data: one SIGINT ends it within 5 s" "[ $ended = yes ]"
if [ "$rc" -eq 130 ] && grep -q '^INTERRUPTED: stopped after 0 bytes' "$tmp/o1" &&
   ! grep -qi 'error' "$tmp/o1" "$tmp/e1"; then
	ok "stalled pipe, no data: exit 130, INTERRUPTED after 0 bytes, no read error"
else
	echo "# exit status $rc" >>"$tmp/o1"
	cat "$tmp/e1" >>"$tmp/o1"
	not_ok "stalled pipe, no data: exit 130, INTERRUPTED after 0 bytes, no read error" "$tmp/o1"
fi

# 2. 1000000 good bytes, then the writer stalls mid-block (256 KiB reads):
# the bytes read before the stop are checked, nothing is a mismatch.
"$GUAC" verify -n 1G --json "$fifo" >"$tmp/o2" 2>"$tmp/e2" 3>&- &
pid=$!
# bounded: a guac that died early would leave the writer blocked on the FIFO
timeout 10 "$GUAC" gen --length 1000000 >&3
wait_read $pid 1000000
interrupt $pid 2
check "stalled pipe after 1000000 bytes: one SIGINT ends it within 5 s" "[ $ended = yes ]"
if [ "$rc" -eq 130 ] && [ "$(json result "$tmp/o2")" = '"interrupted"' ] &&
   [ "$(json bytes_checked "$tmp/o2")" = 1000000 ] && [ "$(json bad_sectors "$tmp/o2")" = 0 ] &&
   [ ! -s "$tmp/e2" ]; then
	ok "stalled pipe after 1000000 bytes: exit 130, JSON interrupted, all 1000000 checked"
else
	echo "# exit status $rc" >>"$tmp/o2"
	cat "$tmp/e2" >>"$tmp/o2"
	not_ok "stalled pipe after 1000000 bytes: exit 130, JSON interrupted, all 1000000 checked" "$tmp/o2"
fi

# 3. --seek: the bytes before the data are dropped on the main thread, which
# the stall holds there; the signal ends that read too.
"$GUAC" verify -n 1G --seek 1M "$fifo" >"$tmp/o3" 2>"$tmp/e3" 3>&- &
interrupt $! 1
check "stalled pipe while dropping --seek bytes: exit 130 within 5 s, INTERRUPTED" \
	"[ $ended = yes ] && [ $rc -eq 130 ] && grep -q '^INTERRUPTED: stopped after 0 bytes' '$tmp/o3' && [ ! -s '$tmp/e3' ]"

# 4. The data that follows a pause is still read and checked: no stop, no
# error, whatever wakes the reader meanwhile.
"$GUAC" verify -n 2M "$fifo" >"$tmp/o4" 2>"$tmp/e4" 3>&- &
pid=$!
{ "$GUAC" gen -n 1M; sleep 0.3; "$GUAC" gen --offset 1M -n 1M; } >&3
wait $pid
rc=$?
check "a pipe that pauses and resumes: exit 0, OK 2097152 bytes" \
	"[ $rc -eq 0 ] && grep -q '^OK: 2097152 bytes' '$tmp/o4'"

tap_end
