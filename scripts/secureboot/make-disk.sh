#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: make-disk.sh
#
# The disk of make check-secureboot, made once into the cache,
# $GUAC_VM_CACHE/secureboot/disk-bookworm/:
#
#   disk.img   a GPT disk: partition 1 the EFI system partition (FAT, 63 MiB),
#              partition 2 the root of the guest of make check-guest
#              (scripts/guest/make-image.sh's root.img, label guacroot)
#   kver       the kernel the guest has in /boot (Debian's current 6.1)
#   recipe     what it was made from; a different one remakes it
#
# The ESP holds Debian's signed chain as a removable disk has it:
# EFI/BOOT/BOOTX64.EFI is shim (shim-signed, signed by Microsoft's UEFI CA),
# EFI/BOOT/grubx64.efi the signed grub (grub-efi-amd64-signed), which shim
# verifies with Debian's certificate, EFI/BOOT/mmx64.efi MokManager, and
# EFI/BOOT/grub.cfg, which Debian's signed grub reads from $cmdpath when there
# is no EFI/debian. No fbx64.efi: the fallback would add a boot entry and reset.
# grub.cfg boots the signed vmlinuz of the root's /boot (grub checks it through
# shim: Debian's key), with the kernel release and extra command line words
# from boot.cfg on the payload disk (label GUACPAYLOAD) when it has one; that
# is how tests/secureboot/check-secureboot.sh passes each boot its stages.
#
# The root differs from the guest image in one line: /etc/fstab names the root
# by its label (the image's says /dev/vda, here the whole disk). Prints the
# directory.
set -eu
. "$(dirname "$0")/../vm/lib.sh"
. "$GUAC_TOP/scripts/secureboot/lib.sh"

for t in sfdisk mkfs.vfat mcopy debugfs; do
	command -v "$t" >/dev/null || guac_die "no $t (run scripts/install-deps.sh)"
done
image=$("$GUAC_TOP/scripts/guest/make-image.sh")
chain=$(sb_chain)
# virt-firmware's venv too (check-secureboot writes MokList with it), so that
# make check's prefetch, which runs this, fills the whole cache of the suite.
sb_virt_fw_vars >/dev/null
dir=$GUAC_SB_CACHE/disk-bookworm
kver=$(cat "$image/kver")
recipe=$( {
	cat "$image/recipe"
	cat "$chain/versions"
	cksum <"$0"
} )

mkdir -p "$GUAC_SB_CACHE"
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.ready" ] && [ "$(cat "$dir/recipe")" = "$recipe" ]; then
	echo "$dir"
	exit 0
fi

start=$(date +%s)
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
guac_log "making the Secure Boot disk in $dir (GPT: ESP with shim, grub; the guest's root)"

cat >"$tmp/grub.cfg" <<CFG
# guacrng check-secureboot: boot the guest's signed kernel from its root.
set timeout=0
set guac_kernel=$kver
set guac_args=
search --no-floppy --label GUACPAYLOAD --set=guac_payload
if [ -n "\$guac_payload" ]; then
	if [ -f (\$guac_payload)/boot.cfg ]; then
		source (\$guac_payload)/boot.cfg
	fi
fi
search --no-floppy --label guacroot --set=root
echo "guacrng: booting /boot/vmlinuz-\$guac_kernel \$guac_args"
linux /boot/vmlinuz-\$guac_kernel root=LABEL=guacroot ro console=ttyS0 panic=-1 rcupdate.rcu_cpu_stall_timeout=300 watchdog_thresh=60 \$guac_args
initrd /boot/initrd.img-\$guac_kernel
boot
CFG

esp_mib=63
mkfs.vfat -C -n GUACESP "$tmp/esp.img" $((esp_mib * 1024)) >/dev/null || guac_die "mkfs.vfat failed"
export MTOOLS_SKIP_CHECK=1
mmd -i "$tmp/esp.img" ::/EFI ::/EFI/BOOT
mcopy -i "$tmp/esp.img" "$chain/root/usr/lib/shim/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$tmp/esp.img" "$chain/root/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ::/EFI/BOOT/grubx64.efi
mcopy -i "$tmp/esp.img" "$chain/root/usr/lib/shim/mmx64.efi.signed" ::/EFI/BOOT/mmx64.efi
mcopy -i "$tmp/esp.img" "$tmp/grub.cfg" ::/EFI/BOOT/grub.cfg

# 1 MiB for the GPT, the ESP, then the root from 64 MiB; 1 MiB at the end for
# the backup GPT.
root_bytes=$(stat -c %s "$image/root.img")
root_sectors=$((root_bytes / 512))
truncate -s $(((64 << 20) + root_bytes + (1 << 20))) "$tmp/disk.img"
printf 'label: gpt\nstart=2048, size=%s, type=U, name=ESP\nstart=131072, size=%s, type=L, name=root\n' \
	$((esp_mib * 2048)) "$root_sectors" | sfdisk -q "$tmp/disk.img" || guac_die "sfdisk failed"
dd if="$tmp/esp.img" of="$tmp/disk.img" bs=1M seek=1 conv=notrunc status=none
dd if="$image/root.img" of="$tmp/disk.img" bs=4M oflag=seek_bytes seek=$((64 << 20)) \
	conv=notrunc,sparse status=none
echo 'LABEL=guacroot / ext4 errors=remount-ro 0 1' >"$tmp/fstab"
debugfs -w -f - "$tmp/disk.img?offset=$((64 << 20))" >"$tmp/debugfs.log" 2>&1 <<CMDS || guac_die "debugfs on the root failed"
rm /etc/fstab
write $tmp/fstab /etc/fstab
CMDS
debugfs -R 'cat /etc/fstab' "$tmp/disk.img?offset=$((64 << 20))" 2>/dev/null | grep -qx 'LABEL=guacroot / ext4 errors=remount-ro 0 1' ||
	guac_die "the root's /etc/fstab was not rewritten (log: $tmp/debugfs.log)"
rm -f "$tmp/esp.img" "$tmp/fstab"
echo "$kver" >"$tmp/kver"
echo "$recipe" >"$tmp/recipe"
touch "$tmp/.ready"
rm -rf "$dir"
mv "$tmp" "$dir"
guac_log "Secure Boot disk ready in $(($(date +%s) - start)) s"
echo "$dir"
