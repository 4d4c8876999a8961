#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac verify's progress line: drawn on standard error when it is a terminal
# (here a pseudo-terminal from script(1)), absent otherwise. The input pauses
# for a second mid-way, longer than the progress period, so a line is due
# whatever the machine's speed. TAP output.
set -u
GUAC=${GUAC:-build/userspace/guac}
. "$(dirname "$0")/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/slow.sh" <<SLOW
#!/bin/sh
{ "$GUAC" gen --length 1M; sleep 1; "$GUAC" gen --offset 1M --length 1M; } | "$GUAC" verify --length 2M -
SLOW
chmod +x "$tmp/slow.sh"

tap_begin
if ! command -v script >/dev/null; then
	not_ok "script(1) is available (bsdutils)"
else
	script -qec "$tmp/slow.sh" /dev/null >"$tmp/tty" 2>&1
	if grep -q "verify: [0-9.]* [KM]iB of 2.00 MiB, [0-9.]* [MG]B/s, ETA [0-9]:[0-9][0-9]:[0-9][0-9]" "$tmp/tty"; then
		ok "progress line with bytes, rate and ETA on a terminal"
	else
		not_ok "progress line with bytes, rate and ETA on a terminal" "$tmp/tty"
	fi
	if grep -q "OK: 2097152 bytes" "$tmp/tty"; then
		ok "the report follows the progress line"
	else
		not_ok "the report follows the progress line" "$tmp/tty"
	fi
fi
"$tmp/slow.sh" >"$tmp/out" 2>"$tmp/err"
if [ ! -s "$tmp/err" ] && grep -q "^OK: 2097152 bytes" "$tmp/out"; then
	ok "no progress output when standard error is not a terminal"
else
	not_ok "no progress output when standard error is not a terminal" "$tmp/err"
fi

tap_end
