# guac doctor on fake systems (--root): Secure Boot on or off, the DKMS key
# in one of the kernel's keyrings or not, the module unsigned, signed by the
# DKMS key or by another, changed after signing, its signature damaged, its
# digest or vermagic not the kernel's, missing, compressed, loaded; the
# shim's variables (MokNew, MokSBStateRT); a reader who is not root; the key
# framework.conf names; usage errors. The real kernel's side (a guest booted
# through shim) is make check-secureboot's. TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
tap_tmpdir
rel=6.1.0-99-amd64
efi_global=8be4df61-93ca-11d2-aa0d-00e098032b8c
shim=605dab50-e046-4300-abb6-3dd810dd8b23

# key NAME CN [SERIAL]: a key pair as DKMS makes it (DER certificate).
key() {
	openssl req -new -x509 -nodes -days 30 -subj "/CN=$2" -newkey rsa:2048 \
		${3:+-set_serial "$3"} -keyout "$tmp/$1.key" -outform DER -out "$tmp/$1.der" >/dev/null 2>&1
	openssl x509 -inform DER -in "$tmp/$1.der" -out "$tmp/$1.pem"
}
keyid() {
	openssl x509 -inform DER -in "$tmp/$1.der" -noout -ext subjectKeyIdentifier |
		sed -n '2s/[[:space:]:]//gp' | tr A-F a-f
}
# module RELEASE OUT: an ELF object as a .ko is, its .modinfo with the
# vermagic of RELEASE, and 70000 bytes of data.
module() {
	printf '%s\n' "__attribute__((section(\".modinfo\"), used)) static const char modinfo[] =" \
		"\"license=GPL\\0vermagic=$1 SMP preempt mod_unload modversions \";" \
		"__attribute__((used)) static const char body[70000] = { 1 };" >"$tmp/module.c"
	${CC:-cc} -c -o "$2" "$tmp/module.c"
}
# be32 N: N as 4 bytes, big-endian.
be32() {
	printf "\\$(printf %03o $(($1 >> 24 & 255)))\\$(printf %03o $(($1 >> 16 & 255)))"
	printf "\\$(printf %03o $(($1 >> 8 & 255)))\\$(printf %03o $(($1 & 255)))"
}
# le32 N: N as 4 bytes, little-endian (EFI's).
le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $(($1 >> 8 & 255)))"
	printf "\\$(printf %03o $(($1 >> 16 & 255)))\\$(printf %03o $(($1 >> 24 & 255)))"
}
# sign IN OUT KEY [OPENSSL-OPTION...]: what the kernel's sign-file appends: a
# detached PKCS#7 (CMS) signature naming the signer by issuer and serial
# (-keyid: by subjectKeyIdentifier, as sign-file -k), then append_sig's.
sign() {
	in=$1 out=$2 k=$3
	shift 3
	openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 "$@" \
		-signer "$tmp/$k.pem" -inkey "$tmp/$k.key" -in "$in" -out "$tmp/sig.p7" || return 1
	append_sig "$in" "$tmp/sig.p7" "$out"
}
# append_sig IN SIG OUT [HEADER [LEN]]: IN, SIG, struct module_signature (the
# 8 bytes HEADER, octal escapes, by default id_type 2 and zeros; the
# length big-endian, by default SIG's) and the magic string.
append_sig() {
	{
		cat "$1" "$2"
		printf "${4:-\\000\\000\\002\\000\\000\\000\\000\\000}"
		be32 "${5:-$(stat -c %s "$2")}"
		printf '~Module signature appended~\n'
	} >"$3"
}

# The keyrings of the fake kernel: /proc/keys lists them and the keys; what
# each holds (keyctl read, which has no file) is DIR/keyctl/SERIAL.
builtin=0b000001 secondary=0b000002 machine=0b000003 platform=0b000004
blacklist=0b000005 userring=0b000006
# link DIR KEYRING SERIAL: the keyring holds that key.
link() {
	echo "$3" >>"$1/keyctl/$2"
}

# system DIR SB LOCKDOWN MODULE-KEY WHERE: a fake root. SB 1/0/none (no
# EFI; with 1, module.sig_enforce=Y as Debian's kernel sets it), LOCKDOWN
# none/integrity, MODULE-KEY dkms/other/unsigned/missing, WHERE the keyring
# that holds the DKMS key: machine (yes), platform, blacklist, user, or no.
system() {
	d=$tmp/$1
	rm -rf "$d"
	mkdir -p "$d/proc" "$d/keyctl" "$d/sys/kernel/security" "$d/sys/module/module/parameters" \
		"$d/lib/modules/$rel/updates/dkms" "$d/var/lib/dkms" "$d/etc/dkms"
	if [ "$2" != none ]; then
		mkdir -p "$d/sys/firmware/efi/efivars"
		printf "\\006\\000\\000\\000\\00$2" >"$d/sys/firmware/efi/efivars/SecureBoot-$efi_global"
	fi
	case $3 in
	none) echo '[none] integrity confidentiality' ;;
	*) echo 'none [integrity] confidentiality' ;;
	esac >"$d/sys/kernel/security/lockdown"
	case $2 in 1) echo Y ;; *) echo N ;; esac >"$d/sys/module/module/parameters/sig_enforce"
	echo "Linux version $rel (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.999-1" \
		>"$d/proc/version"
	cp "$tmp/dkms.der" "$d/var/lib/dkms/mok.pub"
	echo '# mok_certificate=/var/lib/dkms/mok.pub' >"$d/etc/dkms/framework.conf"
	case $4 in
	dkms) sign "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" dkms ;;
	other) sign "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" other ;;
	unsigned) cp "$tmp/ko" "$d/lib/modules/$rel/updates/dkms/guacrng.ko" ;;
	esac
	{
		echo "$builtin I------     1 perm 1f0b0000     0     0 keyring   .builtin_trusted_keys: 1"
		echo "$secondary I------     1 perm 1f0f0000     0     0 keyring   .secondary_trusted_keys: 2"
		echo "$machine I------     1 perm 1f0b0000     0     0 keyring   .machine: 1"
		echo "$platform I------     1 perm 1f0b0000     0     0 keyring   .platform: 1"
		echo "$blacklist I------     1 perm 1f030000     0     0 keyring   .blacklist: 1"
		echo "$userring I--Q---     1 perm 3f010000     0 65534 keyring   _uid.0: empty"
		echo "1e4a7b2c I------     1 perm 1f010000     0     0 asymmetri Debian Secure Boot CA: 6ccece7e4c6c0d1f6149f3dd27dfcc5cbb419ea1: X509.rsa bb419ea1 []"
		[ "$5" = no ] || echo "2f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: $(keyid dkms): X509.rsa 00000000 []"
	} >"$d/proc/keys"
	: >"$d/keyctl/$machine"
	: >"$d/keyctl/$platform"
	: >"$d/keyctl/$blacklist"
	: >"$d/keyctl/$userring"
	link "$d" $builtin 1e4a7b2c
	link "$d" $secondary $builtin
	link "$d" $secondary $machine
	case $5 in
	yes | machine) link "$d" $machine 2f4a7b2c ;;
	platform) link "$d" $platform 2f4a7b2c ;;
	blacklist) link "$d" $blacklist 2f4a7b2c ;;
	user) link "$d" $userring 2f4a7b2c ;;
	esac
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
key dkms "DKMS module signing key" 0x5eed
key other "someone else"
# another key pair with the DKMS certificate's CN and serial
key twin "DKMS module signing key" 0x5eed
module "$rel" "$tmp/ko"
fix="mokutil --import /var/lib/dkms/mok.pub"
mod=lib/modules/$rel/updates/dkms/guacrng.ko
# lacks TEXT: ok when the output does not hold TEXT.
lacks() {
	case $out in *"$2"*) not_ok "$1"; echo "$out" | sed 's/^/#   | /' ;; *) ok "$1" ;; esac
}

system notenrolled 1 integrity dkms no
doctor notenrolled
expect "Secure Boot on, DKMS key not enrolled: exit 1, the cause and the fix" 1 \
	"Secure Boot:   enabled" "lockdown:      integrity" "not enrolled" "Key was rejected by service" \
	"$fix" "Enroll MOK" "signature:     'DKMS module signing key'" "matches the module's bytes"
lacks "... and no OK line" "OK:"

system enrolled 1 integrity dkms yes
doctor enrolled
expect "Secure Boot on, DKMS key in .machine (in .secondary_trusted_keys): exit 0, loadable" 0 \
	"OK: signed by the DKMS key, which the kernel trusts" "kernel trusts: the DKMS key (in .secondary_trusted_keys, .machine)" \
	"vermagic:      $rel SMP"

# The key id must match: a key of the same name but another id is not it.
system samecn 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: 00112233445566778899aabbccddeeff00112233: X509.rsa 00112233 []" >>"$tmp/samecn/proc/keys"
link "$tmp/samecn" $machine 3f4a7b2c
doctor samecn
expect "a trusted key with the same name but another key id does not count" 1 "not enrolled" "$fix"

# ... nor a longer key id that starts with it; a CN with ": " in it is no obstacle.
system longer 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri DKMS module signing key: $(keyid dkms)00: X509.rsa 00112233 []" >>"$tmp/longer/proc/keys"
link "$tmp/longer" $machine 3f4a7b2c
doctor longer
expect "a key id that only starts with the DKMS key's does not count" 1 "not enrolled"
system colon 1 integrity dkms no
echo "3f4a7b2c I------     1 perm 1f010000     0     0 asymmetri Org: DKMS module signing key: $(keyid dkms): X509.rsa 00112233 []" >>"$tmp/colon/proc/keys"
link "$tmp/colon" $machine 3f4a7b2c
doctor colon
expect "the key id after a CN that has ': ' in it counts" 0 "kernel trusts: the DKMS key"

# ... nor its id in a key of another type.
system othertype 1 integrity dkms no
echo "4f4a7b2c I------     1 perm 1f010000     0     0 user      note: $(keyid dkms)" >>"$tmp/othertype/proc/keys"
link "$tmp/othertype" $machine 4f4a7b2c
doctor othertype
expect "the key id in a key that is not asymmetric does not count" 1 "not enrolled"

# D5: the key's id in /proc/keys is not enough: the keyring that holds it must
# be one the kernel checks modules with.
system blacklisted 1 integrity dkms blacklist
doctor blacklisted
expect "D5: the DKMS key only on .blacklist: not trusted, revoked" 1 \
	"not the DKMS key: it is only in .blacklist" "revoked"
system userkey 1 integrity dkms user
doctor userkey
expect "D5: the DKMS key only in a user's keyring: not trusted" 1 \
	"not the DKMS key: it is only in another keyring" "$fix"
system platform 1 integrity dkms platform
doctor platform
expect "D5: the DKMS key in .platform on Debian's kernel (its ENOKEY fallback): trusted" 0 \
	"kernel trusts: the DKMS key (in .platform)" "OK: signed by the DKMS key"
system mainline 1 integrity dkms platform
echo "Linux version $rel (builder@example) #1 SMP PREEMPT_DYNAMIC" >"$tmp/mainline/proc/version"
doctor mainline
expect "D5: the DKMS key in .platform on a kernel without that fallback: not trusted, mokutil --trust-mok" 1 \
	"only in .platform, which this kernel does not check modules with" "mokutil --trust-mok"
lacks "... and no enrollment of a key already enrolled" "$fix"

# D4: a user who is not root sees none of the system keyrings in /proc/keys.
system nonroot 1 integrity dkms machine
echo "1a2b3c4d I--Q---     1 perm 3f030000  1000  1000 keyring   _ses: 1" >"$tmp/nonroot/proc/keys"
doctor nonroot
expect "D4: keyrings not visible (not root), key enrolled: says so, asks for root" 1 \
	"CANNOT TELL" "only root" "sudo guac doctor"
lacks "... and does not call it not enrolled" "not enrolled"
lacks "... nor offers an enrollment" "mokutil --import"

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
lacks "... and, the DKMS key being trusted, no enrollment asked" "mokutil --import"
system other2 1 integrity other no
doctor other2
expect "... with the DKMS key not trusted either: the enrollment too" 1 "signed by 'someone else'" "$fix"

# D1: the module changed after DKMS signed it: the kernel finds the key by the
# signer's id and the signature fails: fatal, Secure Boot or not.
system patched 1 integrity dkms yes
printf 'X' | dd of="$tmp/patched/$mod" bs=1 seek=3000 conv=notrunc 2>/dev/null
doctor patched
expect "D1: a byte patched after signing, key trusted, Secure Boot on: exit 1, changed after signing" 1 \
	"was changed" "does NOT match the module's bytes" "As the kernel trusts that key" "dkms remove guacrng --all"
system patchedoff 0 none dkms yes
printf 'X' | dd of="$tmp/patchedoff/$mod" bs=1 seek=3000 conv=notrunc 2>/dev/null
doctor patchedoff
expect "D1: the same with Secure Boot off: still refused (a failed check is fatal)" 1 \
	"was changed" "even with Secure Boot off"
system stripped 0 none dkms yes
sign "$tmp/ko" "$tmp/signed.ko" dkms
head -c 60000 "$tmp/ko" >"$tmp/cut.ko"
append_sig "$tmp/cut.ko" "$tmp/sig.p7" "$tmp/stripped/$mod"
doctor stripped
expect "D1: the module cut short, its signature kept: refused" 1 "was changed"

# D2: a damaged trailer or message: EBADMSG, fatal even with Secure Boot off.
system cutsig 0 none missing yes
sign "$tmp/ko" "$tmp/signed.ko" dkms
head -c $(($(stat -c %s "$tmp/sig.p7") - 40)) "$tmp/sig.p7" >"$tmp/cut.p7"
append_sig "$tmp/ko" "$tmp/cut.p7" "$tmp/cutsig/$mod"
doctor cutsig
expect "D2: a cut PKCS#7 message: Bad message, exit 1" 1 "signature:     damaged" "Bad message"
system longsig 0 none missing yes
append_sig "$tmp/ko" "$tmp/sig.p7" "$tmp/longsig/$mod" '\000\000\002\000\000\000\000\000' 2000000
doctor longsig
expect "D2: sig_len larger than the file: Bad message, exit 1" 1 "sig_len (2000000)" "Bad message"
system algo 0 none missing yes
append_sig "$tmp/ko" "$tmp/sig.p7" "$tmp/algo/$mod" '\001\000\002\000\000\000\000\000'
doctor algo
expect "D2: a non-zero algo field in the trailer: Bad message, exit 1" 1 "non-zero algo" "Bad message"
system keyidlen 0 none missing yes
append_sig "$tmp/ko" "$tmp/sig.p7" "$tmp/keyidlen/$mod" '\000\000\002\000\024\000\000\000'
doctor keyidlen
expect "D2: a non-zero key_id_len in the trailer: Bad message, exit 1" 1 "Bad message"

# D3: another key with the DKMS certificate's CN and serial: the kernel takes
# the trusted DKMS key by that id, and the signature does not verify with it.
system twin 1 integrity missing yes
sign "$tmp/ko" "$tmp/twin/$mod" twin
doctor twin
expect "D3: signed by another key with the same CN and serial: not OK" 1 \
	"does NOT match the module's bytes"
lacks "... and no OK line" "OK:"

# D6: a digest the kernel does not support: unsupported crypto, refused when enforced.
system md5 1 integrity missing yes
module 6.12.12-amd64 "$tmp/ko612"
sign "$tmp/ko612" "$tmp/md5.ko" dkms -md md5
doctor md5 --kernel 6.12.12-amd64 --module "$tmp/md5.ko"
expect "D6: MD5 on 6.12 (dropped in 6.7), enforced: unsupported, exit 1" 1 \
	"digest md5, which kernel 6.12.12-amd64 does not support" "unsupported crypto"
system sha3 1 integrity missing yes
sign "$tmp/ko" "$tmp/sha3.ko" dkms -md sha3-256
doctor sha3 --module "$tmp/sha3.ko"
expect "D6: SHA3-256 on 6.1 (added in 6.7), enforced: unsupported, exit 1" 1 \
	"digest sha3-256, which kernel $rel does not support" "unsupported crypto"
sign "$tmp/ko612" "$tmp/sha3-612.ko" dkms -md sha3-256
doctor sha3 --kernel 6.12.12-amd64 --module "$tmp/sha3-612.ko"
expect "... and SHA3-256 on 6.12 is supported: exit 0" 0 "OK: signed by the DKMS key"

# D7: a module for another kernel: Invalid module format.
system vermagic 1 integrity missing yes
module 6.1.0-98-amd64 "$tmp/ko98"
sign "$tmp/ko98" "$tmp/vermagic/$mod" dkms
doctor vermagic
expect "D7: vermagic of another kernel: exit 1, Invalid module format" 1 \
	"vermagic:      6.1.0-98-amd64" "Invalid module format" "dkms autoinstall -k $rel"

# D8: mokutil --disable-validation: the firmware's SecureBoot stays 1, shim's
# MokSBStateRT says validation is off, the kernel neither locks down nor enforces.
system novalidation 1 none dkms no
echo N >"$tmp/novalidation/sys/module/module/parameters/sig_enforce"
printf '\006\000\000\000\001' >"$tmp/novalidation/sys/firmware/efi/efivars/MokSBStateRT-$shim"
doctor novalidation
expect "D8: Secure Boot on but shim's validation off (MokSBStateRT): exit 0, loads" 0 \
	"validation off (MokSBStateRT)" "OK: the kernel does not enforce"

system sboff 0 none dkms no
doctor sboff
expect "Secure Boot off, no lockdown, key not enrolled: exit 0 (modprobe loads it)" 0 \
	"Secure Boot:   disabled" "OK: the kernel does not enforce module signatures"

system bios none none unsigned no
doctor bios
expect "no EFI at all, unsigned module: exit 0" 0 "Secure Boot:   no (not booted with EFI)" "OK: the kernel does not enforce"

system lockdownonly none integrity unsigned no
doctor lockdownonly
expect "lockdown without module.sig_enforce refuses too (EPERM): exit 1" 1 "is not signed" "Operation not permitted"

system sigenforce 0 none other no
echo Y >"$tmp/sigenforce/sys/module/module/parameters/sig_enforce"
doctor sigenforce
expect "module.sig_enforce=Y enforces too: another key's signature is a problem" 1 "sig_enforce=Y" "signed by 'someone else'"

# D12, D13: enforcement without Secure Boot: no MokManager, no enrollment to offer.
system noefi none integrity dkms no
doctor noefi
expect "D12: no EFI, lockdown from the command line, key not trusted: exit 1, no MOK fix" 1 \
	"did not boot with EFI" "Operation not permitted"
lacks "... and no mokutil --import" "mokutil --import"
system sbofforce 0 none dkms no
echo Y >"$tmp/sbofforce/sys/module/module/parameters/sig_enforce"
doctor sbofforce
expect "D13: Secure Boot off, module.sig_enforce=Y, key not trusted: exit 1, no MOK fix" 1 \
	"Secure Boot is off" "Key was rejected by service"
lacks "... and no mokutil --import" "mokutil --import"

system missing 1 integrity missing no
doctor missing
expect "no module for the kernel: exit 1, headers and dkms autoinstall" 1 \
	"no guacrng module for kernel $rel" "apt install linux-headers-$rel" "dkms autoinstall -k $rel"

# D9: compressed modules are read decompressed.
system xz 1 integrity dkms no
xz "$tmp/xz/$mod"
doctor xz
expect "a module compressed with xz is read through xz -dc" 1 \
	"guacrng.ko.xz, read through xz -dc" "signature:     'DKMS module signing key'" "not enrolled"
system gz 1 integrity dkms yes
gzip "$tmp/gz/$mod"
doctor gz
expect "D9: guacrng.ko.gz is read through gzip -dc: signed, trusted, exit 0" 0 \
	"guacrng.ko.gz, read through gzip -dc" "matches the module's bytes" "OK: signed by the DKMS key"
system zst 1 integrity dkms yes
zstd -q --rm "$tmp/zst/$mod"
doctor zst
expect "D9: guacrng.ko.zst is read through zstd -dc: exit 0" 0 \
	"guacrng.ko.zst, read through zstd -dc" "OK: signed by the DKMS key"
system badgz 1 integrity missing yes
echo "not gzip" >"$tmp/badgz/$mod.gz"
doctor badgz
expect "... a .gz that is not gzip: cannot read it, exit 1" 1 "cannot read" "not a valid compressed file"

# D10: sign-file -k names the signer by its subjectKeyIdentifier.
system bykeyid 1 integrity missing yes
sign "$tmp/ko" "$tmp/bykeyid/$mod" dkms -keyid
doctor bykeyid
expect "D10: a signer named by key id is the DKMS key: exit 0" 0 \
	"signature:     key id $(keyid dkms), sha256" "OK: signed by the DKMS key"

# D11: a pending enrollment (MokNew, EFI_SIGNATURE_LISTs of X.509 entries): of which key.
# moknew DIR KEY: MokNew enrolling KEY's certificate.
moknew() {
	n=$(stat -c %s "$tmp/$2.der")
	{
		printf '\007\000\000\000'
		printf '\241\131\300\245\344\224\247\112\207\265\253\025\134\053\360\162'
		le32 $((28 + 16 + n))
		printf '\000\000\000\000'
		le32 $((16 + n))
		printf '0123456789abcdef'
		cat "$tmp/$2.der"
	} >"$1/sys/firmware/efi/efivars/MokNew-$shim"
}
system pending 1 integrity dkms no
moknew "$tmp/pending" dkms
doctor pending
expect "an enrollment of the DKMS key pending (MokNew): exit 1, says to reboot and finish it" 1 \
	"a MOK enrollment is pending" "An enrollment of the DKMS key is pending" "reboot, and in the blue MokManager"
system pendingother 1 integrity dkms no
moknew "$tmp/pendingother" other
doctor pendingother
expect "D11: an enrollment of another key pending: not the fix; enroll the DKMS key" 1 \
	"not of the DKMS key" "$fix"

system ownkey 1 integrity other no
mkdir -p "$tmp/ownkey/etc/keys"
cp "$tmp/other.der" "$tmp/ownkey/etc/keys/mine.der"
echo 'mok_certificate="/etc/keys/mine.der"' >>"$tmp/ownkey/etc/dkms/framework.conf"
doctor ownkey
expect "framework.conf's mok_certificate is the key checked and named in the fix" 1 \
	"DKMS key:      /etc/keys/mine.der: 'someone else'" "mokutil --import /etc/keys/mine.der"
lacks "... and the default path is not named" "/var/lib/dkms/mok.pub"

system nocert 1 integrity dkms no
rm "$tmp/nocert/var/lib/dkms/mok.pub"
doctor nocert
expect "the DKMS certificate missing: exit 1, said" 1 "DKMS key:      /var/lib/dkms/mok.pub: missing"

system given 1 integrity missing no
doctor given --module "$tmp/enrolled/$mod"
expect "--module FILE checks that file (signed by the DKMS key, not enrolled here)" 1 \
	"module file:   $tmp/enrolled/$mod" "not enrolled"

# A truncated signature is not taken for one.
system truncated 1 integrity missing no
head -c $(($(stat -c %s "$tmp/ko") + 100)) "$tmp/enrolled/$mod" >"$tmp/trunc.ko"
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
expect "--help: exit 0, every option" 0 "--module FILE" "--kernel RELEASE" "--root DIR" "DIR/keyctl/SERIAL" "Exit status"
tap_end
