#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: chroot.sh ensure RELEASE [PACKAGE...]
#        chroot.sh run RELEASE [--bind DIR]... -- COMMAND [ARGS...]
#
# The compilers other than the host's gcc-12: a Debian RELEASE (bullseye,
# trixie, sid) as a minbase chroot in $GUAC_VM_CACHE/chroot-RELEASE, made by
# the host's debootstrap from Debian's archive and kept in the cache.
#
# ensure: create the chroot once (debootstrap --variant=minbase --include=
# the packages), or install into it the PACKAGEs it lacks; concurrent callers
# wait for each other (flock). Nothing of the host is changed.
# run: COMMAND in the chroot, in a private mount namespace (the mounts vanish
# with it): /proc mounted (kbuild on 7.x reads it) and each DIR bind-mounted at
# its own path, so absolute paths into the cache and the build tree work inside.
set -eu
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || guac_die "usage: chroot.sh ensure RELEASE [PACKAGE...] | run RELEASE [--bind DIR]... -- CMD..."
action=$1 release=$2
shift 2
case "$release" in
*[!a-z0-9-]* | '') guac_die "bad release name '$release'" ;;
esac
root=$(guac_chroot_dir "$release")

# apt-get in the chroot, /proc mounted for the maintainer scripts; the
# chroot's apt waits for its own dpkg lock, as every apt call here does.
chroot_apt() {
	# shellcheck disable=SC2016
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc"
		root=$1
		shift
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
			apt-get -q -y -o DPkg::Lock::Timeout=3600 "$@"' sh "$root" "$@"
}

ensure() {
	local pkgs missing p start
	# Sorted, unique, one line; empty (no --include at all) without PACKAGEs.
	pkgs=$(printf '%s\n' "$@" | LC_ALL=C sort -u | xargs)
	if [ ! -f "$root/.guac-ready" ]; then
		command -v debootstrap >/dev/null || guac_die "no debootstrap (run scripts/install-deps.sh)"
		start=$(date +%s)
		guac_log "creating the $release chroot in $root (debootstrap minbase: a few minutes)"
		rm -rf "$root.tmp"
		mkdir -p "$root.tmp"
		# In a private mount namespace: the /proc and /sys debootstrap
		# mounts in the target go away with it, even when it fails.
		# shellcheck disable=SC2086
		nice unshare --mount --propagation private debootstrap --variant=minbase --arch=amd64 \
			--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
			${pkgs:+--include=$(echo $pkgs | tr ' ' ,)} \
			"$release" "$root.tmp" "$GUAC_DEBIAN_MIRROR" >"$root.log" 2>&1 || {
			tail -n 20 "$root.log" >&2
			guac_die "debootstrap of $release failed (log: $root.log)"
		}
		rm -rf "$root.tmp/var/cache/apt/archives/"*.deb
		echo "$pkgs" >"$root.tmp/.guac-packages"
		echo "$(($(date +%s) - start))" >"$root.tmp/.guac-seconds"
		touch "$root.tmp/.guac-ready"
		rm -rf "$root"
		mv "$root.tmp" "$root"
		guac_log "the $release chroot took $(cat "$root/.guac-seconds") s, $(du -sh "$root" | cut -f1)"
	fi
	missing=
	for p in $pkgs; do
		chroot "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	guac_log "installing$missing into the $release chroot"
	# shellcheck disable=SC2086
	chroot_apt update >&2 && chroot_apt install --no-install-recommends $missing >&2 ||
		guac_die "apt-get install$missing in the $release chroot failed"
	rm -rf "$root/var/cache/apt/archives/"*.deb
}

run() {
	local binds=
	while [ $# -gt 0 ]; do
		case "$1" in
		--bind)
			[ -d "$2" ] || guac_die "--bind $2: no such directory"
			binds="$binds $(cd "$2" && pwd -L)"
			shift 2
			;;
		--)
			shift
			break
			;;
		*) guac_die "run: unexpected '$1' (want --bind DIR or --)" ;;
		esac
	done
	[ $# -gt 0 ] || guac_die "run: no command"
	[ -f "$root/.guac-ready" ] || guac_die "no $release chroot in $root (chroot.sh ensure $release)"
	# shellcheck disable=SC2016
	exec unshare --mount --propagation private sh -c '
		set -e
		root=$1 binds=$2
		shift 2
		mount -t proc proc "$root/proc"
		for d in $binds; do
			mkdir -p "$root$d"
			mount --bind "$d" "$root$d"
		done
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 TERM=dumb "$@"' sh "$root" "$binds" "$@"
}

case "$action" in
ensure)
	exec 9>"$root.lock"
	flock 9
	ensure "$@"
	;;
run)
	run "$@"
	;;
*)
	guac_die "unknown action '$action' (ensure or run)"
	;;
esac
