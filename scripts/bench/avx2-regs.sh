#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# What AVX2's 16 vector registers cost the avx2 core (docs/cost-model.md,
# section 4): drivers/guacrng/core_avx2.c compiled twice with the rotates
# kept as shift, shift, or and xor (an empty asm after the left shift, the
# or and the xor, so that no compiler fuses them into vprold or
# vpternlogd), once
# with -mavx2 (16 ymm registers: two groups' 32 state vectors spill) and
# once with -mavx2 -mavx512vl (32 ymm registers, EVEX encoded: they fit).
#
#   scripts/bench/avx2-regs.sh [ROUNDS]
#
# 1. Prints each object's main-loop mix (scripts/bench/loop-mix.py): the
#    vector ALU uops must agree within a few percent, or the comparison says
#    nothing; loads and stores show the spills.
# 2. Links each object into a copy of build/userspace/guac (built with
#    `make tools` if missing) and checks that `guac gen --impl avx2` gives
#    the shipped binary's bytes (sha256 of 4 MiB at an odd offset).
# 3. Runs `guac bench core --sizes 1M` with the shipped binary and the two
#    variants, alternating, ROUNDS times (default 3), and prints the best
#    trial of avx2 and of AES-128-CTR (MB/s) and their ratio.
#
# Needs a CPU with AVX-512VL (else says so and exits 0: nothing to compare).
# Writes nothing outside build/bench/avx2-regs.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROUNDS=${1:-3}
OUT=$ROOT/build/bench/avx2-regs
U=$ROOT/build/userspace
CC=${CC:-gcc}

die() {
	echo "avx2-regs.sh: $*" >&2
	exit 1
}

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
if ! grep -qw avx512vl /proc/cpuinfo; then
	echo "avx2-regs.sh: this CPU has no AVX-512VL: no 32-register variant to compare"
	exit 0
fi
[[ -x $U/guac ]] || make -C "$ROOT" tools >&2

rm -rf "$OUT"
mkdir -p "$OUT/src"
cp "$ROOT"/drivers/guacrng/core_avx2.c "$ROOT"/drivers/guacrng/core_simd.h \
	"$ROOT"/drivers/guacrng/core_round.h "$OUT/src/"
python3 - "$OUT/src/core_round.h" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
rotate = "\treturn (v << n) | (v >> (32 - n));\n"
if text.count(rotate) != 1:
    sys.exit("avx2-regs.sh: guac_rotl() in core_round.h has changed; update this script")
text = text.replace(rotate, """\tGUAC_WORD l = v << n, r;

\t__asm__("" : "+v"(l));
\tr = l | (v >> (32 - n));
\t__asm__("" : "+v"(r));
\treturn r;
""")
for g in ("0", "1"):
    step = "\tx[%s][w] ^= guac_rotl(x[%s][s] + x[%s][t], r);\n" % (g, g, g)
    if text.count(step) != 1:
        sys.exit("avx2-regs.sh: guac_mix() in core_round.h has changed; update this script")
    text = text.replace(step, step + "\t__asm__(\"\" : \"+v\"(x[%s][w]));\n" % g)
open(path, "w").write(text)
EOF

declare -A FLAGS=([regs16]="-mavx2" [regs32]="-mavx2 -mavx512vl")
# The tool's objects; the library (core and CPU detection) comes from libguac-*.a.
mapfile -t objs < <(ls "$U"/*.o | grep -vE '/(core[^/]*|cpu)\.o$')
for v in regs16 regs32; do
	# shellcheck disable=SC2086 # FLAGS holds several options
	"$CC" -I"$OUT/src" -I"$ROOT/tools/userspace/include" -I"$ROOT/include" \
		-O2 -std=c11 -Wall -Wextra -Werror ${FLAGS[$v]} \
		-c -o "$OUT/core_avx2.o" "$OUT/src/core_avx2.c"
	echo "== $v (${FLAGS[$v]}): main loop of guac_steps_avx2"
	python3 "$ROOT/scripts/bench/loop-mix.py" "$OUT/core_avx2.o" guac_steps_avx2 |
		grep -E 'instructions|vector ALU|  load|store'
	cp "$U/libguac.a" "$OUT/libguac-$v.a"
	(cd "$OUT" && ar r "libguac-$v.a" core_avx2.o)
	"$CC" -O2 -o "$OUT/guac-$v" "${objs[@]}" "$OUT/libguac-$v.a" -lblkid -lcrypto -lpthread -lm
done

want=$("$U/guac" gen --impl avx2 --offset 1000003 --length 4M | sha256sum)
for v in regs16 regs32; do
	got=$("$OUT/guac-$v" gen --impl avx2 --offset 1000003 --length 4M | sha256sum)
	[[ $got == "$want" ]] || die "guac-$v generates other bytes than $U/guac"
done
echo "== bytes: both variants equal the shipped avx2 path (4 MiB at offset 1000003)"

echo "== guac bench core --sizes 1M, best of 9 trials of 0.3 s, MB/s; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //') model $(grep -m1 '^model\s' /proc/cpuinfo | sed 's/.*: //')"
printf '%-6s %-14s %8s %8s %9s\n' round binary avx2 aes avx2/aes
for r in $(seq "$ROUNDS"); do
	for b in "$U/guac" "$OUT/guac-regs16" "$OUT/guac-regs32"; do
		"$b" bench core --sizes 1M --threads 1 --seconds 0.3 --trials 9 2>/dev/null |
			awk -v r="$r" -v b="$(basename "$b")" '
				$2 == "guac-avx2" { a = $7 }
				$2 == "aes128-ctr-evp" { e = $7 }
				END { printf "%-6s %-14s %8d %8d %9.3f\n", r, b, a, e, a / e }'
	done
done
