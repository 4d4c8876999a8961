#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# host-guard.sh itself: unchanged state verifies, a new, changed or removed
# file in the boot directory fails. TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
guard=$top/tests/host/host-guard.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GUAC_HOST_GUARD_BOOT=$work/boot
mkdir -p "$work/boot"
echo one >"$work/boot/vmlinuz-x"

tap_begin
"$guard" record "$work/state" >/dev/null
check "unchanged: verify passes" '"$guard" verify "$work/state" >/dev/null'
echo two >"$work/boot/vmlinuz-x"
check "a changed boot file fails verify" '! "$guard" verify "$work/state" >/dev/null'
echo one >"$work/boot/vmlinuz-x"
ln -s vmlinuz-x "$work/boot/vmlinuz"
check "a new boot link fails verify" '! "$guard" verify "$work/state" >/dev/null'
rm "$work/boot/vmlinuz" "$work/boot/vmlinuz-x"
check "a removed boot file fails verify" '! "$guard" verify "$work/state" >/dev/null'
tap_end
