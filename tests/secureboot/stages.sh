# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make check-secureboot: the stages of a Debian 12 guest
# booted with UEFI Secure Boot through shim, grub and the signed kernel
# (tests/secureboot/check-secureboot.sh). guest-run.sh of tests/guest/ runs
# them; this file is the payload's stages.sh and takes the helpers of
# tests/guest/ (lib.sh, and its stages.sh as guest-stages.sh).
#
#   sb_notenrolled  Secure Boot on, DKMS's key not enrolled: install the
#                   .debs (DKMS makes its key, builds and signs), the package
#                   says what to do (and its check says it again), modprobe is
#                   refused, guac doctor's verdict names the cause and the
#                   fix; the certificate goes to the host
#   sb_enrolled     the next boot, the certificate in MokList (as MokManager
#                   would have put it): guacrng loaded at boot, signer, guac
#                   doctor OK (the key in the kernel's keyrings), the postinst's check
#                   without its note, bytes, hwrng; unloaded, guac doctor's verdict on
#                   the file; a copy without its signature and one signed with
#                   another key refused, the original accepted; modprobe

. "$GUAC_PAYLOAD/guest-stages.sh"

dkms_cert=/var/lib/dkms/mok.pub
dkms_cn="DKMS module signing key"
rejected="Key was rejected by service"
sb_tmp=/root/sb-test
# The package's postinst run again, its Secure Boot check included.

# mokutil is not in the image: the user installs it (here from the payload,
# the guest has no network).
sb_mokutil() {
	command -v mokutil >/dev/null && return 0
	check "dpkg -i mokutil and its libraries (libefivar1, libkeyutils1)" \
		run_logged mokutil-install dpkg -i "$GUAC_PAYLOAD"/mokutil/*.deb
}

sb_state_checks() {
	sb_mokutil
	check_sh "mokutil --sb-state: SecureBoot enabled" "
		mokutil --sb-state; [ \"\$(mokutil --sb-state 2>&1 | head -n 1)\" = 'SecureBoot enabled' ]"
	check_sh "the kernel saw Secure Boot, and locked itself down (integrity)" "
		journalctl -b -k --no-pager -o cat | grep -i -e 'secure boot' -e 'lockdown' | head -n 5
		cat /sys/kernel/security/lockdown
		journalctl -b -k --no-pager -o cat | grep -q 'Secure boot enabled' &&
		grep -q '\\[integrity\\]' /sys/kernel/security/lockdown"
	echo "# lockdown: $(cat /sys/kernel/security/lockdown 2>&1)"
	echo "# booted by: $(journalctl -b -k --no-pager -o cat | grep -m 1 'Command line:')"
}

# The Secure Boot note of the installed guacrng-dkms postinst, without the
# DKMS part of the script (debhelper's, which rebuilds the module).
sb_postinst_note() {
	local f=/var/lib/dpkg/info/guacrng-dkms.postinst
	grep -q '^guacrng_secure_boot_note()' "$f" || return 1
	sh -c "set -e; $(sed -n '/^guacrng_secure_boot_note() {/,/^}/p' "$f"); guacrng_secure_boot_note"
}

# The signature trailer of a module: PKCS#7, a 12-byte struct module_signature
# whose last 4 bytes are its length (big-endian), then the magic string.
sb_strip_signature() {
	local in=$1 out=$2 size siglen
	size=$(stat -c %s "$in")
	[ "$(tail -c 28 "$in")" = "~Module signature appended~" ] || return 1
	siglen=$(tail -c 32 "$in" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((size - 28 - 12 - siglen)) "$in" >"$out"
}

stage_sb_notenrolled() {
	local ko
	check_system_clean "the fresh system booted through shim with no failed unit"
	sb_state_checks
	check "no DKMS key yet (DKMS makes it on its first signing)" test ! -e "$dkms_cert"
	check "apt install ./build/deb/*.deb (guacrng-dkms and guacrng-tools $version)" \
		run_logged apt-install bash -c "cd $GUAC_PAYLOAD && $apt install ./build/deb/*.deb"
	check_sh "the install said what to do: mokutil --import $dkms_cert, reboot, enroll" "
		grep -A 8 'Secure Boot is on' $GUAC_OUT/apt-install.log
		grep -q 'mokutil --import $dkms_cert' $GUAC_OUT/apt-install.log &&
		grep -q 'Enroll MOK' $GUAC_OUT/apt-install.log && grep -q 'reboot' $GUAC_OUT/apt-install.log"
	ko=$(installed_kos | head -n 1)
	check_sh "DKMS made its key and signed guacrng.ko with it (signer '$dkms_cn')" "
		ls -l $dkms_cert; modinfo -F signer '$ko'
		[ -f $dkms_cert ] && [ \"\$(modinfo -F signer '$ko')\" = '$dkms_cn' ]"
	check_sh "mokutil --test-key: the DKMS key is not enrolled" "
		mokutil --test-key $dkms_cert; mokutil --test-key $dkms_cert 2>&1 | grep -q 'is not enrolled'"
	check_sh "modprobe guacrng fails: '$rejected'" "
		modprobe guacrng >/tmp/modprobe.out 2>&1; status=\$?; cat /tmp/modprobe.out
		[ \$status != 0 ] && grep -q '$rejected' /tmp/modprobe.out && ! test -e /sys/module/guacrng"
	check_sh "the kernel log says why: the module's key is not available" "
		journalctl -b -k --no-pager -o cat | grep -i 'module.*rejected'
		journalctl -b -k --no-pager -o cat | grep -q 'Loading of module with unavailable key is rejected'"
	# The verdict, not the 'kernel trusts:' line, which says 'not enrolled' too.
	check_sh "guac doctor: exit 1, its verdict the unenrolled key, and the fix" "
		guac doctor >/tmp/doctor.out 2>&1; status=\$?; cat /tmp/doctor.out; echo \"exit \$status\"
		[ \$status = 1 ] &&
		grep -qx 'PROBLEM: the key that signed guacrng.ko (DKMS.s, $dkms_cert)' /tmp/doctor.out &&
		grep -q '^  mokutil --import $dkms_cert ' /tmp/doctor.out"
	cp /tmp/doctor.out "$GUAC_OUT/doctor.txt"
	# The installed postinst's check alone (dpkg-reconfigure would have DKMS
	# remove and rebuild the module, minutes under TCG): it still speaks.
	# In 2-enrolled the same check must stay silent.
	check_sh "the installed postinst's Secure Boot check, run again: the note" "
		$(declare -f sb_postinst_note); sb_postinst_note >/tmp/note.out 2>&1; status=\$?; cat /tmp/note.out; echo \"exit \$status\"
		[ \$status = 0 ] && grep -q '^guacrng-dkms: Secure Boot is on, and the kernel does not trust the key DKMS' /tmp/note.out &&
		grep -q 'mokutil --import $dkms_cert ' /tmp/note.out"
	# For the host: the certificate to enroll before the next boot.
	check "the DKMS certificate handed to the host for MokList" cp "$dkms_cert" "$GUAC_OUT/mok.pub"
}

stage_sb_enrolled() {
	local ko name before signed=$sb_tmp/signed.ko
	check_system_clean "booted through shim with the key in MokList, no failed unit"
	sb_state_checks
	check_sh "mokutil --test-key: the DKMS key is enrolled" "
		mokutil --test-key $dkms_cert; mokutil --test-key $dkms_cert 2>&1 | grep -q 'is already enrolled'"
	check_sh "the kernel loaded it as a machine owner key ('$dkms_cn' in the keyrings)" "
		journalctl -b -k --no-pager -o cat | grep -F \"$dkms_cn\"
		journalctl -b -k --no-pager -o cat | grep -q \"Loaded X.509 cert '$dkms_cn\" &&
		grep -F '$dkms_cn' /proc/keys"
	check_modules_load
	check_sh "guacrng was loaded at boot (systemd-modules-load: Inserted module 'guacrng')" "
		journalctl -b --no-pager -o cat -t systemd-modules-load | grep guacrng
		journalctl -b --no-pager -o cat -t systemd-modules-load | grep -qx \"Inserted module 'guacrng'\" &&
		grep '^guacrng ' /proc/modules"
	ko=$(modinfo -n guacrng)
	check_sh "modinfo: signer '$dkms_cn', its key's serial" "
		modinfo -F signer '$ko'; modinfo -F sig_key '$ko'
		[ \"\$(modinfo -F signer '$ko')\" = '$dkms_cn' ] &&
		[ \"\$(modinfo -F sig_key '$ko' | tr -d ':' | sed 's/^0*//' | tr a-f A-F)\" = \
		  \"\$(openssl x509 -inform DER -in $dkms_cert -noout -serial | sed 's/^serial=//; s/^0*//' | tr a-f A-F)\" ]"
	# O (out of tree) is every DKMS module's; E would be an unverified signature.
	check_sh "its signature was verified: taint flags O only, no 'module verification failed'" "
		cat /sys/module/guacrng/taint; [ \"\$(cat /sys/module/guacrng/taint)\" = O ] &&
		! journalctl -b -k --no-pager -o cat | grep 'module verification failed'"
	check_sh "guac doctor: exit 0, loaded, the kernel trusts the DKMS key (in its keyrings)" "
		guac doctor >/tmp/doctor.out 2>&1; status=\$?; cat /tmp/doctor.out; echo \"exit \$status\"
		[ \$status = 0 ] && grep -q '^  kernel trusts: the DKMS key (in ' /tmp/doctor.out &&
		grep -qx 'OK: guacrng is loaded.' /tmp/doctor.out"
	# The installed postinst's check, as in 1-notenrolled (dpkg-reconfigure
	# would rebuild the module through DKMS: 90 s idle under TCG, 250 s loaded).
	check_sh "the installed postinst's Secure Boot check: exit 0, no note (the key is trusted)" "
		$(declare -f sb_postinst_note); sb_postinst_note >/tmp/note.out 2>&1; status=\$?; cat /tmp/note.out; echo \"exit \$status\"
		[ \$status = 0 ] && ! grep 'Secure Boot is on' /tmp/note.out"
	check_same "dd if=/dev/guac bs=1M skip=3 count=4 = guac gen --offset 3M --length 4M" 4194304 \
		"dd if=/dev/guac bs=1M skip=3 count=4 status=none" "guac gen --offset 3M --length 4M"
	check_same "dd at byte 9223372036000000000 = guac gen there" 16384 \
		"dd if=/dev/guac iflag=skip_bytes skip=9223372036000000000 bs=4096 count=4 status=none" \
		"guac gen --offset 9223372036000000000 --length 16K"
	name=$(tr ' ' '\n' <$rng/rng_available | grep '^guacrng-' | head -n 1)
	before=$(cat $hw/bytes 2>/dev/null || echo 0)
	check_sh "the hwrng: $name selected, /dev/hwrng gives 4096 bytes from it" "
		echo '$name' >$rng/rng_current && cat $rng/rng_current &&
		[ \"\$(cat $rng/rng_current)\" = '$name' ] &&
		[ \"\$(head -c 4096 /dev/hwrng | wc -c)\" = 4096 ] &&
		echo \"bytes counter: $before -> \$(cat $hw/bytes)\" && [ \$(cat $hw/bytes) -ge \$(($before + 4096)) ]"

	# The kernel's verdict on copies of the module: the original signed one,
	# one without its signature, one signed with a key the kernel does not know.
	rm -rf "$sb_tmp"
	mkdir -p "$sb_tmp"
	case "$ko" in
	*.xz) xz -dc "$ko" >"$signed" ;;
	*.zst) zstd -q -dc "$ko" >"$signed" ;;
	*) cp "$ko" "$signed" ;;
	esac
	check_sh "a copy without its signature" "
		$(declare -f sb_strip_signature); sb_strip_signature $signed $sb_tmp/unsigned.ko &&
		ls -l $signed $sb_tmp/unsigned.ko && [ -z \"\$(modinfo -F signer $sb_tmp/unsigned.ko)\" ]"
	check_sh "a copy signed with another key (openssl, the kernel's sign-file)" "
		openssl req -new -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=not the DKMS key/' \
			-keyout $sb_tmp/other.key -outform DER -out $sb_tmp/other.der 2>/dev/null &&
		/lib/modules/$kver/build/scripts/sign-file sha256 $sb_tmp/other.key $sb_tmp/other.der \
			$sb_tmp/unsigned.ko $sb_tmp/other.ko && modinfo -F signer $sb_tmp/other.ko &&
		[ \"\$(modinfo -F signer $sb_tmp/other.ko)\" = 'not the DKMS key' ]"
	check_sh "rmmod guacrng" "rmmod guacrng && ! test -e /sys/module/guacrng"
	# Not loaded: doctor now judges the installed file, its signature and the keyrings.
	check_sh "guac doctor, guacrng not loaded: exit 0, signed by the DKMS key, which the kernel trusts" "
		guac doctor >/tmp/doctor.out 2>&1; status=\$?; cat /tmp/doctor.out; echo \"exit \$status\"
		[ \$status = 0 ] && grep -qx '  loaded:        no' /tmp/doctor.out &&
		grep -q '^  kernel trusts: the DKMS key (in ' /tmp/doctor.out &&
		grep -q '^OK: signed by the DKMS key, which the kernel trusts: ' /tmp/doctor.out"
	check_sh "insmod of the copy without a signature: '$rejected'" "
		insmod $sb_tmp/unsigned.ko >$sb_tmp/out 2>&1; status=\$?; cat $sb_tmp/out
		[ \$status != 0 ] && grep -q '$rejected' $sb_tmp/out && ! test -e /sys/module/guacrng &&
		journalctl -b -k --no-pager -o cat | grep 'Loading of unsigned module is rejected'"
	check_sh "insmod of the copy signed with another key: '$rejected'" "
		insmod $sb_tmp/other.ko >$sb_tmp/out 2>&1; status=\$?; cat $sb_tmp/out
		[ \$status != 0 ] && grep -q '$rejected' $sb_tmp/out && ! test -e /sys/module/guacrng &&
		journalctl -b -k --no-pager -o cat | grep 'Loading of module with unavailable key is rejected'"
	check_sh "guac doctor on the unsigned copy: exit 1, names the missing signature" "
		guac doctor --module $sb_tmp/unsigned.ko >$sb_tmp/out 2>&1; status=\$?; cat $sb_tmp/out; echo \"exit \$status\"
		[ \$status = 1 ] && grep -q '^PROBLEM: $sb_tmp/unsigned.ko is not signed, and this kernel refuses unsigned modules' $sb_tmp/out"
	check_sh "guac doctor on the other key's copy: exit 1, names the wrong signer" "
		guac doctor --module $sb_tmp/other.ko >$sb_tmp/out 2>&1; status=\$?; cat $sb_tmp/out; echo \"exit \$status\"
		[ \$status = 1 ] && grep -q \"^PROBLEM: $sb_tmp/other.ko is signed by 'not the DKMS key', serial \" $sb_tmp/out &&
		grep -q '^not by the key DKMS signs with ($dkms_cert: .$dkms_cn., serial ' $sb_tmp/out"
	check_sh "insmod of the signed copy, the same bytes as installed: loads" "
		insmod $signed && grep '^guacrng ' /proc/modules && test -c /dev/guac"
	# What a user types: modprobe, of the module DKMS installed.
	check_sh "rmmod, then modprobe guacrng: the DKMS module loads, its signature verified (taint O)" "
		rmmod guacrng && ! test -e /sys/module/guacrng && ! test -e /dev/guac &&
		modprobe guacrng && grep '^guacrng ' /proc/modules && cat /sys/module/guacrng/taint &&
		[ \"\$(cat /sys/module/guacrng/taint)\" = O ] && test -c /dev/guac"
	check_same "after modprobe: dd if=/dev/guac bs=64K count=16 = guac gen --length 1M" 1048576 \
		"dd if=/dev/guac bs=64K count=16 status=none" "guac gen --length 1M"
	check_same "... and dd bs=64K skip=1000 count=4 = guac gen at 64000K" 262144 \
		"dd if=/dev/guac bs=64K skip=1000 count=4 status=none" "guac gen --offset 65536000 --length 256K"
	check_system_clean "no failed unit at the end"
}
