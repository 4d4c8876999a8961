#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Differential adversarial test of guac's verdicts (issue 27, item 3).

Random storage scenarios (fills, shards and merges, interrupted fills and
checks, damage before and after the checks, repairs, pipes, offsets near
2^64), each in a directory of its own; every verdict guac verify prints is
compared with a reference that needs no cleverness: `guac gen` of the range
the check describes, compared byte for byte with what the target holds there.

The rule: guac verify (also --resume, also after guac manifest merge) may say
OK (exit 0, or an "OK:" line, or "result":"ok") ONLY when every byte of the
described range equals the reference; anything else is a FALSE OK. Exits 1
(mismatch), 2 (error) and 130 (interrupted) are never judged. Liveness: a
check of a genuine manifest (or plain arguments) over data that matches, run
to its end, must say OK; one that does not is a FALSE ALARM. Fewer than 20% of
the cases being clean (nothing damaged, the fill complete, a check that had to
say OK) means the generator is broken.

Each case has its own seed, derived from --seed and its number, so
`differential.py --seed S --case I -v` replays case I of seed S (the moments
at which signals land are timing, printed as the sleep they came after).
Every failure prints the seed, the case and the exact commands.

Only the Python 3 standard library is used. GUAC (environment) names the
binary (default build/userspace/guac).
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

TWO64 = 1 << 64
KIB = 1024
MIB = 1024 * 1024
GAP = 0.02            # seconds between the end of a check and a change of its target
CMD_TIMEOUT = 120     # seconds any one command may take before it counts as hung

CLASSES = {
    "R1": "a short (truncated) target: --resume says OK",
    "R2": "merge: --resume of the merged manifest over unchecked data, or parts that are no whole",
    "R3": "verify stopped by SIGINT says OK for part of the data",
    "R4": "stream offsets past 2^64 wrap (write or verify)",
    "R5": "--max-errors: a bad sector dropped, then --resume says OK",
    "R6": "--resume after SIGKILL (an old 'complete' left behind) says OK",
    "R6-changed": "--resume says OK over a target changed since the check it continues",
    "R6-pipe": "a pipe without --length that ends early says OK",
    "other": "none of the known classes",
    "liveness": "a check of matching data, run to its end, did not say OK",
    "liveness-R4": "a check of matching data across 2^64 did not say OK",
    "merge": "guac manifest merge refused every part of one fill",
    "tool": "a command failed or hung where it should not",
    "internal": "an error of the test itself (its traceback follows)",
}

FAMILIES = [
    # name, weight, what it aims at
    ("fill", 14, "fills (jobs, bs, seek, offset, origin) and every verify variant"),
    ("shard", 14, "sharded fills, merges (whole, missing, other file, other fill, ...)"),
    ("intfill", 8, "fills stopped by SIGINT, their checks and --resume"),
    ("resume", 16, "checks stopped by SIGINT or SIGKILL, --resume, many ranges"),
    ("maxerr", 12, "--max-errors with jobs, repair of the reported sectors, --resume"),
    ("trunc", 10, "truncated, extended, replaced and zeroed targets, --resume"),
    ("wrap64", 14, "offsets across 2^64: fills, shards, --offset/--skip/--length"),
    ("pipe", 12, "pipes: with a manifest, with --length, without --length"),
    ("random", 12, "random-order fills (passes, seeds, jobs), stopped, resumed, damaged"),
]


class Failure(Exception):
    pass


def shard_range(k, n, length, sector):
    """Part K of N of LENGTH bytes, as guac write --shard K/N cuts it (sector counts
    differing by at most one, the first ones longer): fill-relative [start, end)."""
    sectors = (length + sector - 1) // sector
    per, extra = divmod(sectors, n)
    first = k * per + min(k, extra)
    count = per + (1 if k < extra else 0)
    return min(first * sector, length), min((first + count) * sector, length)


M64 = (1 << 64) - 1
VERIFY_SLICE = 32 * KIB      # verify's compare unit (storage/verify_check.c)


def perm_mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


class Permutation:
    """The random pattern's block order, written again from its definition
    (storage/permutation.c): a 6-round Feistel bijection on 2h-bit integers
    walked until it lands below N. Maps a block back to its step in a pass."""

    def __init__(self, n, seed, pass_index):
        seed = perm_mix(seed ^ perm_mix((0xd1b54a32d192ed03 * (pass_index + 1)) & M64))
        bits = 1
        while bits < 32 and (n - 1) >> (2 * bits):
            bits += 1
        self.n, self.bits, self.mask = n, bits, (1 << bits) - 1
        self.keys = []
        for _ in range(6):
            seed = (seed + 0x9e3779b97f4a7c15) & M64
            self.keys.append(perm_mix(seed))

    def block_of(self, step):
        x = step
        while True:
            left, right = x >> self.bits, x & self.mask
            for key in self.keys:
                left, right = right, left ^ (perm_mix(right ^ key) & self.mask)
            x = left << self.bits | right
            if x < self.n:
                return x

    def step_of(self, block):
        x = block
        while True:
            left, right = x >> self.bits, x & self.mask
            for key in reversed(self.keys):
                left, right = right ^ (perm_mix(left ^ key) & self.mask), left
            x = left << self.bits | right
            if x < self.n:
                return x


class Desc:
    """What a check claims: N bytes of TARGET from device byte DEV hold the stream
    bytes REL ... REL+N-1 counted from stream offset SO (origin ORIGIN). The
    reference is `guac gen --origin ORIGIN --offset SO --length REL+N`, its last
    N bytes; SO < 2^64, SO + REL may pass it (the stream goes on at block 2^58).
    AVAIL limits the bytes the check could see (a pipe that ends early)."""

    def __init__(self, target, dev, n, origin, so, rel, avail=None, label=""):
        self.target, self.dev, self.n = target, dev, n
        self.origin, self.so, self.rel = origin, so, rel
        self.avail = avail
        self.label = label
        self.random = None         # a random fill stopped in a later pass: random_problem()

    def crosses(self):
        return self.so + self.rel + self.n > TWO64


class Chain:
    """The check progress a manifest carries, as far as the test knows it."""

    def __init__(self, mods, start):
        self.mods = mods          # modifications of the target at the chain start
        self.start = start        # 'write', 'merge' or 'verify'
        self.flags = set()        # 'kill', 'maxerr', 'unknown' (a check died early)
        self.handled = True       # every check of the chain ended normally (0 or 130)


class MState:
    """A manifest the case made, and what the test knows about it."""

    def __init__(self, path, target, genuine, merged=False, bogus=False):
        self.path = path
        self.target = target
        self.genuine = genuine    # a complete write, or a merge of exactly the right parts
        self.merged = merged
        self.bogus = bogus        # a merge guac should have refused
        self.chain = None

    def load(self):
        with open(self.path) as f:
            return json.load(f)


class Case:
    def __init__(self, test, seed, index):
        self.t = test
        self.g = test.guac
        self.seed, self.index = seed, index
        self.rng = random.Random("%d/%d" % (seed, index))
        fams = [f for f in FAMILIES if not test.families or f[0] in test.families]
        self.family = self.rng.choices([f[0] for f in fams], [f[1] for f in fams])[0]
        self.dir = tempfile.mkdtemp(prefix="c%d-" % index, dir=test.root)
        self.lines = []
        self.mods = {}
        self.findings = []
        self.expected = 0          # checks that had to say OK
        self.expected_ok = 0
        self.damaged = False       # any target of the case modified after its fill
        self.last_check = 0.0
        self.refcache = {}
        self.manifests = {}

    # ---- paths and the command log -------------------------------------------------

    def p(self, name):
        return os.path.join(self.dir, name)

    def show(self, s, cap=400):
        s = s.replace(self.dir, "$T").replace(self.g, "$GUAC")
        return s if len(s) <= cap else s[:cap] + " ..."

    def log(self, line):
        self.lines.append(self.show(line, cap=4000))

    @staticmethod
    def join(args):
        return " ".join(shlex.quote(str(a)) for a in args)

    # ---- running commands ------------------------------------------------------------

    def run(self, args, pipe_from=None, stdin_file=None, note=""):
        args = [str(a) for a in args]
        text = self.join(args)
        if pipe_from:
            text = self.join(pipe_from) + " | " + text
        if stdin_file:
            text += " < " + shlex.quote(stdin_file)
        try:
            if pipe_from:
                prod = subprocess.Popen(pipe_from, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
                p = subprocess.Popen(args, stdin=prod.stdout, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
                prod.stdout.close()
                out, err = p.communicate(timeout=CMD_TIMEOUT)
                prod.wait(timeout=CMD_TIMEOUT)
                rc = p.returncode
            else:
                fin = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
                try:
                    r = subprocess.run(args, stdin=fin, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, timeout=CMD_TIMEOUT)
                finally:
                    if stdin_file:
                        fin.close()
                rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            self.log(text + "   # HUNG: killed after %d s" % CMD_TIMEOUT)
            raise Failure("hung: " + self.show(text))
        self.log(text + "   # exit %s%s" % (self.rc_text(rc), note))
        return rc, out.decode(errors="replace"), err.decode(errors="replace")

    @staticmethod
    def rc_text(rc):
        return str(rc) if rc >= 0 else "%d (%s)" % (128 - rc, signal.Signals(-rc).name)

    @staticmethod
    def proc_io(pid, field):
        try:
            with open("/proc/%d/io" % pid) as f:
                for line in f:
                    if line.startswith(field):
                        return int(line.split()[1])
        except (OSError, ValueError):
            return None
        return None

    def run_killed(self, args, sig, total, field="rchar", base=0, mode=None,
                   pipe_from=None, boundaries=None):
        """Start ARGS, send SIG at a random moment: after a random 0-50 ms ('time'), or
        once it has read (written) a random part of TOTAL bytes past BASE ('progress'),
        half the time near one of BOUNDARIES (where a manifest range ends).
        Returns (rc, out, err, signalled): signalled when the signal found it alive."""
        args = [str(a) for a in args]
        mode = mode or self.rng.choice(["time", "progress"])
        prod = None
        if pipe_from:
            prod = subprocess.Popen(pipe_from, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL)
        p = subprocess.Popen(args, stdin=prod.stdout if prod else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if prod:
            prod.stdout.close()
        t0 = time.monotonic()
        seen = None
        if mode == "time":
            time.sleep(self.rng.uniform(0, self.rng.choice([0.005, 0.02, 0.05])))
        else:
            if boundaries and self.rng.random() < 0.5:
                target = base + self.rng.choice(boundaries) + self.rng.randint(-2048, 2048)
            else:
                target = base + int(self.rng.uniform(0, 1.1) * total)
            deadline = t0 + 30
            while p.poll() is None and time.monotonic() < deadline:
                seen = self.proc_io(p.pid, field)
                if seen is None or seen >= target:
                    break
                time.sleep(0.0002)
        delay = time.monotonic() - t0
        signalled = p.poll() is None
        if signalled:
            p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=CMD_TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise Failure("hung after a signal: " + self.show(self.join(args)))
        if prod:
            prod.wait()
        rc = p.returncode
        text = self.join(args)
        if pipe_from:
            text = self.join(pipe_from) + " | " + text
        how = ("the signal came after %d bytes %s" % (seen, "read" if field == "rchar"
                                                        else "written")
               if seen is not None else "timed")
        if not signalled:
            how = "it had ended before the signal"
        self.log("%s & pid=$!; sleep %.4f; kill -%s $pid; wait $pid   # exit %s (%s)"
                 % (text, delay, signal.Signals(sig).name[3:], self.rc_text(rc), how))
        return rc, out.decode(errors="replace"), err.decode(errors="replace"), signalled

    # ---- the reference ---------------------------------------------------------------

    def gen(self, origin, so, length):
        """`guac gen --origin ORIGIN --offset SO --length LENGTH` (cached, longest kept)."""
        key = (origin, so)
        have = self.refcache.get(key)
        if have is not None and len(have) >= length:
            return have[:length]
        want = max(length, len(have) if have else 0)
        r = subprocess.run([self.g, "gen", "--origin", str(origin), "--offset", str(so),
                            "--length", str(want)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=CMD_TIMEOUT)
        if r.returncode != 0 or len(r.stdout) != want:
            raise Failure("guac gen --origin %d --offset %d --length %d failed (exit %d): %s"
                          % (origin, so, want, r.returncode, r.stderr.decode(errors="replace")))
        self.refcache[key] = r.stdout
        return r.stdout[:length]

    def reference_problem(self, d):
        """None when the described bytes equal the reference, else what differs."""
        ref = self.gen(d.origin, d.so, d.rel + d.n)[d.rel:]
        try:
            with open(d.target, "rb") as f:
                f.seek(d.dev)
                got = f.read(d.n)
        except OSError as e:
            return "the target cannot be read: %s" % e
        if d.avail is not None:
            got = got[:max(0, d.avail - d.dev)]
        if d.random is not None:
            return self.random_problem(d, got)
        if got == ref:
            return None
        if got == ref[:len(got)]:
            return ("the target holds only %d of the %d described bytes (it ends at byte %d)"
                    % (len(got), d.n, d.dev + len(got)))
        step = 4096
        i = 0
        while got[i:i + step] == ref[i:i + step]:
            i += step
        while got[i] == ref[i]:
            i += 1
        nbad = sum(1 for a, b in zip(got, ref) if a != b) if d.n <= 2 * MIB else None
        short = "" if len(got) == d.n else "; and it holds only %d of the %d bytes" % (
            len(got), d.n)
        return ("device byte %d (byte %d of the range) is 0x%02x, the reference 0x%02x%s%s"
                % (d.dev + i, i, got[i], ref[i],
                   "; %d bytes differ" % nbad if nbad is not None else "", short))

    def random_problem(self, d, got):
        """A random fill stopped in pass P > 0: a block whose step its job recorded
        done holds pass P's origin; any other the pass before's or, past the last
        record (a writer killed after it), P's: each 32 KiB piece of it one or the
        other (docs/storage.md). None when that holds, else what differs."""
        R = d.random
        new = self.gen(R["new"], d.so, d.rel + d.n)[d.rel:]
        old = self.gen(R["old"], d.so, d.rel + d.n)[d.rel:]
        if len(got) < d.n:
            return ("the target holds only %d of the %d described bytes (it ends at byte %d)"
                    % (len(got), d.n, d.dev + len(got)))
        bs, i = R["bs"], 0
        while i < d.n:
            dev = d.dev + i
            rel = dev - R["fill_dev"]
            b = rel // bs
            end = min(d.n, i + bs - rel % bs, i + VERIFY_SLICE - dev % VERIFY_SLICE)
            step = R["perm"].step_of(b)
            done = any(first <= step < first + ndone for first, ndone in R["done"])
            if got[i:end] != new[i:end] and (done or got[i:end] != old[i:end]):
                return ("device bytes %d-%d (block %d, step %d of pass %d, %s) hold neither "
                        "%s" % (dev, d.dev + end - 1, b, step, R["pass"],
                                "recorded done" if done else "not recorded done",
                                "origin %d" % R["new"] if done else
                                "origin %d nor %d" % (R["new"], R["old"])))
            i = end
        return None

    def reference_cmd(self, d):
        part = ("%s gen --origin %d --offset %d --length %d%s > $T/ref"
                % ("$GUAC", d.origin, d.so, d.rel + d.n,
                   " | tail -c %d" % d.n if d.rel else ""))
        src = "" if d.avail is None else (
            " (the pipe carried only the first %d bytes of it)" % d.avail)
        return ("%s; dd if=%s iflag=skip_bytes,count_bytes skip=%d count=%d status=none"
                " | cmp - $T/ref%s" % (part, self.show(d.target), d.dev, d.n, src))

    # ---- changes to targets ---------------------------------------------------------

    def modcount(self, path):
        return self.mods.get(os.path.realpath(path), 0)

    def before_change(self, path):
        """A change of a target waits GAP after the last check (file times are coarse:
        a check may record them), and counts as a modification."""
        wait = self.last_check + GAP - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        key = os.path.realpath(path)
        self.mods[key] = self.mods.get(key, 0) + 1

    def size(self, path):
        try:
            return os.path.getsize(path)
        except OSError:
            return 0

    def presize(self, path, size):
        with open(path, "ab"):
            pass
        os.truncate(path, size)
        self.log("truncate -s %d %s" % (size, path))

    def flip(self, path, pos):
        self.before_change(path)
        mask = self.rng.randint(1, 255)
        with open(path, "r+b") as f:
            f.seek(pos)
            b = f.read(1)[0] ^ mask
            f.seek(pos)
            f.write(bytes([b]))
        self.log("printf '\\%03o' | dd of=%s bs=1 seek=%d count=1 conv=notrunc status=none"
                 % (b, path, pos))

    def zero(self, path, pos, n):
        self.before_change(path)
        with open(path, "r+b") as f:
            f.seek(pos)
            f.write(bytes(n))
        self.log("dd if=/dev/zero of=%s bs=64K iflag=count_bytes count=%d oflag=seek_bytes "
                 "seek=%d conv=notrunc status=none" % (path, n, pos))

    def truncate(self, path, size):
        self.before_change(path)
        os.truncate(path, size)
        self.log("truncate -s %d %s" % (size, path))

    def copy(self, src, dst, change=True, how="cp"):
        """cp SRC DST (same inode), cp -p (its times too) or a copy renamed over DST
        (a new inode at the same path)."""
        if change:
            self.before_change(dst)
        if how == "mv":
            tmp = dst + ".new"
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
            self.log("cp %s %s && mv %s %s" % (src, tmp, tmp, dst))
            return
        shutil.copyfile(src, dst)
        if how == "cp -p":
            shutil.copystat(src, dst)
        self.log("%s %s %s" % (how, src, dst))

    def move_within(self, path, src, dst, n):
        self.before_change(path)
        with open(path, "r+b") as f:
            f.seek(src)
            data = f.read(n)
            f.seek(dst)
            f.write(data)
        self.log("dd if=%s of=%s bs=64K iflag=skip_bytes,count_bytes skip=%d count=%d "
                 "oflag=seek_bytes seek=%d conv=notrunc status=none"
                 % (path, path, src, n, dst))

    def put_stream(self, path, pos, origin, so, rel, n, change=True):
        """Write stream bytes REL ... REL+N-1 from offset SO (origin) at byte POS."""
        if change:
            self.before_change(path)
        data = self.gen(origin, so, rel + n)[rel:]
        with open(path, "r+b") as f:
            f.seek(pos)
            f.write(data)
        self.log("$GUAC gen --origin %d --offset %d --length %d%s | dd of=%s bs=64K "
                 "oflag=seek_bytes seek=%d conv=notrunc status=none"
                 % (origin, so, rel + n, " | tail -c %d" % n if rel else "", path, pos))

    def repair(self, fill, path, a, b):
        """Rewrite good data at device bytes [a, b) of FILL, as a user would: guac write
        --seek --offset --length (gen | dd where the stream offset is past 2^64)."""
        a = max(a, fill["seek"])
        b = min(b, fill["seek"] + fill["length"])
        if a >= b:
            return
        rel = a - fill["seek"]
        q = fill["offset"] + rel
        if q < TWO64:
            self.before_change(path)
            # --force: the stream's bytes may look like a signature to libblkid (an
            # HFS+ one at byte 1024, seed 4215610763 case 629), and the user knows
            # the target is the fill's.
            rc, out, err = self.run([self.g, "write", path, "--seek", a, "--offset", q,
                                     "--origin", fill["origin"], "--length", b - a,
                                     "--buffered", "--force"])
            if rc != 0:
                self.fail_tool("repair write failed", rc, out, err)
        else:
            self.put_stream(path, a, fill["origin"], fill["offset"], rel, b - a)

    # ---- findings ------------------------------------------------------------------

    def add(self, kind, cls, what, detail):
        self.findings.append({"kind": kind, "cls": cls, "what": self.show(what),
                              "detail": detail, "lines": list(self.lines)})

    def fail_tool(self, what, rc, out, err):
        self.add("FALSE ALARM", "tool", "%s (exit %d)" % (what, rc),
                 [self.show(x) for x in (out + err).splitlines()[:8]])

    # ---- the generator's choices ----------------------------------------------------

    def pick_fill(self, near64=None, big=False, many=False):
        r = self.rng
        if big:
            length = r.randint(MIB, 8 * MIB)
        elif r.random() < 0.15:
            length = r.randint(64 * KIB, 8 * MIB)
        else:
            length = int(2 ** r.uniform(16, 21))
        if r.random() < 0.7:
            length = max(128 * 512, length - length % 512)
        seek = r.choice([0, 0, 512 * r.randint(1, 128), r.randint(1, 65535)])
        if near64 is None:
            near64 = r.random() < 0.12
        if near64:
            if r.random() < 0.5 and length > 8192:
                k = 4096 * r.randint(1, (length - 1) // 4096)
            else:
                k = r.randint(1, length - 1)
            offset = TWO64 - k
        else:
            offset = r.choice([0, 0, r.randrange(1 << 40) & ~63, r.randrange(1 << 40),
                               r.randrange(1 << 63),
                               TWO64 - length - r.randint(0, MIB)])
        origin = r.choice([0, 0, r.randint(1, 1000), r.getrandbits(64), TWO64 - 1])
        jobs = r.randint(8, 64) if many else r.choice([1, 1, 2, 2, 3, 4])
        bs = r.choice([4096, 65536, MIB, 512 * r.randint(1, 256)])
        return {"origin": origin, "offset": offset, "seek": seek, "length": length,
                "jobs": jobs, "bs": bs}

    def write_args(self, path, fill, manifest=None, shard=None):
        r = self.rng
        a = [self.g, "write", path, "--length", fill["length"], "--buffered"]
        if fill["offset"] or r.random() < 0.3:
            a += ["--offset", fill["offset"]]
        # The origin is always given (the default is a fresh random one), and
        # --force: the model refills with near origins on purpose.
        if not fill["origin"]:
            r.random()  # as before, so that a seed draws what it drew
        a += ["--origin", fill["origin"], "--force"]
        if fill["seek"] or r.random() < 0.3:
            a += ["--seek", fill["seek"]]
        if fill["jobs"] > 1 or r.random() < 0.3:
            a += ["--jobs", fill["jobs"]]
        if fill["bs"] != MIB or r.random() < 0.3:
            a += ["--bs", fill["bs"]]
        rnd = fill.get("random")
        if rnd:
            # --origin is the last pass's: a complete fill holds the stream of it.
            a += ["--pattern", "random", "--passes", rnd["passes"]]
            if rnd["seed"] is not None:
                a += ["--seed", rnd["seed"]]
        # A queue depth through io_uring for some fills (drawn apart from the
        # case's generator, so that a seed still draws what it drew).
        depth = random.Random(fill["origin"] * 31 + fill["length"]).choice([1, 1, 1, 2, 4, 32])
        if depth > 1:
            a += ["--iodepth", depth]
        if manifest:
            a += ["-m", manifest]
        if shard:
            a += ["--shard", "%d/%d" % shard]
        return a

    def write(self, path, fill, manifest=None, shard=None, kill=None):
        """guac write; a manifest it leaves becomes an MState. Returns the exit status."""
        a = self.write_args(path, fill, manifest, shard)
        # Any write changes the target: a --resume of another manifest of it
        # may then rightly refuse; this one's chain starts after it.
        self.before_change(path)
        if kill:
            total = fill["length"] // (shard[1] if shard else 1)
            sig = kill if kill in (signal.SIGINT, signal.SIGKILL) else signal.SIGINT
            rc, out, err, _ = self.run_killed(a, sig, total, field="wchar")
        else:
            rc, out, err = self.run(a)
            if rc != 0:
                self.fail_tool("guac write failed", rc, out, err)
        if manifest and os.path.exists(manifest):
            st = MState(manifest, os.path.realpath(path), genuine=False)
            try:
                m = st.load()
                st.genuine = rc == 0 and m["status"] == "complete"
                st.target = os.path.realpath(m["target"]["path"])
            except (OSError, ValueError, KeyError, TypeError):
                st.genuine = False
            st.chain = Chain(self.modcount(st.target), "write")
            self.manifests[manifest] = st
        return rc

    def verify_opts(self, allow_max=True):
        r = self.rng
        o = []
        sector4k = r.random() < 0.15
        if sector4k:
            o += ["--sector", 4096]
        if r.random() < 0.5:
            o += ["--jobs", r.randint(1, 4)]
        if r.random() < 0.4:
            o += ["--bs", r.choice([4096, 8192, 65536, 262144, MIB])]
        if r.random() < 0.3:
            o += ["--json"]
        if allow_max and r.random() < 0.15:
            o += ["--max-errors", r.randint(1, 3)]
        if r.random() < 0.1:
            o += ["--bad-list", self.p("bad.txt")]
        return o

    # ---- checks and their judgement -------------------------------------------------

    @staticmethod
    def says_ok(out):
        for line in out.splitlines():
            if line.startswith("OK:"):
                return True
            if line.startswith("{") and '"result":"ok"' in line:
                return True
        return False

    def judge(self, args, rc, out, err, desc, expect, ctx):
        """One verdict against the reference; EXPECT: it must say OK if the data matches."""
        claimed = rc == 0 or self.says_ok(out)
        problem = self.reference_problem(desc) if (claimed or expect) else None
        what = self.join(args)
        if ctx.get("pipe"):
            what = ctx["pipe"] + " | " + what
        if claimed and problem:
            cls = self.classify(desc, ctx)
            ref = self.reference_cmd(desc)
            detail = ["verdict: exit %s%s" % (self.rc_text(rc),
                                              ", prints OK" if self.says_ok(out) else ""),
                      "described: %s" % desc.label,
                      "reference: %s" % ref,
                      "differs: %s" % problem]
            detail += ["guac said: " + self.show(x) for x in out.splitlines()[:6]]
            self.add("FALSE OK", cls, what, detail)
        elif expect and problem is None:
            self.expected += 1
            if rc == 0:
                self.expected_ok += 1
            else:
                detail = ["verdict: exit %s on data that matches the reference "
                          "(%s), checked to its end" % (self.rc_text(rc), desc.label)]
                detail += ["guac said: " + self.show(x)
                           for x in (out + err).splitlines()[:8]]
                self.add("FALSE ALARM", "liveness-R4" if desc.crosses() or
                         ctx.get("wrapped_ranges") else "liveness", what, detail)
        return claimed

    def classify(self, desc, ctx):
        if ctx.get("signalled"):
            return "R3"
        if ctx.get("pipe_nolen"):
            return "R6-pipe"
        st = ctx.get("mstate")
        short = self.size(desc.target) < desc.dev + desc.n
        if ctx.get("resume") and st is not None:
            ch = ctx["chain"]
            if short or ctx.get("mstatus") != "complete":
                return "R1"
            if "maxerr" in ch.flags:
                return "R5"
            if st.merged and ch.start == "merge":
                return "R2"
            if "kill" in ch.flags:
                return "R6"
            if "sigint-ok" in ch.flags:
                return "R3"
            if self.modcount(st.target) != ch.mods or ch.mods < 0:
                return "R6-changed"
            if desc.crosses():
                return "R4"
            return "other"
        if desc.crosses() or ctx.get("wrapped_ranges"):
            return "R4"
        if st is not None and st.bogus:
            return "R2"
        return "other"

    def manifest_desc(self, m, source, shard=None, skip=None, length=None, avail=None):
        L, do, so = m["length"], m["device_offset"], m["stream_offset"]
        sec = m["sector_size"]
        sc, si = m["shard"]["count"], m["shard"]["index"]
        lo, hi = (0, L) if sc == 1 else shard_range(si, sc, L, sec)
        label = "fill bytes %d-%d" % (lo, hi - 1)
        if shard and sc == 1:
            lo, hi = shard_range(shard[0], shard[1], L, sec)
            label = "shard %d/%d: fill bytes %d-%d" % (shard[0], shard[1], lo, hi - 1)
        if skip is not None or length is not None:
            a = skip if skip is not None else lo
            b = a + length if length is not None else hi
            lo, hi = a, b
            label = "--skip/--length: fill bytes %d-%d" % (lo, hi - 1)
        label += (" = device bytes %d-%d of %s, stream offset %d + %d, origin %d"
                  % (do + lo, do + hi - 1, self.show(source), so, lo, m["origin"]))
        desc = Desc(source, do + lo, hi - lo, m["origin"], so, lo, avail, label)
        w = m.get("workload") or {}
        if w.get("pattern") == "random" and w.get("pass", 0) > 0 and m["status"] != "complete":
            bs, stride = m["block_size"], w["pass_stride"]
            new = (m["origin"] - (w["passes"] - 1 - w["pass"]) * stride) % TWO64
            desc.random = {
                "perm": Permutation(L // bs, w["seed"], w["pass"]), "bs": bs,
                "fill_dev": do, "pass": w["pass"], "new": new, "old": (new - stride) % TWO64,
                "done": [((x["device_offset"] - do) // bs, x["done"] // bs)
                         for x in m["ranges"]]}
            desc.label += " (random pass %d of %d stopped: per block origin %d or %d)" % (
                w["pass"] + 1, w["passes"], new, desc.random["old"])
        return desc

    @staticmethod
    def recorded_file(m, path):
        """Whether PATH is the file manifest M's identity records (its inode), if it names one."""
        ident = re.search(r"\bino=(\d+)", m.get("target", {}).get("identity") or "")
        if not ident:
            return True
        try:
            return os.stat(path).st_ino == int(ident.group(1))
        except OSError:
            return False

    @staticmethod
    def wrapped_ranges(m):
        return any(r["stream_offset"] != (m["stream_offset"] + r["device_offset"]
                                          - m["device_offset"]) for r in m["ranges"])

    def check_manifest(self, st, kind="whole", kill=None, opts=None, source=None,
                       avail_cut=None):
        """guac verify -m: KIND whole, resume, sub (--skip/--length), shard, copy, pipe.
        KILL: None, SIGINT or SIGKILL (a fresh or resumed check stopped)."""
        r = self.rng
        try:
            m = st.load()
        except (OSError, ValueError) as e:
            raise Failure("cannot read manifest %s: %s" % (st.path, e))
        opts = list(opts if opts is not None else self.verify_opts())
        args = [self.g, "verify"]
        args += ["-m", st.path] if r.random() < 0.8 else ["--manifest", st.path]
        target = st.target if source is None else source
        shard = skip = length = None
        if kind == "resume":
            opts += ["--resume"]
        elif kind == "sub":
            L = m["length"]
            sc, si = m["shard"]["count"], m["shard"]["index"]
            lo, hi = (0, L) if sc == 1 else shard_range(si, sc, L, m["sector_size"])
            a = r.randrange(lo, hi) if r.random() < 0.8 else lo
            b = r.randint(a + 1, hi) if r.random() < 0.8 else hi
            if a != lo or r.random() < 0.5:
                skip = a
            if b != hi or skip is None or r.random() < 0.5:
                length = b - a
            if skip is not None:
                opts += ["--skip", skip]
            if length is not None:
                opts += ["--length", length]
        elif kind == "shard":
            sc = m["shard"]["count"]
            if sc == 1:
                sectors = (m["length"] + m["sector_size"] - 1) // m["sector_size"]
                n = r.randint(2, max(2, min(5, sectors)))
                shard = (r.randrange(n), n)
            else:
                shard = (m["shard"]["index"], sc)
            opts += ["--shard", "%d/%d" % shard]
        pipe_from = None
        avail = None
        if kind == "pipe":
            if avail_cut is not None:
                pipe_from = ["head", "-c", str(avail_cut), target]
                avail = avail_cut
            else:
                pipe_from = ["cat", target]
            src_arg = ["-"]
        elif source is not None or r.random() < 0.25:
            src_arg = [target]
        else:
            src_arg = []
        args += opts + src_arg
        desc = self.manifest_desc(m, target, shard if m["shard"]["count"] == 1 else None,
                                  skip, length, avail)
        # A check records its progress (what --resume continues) only on the file
        # the manifest recorded: one replaced since (another inode) is checked
        # unrecorded, and a --resume of it is rightly refused.
        on_target = kind in ("whole", "resume") and (
            source is None or os.path.realpath(source) == st.target) and \
            self.recorded_file(m, st.target)
        chain = st.chain
        ctx = {"mstate": st, "resume": kind == "resume", "chain": chain,
               "mstatus": m.get("status"),
               "wrapped_ranges": self.wrapped_ranges(m)}
        if pipe_from:
            ctx["pipe"] = self.join(pipe_from)
        signalled = False
        if kill:
            total, bounds = 0, []
            for x in m["ranges"]:
                total += x["done"]
                bounds.append(total)
            # what guac reads before the data: its libraries, the manifest (measured)
            base = 18000 + self.size(st.path)
            rc, out, err, signalled = self.run_killed(args, kill, total, base=base,
                                                      pipe_from=pipe_from,
                                                      boundaries=bounds[:-1])
        else:
            rc, out, err = self.run(args, pipe_from=pipe_from)
        self.last_check = time.monotonic()
        ctx["signalled"] = signalled
        # Liveness: a genuine complete manifest, data that matches, a check run to its end.
        expect = st.genuine and not signalled and kill is None and avail_cut is None
        if kind == "resume":
            expect = (expect and chain is not None and chain.handled and
                      "unknown" not in chain.flags and "maxerr" not in chain.flags and
                      self.modcount(st.target) == chain.mods)
        self.judge(args, rc, out, err, desc, expect, ctx)
        # The chain: what a later --resume continues.
        if on_target and chain is not None:
            died = rc < 0      # killed, or SIGINT before guac's handler was in place
            if kind == "whole" and (died or rc != 2):
                # A fresh check of the whole fill: what a later --resume continues.
                st.chain = Chain(self.modcount(st.target), "verify")
            if died:
                # It may have died before it saved anything: the progress is unknown.
                st.chain.flags.update(["kill", "unknown"])
            if "--max-errors" in [str(x) for x in opts] and rc == 1:
                st.chain.flags.add("maxerr")
            if signalled and kill == signal.SIGINT and rc == 0:
                st.chain.flags.add("sigint-ok")
            if rc not in (0, 130, 2):
                st.chain.handled = False
        return rc, out

    def check_plain(self, fill, path, kind="file", skip=None, length=None, cut=None,
                    opts=None, nolen=False):
        """guac verify without a manifest: FILE (or a pipe) --offset --origin --seek
        [--skip] [--length]. NOLEN: a pipe without --length (described: the fill)."""
        r = self.rng
        opts = list(opts if opts is not None else self.verify_opts())
        args = [self.g, "verify"]
        o = ["--offset", fill["offset"], "--origin", fill["origin"]]
        if fill["seek"] or r.random() < 0.3:
            o += ["--seek", fill["seek"]]
        if skip:
            o += ["--skip", skip]
        skip = skip or 0
        if length is not None:
            o += ["--length", length]
        pipe_from = None
        avail = None
        fsize = self.size(path)
        if kind == "pipe":
            if cut is not None:
                pipe_from = ["head", "-c", str(cut), path]
                avail = cut
            else:
                pipe_from = ["cat", path]
            args += opts + o + ["-"]
        else:
            args += opts + o + [path]
        start = fill["seek"] + skip
        if length is not None:
            n = length
        elif kind == "pipe" and nolen:
            n = fill["seek"] + fill["length"] - start   # what the user meant: the fill
        else:
            n = max(0, fsize - start)
        desc = Desc(path, start, n, fill["origin"], fill["offset"], skip, avail,
                    "device bytes %d-%d of %s: stream offset %d + %d, origin %d%s"
                    % (start, start + n - 1, self.show(path), fill["offset"], skip,
                       fill["origin"], " (the fill; no --length given)" if nolen else ""))
        ctx = {"pipe_nolen": kind == "pipe" and length is None}
        if pipe_from:
            ctx["pipe"] = self.join(pipe_from)
        rc, out, err = self.run(args, pipe_from=pipe_from)
        self.last_check = time.monotonic()
        expect = n > 0 and length is not None or (kind == "file" and n > 0)
        if kind == "pipe" and cut is not None:
            expect = False
        self.judge(args, rc, out, err, desc, expect, ctx)
        return rc, out

    # ---- damage -----------------------------------------------------------------

    def damage(self, fill, path, inside=0.8, kinds=None, others=None):
        """One random change of PATH; inside the fill with probability INSIDE."""
        r = self.rng
        self.damaged = True
        start, end = fill["seek"], fill["seek"] + fill["length"]
        size = self.size(path)
        kinds = kinds or ["flip", "flip", "zero", "truncate", "extend", "replace",
                          "stale", "misdirect", "wrapdata"]
        kind = r.choice(kinds)
        crossing = fill["offset"] + fill["length"] > TWO64
        if kind == "wrapdata" and not crossing:
            kind = "flip"
        if kind in ("flip", "zero"):
            inner = (start, min(end, size))
            outer = [x for x in [(0, min(start, size)), (end, size)] if x[1] > x[0]]
            for _ in range(r.randint(1, 3) if kind == "flip" else 1):
                if inner[1] > inner[0] and (r.random() < inside or not outer):
                    a, b = inner
                elif outer:
                    a, b = r.choice(outer)
                else:
                    break
                pos = r.randrange(a, b)
                if kind == "flip":
                    self.flip(path, pos)
                else:
                    n = min(r.choice([1, 512, 4096, r.randint(1, 65536)]), size - pos)
                    self.zero(path, pos, n)
        elif kind == "truncate":
            if r.random() < inside:
                self.truncate(path, r.randrange(max(0, start - 100), end))
            else:
                self.truncate(path, r.randint(end, max(end, size)))
        elif kind == "extend":
            self.truncate(path, max(size, end) + r.randint(1, 65536))
        elif kind == "replace":
            other = dict(fill)
            other["jobs"] = 1
            which = r.choice(["origin", "offset", "seek", "same"])
            if which == "origin":
                other["origin"] = (fill["origin"] + r.randint(1, 9)) % TWO64
            elif which == "offset":
                other["offset"] = (fill["offset"] + 512 * r.randint(1, 64)) % TWO64
            elif which == "seek":
                other["seek"] = fill["seek"] + 512 * r.randint(1, 8)
            src = self.p("other.img")
            if others and r.random() < 0.5:
                src = r.choice(others)
            else:
                if os.path.exists(src):
                    os.unlink(src)
                    self.log("rm -f %s" % src)
                self.write(src, other)
                if which == "same":
                    # the same fill with one bad byte: a copy that is almost right
                    self.flip(src, r.randrange(other["seek"], self.size(src)))
            self.copy(src, path, how=r.choice(["cp", "cp", "cp -p", "mv"]))
        elif kind == "stale":
            pos = r.randrange(start, min(end, size)) if min(end, size) > start else start
            n = min(r.choice([512, 4096, 65536]), end - pos)
            if n > 0 and pos < size:
                self.put_stream(path, pos, (fill["origin"] + 1) % TWO64, fill["offset"],
                                pos - start, n)
        elif kind == "misdirect":
            n = min(r.choice([512, 4096, 8192]), fill["length"] // 2)
            if min(end, size) - n > start:
                a = r.randrange(start, min(end, size) - n)
                b = r.randrange(start, min(end, size) - n)
                if a != b:
                    self.move_within(path, a, b, n)
        elif kind == "wrapdata":
            # What an offset that wraps at 2^64 would put there: stream offset 0 onwards.
            c = TWO64 - fill["offset"]
            a = start + c + r.choice([0, 0, 512 * r.randint(0, 16)])
            b = end if r.random() < 0.6 else min(end, a + r.choice([512, 4096, 65536]))
            if a < b and a < size:
                b = min(b, size)
                self.put_stream(path, a, fill["origin"], 0, a - start - c, b - a)

    # ---- the families ------------------------------------------------------------

    def new_target(self, fill, extra=None):
        f = self.p("t.img")
        if extra is None:
            extra = self.rng.choice([0, 0, 4096, self.rng.randint(1, 65536)])
        if extra or self.rng.random() < 0.3:
            self.presize(f, fill["seek"] + fill["length"] + extra)
        return f

    def some_checks(self, st, fill, n, damaged, kinds=None):
        r = self.rng
        kinds = kinds or ["whole", "whole", "resume", "sub", "shard", "copy", "pipe", "plain"]
        for _ in range(n):
            if damaged and r.random() < 0.35:
                self.damage(fill, st.target)
                continue
            k = r.choice(kinds)
            if k == "copy":
                c = self.p("copy.img")
                self.copy(st.target, c, change=False)
                self.check_manifest(st, "whole", source=c)
            elif k == "plain":
                length = None if r.random() < 0.3 else fill["length"]
                self.check_plain(fill, st.target, length=length)
            else:
                self.check_manifest(st, k)

    def fam_fill(self):
        r = self.rng
        fill = self.pick_fill()
        f = self.new_target(fill)
        m = self.p("m.json")
        if r.random() < 0.2:
            old = dict(fill, origin=(fill["origin"] + 7) % TWO64, jobs=1)
            self.write(f, old, m)
        damaged = r.random() < 0.45
        if self.write(f, fill, m) != 0:
            return
        st = self.manifests[m]
        if damaged and r.random() < 0.5:
            self.damage(fill, f)
        self.some_checks(st, fill, r.randint(2, 5), damaged)
        self.check_manifest(st, "whole")

    def fam_shard(self):
        r = self.rng
        fill = self.pick_fill()
        fill["jobs"] = r.choice([1, 1, 2, 3])
        n = r.randint(2, 4)
        if fill["length"] // 512 < n:
            n = 2
        f = self.new_target(fill, extra=r.choice([0, 4096]))
        if not os.path.exists(f):
            self.presize(f, fill["seek"] + fill["length"])
        variant = r.choices(["ok", "missing", "otherfile", "otherfill", "interrupted",
                             "duplicate"], [8, 2, 3, 2, 2, 1])[0]
        damaged = r.random() < 0.45
        odd = r.randrange(n)
        parts = []
        for k in range(n):
            pm = self.p("part-%d.json" % k)
            tgt, pf, kill = f, fill, False
            if k == odd and variant == "otherfile":
                tgt = self.p("b.img")
                if not os.path.exists(tgt):
                    self.presize(tgt, self.size(f))
            if k == odd and variant == "otherfill":
                pf = dict(fill, origin=(fill["origin"] + 1) % TWO64)
            if k == odd and variant == "interrupted":
                kill = True
            if k == odd and variant == "missing":
                continue       # a part that never ran: its bytes are not there
            self.write(tgt, pf, pm, shard=(k, n), kill=kill)
            if pm in self.manifests:
                parts.append(self.manifests[pm])
        # Checks of the parts before the merge (they may carry 'verified' into it).
        for st in parts:
            if damaged and r.random() < 0.3:
                self.damage(fill, f)
            if r.random() < 0.6:
                self.check_manifest(st, r.choice(["whole", "whole", "sub", "shard"]))
        if damaged and r.random() < 0.5:
            self.damage(fill, f)
        order = list(parts)
        r.shuffle(order)
        if variant == "duplicate":
            order.append(r.choice(order))
        out = self.p("merged.json")
        rc, o, e = self.run([self.g, "manifest", "merge", out] + [x.path for x in order])
        proper = variant == "ok" and len(parts) == n
        if proper and rc != 0:
            self.add("FALSE ALARM", "merge", "guac manifest merge of every part of one "
                     "fill (exit %d)" % rc, [self.show(x) for x in (o + e).splitlines()[:6]])
        if rc == 0:
            try:
                with open(out) as mf:
                    tgt = os.path.realpath(json.load(mf)["target"]["path"])
            except (OSError, ValueError, KeyError, TypeError):
                tgt = os.path.realpath(f)
            st = MState(out, tgt, genuine=proper, merged=True, bogus=not proper)
            st.chain = Chain(self.modcount(tgt), "merge")
            self.manifests[out] = st
            if r.random() < 0.5:
                self.check_manifest(st, "resume")
            if damaged and r.random() < 0.4:
                self.damage(fill, tgt)
            for _ in range(r.randint(1, 4)):
                self.check_manifest(st, r.choice(["whole", "resume", "shard", "shard",
                                                  "sub", "pipe"]))
        if parts and r.random() < 0.5:
            self.check_manifest(r.choice(parts), r.choice(["whole", "resume", "shard"]))

    def fam_intfill(self):
        r = self.rng
        fill = self.pick_fill(big=r.random() < 0.7)
        f = self.new_target(fill)
        m = self.p("m.json")
        if r.random() < 0.3:
            # an earlier fill under it: what was never rewritten is stale, not zero
            self.write(f, dict(fill, origin=(fill["origin"] + 3) % TWO64, jobs=1), m)
        sharded = r.random() < 0.3
        self.write(f, fill, m, shard=(0, 2) if sharded else None,
                   kill=signal.SIGKILL if r.random() < 0.25 else signal.SIGINT)
        self.damaged = True      # an interrupted fill is no clean case
        st = self.manifests.get(m)
        if st is None:
            return
        for _ in range(r.randint(1, 3)):
            self.check_manifest(st, r.choice(["whole", "resume", "sub", "pipe", "whole"]))
        if r.random() < 0.5:
            # finish the fill; then the checks must say OK
            self.write(f, fill, m, shard=(0, 2) if sharded else None)
            st = self.manifests[m]
            for _ in range(r.randint(1, 2)):
                self.check_manifest(st, r.choice(["whole", "resume", "sub"]))

    def pick_random_fill(self):
        """A fill in random order: whole --bs blocks, 1 to 4 passes, a seed or a drawn one."""
        r = self.rng
        fill = self.pick_fill(big=r.random() < 0.5)
        fill["bs"] = r.choice([4096, 8192, 65536, 512 * r.randint(1, 64)])
        fill["length"] = fill["bs"] * max(1, fill["length"] // fill["bs"])
        if fill["offset"] + fill["length"] > TWO64 and r.random() < 0.5:
            fill["offset"] = TWO64 - fill["length"] - r.randint(0, MIB)
        fill["random"] = {"passes": r.choice([1, 1, 2, 3, 4]),
                          "seed": r.getrandbits(64) if r.random() < 0.6 else None}
        return fill

    def fam_random(self):
        r = self.rng
        fill = self.pick_random_fill()
        f = self.new_target(fill)
        m = self.p("m.json")
        if r.random() < 0.3:
            # an earlier fill under it: a block never rewritten is stale, not zero
            self.write(f, dict(fill, origin=(fill["origin"] + 5) % TWO64, jobs=1,
                               random=None), m)
        if r.random() < 0.5:
            self.write(f, fill, m, kill=signal.SIGKILL if r.random() < 0.3 else signal.SIGINT)
            self.damaged = True      # an interrupted fill is no clean case
            st = self.manifests.get(m)
            if st is None:
                return
            if r.random() < 0.4:
                if r.random() < 0.5:
                    self.damage(fill, f, kinds=["flip", "zero", "stale"])
                else:
                    self.lost_done_write(st, fill, f)
            for _ in range(r.randint(1, 2)):
                self.check_manifest(st, r.choice(["whole", "resume", "sub", "pipe"]))
            if r.random() < 0.5:
                return
            # finish it: --resume continues the recorded pass and steps
            self.before_change(f)
            rc, out, err = self.run([self.g, "write", "--resume", "-m", m, f])
            if rc != 0:
                self.fail_tool("guac write --resume of a random fill failed", rc, out, err)
                return
            st = MState(m, os.path.realpath(f), genuine=True)
            st.chain = Chain(self.modcount(st.target), "write")
            self.manifests[m] = st
            self.damaged = False
        elif self.write(f, fill, m) != 0:
            return
        st = self.manifests[m]
        damaged = r.random() < 0.45
        if damaged and r.random() < 0.5:
            self.damage(fill, f)
        elif damaged:
            self.lost_write(st, fill, f)
        self.some_checks(st, fill, r.randint(2, 4), damaged)
        self.check_manifest(st, "whole")

    def lost_done_write(self, st, fill, path):
        """A random fill stopped in a later pass: a block its manifest records done in
        this pass holds the pass before's data, as a drive that dropped the write."""
        r = self.rng
        m = st.load()
        w = m.get("workload") or {}
        if not w.get("pass"):
            return
        bs = m["block_size"]
        done = [((x["device_offset"] - m["device_offset"]) // bs, x["done"] // bs)
                for x in m["ranges"] if x["done"] >= bs]
        if not done:
            return
        first, n = r.choice(done)
        step = first + r.randrange(n)
        b = Permutation(m["length"] // bs, w["seed"], w["pass"]).block_of(step)
        new = (m["origin"] - (w["passes"] - 1 - w["pass"]) * w["pass_stride"]) % TWO64
        self.damaged = True
        self.put_stream(path, m["device_offset"] + b * bs, (new - w["pass_stride"]) % TWO64,
                        m["stream_offset"], b * bs, bs)

    def lost_write(self, st, fill, path):
        """A block of the last pass lost: it holds an earlier pass's data (or, with one
        pass, the earlier fill's or nothing), as a drive that dropped the write leaves it."""
        r = self.rng
        m = st.load()
        stride = m.get("workload", {}).get("pass_stride", 0)
        bs, length = fill["bs"], fill["length"]
        b = r.randrange(length // bs)
        back = r.randint(1, max(1, fill["random"]["passes"] - 1))
        self.damaged = True
        self.put_stream(path, fill["seek"] + b * bs, (m["origin"] - back * stride) % TWO64,
                        fill["offset"], b * bs, bs)

    def fam_resume(self):
        r = self.rng
        flow = r.choice(["plain", "plain", "r6", "r3", "r3", "rollback"])
        many = flow == "r3" or r.random() < 0.3
        fill = self.pick_fill(many=many, big=flow == "r3" or r.random() < 0.5)
        f = self.new_target(fill)
        m = self.p("m.json")
        if self.write(f, fill, m) != 0:
            return
        st = self.manifests[m]
        damaged = r.random() < (0.8 if flow == "r3" else 0.5)
        if flow == "r6":
            self.check_manifest(st, "whole")
            if damaged:
                self.damage(fill, f)
            self.check_manifest(st, "whole", kill=signal.SIGKILL)
            self.check_manifest(st, "resume")
        elif flow == "rollback":
            # The manifest put back as it was after a complete check (a backup restored),
            # while the target has changed since: its record is no longer the target's.
            self.check_manifest(st, "whole")
            old = self.p("m.json.bak")
            self.copy(m, old, change=False)
            if damaged:
                self.damage(fill, f)
            if r.random() < 0.5:
                self.check_manifest(st, "whole")
            self.copy(old, m, change=False)
            st.chain = Chain(-1, "verify")      # its record is of another moment
            st.chain.flags.add("unknown")
            self.check_manifest(st, "resume")
        elif flow == "r3":
            if damaged:
                # damage in the last manifest range, where an early stop would not see it
                last = st.load()["ranges"][-1]
                pos = last["device_offset"] + r.randrange(last["length"])
                if pos < self.size(f):
                    self.flip(f, pos)
                    self.damaged = True
            for _ in range(r.randint(3, 6)):
                self.check_manifest(st, "whole", kill=signal.SIGINT, opts=(
                    ["--jobs", r.randint(1, 3)] + (["--bs", r.choice([4096, 65536])]
                                                   if r.random() < 0.5 else [])))
            self.check_manifest(st, "resume")
        else:
            if damaged and r.random() < 0.7:
                self.damage(fill, f)
            if r.random() < 0.4:
                self.check_manifest(st, "whole")
            self.check_manifest(st, "whole",
                                kill=r.choice([signal.SIGINT, signal.SIGINT, signal.SIGKILL]))
            for _ in range(r.randint(1, 3)):
                if damaged and r.random() < 0.15:
                    self.damage(fill, f)       # a change while a check is unfinished
                kill = r.choice([None, None, None, signal.SIGINT, signal.SIGINT,
                                 signal.SIGKILL])
                self.check_manifest(st, "resume", kill=kill)
        self.check_manifest(st, r.choice(["whole", "resume"]))

    def reported(self, out):
        """The bad ranges a verify reported: [(first_byte, end)]."""
        got = []
        for line in out.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    for x in json.loads(line).get("ranges", []):
                        got.append((x["start"], x["start"] + x["length"]))
                except ValueError:
                    pass
            elif line.startswith("bytes ") and "(" in line:
                a, b = line.split()[1].split("-")
                got.append((int(a), int(b) + 1))
        return got

    def fam_maxerr(self):
        r = self.rng
        race = r.random() < 0.6
        fill = self.pick_fill(big=r.random() < 0.4)
        if race:
            # One manifest range, checked by JOBS threads reading BS at a time; a bad
            # sector early in part K's first read takes the --max-errors budget while
            # part 0 finds another later in its first read: the one that may be dropped.
            jobs = r.randint(2, 4)
            bs = r.choice([65536, 262144, MIB])
            while jobs * bs * 2 > 8 * MIB:
                bs //= 4
            fill.update(jobs=1, seek=r.choice([0, 4096 * r.randint(1, 16)]),
                        length=max(fill["length"], jobs * bs * 2 + r.randint(0, bs)))
        filled = self.fill_target(fill)
        if not filled:
            return
        f, st = filled
        start, end = fill["seek"], fill["seek"] + fill["length"]
        spots = r.randint(2, 5) if r.random() < 0.85 else 0
        if race:
            sectors = (fill["length"] + 511) // 512
            sizes = [512 * (sectors // jobs + (i < sectors % jobs)) for i in range(jobs)]
            k = r.randint(1, jobs - 1)
            xoff = r.randint(0, min(4096, sizes[k] - 1))
            self.flip(f, start + sum(sizes[:k]) + xoff)
            self.flip(f, start + r.randint(xoff + 512, min(bs, sizes[0]) - 1))
            spots = r.randint(0, 2)
        for _ in range(spots):
            self.flip(f, r.randrange(start, end))
        self.damaged = self.damaged or spots > 0
        if race:
            opts = ["--max-errors", 1, "--jobs", jobs, "--bs", bs]
        else:
            opts = ["--max-errors", r.randint(1, 3), "--jobs", r.randint(1, 4)]
            if r.random() < 0.5:
                opts += ["--bs", r.choice([4096, 65536, 262144, MIB])]
            if r.random() < 0.2:
                opts += ["--sector", 4096]
        if r.random() < 0.4:
            opts += ["--json"]
        rc, out = self.check_manifest(st, "whole", opts=opts)
        bad = self.reported(out)
        if bad:
            for a, b in bad if r.random() < 0.7 else bad[:1]:
                self.repair(fill, f, a, b)
        if r.random() < 0.2:
            self.check_manifest(st, "whole", opts=list(opts))
        self.check_manifest(st, "resume")
        if r.random() < 0.5:
            self.check_manifest(st, "whole")

    def fill_target(self, fill):
        """A new target written with FILL under m.json: (path, manifest state), or None."""
        f = self.new_target(fill)
        m = self.p("m.json")
        if self.write(f, fill, m) != 0:
            return None
        return f, self.manifests[m]

    def fam_trunc(self):
        r = self.rng
        fill = self.pick_fill()
        filled = self.fill_target(fill)
        if not filled:
            return
        f, st = filled
        damaged = r.random() < 0.5
        if r.random() < 0.3:
            self.check_manifest(st, "whole")
        if damaged:
            self.damage(fill, f, kinds=["truncate", "truncate", "extend", "replace",
                                        "zero"])
        for _ in range(r.randint(1, 3)):
            self.check_manifest(st, r.choice(["whole", "resume", "pipe", "sub"]))
        self.check_manifest(st, "resume")

    def fam_wrap64(self):
        r = self.rng
        fill = self.pick_fill(near64=True)
        f = self.new_target(fill)
        damaged = r.random() < 0.45
        how = r.choice(["write", "jobs", "shards", "gen"])
        st = None
        if how == "gen":
            # the stream across 2^64, put there by gen (known correct)
            if not os.path.exists(f):
                self.presize(f, fill["seek"] + fill["length"])
            self.put_stream(f, fill["seek"], fill["origin"], fill["offset"], 0,
                            fill["length"], change=False)
        elif how == "shards":
            if not os.path.exists(f):
                self.presize(f, fill["seek"] + fill["length"])
            n = r.randint(2, 3)
            parts = []
            for k in range(n):
                pm = self.p("part-%d.json" % k)
                fill["jobs"] = r.choice([1, 2])
                self.write(f, fill, pm, shard=(k, n))
                parts.append(self.manifests.get(pm))
            out = self.p("merged.json")
            rc, o, e = self.run([self.g, "manifest", "merge", out] +
                                [x.path for x in parts if x])
            if rc == 0:
                st = MState(out, os.path.realpath(f), genuine=all(
                    x and x.genuine for x in parts), merged=True)
                st.chain = Chain(self.modcount(st.target), "merge")
                self.manifests[out] = st
            elif all(x and x.genuine for x in parts):
                self.add("FALSE ALARM", "merge", "guac manifest merge of every part of "
                         "one fill (exit %d)" % rc,
                         [self.show(x) for x in (o + e).splitlines()[:6]])
            for x in parts:
                if x and r.random() < 0.5:
                    self.check_manifest(x, "whole")
        else:
            fill["jobs"] = 1 if how == "write" else r.randint(2, 4)
            m = self.p("m.json")
            if self.write(f, fill, m) == 0:
                st = self.manifests[m]
        if damaged:
            self.damage(fill, f, kinds=["wrapdata", "wrapdata", "flip", "stale"])
        for _ in range(r.randint(2, 4)):
            k = r.choice(["plain", "plain", "pipe", "manifest"])
            if k == "manifest" and st is not None:
                self.check_manifest(st, r.choice(["whole", "sub", "resume", "shard"]))
                continue
            # --offset X --skip S --length N with X + S past 2^64 (or just below)
            c = TWO64 - fill["offset"]
            s = max(0, min(fill["length"] - 1, c + r.randint(-4096, 65536)))
            if r.random() < 0.3:
                s = r.randrange(0, fill["length"])
            length = r.randint(1, fill["length"] - s) if r.random() < 0.8 else None
            if k == "pipe":
                length = length or fill["length"] - s
                self.check_plain(fill, f, "pipe", skip=s, length=length)
            else:
                self.check_plain(fill, f, skip=s, length=length)

    def fam_pipe(self):
        r = self.rng
        fill = self.pick_fill()
        filled = self.fill_target(fill)
        if not filled:
            return
        f, st = filled
        damaged = r.random() < 0.45
        if damaged:
            self.damage(fill, f)
        end = fill["seek"] + fill["length"]
        for _ in range(r.randint(2, 4)):
            k = r.choice(["mpipe", "mpipe-short", "mpipe-int", "len", "nolen",
                          "nolen-short", "stdin"])
            if k == "mpipe":
                self.check_manifest(st, "pipe")
            elif k == "mpipe-int":
                self.check_manifest(st, "pipe", kill=signal.SIGINT)
            elif k == "mpipe-short":
                self.check_manifest(st, "pipe", avail_cut=r.randrange(0, end))
            elif k == "len":
                skip = r.randrange(0, fill["length"]) if r.random() < 0.4 else None
                rest = fill["length"] - (skip or 0)
                self.check_plain(fill, f, "pipe", skip=skip,
                                 length=r.randint(1, rest) if r.random() < 0.5 else rest)
            elif k == "nolen":
                self.check_plain(fill, f, "pipe", nolen=True)
            elif k == "nolen-short":
                cut = r.randrange(fill["seek"] + 1, end)
                self.check_plain(fill, f, "pipe", cut=cut, nolen=True)
            else:
                # standard input a regular file: guac verify - --length N < FILE
                opts = self.verify_opts()
                args = [self.g, "verify"] + opts + [
                    "--offset", fill["offset"], "--origin", fill["origin"],
                    "--seek", fill["seek"], "--length", fill["length"], "-"]
                rc, out, err = self.run(args, stdin_file=f)
                self.last_check = time.monotonic()
                desc = Desc(f, fill["seek"], fill["length"], fill["origin"], fill["offset"],
                            0, None, "device bytes %d-%d of %s (standard input)"
                            % (fill["seek"], end - 1, self.show(f)))
                self.judge(args, rc, out, err, desc, True, {})

    def run_case(self):
        getattr(self, "fam_" + self.family)()


class Test:
    def __init__(self, args):
        self.args = args
        self.guac = args.guac
        base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="guac-differential-", dir=base))
        self.stats = {f[0]: {"cases": 0, "false_ok": 0, "false_alarm": 0, "clean_ok": 0,
                             "clean": 0} for f in FAMILIES}
        self.findings = []
        self.by_class = {}
        self.families = args.family.split(",") if args.family else None
        self.replay = " --family " + args.family if args.family else ""

    def report(self, case, fd):
        self.findings.append((case, fd))
        self.by_class.setdefault((fd["kind"], fd["cls"]), []).append((case, fd))

    def print_finding(self, case, fd, full=True):
        print("%s [%s] case %d (family %s), seed %d: %s" % (
            fd["kind"], fd["cls"], case.index, case.family, case.seed, fd["what"]))
        print("  replay: %s --seed %d --case %d -v%s" % (
            os.path.relpath(__file__), case.seed, case.index, self.replay))
        for d in fd["detail"]:
            print("  " + d)
        if full:
            print("  commands (T=an empty directory, GUAC=the guac binary):")
            for line in fd["lines"]:
                print("    " + line)

    def main(self):
        a = self.args
        seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
        print("differential: seed %d (replay: %s --seed %d%s)" % (
            seed, os.path.relpath(__file__), seed, self.replay))
        sys.stdout.flush()
        t0 = time.monotonic()
        n = 0
        cases = [a.case] if a.case is not None else None
        i = 0
        while True:
            if cases is not None:
                if n >= len(cases):
                    break
                idx = cases[n]
            else:
                idx = i
                elapsed = time.monotonic() - t0
                if a.cases is not None and n >= a.cases:
                    break
                if a.seconds is not None and elapsed >= a.seconds and n >= a.min_cases:
                    break
                if a.cases is not None and a.seconds is not None and elapsed >= a.seconds:
                    break
            i += 1
            case = Case(self, seed, idx)
            st = self.stats[case.family]
            st["cases"] += 1
            try:
                case.run_case()
            except Failure as e:
                case.add("FALSE ALARM", "tool", str(e), [])
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception:   # a bug of the test: reported, the run goes on
                case.add("FALSE ALARM", "internal", "differential.py raised",
                         traceback.format_exc().splitlines())
            n += 1
            fo = sum(1 for x in case.findings if x["kind"] == "FALSE OK")
            fa = len(case.findings) - fo
            st["false_ok"] += fo
            st["false_alarm"] += fa
            clean = not case.damaged and case.expected > 0
            if clean:
                st["clean"] += 1
                if case.expected_ok == case.expected:
                    st["clean_ok"] += 1
            for fd in case.findings:
                self.report(case, fd)
            if a.verbose:
                print("case %d (%s): %d checks expected OK, %d were; %s" % (
                    idx, case.family, case.expected, case.expected_ok,
                    "%d findings" % len(case.findings) if case.findings else "no findings"))
                for line in case.lines:
                    print("    " + line)
            if a.keep or (case.findings and a.keep_failed):
                pass
            else:
                shutil.rmtree(case.dir, ignore_errors=True)
        elapsed = time.monotonic() - t0
        if not a.keep and not a.keep_failed:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            print("differential: case directories kept under %s" % self.root)

        # Failures: the first few of each class in full, the rest one line each.
        for (kind, cls), items in sorted(self.by_class.items()):
            print()
            print("== %s [%s]: %d (%s)" % (kind, cls, len(items), CLASSES.get(cls, cls)))
            items = sorted(items, key=lambda x: len(x[1]["lines"]))
            for j, (case, fd) in enumerate(items):
                if j < a.reports:
                    self.print_finding(case, fd)
                else:
                    print("%s [%s] case %d (%s; replay --seed %d --case %d -v%s): %s"
                          % (kind, cls, case.index, case.family, case.seed, case.index,
                             self.replay, fd["what"]))
        print()
        tot = {k: sum(s[k] for s in self.stats.values()) for k in
               ("cases", "false_ok", "false_alarm", "clean_ok", "clean")}
        for name, _, about in FAMILIES:
            s = self.stats[name]
            print("family %s: %d cases, %d false OK, %d false alarm, %d clean OK"
                  % (name, s["cases"], s["false_ok"], s["false_alarm"], s["clean_ok"]))
        classes = sorted({c for (k, c) in self.by_class if k == "FALSE OK"})
        if classes:
            print("false OK classes: " + ", ".join(
                "%s %d" % (c, len(self.by_class[("FALSE OK", c)])) for c in classes))
        ratio = tot["clean"] / tot["cases"] if tot["cases"] else 0
        print("differential: %d s, %d cases, %d clean (%.0f%%), %d false alarms"
              % (elapsed, tot["cases"], tot["clean"], 100 * ratio, tot["false_alarm"]))
        broken = tot["cases"] >= 20 and ratio < 0.2 and a.case is None
        if broken:
            print("differential: only %.0f%% of the cases are clean (< 20%%): the "
                  "generator is broken" % (100 * ratio))
        print("differential: %d cases, %d false OK, %d clean OK"
              % (tot["cases"], tot["false_ok"], tot["clean_ok"]))
        print("differential: seed %d" % seed)
        return 1 if tot["false_ok"] or tot["false_alarm"] or broken else 0


def find_guac():
    g = os.environ.get("GUAC", "build/userspace/guac")
    if os.path.isabs(g) or os.path.exists(g):
        return os.path.abspath(g)
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    return os.path.join(top, g)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, help="master seed (default: random, printed first)")
    ap.add_argument("--cases", type=int, help="run this many cases")
    ap.add_argument("--seconds", type=float,
                    help="start no new case after this many seconds (default 150 unless "
                    "--cases is given)")
    ap.add_argument("--min-cases", type=int, default=200,
                    help="with --seconds, run at least this many cases (default 200)")
    ap.add_argument("--case", type=int, help="run only this case of the seed (replay)")
    ap.add_argument("--family", help="only these families (comma-separated): " +
                    ", ".join(f[0] for f in FAMILIES))
    ap.add_argument("--reports", type=int, default=2,
                    help="failures printed in full per class (default 2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's commands")
    ap.add_argument("--keep", action="store_true", help="keep every case's directory")
    ap.add_argument("--keep-failed", action="store_true", help="keep failing cases' directories")
    a = ap.parse_args()
    if a.cases is None and a.seconds is None and a.case is None:
        a.seconds = 150.0
    if a.cases is not None and a.seconds is None:
        a.min_cases = 0
    a.guac = find_guac()
    if not os.access(a.guac, os.X_OK):
        print("differential: no guac binary at %s (build it: make -C tools/userspace)"
              % a.guac, file=sys.stderr)
        return 2
    t = Test(a)
    try:
        return t.main()
    except KeyboardInterrupt:
        if not a.keep:
            shutil.rmtree(t.root, ignore_errors=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
