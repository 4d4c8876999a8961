# SPDX-License-Identifier: GPL-2.0
#
# The stages of the guest scenario (make check-guest, check-guest-upgrade),
# each a function run by guest-run.sh in the order the kernel command line
# gives. Between boots the guest powers off and the host boots it again (a
# cold reboot), with the kernel the scenario says. What a user does is done
# the way docs/install.md tells them: apt install ./*.deb, apt purge, the
# rngd drop-in linked by hand, the signing key in /etc/dkms/framework.conf.
#
#   install         apt install both .debs; DKMS builds and signs the module
#   loaded          after a reboot: loaded at boot, /dev/guac 0444, self-tests
#                   in the journal, bytes equal to guac gen, modprobe.d, rngd
#   kernel-upgrade  apt install Debian's 6.12 image and headers: DKMS builds
#                   for it on its own
#   purge           apt purge both: nothing left, for any kernel
#   purged          after a reboot: no module, no device, no failed unit
#   source          make dkms-install from the source tree, and dkms-uninstall
#   modprobe        (check-guest-arm64) modprobe guacrng, with the packages
#                   installed in this boot: /dev/guac equal to guac gen, the
#                   CPU's hwrng registered and read, modprobe -r

debs=$GUAC_PAYLOAD/build/deb
mok=/var/lib/guac-test-mok
mok_cn="guacrng guest test MOK"
apt_get="env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=3600"
# What a user types (docs/install.md), with -y and the wait for the dpkg lock.
apt="env DEBIAN_FRONTEND=noninteractive apt -y -o DPkg::Lock::Timeout=3600"
kver=$(uname -r)
# What dkms status names the architecture: x86_64, aarch64.
march=$(uname -m)
rng=/sys/class/misc/hw_random
hw=/sys/module/guacrng/hwrng
dropin=/etc/systemd/system/rngd.service.d/guacrng.conf
version=$(dpkg-deb -f "$debs"/guacrng-dkms_*.deb Version 2>/dev/null)

# The guacrng module files DKMS installed, one path a line.
installed_kos() {
	find /lib/modules -name 'guacrng.ko*' 2>/dev/null | sort
}

# The serial number of the signing certificate, and a module's sig_key, both
# as upper-case hex without colons or leading zeros.
cert_serial() {
	openssl x509 -inform DER -in "$mok/mok.der" -noout -serial | sed 's/^serial=//; s/^0*//' |
		tr a-f A-F
}
module_sig_key() {
	modinfo -F sig_key "$1" | tr -d ':\n ' | sed 's/^0*//' | tr a-f A-F
}

# check_signed KO: signed with the key /etc/dkms/framework.conf names.
check_signed() {
	local ko=$1
	check_sh "${ko#/lib/modules/} is signed by '$mok_cn' (framework.conf's key)" "
		modinfo -F signer '$ko'; modinfo -F sig_hashalgo '$ko'
		[ \"\$(modinfo -F signer '$ko')\" = '$mok_cn' ]"
	check_sh "its sig_key is that certificate's serial number" "
		echo \"sig_key $(module_sig_key "$ko"), certificate serial $(cert_serial)\"
		[ -n '$(cert_serial)' ] && [ '$(module_sig_key "$ko")' = '$(cert_serial)' ]"
}

check_modules_load() {
	check_sh "systemd-modules-load.service succeeded" "
		systemctl show -p ActiveState -p Result -p ExecMainStatus systemd-modules-load.service
		[ \"\$(systemctl show -p ActiveState --value systemd-modules-load.service)\" = active ] &&
		[ \"\$(systemctl show -p Result --value systemd-modules-load.service)\" = success ] &&
		[ \"\$(systemctl show -p ExecMainStatus --value systemd-modules-load.service)\" = 0 ]"
}

# The device node the module made.
check_dev_node() {
	check_sh "/dev/guac is a character device, mode 0444, root:root" "
		stat -c '%F %a %U:%G' /dev/guac; [ \"\$(stat -c '%F %a %U:%G' /dev/guac)\" = 'character special file 444 root:root' ]"
}

# The kernel log has nothing to say about guacrng (the two notices of an
# out-of-tree module excepted), and which implementation serves reads.
check_dev_quiet() {
	check_sh "no guacrng kernel message at warning level or above, besides the taint notices" "
		journalctl -b -k --no-pager -o cat -p warning | grep guacrng
		! journalctl -b -k --no-pager -o cat -p warning | grep guacrng |
			grep -v -e 'loading out-of-tree module taints kernel' -e 'module verification failed: signature and/or required key missing'"
	echo "# implementation: $(cat /sys/class/misc/guac/implementation) ($(cat /sys/class/misc/guac/implementation_reason 2>/dev/null))"
}

# /dev/guac equals guac gen, in the first megabytes and near the end.
check_dev_stream() {
	check_same "dd if=/dev/guac bs=1M skip=3 count=4 = guac gen --offset 3M --length 4M" 4194304 \
		"dd if=/dev/guac bs=1M skip=3 count=4 status=none" "guac gen --offset 3M --length 4M"
	check_same "dd at byte 9223372036000000000 = guac gen there" 16384 \
		"dd if=/dev/guac iflag=skip_bytes skip=9223372036000000000 bs=4096 count=4 status=none" \
		"guac gen --offset 9223372036000000000 --length 16K"
}

stage_install() {
	local ko
	check_system_clean "the fresh system booted with no failed unit"
	check "no guacrng anywhere before the install" bash -c \
		'! test -e /sys/module/guacrng && ! test -e /dev/guac && [ -z "$(find /lib/modules -name "guacrng.ko*")" ]'
	check "the payload has both packages, version ${version:-?}" \
		bash -c "ls -l $debs/guacrng-dkms_*.deb $debs/guacrng-tools_*.deb && [ -n '$version' ]"

	# Secure Boot: a MOK key pair of the user's, named in framework.conf
	# before the package is installed (docs/install.md).
	mkdir -p "$mok"
	check "a signing key made with openssl (docs/install.md)" \
		openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=$mok_cn/" \
		-keyout "$mok/mok.key" -outform DER -out "$mok/mok.der"
	check_sh "/etc/dkms/framework.conf names it" "
		printf 'mok_signing_key=$mok/mok.key\nmok_certificate=$mok/mok.der\n' >>/etc/dkms/framework.conf
		grep '^mok_' /etc/dkms/framework.conf"

	check "apt install ./build/deb/*.deb (guacrng-dkms and guacrng-tools $version)" \
		run_logged apt-install bash -c "cd $GUAC_PAYLOAD && $apt install ./build/deb/*.deb"
	check_sh "dkms status: guacrng/$version installed for $kver" "
		out=\$(dkms status guacrng); echo \"\$out\"; echo \"\$out\" | grep -qx 'guacrng/$version, $kver, $march: installed'"
	ko=$(installed_kos | head -n 1)
	check_sh "DKMS installed the module in /lib/modules/$kver/updates/dkms/" "
		echo '$ko'; [ -n '$ko' ] && case '$ko' in /lib/modules/$kver/updates/dkms/guacrng.ko*) ;; *) exit 1 ;; esac"
	check_sh "modinfo: vermagic $kver, GPL" "
		modinfo -F vermagic '$ko'; modinfo -F license '$ko'
		[ \"\$(modinfo -F vermagic '$ko' | cut -d' ' -f1)\" = '$kver' ] && [ \"\$(modinfo -F license '$ko')\" = GPL ]"
	check_sh "the production module: parameters impl, hwrng, quality and no test ones" "
		modinfo -p '$ko'; [ \"\$(modinfo -p '$ko' | cut -d: -f1 | sort | tr '\n' ' ')\" = 'hwrng impl quality ' ]"
	check_signed "$ko"
	check_sh "the sources in /usr/src/guacrng-$version: Kbuild, drivers, include; no test code" "
		cd /usr/src/guacrng-$version && ls -R | head -n 12
		[ -f Kbuild ] && [ -f dkms.conf ] && [ -f drivers/guacrng/main.c ] && [ -f include/guacrng/core.h ] &&
		[ ! -e drivers/guacrng/testing.c ] && [ ! -e tests ]"
	check_sh "/etc/modprobe.d/guacrng.conf is a conffile of guacrng-dkms, every option commented out" "
		dpkg-query -W -f='\${Conffiles}\n' guacrng-dkms
		dpkg-query -W -f='\${Conffiles}\n' guacrng-dkms | grep -q '^ /etc/modprobe.d/guacrng.conf ' &&
		grep '^#options guacrng' /etc/modprobe.d/guacrng.conf && ! grep -v '^#' /etc/modprobe.d/guacrng.conf | grep -q options"
	check_sh "/usr/lib/modules-load.d/guacrng.conf loads guacrng at boot" "
		grep -v '^#' /usr/lib/modules-load.d/guacrng.conf; [ \"\$(grep -v '^#' /usr/lib/modules-load.d/guacrng.conf)\" = guacrng ]"
	check_sh "a udev rule gives /dev/guac mode 0444" "
		grep -h guac /lib/udev/rules.d/60-guacrng.rules
		grep -q 'KERNEL==\"guac\".*MODE=\"0444\"' /lib/udev/rules.d/60-guacrng.rules"
	check_sh "guac, its manual page, the scripts and the rngd drop-in are installed" "
		command -v guac && ls /usr/share/man/man1/guac.1.gz /usr/share/guacrng/rngtest.sh \
			/usr/share/guacrng/dieharder.sh /usr/share/guacrng/rngd-guacrng.conf"
	check_sh "guac gen works before the module is loaded" "
		guac gen --length 64 | od -An -tx1 | head -n 1
		[ \"\$(guac gen --length 64 | od -An -v -tx1 | tr -d ' \n')\" = 0ced594fb6194be61c8d8ff1d596352508040784ad6acb38cdd1f62912dab7b478b071bdbeab020c7af8ad2c7f66b2be35db3a025295bff3eca838f030f04457 ]"
}

# After a reboot with the packages installed.
stage_loaded() {
	local pid name before t0
	check_system_clean "booted with no failed unit (systemctl --failed is empty)"
	check_modules_load
	# Its first messages come before journald knows its unit: by identifier.
	check_sh "it loaded guacrng, with no warning or error in its log" "
		journalctl -b --no-pager -o cat -t systemd-modules-load
		journalctl -b --no-pager -o cat -t systemd-modules-load | grep -qx \"Inserted module 'guacrng'\" &&
		[ -z \"\$(journalctl -b --no-pager -q -o cat -p warning -t systemd-modules-load)\" ]"
	check_sh "guacrng is loaded, the one DKMS built for $kver" "
		grep '^guacrng ' /proc/modules && modinfo -n guacrng && modinfo -n guacrng | grep -q '^/lib/modules/$kver/updates/dkms/'"
	check_dev_node
	check_sh "the journal has 'guacrng: core self-tests: pass'" \
		"journalctl -b -k --no-pager -o cat | grep -F 'guacrng: core self-tests: pass'"
	check_sh "... 'guacrng: hwrng self-tests: pass' and '/dev/guac ready'" "
		journalctl -b -k --no-pager -o cat | grep -F -e 'guacrng: hwrng self-tests: pass' -e 'guacrng: /dev/guac ready'
		journalctl -b -k --no-pager -o cat | grep -qF 'guacrng: hwrng self-tests: pass' &&
		journalctl -b -k --no-pager -o cat | grep -qF 'guacrng: /dev/guac ready'"
	# Loading a module the kernel's keys do not vouch for (an out-of-tree
	# one, signed by a MOK that is not enrolled) taints the kernel: those two
	# notices are expected, nothing else at warning level or above.
	check_dev_quiet
	check_dev_stream
	check_sh "guac verify --length 64M /dev/guac" "guac verify --length 64M /dev/guac"
	check_sh "guac verify fails on a copy with one byte changed (exit 1, MISMATCH)" "
		guac gen --length 1M >/tmp/copy.bin
		printf X | dd of=/tmp/copy.bin bs=1 seek=500000 conv=notrunc status=none
		guac verify /tmp/copy.bin; status=\$?; rm -f /tmp/copy.bin; [ \$status = 1 ]"
	check_sh "/usr/share/guacrng/rngtest.sh /dev/guac -c 200 (the installed script)" \
		"/usr/share/guacrng/rngtest.sh /dev/guac -c 200"
	check_sh "... and on the stream of guac gen (\$GUAC defaults to /usr/bin/guac)" \
		"/usr/share/guacrng/rngtest.sh guac -c 200"

	# The options of /etc/modprobe.d/guacrng.conf reach the module.
	cp /etc/modprobe.d/guacrng.conf /tmp/guacrng.conf.orig
	check_sh "options guacrng impl=generic in /etc/modprobe.d/guacrng.conf: modprobe -r and modprobe take it" "
		sed -i 's/^#options guacrng impl=auto\$/options guacrng impl=generic/' /etc/modprobe.d/guacrng.conf
		grep '^options' /etc/modprobe.d/guacrng.conf
		modprobe -r guacrng && modprobe guacrng && cat /sys/class/misc/guac/implementation /sys/module/guacrng/parameters/impl &&
		[ \"\$(cat /sys/class/misc/guac/implementation)\" = generic ]"
	cp /tmp/guacrng.conf.orig /etc/modprobe.d/guacrng.conf
	check_sh "the file as shipped again: the default implementation is back" "
		modprobe -r guacrng && modprobe guacrng && cat /sys/class/misc/guac/implementation &&
		[ \"\$(cat /sys/module/guacrng/parameters/impl)\" = auto ] && [ \"\$(cat /sys/class/misc/guac/implementation)\" != generic ] &&
		dpkg --verify guacrng-dkms"

	# rngd (rng-tools5) from guacrng's hwrng, enabled and disabled as
	# docs/install.md says. The guest also has virtio-rng, the best hwrng,
	# so rng_current has to be chosen.
	name=$(tr ' ' '\n' <$rng/rng_available | grep '^guacrng-' | head -n 1)
	echo "# rng_available: $(cat $rng/rng_available); rng_current: $(cat $rng/rng_current); rngd is $(systemctl is-enabled rngd 2>&1), $(systemctl is-active rngd 2>&1)"
	check_sh "guacrng registered its hwrng, and another one is current before the drop-in" "
		echo '$name'; cat $rng/rng_current; [ -n '$name' ] && [ \"\$(cat $rng/rng_current)\" != '$name' ]"
	before=$(cat $hw/bytes)
	t0=$(date +%s)
	check_sh "enable the drop-in: ln -s, daemon-reload, enable, restart rngd" "
		mkdir -p ${dropin%/*} && ln -s /usr/share/guacrng/rngd-guacrng.conf $dropin &&
		systemctl daemon-reload && systemctl enable rngd && systemctl restart rngd"
	sleep 5
	pid=$(systemctl show -p MainPID --value rngd)
	check_sh "rngd.service is active, with the drop-in" "
		systemctl status --no-pager rngd | head -n 12
		systemctl is-active rngd && systemctl show -p DropInPaths --value rngd | grep -qw '$dropin'"
	check_sh "rng_current is $name" "cat $rng/rng_current; [ \"\$(cat $rng/rng_current)\" = '$name' ]"
	check_sh "rngd runs as 'rngd -f -r /dev/hwrng -d 1 -n 1' and has /dev/hwrng open" "
		tr '\0' ' ' </proc/$pid/cmdline; echo
		[ \"\$(tr '\0' ' ' </proc/$pid/cmdline)\" = '/usr/sbin/rngd -f -r /dev/hwrng -d 1 -n 1 ' ] &&
		ls -l /proc/$pid/fd | grep /dev/hwrng"
	check_sh "rngd read a FIPS block from $name (its bytes counter rose by 2500 or more)" "
		delivered=\$((\$(cat $hw/bytes) - $before)); echo \"\$delivered bytes\"; [ \$delivered -ge 2437 ]"
	check_sh "rngd logged no error" "
		journalctl --since @$t0 --no-pager -o cat -u rngd | tail -n 5
		[ -z \"\$(journalctl --since @$t0 --no-pager -q -o cat -p err -u rngd)\" ]"
	check_sh "disable it: stop rngd, remove the link, daemon-reload, start rngd" "
		systemctl stop rngd && rm $dropin && systemctl daemon-reload && systemctl start rngd"
	sleep 3
	pid=$(systemctl show -p MainPID --value rngd)
	check_sh "rngd is back to its own defaults: no drop-in, 'rngd -f'" "
		systemctl show -p DropInPaths rngd; tr '\0' ' ' </proc/$pid/cmdline; echo
		systemctl is-active rngd && [ -z \"\$(systemctl show -p DropInPaths --value rngd)\" ] &&
		[ \"\$(tr '\0' ' ' </proc/$pid/cmdline)\" = '/usr/sbin/rngd -f ' ]"
	check_sh "the kernel chose the best hwrng again: rng_current is not $name" "
		cat $rng/rng_current; [ \"\$(cat $rng/rng_current)\" != '$name' ]"
	check_system_clean "no failed unit after the rngd round trip"
}

# Debian's 6.12 kernel, installed like any kernel update.
stage_kernel_upgrade() {
	local kdebs new ko
	kdebs=$(ls "$GUAC_PAYLOAD"/kernel/*.deb 2>/dev/null)
	new=$(ls "$GUAC_PAYLOAD"/kernel/linux-image-*.deb 2>/dev/null | head -n 1)
	new=$(dpkg-deb -f "$new" Package 2>/dev/null)
	new=${new#linux-image-}
	check "the payload has a kernel other than $kver (${new:-none})" \
		bash -c "[ -n '$new' ] && [ '$new' != '$kver' ] && ls -l $GUAC_PAYLOAD/kernel"
	# For speed under TCG only: the new kernel's initramfs with the modules
	# this machine needs (MODULES=dep) rather than Debian's default (most).
	echo MODULES=dep >/etc/initramfs-tools/conf.d/guac-test-modules
	# shellcheck disable=SC2086
	check "apt-get install the linux-image and linux-headers .debs of $new" \
		run_logged kernel-install $apt_get install $kdebs
	check_sh "DKMS built and installed guacrng for $new on its own" "
		out=\$(dkms status guacrng); echo \"\$out\"; echo \"\$out\" | grep -qx 'guacrng/$version, $new, $march: installed'"
	ko=$(find /lib/modules/$new -name 'guacrng.ko*' | head -n 1)
	check_sh "the module is in /lib/modules/$new/updates/dkms/, for $new" "
		echo '$ko'; [ -n '$ko' ] && [ \"\$(modinfo -F vermagic '$ko' | cut -d' ' -f1)\" = '$new' ]"
	check_signed "$ko"
	check_sh "an initramfs for $new" "ls -l /boot/initrd.img-$new"
	check_sh "dkms status still lists $kver too" "dkms status guacrng | grep -x 'guacrng/$version, $kver, $march: installed'"
}

stage_purge() {
	local files
	dpkg -L guacrng-dkms guacrng-tools >/tmp/guacrng.files 2>&1
	files=$(while read -r f; do [ -d "$f" ] || echo "$f"; done </tmp/guacrng.files)
	echo "# the packages own $(echo "$files" | wc -l) files; kernels with a guacrng module: $(installed_kos | cut -d/ -f4 | tr '\n' ' ')"
	check "apt purge guacrng-dkms guacrng-tools" \
		run_logged apt-purge $apt purge guacrng-dkms guacrng-tools
	check_sh "dkms status runs and lists no guacrng" "
		dkms status; out=\$(dkms status) && ! echo \"\$out\" | grep -q guacrng"
	check_sh "no guacrng.ko under /lib/modules, for any of the installed kernels" "
		ls -d /lib/modules/*/kernel; installed_kos() { find /lib/modules -name 'guacrng.ko*'; }
		[ -n \"\$(ls -d /lib/modules/*/kernel)\" ] && [ -z \"\$(installed_kos)\" ] &&
		! grep -l guacrng /lib/modules/*/modules.dep"
	check "no /usr/src/guacrng-$version, no /var/lib/dkms/guacrng" \
		bash -c "! ls -d /usr/src/guacrng-* /var/lib/dkms/guacrng 2>/dev/null"
	check_sh "dpkg knows neither package any more (dpkg -L fails, no config-files state)" "
		! dpkg -L guacrng-dkms && ! dpkg -L guacrng-tools && ! dpkg -l 'guacrng*' 2>/dev/null | grep '^[a-z][a-z] '"
	check_sh "none of the $(echo "$files" | wc -l) files the packages had is left, the conffile included" "
		left=0; while read -r f; do [ -z \"\$f\" ] || ! [ -e \"\$f\" ] || { echo \"left: \$f\"; left=1; }; done <<'EOF'
$files
EOF
		[ \$left = 0 ] && grep -qx /etc/modprobe.d/guacrng.conf <<'EOF'
$files
EOF"
}

# After a reboot with the packages purged.
stage_purged() {
	check_system_clean "booted with no failed unit"
	check "no guacrng module and no /dev/guac" bash -c '! test -e /sys/module/guacrng && ! test -e /dev/guac'
	check_sh "the kernel log of this boot does not name guacrng" "! journalctl -b -k --no-pager -o cat | grep guacrng"
	check_modules_load
}

# The other way docs/install.md gives: DKMS from a copy of the source tree
# (make dkms-install), on the machine the packages were purged from.
stage_source() {
	local src=/root/guacrng ko
	rm -rf "$src"
	cp -r "$GUAC_PAYLOAD/src" "$src"
	check "make dkms-install, in a copy of the source tree" \
		run_logged dkms-install make -C "$src" dkms-install
	check_sh "dkms status: guacrng/$version installed for $kver" "
		out=\$(dkms status guacrng); echo \"\$out\"; echo \"\$out\" | grep -qx 'guacrng/$version, $kver, $march: installed'"
	check_sh "/usr/src/guacrng-$version has no test code" "
		ls /usr/src/guacrng-$version /usr/src/guacrng-$version/drivers/guacrng
		[ -f /usr/src/guacrng-$version/drivers/guacrng/main.c ] && [ ! -e /usr/src/guacrng-$version/drivers/guacrng/testing.c ] &&
		[ ! -e /usr/src/guacrng-$version/tests ]"
	ko=$(installed_kos | grep "/$kver/" | head -n 1)
	check_signed "$ko"
	check_sh "modprobe guacrng: /dev/guac, mode 0444, gives the published first block" "
		modprobe guacrng && stat -c '%a' /dev/guac && [ \"\$(stat -c %a /dev/guac)\" = 444 ] &&
		[ \"\$(head -c 64 /dev/guac | od -An -v -tx1 | tr -d ' \n')\" = 0ced594fb6194be61c8d8ff1d596352508040784ad6acb38cdd1f62912dab7b478b071bdbeab020c7af8ad2c7f66b2be35db3a025295bff3eca838f030f04457 ]"
	check_sh "modprobe -r guacrng; make dkms-uninstall" "
		modprobe -r guacrng && make -C $src dkms-uninstall >$GUAC_OUT/dkms-uninstall.log 2>&1; status=\$?
		tail -n 5 $GUAC_OUT/dkms-uninstall.log; exit \$status"
	check_sh "nothing left: dkms status, /lib/modules, /usr/src, /var/lib/dkms" "
		out=\$(dkms status) && ! echo \"\$out\" | grep guacrng && [ -z \"\$(find /lib/modules -name 'guacrng.ko*')\" ] &&
		! ls -d /usr/src/guacrng-* /var/lib/dkms/guacrng 2>/dev/null"
}

# check-guest-arm64: the module the install stage had DKMS build, loaded by
# hand in the same boot (make check-guest tests the load at boot on amd64).
stage_modprobe() {
	local name before
	check_sh "modprobe guacrng: the one DKMS built for $kver" "
		modprobe guacrng && grep '^guacrng ' /proc/modules && modinfo -n guacrng &&
		modinfo -n guacrng | grep -q '^/lib/modules/$kver/updates/dkms/'"
	udevadm settle
	check_dev_node
	check_sh "the journal has 'guacrng: core self-tests: pass' and '/dev/guac ready'" "
		journalctl -b -k --no-pager -o cat | grep guacrng
		journalctl -b -k --no-pager -o cat | grep -qF 'guacrng: core self-tests: pass' &&
		journalctl -b -k --no-pager -o cat | grep -qF 'guacrng: /dev/guac ready'"
	check_dev_quiet
	check_dev_stream
	check_sh "the first block is the published one (include/guacrng/vectors.h)" "
		[ \"\$(head -c 64 /dev/guac | od -An -v -tx1 | tr -d ' \n')\" = 0ced594fb6194be61c8d8ff1d596352508040784ad6acb38cdd1f62912dab7b478b071bdbeab020c7af8ad2c7f66b2be35db3a025295bff3eca838f030f04457 ]"
	check_sh "guac verify --length 16M /dev/guac" "guac verify --length 16M /dev/guac"

	# The CPU's hwrng (arm64: RNDR; QEMU's -cpu max has it), besides virtio-rng.
	name=$(tr ' ' '\n' <$rng/rng_available | grep '^guacrng-' | head -n 1)
	echo "# rng_available: $(cat $rng/rng_available); rng_current: $(cat $rng/rng_current)"
	check_sh "guacrng registered its hwrng (rng_available)" "cat $rng/rng_available; [ -n '$name' ]"
	before=$(cat $hw/bytes 2>/dev/null || echo 0)
	check_sh "/dev/hwrng reads 4096 bytes from $name when it is rng_current" "
		echo '$name' >$rng/rng_current && cat $rng/rng_current && [ \"\$(cat $rng/rng_current)\" = '$name' ] &&
		[ \"\$(dd if=/dev/hwrng bs=4096 count=1 iflag=fullblock status=none | wc -c)\" = 4096 ]"
	check_sh "its counters: bytes rose by 4096 or more, no failure" "
		grep . $hw/* 2>/dev/null | head -n 12
		[ \$((\$(cat $hw/bytes) - $before)) -ge 4096 ] && [ \"\$(cat $hw/failures)\" = 0 ] &&
		[ \"\$(cat $hw/health_failures)\" = 0 ]"
	check_sh "modprobe -r guacrng: no module, no /dev/guac, $name gone from rng_available" "
		modprobe -r guacrng && ! test -e /sys/module/guacrng && udevadm settle && ! test -e /dev/guac &&
		! grep -qw '$name' $rng/rng_available"
	check_system_clean "no failed unit"
}
