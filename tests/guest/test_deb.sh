#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages of `make deb` (build/deb/), checked on the host: lintian,
# what each .deb holds, the DKMS configuration (its kernel regex against a
# table of releases), the packaged module sources built the way DKMS builds
# them against Debian's 6.1 and 6.12 headers, the hardening of guac, guac(1)
# against `guac --help`, and debian/copyright against every SPDX line. The
# guest scenario (check-guest.sh) installs them for real. TAP; exit status
# non-zero on failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
debdir=$top/build/deb
work=$top/build/deb-test
rm -rf "$work"
mkdir -p "$work"

tap_begin
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
dkms_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
dkms_deb=$debdir/guacrng-dkms_${version}_amd64.deb
tools_deb=$debdir/guacrng-tools_${version}_amd64.deb
check "dkms.conf's PACKAGE_VERSION ($dkms_version) is debian/changelog's ($version)" \
	'[ -n "$version" ] && [ "$dkms_version" = "$version" ]'
check "build/deb has guacrng-dkms and guacrng-tools $version, and the .changes" \
	'[ -f "$dkms_deb" ] && [ -f "$tools_deb" ] && [ -f "$debdir/guacrng_${version}_amd64.changes" ]'

if "$top/scripts/guest/lintian.sh" >"$work/lintian.out" 2>&1; then
	ok "lintian: no error and no warning"
	sed 's/^/# /' "$work/lintian.out"
else
	not_ok "lintian: no error and no warning" "$work/lintian.out"
fi

# BUILD_EXCLUSIVE_KERNEL and _ARCH, as dkms reads them: dkms.conf sourced by
# bash, [[ $kernelver =~ $BUILD_EXCLUSIVE_KERNEL ]].
regex_table() {
	(
		set +u	# dkms.conf names dkms variables (kernel_source_dir) it does not set
		. "$top/dkms.conf"
		bad=
		for k in 5.10.0-46-amd64 5.15.0 5.19.0 6.0.0-1-amd64 6.1.0-56-amd64 6.1.0 6.2.0-1-amd64 6.9.1 6.10.0 6.12.117+deb12-amd64 \
			6.12.117+deb12-rt-amd64 6.19.3 6.100.1 7.0.0 7.2.13+deb14-amd64 8.1 9.9 10.0.1 12.3; do
			[[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]] || bad="$bad $k(should build)"
		done
		for k in 5.9.0 5.4.0 5.1.0 4.19.0-27-amd64 3.16.0 1.0 \
			6 6.x 60 5.x; do
			! [[ $k =~ $BUILD_EXCLUSIVE_KERNEL ]] || bad="$bad $k(should not)"
		done
		for a in x86_64 aarch64; do [[ $a =~ $BUILD_EXCLUSIVE_ARCH ]] || bad="$bad $a"; done
		for a in i686 aarch64_be armv7l ppc64le x86_64x; do
			! [[ $a =~ $BUILD_EXCLUSIVE_ARCH ]] || bad="$bad $a"
		done
		[ "$AUTOINSTALL" = yes ] || bad="$bad AUTOINSTALL=$AUTOINSTALL"
		echo "BUILD_EXCLUSIVE_KERNEL=$BUILD_EXCLUSIVE_KERNEL${bad:+; wrong:$bad}"
		[ -z "$bad" ]
	)
}
check "BUILD_EXCLUSIVE_KERNEL takes 5.10 and later, not 5.9 or older; x86_64 and aarch64 only; AUTOINSTALL" \
	'regex_table >"$work/regex" 2>&1; status=$?; sed "s/^/# /" "$work/regex"; [ $status = 0 ]'

mkdir -p "$work/dkms" "$work/tools"
dpkg-deb -x "$dkms_deb" "$work/dkms" && dpkg-deb -e "$dkms_deb" "$work/dkms/DEBIAN"
dpkg-deb -x "$tools_deb" "$work/tools" && dpkg-deb -e "$tools_deb" "$work/tools/DEBIAN"
src=$work/dkms/usr/src/guacrng-$version

check "guacrng-dkms: dkms.conf in /usr/src/guacrng-$version is the tree's" \
	'cmp "$src/dkms.conf" "$top/dkms.conf"'
want=$(cd "$top" && ls drivers/guacrng/*.[ch] drivers/guacrng/Kbuild | grep -v '^drivers/guacrng/testing\.c$' | sort)
have=$(cd "$src" 2>/dev/null && find drivers -type f | sort)
check "guacrng-dkms: every module source but testing.c, and nothing else under drivers/" \
	'[ -n "$want" ] && [ "$want" = "$have" ] || { diff <(echo "$want") <(echo "$have") | sed "s/^/# /"; false; }'
check "guacrng-dkms: Kbuild and include/ as in the tree; no tests/, no testing.c" \
	'cmp "$src/Kbuild" "$top/Kbuild" && diff -r "$src/include" "$top/include" &&
	! [ -e "$src/tests" ] && ! [ -e "$src/drivers/guacrng/testing.c" ]'
check "guacrng-dkms: postinst and prerm hand the module to DKMS (dh_dkms), Depends: dkms" \
	'grep -q "common.postinst" "$work/dkms/DEBIAN/postinst" && grep -q "dkms remove" "$work/dkms/DEBIAN/prerm" &&
	dpkg-deb -f "$dkms_deb" Depends | grep -q "^dkms"'
check "guacrng-dkms: /etc/modprobe.d/guacrng.conf is its only conffile" \
	'[ "$(cat "$work/dkms/DEBIAN/conffiles")" = /etc/modprobe.d/guacrng.conf ]'
check "guacrng-dkms: modules-load.d loads guacrng; the udev rule says 0444 for guac" \
	'[ "$(grep -v "^#" "$work/dkms/usr/lib/modules-load.d/guacrng.conf")" = guacrng ] &&
	grep -qx "SUBSYSTEM==\"misc\", KERNEL==\"guac\", MODE=\"0444\"" "$work/dkms/lib/udev/rules.d/60-guacrng.rules"'
check "the module asks for the mode the udev rule gives (miscdevice .mode = 0444)" \
	'grep -q "\.mode = 0444," "$top/drivers/guacrng/device.c"'

# The packaged sources, built as dkms builds them, against each kernel's
# headers (fetched into the cache, nothing installed in the host).
for series in 6.1 6.12; do
	kver=$("$top/scripts/vm/fetch-kernel.sh" "$series" 2>"$work/fetch.err") || {
		not_ok "$series: fetch Debian's headers" "$work/fetch.err"
		continue
	}
	kdir=$(GUAC_TOP=$top bash -c '. "$GUAC_TOP/scripts/vm/lib.sh"; guac_kdir "$1"' sh "$kver")
	rm -rf "$work/build-$series"
	cp -r "$src" "$work/build-$series"
	if nice make -C "$kdir" M="$work/build-$series" KERNELRELEASE="$kver" -j2 modules \
		>"$work/build-$series.log" 2>&1; then
		ok "$kver: the packaged sources build as DKMS builds them"
	else
		not_ok "$kver: the packaged sources build as DKMS builds them" "$work/build-$series.log"
		continue
	fi
	ko=$work/build-$series/drivers/guacrng/guacrng.ko
	params=$(modinfo -p "$ko" | cut -d: -f1 | sort | tr '\n' ' ')
	check "$kver: the production module, parameters hwrng impl quality ($params)" \
		'[ "$params" = "hwrng impl quality " ] && [ "$(modinfo -F vermagic "$ko" | cut -d" " -f1)" = "$kver" ]'
	documented=$(sed -n 's/^#options guacrng \([a-z_]*\)=.*/\1/p' "$work/dkms/etc/modprobe.d/guacrng.conf" |
		sort | tr '\n' ' ')
	check "$kver: /etc/modprobe.d/guacrng.conf documents exactly those ($documented)" \
		'[ "$documented" = "$params" ]'
done

check "the documents the packaged files point to are there: install.md (uncompressed), README.md.gz, hwrng.md.gz, device.md.gz" \
	'for f in dkms/usr/share/doc/guacrng-dkms/install.md dkms/usr/share/doc/guacrng-dkms/README.md.gz \
		dkms/usr/share/doc/guacrng-dkms/hwrng.md.gz dkms/usr/share/doc/guacrng-dkms/device.md.gz \
		tools/usr/share/doc/guacrng-tools/install.md; do
		[ -f "$work/$f" ] || { echo "# missing: $f"; exit 1; }; done'

guac=$work/tools/usr/bin/guac
check "guacrng-tools: /usr/bin/guac runs and gives the published first block" \
	'[ "$("$guac" gen --length 64 | od -An -v -tx1 | tr -d " \n")" = 0ced594fb6194be61c8d8ff1d596352508040784ad6acb38cdd1f62912dab7b478b071bdbeab020c7af8ad2c7f66b2be35db3a025295bff3eca838f030f04457 ]'
check "guacrng-tools: guac is hardened (PIE, RELRO, BIND_NOW, stack protector, _FORTIFY_SOURCE)" \
	'readelf -h "$guac" | grep -q "Type: *DYN" && readelf -l "$guac" | grep -q GNU_RELRO &&
	readelf -d "$guac" | grep -q "BIND_NOW\|FLAGS_1.*NOW" && nm -D "$guac" | grep -q " U __stack_chk_fail@" &&
	nm -D "$guac" | grep -q " U __[a-z]*_chk@"'
check "guacrng-tools: the scripts default \$GUAC to /usr/bin/guac and are executable" \
	'for s in rngtest dieharder; do [ -x "$work/tools/usr/share/guacrng/$s.sh" ] &&
		grep -qx "GUAC=\${GUAC:-/usr/bin/guac}" "$work/tools/usr/share/guacrng/$s.sh" || exit 1; done'
check "guacrng-tools: the rngd drop-in selects a guacrng-* hwrng and runs rngd -r /dev/hwrng -d 1 -n 1" \
	'f=$work/tools/usr/share/guacrng/rngd-guacrng.conf
	grep -q "^ExecStart=$" "$f" && grep -qx "ExecStart=/usr/sbin/rngd -f -r /dev/hwrng -d 1 -n 1" "$f" &&
	grep -q "^ExecStartPre=.*guacrng-\*" "$f"'
check "guacrng-tools: the sbatch scripts and Kubernetes recipes make check-slurm runs are the examples shipped" \
	'n=0; for f in "$top"/docs/examples/slurm/* "$top"/docs/examples/kubernetes/*; do
		i=$work/tools/usr/share/doc/guacrng-tools/examples/$(basename "$(dirname "$f")")/$(basename "$f")
		if [ -f "$i" ]; then cmp -s "$f" "$i"; elif [ -f "$i.gz" ]; then zcat "$i.gz" | cmp -s "$f" -; else false; fi ||
			{ echo "# not shipped as tested: $i"; exit 1; }
		n=$((n + 1)); done; [ $n -ge 8 ]'

# guac(1): groff is silent, and the options it describes are the options the
# tool and the scripts take, no more and no fewer.
man=$work/tools/usr/share/man/man1/guac.1.gz
check "guac(1) renders without a groff warning" \
	'LC_ALL=C.UTF-8 MANROFFSEQ="" MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$man" 2>"$work/groff" >/dev/null &&
	! [ -s "$work/groff" ] || { sed "s/^/# /" "$work/groff"; false; }'
help_opts=$( { for c in $("$guac" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p'); do "$guac" "$c" --help; done
	"$work/tools/usr/share/guacrng/rngtest.sh" --help; "$work/tools/usr/share/guacrng/dieharder.sh" --help
	} 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u)
man_opts=$(zcat "$man" | grep -o -- '\\-\\-[a-z][a-z-]*' | sed 's/\\-/-/g' | sort -u)
check "guac(1) describes every option of every guac COMMAND --help and of the scripts, and no other" \
	'[ -n "$help_opts" ] && [ "$help_opts" = "$man_opts" ] ||
	{ diff <(echo "$help_opts") <(echo "$man_opts") | sed "s/^/# help vs man: /"; false; }'
cmds=$("$guac" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p' | sort | tr '\n' ' ')
check "guac(1) has a section for each command of guac --help ($cmds)" \
	'[ -n "$cmds" ] && for c in $cmds; do zcat "$man" | grep -qx ".SS \"guac $c\"" || exit 1; done'

# debian/copyright gives each file the license its SPDX line names.
check "debian/copyright agrees with the SPDX line of every file of the tree" \
	'python3 - "$top" >"$work/copyright.out" 2>&1 <<"EOF"
import fnmatch, re, subprocess, sys
top = sys.argv[1]
spdx2dep5 = {
    "GPL-2.0": "GPL-2",
    "GPL-2.0 OR MIT": "GPL-2 or Expat",
    "GPL-2.0 WITH Linux-syscall-note OR MIT": "GPL-2 with Linux-syscall-note exception or Expat",
}
stanzas, cur = [], None
for line in open(top + "/debian/copyright"):
    if line.startswith("Files:"):
        cur = {"files": line.split()[1:], "license": None}
        stanzas.append(cur)
    elif cur is not None and cur["license"] is None and line.startswith((" ", "\t")) and line.strip():
        cur["files"] += line.split()
    elif cur is not None and line.startswith("License:"):
        cur["license"] = line.split(":", 1)[1].strip()
    elif not line.strip():
        cur = None
files = subprocess.run(["git", "-C", top, "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True, check=True).stdout.split()
bad = checked = 0
for f in files:
    try:
        head = open(top + "/" + f, errors="replace").read(2000)
    except (FileNotFoundError, IsADirectoryError):
        continue
    m = re.search(r"SPDX-License-Identifier: *(.*?) *(\*/)?$", head, re.M)
    if not m:
        continue
    checked += 1
    want = spdx2dep5.get(m.group(1))
    have = None
    for s in stanzas:
        if any(fnmatch.fnmatchcase(f, p) for p in s["files"]):
            have = s["license"]
    if want is None or want != have:
        bad += 1
        print(f"{f}: SPDX {m.group(1)!r} but debian/copyright says {have!r}")
print(f"{checked} files with an SPDX line, {bad} wrong")
sys.exit(1 if bad or not checked else 0)
EOF
	status=$?; sed "s/^/# /" "$work/copyright.out"; [ $status = 0 ]'

rm -rf "$work"
tap_end
