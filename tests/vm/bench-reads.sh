#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/vm/bench-reads.sh [SERIES]          (default 6.12)
#
# Host side, never part of make check: boot SERIES's Debian kernel in QEMU
# (TCG, VM_SMP vCPUs, default 2) with only the load scenario, then the
# guest's tests/vm/bench.sh in its guacvm.bench=reads mode: `guac bench
# small` (ns per small read of /dev/guac, /dev/zero, /dev/urandom, getrandom,
# and the core in-process) and `guac bench parallel --threads 1,2` (1 and 2
# readers of /dev/guac, one shared open file and one each). Under TCG only
# the ratios within one run say anything (docs/results/small-reads-*.md,
# docs/results/parallel-*.md).
#
# Builds into build/vm-bench/ (GUAC_VM_BENCH_BUILD), apart from build/vm/,
# with the scripts of scripts/vm/ as they are: static tools, the module for
# the kernel, an initramfs whose only scenario is 00-load.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-6.12}
export GUAC_TOP="$top"
export GUAC_VM_BUILD="${GUAC_VM_BENCH_BUILD:-$top/build/vm-bench}"
vm=$top/scripts/vm
user=$GUAC_VM_BUILD/userspace
CC=${CC:-cc}

mkdir -p "$GUAC_VM_BUILD"
make -s -C "$top/tools/userspace" O="$user" CC="$CC -static" >/dev/null
$CC -static -O2 -g -std=c11 -Wall -Wextra -Werror -pthread \
	-I"$top/tools/userspace/include" -I"$top/include" -I"$top/tools/userspace/lib" \
	-o "$GUAC_VM_BUILD/guac-vmtest" "$top"/tests/vm/vmtest/*.c "$user/util.o" "$user/libguac.a"

kver=$("$vm/fetch-kernel.sh" "$series")
"$vm/build-module.sh" "$kver" >/dev/null

scenarios=$(mktemp -d)
trap 'rm -rf "$scenarios"' EXIT
cp "$top/tests/vm/scenarios/00-load.sh" "$scenarios/"
GUAC_VM_SCENARIOS=$scenarios "$vm/make-initramfs.sh" "$kver" >/dev/null

VM_SMP=${VM_SMP:-2} GUAC_VM_APPEND="${GUAC_VM_APPEND:-} guacvm.bench=reads" \
	"$vm/run-kernel.sh" "$kver"
