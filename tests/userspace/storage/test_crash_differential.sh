#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Differential adversarial test of guac verify --after-crash (issue 37, item
# 3): crash_differential.py kills crash-safe fills at random moments, damages
# random pieces in random ways and holds every byte of guac's verdict against
# what the damage and the journal's rule say (false OK, false alarm,
# misnamed class). The seed comes first in the output (replay:
# crash_differential.py --seed S --case I -v); CRASH_DIFFERENTIAL_ARGS passes
# options (--seed S, --seconds T). TAP output.
set -u
. "$(dirname "$0")/../tap.sh"
. "$(dirname "$0")/differential_tap.sh"
tap_tmpdir
trap 'exit 130' INT TERM

tap_begin
# shellcheck disable=SC2086 # CRASH_DIFFERENTIAL_ARGS is a list of options
differential_tap crash_differential "$(dirname "$0")/crash_differential.py" \
	${CRASH_DIFFERENTIAL_ARGS:---seconds 40}
tap_end
