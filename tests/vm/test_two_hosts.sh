#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Issue 35, F7, with two running kernels: this host and Debian's 6.12 booted
# under TCG (tests/vm/twohosts/), the guest given this host's own host name.
# Each writes and checks its shard of one fill "of one file" at one path:
#   - local: a file on each machine's own file system (the host's, the
#     guest's tmpfs): guac manifest merge refuses, the report on this host
#     does not say OK for both parts, and no file holds the fill;
#   - clone: a file on copies of one ext4 image, each on /dev/loopN of the
#     same N (a machine cloned from one image): the two identities differ in
#     the running kernel alone; merge refuses, naming it;
#   - shared: one file both machines really hold, in a directory of this
#     host the guest mounts over 9p at the same path: what the tool does
#     there (each machine sees its own file system type: refused, with the
#     reason), and that the file does hold the whole fill (verified here);
#   - control: two shards of one local file written on this host alone merge
#     and report OK.
# The manifests come back through the 9p share. Needs root (loop devices,
# mount) and the 6.12 kernel (fetched and its module built here if make
# vm-check has not). TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/userspace/tap.sh"
. "$top/scripts/vm/lib.sh"
vm=$top/scripts/vm
# The guest's guac is the host's too: one static build on both machines.
guac=$GUAC_VM_BUILD/userspace/guac
export GUAC_VM_GUAC=$guac GUAC_VM_VMTEST=$GUAC_VM_BUILD/guac-vmtest
built=$GUAC_VM_BUILD
export GUAC_VM_BUILD=$top/build/vm-twohosts GUAC_CHECK_SUITE=test_two_hosts \
	GUAC_VM_SCENARIOS=$top/tests/vm/twohosts GUAC_VM_MODULES=$top/tests/vm/twohosts/modules

tap_begin
if [ "$(id -u)" -ne 0 ]; then
	not_ok "needs root (loop devices, mount): not run"
	tap_end
	exit
fi
# Paths the guest makes again in its own file systems: one name on both. A
# tmpfs here as there, so that no disk serial tells the two files apart.
base=/tmp/guac-twohosts.$$
share=$base/share
work=$GUAC_VM_BUILD/work.$$
loop=
tap_cleanup() {
	! mountpoint -q "$base/clone" || umount "$base/clone"
	[ -z "$loop" ] || losetup -d "$loop"
	! mountpoint -q "$base" || umount "$base"
	rm -rf "$base" "$work"
}
trap 'tap_cleanup' EXIT
trap 'exit 130' INT TERM
mkdir -p "$base" "$work" && mount -t tmpfs -o size=64m guac-twohosts "$base" &&
	mkdir -p "$base/local" "$base/clone" "$share" ||
	{ not_ok "mount a tmpfs at $base"; tap_end; exit; }
cd "$work" || exit 2

kver=$("$vm/fetch-kernel.sh" 6.12) || { not_ok "fetch Debian's 6.12"; tap_end; exit; }
mkdir -p "$GUAC_VM_BUILD/$kver"
[ -f "$built/$kver/guacrng.ko" ] && [ -f "$built/$kver/guacrng-test.ko" ] ||
	GUAC_VM_BUILD=$built "$vm/build-module.sh" "$kver" >/dev/null
cp "$built/$kver/guacrng.ko" "$built/$kver/guacrng-test.ko" "$GUAC_VM_BUILD/$kver/"

host=$(uname -n)
boot_id=$(cat /proc/sys/kernel/random/boot_id)
origin=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
length=$((1 << 20))

# The golden image: ext4 with the file in it, so that its copies hold it at one inode.
truncate -s 8M golden.img
mkfs.ext4 -q -F golden.img && debugfs -w -R "write /dev/null fill.img" golden.img >/dev/null 2>&1
cp golden.img "$share/golden.img"
loop=$(losetup -f --show golden.img) && mount -t ext4 "$loop" "$base/clone" ||
	{ not_ok "mount a copy of the ext4 image on a loop device"; tap_end; exit; }
cat >"$share/params" <<EOF
host='$host'
origin=$origin
length=$length
local_path='$base/local/fill.img'
clone_dir='$base/clone'
clone_loop=${loop#/dev/loop}
shared_path='$share/shared.img'
EOF

# part SHARD NAME TARGET: this host writes and checks SHARD/2 of TARGET (manifest NAME.json).
part() {
	"$guac" write --origin "$origin" --length "$length" --shard "$1/2" -m "$2.json" "$3" \
		>"$2.out" 2>&1 && "$guac" verify -m "$2.json" >>"$2.out" 2>&1
}
part 0 local "$base/local/fill.img"
part 0 clone "$base/clone/fill.img"
"$guac" write --origin "$origin" --length "$length" --shard 0/2 -m shared.json \
	"$share/shared.img" >shared.out 2>&1
# Both shards written, then both checked (a write changes the file under an earlier check).
for k in 0 1; do
	"$guac" write --origin "$origin" --length "$length" --shard $k/2 -m control$k.json \
		"$base/local/control.img" >control$k.out 2>&1
done
for k in 0 1; do
	"$guac" verify -m control$k.json >>control$k.out 2>&1
done

# The guest: its shards, checked; its manifests in $share/guest.
"$vm/make-initramfs.sh" "$kver" >/dev/null
rc=0
GUAC_VM_APPEND="guacvm.bench=0 guacvm.share=$share" \
	GUAC_VM_QEMU_ARGS="-virtfs local,path=$share,mount_tag=guacshare,security_model=none" \
	"$vm/run-kernel.sh" "$kver" >line 2>err || rc=$?
sed 's/^/# /' line
g=$share/guest
check "the guest (Debian's $kver) wrote and checked its three shards: PASS" \
	'[ "$rc" = 0 ] && grep -q "^vm-check $kver: PASS" line && [ -f $g/local.json ] &&
	[ -f $g/clone.json ] && [ -f $g/shared.json ]'
sed -n 's/^# boot id/# guest: boot id/p; s/^# identity:/# guest identity:/p' \
	"$GUAC_VM_BUILD/$kver/tap.txt"
echo "# host: boot id $boot_id, kernel $(uname -r), host name $host"

# ident MANIFEST: its target identity.
ident() {
	sed -n 's/.*"identity": "\([^"]*\)".*/\1/p' "$1" 2>/dev/null
}
check "the guest's manifests name this host ($host), another running kernel" \
	'(for m in local clone shared; do ident $g/$m.json | grep -q " host=$host " &&
		! ident $g/$m.json | grep -q "kernel=$boot_id" || exit 1; done)'

# merge NAME PART...: guac manifest merge into NAME-merged.json; its output in NAME.merge, $rc.
merge() {
	local name=$1
	shift
	rc=0
	"$guac" manifest merge "$name-merged.json" "$@" >"$name.merge" 2>&1 || rc=$?
	sed 's/^/#   /' "$name.merge"
}
# report NAME MANIFEST...: guac report; its output in NAME.report, its status in $rc.
report() {
	local name=$1
	shift
	rc=0
	"$guac" report "$@" >"$name.report" 2>&1 || rc=$?
	sed 's/^/#   /' "$name.report"
}
# report_elsewhere NAME MANIFEST...: the same on a host of another name (its own UTS
# namespace), which re-reads neither target and judges by the records alone.
report_elsewhere() {
	local name=$1
	shift
	rc=0
	unshare --uts sh -c 'hostname guac-reporter && "$0" report "$@"' "$guac" "$@" \
		>"$name.report" 2>&1 || rc=$?
	sed 's/^/#   /' "$name.report"
}

# whole NAME FILE [ARGS]: verify all of the fill in FILE; its output in NAME.whole, $rc.
whole() {
	local name=$1 file=$2
	shift 2
	rc=0
	"$guac" verify --origin "$origin" --length "$length" "$@" "$file" >"$name.whole" 2>&1 ||
		rc=$?
	sed -n 's/^/#   /; 1,3p' "$name.whole"
}

# two_files NAME WHY LABEL: the parts NAME.json (here) and the guest's are two
# files: merge refused with WHY, the report here and elsewhere not OK, and
# this host's file holds half the fill.
two_files() {
	local name=$1 why=$2
	merge "$name" "$name.json" "$g/$name.json"
	check "$3: merge refused, the target identity differs (exit $rc)" \
		'[ "$rc" = 1 ] && grep -q "target identity (its $why differs" $name.merge &&
		[ ! -e $name-merged.json ]'
	report "$name" "$name.json" "$g/$name.json"
	check "... the report does not say OK for both parts (exit $rc)" \
		'[ "$rc" != 0 ] && ! grep -q "2 disks: 2 OK" $name.report'
	report_elsewhere "$name-elsewhere" "$name.json" "$g/$name.json"
	check "... on another host: two fills, each missing the other's shard (exit $rc)" \
		'[ "$rc" != 0 ] &&
		[ "$(grep -c ": MISSING: shard [01]/2 of this fill" $name-elsewhere.report)" = 2 ]'
	whole "$name" "$base/$name/fill.img"
	check "... and this host's file does not hold the fill (verify of all of it: exit $rc)" \
		'[ "$rc" = 1 ]'
}

# A local file on each machine.
two_files local "[a-z]*" "local file on two machines"

# Copies of one ext4 image: everything but the running kernel alike.
check "cloned image: the identities differ in the running kernel alone" \
	'[ "$(ident clone.json | sed "s/ kernel=[^ ]*//")" = \
		"$(ident $g/clone.json | sed "s/ kernel=[^ ]*//")" ] &&
	[ "$(ident clone.json)" != "$(ident $g/clone.json)" ]'
two_files clone "running kernel" "cloned image"

# The control: both shards written on this host alone.
merge control control0.json control1.json
check "control: two shards of one local file written here merge, complete (exit $rc)" \
	'[ "$rc" = 0 ] && grep -q ", complete$" control.merge'
report control control0.json control1.json
check "... and report OK (exit $rc)" '[ "$rc" = 0 ] && grep -q "2 disks: 2 OK" control.report'
report_elsewhere control-elsewhere control0.json control1.json
check "... on another host too (exit $rc)" '[ "$rc" = 0 ] && grep -q "2 disks: 2 OK" control-elsewhere.report'

# One file both machines hold, over 9p: the guest sees 9p, this host its own file system.
rc=0
"$guac" verify -m shared.json >>shared.out 2>&1 || rc=$?
check "shared file: this host's shard checked after the guest wrote its own (exit $rc)" \
	'[ "$rc" = 0 ]'
merge shared shared.json "$g/shared.json"
check "... merge refused, naming what differs in the two machines' views of it (exit $rc)" \
	'[ "$rc" = 1 ] && grep -q "target identity (its [a-z]* differs" shared.merge'
report shared shared.json "$g/shared.json"
check "... and the report over the two parts does not say OK for the fill (exit $rc)" \
	'[ "$rc" != 0 ] && grep -q ": MISSING: shard [01]/2 of this fill" shared.report'
whole shared "$share/shared.img"
check "... though the file does hold the fill: verify of all of it here OK (exit $rc)" \
	'[ "$rc" = 0 ] && grep -q "^OK: 1048576 bytes" shared.whole'
tap_end
