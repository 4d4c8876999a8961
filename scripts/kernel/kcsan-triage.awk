# SPDX-License-Identifier: GPL-2.0
#
# kcsan-triage.awk: sort a kernel log's KCSAN reports into guacrng's and the
# rest of the kernel's. Plain POSIX awk: the host and the guest's busybox run
# the same program.
#
#   awk -v show=ours   -f kcsan-triage.awk LOG   reports with a guacrng frame
#   awk -v show=others -f kcsan-triage.awk LOG   reports without one
#   awk -v show=rest   -f kcsan-triage.awk LOG   every line outside a report
#
# A report runs from its "BUG: KCSAN: " title to the "=====" rule that closes
# it, or to its 200th line, so that a report cut short cannot swallow the rest
# of the log. It is guacrng's when any of its stack frames is a function of the module
# (the "[guacrng]" or "[guacrng_test]" tag the stack printer adds) or is named
# guac*: then guacrng's code made one of the racing accesses, or is the
# only side KCSAN saw. A report whose frames are all elsewhere is a race in
# the kernel under test (seen: smp_call_function_many_cond() on 6.12, during
# boot, before guacrng was loaded). The "Comm:" line is no frame: a race in
# the mm of a process that happens to be one of our tools is not ours.
# Within one access's stack, the frames below an exception or interrupt entry
# (asm_exc_*, asm_sysvec_*, asm_common_interrupt on x86; el1h_64_sync or
# el1h_64_irq on arm64) are the code that was interrupted, not the code that
# raced: a page fault taken in guac_read_iter's copy_to_iter, whose TLB flush
# races in smp_call_function_many_cond(), is the kernel's race (CI met it).
# printk timestamps ("[   15.99] ") and carriage returns are ignored.

function flush() {
	if (n && ((show == "ours" && ours) || (show == "others" && !ours)))
		for (i = 1; i <= n; i++)
			print buf[i]
	n = 0
	ours = 0
}

{
	line = $0
	sub(/\r$/, "", line)
	body = line
	sub(/^.*\[ *[0-9]+\.[0-9]+\] /, "", body)
}

index(body, "BUG: KCSAN: ") {
	flush()
	inside = 1
	interrupted = 0
}

!inside {
	if (show == "rest")
		print line
	next
}

{
	buf[++n] = line
	# Each access's stack starts after its "... by task N on cpu C:" line.
	if (body ~ / on cpu [0-9]+:$/)
		interrupted = 0
	# A stack frame: " symbol+0xOFF/0xLEN", optionally " [module]".
	if (body ~ /^ +[A-Za-z_.][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/) {
		if (body ~ /^ +(asm_exc_|asm_sysvec_|asm_common_interrupt|el1h_64_(sync|irq)\+)/)
			interrupted = 1
		if (!interrupted && (body ~ /^ +guac/ || body ~ /\[guacrng[a-z0-9_]*\]/))
			ours = 1
	}
}

n > 1 && body ~ /^=====/ || n >= 200 {
	flush()
	inside = 0
}

END {
	flush()
}
