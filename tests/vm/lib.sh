# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the scenarios in tests/vm/scenarios/: TAP results, module
# loading, byte comparisons against `guac gen`. Sourced by the runner before
# each scenario; see README.md.

# Debian's busybox runs its own applet for a bare `dd` even with GNU dd first
# in PATH (it prefers applets); only a path reaches the GNU dd packed in /bin.
dd() {
	/bin/dd "$@"
}

GUAC_KO=/lib/modules/guacrng.ko
GUAC_KO_TEST=/lib/modules/guacrng-test.ko
GUAC_SYSFS_IMPL=/sys/class/misc/guac/implementation
GUAC_TAP=/tmp/tap		# the counters; scenarios run in their own shells

tap_init() {
	mkdir -p "$GUAC_TAP"
	echo 0 >"$GUAC_TAP/count"
	echo 0 >"$GUAC_TAP/failed"
	dmesg -r | wc -l >"$GUAC_TAP/dmesg.suite"
}

tap_count() {
	cat "$GUAC_TAP/count"
}

tap_failed() {
	cat "$GUAC_TAP/failed"
}

# tap_result STATUS DESCRIPTION: one numbered test point, ok when STATUS is 0.
tap_result() {
	local status=$1 n
	shift
	n=$(($(tap_count) + 1))
	echo "$n" >"$GUAC_TAP/count"
	if [ "$status" = 0 ]; then
		echo "ok $n - $*"
	else
		echo "$(($(tap_failed) + 1))" >"$GUAC_TAP/failed"
		echo "not ok $n - $*"
	fi
}

# skip DESCRIPTION REASON: a test point this kernel cannot have, counted and
# said so ("ok N - DESCRIPTION # SKIP REASON"), never left out silently. Only
# for what the kernel lacks (see kernel_before), never for what fails.
skip() {
	tap_result 0 "$1 # SKIP $2"
}

# kernel_before MAJOR.MINOR: the running kernel is older than MAJOR.MINOR.
kernel_before() {
	local have want=$1

	have=$(uname -r | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	[ "${have%.*}" -lt "${want%.*}" ] ||
		{ [ "${have%.*}" = "${want%.*}" ] && [ "${have#*.}" -lt "${want#*.}" ]; }
}

# Indent a command's output as TAP comments, at most 40 lines of it.
tap_comment() {
	awk 'NR <= 40 { print "# " $0 } END { if (NR > 40) print "# ... " NR - 40 " more lines" }'
}

# check DESCRIPTION COMMAND [ARGS...]: ok when COMMAND exits 0. Its output
# follows as comments (the reason, when it fails).
check() {
	local desc=$1 status
	shift
	"$@" >"$GUAC_TAP/out" 2>&1
	status=$?
	tap_result "$status" "$desc"
	[ "$status" = 0 ] || echo "# '$*' exited with status $status"
	tap_comment <"$GUAC_TAP/out"
}

# hwrng_reader FILE: read 64 bytes of /dev/hwrng at a time until FILE exists;
# print how many reads returned data (the stress scenarios run it alongside).
hwrng_reader() {
	local ok=0

	while [ ! -e "$1" ]; do
		[ "$(dd if=/dev/hwrng bs=64 count=1 status=none 2>/dev/null | wc -c)" = 64 ] &&
			ok=$((ok + 1))
	done
	echo "$ok"
}

# fails COMMAND [ARGS...]: succeeds when COMMAND fails, for `check ... fails cmd`.
fails() {
	! "$@"
}

# check_bytes DESCRIPTION LENGTH DEVICE_CMD REFERENCE_CMD: both shell commands
# must write exactly LENGTH bytes, and the same bytes.
check_bytes() {
	local desc=$1 len=$2 dev=$GUAC_TAP/dev.bin ref=$GUAC_TAP/ref.bin
	local dev_len ref_len why=

	eval "$3" >"$dev" 2>"$GUAC_TAP/dev.err" || why="device command failed: $3"
	eval "$4" >"$ref" 2>"$GUAC_TAP/ref.err" || why="${why:+$why; }reference command failed: $4"
	dev_len=$(wc -c <"$dev")
	ref_len=$(wc -c <"$ref")
	if [ -z "$why" ]; then
		if [ "$ref_len" != "$len" ]; then
			why="reference gave $ref_len bytes, expected $len"
		elif [ "$dev_len" != "$len" ]; then
			why="device gave $dev_len bytes, expected $len"
		elif ! cmp "$dev" "$ref" >"$GUAC_TAP/out" 2>&1; then
			why="bytes differ: $(cat "$GUAC_TAP/out")"
		fi
	fi
	if [ -z "$why" ]; then
		tap_result 0 "$desc"
	else
		tap_result 1 "$desc"
		echo "# $why"
		echo "#   device:    $3"
		echo "#   reference: $4"
		tap_comment <"$GUAC_TAP/dev.err"
		tap_comment <"$GUAC_TAP/ref.err"
	fi
	rm -f "$dev" "$ref"
}

# guac_load [PARAM=VALUE...]: insmod guacrng.ko, the module users install;
# guac_load_test: the test variant (GUAC_TEST=y), which also takes the
# test-only parameters (hwrng_fault=, selftest_fault=, init_fault=).
# guac_unload: rmmod either.
guac_load() {
	insmod "$GUAC_KO" "$@"
}

guac_load_test() {
	insmod "$GUAC_KO_TEST" "$@"
}

guac_unload() {
	rmmod guacrng
}

guac_loaded() {
	grep -q '^guacrng ' /proc/modules
}

# Kernel log lines since the last dmesg_mark, with their <level> prefixes.
dmesg_mark() {
	dmesg -r | wc -l >"$GUAC_TAP/dmesg.mark"
}

dmesg_new() {
	dmesg -r | tail -n +"$(($(cat "$GUAC_TAP/dmesg.mark" 2>/dev/null || echo 0) + 1))"
}

# Kernel log lines since the suite started (the runner marks the start).
dmesg_suite() {
	dmesg -r | tail -n +"$(($(cat "$GUAC_TAP/dmesg.suite") + 1))"
}

# guacrng's error lines (KERN_ERR and worse) since dmesg_mark.
dmesg_guac_errors() {
	dmesg_new | grep '^<[0-3]>.*guacrng: '
}

# dmesg_has TEXT: the kernel log since dmesg_mark has a line containing TEXT.
dmesg_has() {
	dmesg_new | grep -F -- "$1"
}

# The guest's architecture, as uname says it: x86_64 or aarch64. The scenarios
# run on both; what differs (implementations, the hwrng's instruction) comes
# from the helpers below, never from a skip.
guac_arch() {
	uname -m
}

# Every implementation the module knows on this architecture, narrowest
# first: impl= must accept those the CPU supports and refuse the others.
guac_all_impls() {
	case "$(guac_arch)" in
	aarch64) echo generic neon ;;
	*) echo generic sse2 avx2 avx512 ;;
	esac
}

# Implementations this CPU supports, as the kernel reports its flags (x86) or
# Features (arm64: asimd is NEON), narrowest first: what impl= must accept
# (and auto must pick the last of).
guac_cpu_impls() {
	local flags

	if [ "$(guac_arch)" = aarch64 ]; then
		flags=" $(grep -m1 '^Features' /proc/cpuinfo | cut -d: -f2) "
		echo generic
		case "$flags" in *" asimd "*) echo neon ;; esac
		return
	fi
	flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
	echo generic
	case "$flags" in *" sse2 "*) echo sse2 ;; *) return ;; esac
	case "$flags" in *" avx2 "*) echo avx2 ;; *) return ;; esac
	case "$flags" in *" avx512f "*) echo avx512 ;; esac
}

# The CPU's random-number instruction the hwrng needs, as /proc/cpuinfo names
# its feature: x86's rdrand flag, arm64's rng (FEAT_RNG: RNDR and RNDRRS).
guac_cpu_rng_feature() {
	case "$(guac_arch)" in
	aarch64) echo rng ;;
	*) echo rdrand ;;
	esac
}

# guac_cpu_has_rng: the CPU has that instruction.
guac_cpu_has_rng() {
	if [ "$(guac_arch)" = aarch64 ]; then
		grep -m1 '^Features' /proc/cpuinfo | grep -qw rng
	else
		grep -qw rdrand /proc/cpuinfo
	fi
}

# The instruction the hwrng must read on this CPU, as its sysfs source names
# it (the hwrng is guacrng-INSN): RDSEED over RDRAND on x86; on arm64 RNDRRS,
# which reseeds from the TRNG at every read as RDSEED does.
guac_hwrng_insn() {
	if [ "$(guac_arch)" = aarch64 ]; then
		echo rndrrs
	elif grep -qw rdseed /proc/cpuinfo; then
		echo rdseed
	else
		echo rdrand
	fi
}
