#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac bench ends each trial on time though a source blocks and the wall
# clock is stepped (issue 40): a trial's worker that sits in a read of a
# slow /dev/hwrng is signalled until it returns, on a deadline of the
# monotonic clock. A shim makes /dev/hwrng a FIFO that never delivers a
# byte and reads CLOCK_REALTIME an hour ahead of the kernel's, as after a
# step back: a wait on a wall-clock deadline then lies an hour away, and the
# trial hangs. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
CC=${CC:-cc}

cat >"$tmp/stall.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* /dev/hwrng: a FIFO opened for reading and writing, so open does not
 * block and read does, for ever. */
static const char *redirect(const char *path)
{
	const char *fifo = getenv("STALL_FIFO");

	return fifo && !strcmp(path, "/dev/hwrng") ? fifo : path;
}

static int fix_flags(const char *path, int flags)
{
	return path == getenv("STALL_FIFO") ? (flags & ~O_ACCMODE) | O_RDWR : flags;
}

int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	path = redirect(path);
	return real(path, fix_flags(path, flags), mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	int ret = real(id, ts);

	if (!ret && id == CLOCK_REALTIME)
		ts->tv_sec += 3600;
	return ret;
}
EOF

tap_begin
if ! $CC -shared -fPIC -o "$tmp/stall.so" "$tmp/stall.c" -ldl 2>"$tmp/cc.err"; then
	not_ok "cannot build the shim with $CC" "$tmp/cc.err"
	tap_end
	exit
fi
mkfifo "$tmp/fifo"
start=$(date +%s)
STALL_FIFO=$tmp/fifo LD_PRELOAD=$tmp/stall.so timeout 120 \
	"$GUAC" bench dev --sizes 64 --threads 1 --trials 1 --seconds 0.25 --json \
	>"$tmp/b.json" 2>"$tmp/err"
rc=$?
secs=$(($(date +%s) - start))
check "a /dev/hwrng that never answers, the wall clock an hour ahead: the bench ends (status $rc in $secs s, not killed at 120 s)" \
	'[ "$rc" != 124 ] && [ "$secs" -lt 60 ]'
check "... and its /dev/hwrng row says it delivered nothing, not a speed" \
	'python3 -c "import json, sys; d = json.load(open(sys.argv[1])); r = [x for x in d[\"results\"] if x[\"source\"] == \"/dev/hwrng\"]; sys.exit(not r or any(x[\"status\"] == \"ok\" for x in r))" "$tmp/b.json"'
tap_end
