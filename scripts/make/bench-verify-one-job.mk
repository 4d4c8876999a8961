# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# guac verify with one job against dd iflag=direct, as ratios, in one run
# (issue 24): 1 GiB on tmpfs and a loop device, SCHED_FIFO by default
# (scripts/bench/verify-one-job.sh says why). Root. Not part of make check:
# it measures, it asserts nothing.
#
#   make bench-verify-one-job   table on standard output (VERIFY_ONE_JOB_ARGS: OUT.md;
#                               TRIALS, RT, ZRAM, GUAC, GUAC_ENV in the environment)

VERIFY_ONE_JOB_ARGS ?=

bench-verify-one-job: tools
	GUAC="$${GUAC:-$(BUILD)/userspace/guac}" scripts/bench/verify-one-job.sh $(VERIFY_ONE_JOB_ARGS)

.PHONY: bench-verify-one-job
