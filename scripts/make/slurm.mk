# SPDX-License-Identifier: GPL-2.0
#
# guac on a real Slurm cluster (docs/fleet.md): scripts/slurm/cluster.sh starts
# Debian's slurmctld, two slurmd (each in network and UTS namespaces of its own)
# and munged, as root; tests/slurm/test_slurm.sh runs the shipped sbatch scripts
# of docs/examples/slurm/ on it (shards, dependent checks, merges, a fleet and its
# report, interruptions, a node set DOWN, a bad disk) and tears it down. The
# Kubernetes recipes of docs/examples/kubernetes/ are validated offline against
# the API schemas (tests/slurm/test_k8s_yaml.sh; kubernetes-validate from PyPI,
# in a venv in the cache).

check-slurm: deps tools
	TESTS="$(TOP)/tests/slurm/test_k8s_yaml.sh $(TOP)/tests/slurm/test_slurm.sh" \
		GUAC=$(BUILD)/userspace/guac scripts/run-suites.sh slurm

# loop: the host's loop devices, which its tests detach and re-attach by name.
CHECK_SUITES += check-slurm@loop

.PHONY: check-slurm
