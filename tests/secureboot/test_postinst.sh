#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guacrng-dkms's postinst on the host, with the paths it reads moved into a
# scratch directory: the Secure Boot instruction comes exactly when Secure
# Boot is on and the kernel's keys (/proc/keys) lack the DKMS certificate's
# key id, names framework.conf's certificate, and never fails the install.
# Part of make check-secureboot; the guest sees the real message at install.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fails=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else fails=$((fails + 1)); echo "not ok $n - $2"; sed 's/^/#   /' "$tmp/out"; fi
}

mkdir -p "$tmp/efi" "$tmp/dkms" "$tmp/conf.d"
openssl req -new -x509 -nodes -days 3 -subj "/CN=DKMS module signing key" -newkey rsa:2048 \
	-keyout "$tmp/dkms/mok.key" -outform DER -out "$tmp/dkms/mok.pub" 2>/dev/null
kid=$(openssl x509 -inform DER -in "$tmp/dkms/mok.pub" -noout -ext subjectKeyIdentifier |
	sed -n '2s/[[:space:]:]//gp' | tr A-F a-f)
sb=$tmp/efi/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
sed -e "s|/sys/firmware/efi/efivars|$tmp/efi|" -e "s|/etc/dkms/framework.conf |$tmp/fw.conf |" \
	-e "s|/etc/dkms/framework.conf.d/|$tmp/conf.d/|" -e "s|/proc/keys|$tmp/keys|" \
	-e "s|:-/var/lib/dkms/mok.pub|:-$tmp/dkms/mok.pub|" \
	"$top/debian/guacrng-dkms.postinst" >"$tmp/postinst"
run() { dash "$tmp/postinst" configure >"$tmp/out" 2>&1; }
says() { grep -q 'Secure Boot is on' "$tmp/out" && grep -q "mokutil --import $1 " "$tmp/out" &&
	grep -q 'Enroll MOK' "$tmp/out" && grep -q '^  reboot ' "$tmp/out"; }

: >"$tmp/keys"
: >"$tmp/fw.conf"
printf '\006\000\000\000\001' >"$sb"
run; status=$?
says "$tmp/dkms/mok.pub"; ok $(( $? + status )) "Secure Boot on, key not in /proc/keys: the instruction, exit 0"
echo "2f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: $kid: X509.rsa 0 []" >"$tmp/keys"
run; status=$?
! grep -q 'Secure Boot' "$tmp/out"; ok $(( $? + status )) "the key id in /proc/keys (enrolled): no message"
echo "2f4a7b2c I------     1 perm 1f010000     0     0 asymmetri other: ${kid}00: X509.rsa 0 []" >"$tmp/keys"
run
says "$tmp/dkms/mok.pub"; ok $? "a longer key id that starts with it does not count"
echo "2f4a7b2c I------     1 perm 1f010000     0     0 user      x: $kid" >"$tmp/keys"
run
says "$tmp/dkms/mok.pub"; ok $? "its key id in a key that is not asymmetric does not count"
: >"$tmp/keys"
printf '\006\000\000\000\000' >"$sb"
run; status=$?
! grep -q 'Secure Boot' "$tmp/out"; ok $(( $? + status )) "Secure Boot off: no message"
rm "$sb"
run; status=$?
! grep -q 'Secure Boot' "$tmp/out"; ok $(( $? + status )) "no EFI: no message"
printf '\006\000\000\000\001' >"$sb"
cp "$tmp/dkms/mok.pub" "$tmp/mine.der"
echo "mok_certificate=\"$tmp/mine.der\"" >"$tmp/conf.d/10-mine.conf"
run
says "$tmp/mine.der"; ok $? "framework.conf.d's mok_certificate is the one named"
rm "$tmp/conf.d/10-mine.conf" "$tmp/dkms/mok.pub"
run; status=$?
! grep -q 'Secure Boot' "$tmp/out"; ok $(( $? + status )) "no certificate (DKMS signed nothing): no message, exit 0"
echo "1..$n"
[ "$fails" = 0 ]
