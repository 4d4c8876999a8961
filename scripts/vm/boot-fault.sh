# SPDX-License-Identifier: GPL-2.0
#
# Sourced by run-kernel.sh (and its test): which failed boots say nothing
# about guacrng, and the retry budget they may draw on.
#
# Under TCG on a loaded host a kernel can die before any of our code runs
# (seen: Debian's 6.12-rt oopsing on a text-patching int3 in sched_clock_cpu
# at 1.9 s, an early-boot KASAN report in the interrupt path). Such a boot
# is retried once, and make check allows at most GUAC_RETRY_BUDGET of them
# in all. A failure after guacrng may have been loaded is never retried: the
# guest's runner prints a line naming guacrng to the console and to the TAP
# before its first scenario, so an empty TAP and a console that never names
# guacrng (no frame, no "Modules linked in: guacrng", no message) prove the
# suite never started.

# guac_boot_fault CONSOLE TAP: for a boot that failed, print why and return 0
# when the emulator or the kernel failed before guacrng was loaded: a panic,
# oops or BUG, QEMU dying, or no word from the guest's runner before the
# timeout. Return 1 for anything that may be guacrng's.
guac_boot_fault() {
	[ ! -s "$2" ] || return 1
	tr -d '\r' <"$1" | grep -qi guacrng && return 1
	tr -d '\r' <"$1" | awk '
	# The first report names the fault; the first RIP (x86) or pc (arm64)
	# after it names where.
	!what && /Oops: |Internal error: |BUG: |general protection fault|Kernel panic - not syncing: / {
		line = $0
		sub(/^\[ *[0-9.]+\] /, "", line)
		if (match(line, /Oops: [a-z][a-z0-9 ]*[a-z0-9]/)) {
			what = substr(line, RSTART + 6, RLENGTH - 6) " oops"
		} else if (line ~ /Oops: /) {
			what = "oops"
		} else if (match(line, /BUG: [^,]*/)) {
			what = substr(line, RSTART, RLENGTH)
		} else if (match(line, /Kernel panic - not syncing: .*/)) {
			what = "panic: " substr(line, RSTART + 28)
		} else {
			what = "general protection fault"
		}
		next
	}
	what && !where && match($0, /(RIP: [0-9a-f]+:|pc : )[A-Za-z0-9_.]+/) {
		where = substr($0, RSTART, RLENGTH)
		sub(/^(RIP: [0-9a-f]+:|pc : )/, "", where)
	}
	/^qemu-exit-status / { status = $2 }
	END {
		if (what) {
			printf "%s%s\n", substr(what, 1, 80), where ? " in " where : ""
		} else if (status == 124) {
			print "no word from the guest in " timeout " s: the boot never reached the suite"
		} else if (status != "") {
			print "qemu exited with status " status
		} else {
			exit 1
		}
	}' timeout="${VM_TIMEOUT:-900}"
}

# guac_retry_claim LABEL REASON: take one retry from the budget and record it
# in the ledger as "SUITE<TAB>LABEL<TAB>REASON" (SUITE: GUAC_CHECK_SUITE, set
# by scripts/check-suites.sh); return 1 when the budget is spent. make check
# shares one ledger (GUAC_RETRY_LEDGER) across its suites; without one (a
# suite run alone) each boot may still retry once, unrecorded.
guac_retry_claim() {
	ledger=${GUAC_RETRY_LEDGER:-}
	[ -n "$ledger" ] || return 0
	mkdir -p "$(dirname "$ledger")"
	(
		flock 9
		used=$(grep -c . "$ledger" 2>/dev/null || true)
		[ "${used:-0}" -lt "${GUAC_RETRY_BUDGET:-2}" ] || exit 1
		printf '%s\t%s\t%s\n' "${GUAC_CHECK_SUITE:--}" "$1" "$2" >>"$ledger"
	) 9>>"$ledger.lock"
}
