# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest scenario (tests/guest/stages.sh), in bash: the
# guest is a full Debian system. Test points are numbered across the stages
# of one boot; guest-run.sh prints the plan at the end.

tap_n=0
tap_fails=0
TAP_TMP=$(mktemp -d /tmp/guac-tap.XXXXXX)

tap_result() {
	local status=$1
	shift
	tap_n=$((tap_n + 1))
	if [ "$status" = 0 ]; then
		echo "ok $tap_n - $*"
	else
		tap_fails=$((tap_fails + 1))
		echo "not ok $tap_n - $*"
	fi
}

# Up to 40 lines of a command's output, as TAP comments.
tap_comment() {
	awk 'NR <= 40 { print "# " $0 } END { if (NR > 40) print "# ... " NR - 40 " more lines" }'
}

# check DESCRIPTION COMMAND [ARGS...]: ok when COMMAND exits 0; its output
# follows as comments.
check() {
	local desc=$1 status t0
	shift
	t0=$(uptime_s)
	"$@" >"$TAP_TMP/out" 2>&1
	status=$?
	tap_result "$status" "$desc"
	[ "$status" = 0 ] || echo "# '$*' exited with status $status"
	tap_comment <"$TAP_TMP/out"
	echo "$t0 $(uptime_s)" | awk '$2 - $1 >= 5 { printf "# took %.0f s\n", $2 - $1 }'
	return "$status"
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# check_sh DESCRIPTION 'SHELL CODE': check on a bash snippet.
check_sh() {
	check "$1" bash -c "$2"
}

fails() {
	! "$@"
}

# check_same DESCRIPTION LENGTH 'DEVICE COMMAND' 'REFERENCE COMMAND': both
# commands write exactly LENGTH bytes, and the same bytes (cmp).
check_same() {
	local desc=$1 len=$2 a=$TAP_TMP/a.bin b=$TAP_TMP/b.bin why=
	bash -c "$3" >"$a" 2>"$TAP_TMP/a.err" || why="'$3' failed"
	bash -c "$4" >"$b" 2>"$TAP_TMP/b.err" || why="${why:+$why; }'$4' failed"
	if [ -z "$why" ] && [ "$(stat -c %s "$a")" != "$len" ]; then
		why="'$3' wrote $(stat -c %s "$a") bytes, not $len"
	elif [ -z "$why" ] && [ "$(stat -c %s "$b")" != "$len" ]; then
		why="'$4' wrote $(stat -c %s "$b") bytes, not $len"
	elif [ -z "$why" ] && ! cmp "$a" "$b" >"$TAP_TMP/cmp" 2>&1; then
		why="the bytes differ: $(cat "$TAP_TMP/cmp")"
	fi
	if [ -z "$why" ]; then
		tap_result 0 "$desc"
		echo "# $len bytes, sha256 $(sha256sum <"$a" | cut -c1-16)..."
	else
		tap_result 1 "$desc"
		echo "# $why"
		cat "$TAP_TMP/a.err" "$TAP_TMP/b.err" | tap_comment
	fi
	rm -f "$a" "$b"
}

# The state systemd reaches once the boot's jobs are done: "running" when no
# unit failed, "degraded" when one did (at most 10 minutes).
system_state() {
	timeout 600 systemctl is-system-running --wait 2>/dev/null
}

# check_system_clean DESCRIPTION: the boot finished and no unit failed.
check_system_clean() {
	local state
	state=$(system_state)
	tap_result "$([ "$state" = running ] && echo 0 || echo 1)" "$1"
	echo "# systemctl is-system-running: ${state:-?}"
	systemctl --failed --no-legend --plain | tap_comment
}

# A command's output kept in the payload's out/ for the host, and its last
# lines as comments; the command's status.
run_logged() {
	local name=$1 status
	shift
	"$@" 2>&1 | tee "$GUAC_OUT/$name.log" | console_lines "$name"
	status=${PIPESTATUS[0]}
	tail -n 25 "$GUAC_OUT/$name.log" | tap_comment
	return "$status"
}

# Lines of a long command on the console too (the host's console.log), with
# the uptime, to see where the time goes.
console_lines() {
	local line up rest
	while IFS= read -r line; do
		read -r up rest </proc/uptime
		printf '[%s %s] %s\n' "$up" "$1" "$line"
	done >/dev/console
}
