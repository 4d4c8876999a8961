#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Differential test of guac report over random fleets (issue 35, item 7):
# fleet_differential.py makes random fleets (refills, overlapping and sharded
# fills, re-attached loop devices, partial checks, host-name variants,
# manifests edited with their checksum recomputed, files marked shared,
# manifests given twice) and compares every row of guac report with the
# truth, `guac gen` of the fill's ranges and a byte comparison of the target
# (the medium recorded): an OK over bytes that differ, or over another medium,
# is a FALSE OK; a clean fleet not all OK is a FALSE ALARM; the exit status
# must be 0 exactly when every row is OK. One TAP line per scenario family,
# one summary line. The seed comes first in the output (replay:
# fleet_differential.py --seed S, or --seed S --case I -v for one case);
# FLEET_DIFFERENTIAL_ARGS passes options (--seed S, --seconds T, --cases N).
set -u
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/differential_tap.sh"
tap_tmpdir
trap 'exit 130' INT TERM

tap_begin
# shellcheck disable=SC2086 # FLEET_DIFFERENTIAL_ARGS is a list of options
differential_tap fleet-differential "$(dirname "$0")/fleet_differential.py" ${FLEET_DIFFERENTIAL_ARGS:-}
tap_end
