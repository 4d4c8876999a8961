# SPDX-License-Identifier: GPL-2.0
# What the storage scenarios (70-storage-faults, storage-crash/) share, in
# the guest: loading the distro's fault modules from /lib/modules/extra/, and
# guac verify's JSON report and bad list turned into lines a check compares.
# Sourced after lib.sh.

extra=/lib/modules/extra

# A module is there when loaded or built in (/sys/module has it either way,
# given parameters, as scsi_debug, dm_mod and dm_flakey have).
mod_present() {
	[ -d "/sys/module/$(echo "$1" | tr - _)" ]
}

# mod_load NAME [PARAM=VALUE...]: insmod NAME from /lib/modules/extra/ after
# the modules it depends on (busybox insmod resolves none; the .ko's modinfo
# names them). Already present: nothing to do (parameters are then ignored,
# so callers unload what they load with parameters).
mod_load() {
	local name=$1 dep
	shift
	mod_present "$name" && return 0
	[ -f "$extra/$name.ko" ] || { echo "no $extra/$name.ko in the initramfs"; return 1; }
	for dep in $(strings "$extra/$name.ko" | sed -n 's/^depends=//p' | tr , ' '); do
		mod_load "$dep" || return
	done
	insmod "$extra/$name.ko" "$@"
}

# missing MODULE...: the first of them this kernel's image does not have
# (make-initramfs.sh lists those in extra.missing). A module neither packed,
# present nor listed there is a packing bug: the check that loads it fails.
missing() {
	local m
	for m in "$@"; do
		mod_present "$m" && continue
		[ -f "$extra/$m.ko" ] && continue
		grep -qx "$m" /lib/modules/extra.missing 2>/dev/null && { echo "$m"; return 0; }
	done
	return 1
}

# stream_byte ORIGIN OFFSET: the stream byte at OFFSET from block ORIGIN, decimal.
stream_byte() {
	guac gen --origin "$1" --offset "$2" --length 1 | od -An -tu1 | tr -d ' '
}

# poke DEV SECTOR BYTE VALUE: set byte BYTE of DEV to VALUE behind the page
# cache, as the medium would hold it: read-modify-write of its whole sector
# with O_DIRECT.
poke() {
	local dev=$1 ss=$2 lba=$(($3 / $2))
	dd if="$dev" of=/tmp/sector bs="$ss" skip="$lba" count=1 iflag=direct status=none &&
		printf "\\$(printf %03o "$4")" |
		dd of=/tmp/sector bs=1 seek=$(($3 % ss)) conv=notrunc status=none &&
		dd if=/tmp/sector of="$dev" bs="$ss" seek="$lba" count=1 oflag=direct conv=notrunc status=none
}

# verify_run NAME ARGS...: guac verify --json --bad-list ARGS, keeping the
# JSON (/tmp/NAME.json), the sorted bad list (/tmp/NAME.bad: the bad ranges
# as "KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS", CLASS being each
# bad sector's diagnosis, "-" for unreadable ones) and the exit status
# (/tmp/NAME.rc) for the checks that follow. Fails unless verify finished
# with a report: exit status 0, 1 or 3 (unreadable) and a JSON result.
verify_run() {
	local name=$1 rc=0
	shift
	guac verify --json --bad-list "/tmp/$name.list" "$@" >"/tmp/$name.json" 2>"/tmp/$name.err" || rc=$?
	echo "$rc" >"/tmp/$name.rc"
	grep -v '^#' "/tmp/$name.list" | sort -n -k 2 >"/tmp/$name.bad"
	echo "guac verify $*: exit status $rc"
	cat "/tmp/$name.err"
	echo "bad list:"
	cat "/tmp/$name.bad"
	echo "diagnosis:"
	diag_ranges <"/tmp/$name.json"
	{ [ "$rc" -le 1 ] || [ "$rc" = 3 ]; } && grep -q '"result":"' "/tmp/$name.json"
}

# exit_status NAME WANT: verify_run NAME exited with WANT.
exit_status() {
	echo "exit status $(cat "/tmp/$1.rc"), expected $2"
	[ "$(cat "/tmp/$1.rc")" = "$2" ]
}

# bad_list NAME LINE...: the bad list of verify_run NAME is exactly the LINEs.
bad_list() {
	local name=$1
	shift
	printf '%s\n' "$@" >"/tmp/$name.want"
	echo "bad list:"
	cat "/tmp/$name.bad"
	echo "expected:"
	cat "/tmp/$name.want"
	cmp -s "/tmp/$name.bad" "/tmp/$name.want"
}

# The JSON's diagnosis as "FIRST_LBA-LAST_LBA CLASS [origin N]" lines, runs
# of adjacent sectors with the same verdict merged.
diag_ranges() {
	awk '{
		i = index($0, "\"diagnosis\":[")
		if (!i)
			next
		n = split(substr($0, i), part, /\{"byte":/)
		for (k = 2; k <= n; k++) {
			p = part[k]
			if (!match(p, /"lba":[0-9]+/))
				continue
			lba = substr(p, RSTART + 6, RLENGTH - 6) + 0
			if (!match(p, /"class":"[A-Z_]+"/))
				continue
			what = substr(p, RSTART + 9, RLENGTH - 10)
			if (match(p, /"found_origin":[0-9]+/))
				what = what " origin " substr(p, RSTART + 15, RLENGTH - 15)
			if (have && what == cur && lba == last + 1) {
				last = lba
				continue
			}
			if (have)
				print first "-" last " " cur
			have = 1; first = last = lba; cur = what
		}
	} END { if (have) print first "-" last " " cur }'
}

# diagnosis NAME LINE...: diag_ranges of verify_run NAME has each LINE.
diagnosis() {
	local name=$1 line ok=0
	shift
	diag_ranges <"/tmp/$name.json" >"/tmp/$name.diag"
	echo "diagnosis:"
	cat "/tmp/$name.diag"
	for line in "$@"; do
		grep -qxF "$line" "/tmp/$name.diag" || { echo "missing: $line"; ok=1; }
	done
	return $ok
}

# first_mismatch NAME BYTE EXPECTED ACTUAL: the JSON's first differing byte.
first_mismatch() {
	local got
	got=$(sed -n 's/.*"first_mismatch":{"byte":\([0-9]*\),"expected":\([0-9]*\),"actual":\([0-9]*\)}.*/\1 \2 \3/p' \
		"/tmp/$1.json")
	echo "first mismatch (byte expected actual): '$got', expected '$2 $3 $4'"
	[ "$got" = "$2 $3 $4" ]
}

# one_byte NAME BYTE EXPECTED ACTUAL: the JSON's first differing byte is
# BYTE, EXPECTED and read as ACTUAL, and it is the only one.
one_byte() {
	first_mismatch "$1" "$2" "$3" "$4" || return
	counts "$1" bad_bytes=1
}

# json_num NAME KEY: a top-level number of the JSON of verify_run NAME.
json_num() {
	sed -n "s/.*\"$2\":\([0-9]*\)[,}].*/\1/p" "/tmp/$1.json"
}

# counts NAME KEY=VALUE...: top-level numbers of the JSON of verify_run NAME.
counts() {
	local name=$1 kv ok=0
	shift
	for kv in "$@"; do
		echo "${kv%%=*}: $(json_num "$name" "${kv%%=*}"), expected ${kv#*=}"
		[ "$(json_num "$name" "${kv%%=*}")" = "${kv#*=}" ] || ok=1
	done
	return $ok
}

