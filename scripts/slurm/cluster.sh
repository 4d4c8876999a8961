#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real Slurm cluster on this machine, from Debian's packages, as root and
# without systemd (docs/fleet.md):
#
#   scripts/slurm/cluster.sh up [NODES]   start it (2 compute nodes by default, at most 8)
#   scripts/slurm/cluster.sh status       the daemons and sinfo
#   scripts/slurm/cluster.sh down         stop every daemon by its PID, remove the namespaces
#
# munged runs with a key of its own (root-owned, 0600) and its socket in a
# private directory; slurmctld and every slurmd run each in a UTS namespace
# with its own host name (guacctl, guacn1, guacn2, ...; GUAC_SLURM_HOSTNAMES),
# and every slurmd in a network namespace of its own with its own address.
# The nodes reach each
# other through a bridge in a namespace made for it (GUAC_SLURM_NS-hub), and
# this host reaches them through one veth pair (GUAC_SLURM_NS-0, private
# addresses, no route anywhere else): no traffic leaves the machine. `up`
# prints the line that submitting work needs:
#
#   export SLURM_CONF=/var/tmp/guacrng-slurm/etc/slurm.conf
#
# Environment: GUAC_SLURM_DIR (state, logs, config; default
# /var/tmp/guacrng-slurm), GUAC_SLURM_NS (namespace and interface prefix,
# default gslurm), GUAC_SLURM_NET (the first three octets of the /24, default
# 10.224.24), GUAC_SLURM_PORT (slurmctld's port, default the first free one
# from 16817; slurmd listens on the next one), GUAC_SLURM_HOSTNAMES (the
# host names of the nodes' UTS namespaces, node 1 first, default guacn1,
# guacn2, ...: a node whose host name is not its NodeName, like an FQDN host or
# a site whose Slurm names differ; slurmd runs with -N NODENAME either way).
set -euo pipefail

DIR=${GUAC_SLURM_DIR:-/var/tmp/guacrng-slurm}
NS=${GUAC_SLURM_NS:-gslurm}
NET=${GUAC_SLURM_NET:-10.224.24}
CTL_HOST=guacctl
CTL_ADDR=$NET.1
CONF=$DIR/etc/slurm.conf

die() {
	echo "cluster.sh: $*" >&2
	exit 1
}
say() { echo "cluster.sh: $*" >&2; }

usage() {
	sed -n '4,10s/^# \{0,1\}//p' "$0"
	exit "${1:-0}"
}

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root (it creates network namespaces and runs the daemons as root)"
	local p
	for p in slurmctld slurmd sinfo scontrol munged ip unshare ss; do
		command -v "$p" >/dev/null || die "'$p' is missing: run scripts/install-deps.sh (slurmctld slurmd slurm-client munge iproute2)"
	done
}

# The node count of the cluster that is up, from its configuration.
nodes_up() {
	sed -n 's/^NodeName=guacn\([0-9]*\) .*/\1/p' "$CONF" 2>/dev/null | sort -n | tail -1
}

port_free() {
	! ss -Hltn "sport = :$1" | grep -q . && ! ss -Hltn "sport = :$(($1 + 1))" | grep -q .
}

# kill_pidfile FILE NAME: stop the process whose PID FILE holds, TERM then
# KILL after 10 s; only if it is still the program we started (by its comm).
kill_pidfile() {
	local f=$1 name=$2 pid i
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	if [ -d "/proc/$pid" ] && grep -qx "$name" "/proc/$pid/comm" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 100); do
			[ -d "/proc/$pid" ] || break
			sleep 0.1
		done
		if [ -d "/proc/$pid" ]; then
			say "$name (PID $pid) did not stop in 10 s: SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.2
		fi
	fi
	rm -f "$f"
}

# Everything still running inside one of our network namespaces (job steps,
# slurmstepd, jobs' children) is ours: stop it by PID.
kill_netns_pids() {
	local ns=$1 pids i
	ip netns list | grep -qw "^$ns" || return 0
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null || true
	for i in $(seq 50); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -n "$pids" ] || return 0
		sleep 0.1
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
	sleep 0.2
}

cmd_down() {
	need_root
	local n i ns port
	n=$(nodes_up || true)
	port=$(sed -n 's/^SlurmctldPort=//p' "$CONF" 2>/dev/null || true)
	for i in $(seq "${n:-8}"); do
		kill_pidfile "$DIR/pid/slurmd-guacn$i" slurmd
	done
	kill_pidfile "$DIR/pid/slurmctld" slurmctld
	for ns in $(ip netns list | awk '{print $1}' | grep "^$NS-" || true); do
		kill_netns_pids "$ns"
		ip netns delete "$ns"
	done
	ip link show "$NS-0" >/dev/null 2>&1 && ip link delete "$NS-0"
	kill_pidfile "$DIR/pid/munged" munged
	if [ -n "$port" ] && ! port_free "$port"; then
		ss -Hltnp "sport = :$port" >&2 || true
		die "port $port is still bound after down"
	fi
	rm -f "$DIR/munge/munge.socket" "$DIR/munge/munge.socket.lock"
	say "down: no daemon, namespace or port of the cluster left"
}

write_conf() {
	local nodes=$1 port=$2 i
	cat >"$CONF" <<EOF
# Written by scripts/slurm/cluster.sh: a Slurm cluster on one machine.
ClusterName=guac
SlurmctldHost=$CTL_HOST($CTL_ADDR)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job starts again only once its old credential has
# expired (120 s by default; earlier, slurmd kills it: "Job credential revoked").
AuthInfo=socket=$DIR/munge/munge.socket,cred_expire=10
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
MinJobAge=3600
KillWait=10
SlurmdTimeout=30
SchedulerParameters=sched_interval=2,bf_interval=1
EOF
	for i in $(seq "$nodes"); do
		echo "NodeName=guacn$i NodeAddr=$NET.$((10 + i)) CPUs=4 RealMemory=1024 State=UNKNOWN"
	done >>"$CONF"
	echo "PartitionName=guac Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO" >>"$CONF"
	# Without it slurmd looks for cgroup v2 or a hybrid and dies ("No filesystem
	# mounted on /sys/fs/cgroup", "Hybrid mode is not supported"); proctrack/pgid
	# and task/none use no cgroup.
	echo "CgroupPlugin=cgroup/v1" >"$DIR/etc/cgroup.conf"
}

# wait_idle N: until sinfo shows N idle nodes (60 s at most).
wait_idle() {
	local n=$1 i idle
	for i in $(seq 600); do
		idle=$(SLURM_CONF=$CONF sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
		[ "$idle" -ge "$n" ] && return 0
		sleep 0.1
	done
	SLURM_CONF=$CONF sinfo -N >&2 || true
	tail -n 20 "$DIR"/log/*.log >&2 || true
	return 1
}

cmd_up() {
	need_root
	local nodes=${1:-2} port i ns t0
	[[ $nodes =~ ^[1-8]$ ]] || die "NODES must be 1 to 8, not '$nodes'"
	[ -z "$(ip netns list | awk '{print $1}' | grep "^$NS-" || true)" ] ||
		die "namespaces $NS-* exist: a cluster is up (run: $0 down)"
	! ip link show "$NS-0" >/dev/null 2>&1 || die "interface $NS-0 exists: a cluster is up (run: $0 down)"
	! ip -4 route show | grep -q "^$NET\." || die "$NET.0/24 is routed on this host already: set GUAC_SLURM_NET"
	t0=$(date +%s.%N)
	if [ -n "${GUAC_SLURM_PORT:-}" ]; then
		port=$GUAC_SLURM_PORT
		port_free "$port" || die "port $port or $((port + 1)) is taken"
	else
		for port in $(seq 16817 2 16917); do
			port_free "$port" && break
		done
		port_free "$port" || die "no free port pair between 16817 and 16918"
	fi
	local -a uts
	read -r -a uts <<<"${GUAC_SLURM_HOSTNAMES:-}"
	for i in "${uts[@]}"; do
		[[ $i =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || die "GUAC_SLURM_HOSTNAMES: '$i' is not a host name"
	done
	rm -rf "$DIR"
	mkdir -p "$DIR"/{etc,state,run,log,pid,munge} "$DIR"/spool/guacn{1..8}
	chmod 700 "$DIR/munge"
	write_conf "$nodes" "$port"
	trap 'say "up failed: tearing down"; cmd_down >/dev/null 2>&1 || true' ERR

	# munge: its own key and socket; slurmd in other network namespaces
	# reach the socket by its path.
	head -c 1024 /dev/urandom >"$DIR/munge/munge.key"
	chown root:root "$DIR/munge/munge.key"
	chmod 600 "$DIR/munge/munge.key"
	setsid munged -F --force --socket="$DIR/munge/munge.socket" \
		--key-file="$DIR/munge/munge.key" --pid-file="$DIR/run/munged.pid" \
		--log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munged.seed" \
		</dev/null >>"$DIR/log/munged.out" 2>&1 &
	echo $! >"$DIR/pid/munged"
	for i in $(seq 100); do
		[ -S "$DIR/munge/munge.socket" ] && break
		sleep 0.1
	done
	[ -S "$DIR/munge/munge.socket" ] || { cat "$DIR/log/munged.out" >&2; die "munged did not start"; }

	# The network: a bridge in a namespace of its own, a veth from this host
	# to it, and one veth per node.
	ip netns add "$NS-hub"
	ip -n "$NS-hub" link set lo up
	ip -n "$NS-hub" link add br0 type bridge
	ip -n "$NS-hub" link set br0 up
	ip link add "$NS-0" type veth peer name host netns "$NS-hub"
	ip -n "$NS-hub" link set host master br0 up
	ip addr add "$CTL_ADDR/24" dev "$NS-0"
	ip link set "$NS-0" up
	for i in $(seq "$nodes"); do
		ns=$NS-n$i
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip -n "$NS-hub" link add "n$i" type veth peer name eth0 netns "$ns"
		ip -n "$NS-hub" link set "n$i" master br0 up
		ip -n "$ns" addr add "$NET.$((10 + i))/24" dev eth0
		ip -n "$ns" link set eth0 up
	done

	# slurmctld in this network namespace (the clients' address), with the
	# host name SlurmctldHost names; each slurmd in its node's namespaces.
	# exec all the way down: the PID recorded is the daemon's.
	setsid unshare --uts sh -c "hostname $CTL_HOST && exec slurmctld -D -c -i -f '$CONF'" \
		</dev/null >>"$DIR/log/slurmctld.out" 2>&1 &
	echo $! >"$DIR/pid/slurmctld"
	for i in $(seq "$nodes"); do
		setsid ip netns exec "$NS-n$i" unshare --uts \
			sh -c "hostname ${uts[i - 1]:-guacn$i} && exec slurmd -D -c -f '$CONF' -N guacn$i" \
			</dev/null >>"$DIR/log/slurmd-guacn$i.out" 2>&1 &
		echo $! >"$DIR/pid/slurmd-guacn$i"
	done
	wait_idle "$nodes" || die "the nodes did not become idle in 60 s (logs in $DIR/log)"
	trap - ERR
	say "up: slurmctld on $CTL_HOST ($CTL_ADDR:$port), $nodes nodes idle in $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $t0}") s; logs in $DIR/log"
	echo "export SLURM_CONF=$CONF"
}

cmd_status() {
	local f pid name rc=0
	[ -f "$CONF" ] || die "no cluster configured in $DIR"
	for f in "$DIR"/pid/*; do
		[ -e "$f" ] || continue
		name=$(basename "$f")
		pid=$(cat "$f")
		if [ -d "/proc/$pid" ]; then
			echo "$name: running, PID $pid"
		else
			echo "$name: not running (PID $pid)"
			rc=1
		fi
	done
	SLURM_CONF=$CONF sinfo -N -o '%N %T %c %O' || rc=1
	echo "export SLURM_CONF=$CONF"
	return $rc
}

case "${1:-}" in
up) shift; cmd_up "$@" ;;
down) cmd_down ;;
status) cmd_status ;;
-h | --help) usage 0 ;;
*) usage 2 >&2 ;;
esac
