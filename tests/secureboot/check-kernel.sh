#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: check-kernel.sh SERIES       (make check-secureboot runs 6.12)
#
# The module on another Debian kernel under Secure Boot, in one short boot:
# the kernel of SERIES (scripts/vm/fetch-kernel.sh: Debian's signed image)
# booted on OVMF's Secure Boot firmware through Debian's signed shim and
# grub, from an ESP that holds them, the vmlinuz and a busybox initramfs
# (tests/secureboot/init-kernel.sh as /init). guacrng.ko is built for the
# kernel on the host (scripts/vm/build-module.sh) and signed with a test
# MOK made for the run, which virt-fw-vars writes into the varstore's MokList
# (as for the 6.1 guest). In the guest: Secure Boot and lockdown seen, the MOK
# in the kernel's keys, the module without a signature and one signed by a
# key nobody enrolled refused ("Key was rejected by service"), the one signed
# with the MOK loaded, /dev/guac equal to guac gen, the hwrng; guac doctor
# (the MOK's certificate at DKMS's path) finds the key id in 6.12's
# /proc/keys and tells the MOK-signed module from the other. Prints one
# result line (scripts/guest/run-guest.sh judges the TAP).
set -eu
. "$(dirname "$0")/../../scripts/vm/lib.sh"
. "$GUAC_TOP/scripts/secureboot/lib.sh"

[ $# = 1 ] || guac_die "usage: check-kernel.sh SERIES"
series=$1
work=$GUAC_TOP/build/secureboot/kernel-$series
guac=$GUAC_TOP/build/vm/userspace/guac
[ -x "$guac" ] || guac_die "no static $guac (make vm-guac)"
[ -x /bin/busybox ] || guac_die "no /bin/busybox (busybox-static; run scripts/install-deps.sh)"

kver=$("$GUAC_TOP/scripts/vm/fetch-kernel.sh" "$series")
chain=$(sb_chain)
rm -rf "$work"
mkdir -p "$work/root/bin" "$work/root/m" "$work/root/proc" "$work/root/sys" "$work/root/dev" \
	"$work/root/tmp" "$work/esp"

# The module, built for the kernel in a private build directory (the VM
# harness's build of the same kernel is not touched).
GUAC_VM_BUILD=$work/vm "$GUAC_TOP/scripts/vm/build-module.sh" "$kver" >/dev/null
ko=$work/vm/$kver/guacrng.ko
kbuild=$(ls -d "$GUAC_VM_CACHE/$kver"/root/usr/src/linux-kbuild-* 2>/dev/null | head -n 1)
signfile=$kbuild/scripts/sign-file
[ -x "$signfile" ] || guac_die "no sign-file in $kbuild"
[ -z "$(modinfo -F signer "$ko")" ] || guac_die "$ko is already signed"

# The run's MOK, and a key nobody enrolls.
mok_cn="guacrng check-secureboot test MOK"
for k in mok other; do
	cn=$mok_cn
	[ "$k" = mok ] || cn="not enrolled"
	openssl req -new -x509 -nodes -days 30 -subj "/CN=$cn/" -newkey rsa:2048 \
		-keyout "$work/$k.key" -outform DER -out "$work/$k.der" >/dev/null 2>&1 ||
		guac_die "openssl could not make a key"
done
cp "$ko" "$work/root/m/unsigned.ko"
"$signfile" sha256 "$work/mok.key" "$work/mok.der" "$ko" "$work/root/m/signed.ko"
"$signfile" sha256 "$work/other.key" "$work/other.der" "$ko" "$work/root/m/other.ko"
[ "$(modinfo -F signer "$work/root/m/signed.ko")" = "$mok_cn" ] || guac_die "sign-file did not sign"
echo "$mok_cn" >"$work/root/m/mok_cn"
# The MOK's certificate where DKMS keeps its own: guac doctor in the guest
# takes it for the DKMS key and looks for its key id in 6.12's /proc/keys.
mkdir -p "$work/root/var/lib/dkms"
cp "$work/mok.der" "$work/root/var/lib/dkms/mok.pub"

cp /bin/busybox "$work/root/bin/busybox"
ln -s busybox "$work/root/bin/sh"
strip -o "$work/root/bin/guac" "$guac"
cp "$GUAC_TOP/tests/secureboot/init-kernel.sh" "$work/root/init"
chmod 0755 "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.img"

# The ESP: shim, grub and MokManager as on the guest's disk, and the kernel.
cat >"$work/grub.cfg" <<CFG
set timeout=0
echo "guacrng: booting vmlinuz-$kver"
linux /vmlinuz console=ttyS0 panic=-1 quiet rcupdate.rcu_cpu_stall_timeout=300
initrd /initrd.img
boot
CFG
export MTOOLS_SKIP_CHECK=1
esp_mib=$(( ($(stat -c %s "$GUAC_VM_CACHE/$kver/vmlinuz") + $(stat -c %s "$work/initrd.img")) / 1048576 + 24 ))
mkfs.vfat -C -n GUACESP "$work/esp.img" $((esp_mib * 1024)) >/dev/null
mmd -i "$work/esp.img" ::/EFI ::/EFI/BOOT
mcopy -i "$work/esp.img" "$chain/root/usr/lib/shim/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$work/esp.img" "$chain/root/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ::/EFI/BOOT/grubx64.efi
mcopy -i "$work/esp.img" "$chain/root/usr/lib/shim/mmx64.efi.signed" ::/EFI/BOOT/mmx64.efi
mcopy -i "$work/esp.img" "$work/grub.cfg" ::/EFI/BOOT/grub.cfg
mcopy -i "$work/esp.img" "$GUAC_VM_CACHE/$kver/vmlinuz" ::/vmlinuz
mcopy -i "$work/esp.img" "$work/initrd.img" ::/initrd.img
truncate -s $(((esp_mib + 2) << 20)) "$work/disk.img"
printf 'label: gpt\nstart=2048, size=%s, type=U, name=ESP\n' $((esp_mib * 2048)) |
	sfdisk -q "$work/disk.img" || guac_die "sfdisk failed"
dd if="$work/esp.img" of="$work/disk.img" bs=1M seek=1 conv=notrunc status=none
rm -f "$work/esp.img"
truncate -s 1M "$work/payload.img"

sb_varstore "$work/vars.fd" "$work/mok.der"
GUEST_UEFI_ARGS=$(sb_qemu_args "$work/vars.fd") GUEST_TIMEOUT=${GUEST_TIMEOUT:-900} \
	"$GUAC_TOP/scripts/guest/run-guest.sh" "$work/disk.img" "$work/payload.img" \
	"$GUAC_VM_CACHE/$kver/vmlinuz" "$work/initrd.img" "kernel-$kver" "init-kernel" "$work/boot"
