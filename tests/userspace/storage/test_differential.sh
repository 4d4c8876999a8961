#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Differential adversarial test of guac's verdicts (issue 27): differential.py
# makes random storage scenarios (fills, shards and merges, interrupted fills
# and checks, damage, repairs, pipes, offsets across 2^64) and compares every
# verdict of guac verify with `guac gen` of the described range and cmp: an OK
# over bytes that differ is a FALSE OK; a check of matching data, run to its
# end, that is not OK is a FALSE ALARM. One TAP line per scenario family, one
# summary line. The seed comes first in the output (replay: differential.py
# --seed S, or --seed S --case I -v for one case); DIFFERENTIAL_ARGS passes
# options (--seed S, --seconds T, --cases N). TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/differential_tap.sh"
tap_tmpdir
trap 'exit 130' INT TERM

tap_begin
# shellcheck disable=SC2086 # DIFFERENTIAL_ARGS is a list of options
differential_tap differential "$(dirname "$0")/differential.py" ${DIFFERENTIAL_ARGS:-}
tap_end
