#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The instruction mix of a step function's main loop, per loop iteration.

    scripts/bench/loop-mix.py OBJECT [FUNCTION] [--inner-trips N]

Disassembles FUNCTION (default: every guac_steps_* in OBJECT) with objdump,
takes its largest loop (the span of the longest backward branch) as the main
loop, and counts its instructions by the classes of docs/cost-model.md,
section 3. A loop nested inside it (the double rounds 2 to 4, with two
groups) is counted --inner-trips times (default 3). Then the ceilings, in
bytes per cycle, that those counts give on each core the model covers.

Works on the userspace objects (build/userspace/core_*.o) and on the
kernel's (src/drivers/guacrng/core_*.o of a module build) alike.
"""
import argparse
import re
import subprocess
import sys

# Lanes per vector, by the step function's name. Blocks per main-loop
# iteration are lanes x groups; main() infers two groups from the nested
# double-round loop (core_simd.h writes the rounds out for one group).
LANES = {"sse2": 4, "avx2": 8, "avx512": 16}

INSN = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
MEM_DST = re.compile(r",\s*(-?0x[0-9a-f]+)?\([^)]*\)\s*$")


def disassemble(obj, fn):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                         check=True, capture_output=True, text=True).stdout
    insns, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:" % re.escape(fn), line):
            inside = True
        elif inside and re.match(r"^[0-9a-f]+ <", line):
            break
        elif inside:
            m = INSN.match(line)
            if m:
                insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return insns


def loops(insns):
    spans = []
    for addr, mnem, ops in insns:
        m = re.match(r"([0-9a-f]+)\s", ops + " ")
        if mnem.startswith("j") and m and int(m.group(1), 16) <= addr:
            spans.append((int(m.group(1), 16), addr))
    return sorted(spans, key=lambda s: s[1] - s[0], reverse=True)


def classify(mnem, ops):
    """(class, is a vector ALU uop); loads folded into an ALU op count apart."""
    mem_dst = bool(MEM_DST.search(ops))
    if re.match(r"v?paddd", mnem):
        return "add", True
    if re.match(r"v?ps[lr]ld|vpro[lr]d", mnem):
        return "shift/rotate", True
    if re.match(r"v?p(xor|or|and|andn)d?$|vpternlogd", mnem):
        return "logic", True
    if mnem.startswith("vextract") and mem_dst:
        return "extract to memory", False
    if re.match(r"v?punpck|v?pshufd|vperm|vshuf|shufps|vpbroadcast|v?pcmp|"
                r"vinsert|vextract|v?psubd", mnem):
        return "shuffle, broadcast, compare", True
    if re.match(r"v?mov(dq[au]|aps|ups|dqa32|dqa64|dqu32|dqu64|d|q)$", mnem):
        if mem_dst:
            return "store", False
        return ("load", False) if "(" in ops else ("register copy", False)
    return "scalar", False


def mix(obj, fn, inner_trips):
    insns = disassemble(obj, fn)
    spans = loops(insns)
    if not spans:
        sys.exit(f"loop-mix: no loop in {fn} of {obj}")
    outer = spans[0]
    inner = [s for s in spans[1:] if outer[0] <= s[0] and s[1] <= outer[1]]
    counts = {}
    for addr, mnem, ops in insns:
        if not outer[0] <= addr <= outer[1]:
            continue
        trips = inner_trips if any(a <= addr <= b for a, b in inner) else 1
        cls, alu = classify(mnem, ops)
        for key in ("instructions", cls) + (("vector ALU uops",) if alu else ()):
            counts[key] = counts.get(key, 0) + trips
        if alu and "(" in ops:
            counts["loads folded into ALU ops"] = \
                counts.get("loads folded into ALU ops", 0) + trips
    return counts, bool(inner)


def ceilings(width, blocks, c):
    """Bytes per cycle per core (docs/cost-model.md, sections 2 and 3)."""
    insns, alu = c.get("instructions", 0), c.get("vector ALU uops", 0)
    ext = c.get("extract to memory", 0)
    shifts = c.get("shift/rotate", 0)
    nbytes = 64 * blocks
    if width == "avx512":
        # Intel: two 512-bit ALU ports (rotates on one); Zen 4: four 256-bit
        # pipes, a zmm uop in two slots, an extract to memory too (measured).
        intel = max(alu / 2, shifts)
        return {"Skylake-SP to Golden Cove": nbytes / intel,
                "Zen 4 (manuals)": nbytes / (alu * 2 / 4),
                "Zen 4 (measured)": nbytes / ((alu + ext) * 2 / 4)}
    ports = 3
    return {"Skylake (4-wide)": nbytes / max(alu / ports, insns / 4),
            "Ice Lake (5-wide)": nbytes / max(alu / ports, insns / 5),
            "Golden Cove (6-wide)": nbytes / max(alu / ports, insns / 6),
            "Zen 3 (manuals)": nbytes / max(alu / 4, shifts / 2, insns / 6),
            "Zen 4 (measured)": nbytes / max((alu + (ext if width == "avx2" else 0)) / 4,
                                             shifts / 2, insns / 6)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("object")
    ap.add_argument("function", nargs="?")
    ap.add_argument("--inner-trips", type=int, default=3)
    args = ap.parse_args()
    if args.function:
        fns = [args.function]
    else:
        symbols = subprocess.run(["nm", args.object], check=True,
                                 capture_output=True, text=True).stdout
        fns = [f"guac_steps_{w}" for w in LANES if f"guac_steps_{w}" in symbols]
    for fn in fns:
        width = fn.rsplit("_", 1)[-1]
        counts, nested = mix(args.object, fn, args.inner_trips)
        # Two groups show as the double-round loop nested in the main one.
        blocks = LANES.get(width, 1) * (2 if nested else 1)
        print(f"{fn}: {blocks} blocks per iteration of the main loop")
        for key in sorted(counts):
            print(f"  {key:30} {counts[key]}")
        if width in LANES:
            for core, bpc in ceilings(width, blocks, counts).items():
                print(f"  ceiling, {core:25} {bpc:.2f} bytes/cycle")


if __name__ == "__main__":
    main()
