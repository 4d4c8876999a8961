#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Differential test of guac report over random fleets (issue 35, item 7).

Each case builds a fleet in a directory of its own: a few targets (regular
files; loop devices over image files when running as root and losetup works),
filled, checked and changed at random: whole and partial fills, refills of all
or part of a target, overlapping fills recorded under other manifests, sharded
fills with and without a merge, other origins, damage (bytes overwritten) and
repairs, whole and partial checks (verify --shard/--skip/--length), targets
removed or replaced, loop devices detached and attached to another image (or
their own again), host-name variants (n1, n1.lab.example, the host name), a
symbolic link as another name of a target, manifests edited with their
checksum recomputed (status, verify status, bad_sectors, verified bytes, host,
run, target path, a local file marked shared) and manifests given twice. Then
guac report runs over the manifests (with and without --expect, --whole;
--json and the table), and every row is compared with the truth.

The truth of a row: the manifest it names, as it is now; the fill's ranges it
describes (origin, stream offset, device offset, length), regenerated with
`guac gen` and compared byte for byte with the target as it is now; and the
target must be the medium the manifest recorded (the file written, not one
made again at its path; the image the loop device held, not another). The
rule: a row may say OK ONLY when its manifest loads, the target exists and is
the medium recorded, every byte of every range matches (and, with --whole, the
fill, its shards given with it, covers the target's recorded size); anything
else that says OK is a FALSE OK. The report's exit status must be 0 exactly
when there are rows and every row is OK. Liveness: on a clean fleet (every
target filled once, checked whole, untouched since; no manifest twice) every
row must be OK (PARTIAL with --whole where the fill covers part of the
target) and the exit status 0; anything else is a FALSE ALARM.

Edits never make a record claim more than guac wrote (no status turned
complete, no bad sector count lowered, no start time moved): the checksum
detects edits and damage, not forgery (docs/manifest.md), and a forged clean
record over bad data is beyond what any reader of records can know.

`fleet_differential.py --seed S --case I -v` replays case I of seed S. Python
3 standard library only; GUAC (environment) names the binary.
"""

import argparse
import hashlib
import json
import mmap
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from differential import find_guac   # the same binary lookup (GUAC, else the build's)

KIB = 1024
CMD_TIMEOUT = 120
HOSTS = ["n1", "n1.lab.example", None]      # None: no --host, the host name
FAMILIES = [
    # name, weight, what it aims at
    ("clean", 30, "every target filled once and checked whole: all must be OK"),
    ("refill", 16, "refills of all or part, overlapping fills, host and path variants"),
    ("shard", 14, "sharded fills, merges, partial checks of shards"),
    ("damage", 16, "damage, repairs, partial and whole checks"),
    ("media", 12, "targets removed, replaced, loop devices re-attached"),
    ("edit", 12, "manifests edited (checksum recomputed), copied, given twice"),
    ("remote", 16, "guac's own fills and checks only, reported from another host"),
]
CLASSES = {
    "false-ok": "a row says OK but the target does not hold its fill",
    "exit": "the exit status disagrees with the rows",
    "liveness": "a clean fleet was not all OK",
    "table": "the table and the JSON disagree",
    "tool": "a command failed where it should not",
    "internal": "an error of the test itself",
}


class Failure(Exception):
    pass


class Disk:
    """A target of the fleet: a file, or a loop device over an image file."""

    def __init__(self, name, path, size, loop=False, image=None):
        self.name, self.path, self.size = name, path, size
        self.loop, self.image = loop, image
        self.link = None           # a symbolic link naming it too
        self.recorded = path       # the name its first fill recorded (for --expect)
        self.host = None
        self.gen = 0               # bumped when the file is made again at its path
        self.gone = False


class Case:
    def __init__(self, test, seed, index):
        self.t = test
        self.g = test.guac
        self.seed, self.index = seed, index
        self.rng = random.Random("fleet/%d/%d" % (seed, index))
        fams = [f for f in FAMILIES if not test.families or f[0] in test.families]
        self.family = self.rng.choices([f[0] for f in fams], [f[1] for f in fams])[0]
        self.dir = tempfile.mkdtemp(prefix="c%d-" % index, dir=test.root)
        self.lines, self.findings = [], []
        self.disks = []
        self.manifests = []        # the manifest paths made, in order
        self.medium = {}           # manifest path -> the medium its target was when written
        self.loops = []            # loop devices attached by this case
        self.clean = self.family == "clean"
        # The report on another host than the targets' (a head node): it cannot re-read
        # them, so only what the manifests say counts; the case then changes its targets
        # only through guac, which records every change somewhere.
        self.remote = self.family == "remote" or (self.clean and self.rng.random() < 0.3)
        self.reports = 0
        self.rows_ok = 0
        self.env = {k: v for k, v in os.environ.items() if k not in ("GUAC_HOST", "GUAC_RUN")}

    # ---- the command log -------------------------------------------------------------

    def p(self, name):
        return os.path.join(self.dir, name)

    def show(self, s):
        return s.replace(self.dir, "$T").replace(self.g, "$GUAC")

    def log(self, line):
        self.lines.append(self.show(line))

    def run(self, args, check=False):
        args = [str(a) for a in args]
        text = " ".join(shlex.quote(a) for a in args)
        try:
            r = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=CMD_TIMEOUT, env=self.env)
        except subprocess.TimeoutExpired:
            self.log(text + "   # HUNG")
            raise Failure("hung: " + self.show(text))
        self.log(text + "   # exit %d" % r.returncode)
        out, err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
        if check and r.returncode != 0:
            raise Failure("%s: exit %d: %s" % (self.show(text), r.returncode,
                                                self.show(err.strip())[:600]))
        return r.returncode, out, err

    def add(self, kind, cls, what, detail=()):
        self.findings.append({"kind": kind, "cls": cls, "what": what,
                              "detail": list(detail), "lines": list(self.lines)})

    # ---- the truth -------------------------------------------------------------------

    def disk_of(self, path):
        real = os.path.realpath(path)
        for d in self.disks:
            if real in (os.path.realpath(d.path), d.path) or path == d.link:
                return d
        return None

    def medium_of(self, path):
        """What PATH holds now: ('file', path, generation) or ('image', image), or None."""
        d = self.disk_of(path)
        if d is None or d.gone or not os.path.exists(path):
            return None
        if d.loop:
            return ("image", self.loop_image(d.path))
        return ("file", d.path, d.gen)

    def loop_image(self, node):
        try:
            with open("/sys/block/%s/loop/backing_file" % os.path.basename(node)) as f:
                return f.read().strip()
        except OSError:
            return None

    def gen(self, origin, so, length):
        r = subprocess.run([self.g, "gen", "--origin", str(origin), "--offset", str(so),
                            "--length", str(length)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=CMD_TIMEOUT)
        if r.returncode or len(r.stdout) != length:
            raise Failure("guac gen --origin %d --offset %d --length %d: exit %d"
                          % (origin, so, length, r.returncode))
        return r.stdout

    def read(self, path, off, n):
        """N bytes at OFF of PATH; a block device's from the medium (O_DIRECT), not
        from a page cache that may hold what another image had behind its node."""
        d = self.disk_of(path)
        if not (d and d.loop) or off % 512 or n % 512:
            with open(path, "rb") as f:
                f.seek(off)
                return f.read(n)
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            buf = mmap.mmap(-1, n)
            got = os.preadv(fd, [buf], off)
            return bytes(buf[:got])
        finally:
            os.close(fd)

    def why_not_ok(self, mpath, whole, given):
        """None when the manifest at MPATH may be OK, else why not (the truth)."""
        try:
            with open(mpath) as f:
                m = json.load(f)
        except (OSError, ValueError) as e:
            return "its manifest does not load: %s" % e
        if m.get("status") != "complete":
            return "its manifest's status is %s" % m.get("status")
        path = m["target"]["path"]
        rec = self.medium.get(os.path.realpath(mpath))
        now = self.medium_of(path)
        if now is None:
            return "its target %s is gone" % self.show(path)
        if rec != now:
            return "its target %s is another medium (recorded %s, now %s)" % (
                self.show(path), self.show(str(rec)), self.show(str(now)))
        for r in m["ranges"]:
            ref = self.gen(m["origin"], r["stream_offset"], r["length"])
            got = self.read(path, r["device_offset"], r["length"])
            if got != ref:
                i = next((k for k, (a, b) in enumerate(zip(got, ref)) if a != b), len(got))
                return ("device byte %d of %s differs from `guac gen --origin %d --offset %d`"
                        " (range at device byte %d, %d bytes; %d bytes read)"
                        % (r["device_offset"] + i, self.show(path), m["origin"],
                           r["stream_offset"] + i, r["device_offset"], r["length"], len(got)))
        if whole:
            covered = self.coverage(m, given)
            if covered < m["target"]["size"]:
                return "--whole: the fill covers %d of the target's %d bytes" % (
                    covered, m["target"]["size"])
        return None

    def coverage(self, m, given):
        """Bytes of the target the fill of M covers, with the shards of it given."""
        spans = [(r["device_offset"], r["device_offset"] + r["done"]) for r in m["ranges"]]
        if m["shard"]["count"] > 1:
            for g in given:
                try:
                    with open(g) as f:
                        o = json.load(f)
                except (OSError, ValueError):
                    continue
                if (o["shard"]["count"] == m["shard"]["count"] and
                        o["target"]["path"] == m["target"]["path"] and
                        all(o[k] == m[k] for k in ("origin", "stream_offset",
                                                   "device_offset", "length"))):
                    spans += [(r["device_offset"], r["device_offset"] + r["done"])
                              for r in o["ranges"]]
        covered, end = 0, 0
        for a, b in sorted(spans):
            b = min(b, m["target"]["size"])
            a = max(a, end)
            if b > a:
                covered += b - a
                end = b
        return covered

    # ---- making the fleet ------------------------------------------------------------

    def new_disk(self, i):
        r = self.rng
        size = r.choice([256, 512, 768, 1024, 2048]) * KIB
        name = "d%d" % i
        d = None
        if self.t.loops and r.random() < 0.4:
            img = self.p(name + ".img")
            with open(img, "wb") as f:
                f.truncate(size)
            node = self.attach(img)
            if node:
                d = Disk(name, node, size, loop=True, image=img)
        if d is None:
            d = Disk(name, self.p(name), size)
            with open(d.path, "wb") as f:
                f.truncate(size)
        d.host = r.choice(HOSTS)
        self.disks.append(d)
        return d

    def attach(self, img, node=None):
        args = ["losetup", node, img] if node else ["losetup", "-f", "--show", img]
        rc, out, err = self.run(args)
        if rc:
            return None
        node = node or out.strip()
        self.loops.append(node)
        return node

    def detach(self, node):
        self.run(["losetup", "-d", node])
        if node in self.loops:
            self.loops.remove(node)

    def cleanup(self):
        for node in list(self.loops):
            subprocess.run(["losetup", "-d", node], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        self.loops = []

    def host_args(self, host):
        return ["--host", host] if host else []

    def sector_range(self, size, whole):
        """A (seek, length) in whole 4 KiB units within SIZE bytes (all of it when WHOLE)."""
        if whole:
            return 0, size
        units = size // (4 * KIB)
        a = self.rng.randrange(0, units)
        b = self.rng.randint(a + 1, units)
        return a * 4 * KIB, (b - a) * 4 * KIB

    def note_manifest(self, m, before, target):
        """Record which medium manifest M names, when the command changed it."""
        after = self.snapshot(m)
        if after is not None and after != before:
            self.medium[os.path.realpath(m)] = self.medium_of(target)
            if m not in self.manifests:
                self.manifests.append(m)

    @staticmethod
    def snapshot(path):
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError:
            return None

    def target_name(self, d):
        return d.link if d.link and self.rng.random() < 0.5 else d.path

    def fill(self, d, m=None, whole=None, shard=None, origin=None, host="keep", force=False,
             target=None):
        r = self.rng
        if whole is None:
            whole = r.random() < 0.6
        seek, length = self.sector_range(d.size, whole)
        if shard:
            seek, length = shard[2], shard[3]
        origin = origin if origin is not None else r.randrange(1, 1 << 40)
        m = m or self.p("%s-%d.json" % (d.name, len(self.manifests)))
        target = target or d.path
        args = [self.g, "write", "--origin", origin, "-m", m]
        if seek or shard or r.random() < 0.3:
            args += ["--seek", seek]
        if not whole or shard or r.random() < 0.5:
            args += ["--length", length]
        if shard:
            args += ["--shard", "%d/%d" % (shard[0], shard[1])]
        if r.random() < 0.3:
            args += ["--jobs", r.randint(2, 3)]
        args += self.host_args(d.host if host == "keep" else host)
        if not self.clean and r.random() < 0.3:
            args += ["--run", r.choice(["w1", "w2"])]   # the fleet run it is of
        if force:
            args += ["--force"]
        before = self.snapshot(m)
        rc, out, err = self.run(args + [target])
        if d.gone and not d.loop and os.path.exists(d.path):
            d.gone = False          # a removed file made again by the write: a new file
            d.gen += 1
        self.note_manifest(m, before, target)
        return m, rc

    def verify(self, m, extra=()):
        before = self.snapshot(m)
        rc, out, err = self.run([self.g, "verify", "-m", m] + list(extra))
        # a check rewrites the manifest, never its target
        if self.snapshot(m) != before and os.path.realpath(m) not in self.medium:
            raise Failure("verify made a manifest it did not have")
        return rc

    def fill_clean(self, d):
        """One fill of D, checked whole: (manifests to give, whole shards or not)."""
        r = self.rng
        if r.random() < 0.3:
            n = r.randint(2, 3)
            seek, length = self.sector_range(d.size, r.random() < 0.6)
            origin = r.randrange(1, 1 << 40)
            parts = []
            for k in range(n):
                pm = self.p("%s-part%d.json" % (d.name, k))
                self.fill(d, m=pm, shard=(k, n, seek, length), origin=origin)
                parts.append(pm)
            if r.random() < 0.5:
                merged = self.p("%s-merged.json" % d.name)
                rc, out, err = self.run([self.g, "manifest", "merge", merged] + parts, check=True)
                self.medium[os.path.realpath(merged)] = self.medium_of(d.path)
                self.manifests.append(merged)
                self.verify(merged)
                return [merged], parts
            for pm in parts:
                self.verify(pm)
            return parts, parts
        d.recorded = self.target_name(d)
        m, rc = self.fill(d, target=d.recorded)
        if rc:
            raise Failure("a fill of a fresh target failed (exit %d)" % rc)
        self.verify(m)
        return [m], []

    # ---- changes ---------------------------------------------------------------------

    def damage(self, d):
        if d.gone:
            return
        pos = self.rng.randrange(0, d.size)
        n = min(self.rng.choice([1, 16, 512, 4096]), d.size - pos)
        data = bytes(self.rng.getrandbits(8) for _ in range(n))
        with open(d.path, "r+b") as f:
            f.seek(pos)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        self.log("python3: write %d random bytes at byte %d of %s (fsync)"
                 % (n, pos, self.show(d.path)))

    def repair(self, m):
        """Put the stream back over the fill M records (as guac gen says)."""
        try:
            with open(m) as f:
                j = json.load(f)
        except (OSError, ValueError):
            return
        d = self.disk_of(j["target"]["path"])
        if d is None or d.gone or self.medium_of(d.path) != self.medium.get(os.path.realpath(m)):
            return
        for r in j["ranges"]:
            data = self.gen(j["origin"], r["stream_offset"], r["length"])
            with open(d.path, "r+b") as f:
                f.seek(r["device_offset"])
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        self.log("python3: write guac gen's bytes over every range of %s (repair)"
                 % self.show(m))

    def remove(self, d):
        if d.gone:
            return
        if d.loop:
            self.detach(d.path)
        else:
            os.unlink(d.path)
            self.log("rm %s" % self.show(d.path))
        d.gone = True

    def replace(self, d):
        """The file removed and made again at its path (a copy of what it held)."""
        if d.gone or d.loop:
            return self.reattach(d)
        tmp = d.path + ".new"
        shutil.copyfile(d.path, tmp)
        os.rename(tmp, d.path)
        d.gen += 1
        self.log("cp %s %s.new; mv %s.new %s   # the same bytes, another file"
                 % ((self.show(d.path),) * 4))

    def reattach(self, d):
        """The loop device detached and attached again: to its own image, to a copy of
        it (the same bytes, another medium), or swapped with another loop device's
        image. With --shared-media also to an image another loop device holds."""
        if d.gone or not d.loop:
            return
        others = [e for e in self.disks if e.loop and e is not d and not e.gone]
        how = self.rng.choice(["own", "copy", "swap"] + (["shared"] if self.t.shared else []))
        if how == "swap" and others:
            e = self.rng.choice(others)
            self.detach(d.path)
            self.detach(e.path)
            d.image, e.image = e.image, d.image
            for x in (d, e):
                x.size = os.path.getsize(x.image)   # the device is as big as its image
                if not self.attach(x.image, x.path):
                    x.gone = True               # another process took the node
            return
        img = d.image
        if how == "copy":
            img = self.p("%s-copy%d.img" % (d.name, len(self.lines)))
            shutil.copyfile(d.image, img)
            self.log("cp %s %s" % (self.show(d.image), self.show(img)))
        elif how == "shared" and others:
            img = self.rng.choice(others).image     # two loop devices over one image
        self.detach(d.path)
        if not self.attach(img, d.path):
            d.gone = True
            return
        d.image = img
        d.size = os.path.getsize(img)

    def edit(self, m):
        """Edit manifest M and recompute its checksum; never a claim of more than it had."""
        try:
            with open(m) as f:
                text = f.read()
            j = json.loads(text)
        except (OSError, ValueError):
            return
        r = self.rng
        kinds = ["status", "host", "run", "path", "shared", "verified"]
        if j["verify"]:
            kinds += ["vstatus", "bad", "bad-inconsistent"]
        kind = r.choice(kinds)
        new = text
        if kind == "status" and j["status"] == "complete":
            new = text.replace('"status": "complete",\n  "error"',
                               '"status": "%s",\n  "error"' % r.choice(["running", "interrupted"]))
        elif kind == "host":
            new = text.replace('"host": %s,' % json.dumps(j["host"]),
                               '"host": %s,' % json.dumps(r.choice(["n1", "n1.lab.example",
                                                                     "n2"])), 1)
        elif kind == "run":
            new = text.replace('"run": %s,' % json.dumps(j["run"]), '"run": "w%d",'
                               % r.randint(1, 2), 1)
        elif kind == "path":
            other = r.choice(self.disks)
            new = text.replace('"path": %s,' % json.dumps(j["target"]["path"]),
                               '"path": %s,' % json.dumps(other.path), 1)
        elif kind == "shared":
            ident = j["target"]["identity"]
            if ident and ident.startswith("file ") and "shared=1" not in ident:
                nid = ident.replace(" dev=", " shared=1 dev=")
                new = text.replace(json.dumps(ident), json.dumps(nid), 1)
        elif kind == "verified":
            rg = r.choice(j["ranges"])
            if rg["verified"]:
                old = '"done": %d, "verified": %d}' % (rg["done"], rg["verified"])
                nv = '"done": %d, "verified": %d}' % (rg["done"], rg["verified"] - 512)
                new = text.replace('"device_offset": %d, "stream_offset": %d, "length": %d, %s'
                                   % (rg["device_offset"], rg["stream_offset"], rg["length"], old),
                                   '"device_offset": %d, "stream_offset": %d, "length": %d, %s'
                                   % (rg["device_offset"], rg["stream_offset"], rg["length"], nv))
        elif kind == "vstatus":
            new = text.replace('"verify": {"status": "complete"',
                               '"verify": {"status": "interrupted"')
        elif kind in ("bad", "bad-inconsistent"):
            v = j["verify"]
            add = r.randint(1, 8)
            new = text.replace('"bad_sectors": %d,' % v["bad_sectors"],
                               '"bad_sectors": %d,' % (v["bad_sectors"] + add), 1)
            if kind == "bad" and v["classes"] is not None:
                new = new.replace('"OTHER": %d,' % v["classes"]["OTHER"],
                                  '"OTHER": %d,' % (v["classes"]["OTHER"] + add), 1)
        if new == text:
            return
        new = self.with_checksum(new)
        with open(m, "w") as f:
            f.write(new)
        self.log("edit %s: %s (checksum recomputed)" % (self.show(m), kind))

    @staticmethod
    def with_checksum(text):
        cut = text.index(',\n  "checksum"')
        body = text[text.index("{"):cut]
        return body + ',\n  "checksum": "sha256:%s"\n}\n' % hashlib.sha256(
            body.encode()).hexdigest()

    # ---- the families ----------------------------------------------------------------

    def build_clean(self):
        n = self.rng.randint(2, 4)
        given = []
        for i in range(n):
            d = self.new_disk(i)
            if self.rng.random() < 0.25:
                d.link = self.p(d.name + ".link")
                os.symlink(d.path, d.link)
            ms, _ = self.fill_clean(d)
            given += ms
        return given

    def change(self, kind, given):
        r = self.rng
        live = [d for d in self.disks if not d.gone] or self.disks
        d = r.choice(live)
        if kind == "refill":
            # all or part again: under the same manifest, or another; maybe another name
            same = [m for m in given if self.disk_of(self.target_of(m) or "") is d]
            m = r.choice(same) if same and r.random() < 0.4 else None
            host = r.choice(HOSTS) if r.random() < 0.4 else "keep"
            target = d.link if d.link and r.random() < 0.5 else d.path
            m2, rc = self.fill(d, m=m, host=host, force=r.random() < 0.5, target=target)
            if m2 not in given and os.path.exists(m2):
                given.append(m2)
            if rc == 0 and r.random() < 0.7:
                self.verify(m2)
        elif kind == "check":
            m = r.choice(given)
            self.verify(m)
        elif kind == "partial":
            m = r.choice(given)
            extra = r.choice([["--shard", "%d/%d" % (0, 2)], ["--shard", "1/2"],
                              ["--skip", r.randrange(0, 64) * 512],
                              ["--length", r.randint(1, 64) * 512],
                              ["--skip", r.randrange(0, 32) * 512, "--length", 4096]])
            self.verify(m, extra)
        elif kind == "damage":
            self.damage(d)
        elif kind == "repair":
            self.repair(r.choice(given))
        elif kind == "remove":
            self.remove(d)
        elif kind == "replace":
            self.replace(d)
        elif kind == "reattach":
            self.reattach(d)
        elif kind == "edit":
            self.edit(r.choice(given))
        elif kind == "twice":
            m = r.choice(given)
            if r.random() < 0.5:
                given.append(m)
            else:
                c = self.p("copy-%d.json" % len(given))
                shutil.copyfile(m, c)
                self.medium[os.path.realpath(c)] = self.medium.get(os.path.realpath(m))
                self.log("cp %s %s" % (self.show(m), self.show(c)))
                given.append(c)
        elif kind == "shardfill":
            n = r.randint(2, 3)
            seek, length = self.sector_range(d.size, r.random() < 0.5)
            origin = r.randrange(1, 1 << 40)
            parts = []
            for k in range(n):
                if k and r.random() < 0.1:
                    continue                        # a shard never written
                pm, rc = self.fill(d, m=self.p("%s-s%d-%d.json" % (d.name, len(given), k)),
                                   shard=(k, n, seek, length), origin=origin)
                if os.path.exists(pm):
                    parts.append(pm)
            if parts and r.random() < 0.5:
                merged = self.p("%s-m%d.json" % (d.name, len(given)))
                rc, out, err = self.run([self.g, "manifest", "merge", merged] + parts)
                if rc == 0:
                    self.medium[os.path.realpath(merged)] = self.medium_of(d.path)
                    self.verify(merged)
                    given.append(merged)
                    if r.random() < 0.5:
                        return
            for pm in parts:
                if r.random() < 0.7:
                    self.verify(pm)
                given.append(pm)

    def target_of(self, m):
        try:
            with open(m) as f:
                return json.load(f)["target"]["path"]
        except (OSError, ValueError, KeyError):
            return None

    OPS = {
        "refill": [("refill", 5), ("check", 2), ("partial", 1), ("damage", 1)],
        "shard": [("shardfill", 5), ("partial", 3), ("check", 2), ("damage", 1)],
        "damage": [("damage", 4), ("repair", 2), ("partial", 3), ("check", 3)],
        "media": [("remove", 2), ("replace", 3), ("reattach", 4), ("check", 2),
                  ("refill", 1), ("damage", 1)],
        "edit": [("edit", 5), ("twice", 3), ("check", 1), ("refill", 1), ("damage", 1)],
        "remote": [("refill", 5), ("shardfill", 2), ("check", 2), ("partial", 2), ("twice", 1)],
    }

    def run_case(self):
        given = self.build_clean()
        if not self.clean:
            ops = self.OPS[self.family]
            for _ in range(self.rng.randint(2, 7)):
                kind = self.rng.choices([o[0] for o in ops], [o[1] for o in ops])[0]
                self.change(kind, given)
        for _ in range(self.rng.randint(1, 3)):
            self.report(given)

    # ---- the report and its judgement -----------------------------------------------

    def expect_list(self):
        """An --expect list naming each disk (its host written as a variant)."""
        lines = []
        for d in self.disks:
            host = d.host or os.uname().nodename
            if host == "n1" and self.rng.random() < 0.5:
                host = "n1.lab.example"
            elif host == "n1.lab.example" and self.rng.random() < 0.5:
                host = "n1"
            lines.append("%s %s" % (host, d.recorded))
        path = self.p("expect-%d" % self.reports)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log("printf '%s\\n' > %s" % ("\\n".join(lines), self.show(path)))
        return path

    def report(self, given):
        r = self.rng
        self.reports += 1
        opts = []
        if r.random() < 0.5:
            opts += ["--expect", self.expect_list()]
        whole = r.random() < 0.3
        if whole:
            opts += ["--whole"]
        if not self.clean and r.random() < 0.25:
            opts += ["--run", r.choice(["w1", "w2"])]
        args = list(given)
        if self.remote:
            args = self.from_afar(given)
        elif not self.clean and r.random() < 0.3:
            args = [self.dir]                       # every *.json of the directory
        rc, out, err = self.run([self.g, "report", "--json"] + opts + args)
        trc, tout, terr = self.run([self.g, "report"] + opts + args)
        if rc not in (0, 1):
            raise Failure("guac report --json: exit %d: %s" % (rc, self.show(err.strip())))
        try:
            rows = json.loads(out)["disks"]
        except (ValueError, KeyError) as e:
            raise Failure("guac report --json printed no JSON report: %s" % e)
        given_now = ([os.path.join(self.dir, x) for x in sorted(os.listdir(self.dir))
                      if x.endswith(".json")] if args == [self.dir] else args)
        text = []
        for row in rows:
            text.append("%s %s %s %s: %s" % (row.get("host"), self.show(str(row["target"])),
                                             self.show(str(row.get("manifest"))), row["state"],
                                             self.show(row.get("reason") or "")))
        self.log("   # rows: " + " | ".join(text))
        self.judge(rows, rc, whole, given_now)
        nok = sum(1 for row in rows if row["state"] == "OK")
        if trc != rc or ("%d OK" % nok in tout) != (nok > 0):
            self.add("FALSE ALARM" if nok == len(rows) else "FALSE OK", "table",
                     "the table (exit %d) and the JSON (exit %d, %d OK rows) disagree"
                     % (trc, rc, nok), [self.show(x) for x in tout.splitlines()[-6:]])

    def from_afar(self, given):
        """Copies of the manifests GIVEN as another host would see them: their targets'
        host name and boot id another machine's (checksums recomputed)."""
        head = self.p("head%d" % self.reports)
        os.makedirs(head)
        mine = open("/proc/sys/kernel/random/boot_id").read().strip()
        out, names = [], {}
        for m in given:
            c = names.get(m)
            if c is None:
                c = os.path.join(head, "%d-%s" % (len(names), os.path.basename(m)))
                names[m] = c
                try:
                    with open(m) as f:
                        text = f.read()
                    far = text.replace(mine, "0f0f0f0f-0000-4000-8000-000000000001")
                    far = far.replace(" host=%s " % os.uname().nodename, " host=far ")
                    far = self.with_checksum(far) if far != text else far
                except (OSError, ValueError):
                    far = None
                if far is None:
                    shutil.copyfile(m, c)
                else:
                    with open(c, "w") as f:
                        f.write(far)
                self.medium[os.path.realpath(c)] = self.medium.get(os.path.realpath(m))
            out.append(c)
        self.log("# the manifests as host 'far' sees them (identity host and boot id "
                 "rewritten, checksum recomputed): " + " ".join(self.show(x) for x in out))
        return out

    def judge(self, rows, rc, whole, given):
        all_ok = bool(rows) and all(row["state"] == "OK" for row in rows)
        for row in rows:
            m = row.get("manifest")
            if row["state"] == "OK" or row.get("ok"):
                why = "it names no manifest" if not m else self.why_not_ok(m, whole, given)
                if why:
                    self.add("FALSE OK", "false-ok", "%s (manifest %s) says %s: %s" % (
                        self.show(str(row["target"])), self.show(str(m)), row["state"], why),
                        [self.show(row.get("reason") or "")])
                else:
                    self.rows_ok += 1
        if (rc == 0) != all_ok:
            self.add("FALSE OK" if rc == 0 else "FALSE ALARM", "exit",
                     "guac report exits %d, but %s" % (rc, "every row is OK" if all_ok else
                                                       "not every row is OK"))
        if self.clean:
            for row in rows:
                if row["state"] == "OK":
                    continue
                if whole and row["state"] == "PARTIAL" and row.get("manifest"):
                    if self.partial_truly(row["manifest"], given):
                        continue
                self.add("FALSE ALARM", "liveness", "a clean fleet's %s (manifest %s) is %s: %s"
                         % (self.show(str(row["target"])), self.show(str(row.get("manifest"))),
                            row["state"], self.show(row.get("reason") or "")))

    def partial_truly(self, m, given):
        with open(m) as f:
            j = json.load(f)
        return self.coverage(j, given) < j["target"]["size"]


class Test:
    def __init__(self, args):
        self.args = args
        self.guac = args.guac
        base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="guac-fleetdiff-", dir=base))
        self.families = args.family.split(",") if args.family else None
        self.loops = args.loops and self.loops_work()
        self.shared = args.shared_media
        self.stats = {f[0]: {"cases": 0, "false_ok": 0, "false_alarm": 0, "ok_rows": 0}
                      for f in FAMILIES}
        self.findings = []

    def loops_work(self):
        if os.geteuid() != 0 or not shutil.which("losetup"):
            return False
        img = os.path.join(self.root, "probe.img")
        with open(img, "wb") as f:
            f.truncate(64 * KIB)
        r = subprocess.run(["losetup", "-f", "--show", img], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if r.returncode:
            return False
        subprocess.run(["losetup", "-d", r.stdout.decode().strip()])
        os.unlink(img)
        return True

    def main(self):
        a = self.args
        seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 32)
        me = os.path.relpath(__file__)
        print("fleet-differential: seed %d (replay: %s --seed %d); loop devices %s"
              % (seed, me, seed, "used" if self.loops else "not used (needs root and losetup)"))
        sys.stdout.flush()
        t0 = time.monotonic()
        n = 0
        while True:
            if a.case is not None:
                if n:
                    break
                idx = a.case
            else:
                idx = n
                if a.cases is not None and n >= a.cases:
                    break
                if a.seconds is not None and time.monotonic() - t0 >= a.seconds:
                    break
            case = Case(self, seed, idx)
            st = self.stats[case.family]
            st["cases"] += 1
            try:
                case.run_case()
            except Failure as e:
                case.add("FALSE ALARM", "tool", str(e))
            except (KeyboardInterrupt, SystemExit):
                case.cleanup()
                raise
            except Exception:
                case.add("FALSE ALARM", "internal", "fleet_differential.py raised",
                         traceback.format_exc().splitlines())
            finally:
                case.cleanup()
            n += 1
            st["ok_rows"] += case.rows_ok
            for fd in case.findings:
                st["false_ok" if fd["kind"] == "FALSE OK" else "false_alarm"] += 1
                self.findings.append((case, fd))
            if a.verbose:
                print("case %d (%s): %d findings" % (idx, case.family, len(case.findings)))
                for line in case.lines:
                    print("    " + line)
            if not (a.keep or (case.findings and a.keep_failed)):
                shutil.rmtree(case.dir, ignore_errors=True)
        elapsed = time.monotonic() - t0
        if not (a.keep or a.keep_failed):
            shutil.rmtree(self.root, ignore_errors=True)
        shown = {}
        for case, fd in sorted(self.findings, key=lambda x: len(x[1]["lines"])):
            key = (fd["kind"], fd["cls"])
            shown[key] = shown.get(key, 0) + 1
            print()
            print("%s [%s] case %d (family %s), seed %d: %s" % (
                fd["kind"], fd["cls"], case.index, case.family, case.seed, fd["what"]))
            print("  replay: %s --seed %d --case %d -v" % (me, case.seed, case.index))
            for d in fd["detail"]:
                print("  " + d)
            if shown[key] <= a.reports:
                print("  commands (T=the case's directory, GUAC=the guac binary):")
                for line in fd["lines"]:
                    print("    " + line)
        print()
        tot = {k: sum(s[k] for s in self.stats.values()) for k in
               ("cases", "false_ok", "false_alarm", "ok_rows")}
        for name, _, about in FAMILIES:
            s = self.stats[name]
            print("family %s: %d cases, %d false OK, %d false alarm, %d OK rows checked"
                  % (name, s["cases"], s["false_ok"], s["false_alarm"], s["ok_rows"]))
        # A run that judged no OK row, or no clean fleet, proved nothing.
        idle = a.case is None and (tot["ok_rows"] == 0 or (
            not self.families and self.stats["clean"]["cases"] == 0))
        if idle:
            print("fleet-differential: no OK row was judged or no clean fleet was made: "
                  "the generator is broken")
        print("fleet-differential: %d s, %d cases, %d false OK, %d false alarms, %d OK rows "
              "checked" % (elapsed, tot["cases"], tot["false_ok"], tot["false_alarm"],
                           tot["ok_rows"]))
        print("fleet-differential: seed %d" % seed)
        return 1 if tot["false_ok"] or tot["false_alarm"] or idle else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, help="master seed (default: random, printed first)")
    ap.add_argument("--cases", type=int, help="run this many cases")
    ap.add_argument("--seconds", type=float,
                    help="start no new case after this many seconds (default 60 unless "
                    "--cases is given)")
    ap.add_argument("--case", type=int, help="run only this case of the seed (replay)")
    ap.add_argument("--family", help="only these families (comma-separated): " +
                    ", ".join(f[0] for f in FAMILIES))
    ap.add_argument("--no-loops", dest="loops", action="store_false",
                    help="regular files only, even as root")
    ap.add_argument("--shared-media", action="store_true",
                    help="also attach a loop device to an image another one holds (two "
                    "block devices over one medium: writes through one are not counted "
                    "by the other; a known limit, see docs/testing.md)")
    ap.add_argument("--reports", type=int, default=2,
                    help="failures printed with their commands per class (default 2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case's commands")
    ap.add_argument("--keep", action="store_true", help="keep every case's directory")
    ap.add_argument("--keep-failed", action="store_true", help="keep failing cases' directories")
    a = ap.parse_args()
    if a.cases is None and a.seconds is None and a.case is None:
        a.seconds = 60.0
    a.guac = find_guac()
    if not os.access(a.guac, os.X_OK):
        print("fleet-differential: no guac binary at %s" % a.guac, file=sys.stderr)
        return 2
    return Test(a).main()


if __name__ == "__main__":
    sys.exit(main())
