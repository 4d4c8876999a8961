#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Kbuild's guards, against Debian's 6.12 headers: a kernel that is neither
# x86-64 nor arm64 (here: x86 without CONFIG_X86_64) is refused with a
# message that says why, and one without
# the hw_random core (CONFIG_HW_RANDOM unset) gets a module without the hwrng
# (no quality parameter, no dependency on it) that still builds warning-free.
# The SIMD step objects (x86-64's core_sse2/avx2/avx512.o; arm64's
# core_neon.o, cross-built against Debian's arm64 6.12 headers) call no
# function: 6.12's arm64 CC_FLAGS_FPU (-ffreestanding) once made the NEON
# step call memset every step, which -fbuiltin undoes.
# The module users install has no test hook and keeps guac_fops static; the
# test variants have theirs (GUAC_TEST=y: hwrng_fault=; GUAC_KUNIT=y: guac_fops).
# The configuration is overridden on make's command line, which Kbuild reads
# as it reads the kernel's own. Builds in private copies. TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
work=$top/build/guard-test

kver=$("$top/scripts/vm/fetch-kernel.sh" 6.12 2>/dev/null)
kdir=$(GUAC_TOP=$top sh -c '. "$GUAC_TOP/scripts/vm/lib.sh"; guac_kdir "$1"' sh "$kver")

# build NAME MAKE-ARGS...: a private copy of the sources, built W=1.
build() {
	local name=$1
	shift
	rm -rf "$work/$name"
	mkdir -p "$work/$name"
	(cd "$top" && git ls-files -z Kbuild drivers include | xargs -0 cp --parents -t "$work/$name")
	make -C "${build_kdir:-$kdir}" M="$work/$name" W=1 "$@" modules >"$work/$name.log" 2>&1
}

# calls_nothing NM OBJECT...: no undefined symbol in any OBJECT but the
# kernel's own instrumentation (ftrace's entry, x86's return thunk).
calls_nothing() {
	local nm=$1 obj calls
	shift
	for obj; do
		[ -f "$obj" ] || { echo "# $obj: missing"; return 1; }
		calls=$($nm -u "$obj" | awk '{print $2}' |
			grep -Ev '^(__fentry__|__x86_return_thunk|__x86_indirect_thunk_.*)$')
		[ -z "$calls" ] || { echo "# $obj calls:" $calls; return 1; }
	done
}

tap_begin
if build no-x86-64 CONFIG_X86_64=; then
	not_ok "without CONFIG_X86_64 (and not arm64) the build is refused" "$work/no-x86-64.log"
else
	ok "without CONFIG_X86_64 (and not arm64) the build is refused"
fi
if grep -q "guacrng: this kernel is not x86-64 or arm64" "$work/no-x86-64.log"; then
	ok "the refusal says why"
else
	not_ok "the refusal says why" "$work/no-x86-64.log"
fi

if build no-hwrng CONFIG_HW_RANDOM= && ! grep -q 'warning:' "$work/no-hwrng.log"; then
	ok "without CONFIG_HW_RANDOM the module builds, warning-free"
	ko=$work/no-hwrng/drivers/guacrng/guacrng.ko
	check "without CONFIG_HW_RANDOM: no hwrng code, no quality parameter" \
		'! modinfo -F parm "$ko" | grep -q "^quality:" && ! nm "$ko" | grep -q guac_hwrng_fill'
else
	not_ok "without CONFIG_HW_RANDOM the module builds, warning-free" "$work/no-hwrng.log"
fi

if build default; then
	ko=$work/default/drivers/guacrng/guacrng.ko
	check "with the kernel's configuration: the hwrng and its quality parameter are there" \
		'modinfo -F parm "$ko" | grep -q "^quality:" && nm "$ko" | grep -q guac_hwrng_fill'
	simd=$work/default/drivers/guacrng
	check "x86-64: the SIMD step objects call no function" \
		'calls_nothing nm "$simd/core_sse2.o" "$simd/core_avx2.o" "$simd/core_avx512.o"'
	# The module users install: no test hook, /dev/guac's operations private,
	# the hwrng reading the CPU's table by its name (issue 41, item 6).
	check "the module users install: no test parameter, no test hook, guac_fops static" \
		'! modinfo -F parm "$ko" | grep -q "hwrng_fault\|init_fault\|selftest_fault" &&
		 ! nm "$ko" | grep -q guac_test_ && nm "$ko" | grep -q " [rd] guac_fops$"'
else
	not_ok "with the kernel's configuration the module builds" "$work/default.log"
fi
# The test variants: hwrng_fault= swaps the table; guac_fops is reachable
# from the KUnit suites alone (GUAC_KUNIT; Debian's headers have no KUnit, so
# this builds the variant's sources without the suites).
if build test GUAC_TEST=y && build kunit GUAC_KUNIT=y &&
   ! grep -q "warning:" "$work/test.log" "$work/kunit.log"; then
	ko=$work/test/drivers/guacrng/guacrng.ko
	check "the test variant (GUAC_TEST=y): hwrng_fault= swaps the CPU's table, guac_fops still static" \
		'modinfo -F parm "$ko" | grep -q "^hwrng_fault:" && nm "$ko" | grep -q " T guac_test_hwrng_insn$" &&
		 nm "$ko" | grep -q " [rd] guac_fops$"'
	ko=$work/kunit/drivers/guacrng/guacrng.ko
	check "the KUnit variant (GUAC_KUNIT=y): guac_fops visible to the suites" \
		'nm "$ko" | grep -q " [RD] guac_fops$"'
else
	not_ok "the test variants (GUAC_TEST=y, GUAC_KUNIT=y) build" "$work/kunit.log"
fi

arm_kver=$(GUAC_ARCH=arm64 "$top/scripts/vm/fetch-kernel.sh" 6.12 2>/dev/null)
arm_kdir=$(GUAC_TOP=$top GUAC_ARCH=arm64 sh -c '. "$GUAC_TOP/scripts/vm/lib.sh"; guac_kdir "$1"' sh "$arm_kver")
if build_kdir=$arm_kdir build arm64 ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- &&
   ! grep -q 'warning:' "$work/arm64.log"; then
	ok "arm64 ($arm_kver): the module builds, warning-free"
	check "arm64: the NEON step object calls no function (no memset under -ffreestanding)" \
		'calls_nothing aarch64-linux-gnu-nm "$work/arm64/drivers/guacrng/core_neon.o"'
else
	not_ok "arm64 ($arm_kver): the module builds, warning-free" "$work/arm64.log"
fi
rm -rf "$work"
tap_end
