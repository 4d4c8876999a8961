#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/vm/bench-fio.sh [SERIES [OUT]]       (default 6.12, stdout)
#
# Host side, never part of make check (issue 37, item 7, in a guest): random
# 4 KiB writes at queue depth 32, guac against fio's io_uring engine with the
# same pattern (every block once), on a null_blk device and a brd RAM disk in
# SERIES's Debian kernel under QEMU (TCG, VM_SMP vCPUs, default 2; VM_MEM,
# default 1G), ROUNDS rounds (default 3) in an order reversed from one round
# to the next, LENGTH_MIB MiB a run (default 64), O_DIRECT:
#
#   fio --name=rw --filename=DEV --rw=randwrite --bs=4k --iodepth=32
#       --ioengine=io_uring --direct=1 --size=L --norandommap=0
#       --randrepeat=0 --end_fsync=1 --output-format=json
#   guac write --force --pattern random --bs 4K --iodepth 32 --direct
#       --length L --json DEV
#
# and, a third row, the same fio with --refill_buffers (fresh random data for
# every write, as guac generates its own; plain fio fills its buffers once).
# The guest half is tests/vm/fio/10-fio-compare.sh. IOPS: fio's JSON iops;
# guac's bytes_written / seconds / 4096. Prints every round's figures, the
# medians and the median of the rounds' guac/fio ratios per device, with the
# host CPU, as Markdown (to OUT if given). Under TCG every guest instruction
# is emulated: the IOPS are the emulator's, only the ratios mean anything.
#
# Builds into build/vm-bench-fio/ (GUAC_VM_BENCH_BUILD), apart from build/vm/:
# static guac and guac-vmtest, the module for the kernel, an initramfs whose
# only scenario is tests/vm/fio/, with the modules of tests/vm/fio/modules
# (null_blk, brd) and fio from the host (tests/vm/fio/host-programs, about 80
# MB of shared libraries: this initramfs only).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
series=${1:-6.12}
out=${2:-/dev/stdout}
rounds=${ROUNDS:-3}
mib=${LENGTH_MIB:-64}
export GUAC_TOP="$top"
export GUAC_VM_BUILD="${GUAC_VM_BENCH_BUILD:-$top/build/vm-bench-fio}"
vm=$top/scripts/vm
user=$GUAC_VM_BUILD/userspace
CC=${CC:-cc}

command -v fio >/dev/null || { echo "bench-fio.sh: needs fio on the host (scripts/install-deps.sh)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-fio.sh: needs python3" >&2; exit 2; }

mkdir -p "$GUAC_VM_BUILD"
make -s -C "$top/tools/userspace" O="$user" CC="$CC -static" >/dev/null
$CC -static -O2 -g -std=c11 -Wall -Wextra -Werror -pthread \
	-I"$top/tools/userspace/include" -I"$top/include" -I"$top/tools/userspace/lib" \
	-o "$GUAC_VM_BUILD/guac-vmtest" "$top"/tests/vm/vmtest/*.c "$user/util.o" "$user/libguac.a"

kver=$("$vm/fetch-kernel.sh" "$series")
"$vm/build-module.sh" "$kver" >/dev/null
GUAC_VM_SCENARIOS=$top/tests/vm/fio GUAC_VM_MODULES=$top/tests/vm/fio/modules \
	GUAC_VM_HOST_PROGRAMS=$top/tests/vm/fio/host-programs \
	"$vm/make-initramfs.sh" "$kver" >/dev/null

load=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
VM_SMP=${VM_SMP:-2} GUAC_VM_APPEND="${GUAC_VM_APPEND:-} guacvm.bench=0 guacvm.fio_rounds=$rounds guacvm.fio_mib=$mib" \
	"$vm/run-kernel.sh" "$kver" >&2 || status=$?

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
fam=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`tests/vm/bench-fio.sh $series\` on"
	echo "**$cpu (family $fam model $model)**, $(nproc) host CPUs, host Linux $(uname -r), load"
	echo "average before the run $load; guest: Debian's $kver in qemu-system-x86_64 -cpu max"
	echo "(TCG), ${VM_SMP:-2} vCPUs, ${VM_MEM:-1G} of memory; $mib MiB a run, $rounds rounds, the order reversed"
	echo "each round. Under TCG the IOPS are the emulator's: only the guac/fio ratios mean anything."
	echo
	# The generator alone on the host, against the guest's "gen" lines below.
	for impl in generic auto; do
		t0=$(date +%s.%N)
		"$user/guac" gen --impl $impl --length "${mib}M" >/dev/null
		echo "- host: gen $impl $(echo "$t0 $(date +%s.%N)" | awk -v b=$((mib << 20)) \
			'{ printf "%.1f MB/s (%.3f s for the %d bytes)", b / ($2 - $1) / 1e6, $2 - $1, b }')"
	done
	python3 - "$GUAC_VM_BUILD/$kver/tap.txt" <<'EOF'
import statistics, sys
runs, notes = {}, []
for line in open(sys.argv[1]):
    if not line.startswith("# bench: "):
        continue
    words = line[len("# bench: "):].split()
    if words[0] == "run":
        r, dev, tool, iops, sec = words[1:6]
        runs.setdefault(dev, {}).setdefault(tool, {})[int(r)] = (float(iops), float(sec))
    else:
        notes.append(" ".join(words))
for n in notes:
    print("- %s" % n)
print()
med = statistics.median
for dev, tools in runs.items():
    rounds = sorted(set(r for t in tools.values() for r in t))
    print("/dev/%s, IOPS:" % dev)
    print()
    print("| tool | " + " | ".join("round %d" % r for r in rounds) + " | median | median s |")
    print("|---|" + "---|" * len(rounds) + "---|---|")
    for tool, v in tools.items():
        print("| %s | %s | %.0f | %.3f |" % (tool, " | ".join(
            "%.0f" % v[r][0] if r in v else "-" for r in rounds),
            med(x[0] for x in v.values()), med(x[1] for x in v.values())))
    print()
    for ref in ("fio", "fio-refill"):
        both = [r for r in rounds if r in tools.get(ref, {}) and r in tools.get("guac", {})]
        if both:
            ratios = [tools["guac"][r][0] / tools[ref][r][0] for r in both]
            print("- guac / %s on /dev/%s: median of the rounds' ratios **%.2fx** (%s), ratio "
                  "of medians %.2fx" % (ref, dev, med(ratios), ", ".join("%.2f" % x for x in ratios),
                  med(tools["guac"][r][0] for r in both) / med(tools[ref][r][0] for r in both)))
        else:
            print("- /dev/%s: no round with both guac's and %s's figures" % (dev, ref))
    print()
EOF
	grep '^not ok ' "$GUAC_VM_BUILD/$kver/tap.txt" | sed 's/^/failed: /' || true
} >"$out"
exit "$status"
