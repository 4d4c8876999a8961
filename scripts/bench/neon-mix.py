#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""The arm64 NEON step (core_neon.c) as compiled, and what it can reach on
Neoverse N1, V1 and V2: the model of docs/cost-model.md, section 6.

    scripts/bench/neon-mix.py [--out DIR] [--headers DIR]... [--two-groups] [--eor3]
                              [OBJECT...]

With no OBJECT, compiles drivers/guacrng/core_neon.c to DIR (default
build/bench/neon) with every compiler found:

  gcc-user, clang-user      aarch64-linux-gnu-gcc / clang --target=aarch64-linux-gnu,
                            -O2 and the flags of tools/userspace/Makefile
  gcc-klike, clang-klike    the same with the code generation flags an arm64
                            kernel build passes (list KERNEL_LIKE below)
  *-klike-freestanding      and with -ffreestanding, arm64 CC_FLAGS_FPU in
                            6.12 and 7.3 (it changes this code: see the doc)
  *-klike-freestanding-fbuiltin   and with -fbuiltin after it
  gcc-kbuild-VERSION        a real Kbuild of the object against each arm64
                            linux-headers tree given by --headers (default: the
                            trees the VM harness caches under /var/cache/guacrng)
                            whose compiler is installed, with the object's
                            flags of drivers/guacrng/Kbuild
  gcc-user-two-groups       with --two-groups: a copy of the source with two
                            groups of 4 blocks, an experiment (not shipped)
  *-user-eor3               with --eor3: a copy whose step is add, shl and
                            ushr, eor3 (FEAT_SHA3), an experiment (not shipped)

and counts every instruction of guac_steps_neon's main loop (the span of its
longest backward branch) from `objdump -d`, by the classes of the cost model,
per loop iteration (4 blocks; 8 with two groups) and per 64-byte block. Then, for each core, the
throughput bound (the busiest set of pipes), the dependency bound (the longest
latency path through one iteration) and a simulation of the loop on an
out-of-order model of the core (pipes, latencies, dispatch width and window
from the tables below), in cycles per block, bytes per cycle and GB/s at the
clocks of the machines that carry each core.

Nothing here runs arm64 code: it is a model of the code as compiled. The
pipes and latencies are those of Arm's Software Optimization Guides as the
LLVM scheduling models transcribe them (docs/cost-model.md, section 6, gives
the sources and what is assumed where they say nothing).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SRC = os.path.join(ROOT, "drivers", "guacrng", "core_neon.c")
FN = "guac_steps_neon"
LANES = 4           # blocks per group (GUAC_LANES)
OBJDUMP = "aarch64-linux-gnu-objdump"

USER = ["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
        "-I" + os.path.join(ROOT, "tools", "userspace", "include"),
        "-I" + os.path.join(ROOT, "include")]
# What an arm64 kernel build (Debian 6.1 and 6.12, GCC 12) passes that changes
# code generation; -mgeneral-regs-only is what the NEON objects remove.
KERNEL_LIKE = ["-std=gnu11", "-fno-strict-aliasing", "-fno-common",
               "-fno-PIE", "-mbranch-protection=pac-ret+leaf",
               "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
               "-fno-delete-null-pointer-checks", "-fstack-protector-strong",
               "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls",
               "-ftrivial-auto-var-init=zero", "-fno-strict-overflow",
               "-fno-stack-check", "-fconserve-stack"]
# The kernel's CC_FLAGS_FPU, which drivers/guacrng/Kbuild gives core_neon.o,
# is -ffreestanding on arm64 in 6.12 and 7.3 (not in 6.1), for arm_neon.h,
# which core_neon.c does not use. It implies -fno-builtin, which changes this
# code (the doc, section 6): measured apart, and with -fbuiltin after it.
FREESTANDING = ["-ffreestanding",
                # as the kernel's compiler_types.h has it (glibc's cdefs.h,
                # which defines it in userspace, is not reached freestanding)
                "-D__always_inline=inline __attribute__((__always_inline__))"]
# clang 14 lacks -fconserve-stack (the kernel drops it by cc-option) and
# wants its flag for zero-initialisation spelled out.
CLANG_KLIKE = ["-enable-trivial-auto-var-init-zero-knowing-it-will-be-removed-from-clang"]
GCC_ONLY = {"-fconserve-stack"}

# Core models. Pipes: the ASIMD pipes by name, and which of them each class
# may use; lat: result latency in cycles. Sources: docs/cost-model.md, sec. 6.
CORES = {
    "N1": dict(
        clocks=[("Graviton2", 2.5)],
        vpipes=["V0", "V1"],
        shift=["V1"], valu=["V0", "V1"], stdata=["V0", "V1"],
        lat_valu=2, lat_shift=2,
        # 16-byte loads and stores by form: (load/store pipe slots, ASIMD
        # slots for the store data) and (slots, latency)
        store={"str": (2, 2), "stur": (2, 0), "stp": (4, 2)},
        load={"ldr": (1, 5), "ldur": (1, 5), "ldp": (1, 7)},
        lpipes=2, ld_only=0, width=4, window=128),
    "V1": dict(
        clocks=[("Graviton3", 2.6)],
        vpipes=["V0", "V1", "V2", "V3"],
        shift=["V1", "V3"], valu=["V0", "V1", "V2", "V3"], stdata=["V0", "V1"],
        lat_valu=2, lat_shift=2,
        store={"str": (1, 1), "stur": (1, 1), "stp": (1, 1)},
        load={"ldr": (1, 6), "ldur": (1, 6), "ldp": (2, 6)},
        lpipes=2, ld_only=1, width=8, window=256,
        eor3=["V0"]),      # taken as V2's: the V1 figure was not found
    "V2": dict(
        clocks=[("Graviton4", 2.8), ("Grace", 3.1)],
        vpipes=["V0", "V1", "V2", "V3"],
        shift=["V1", "V3"], valu=["V0", "V1", "V2", "V3"], stdata=["V0", "V1"],
        lat_valu=2, lat_shift=2,
        store={"str": (1, 1), "stur": (1, 1), "stp": (1, 2)},
        load={"ldr": (1, 6), "ldur": (1, 6), "ldp": (2, 6)},
        lpipes=2, ld_only=1, width=6, window=320,
        eor3=["V0"]),      # 2 cycles, one a cycle, V0 (the V2 guide)
}

INSN = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$")
VREG = re.compile(r"\b[vqdsbh](\d+)\b")
XREG = re.compile(r"\b[xw](\d+|zr)\b|\bsp\b")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"neon-mix: {' '.join(cmd)}\n{r.stderr}")
    return r


def replace_in(path, old, new):
    text = open(path).read()
    if old not in text:
        sys.exit(f"neon-mix: {os.path.basename(path)} no longer has: {old}")
    open(path, "w").write(text.replace(old, new, 1))


def experiments(two_groups, eor3, gcc, clang):
    """Variants of the source that docs/cost-model.md, section 6, models
    (not shipped): (name, compiler command, flags, edit of a copy)."""
    out = []
    if two_groups and gcc:
        # Two groups of 4 blocks, as AVX2 and AVX-512 run.
        out.append(("gcc-user-two-groups", [gcc], USER, lambda d: replace_in(
            os.path.join(d, "core_simd.h"),
            "#if GUAC_LANES == 4 || defined(__clang__)", "#if defined(__clang__)")))
    if eor3:
        # A step as add, then shl and ushr side by side, then eor3 (FEAT_SHA3)
        # of the word and both shifts: 6 cycles of latency instead of 8.
        def edit(d):
            replace_in(os.path.join(d, "core_round.h"),
                       "\tx[0][w] ^= guac_rotl(x[0][s] + x[0][t], r);\n"
                       "\tif (n > 1)\n"
                       "\t\tx[1][w] ^= guac_rotl(x[1][s] + x[1][t], r);",
                       "\tGUAC_XOR_ROTL(x[0][w], x[0][s] + x[0][t], r);\n"
                       "\tif (n > 1)\n"
                       "\t\tGUAC_XOR_ROTL(x[1][w], x[1][s] + x[1][t], r);")
            replace_in(os.path.join(d, "core_simd.h"), '#include "core_round.h"',
                       "#define GUAC_XOR_ROTL(d, v, n) do {\\\n"
                       "\tguac_vec s_ = (v), l_ = s_ << (n), r_ = s_ >> (32 - (n));\\\n"
                       '\t__asm__("eor3 %0.16b, %0.16b, %1.16b, %2.16b"\\\n'
                       '\t\t: "+w" (d) : "w" (l_), "w" (r_));\\\n'
                       "} while (0)\n"
                       '#include "core_round.h"')
        sha3 = ["-march=armv8.2-a+sha3"]
        if gcc:
            out.append(("gcc-user-eor3", [gcc], USER + sha3, edit))
        if clang:
            out.append(("clang-user-eor3", [clang, "--target=aarch64-linux-gnu"],
                        USER + sha3, edit))
    return out


def build(out, headers, two_groups, eor3):
    """Compile core_neon.c every way available; return [(label, object)]."""
    os.makedirs(out, exist_ok=True)
    objs = []
    gcc = shutil.which("aarch64-linux-gnu-gcc")
    clang = shutil.which("clang")
    for cc, name in ((gcc, "gcc"), (clang, "clang")):
        if not cc:
            print(f"# {name}: not installed, skipped")
            continue
        base = [cc] + (["--target=aarch64-linux-gnu"] if name == "clang" else [])
        klike = USER + [f for f in KERNEL_LIKE
                        if name == "gcc" or f not in GCC_ONLY] + \
            (CLANG_KLIKE if name == "clang" else [])
        for kind, flags in (("user", USER), ("klike", klike),
                            ("klike-freestanding", klike + FREESTANDING),
                            ("klike-freestanding-fbuiltin",
                             klike + FREESTANDING + ["-fbuiltin"])):
            obj = os.path.join(out, f"core_neon-{name}-{kind}.o")
            run(base + flags + ["-c", "-o", obj, SRC])
            objs.append((f"{name}-{kind}", obj))
    for name, cc, flags, edit in experiments(two_groups, eor3, gcc, clang):
        tmp = tempfile.mkdtemp(prefix="neon-exp-")
        try:
            for f in ("core_neon.c", "core_simd.h", "core_round.h"):
                shutil.copy(os.path.join(ROOT, "drivers", "guacrng", f), tmp)
            edit(tmp)
            obj = os.path.join(out, f"core_neon-{name}.o")
            run(cc + flags + ["-c", "-o", obj, os.path.join(tmp, "core_neon.c")])
            objs.append((f"{name} (experiment)", obj))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for hdr in headers:
        label = kbuild(out, hdr)
        if label:
            objs.append(label)
    return objs


def kbuild(out, hdr):
    """core_neon.o built by the kernel's own Kbuild against headers @hdr."""
    version = os.path.basename(hdr.rstrip("/")).replace("linux-headers-", "")
    mk = open(os.path.join(hdr, "Makefile")).read() if os.path.exists(
        os.path.join(hdr, "Makefile")) else ""
    m = re.search(r"^CC\s*:?=\s*\$\(CROSS_COMPILE\)(\S+)", mk, re.M)
    cc = "aarch64-linux-gnu-" + (m.group(1) if m else "gcc")
    if not shutil.which(cc):
        print(f"# kbuild {version}: {cc} not installed, skipped")
        return None
    tmp = tempfile.mkdtemp(prefix="neon-kbuild-")
    try:
        for f in ("core_neon.c", "core_simd.h", "core_round.h"):
            shutil.copy(os.path.join(ROOT, "drivers", "guacrng", f), tmp)
        # The object's flags as drivers/guacrng/Kbuild gives them, read from it.
        flags = [l for l in open(os.path.join(ROOT, "drivers", "guacrng", "Kbuild"))
                 if re.match(r"CFLAGS(_REMOVE)?_core_neon\.o\s*:?=", l)]
        if len(flags) != 2:
            sys.exit("neon-mix: drivers/guacrng/Kbuild: core_neon.o's two flag lines not found")
        with open(os.path.join(tmp, "Kbuild"), "w") as k:
            k.write(f"ccflags-y += -I{ROOT}/include\n"
                    "obj-m += guacneon.o\nguacneon-y := core_neon.o\n" + "".join(flags))
        r = subprocess.run(["make", "-s", "-C", hdr, f"M={tmp}", "ARCH=arm64",
                            "CROSS_COMPILE=aarch64-linux-gnu-", "core_neon.o"],
                           capture_output=True, text=True)
        if r.returncode:
            miss = re.search(r"(aarch64-linux-gnu-gcc-\d+): (?:No such file|not found)",
                             r.stderr)
            print(f"# kbuild {version}: " + (f"{miss.group(1)} not installed, skipped"
                  if miss else "failed, skipped\n" + r.stderr[-2000:]))
            return None
        obj = os.path.join(out, f"core_neon-kbuild-{version}.o")
        shutil.copy(os.path.join(tmp, "core_neon.o"), obj)
        return (f"gcc-kbuild-{version} ({cc.split('-')[-1]})", obj)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def disassemble(obj):
    out = run([OBJDUMP, "-d", "--no-show-raw-insn", obj]).stdout
    insns, inside = [], False
    for line in out.splitlines():
        if re.match(r"^[0-9a-f]+ <%s>:" % FN, line):
            inside = True
        elif inside and re.match(r"^[0-9a-f]+ <", line):
            break
        elif inside:
            m = INSN.match(line)
            if m:
                ops = re.sub(r"\s*//.*$", "", m.group(3))
                insns.append((int(m.group(1), 16), m.group(2), ops))
    return insns


def main_loop(insns):
    """The span of the longest backward branch, and the inner loops in it."""
    spans = []
    for addr, mnem, ops in insns:
        if mnem.startswith(("b.", "cbz", "cbnz", "tbz", "tbnz")) or mnem == "b":
            m = re.search(r"\b([0-9a-f]+) <", ops)
            if m and int(m.group(1), 16) <= addr:
                spans.append((int(m.group(1), 16), addr))
    spans.sort(key=lambda s: s[1] - s[0], reverse=True)
    if not spans:
        sys.exit("neon-mix: no loop in " + FN)
    return spans[0], spans[1:]


def is_vec(ops):
    return bool(re.search(r"\bv\d+\.", ops))


def regs_of(text):
    return ["V" + r for r in VREG.findall(text)] + \
        ["X" + r if r else "SP" for r in XREG.findall(text) if r != "zr"]


def classify(mnem, ops, stack_regs=()):
    """Class of an instruction, and how many 16-byte registers it moves;
    @stack_regs: registers the function sets to sp + an offset."""
    q = ops.startswith("q") or re.match(r"q\d+, q\d+", ops)
    base = re.search(r"\[(\w+)", ops)
    base_sp = bool(base) and (base.group(1) == "sp" or base.group(1) in stack_regs)
    if mnem in ("ldr", "ldp", "ldur") and q:
        n = 2 if mnem == "ldp" else 1
        return ("load, spill (stack)" if base_sp else "load, constant"), n
    if mnem in ("str", "stp", "stur") and q:
        n = 2 if mnem == "stp" else 1
        return ("store, spill (stack)" if base_sp else "store, output"), n
    if not is_vec(ops):
        if mnem in ("ushr", "fmov") and re.match(r"d\d+", ops):
            return "counter (scalar in a vector register)", 1
        if mnem == "bl":
            return "call (" + ops.split("<")[-1].rstrip(">") + ")", 1
        return "scalar and branches", 1
    if mnem in ("add", "eor", "shl", "sri", "eor3"):
        return mnem, 1
    if mnem in ("ushr", "orr"):
        return "ushr, orr (rotate not as shl+sri)", 1
    if re.match(r"(zip|uzp|trn)[12]$|ext$", mnem):
        return "zip, uzp, trn, ext", 1
    if mnem == "mov" or mnem == "orr":
        return "register copy (mov)", 1
    return "counter (dup, movi, cmhi, sub)", 1


def count(insns, outer, inner, inner_trips):
    """Counts by class over one main-loop iteration, each inner loop taken
    its trip count; and that iteration's instructions in execution order."""
    counts = {}
    stack_regs = {m.group(1) for _, mn, o in insns
                  for m in [re.match(r"(x\d+), sp, #", o)] if mn == "add" and m}
    loop = [i for i in insns if outer[0] <= i[0] <= outer[1]]
    body = []
    k = 0
    while k < len(loop):
        span = next(((a, b) for a, b in inner if a == loop[k][0]), None)
        if span:
            block = [i for i in loop if span[0] <= i[0] <= span[1]]
            body.extend(block * inner_trips.get(span, 1))
            k += len(block)
        else:
            body.append(loop[k])
            k += 1
    out = []
    for addr, mnem, ops in body:
        cls, regs = classify(mnem, ops, stack_regs)
        for key in ("instructions", cls):
            counts[key] = counts.get(key, 0) + 1
        if cls.startswith(("load", "store")):
            key = cls + ", 16-byte registers"
            counts[key] = counts.get(key, 0) + regs
        out.append((addr, mnem, ops, cls))
    return counts, out


def inner_trip_counts(insns, inner):
    """Trips of the inner loops: the double rounds 2 to 4, which core_simd.h
    writes as a loop with two groups, 3; a zeroing loop `str q, [xA], #16;
    cmp xB, xA` (xB - xA) / 16, both set from sp before it."""
    trips = {}
    offs = {}
    for addr, mnem, ops in insns:
        m = re.match(r"add\s*(x\d+), sp, #(0x[0-9a-f]+|\d+)", f"{mnem} {ops}")
        if m:
            offs[m.group(1)] = int(m.group(2), 0)
    for a, b in inner:
        trips[(a, b)] = 3
        txt = [(m, o) for ad, m, o in insns if a <= ad <= b]
        st = [o for m, o in txt if m == "str" and "], #16" in o]
        cmp = [o for m, o in txt if m == "cmp"]
        if st and cmp:
            ra = re.search(r"\[(x\d+)\]", st[0]).group(1)
            rb = re.match(r"(x\d+)", cmp[0]).group(1)
            if ra in offs and rb in offs:
                trips[(a, b)] = (offs[rb] - offs[ra]) // 16
    return trips


def pipes_of(core, mnem, ops, cls):
    """(kind, eligible ASIMD pipes, latency, load/store slots, ASIMD slots)
    of one instruction; kind is V (ASIMD), L (load), S (store) or I."""
    c = CORES[core]
    if cls.startswith("load"):
        slots, lat = c["load"].get(mnem, (1, c["load"]["ldr"][1]))
        return "L", None, lat, slots, 0
    if cls.startswith("store"):
        slots, data = c["store"].get(mnem, (1, 1))
        return "S", c["stdata"], 0, slots, data
    if mnem == "eor3":
        if "eor3" not in c:
            return "X", None, 0, 0, 0
        return "V", c["eor3"], c["lat_valu"], 0, 1
    if cls in ("shl", "sri") or (mnem == "ushr" and (is_vec(ops) or
                                                    cls.startswith("counter"))):
        return "V", c["shift"], c["lat_shift"], 0, 1
    if is_vec(ops) or cls.startswith("counter"):
        return "V", c["valu"], c["lat_valu"], 0, 1
    return "I", None, 1, 0, 0


def throughput(core, body):
    """Cycles per iteration of the busiest set of ASIMD pipes, of the
    load/store pipes and of dispatch; the largest is the bound."""
    c = CORES[core]
    uses = []           # eligible pipe sets of every ASIMD uop
    loads = stores = 0
    for addr, mnem, ops, cls in body:
        kind, pipes, _, slots, vslots = pipes_of(core, mnem, ops, cls)
        if kind in ("V", "S"):
            uses.extend([frozenset(pipes)] * vslots)
        if kind == "L":
            loads += slots
        elif kind == "S":
            stores += slots
    best, why = 0.0, ""
    sets = {frozenset(c["vpipes"]), frozenset(c["shift"]), frozenset(c["valu"]),
            frozenset(c["stdata"]), frozenset(c["stdata"]) | frozenset(c["shift"])}
    for s in sets:
        n = sum(1 for u in uses if u <= s)
        if n / len(s) > best:
            best, why = n / len(s), f"{n} uops on {'/'.join(sorted(s))}"
    ls = max(stores / c["lpipes"], (loads + stores) / (c["lpipes"] + c["ld_only"]))
    fe = len(body) / c["width"]
    return max(best, ls, fe), dict(asimd=(best, why), ldst=ls, dispatch=fe)


def deps(body):
    """Per instruction: (registers read, registers written, sp slots read,
    sp slots written), for the dependency bound and the simulation."""
    out = []
    for addr, mnem, ops, cls in body:
        regs = regs_of(ops.split("[")[0])
        mem = re.search(r"\[(\w+)(?:, #(-?(?:0x)?[0-9a-f]+))?\]", ops)
        base = "X" + mem.group(1)[1:] if mem and mem.group(1) != "sp" else \
            ("SP" if mem else None)
        off = int(mem.group(2), 0) if mem and mem.group(2) else 0
        width = 2 if mnem in ("ldp", "stp") else 1
        slots = [off + 16 * i for i in range(width)] if base == "SP" else []
        rd, wr, mrd, mwr = [], [], [], []
        if mnem.startswith(("st",)):
            rd = regs + ([base] if base else [])
            mwr = slots
        elif mnem.startswith(("ld",)):
            wr = regs
            rd = [base] if base else []
            mrd = slots
        elif mnem in ("cmp", "cmn", "tst"):
            rd, wr = regs, ["NZCV"]
        elif mnem.startswith("b.") or mnem == "b":
            rd = ["NZCV"] if mnem.startswith("b.") else []
        elif mnem in ("cbz", "cbnz", "bl", "nop", "ret", "paciasp", "autiasp"):
            rd = regs[:1] if mnem.startswith("cb") else []
        else:
            wr = regs[:1]
            rd = regs[1:] + (regs[:1] if mnem in ("sri", "sli", "ins") else [])
            if mnem in ("subs", "adds", "ands"):
                wr = wr + ["NZCV"]
        if "]!" in ops or re.search(r"\], #", ops):
            wr = wr + [base]
        out.append((rd, wr, mrd, mwr))
    return out


def chain_bound(core, body):
    """Longest latency path through one iteration (no pipe limits)."""
    ready, mem = {}, {}
    longest = 0
    for (addr, mnem, ops, cls), (rd, wr, mrd, mwr) in zip(body, deps(body)):
        lat = pipes_of(core, mnem, ops, cls)[2]
        t = max([ready.get(r, 0) for r in rd] + [mem.get(s, 0) for s in mrd] + [0])
        for r in wr:
            ready[r] = t + lat
        for s in mwr:
            mem[s] = t
        longest = max(longest, t + lat)
    return longest


def simulate(core, body, iters=6):
    """Cycles per iteration of an out-of-order model: `width` instructions
    dispatched a cycle into a window of `window` (retired in order), each
    issued once its operands are ready to a free eligible pipe, oldest first;
    a uop that may use any ASIMD pipe takes one the shifts cannot use when
    one is free. Registers are renamed (only true dependencies count), a
    reload from the stack waits for the store to its slot."""
    c = CORES[core]
    dep = deps(body)
    n = len(body)
    total = n * iters
    info = [pipes_of(core, m, o, cl) for _, m, o, cl in body]
    prods = []
    last_w, last_m = {}, {}
    for i in range(total):
        rd, wr, mrd, mwr = dep[i % n]
        prods.append([last_w[r] for r in rd if r in last_w] +
                     [last_m[s] for s in mrd if s in last_m])
        for r in wr:
            last_w[r] = i
        for s in mwr:
            last_m[s] = i
    done = [None] * total
    dispatched = head = cycle = lcarry = scarry = 0
    while head < total:
        while head < total and done[head] is not None and done[head] <= cycle:
            head += 1
        k = 0
        while dispatched < min(total, head + c["window"]) and k < c["width"]:
            dispatched += 1
            k += 1
        free = {p: True for p in c["vpipes"]}
        # An access of more slots than there are pipes (N1's STP of two Q
        # registers takes four) issues when one is free, and the rest of
        # its slots come off the next cycles.
        lfree = c["lpipes"] + c["ld_only"] - lcarry
        sfree = c["lpipes"] - scarry
        ifree = 4
        for i in range(head, dispatched):
            if done[i] is not None:
                continue
            if any(done[p] is None or done[p] > cycle for p in prods[i]):
                continue
            kind, pipes, lat, slots, vslots = info[i % n]
            if kind == "L":
                if lfree < 1:
                    continue
                lfree -= slots
            elif kind == "S":
                if sfree < 1 or sum(free[p] for p in pipes) < vslots:
                    continue
                sfree -= slots
                lfree -= slots
            elif kind == "I":
                if ifree < 1:
                    continue
                ifree -= 1
            if kind in ("V", "S") and vslots:
                cand = sorted((p for p in pipes if free[p]),
                              key=lambda p: p in c["shift"])
                if len(cand) < vslots:
                    if kind == "S":
                        sfree += slots
                        lfree += slots
                    continue
                for p in cand[:vslots]:
                    free[p] = False
            done[i] = cycle + max(lat, 1)
        lcarry, scarry = max(0, -lfree), max(0, -sfree)
        cycle += 1
    fin = [max(done[k * n:(k + 1) * n]) for k in range(iters)]
    return (fin[-1] - fin[1]) / (iters - 2)


def report(label, obj):
    insns = disassemble(obj)
    outer, inner = main_loop(insns)
    inner = [s for s in inner if outer[0] <= s[0] and s[1] <= outer[1]]
    trips = inner_trip_counts(insns, inner)
    counts, body = count(insns, outer, inner, trips)
    # Two groups show as the double-round loop nested in the main one.
    BLOCKS = LANES * (2 if 3 in trips.values() else 1)
    print(f"{label}: {os.path.relpath(obj, ROOT)}, main loop "
          f"{outer[0]:#x}-{outer[1]:#x}, {BLOCKS} blocks an iteration"
          + ("".join(f", inner loop {a:#x}-{b:#x} x{trips.get((a, b), 1)}"
                     for a, b in inner)))
    print(f"  {'per iteration':44} {'per iter':>8} {'per block':>9}")
    order = ["instructions", "add", "eor", "eor3", "shl", "sri",
             "ushr, orr (rotate not as shl+sri)", "zip, uzp, trn, ext",
             "counter (dup, movi, cmhi, sub)",
             "counter (scalar in a vector register)", "register copy (mov)",
             "load, constant", "load, constant, 16-byte registers",
             "load, spill (stack)", "load, spill (stack), 16-byte registers",
             "store, output", "store, output, 16-byte registers",
             "store, spill (stack)", "store, spill (stack), 16-byte registers",
             "scalar and branches"]
    keys = order + sorted(k for k in counts if k not in order)
    for k in keys:
        if k in counts:
            print(f"  {k:44} {counts[k]:8} {counts[k] / BLOCKS:9.2f}")
    for core, c in CORES.items():
        if any(pipes_of(core, m, o, cl)[0] == "X" for _, m, o, cl in body):
            print(f"  {core}: has no FEAT_SHA3 (eor3), not modelled")
            continue
        t, parts = throughput(core, body)
        chain = chain_bound(core, body)
        sim = simulate(core, body)
        nb = 64 * BLOCKS
        ghz = ", ".join(f"{name} {f} GHz {nb / sim * f:.1f} GB/s"
                        for name, f in c["clocks"])
        print(f"  {core}: throughput bound {t:.0f} cycles/iteration "
              f"(ASIMD {parts['asimd'][0]:.0f}: {parts['asimd'][1]}; "
              f"load/store {parts['ldst']:.0f}; dispatch {parts['dispatch']:.0f}), "
              f"{nb / t:.2f} B/cycle; dependency bound {chain} cycles, "
              f"{nb / chain:.2f} B/cycle; simulated {sim:.0f} cycles "
              f"({sim / BLOCKS:.1f}/block), {nb / sim:.2f} B/cycle; {ghz}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objects", nargs="*")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "neon"))
    ap.add_argument("--headers", action="append")
    ap.add_argument("--two-groups", action="store_true",
                    help="also build and model GCC's code with two groups")
    ap.add_argument("--eor3", action="store_true",
                    help="also build and model steps of add, shl, ushr, eor3")
    args = ap.parse_args()
    if args.objects:
        objs = [(os.path.basename(o), o) for o in args.objects]
    else:
        headers = args.headers if args.headers is not None else sorted(glob.glob(
            "/var/cache/guacrng/*-arm64/root/usr/src/linux-headers-*-arm64"))
        objs = build(args.out, headers, args.two_groups, args.eor3)
        for cc in ("aarch64-linux-gnu-gcc", "clang"):
            if shutil.which(cc):
                print(f"# {run([cc, '--version']).stdout.splitlines()[0]}")
    for label, obj in objs:
        report(label, obj)


if __name__ == "__main__":
    main()
