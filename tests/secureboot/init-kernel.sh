#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of tests/secureboot/check-kernel.sh's initramfs (busybox): a kernel
# booted through shim and grub with Secure Boot on, and a test MOK in MokList.
# The modules: /m/signed.ko (signed with that MOK), /m/unsigned.ko (the same
# build, no signature), /m/other.ko (signed with a key nobody enrolled). TAP
# on the second serial port, then power off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
exec 3>/dev/ttyS1
n=0
fails=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2" >&3
	else
		fails=$((fails + 1))
		echo "not ok $n - $2" >&3
	fi
}
# t DESCRIPTION 'SHELL CODE': a test point; the code's output as comments.
t() {
	sh -c "$2" >/tmp/out 2>&1
	ok $? "$1"
	sed 's/^/# /' /tmp/out | head -n 20 >&3
}
mok_cn=$(cat /m/mok_cn)
up() { cut -d' ' -f1 /proc/uptime; }
start=$(up)
echo "# $(uname -r) booted, $start s uptime; $(cat /proc/cmdline)" >&3

t "the kernel saw Secure Boot ('secureboot: Secure boot enabled')" "dmesg | grep -i -e 'secure boot' -e 'locked down'; dmesg | grep -q 'Secure boot enabled'"
t "lockdown: integrity" "cat /sys/kernel/security/lockdown; grep -q '\\[integrity\\]' /sys/kernel/security/lockdown"
t "shim handed over the MOK: '$mok_cn' loaded (.machine keyring), in /proc/keys" \
	"dmesg | grep -F \"$mok_cn\"; dmesg | grep -q \"Loaded X.509 cert '$mok_cn\" && grep -F \"$mok_cn\" /proc/keys"
t "insmod of the module without a signature: Key was rejected by service" \
	"insmod /m/unsigned.ko 2>/tmp/e; s=\$?; cat /tmp/e; echo \"exit \$s\"; [ \$s != 0 ] && grep -q 'Key was rejected by service' /tmp/e && ! test -e /sys/module/guacrng && dmesg | grep 'Loading of unsigned module is rejected'"
t "insmod of the module signed with a key not enrolled: Key was rejected by service" \
	"insmod /m/other.ko 2>/tmp/e; s=\$?; cat /tmp/e; echo \"exit \$s\"; [ \$s != 0 ] && grep -q 'Key was rejected by service' /tmp/e && ! test -e /sys/module/guacrng && dmesg | grep 'Loading of module with unavailable key is rejected'"
# guac doctor on this kernel: /var/lib/dkms/mok.pub is the MOK's certificate.
# It reads Secure Boot from efivarfs, a module of Debian's kernel that this
# initramfs lacks ('Secure Boot: disabled' here); lockdown and sig_enforce
# still make it judge the signature.
t "guac doctor --module /m/signed.ko: exit 0, lockdown seen, the MOK in a keyring the kernel checks modules with" \
	"guac doctor --module /m/signed.ko >/tmp/d 2>&1; s=\$?; cat /tmp/d; echo \"exit \$s\"; [ \$s = 0 ] && grep -qx '  lockdown:      integrity; module.sig_enforce=Y' /tmp/d && grep -q '^  kernel trusts: the DKMS key (in ' /tmp/d && grep -qx '  checked:       matches the module.s bytes (with the DKMS key)' /tmp/d && grep -q '^OK: signed by the DKMS key, which the kernel trusts: ' /tmp/d"
t "guac doctor --module /m/other.ko: exit 1, signed by 'not enrolled', not the MOK" \
	"guac doctor --module /m/other.ko >/tmp/d 2>&1; s=\$?; cat /tmp/d; echo \"exit \$s\"; [ \$s = 1 ] && grep -q \"^PROBLEM: /m/other.ko is signed by 'not enrolled', serial \" /tmp/d && grep -q '^not by the key DKMS signs with (/var/lib/dkms/mok.pub: ' /tmp/d"
t "insmod of the module signed with the enrolled MOK: loaded, its signature verified" \
	"insmod /m/signed.ko && grep '^guacrng ' /proc/modules && test -c /dev/guac && ! dmesg | grep 'module verification failed'"
# Taint: O (out of tree, 4096) from guacrng and nothing else; E (unsigned
# module, 8192) would be a signature the kernel did not verify.
t "the kernel's taint: O from guacrng, and only that (4096: no E, unsigned module)" \
	"cat /sys/module/guacrng/taint /proc/sys/kernel/tainted; [ \"\$(cat /sys/module/guacrng/taint)\" = O ] && [ \"\$(cat /proc/sys/kernel/tainted)\" = 4096 ]"
t "dd if=/dev/guac bs=1M skip=3 count=4 = guac gen --offset 3M --length 4M" \
	"a=\$(dd if=/dev/guac bs=1M skip=3 count=4 2>/dev/null | sha256sum); b=\$(guac gen --offset 3M --length 4M | sha256sum); echo \"\$a\"; [ \"\$a\" = \"\$b\" ] && [ \"\$(dd if=/dev/guac bs=1M skip=3 count=4 2>/dev/null | wc -c)\" = 4194304 ]"
t "the hwrng: guacrng's selected, /dev/hwrng gives 4096 bytes" \
	"name=\$(tr ' ' '\\n' </sys/class/misc/hw_random/rng_available | grep '^guacrng' | head -n 1); echo \"\$name\" >/sys/class/misc/hw_random/rng_current && cat /sys/class/misc/hw_random/rng_current && [ \"\$(cat /sys/class/misc/hw_random/rng_current)\" = \"\$name\" ] && [ -n \"\$name\" ] && [ \"\$(head -c 4096 /dev/hwrng | wc -c)\" = 4096 ]"
t "rmmod guacrng" "rmmod guacrng && ! test -e /sys/module/guacrng"
echo "1..$n" >&3
echo "# stages time $(echo "$start $(up)" | awk '{ printf "%.1f", $2 - $1 }') s, boot to stages start $start s" >&3
sync
poweroff -f
