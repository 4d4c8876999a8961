#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: host-guard.sh record|verify STATE-FILE
#
# What a machine boots must not change because someone ran `make check` or
# `make demo` on it: record the host's kernel packages (images, headers,
# kbuild, modules), /boot and the /vmlinuz and /initrd.img links before, and
# verify after that they are exactly as they were. verify prints the
# difference and exits non-zero when anything changed.
set -eu

[ $# = 2 ] || { echo "usage: host-guard.sh record|verify STATE-FILE" >&2; exit 2; }
mode=$1 state=$2
boot=${GUAC_HOST_GUARD_BOOT:-/boot}	# another directory only for its own test

snapshot() {
	echo "# kernel packages"
	dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' \
		'linux-image-*' 'linux-headers-*' 'linux-kbuild-*' 'linux-modules-*' \
		'linux-binary-*' 2>/dev/null | grep -v ' un *$' | LC_ALL=C sort || true
	echo "# /boot"
	if [ -d "$boot" ]; then
		(cd "$boot" && find . -xdev \( -type f -o -type l \) -print | LC_ALL=C sort |
			while read -r f; do
				if [ -L "$f" ]; then
					echo "$f -> $(readlink "$f")"
				else
					echo "$f $(sha256sum <"$f" | cut -c1-16)"
				fi
			done)
	fi
	echo "# boot links"
	for l in /vmlinuz /vmlinuz.old /initrd.img /initrd.img.old; do
		[ -L "$l" ] && echo "$l -> $(readlink "$l")"
	done
	return 0
}

case "$mode" in
record)
	mkdir -p "$(dirname "$state")"
	snapshot >"$state"
	echo "host-guard: recorded $(grep -vc '^#' "$state") kernel packages, /boot files and links in $state"
	;;
verify)
	[ -f "$state" ] || { echo "host-guard: no recorded state $state" >&2; exit 2; }
	if snapshot | diff -u "$state" - >"$state.diff"; then
		echo "host-guard: 1 passed, 0 failed (kernel packages, /boot and boot links unchanged)"
	else
		echo "host-guard: the host's kernels or /boot changed:"
		cat "$state.diff"
		echo "host-guard: 0 passed, 1 failed"
		exit 1
	fi
	;;
*)
	echo "usage: host-guard.sh record|verify STATE-FILE" >&2
	exit 2
	;;
esac
