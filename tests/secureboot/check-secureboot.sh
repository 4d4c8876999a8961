#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check-secureboot.sh
#
# make check-secureboot: the packages of `make deb` in a Debian 12 guest booted
# with UEFI Secure Boot enforced, the way users' servers boot: QEMU q35 (SMM,
# TCG) on Debian's OVMF Secure Boot firmware (OVMF_CODE_4M.secboot.fd, a fresh
# copy of OVMF_VARS_4M.ms.fd per run: Microsoft's keys), a GPT disk whose ESP
# has Debian's signed shim and grub, grub booting the guest's signed kernel
# (scripts/secureboot/make-disk.sh). Not -kernel: a direct boot would skip
# shim, and shim is what hands the machine owner keys to the kernel.
#
#   1-notenrolled  Secure Boot on, no MOK: apt install the .debs; DKMS makes
#                  its key and signs; the install says to enroll it; modprobe
#                  gets "Key was rejected by service"; guac doctor says why
#   (host)         the DKMS certificate the guest made goes into the
#                  varstore's MokList (virt-fw-vars --add-mok), as MokManager
#                  would have written it after `mokutil --import` and a reboot
#   2-enrolled     the same disk and varstore: guacrng loaded at boot, signed
#                  by the DKMS key, guac doctor OK (loaded, then unloaded: the
#                  key in /proc/keys), dpkg-reconfigure without the note, bytes
#                  equal to guac gen, the hwrng; copies without a signature or
#                  signed with another key refused; modprobe
#
# The stages are tests/secureboot/stages.sh, run by tests/guest/guest-run.sh
# (scripts/guest/run-guest.sh judges the TAP). Before them, the package's
# Secure Boot note on the host (tests/secureboot/test_postinst.sh: when it
# speaks and when not), and Debian's 6.12
# (SB_KERNELS, default 6.12) in one short boot through the same chain
# (tests/secureboot/check-kernel.sh): the module built on the host and signed
# with a MOK in MokList, unsigned and other-key copies refused, guac doctor
# against 6.12's /proc/keys. Ends with one result line.
set -eu
. "$(dirname "$0")/../../scripts/vm/lib.sh"
. "$GUAC_TOP/scripts/secureboot/lib.sh"

name=check-secureboot
work=$GUAC_TOP/build/secureboot
debdir=$GUAC_TOP/build/deb
start=$(date +%s)

dkms_deb=$(ls "$debdir"/guacrng-dkms_*_amd64.deb 2>/dev/null | head -n 1)
tools_deb=$(ls "$debdir"/guacrng-tools_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$dkms_deb" ] && [ -n "$tools_deb" ] || guac_die "no .debs in $debdir (run make deb)"

t=$(date +%s)
disk=$("$GUAC_TOP/scripts/secureboot/make-disk.sh")
chain=$(sb_chain)
sb_virt_fw_vars >/dev/null
prep_s=$(($(date +%s) - t))
kver=$(cat "$disk/kver")

rm -rf "$work"
mkdir -p "$work/payload/build/deb" "$work/payload/out" "$work/payload/mokutil"
qemu-img create -q -f qcow2 -F raw -b "$disk/disk.img" "$work/disk.qcow2"
cp "$GUAC_TOP/tests/guest/guest-run.sh" "$GUAC_TOP/tests/guest/lib.sh" "$work/payload/"
cp "$GUAC_TOP/tests/guest/stages.sh" "$work/payload/guest-stages.sh"
cp "$GUAC_TOP/tests/secureboot/stages.sh" "$work/payload/stages.sh"
cp "$dkms_deb" "$tools_deb" "$work/payload/build/deb/"
for p in mokutil libefivar1 libkeyutils1; do
	cp "$chain/debs/${p}_"*.deb "$work/payload/mokutil/"
done
mke2fs -q -t ext4 -L GUACPAYLOAD -d "$work/payload" "$work/payload.img" 256M ||
	guac_die "mke2fs of the payload disk failed"
sb_varstore "$work/vars.fd"
uefi=$(sb_qemu_args "$work/vars.fd")

# boot.cfg on the payload: what grub.cfg on the ESP sources before it boots.
set_boot() {
	printf 'set guac_kernel=%s\nset guac_args="guacguest.boot=%s guacguest.stages=%s"\n' \
		"$kver" "$1" "$2" >"$work/boot.cfg"
	printf 'rm /boot.cfg\nwrite %s /boot.cfg\n' "$work/boot.cfg" |
		debugfs -w -f - "$work/payload.img" >"$work/debugfs.log" 2>&1 ||
		guac_die "debugfs could not write boot.cfg to the payload disk"
}
# What the guest wrote to the payload's out/.
read_out() {
	rm -rf "$work/out.new"
	mkdir -p "$work/out.new"
	debugfs -R "rdump /out $work/out.new" "$work/payload.img" >/dev/null 2>&1 ||
		guac_die "debugfs could not read out/ from the payload disk"
	rm -rf "$work/out"
	mv "$work/out.new/out" "$work/out"
	rm -rf "$work/out.new"
}

passed=0 failed=0 lines= boots=0
# count LINE STATUS RESULT-FILE: a boot's result line, its exit status and
# its "passed failed seconds" file.
count() {
	echo "$1"
	lines="$lines
$1"
	boots=$((boots + 1))
	set -- "$2" $(cat "$3" 2>/dev/null || echo "0 1 0")
	passed=$((passed + $2))
	failed=$((failed + $3))
	[ "$1" = 0 ] || [ "$3" != 0 ] || failed=$((failed + 1))
}

# The package's Secure Boot note on the host first (a few seconds).
status=0
sh "$GUAC_TOP/tests/secureboot/test_postinst.sh" >"$work/test_postinst.txt" 2>&1 || status=$?
p=$(grep -c '^ok ' "$work/test_postinst.txt" || true)
f=$(grep -c '^not ok ' "$work/test_postinst.txt" || true)
echo "$p $f 0" >"$work/test_postinst.result"
if [ "$status" = 0 ] && [ "$f" = 0 ] && [ "$p" != 0 ]; then
	line="host test_postinst.sh: PASS, $p/$p passed"
else
	line="host test_postinst.sh: FAIL, $p passed, $f failed: $work/test_postinst.txt"
fi
count "$line" "$status" "$work/test_postinst.result"
boots=$((boots - 1))

for series in ${SB_KERNELS-6.12}; do
	status=0
	line=$("$GUAC_TOP/tests/secureboot/check-kernel.sh" "$series") || status=$?
	count "${line:-check-kernel.sh $series: FAIL (no result line)}" "$status" \
		"$work/kernel-$series/boot/result"
done

boot() {
	local status=0 line
	set_boot "$1" "$2"
	line=$(GUEST_UEFI_ARGS=$uefi "$GUAC_TOP/scripts/guest/run-guest.sh" "$work/disk.qcow2" \
		"$work/payload.img" "$disk/disk.img:/boot/vmlinuz-$kver" "(initrd)" "$1" "$2" "$work/$1") ||
		status=$?
	count "$line" "$status" "$work/$1/result"
	read_out
}

guest_failed=$failed
boot 1-notenrolled sb_notenrolled
# The guest's own DKMS certificate into MokList, as MokManager enrolls it.
if [ "$failed" = "$guest_failed" ] && [ -s "$work/out/1-notenrolled/mok.pub" ]; then
	cp "$work/out/1-notenrolled/mok.pub" "$work/dkms-mok.der"
	sb_add_mok "$work/vars.fd" "$work/dkms-mok.der"
	"$(sb_virt_fw_vars)" -i "$work/vars.fd" -p 2>/dev/null | grep -e '^MokList' -e '^SbatLevel' >"$work/varstore.txt" || true
	grep -q '^MokList ' "$work/varstore.txt" ||
		guac_die "virt-fw-vars did not write MokList into $work/vars.fd"
	guac_log "enrolled $(openssl x509 -inform DER -in "$work/dkms-mok.der" -noout -subject) in MokList"
	boot 2-enrolled sb_enrolled
else
	echo "guest 2-enrolled: NOT RUN (the first boot failed, or left no DKMS certificate)"
	lines="$lines
guest 2-enrolled: NOT RUN (the first boot failed, or left no DKMS certificate)"
	failed=$((failed + 1))
fi

total=$(($(date +%s) - start))
echo "$lines" | sed '/^$/d' >"$work/summary"
if [ "$failed" = 0 ]; then
	echo "$name: PASS, $passed test points in $boots boots ($total s: disk, chain and venv $prep_s s)"
else
	echo "$name: FAIL, $passed passed, $failed failed; logs in $work"
	exit 1
fi
