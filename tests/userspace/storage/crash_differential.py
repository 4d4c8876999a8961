#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Differential adversarial test of guac verify --after-crash (issue 37, item 3).

Each case: an earlier fill (origin P) over a file, a `guac write --crash-safe`
over it (sequential or random, passes, jobs, queue depth, a journal in the
file or beside it) SIGKILLed at a random moment or let finish, then damage
of random kinds put into random pieces (a write's bytes within one atomic
unit): the new data, the old, an older pass's, the earlier fill's, zeros,
garbage, or a tear (the head one content, the rest another).

The reference needs no cleverness about contents: what the test did says
what each piece holds, and the journal (decoded here from its documented
layout, docs/crash-safety.md) says what it may hold, by the rule of
storage/journal.h written again: below a job's flushed mark the new data,
below its limit (by the block's start) new or old, else the old. A killed
writer loses nothing in the page cache, so an untouched piece is never a
violation. guac's violation lines, byte by byte, must name exactly the
pieces the reference does, with its class:
  FALSE OK     a violating byte guac does not name;
  FALSE ALARM  a byte guac names that violates nothing;
  MISNAMED     both name it, with different classes.

`crash_differential.py --seed S --case I -v` replays case I (the kill's
moment is timing). Only the Python 3 standard library is used; GUAC names
the binary (default build/userspace/guac).
"""

import argparse
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential import Permutation  # noqa: E402  (the random order, written again)

GUAC = os.environ.get("GUAC", "build/userspace/guac")
KIB = 1024
SLOT = 8192
JOURNAL = 2 * SLOT
MATCH_MIN = 16
SPLIT_AT = 120 + 32 * 128
M64 = (1 << 64) - 1


CLASSES_SEEN = {}   # damaged pieces by the reference's class, over all cases


class Failure(Exception):
    pass


def run(args, check=True, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kw)
    if check and p.returncode:
        raise Failure("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def decode_slot(b):
    """A journal slot, or None: the layout of docs/crash-safety.md."""
    if b[:8] != b"GUACJNL1" or struct.unpack_from("<II", b, 8) != (1, SLOT):
        return None
    if struct.unpack_from("<I", b, SLOT - 4)[0] != crc32c(b[:SLOT - 4]):
        return None
    keys = ("seq", "nonce", "origin", "stream_offset", "seek", "length", "bs", "seed",
            "pass_stride")
    r = dict(zip(keys, struct.unpack_from("<9Q", b, 16)))
    r.update(zip(("random", "passes", "sector", "window", "pass", "complete", "jobs"),
                 struct.unpack_from("<7I", b, 88)))
    r["parts"] = [struct.unpack_from("<4Q", b, 120 + 32 * i) for i in range(r["jobs"])]
    n = struct.unpack_from("<I", b, SPLIT_AT)[0]
    r["split"] = [struct.unpack_from("<QI", b, SPLIT_AT + 4 + 12 * i) for i in range(n)]
    return r


def mix(x):
    """splitmix64's step (--bs-split's draw, docs/storage.md "Block sizes")."""
    x = (x + 0x9e3779b97f4a7c15) & M64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


def draw(split, seed, pass_, index):
    h, total = mix(mix(mix(seed) ^ pass_) ^ index) % 100, 0
    for size, pct in split:
        total += pct
        if h < total:
            return size
    return split[-1][0]


def read_journal(path, at):
    if path is None:
        return None
    with open(path, "rb") as f:
        f.seek(at)
        data = f.read(JOURNAL)
    slots = [decode_slot(data[i * SLOT:(i + 1) * SLOT]) for i in range(2)]
    slots = [s for s in slots if s]
    return max(slots, key=lambda s: s["seq"]) if slots else None


def check_record(r):
    """The record's invariants (journal.h): parts contiguous over the fill,
    flushed <= limit <= the part's length. A record breaking them is a bug of
    the writer, whatever the checker makes of it."""
    at = 0
    for start, end, flushed, limit in r["parts"]:
        if start != at or end < start or not flushed <= limit <= end - start:
            raise Failure("the journal's record %d breaks its invariants: parts %s"
                          % (r["seq"], r["parts"]))
        at = end
    if at != r["length"]:
        raise Failure("the journal's parts end at %d, not at the length %d" % (at, r["length"]))


def pass_origin(r, p):
    return (r["origin"] - (r["passes"] - 1 - p) * r["pass_stride"]) % (1 << 64)


class Model:
    """What the record says each byte of the fill may hold."""

    def __init__(self, r):
        self.r = r
        self.perm = Permutation(r["length"] // r["bs"], r["seed"], r["pass"]) \
            if r["random"] else None

    def step(self, x):
        bs = self.r["bs"]
        return self.perm.step_of(x // bs) * bs + x % bs if self.perm else x

    def part(self, step):
        for p in self.r["parts"]:
            if p[0] <= step < p[1]:
                return p
        raise Failure("step %d in no part" % step)

    def expect(self, x, n):
        """'new', 'may' or 'old' for the n bytes at run position x (one write's)."""
        start, _end, flushed, limit = self.part(self.step(x))
        rel = self.step(x) - start
        if rel + n <= flushed:
            return "new"
        return "old" if rel - rel % self.r["bs"] >= limit else "may"

    def pieces(self, unit):
        """(x, n): a write's bytes within one unit, over the fill."""
        r, out, x = self.r, [], 0
        while x < r["length"]:
            end = ((r["seek"] + x) // unit + 1) * unit - r["seek"]
            if self.perm:
                start = x - x % r["bs"]
                wend = start + r["bs"]
            else:
                p = self.part(x)
                start = p[0] + (x - p[0]) // r["bs"] * r["bs"]
                wend = min(start + r["bs"], p[1])
            if r["split"]:
                size = draw(r["split"], r["seed"] if r["random"] else 0, r["pass"],
                            start // r["bs"])
                wend = min(wend, start + ((x - start) // size + 1) * size)
            end = min(end, wend, r["length"])
            out.append((x, end - x))
            x = end
        return out


def truth(kind, e, pass_, prior_known):
    """The class a piece damaged with KIND must get, or None (no violation)."""
    old_known = pass_ > 0 or prior_known
    if kind == "new":
        return "UNISSUED" if e == "old" else None
    if kind == "old":
        if e != "new":
            return None
        return "LOST" if old_known else "FOREIGN"
    if kind in ("older", "prior-older"):
        return "LOST"
    if kind in ("zeros", "garbage"):
        return None if (e != "new" and not old_known) else "FOREIGN"
    if kind in ("tear-new-old", "tear-old-new"):
        return "UNISSUED" if e == "old" else "TORN"
    raise Failure(kind)


class Case:
    def __init__(self, seed, index, dirname, verbose):
        self.rng = random.Random("%d/%d" % (seed, index))
        self.dir, self.verbose, self.log = dirname, verbose, []
        self.streams = {}

    def say(self, text):
        self.log.append(text)
        if self.verbose:
            print("  " + text)

    def gen(self, origin, so, length):
        key = (origin, so)
        if key not in self.streams or len(self.streams[key]) < length:
            self.streams[key] = run([GUAC, "gen", "--origin", str(origin), "--offset", str(so),
                                     "--length", str(length)]).stdout
        return self.streams[key][:length]

    def plan(self):
        g = self.rng
        self.bs = g.choice([4 * KIB, 8 * KIB, 16 * KIB, 64 * KIB])
        self.blocks = g.choice([g.randint(8, 160), g.randint(4, 16)])
        self.length = self.bs * self.blocks
        self.seek = g.choice([0, 0, 1536, 4096, 65536])
        self.so = g.choice([0, g.randrange(1 << 40) * 64 + g.choice([0, 512, 8])])
        self.prior = g.randrange(1 << 40)
        self.origin = g.randrange(1 << 40)
        self.random = g.random() < 0.5
        self.passes = g.randint(1, 3) if self.random else 1
        self.jobs = g.randint(1, 4)
        self.iodepth = g.choice([1, 1, 4])
        self.window = g.choice([g.randint(1, 8), g.randint(1, 8), 64, 500])
        self.unit = g.choice([512, 4096])
        self.prior_known = g.random() < 0.6
        self.own_journal = g.random() < 0.4
        total = self.length * self.passes
        self.seconds = g.uniform(0.6, 1.6)
        self.rate = max(total // int(self.seconds * 1000) * 1000, 64 * KIB)
        self.split = None
        if g.random() < 0.3:
            sizes = g.sample(sorted({512, 1024, 4096, self.bs // 2, self.bs}), g.randint(1, 3))
            cut = sorted(g.sample(range(1, 100), len(sizes) - 1))
            pcts = [b - a for a, b in zip([0] + cut, cut + [100])]
            self.split = ":".join("%d/%d" % sp for sp in zip(sizes, pcts))
        self.kill_after = None if g.random() < 0.2 else g.uniform(0.05, self.seconds)
        if g.random() < 0.15:
            self.rate, self.kill_after = None, None  # done before the first flush

    def write_args(self):
        a = [GUAC, "write", "--crash-safe", "--bs", str(self.bs), "--length", str(self.length),
             "--seek", str(self.seek), "--offset", str(self.so), "--origin", str(self.origin),
             "--jobs", str(self.jobs), "--iodepth", str(self.iodepth), "--crash-window",
             str(self.window), "--flush-interval", "%.3f" % self.rng.uniform(0.01, 0.2),
             "--progress", "none"] + (["--rate", str(self.rate)] if self.rate else [])
        if self.random:
            a += ["--pattern", "random", "--passes", str(self.passes), "--seed",
                  str(self.rng.randrange(1 << 63))]
        if self.own_journal:
            a += ["--journal", self.journal]
        if self.split:
            a += ["--bs-split", self.split]
        return a + [self.target]

    def fill(self):
        self.target = os.path.join(self.dir, "target")
        self.journal = os.path.join(self.dir, "journal")
        run([GUAC, "write", "--origin", str(self.prior), "--seek", str(self.seek), "--offset",
             str(self.so), "--length", str(self.length), "--progress", "none", self.target])
        args = self.write_args()
        self.say(" ".join(args) + (" (killed after %.3f s)" % self.kill_after
                                   if self.kill_after is not None else ""))
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if self.kill_after is not None:
            time.sleep(self.kill_after)
            p.send_signal(signal.SIGKILL)
        _, err = p.communicate(timeout=120)
        if p.returncode and (self.kill_after is None or p.returncode != -signal.SIGKILL):
            raise Failure("the crash-safe fill failed (exit %d): %s" % (p.returncode, err.decode()))

    def journal_at(self):
        if self.own_journal and not os.path.exists(self.journal):
            return None, 0      # killed before it opened the journal
        if self.own_journal:
            return self.journal, 0
        size = os.path.getsize(self.target)
        return self.target, (size & ~4095) - JOURNAL

    def damage(self, model):
        """Damage some pieces; the reference's class of every byte they cover."""
        r, expected = model.r, {}
        p = r["pass"]
        new = self.gen(pass_origin(r, p), self.so, self.length)
        old = self.gen(pass_origin(r, p - 1) if p else self.prior, self.so, self.length)
        pieces = model.pieces(self.unit)
        kinds = ["new", "old", "zeros", "garbage", "tear-new-old", "tear-old-new"]
        if p >= 2:
            kinds.append("older")
        if p >= 1 and self.prior_known:
            kinds.append("prior-older")
        with open(self.target, "r+b") as f:
            for x, n in self.rng.sample(pieces, min(len(pieces), self.rng.randint(0, 6))):
                kind = self.rng.choice(kinds)
                if kind.startswith("tear") and n < 2 * MATCH_MIN + 1:
                    kind = "zeros"
                data = self.content(kind, new, old, x, n, r)
                f.seek(self.seek + x)
                f.write(data)
                cls = truth(kind, model.expect(x, n), p, self.prior_known)
                CLASSES_SEEN[cls or "none"] = CLASSES_SEEN.get(cls or "none", 0) + 1
                self.say("damage: %s at run bytes %d-%d (%s) -> %s" %
                         (kind, x, x + n - 1, model.expect(x, n), cls))
                for b in range(x, x + n):
                    expected[b] = cls
        return {b: c for b, c in expected.items() if c}

    def content(self, kind, new, old, x, n, r):
        if kind == "new":
            return new[x:x + n]
        if kind == "old":
            return old[x:x + n]
        if kind == "older":
            return self.gen(pass_origin(r, r["pass"] - 2), self.so, self.length)[x:x + n]
        if kind == "prior-older":
            return self.gen(self.prior, self.so, self.length)[x:x + n]
        if kind == "zeros":
            return bytes(n)
        if kind == "garbage":
            return bytes(self.rng.randrange(256) for _ in range(n))
        k = self.rng.randint(MATCH_MIN, n - MATCH_MIN)
        a, b = (new, old) if kind == "tear-new-old" else (old, new)
        return a[x:x + k] + b[x + k:x + n]

    def check(self):
        args = [GUAC, "verify", "--after-crash", "--sector", str(self.unit)]
        if self.prior_known:
            args += ["--prior-origin", str(self.prior)]
        if self.own_journal:
            args += ["--journal", self.journal]
        args.append(self.target)
        self.say(" ".join(args))
        p = run(args, check=False)
        out = p.stdout.decode()
        got = {}
        for line in out.splitlines():
            if line.startswith("violation "):
                w = line.split()
                for b in range(int(w[1]) - self.seek, int(w[2]) - self.seek + 1):
                    got[b] = w[5]
        return p.returncode, out, p.stderr.decode(), got

    def run(self):
        self.plan()
        self.fill()
        path, at = self.journal_at()
        r = read_journal(path, at)
        if r:
            check_record(r)
        rc, out, err, got = self.check()
        if r is None:
            # Killed before its first record: nothing to check, and nothing written.
            data = open(self.target, "rb").read()[self.seek:self.seek + self.length]
            if rc != 2 or "no valid journal record" not in err:
                return {"alarm": 1, "why": "no record: exit %d %s" % (rc, err)}
            if data != self.gen(self.prior, self.so, self.length):
                return {"fok": 1, "why": "no record, but the fill wrote"}
            return {"norecord": 1}
        if rc != 0:
            return {"alarm": 1, "why": "before damage: exit %d\n%s%s" % (rc, out, err)}
        expected = self.damage(Model(r))
        rc, out, err, got = self.check()
        res = {"fok": 0, "alarm": 0, "misnamed": 0, "violations": len(expected)}
        fok = sorted(b for b in expected if b not in got)
        alarm = sorted(b for b in got if b not in expected)
        misnamed = sorted(b for b in got if b in expected and got[b] != expected[b])
        if fok or alarm or misnamed or rc != (1 if expected else 0):
            res.update(fok=len(fok) > 0, alarm=len(alarm) > 0 or (rc != (1 if expected else 0)
                                                              and not fok),
                       misnamed=len(misnamed) > 0)
            res["why"] = ("exit %d; false OK at run bytes %s; false alarm at %s; misnamed at %s"
                          "\n%s%s" % (rc, fok[:3], alarm[:3], misnamed[:3], out, err))
        return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--cases", type=int)
    ap.add_argument("--case", type=int)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--keep-failed", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 32)
    print("crash_differential: seed %d (replay: --seed %d --case I -v)" % (seed, seed))
    tot = {"cases": 0, "fok": 0, "alarm": 0, "misnamed": 0, "violations": 0, "norecord": 0}
    deadline = time.time() + a.seconds
    index = a.case if a.case is not None else 0
    while True:
        if a.case is not None and tot["cases"]:
            break
        if a.case is None and (time.time() > deadline or (a.cases and tot["cases"] >= a.cases)):
            break
        d = tempfile.mkdtemp(prefix="crashdiff.")
        c = Case(seed, index, d, a.verbose)
        try:
            res = c.run()
        except Failure as e:
            res = {"alarm": 1, "why": "error: %s" % e}
        tot["cases"] += 1
        for k in ("fok", "alarm", "misnamed", "violations", "norecord"):
            tot[k] += int(res.get(k, 0))
        if res.get("why"):
            print("case %d FAILED: %s" % (index, res["why"]))
            print("\n".join("  " + line for line in c.log))
        if res.get("why") and a.keep_failed:
            print("  kept: %s" % d)
        else:
            shutil.rmtree(d, ignore_errors=True)
        index += 1
    print("family crash: %d cases, %d false OK, %d false alarm, %d misnamed, %d damaged "
          "bytes' verdicts, %d killed before a record" %
          (tot["cases"], tot["fok"], tot["alarm"], tot["misnamed"], tot["violations"],
           tot["norecord"]))
    print("damaged pieces by class: " + ", ".join("%s %d" % kv for kv in sorted(CLASSES_SEEN.items())))
    bad = tot["fok"] + tot["alarm"] + tot["misnamed"]
    print("crash_differential: %d cases, %d failed" % (tot["cases"], bad))
    return 1 if bad or tot["cases"] < 5 else 0


if __name__ == "__main__":
    sys.exit(main())
