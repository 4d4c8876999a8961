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

# The guest architecture: amd64 (qemu-system-x86_64, the default) or arm64
# (qemu-system-aarch64 -M virt, the module cross-built with
# gcc-aarch64-linux-gnu and the amd64 linux-kbuild, the guest's programs from
# Debian's arm64 .debs). Everything per kernel is keyed by the kernel release,
# which names the architecture (6.1.0-56-amd64, 6.1.0-56-arm64); what is keyed
# by series (series-S, the private apt) gets an -arm64 suffix.
GUAC_ARCH=${GUAC_ARCH:-amd64}
case "$GUAC_ARCH" in
amd64) GUAC_ARCH_SUFFIX= ;;
arm64) GUAC_ARCH_SUFFIX=-arm64 ;;
*) guac_die "unknown GUAC_ARCH '$GUAC_ARCH' (amd64 or arm64)" ;;
esac

. "$GUAC_TOP/scripts/vm/apt.sh"

# The kernel series the harness knows (next: sid's kernel, only when named).
GUAC_SERIES="5.10 6.1 6.12 6.12-rt latest next"
# What make check runs (scripts/vm/check.sh's default): the full suite on
# 6.1, 6.12 and latest, the smoke set (tests/vm/smoke/) on 5.10 and 6.12-rt.
# On arm64: the full suite on 6.1 and 6.12, and 6.12 on a CPU without RNDR
# (the nornd set, tests/vm/nornd/); make check-all adds 5.10 and latest.
if [ "$GUAC_ARCH" = arm64 ]; then
	GUAC_SERIES="5.10 6.1 6.12 latest"
	GUAC_CHECK_KERNELS="6.1 6.12 6.12:nornd"
else
	GUAC_CHECK_KERNELS="5.10:smoke 6.1 6.12 6.12-rt:smoke latest"
fi

# Per series: "apt-release image-meta headers-meta toolchain", where the
# apt-release is a private apt of apt.sh and the toolchain is "host" (the
# host's own gcc-12) or the Debian release of a chroot (chroot.sh) with the
# gcc the headers were built with.
guac_series_metas() {
	if [ "$GUAC_ARCH" = arm64 ]; then
		# The toolchain is the cross compiler of that release:
		# gcc-aarch64-linux-gnu (gcc-10 in bullseye, 12 on the host,
		# 14 in trixie); build-module.sh adds ARCH= and CROSS_COMPILE=.
		case "$1" in
		5.10) echo "bullseye linux-image-arm64 linux-headers-arm64 bullseye" ;;
		6.1) echo "bookworm linux-image-arm64 linux-headers-arm64 host" ;;
		6.12) echo "bookworm linux-image-6.12-arm64 linux-headers-6.12-arm64 host" ;;
		latest) echo "trixie-backports linux-image-arm64 linux-headers-arm64 trixie" ;;
		*) guac_die "unknown arm64 kernel series '$1' (known: $GUAC_SERIES)" ;;
		esac
		return
	fi
	case "$1" in
	5.10) echo "bullseye linux-image-amd64 linux-headers-amd64 bullseye" ;;
	6.1) echo "bookworm linux-image-amd64 linux-headers-amd64 host" ;;
	6.12) echo "bookworm linux-image-6.12-amd64 linux-headers-6.12-amd64 host" ;;
	6.12-rt) echo "bookworm linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64 host" ;;
	latest) echo "trixie-backports linux-image-amd64 linux-headers-amd64 trixie" ;;
	next) echo "sid linux-image-amd64 linux-headers-amd64 sid" ;;
	*) guac_die "unknown kernel series '$1' (known: $GUAC_SERIES)" ;;
	esac
}

# A chroot of a Debian release, with the compilers the host lacks: what kbuild
# needs for an external module with W=1 (perl: kernel-doc; dwarves: pahole for
# the modules' BTF), besides the gcc-N a kernel's headers name.
GUAC_CHROOT_PACKAGES="make libc6-dev perl bc bison flex libelf-dev libssl-dev kmod dwarves"
# arm64: the release's aarch64 cross compiler too.
[ "$GUAC_ARCH" != arm64 ] ||
	GUAC_CHROOT_PACKAGES="$GUAC_CHROOT_PACKAGES gcc-aarch64-linux-gnu libc6-dev-arm64-cross"

# What the kernel's make needs beyond the headers tree: ARCH and the cross
# compiler's prefix on arm64 (6.12's headers name aarch64-linux-gnu-gcc-12
# themselves, 6.1's need it said).
guac_kbuild_flags() {
	[ "$GUAC_ARCH" != arm64 ] || echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
}

# The file that records the kernel release series S resolved to.
guac_series_file() {
	echo "$GUAC_VM_CACHE/series-$1$GUAC_ARCH_SUFFIX"
}

guac_chroot_dir() {
	echo "$GUAC_VM_CACHE/chroot-$1"
}

# The headers tree of a fetched Debian kernel, inside the cache.
guac_kdir() {
	echo "$GUAC_VM_CACHE/$1/root/usr/src/linux-headers-$1"
}

# The kernel release a series resolves to, as recorded by fetch-kernel.sh.
guac_series_kver() {
	cat "$(guac_series_file "$1")" 2>/dev/null ||
		guac_die "kernel series $1 ($GUAC_ARCH) not fetched yet (run GUAC_ARCH=$GUAC_ARCH scripts/vm/fetch-kernel.sh $1)"
}

# The module's sources as Kbuild reads them (drivers/, include/, the KUnit
# suites and the top Kbuild), copied into DIR/src: the out-of-tree builds of
# the harness and of sparse run there, never in the work tree. rsync keeps
# timestamps, so rebuilds stay incremental.
guac_copy_module_sources() {
	mkdir -p "$1/src/tests"
	rsync -a --delete --include='*/' --include='*.[ch]' --include='Kbuild' --exclude='*' \
		"$GUAC_TOP/drivers" "$GUAC_TOP/include" "$1/src/"
	rsync -a --delete --include='*/' --include='*.[ch]' --exclude='*' \
		"$GUAC_TOP/tests/kunit" "$1/src/tests/"
	cp "$GUAC_TOP/Kbuild" "$1/src/Kbuild"
}
