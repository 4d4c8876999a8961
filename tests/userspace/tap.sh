# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# TAP helpers for the shell suites; source it, call tap_begin, report with
# ok / not_ok / check, end with tap_end (its status is the suite's).

tap_n=0
tap_fails=0

# The guac the userspace suites drive: $GUAC, else the build's, relative to
# the top of the tree, where make runs them.
GUAC=${GUAC:-build/userspace/guac}

# The core's implementations and the CPU's random number instructions of this
# machine's architecture, for suites that go through them (the guac under
# test is a native one): x86-64's, or arm64's (NEON; RNDR and RNDRRS).
case $(uname -m) in
aarch64)
	guac_impls="generic neon"
	guac_insns="rndr rndrrs"
	;;
*)
	guac_impls="generic sse2 avx2 avx512"
	guac_insns="rdrand rdseed"
	;;
esac

# tap_tmpdir: a fresh directory in $tmp, removed at exit. A suite with more
# to undo first (loop devices, mounts, open descriptors) defines tap_cleanup.
tap_cleanup() { :; }
tap_tmpdir() {
	tmp=$(mktemp -d)
	trap 'tap_cleanup; rm -rf "$tmp"' EXIT
}

tap_begin() {
	echo "TAP version 13"
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1"
}

# not_ok DESCRIPTION [FILE]: a failure, with FILE's content as diagnostics.
not_ok() {
	tap_n=$((tap_n + 1))
	tap_fails=$((tap_fails + 1))
	echo "not ok $tap_n - $1"
	[ $# -lt 2 ] || sed 's/^/#   /' "$2"
}

# check DESCRIPTION SHELL-CONDITION: ok when the condition (eval'd) holds.
check() {
	if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}

# wait_io FIELD PID BYTES: wait, 10 s at most, until FIELD (rchar or wchar)
# of /proc/PID/io reaches BYTES, so that a signal sent next lands mid-work.
wait_io() {
	tap_wait=0
	while [ $tap_wait -lt 1000 ] &&
		[ "$(awk -v f="$1:" '$1 == f {print $2}' /proc/"$2"/io 2>/dev/null || echo 0)" -lt "$3" ]; do
		sleep 0.01
		tap_wait=$((tap_wait + 1))
	done
}

# wait_read PID BYTES, wait_written PID BYTES: until PID has read (written) BYTES.
wait_read() {
	wait_io rchar "$1" "$2"
}

wait_written() {
	wait_io wchar "$1" "$2"
}

# reseal FILE: recompute a manifest's checksum after an edit (docs/manifest.md).
reseal() {
	python3 - "$1" <<'PY'
import hashlib, sys
text = open(sys.argv[1]).read()
fields = text[:text.index(',\n  "checksum"')]
sha = "sha256:" + hashlib.sha256(fields.encode()).hexdigest()
open(sys.argv[1], "w").write(fields + ',\n  "checksum": "%s"\n}\n' % sha)
PY
}

tap_end() {
	echo "1..$tap_n"
	[ "$tap_fails" -eq 0 ]
}
