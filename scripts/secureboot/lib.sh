# SPDX-License-Identifier: GPL-2.0
#
# Secure Boot pieces of make check-secureboot, sourced after scripts/vm/lib.sh:
#
#   sb_chain            Debian's signed boot chain (shim-signed, grub-efi-amd64-
#                       signed, shim-helpers-amd64-signed) and mokutil with the
#                       libraries it needs, from the private apt (bookworm),
#                       unpacked once into $GUAC_SB_CACHE/chain/; prints it
#   sb_virt_fw_vars     virt-fw-vars (PyPI's virt-firmware) in a venv in the
#                       cache, made once; prints its path
#   sb_varstore OUT [CERT]
#                       a fresh copy of Debian's OVMF_VARS_4M.ms.fd (Microsoft's
#                       keys, Secure Boot on), with CERT added to MokList the
#                       way a fleet's provisioning does it (no MokManager)
#   sb_qemu_args VARS   QEMU's options for OVMF's Secure Boot firmware: q35 with
#                       SMM, the code read-only, VARS the per-run varstore
#
# Nothing is installed into the host: the .debs are only unpacked, and the venv
# lives in the cache. The host's packages are scripts/install-deps.sh's (ovmf,
# mtools, dosfstools, fdisk, python3-venv).

GUAC_SB_CACHE=$GUAC_VM_CACHE/secureboot
GUAC_SB_OVMF_CODE=${GUAC_SB_OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.secboot.fd}
GUAC_SB_OVMF_VARS=${GUAC_SB_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.ms.fd}
# shim's vendor GUID, the owner of the MokList entries mokutil --import makes.
GUAC_SB_SHIM_GUID=605dab50-e046-4300-abb6-3dd810dd8b23
# Shim and grub from the same point release: shim 16.1 refuses older grubs by
# their SBAT generation (the current bookworm candidates of each go together).
GUAC_SB_PACKAGES="shim-signed grub-efi-amd64-signed shim-helpers-amd64-signed mokutil libefivar1 libkeyutils1"
GUAC_SB_VIRT_FIRMWARE=${GUAC_SB_VIRT_FIRMWARE:-virt-firmware==26.10}

sb_chain() {
	local dir=$GUAC_SB_CACHE/chain d
	mkdir -p "$GUAC_SB_CACHE"
	(
		flock 9
		if [ ! -f "$dir/.ready" ]; then
			rm -rf "$dir" "$dir.tmp"
			mkdir -p "$dir.tmp/debs" "$dir.tmp/root"
			guac_apt_fresh bookworm
			# shellcheck disable=SC2086
			guac_apt_download bookworm "$dir.tmp/debs" $GUAC_SB_PACKAGES
			for d in "$dir.tmp/debs"/*.deb; do
				dpkg-deb -x "$d" "$dir.tmp/root" || guac_die "dpkg-deb -x $d failed"
			done
			for f in usr/lib/shim/shimx64.efi.signed usr/lib/shim/mmx64.efi.signed \
				usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed usr/bin/mokutil; do
				[ -f "$dir.tmp/root/$f" ] || guac_die "the signed chain has no $f"
			done
			(cd "$dir.tmp/debs" && ls) >"$dir.tmp/versions"
			touch "$dir.tmp/.ready"
			mv "$dir.tmp" "$dir"
		fi
	) 9>"$GUAC_SB_CACHE/chain.lock" || exit 1
	echo "$dir"
}

sb_virt_fw_vars() {
	local venv=$GUAC_SB_CACHE/venv
	mkdir -p "$GUAC_SB_CACHE"
	(
		flock 9
		if [ ! -x "$venv/bin/virt-fw-vars" ] || [ "$(cat "$venv/.spec" 2>/dev/null)" != "$GUAC_SB_VIRT_FIRMWARE" ]; then
			rm -rf "$venv"
			guac_log "making a venv with $GUAC_SB_VIRT_FIRMWARE (PyPI) in $venv"
			/usr/bin/python3 -m venv "$venv" >&2 ||
				guac_die "python3 -m venv failed (python3-venv; run scripts/install-deps.sh)"
			"$venv/bin/pip" install -q "$GUAC_SB_VIRT_FIRMWARE" >&2 ||
				guac_die "pip install $GUAC_SB_VIRT_FIRMWARE failed"
			echo "$GUAC_SB_VIRT_FIRMWARE" >"$venv/.spec"
		fi
	) 9>"$GUAC_SB_CACHE/venv.lock" || exit 1
	echo "$venv/bin/virt-fw-vars"
}

sb_varstore() {
	local out=$1 cert=${2:-}
	[ -f "$GUAC_SB_OVMF_VARS" ] && [ -f "$GUAC_SB_OVMF_CODE" ] ||
		guac_die "no $GUAC_SB_OVMF_CODE or $GUAC_SB_OVMF_VARS (ovmf; run scripts/install-deps.sh)"
	cp "$GUAC_SB_OVMF_VARS" "$out"
	[ -n "$cert" ] || return 0
	sb_add_mok "$out" "$cert"
}

# sb_add_mok VARS CERT: CERT (DER or PEM) into VARS' MokList, in place.
sb_add_mok() {
	local tool
	tool=$(sb_virt_fw_vars)
	"$tool" --inplace "$1" --add-mok "$GUAC_SB_SHIM_GUID" "$2" >"$1.log" 2>&1 || {
		cat "$1.log" >&2
		guac_die "virt-fw-vars --add-mok $2 failed"
	}
}

sb_qemu_args() {
	echo "-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on" \
		"-drive if=pflash,format=raw,unit=0,readonly=on,file=$GUAC_SB_OVMF_CODE" \
		"-drive if=pflash,format=raw,unit=1,file=$1"
}
