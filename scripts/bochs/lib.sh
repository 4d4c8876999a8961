# SPDX-License-Identifier: GPL-2.0
#
# Bochs for the suite of scripts/bochs/check.sh, sourced after
# scripts/vm/lib.sh: Debian 12's bochs 2.7 and the tools to boot a kernel in
# it (isolinux, xorriso), downloaded through the private apt of
# scripts/vm/apt.sh and unpacked into $GUAC_VM_CACHE/bochs/root, never
# installed; an ISO per run; the bochsrc; and the run itself, under a time
# limit, with the console on com1 and the TAP on com2, both to files.
#
#   guac_bochs_fetch                    download and unpack once; check ldd
#   guac_bochs_iso DIR KERNEL INITRD APPEND    DIR/boot.iso (isolinux)
#   guac_bochs_config DIR               DIR/bochsrc (Skylake-X, 1 CPU)
#   guac_bochs_run DIR LIMIT            boot DIR/boot.iso; DIR/problem on trouble
#
# Why Bochs: QEMU's TCG has neither AVX-512 nor RDSEED, and /dev/kvm is not
# to be used; Bochs emulates both (cpu: model=corei7_skylake_x).

GUAC_BOCHS_DIR=$GUAC_VM_CACHE/bochs
GUAC_BOCHS_ROOT=$GUAC_BOCHS_DIR/root
GUAC_BOCHS_LIB=$GUAC_BOCHS_ROOT/usr/lib/x86_64-linux-gnu

# bochs-bin (Debian builds it with the debugger and the gtk debugger GUI, so
# it links gtk-3) with its BIOS images; isolinux and ldlinux.c32 for a
# bootable ISO; xorriso to make it. Then the shared libraries those binaries
# link that Debian 12 as scripts/install-deps.sh leaves it lacks (ldd): they
# are found through LD_LIBRARY_PATH. guac_bochs_fetch fails naming any
# library still missing on another machine.
GUAC_BOCHS_PACKAGES="bochs bochsbios vgabios isolinux syslinux-common xorriso
	libltdl7 libsamplerate0 libgtk-3-0 libwayland-cursor0 libwayland-egl1
	libisoburn1 libisofs6 libburn4 libjte2"

# The environment the unpacked binaries run in.
guac_bochs_env() {
	env LD_LIBRARY_PATH="$GUAC_BOCHS_LIB" \
		LTDL_LIBRARY_PATH="$GUAC_BOCHS_LIB/bochs/plugins" \
		BXSHARE="$GUAC_BOCHS_ROOT/usr/share/bochs" "$@"
}

# Download and unpack, once (the stamp names the package list); a second
# caller waits for the first. Network only when something is missing.
guac_bochs_fetch() {
	local want missing bin
	want=$(echo $GUAC_BOCHS_PACKAGES)
	mkdir -p "$GUAC_BOCHS_DIR"
	(
		flock 8
		[ "$(cat "$GUAC_BOCHS_DIR/.fetched" 2>/dev/null)" = "$want" ] && exit 0
		guac_log "fetching bochs, isolinux and xorriso from Debian 12 (not installed: unpacked into $GUAC_BOCHS_ROOT)"
		rm -rf "$GUAC_BOCHS_DIR/debs" "$GUAC_BOCHS_ROOT"
		guac_apt_fresh bookworm
		# shellcheck disable=SC2086
		guac_apt_download bookworm "$GUAC_BOCHS_DIR/debs" $want
		for deb in "$GUAC_BOCHS_DIR"/debs/*.deb; do
			dpkg-deb -x "$deb" "$GUAC_BOCHS_ROOT" ||
				guac_die "cannot unpack $deb"
		done
		echo "$want" >"$GUAC_BOCHS_DIR/.fetched"
	) 8>"$GUAC_BOCHS_DIR.lock" || exit 1
	for bin in bochs-bin xorriso; do
		[ -x "$GUAC_BOCHS_ROOT/usr/bin/$bin" ] ||
			guac_die "no $GUAC_BOCHS_ROOT/usr/bin/$bin after unpacking (remove $GUAC_BOCHS_DIR and retry)"
		missing=$(guac_bochs_env ldd "$GUAC_BOCHS_ROOT/usr/bin/$bin" | sed -n 's/^\s*\(\S*\) => not found$/\1/p' | tr '\n' ' ')
		[ -z "$missing" ] ||
			guac_die "$bin needs ${missing}which neither this machine nor the packages of GUAC_BOCHS_PACKAGES (scripts/bochs/lib.sh) have: add their Debian packages there"
	done
	for f in usr/share/bochs/BIOS-bochs-latest usr/share/vgabios/vgabios.bin \
		usr/lib/ISOLINUX/isolinux.bin usr/lib/syslinux/modules/bios/ldlinux.c32 \
		usr/lib/x86_64-linux-gnu/bochs/plugins/libbx_rfb_gui.so; do
		[ -f "$GUAC_BOCHS_ROOT/$f" ] || guac_die "no $f in the unpacked packages"
	done
}

# guac_bochs_iso DIR KERNEL INITRD APPEND: DIR/boot.iso, isolinux booting
# KERNEL with INITRD and the command line APPEND, on the first serial port
# too (nothing is ever typed: no prompt, no timeout).
guac_bochs_iso() {
	local dir=$1 kernel=$2 initrd=$3 append=$4 stage=$1/iso
	rm -rf "$stage" "$dir/boot.iso"
	mkdir -p "$stage/isolinux"
	cp "$GUAC_BOCHS_ROOT/usr/lib/ISOLINUX/isolinux.bin" \
		"$GUAC_BOCHS_ROOT/usr/lib/syslinux/modules/bios/ldlinux.c32" "$stage/isolinux/"
	cp "$kernel" "$stage/vmlinuz"
	# Unpacked: under emulation the kernel's gunzip costs more than
	# isolinux reading the bigger file (about 10% of the boot).
	case "$initrd" in
	*.gz) gzip -dc "$initrd" >"$stage/initrd" ;;
	*) cp "$initrd" "$stage/initrd" ;;
	esac
	cat >"$stage/isolinux/isolinux.cfg" <<-EOF
		SERIAL 0 115200
		DEFAULT guac
		PROMPT 0
		TIMEOUT 0
		LABEL guac
		  KERNEL /vmlinuz
		  INITRD /initrd
		  APPEND $append
	EOF
	guac_bochs_env "$GUAC_BOCHS_ROOT/usr/bin/xorriso" -as mkisofs -quiet -o "$dir/boot.iso" \
		-b isolinux/isolinux.bin -c isolinux/boot.cat \
		-no-emul-boot -boot-load-size 4 -boot-info-table "$stage" >"$dir/xorriso.log" 2>&1 || {
		cat "$dir/xorriso.log" >&2
		guac_die "xorriso failed to make $dir/boot.iso"
	}
	rm -rf "$stage"
}

# guac_bochs_config DIR: DIR/bochsrc. The CPU model is the point: Skylake-X
# has AVX-512 (F, CD, BW, DQ, VL) and RDSEED. One CPU (Bochs runs every CPU
# on one host thread). The clock follows the instruction count, not the
# host's clock (sync=none), so a loaded host slows the guest down without
# making it see stalls. Debian's bochs has no "nogui" display: the VNC
# server (rfb) without waiting for a client, in a network namespace of its
# own (guac_bochs_run), so it binds no port of the host.
guac_bochs_config() {
	local dir=$1
	cat >"$dir/bochsrc" <<-EOF
		megs: ${BOCHS_MEGS:-512}
		cpu: model=corei7_skylake_x, count=1, ips=50000000, reset_on_triple_fault=0
		clock: sync=none, time0=local
		romimage: file=$GUAC_BOCHS_ROOT/usr/share/bochs/BIOS-bochs-latest
		vgaromimage: file=$GUAC_BOCHS_ROOT/usr/share/vgabios/vgabios.bin
		ata0-master: type=cdrom, path=$dir/boot.iso, status=inserted
		boot: cdrom
		com1: enabled=1, mode=file, dev=$dir/console.log
		com2: enabled=1, mode=file, dev=$dir/tap.raw
		display_library: rfb, options="timeout=0"
		log: $dir/bochs.log
		panic: action=fatal
		error: action=report
		info: action=report
		debug: action=ignore
	EOF
}

# guac_bochs_run DIR LIMIT: boot DIR/boot.iso with DIR/bochsrc and wait for
# the guest to power off (ACPI soft-off ends Bochs), at most LIMIT seconds.
# bochs-bin starts in its debugger: "c" on stdin continues. A kernel panic
# (the command line has panic=0: halt, no reboot into a second run) or the
# time limit kill Bochs; either, or Bochs ending any other way, is written
# to DIR/problem. Prints "BOOT TOTAL": the wall seconds until the guest's
# first TAP line (BIOS, isolinux, kernel boot; "?" if none) and in all.
guac_bochs_run() {
	local dir=$1 limit=$2 pid start now boot=? status=0 why=
	rm -f "$dir/console.log" "$dir/tap.raw" "$dir/bochs.log" "$dir/bochs.out" "$dir/problem"
	: >"$dir/console.log"
	echo c >"$dir/debugger.in"
	start=$(date +%s)
	unshare --net env LD_LIBRARY_PATH="$GUAC_BOCHS_LIB" \
		LTDL_LIBRARY_PATH="$GUAC_BOCHS_LIB/bochs/plugins" \
		BXSHARE="$GUAC_BOCHS_ROOT/usr/share/bochs" \
		nice -n "${BOCHS_NICE:-0}" "$GUAC_BOCHS_ROOT/usr/bin/bochs-bin" -q -f "$dir/bochsrc" \
		<"$dir/debugger.in" >"$dir/bochs.out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 2
		now=$(date +%s)
		[ "$boot" != ? ] || [ ! -s "$dir/tap.raw" ] || boot=$((now - start))
		if grep -q 'Kernel panic' "$dir/console.log"; then
			why="kernel panic: $(grep -m 1 'Kernel panic' "$dir/console.log" | tr -d '\r')"
		elif [ $((now - start)) -ge "$limit" ]; then
			why="timed out after $limit s (BOCHS_TIMEOUT); Bochs killed"
		else
			continue
		fi
		kill -KILL "$pid" 2>/dev/null
		break
	done
	wait "$pid" || status=$?
	if [ -z "$why" ] && ! grep -q 'ACPI control: soft power off' "$dir/bochs.out"; then
		if grep -q 'Bochs is exiting' "$dir/bochs.out"; then
			why="Bochs stopped (status $status) before the guest powered off: $(grep -A 1 'Bochs is exiting' "$dir/bochs.out" | tail -n 1 | tr -d '\r')"
		else
			why="Bochs ended (status $status) without its exit message: $(grep -v '^ *$' "$dir/bochs.out" | tail -n 1 | tr -d '\r')"
		fi
		why="$why (see $dir/bochs.out and bochs.log)"
	fi
	[ -z "$why" ] || echo "$why" >"$dir/problem"
	echo "$boot $(($(date +%s) - start))"
}

# guac_bochs_tap DIR: DIR/tap.txt from the raw serial file, and
# "plan passed failed skipped" of its TAP.
guac_bochs_tap() {
	local tap=$1/tap.txt plan
	if [ -f "$1/tap.raw" ]; then tr -d '\r' <"$1/tap.raw" >"$tap"; else : >"$tap"; fi
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$tap" | tail -n 1)
	echo "${plan:-none} $(grep -c '^ok ' "$tap") $(grep -c '^not ok ' "$tap") $(grep -c '^ok .* # SKIP ' "$tap")"
}
