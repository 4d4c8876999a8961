# SPDX-License-Identifier: GPL-2.0
# fail_usercopy during large reads: exact short counts, right bytes, nothing
# written past them, and the next read carries on.

guac_loaded || check "insmod for the fault injection" guac_load
check "fail_usercopy mid-read: exact bytes copied, next read continues" \
	guac-vmtest usercopy-fault
