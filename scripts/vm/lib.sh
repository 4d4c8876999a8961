# SPDX-License-Identifier: GPL-2.0
#
# Shared by the scripts in scripts/vm/: paths, messages and the map from a
# kernel series to the Debian meta-packages that track its current version.

# The scripts in scripts/vm/ are two levels down; others set GUAC_TOP first.
GUAC_TOP=${GUAC_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
GUAC_VM_BUILD=${GUAC_VM_BUILD:-$GUAC_TOP/build/vm}

# Fetched .debs and extracted kernels live outside the work tree, so a clean
# clone (or `make clean`) does not download them again.
if [ -z "${GUAC_VM_CACHE:-}" ]; then
	if mkdir -p /var/cache/guacrng 2>/dev/null && [ -w /var/cache/guacrng ]; then
		GUAC_VM_CACHE=/var/cache/guacrng
	else
		GUAC_VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/guacrng
	fi
fi

guac_log() {
	echo "${0##*/}: $*" >&2
}

guac_die() {
	echo "${0##*/}: error: $*" >&2
	exit 1
}

# Run a command as root, through sudo when we are not root.
guac_as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		guac_die "need root for: $* (run as root or install sudo)"
	fi
}

. "$GUAC_TOP/scripts/vm/apt.sh"

GUAC_SERIES="6.1 6.12"

# Per series: "debian-release image-meta headers-meta".
guac_series_metas() {
	case "$1" in
	6.1) echo "bookworm linux-image-amd64 linux-headers-amd64" ;;
	6.12) echo "bookworm linux-image-6.12-amd64 linux-headers-6.12-amd64" ;;
	*) guac_die "unknown kernel series '$1' (known: $GUAC_SERIES)" ;;
	esac
}

# The headers tree of a fetched Debian kernel, inside the cache.
guac_kdir() {
	echo "$GUAC_VM_CACHE/$1/root/usr/src/linux-headers-$1"
}

# The kernel release a series resolves to, as recorded by fetch-kernel.sh.
guac_series_kver() {
	cat "$GUAC_VM_CACHE/series-$1" 2>/dev/null ||
		guac_die "kernel series $1 not fetched yet (run scripts/vm/fetch-kernel.sh $1)"
}
