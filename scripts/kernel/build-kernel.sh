#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug test kernel: Debian's linux-source package, the
# kernel's defaults plus the fragments in scripts/kernel/*.config and
# tests/kunit/.kunitconfig. The result is cached outside the work tree, keyed
# by the source package version and a hash of the fragments, and rebuilt only
# when one of those changes.
#
#   build-kernel.sh            build if needed; print the kbuild directory
#   build-kernel.sh --dir      only print the kbuild directory it would use
#
# The kbuild directory holds arch/x86/boot/bzImage and serves as KDIR for
# out-of-tree modules. Environment: GUACRNG_CACHE (default /var/cache/guacrng),
# KERNEL_SOURCE_PKG (default linux-source-6.12), JOBS (default 2).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${GUACRNG_CACHE:-/var/cache/guacrng}
pkg=${KERNEL_SOURCE_PKG:-linux-source-6.12}
jobs=${JOBS:-2}
fragments=("$top"/scripts/kernel/*.config "$top"/tests/kunit/.kunitconfig)

log() { echo "build-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }

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
	if [ ! -e "$src/.guacrng-unpacked" ]; then
		log "unpacking $tarball into $src"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xf "$tarball" -C "$src.tmp" --strip-components=1
		touch "$src.tmp/.guacrng-unpacked"
		mv "$src.tmp" "$src"
	fi

	# An interrupted build resumes where it stopped: make is incremental.
	mkdir -p "$out"
	log "configuring $out from ${fragments[*]#"$top"/}"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -O "$out" \
		/dev/null "${fragments[@]}") >"$out/merge_config.log" 2>&1 ||
		die "merge_config failed: see $out/merge_config.log"
	verify_config "$out/.config"

	log "building with -j$jobs (log: $out/build.log)"
	nice -n 10 make -C "$src" O="$out" ARCH=x86_64 -j"$jobs" \
		>"$out/build.log" 2>&1 || {
		tail -n 30 "$out/build.log" >&2
		die "kernel build failed: see $out/build.log"
	}
	echo "cold build $(($(date +%s) - start)) s with -j$jobs on $(nproc) cores, $(date -u +%F)" \
		>"$out/build-time"
	touch "$out/.guacrng-built"
	log "built $(make -s -C "$out" kernelrelease): $(cat "$out/build-time")"

	# Builds for other fragments are stale now: they only take space.
	find "$cache" -maxdepth 1 -name 'kernel-build-*' ! -path "$out" \
		-exec rm -rf {} +
}

main() {
	local version tarball key src out

	version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
		die "$pkg is not installed (scripts/install-deps.sh installs it)"
	tarball=$(dpkg-query -L "$pkg" | grep -m1 '/linux-source-[^/]*\.tar\.xz$') ||
		die "$pkg ships no source tarball"
	key=$(cat "${fragments[@]}" | sha256sum | cut -c1-12)
	src=$cache/kernel-src-$version
	out=$cache/kernel-build-$version-$key

	if [ "${1:-}" = --dir ]; then
		echo "$out"
		return
	fi

	if [ ! -e "$out/.guacrng-built" ]; then
		mkdir -p "$cache"
		# One builder at a time; a second caller waits, then finds the cache.
		exec 9>"$cache/kernel.lock"
		flock 9
		[ -e "$out/.guacrng-built" ] || build "$src" "$out" "$tarball"
	fi
	log "$out ($(cat "$out/build-time"))"
	echo "$out"
}

# Parsed whole before it runs, so editing this file cannot upset a build.
main "$@"; exit
