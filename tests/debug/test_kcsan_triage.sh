#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel/kcsan-triage.awk on recorded reports: a race in the kernel
# under test (the one CI met in smp_call_function_many_cond(), before guacrng
# was loaded, and again in a page fault taken in guacrng's copy to the user)
# is told apart from races with a guacrng frame, which fail the
# KCSAN run. Run with the host's awk and with busybox's, which the guest uses.
# TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
triage=$top/scripts/kernel/kcsan-triage.awk
logs=$top/tests/debug/triage
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$logs/kernel-race.log" "$logs/module-race.log" "$logs/unknown-origin-ours.log" >"$work/all.log"

# titles AWK SHOW LOG: the report titles that SHOW selects, one per line.
titles() {
	$1 -v show="$2" -f "$triage" "$3" | sed -n 's/.*BUG: KCSAN: //p'
}

tap_begin
for awk in awk "busybox awk"; do
	if [ "$awk" = "busybox awk" ] && ! command -v busybox >/dev/null; then
		not_ok "busybox is installed (scripts/install-deps.sh: busybox-static)"
		continue
	fi
	check "$awk: a kernel-only race is not guacrng's" \
		'[ -z "$(titles "$awk" ours "$logs/kernel-race.log")" ]'
	check "$awk: a kernel-only race is listed among the others, whole" \
		'[ "$(titles "$awk" others "$logs/kernel-race.log")" = "data-race in smp_call_function_many_cond+0x217/0xaa0" ] &&
		 [ "$($awk -v show=others -f "$triage" "$logs/kernel-race.log" | wc -l)" = 24 ]'
	check "$awk: a race with frames tagged [guacrng] is guacrng's" \
		'[ "$(titles "$awk" ours "$logs/module-race.log")" = "data-race in guac_hwrng_read / health_show" ]'
	check "$awk: a race at unknown origin in a guac* function is guacrng's" \
		'[ "$(titles "$awk" ours "$logs/unknown-origin-ours.log")" = "data-race in guac_dev_read_iter+0x99/0x2c0" ]'
	check "$awk: a kernel race in a page fault taken in guacrng's copy to the user is the kernel's" \
		'[ "$(titles "$awk" others "$logs/fault-in-copy.log")" = "data-race in smp_call_function_many_cond+0x217/0xaa0" ]'
	check "$awk: a guacrng frame above an interrupt entry (a timer of ours) is guacrng's" \
		'[ "$(titles "$awk" ours "$logs/fault-in-copy.log")" = "data-race in guac_hwrng_read / asm_sysvec_apic_timer_interrupt" ]'
	check "$awk: in one log, two reports are guacrng's and one the kernel's" \
		'[ "$(titles "$awk" ours "$work/all.log" | wc -l)" = 2 ] &&
		 [ "$(titles "$awk" others "$work/all.log" | wc -l)" = 1 ]'
	check "$awk: the lines outside reports keep the guest's output and no report line" \
		'$awk -v show=rest -f "$triage" "$work/all.log" >"$work/rest" &&
		 grep -q "^ok 7 - " "$work/rest" && grep -q "guacrng: core self-tests: pass" "$work/rest" &&
		 ! grep -qE "BUG:|KCSAN|guac_hwrng_read|flush_tlb_mm_range" "$work/rest"'
	check "$awk: a report cut short ends after 200 lines, and what follows is scanned" \
		'$awk -v show=rest -f "$triage" "$logs/truncated.log" | grep -q "WARNING: CPU: 1"'
done
tap_end
