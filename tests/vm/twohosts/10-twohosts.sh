# SPDX-License-Identifier: GPL-2.0
# The guest half of tests/vm/test_two_hosts.sh (issue 35, F7): a second
# running kernel, given the host's own host name, writes and checks shard 1/2
# of a local file at the path where the host wrote shard 0/2 (on its tmpfs;
# on a copy of the host's ext4 image, mounted from the same loop minor), and
# of one file the two share over 9p; its manifests go back through the share.

share=$(sed -n 's/.*guacvm\.share=\([^ ]*\).*/\1/p' /proc/cmdline)
out=$share/guest

# load_extra NAME [ARGS]: /lib/modules/extra/'s modules in their order (busybox
# insmod resolves no dependency) up to NAME, which gets ARGS; each once.
load_extra() {
	local ko

	while read -r ko; do
		grep -q "^$(echo "${ko%.ko}" | tr - _) " /proc/modules ||
			if [ "$ko" = "$1.ko" ]; then
				insmod "/lib/modules/extra/$ko" ${2:-}
			else
				insmod "/lib/modules/extra/$ko"
			fi || return 1
		[ "$ko" != "$1.ko" ] || return 0
	done </lib/modules/extra.order
	echo "no module $1 in /lib/modules/extra (extra.missing: $(cat /lib/modules/extra.missing 2>/dev/null))"
	return 1
}

# The share, at the host's own path (the shared file has one path on both).
mount_share() {
	load_extra 9pnet_virtio && load_extra 9p && mkdir -p "$share" &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 guacshare "$share" &&
		[ -f "$share/params" ]
}
check "the host's directory $share is mounted over 9p, with its parameters" mount_share ||
	exit 1
# host, origin, length, local_path, clone_dir, clone_loop, shared_path
. "$share/params"
mkdir -p "$out"

check "the guest takes the host's own host name '$host' (an adversarial twin)" \
	sh -c 'hostname "$1" && [ "$(uname -n)" = "$1" ]' sh "$host"
echo "# boot id $(cat /proc/sys/kernel/random/boot_id), kernel $(uname -r)"

# part NAME TARGET: write and check shard 1/2 of TARGET; the manifest to the share.
part() {
	guac write --host "$host" --origin "$origin" --length "$length" --shard 1/2 \
		-m "/tmp/$1.json" "$2" &&
		guac verify -m "/tmp/$1.json" &&
		cp "/tmp/$1.json" "$out/$1.json" &&
		sed -n 's/.*"identity": "\([^"]*\)".*/identity: \1/p' "$out/$1.json"
}

# A local file at the host's path, on the guest's tmpfs.
mkdir -p "${local_path%/*}"
check "shard 1/2 of the local file $local_path written and checked" part local "$local_path"

# The host's ext4 image, copied (a cloned machine's disk), on /dev/loopN as on the host.
clone_mount() {
	load_extra loop "max_loop=$((clone_loop + 1))" && load_extra ext4 &&
		cp "$share/golden.img" /tmp/clone.img &&
		losetup "/dev/loop$clone_loop" /tmp/clone.img &&
		mkdir -p "$clone_dir" && mount -t ext4 "/dev/loop$clone_loop" "$clone_dir"
}
check "a copy of the host's ext4 image mounted from /dev/loop$clone_loop at $clone_dir" clone_mount
clone_part() {
	grep -q "^/dev/loop$clone_loop $clone_dir ext4 " /proc/mounts ||
		{ echo "$clone_dir: the clone is not mounted"; return 1; }
	part clone "$clone_dir/fill.img"
}
check "shard 1/2 of the cloned file $clone_dir/fill.img written and checked" clone_part
umount "$clone_dir"
losetup -d "/dev/loop$clone_loop"

# One file both machines really hold: in the share.
check "shard 1/2 of the shared file $shared_path written and checked" part shared "$shared_path"
sync
