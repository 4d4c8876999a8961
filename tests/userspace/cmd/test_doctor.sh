#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac doctor on fake systems (--root): Secure Boot on or off, the DKMS key
# enrolled (in /proc/keys) or not, the module unsigned, signed by the DKMS
# key or by another, missing, compressed, loaded; a pending enrollment; the
# key framework.conf names; usage errors. The real kernel's side (a guest
# booted through shim) is make check-secureboot's. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir

rel=6.1.0-99-amd64
efi_global=8be4df61-93ca-11d2-aa0d-00e098032b8c
shim=605dab50-e046-4300-abb6-3dd810dd8b23

# key NAME CN: a key pair as DKMS makes it (DER certificate).
key() {
	openssl req -new -x509 -nodes -days 30 -subj "/CN=$2" -newkey rsa:2048 \
		-keyout "$tmp/$1.key" -outform DER -out "$tmp/$1.der" >/dev/null 2>&1
	openssl x509 -inform DER -in "$tmp/$1.der" -out "$tmp/$1.pem"
}
keyid() {
	openssl x509 -inform DER -in "$tmp/$1.der" -noout -ext subjectKeyIdentifier |
		sed -n '2s/[[:space:]:]//gp' | tr A-F a-f
}
# sign IN OUT KEY: what the kernel's sign-file appends: a detached PKCS#7
# (CMS) signature naming the signer by issuer and serial, struct
# module_signature (id_type 2, the length big-endian) and the magic string.
sign() {
	openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 \
		-signer "$tmp/$3.pem" -inkey "$tmp/$3.key" -in "$1" -out "$tmp/sig.p7" || return 1
	len=$(stat -c %s "$tmp/sig.p7")
	{
		cat "$1" "$tmp/sig.p7"
		printf '\000\000\002\000\000\000\000\000'
		printf "\\$(printf %03o $((len >> 24 & 255)))\\$(printf %03o $((len >> 16 & 255)))"
		printf "\\$(printf %03o $((len >> 8 & 255)))\\$(printf %03o $((len & 255)))"
		printf '~Module signature appended~\n'
	} >"$2"
}

# system DIR SB LOCKDOWN MODULE-KEY ENROLLED: a fake root. SB 1/0/none (no
# EFI), LOCKDOWN none/integrity, MODULE-KEY dkms/other/unsigned/missing,
# ENROLLED yes/no (the DKMS key's id in /proc/keys).
system() {
	d=$tmp/$1
	rm -rf "$d"
	mkdir -p "$d/proc" "$d/sys/kernel/security" "$d/sys/module/module/parameters" \
		"$d/lib/modules/$rel/updates/dkms" "$d/var/lib/dkms" "$d/etc/dkms"
	if [ "$2" != none ]; then
		mkdir -p "$d/sys/firmware/efi/efivars"
		printf "\\006\\000\\000\\000\\00$2" >"$d/sys/firmware/efi/efivars/SecureBoot-$efi_global"
	fi
	case $3 in
	none) echo '[none] integrity confidentiality' ;;
	*) echo 'none [integrity] confidentiality' ;;
	esac >"$d/sys/kernel/security/lockdown"
	echo N >"$d/sys/module/module/parameters/sig_enforce"
	cp "$tmp/dkms.der" "$d/var/lib/dkms/mok.pub"
	echo '# mok_certificate=/var/lib/dkms/mok.pub' >"$d/etc/dkms/framework.conf"
	case $4 in
	dkms) sign "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" dkms ;;
	other) sign "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" other ;;
	unsigned) cp "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" ;;
	esac
	{
		echo "0a2b3c4d I------     1 perm 1f0b0000     0     0 keyring   .machine: 1"
		echo "1e4a7b2c I------     1 perm 1f010000     0     0 asymmetri Debian Secure Boot CA: 6ccece7e4c6c0d1f6149f3dd27dfcc5cbb419ea1 X509.rsa bb419ea1 []"
		[ "$5" = no ] || echo "2f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: $(keyid dkms) X509.rsa 00000000 []"
	} >"$d/proc/keys"
}

# doctor NAME [ARGS]: run guac doctor on the fake root NAME; $out, $status.
doctor() {
	r=$1
	shift
	out=$("$GUAC" doctor --root "$tmp/$r" --kernel "$rel" "$@" 2>&1)
	status=$?
}
has() {
	case $out in *"$1"*) return 0 ;; esac
	return 1
}
# expect DESCRIPTION STATUS TEXT...: the exit status and every TEXT in the output.
expect() {
	desc=$1 want=$2 why=
	shift 2
	[ "$status" = "$want" ] || why="exit $status, not $want"
	for t; do
		has "$t" || why="${why:+$why; }no '$t'"
	done
	if [ -z "$why" ]; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "#   $why"
		echo "$out" | sed 's/^/#   | /'
	fi
}

tap_begin
key dkms "DKMS module signing key"
key other "someone else"
head -c 70000 /dev/urandom >"$tmp/ko"
fix="mokutil --import /var/lib/dkms/mok.pub"

system notenrolled 1 integrity dkms no
doctor notenrolled
expect "Secure Boot on, DKMS key not enrolled: exit 1, the cause and the fix" 1 \
	"Secure Boot:   enabled" "lockdown:      integrity" "not enrolled" "Key was rejected by service" \
	"$fix" "Enroll MOK" "signature:     'DKMS module signing key'"
case $out in *OK:*) not_ok "... and no OK line" ;; *) ok "... and no OK line" ;; esac

system enrolled 1 integrity dkms yes
doctor enrolled
expect "Secure Boot on, DKMS key in the kernel's keys: exit 0, loadable" 0 \
	"OK: signed by the DKMS key, which the kernel trusts" "kernel trusts: the DKMS key"

# The key id must match: a key of the same name but another id is not it.
system samecn 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: 00112233445566778899aabbccddeeff00112233 X509.rsa 00112233 []" >>"$tmp/samecn/proc/keys"
doctor samecn
expect "a trusted key with the same name but another key id does not count" 1 "not enrolled" "$fix"

# ... nor a longer key id that starts with it; a CN with ": " in it is no obstacle.
system longer 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: $(keyid dkms)00: X509.rsa 00112233 []" >>"$tmp/longer/proc/keys"
doctor longer
expect "a key id that only starts with the DKMS key's does not count" 1 "not enrolled"
system colon 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri Org: DKMS module signing key: $(keyid dkms): X509.rsa 00112233 []" >>"$tmp/colon/proc/keys"
doctor colon
expect "the key id after a CN that has ': ' in it counts" 0 "kernel trusts: the DKMS key"

# ... nor its id in a key of another type.
system othertype 1 integrity dkms no
echo "4f4a7b2c I------     1 perm 1f010000     0     0 user      note: $(keyid dkms)" >>"$tmp/othertype/proc/keys"
doctor othertype
expect "the key id in a key that is not asymmetric does not count" 1 "not enrolled"

system loaded 1 integrity dkms yes
mkdir -p "$tmp/loaded/sys/module/guacrng"
echo O >"$tmp/loaded/sys/module/guacrng/taint"
doctor loaded
expect "loaded: exit 0, OK" 0 "OK: guacrng is loaded" "loaded:        yes (taint flags O)"

system unsigned 1 integrity unsigned no
doctor unsigned
expect "Secure Boot on, module unsigned: exit 1, 'not signed'" 1 "is not signed" "signature:     none (unsigned)" \
	"dkms remove guacrng --all" "$fix"

system other 1 integrity other yes
doctor other
expect "Secure Boot on, module signed by another key: exit 1, names that key and DKMS's" 1 \
	"signed by 'someone else'" "not by the key DKMS signs with (/var/lib/dkms/mok.pub: 'DKMS module signing key'"

case $out in *"mokutil --import"*) not_ok "... and, the DKMS key being trusted, no enrollment asked" ;;
*) ok "... and, the DKMS key being trusted, no enrollment asked" ;; esac
system other2 1 integrity other no
doctor other2
expect "... with the DKMS key not trusted either: the enrollment too" 1 "signed by 'someone else'" "$fix"

system sboff 0 none dkms no
doctor sboff
expect "Secure Boot off, no lockdown, key not enrolled: exit 0 (modprobe loads it)" 0 \
	"Secure Boot:   disabled" "OK: the kernel does not enforce module signatures"

system bios none none unsigned no
doctor bios
expect "no EFI at all, unsigned module: exit 0" 0 "Secure Boot:   no (not booted with EFI)" "OK: the kernel does not enforce"

system lockdownonly none integrity unsigned no
doctor lockdownonly
expect "lockdown without Secure Boot (lockdown=integrity) enforces too: exit 1" 1 "is not signed"

system sigenforce 0 none other no
echo Y >"$tmp/sigenforce/sys/module/module/parameters/sig_enforce"
doctor sigenforce
expect "module.sig_enforce=Y enforces too: another key's signature is a problem" 1 "sig_enforce=Y" "signed by 'someone else'"

system missing 1 integrity missing no
doctor missing
expect "no module for the kernel: exit 1, headers and dkms autoinstall" 1 \
	"no guacrng module for kernel $rel" "apt install linux-headers-$rel" "dkms autoinstall -k $rel"

system xz 1 integrity dkms no
xz "$tmp/xz/lib/modules/$rel/updates/dkms/guacrng.ko"
doctor xz
expect "a module compressed with xz is read through xz -dc" 1 \
	"guacrng.ko.xz" "signature:     'DKMS module signing key'" "not enrolled"

system pending 1 integrity dkms no
printf '\007\000\000\000x' >"$tmp/pending/sys/firmware/efi/efivars/MokNew-$shim"
doctor pending
expect "an enrollment pending (MokNew): exit 1, says to reboot and finish it" 1 \
	"a MOK enrollment is pending" "reboot, and in the blue MokManager"

system ownkey 1 integrity other no
mkdir -p "$tmp/ownkey/etc/keys"
cp "$tmp/other.der" "$tmp/ownkey/etc/keys/mine.der"
echo 'mok_certificate="/etc/keys/mine.der"' >>"$tmp/ownkey/etc/dkms/framework.conf"
doctor ownkey
expect "framework.conf's mok_certificate is the key checked and named in the fix" 1 \
	"DKMS key:      /etc/keys/mine.der: 'someone else'" "mokutil --import /etc/keys/mine.der"
case $out in *"/var/lib/dkms/mok.pub"*) not_ok "... and the default path is not named" ;; *) ok "... and the default path is not named" ;; esac

system nocert 1 integrity dkms no
rm "$tmp/nocert/var/lib/dkms/mok.pub"
doctor nocert
expect "the DKMS certificate missing: exit 1, said" 1 "DKMS key:      /var/lib/dkms/mok.pub: missing"

system given 1 integrity missing no
doctor given --module "$tmp/enrolled/lib/modules/$rel/updates/dkms/guacrng.ko"
expect "--module FILE checks that file (signed by the DKMS key, not enrolled here)" 1 \
	"module file:   $tmp/enrolled/lib/modules/$rel/updates/dkms/guacrng.ko" "not enrolled"

# A truncated signature is not taken for one.
system truncated 1 integrity missing no
head -c 70100 "$tmp/enrolled/lib/modules/$rel/updates/dkms/guacrng.ko" >"$tmp/trunc.ko"
doctor truncated --module "$tmp/trunc.ko"
expect "a cut-off module (no trailer) counts as unsigned" 1 "none (unsigned)"

doctor notenrolled --root "$tmp/does-not-exist"
expect "--root that is not a directory: exit 2, named" 2 "--root: '$tmp/does-not-exist' is not a directory"
doctor notenrolled extra
expect "an extra argument: exit 2" 2 "unexpected argument 'extra'"
doctor notenrolled --module "$tmp/none.ko"
expect "--module that cannot be read: exit 2, named" 2 "--module: cannot read '$tmp/none.ko'"
doctor notenrolled --kernel ../x
expect "--kernel with a slash: exit 2" 2 "--kernel: '../x' is not a kernel release"
out=$("$GUAC" doctor --help 2>&1)
status=$?
expect "--help: exit 0, every option" 0 "--module FILE" "--kernel RELEASE" "--root DIR" "Exit status"
tap_end
