# SPDX-License-Identifier: GPL-2.0
#
# A private apt for Debian's archive, sourced by the scripts that fetch
# kernels: its own sources.list, package lists and download cache under
# $GUAC_VM_CACHE/apt/RELEASE, and an empty dpkg status. It only ever reads the
# archive and downloads .debs; nothing is installed into the host, and the
# host's own apt state (its lists, its cache, what it has installed) is
# neither read nor changed.
#
#   guac_apt RELEASE apt-get|apt-cache ARGS...
#   guac_apt_update RELEASE        refresh the lists (done when they are missing)
#
# GUAC_DEBIAN_MIRROR and GUAC_DEBIAN_SECURITY_MIRROR pick other mirrors.
# With GUAC_ARCH=arm64 the tree is $GUAC_VM_CACHE/apt/RELEASE-arm64, whose
# native architecture is arm64 (the kernels, busybox-static and the guest's
# programs) with amd64 beside it (linux-kbuild-N:amd64: the host runs kbuild).

GUAC_DEBIAN_MIRROR=${GUAC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
GUAC_DEBIAN_SECURITY_MIRROR=${GUAC_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# The suites of RELEASE, one "URI SUITE" per line.
guac_apt_suites() {
	case "$1" in
	bullseye)
		echo "$GUAC_DEBIAN_MIRROR bullseye"
		echo "$GUAC_DEBIAN_MIRROR bullseye-updates"
		echo "$GUAC_DEBIAN_SECURITY_MIRROR bullseye-security"
		;;
	bookworm)
		echo "$GUAC_DEBIAN_MIRROR bookworm"
		echo "$GUAC_DEBIAN_MIRROR bookworm-updates"
		echo "$GUAC_DEBIAN_SECURITY_MIRROR bookworm-security"
		;;
	trixie-backports)
		echo "$GUAC_DEBIAN_MIRROR trixie"
		echo "$GUAC_DEBIAN_MIRROR trixie-updates"
		echo "$GUAC_DEBIAN_SECURITY_MIRROR trixie-security"
		echo "$GUAC_DEBIAN_MIRROR trixie-backports"
		;;
	sid)
		echo "$GUAC_DEBIAN_MIRROR sid"
		;;
	*)
		guac_die "unknown Debian release '$1' for the private apt"
		;;
	esac
}

guac_apt_dir() {
	echo "$GUAC_VM_CACHE/apt/$1$GUAC_ARCH_SUFFIX"
}

# The architectures of the private apt: the native one first.
guac_apt_arch_opts() {
	if [ "$GUAC_ARCH" = arm64 ]; then
		echo "-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o APT::Architectures::=amd64"
	else
		echo "-o APT::Architecture=amd64"
	fi
}

# Set up the private tree of RELEASE (idempotent).
guac_apt_setup() {
	local dir
	dir=$(guac_apt_dir "$1")
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/etc/preferences.d"
	guac_apt_suites "$1" | while read -r uri suite; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main"
	done >"$dir/sources.list.new"
	mv "$dir/sources.list.new" "$dir/sources.list"
	guac_apt_preferences "$1" >"$dir/etc/preferences.d/guacrng"
	: >"$dir/status"
}

# Pins of RELEASE. Backports are pinned at 100 by their Release file (never a
# candidate unless asked for); trixie-backports is there for its kernel, so
# its linux-* packages get the priority of the release they extend, and the
# higher version, the backport, becomes the candidate.
guac_apt_preferences() {
	case "$1" in
	trixie-backports)
		printf '%s\n' "Package: linux-*" "Pin: release n=trixie-backports" "Pin-Priority: 500"
		;;
	esac
}

guac_apt() {
	local release=$1 dir
	shift
	dir=$(guac_apt_dir "$release")
	[ -f "$dir/sources.list" ] && [ -f "$dir/etc/preferences.d/guacrng" ] ||
		guac_apt_setup "$release"
	# The sandbox user _apt may not write to our cache: we only download,
	# and apt checks every file against the signed lists either way. One apt
	# at a time per release (flock): a second `apt-get update` on the same
	# lists would fail on apt's own lock instead of waiting.
	# shellcheck disable=SC2046
	flock "$dir/lock" "$@" -q $(guac_apt_arch_opts) \
		-o Dir::Etc::sourcelist="$dir/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::Etc::preferences="$dir/etc/preferences" \
		-o Dir::Etc::preferencesparts="$dir/etc/preferences.d" \
		-o Dir::State::Lists="$dir/lists" \
		-o Dir::State::status="$dir/status" \
		-o Dir::Cache="$dir/cache" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Sandbox::User="$(id -un)" \
		-o Acquire::Retries=3 \
		-o DPkg::Lock::Timeout=3600
}

guac_apt_update() {
	guac_apt_setup "$1"
	guac_log "updating the private package lists of $1"
	guac_apt "$1" apt-get update >&2 ||
		guac_die "apt-get update of the private $1 lists failed (network? mirror $GUAC_DEBIAN_MIRROR)"
	date +%s >"$(guac_apt_dir "$1")/updated"
}

# Update when the lists are missing or older than a day: kernels move on.
guac_apt_fresh() {
	local stamp
	stamp=$(cat "$(guac_apt_dir "$1")/updated" 2>/dev/null || echo 0)
	[ $(($(date +%s) - stamp)) -lt 86400 ] || guac_apt_update "$1"
}

# guac_apt_download RELEASE DIR PACKAGE[=VERSION]...: .debs into DIR, once.
guac_apt_download() {
	local release=$1 dest=$2
	shift 2
	mkdir -p "$dest"
	(cd "$dest" && guac_apt "$release" apt-get download "$@" >&2) ||
		guac_die "apt-get download $* ($release) failed"
}
