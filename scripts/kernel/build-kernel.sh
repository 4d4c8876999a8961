#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) a test kernel: Debian's linux-source package, the kernel's
# defaults plus the variant's fragments. The result is cached outside the
# work tree, keyed by the source package version and a hash of the
# fragments (and of the toolchain, for kcsan), and rebuilt only when one of
# those changes.
#
#   build-kernel.sh [--variant V]         build if needed; print the kbuild directory
#   build-kernel.sh [--variant V] --dir   only print the kbuild directory it would use
#
# Variants (default debug):
#   debug   base.config + debug.config (KASAN, lockdep, kmemleak, UBSAN...) +
#           tests/kunit/.kunitconfig, built with gcc, into
#           kernel-build-VERSION-HASH
#   kcsan   base.config + kcsan.config (KCSAN, lockdep...; KCSAN excludes
#           KASAN) + tests/kunit/.kunitconfig, built with clang (make LLVM=1),
#           into kernel-build-kcsan-VERSION-HASH. Whatever builds against it
#           must pass LLVM=1 too, or Kbuild sees another compiler and
#           reconfigures the cached tree.
#   clang   the kcsan variant's fragments, configured for clang (LLVM=1)
#           and prepared for external modules only (make
#           modules_prepare: a minute, not a kernel), into
#           kernel-prep-clang-VERSION-HASH: check-clang compiles the module
#           against it with clang and W=1. No vmlinux, so no Module.symvers:
#           modpost can only warn about the kernel's symbols.
#   arm64   arm64.config (QEMU's -M virt: PL011, virtio-mmio console,
#           initramfs; preempt, lockdep, might-sleep) + tests/kunit/.kunitconfig,
#           cross-built with gcc (ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-),
#           into kernel-build-arm64-VERSION-HASH. Modules built against it
#           pass the same two (scripts/vm/lib.sh's guac_kbuild_flags with
#           GUAC_ARCH=arm64).
#
# The kbuild directory holds the image (arch/x86/boot/bzImage,
# arch/arm64/boot/Image) and serves as KDIR for out-of-tree modules. Environment: GUACRNG_CACHE (default GUAC_VM_CACHE, else
# /var/cache/guacrng),
# KERNEL_SOURCE_PKG (default linux-source-6.12), JOBS (default 2),
# GUAC_BUILD_NICE (default 10; make check's own suites set 0).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${GUACRNG_CACHE:-${GUAC_VM_CACHE:-/var/cache/guacrng}}
pkg=${KERNEL_SOURCE_PKG:-linux-source-6.12}
jobs=${JOBS:-2}

log() { echo "build-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }
usage() { echo "usage: build-kernel.sh [--variant debug|kcsan|clang|arm64] [--dir]" >&2; exit 2; }

# shellcheck source=scripts/kernel/lib.sh
. "$top/scripts/kernel/lib.sh"
dir_only=
while [ $# -gt 0 ]; do
	guac_variant_option "$@"
	if [ "$variant_args" -gt 0 ]; then
		shift "$variant_args"
		continue
	fi
	case $1 in
	--dir)
		dir_only=1
		shift
		;;
	*)
		usage
		;;
	esac
done

# Per variant: the fragments, in the order they are merged and hashed; the
# kernel's ARCH; make's target (the whole kernel but for clang); make's toolchain arguments and the compiler whose version
# the key hashes with them; the cache directory's prefix (VERSION-HASH follows)
# and the pattern of that variant's directories, so that a new build removes
# the stale ones of its own variant only.
target=
case $variant in
debug)
	# Unchanged since before variants: the same fragments in the same order
	# hash to the same key, so existing debug builds stay valid.
	fragments=("$top"/scripts/kernel/base.config "$top"/scripts/kernel/debug.config
		"$top"/tests/kunit/.kunitconfig)
	karch=x86_64
	toolchain=()
	prefix=kernel-build-
	stale='kernel-build-[0-9]*'
	;;
kcsan)
	fragments=("$top"/scripts/kernel/base.config "$top"/scripts/kernel/kcsan.config
		"$top"/tests/kunit/.kunitconfig)
	karch=x86_64
	toolchain=(LLVM=1)
	compiler=clang
	prefix=kernel-build-kcsan-
	stale='kernel-build-kcsan-*'
	;;
clang)
	fragments=("$top"/scripts/kernel/base.config "$top"/scripts/kernel/kcsan.config
		"$top"/tests/kunit/.kunitconfig)
	karch=x86_64
	toolchain=(LLVM=1)
	compiler=clang
	target=modules_prepare
	prefix=kernel-prep-clang-
	stale='kernel-prep-clang-*'
	;;
arm64)
	fragments=("$top"/scripts/kernel/arm64.config "$top"/tests/kunit/.kunitconfig)
	karch=arm64
	toolchain=(CROSS_COMPILE=aarch64-linux-gnu-)
	compiler=aarch64-linux-gnu-gcc
	prefix=kernel-build-arm64-
	stale='kernel-build-arm64-*'
	;;
*)
	usage
	;;
esac

# Kconfig drops silently what it cannot satisfy: insist on every request.
verify_config() {
	local config=$1 line sym missing=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			grep -qxF -- "$line" "$config" && continue
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$config" || continue
			;;
		*)
			continue
			;;
		esac
		log "requested '$line', got '$(grep -E "^(# )?$sym[= ]" "$config" || echo "$sym unset")'"
		missing=1
	done < <(cat "${fragments[@]}")
	[ "$missing" = 0 ] || die "config fragments did not apply (dependencies?)"
}

build() {
	local src=$1 out=$2 tarball=$3 start

	start=$(date +%s)
	# The source is the variants' (each builds out of tree, O=): one unpacks it.
	(
		flock 8
		if [ ! -e "$src/.guacrng-unpacked" ]; then
			log "unpacking $tarball into $src"
			rm -rf "$src" "$src.tmp"
			mkdir -p "$src.tmp"
			tar -xf "$tarball" -C "$src.tmp" --strip-components=1
			touch "$src.tmp/.guacrng-unpacked"
			mv "$src.tmp" "$src"
		fi
	) 8>"$cache/kernel-src.lock"

	# An interrupted build resumes where it stopped: make is incremental.
	mkdir -p "$out"
	log "configuring $out from ${fragments[*]#"$top"/}"
	# Kconfig depends on the compiler (CC_IS_CLANG, HAVE_KCSAN_COMPILER):
	# merge_config's make takes LLVM=1 from the environment.
	(cd "$src" && env ARCH="$karch" "${toolchain[@]}" scripts/kconfig/merge_config.sh \
		-O "$out" /dev/null "${fragments[@]}") >"$out/merge_config.log" 2>&1 ||
		die "merge_config failed: see $out/merge_config.log"
	verify_config "$out/.config"

	log "building $variant with -j$jobs ${toolchain[*]} ${target:-(the kernel)} (log: $out/build.log)"
	# shellcheck disable=SC2086
	nice -n "${GUAC_BUILD_NICE:-10}" make -C "$src" O="$out" ARCH="$karch" "${toolchain[@]}" -j"$jobs" $target \
		>"$out/build.log" 2>&1 || {
		tail -n 30 "$out/build.log" >&2
		die "kernel build failed: see $out/build.log"
	}
	echo "cold build $(($(date +%s) - start)) s with -j$jobs${toolchain[*]:+ ${toolchain[*]}} on $(nproc) cores, $(date -u +%F)" \
		>"$out/build-time"
	touch "$out/.guacrng-built"
	log "built $(make -s --no-print-directory -C "$out" kernelrelease): $(cat "$out/build-time")"

	# This variant's builds for other fragments are stale now: they only take
	# space. The other variants' builds are not this one's to remove.
	find "$cache" -maxdepth 1 -name "$stale" ! -path "$out" \
		-exec rm -rf {} +
}

# What the cache key hashes: the fragments; for a clang or cross build also
# the toolchain arguments and the compiler's version, so a new compiler
# rebuilds.
# (debug: the fragments alone, exactly as before variants existed.)
keytext() {
	cat "${fragments[@]}"
	if [ "${#toolchain[@]}" -gt 0 ]; then
		echo "${toolchain[*]}"
		"$compiler" --version | head -n 1
	fi
}

main() {
	local version tarball key src out

	version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "$pkg is not installed (scripts/install-deps.sh installs it)"
	tarball=$(dpkg-query -L "$pkg" | grep -m1 '/linux-source-[^/]*\.tar\.xz$') ||
		die "$pkg ships no source tarball"
	key=$(keytext | sha256sum | cut -c1-12)
	src=$cache/kernel-src-$version
	out=$cache/$prefix$version-$key

	if [ -n "$dir_only" ]; then
		echo "$out"
		return
	fi

	if [ ! -e "$out/.guacrng-built" ]; then
		mkdir -p "$cache"
		# One builder of a variant at a time; a second caller waits, then
		# finds the cache. Other variants build meanwhile (make check's
		# clang tree beside the debug kernel).
		exec 9>"$cache/kernel-$variant.lock"
		flock 9
		[ -e "$out/.guacrng-built" ] || build "$src" "$out" "$tarball"
	fi
	log "$out ($(cat "$out/build-time"))"
	echo "$out"
}

# Parsed whole before it runs, so editing this file cannot upset a build.
main; exit
