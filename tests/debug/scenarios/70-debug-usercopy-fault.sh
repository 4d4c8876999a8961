# SPDX-License-Identifier: GPL-2.0
# fail_usercopy during large reads: exact short counts, right bytes, nothing
# written past them, and the next read carries on. Reads into pinned pages
# copy nothing to inject into, so this runs with every read bounced (direct=N).

DIRECT=/sys/module/guacrng/parameters/direct

guac_loaded || check "insmod for the fault injection" guac_load
check "reads through the bounce page (direct=N)" sh -c "echo N >$DIRECT"
check "fail_usercopy mid-read: exact bytes copied, next read continues" \
	guac-vmtest usercopy-fault
check "back to direct=Y" sh -c "echo Y >$DIRECT"
