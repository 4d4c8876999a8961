#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Per-cycle throughput of the vector instructions of docs/cost-model.md,
# section 2, on this CPU: compiles scripts/bench/ports.c to build/bench/ports
# (gcc -std=c11 -O2 -Wall -Wextra -Werror) and prints its table.
#
#   scripts/bench/ports.sh [--trials N] [--ms MS]
#
# Cycles come from a chain of dependent imul timed on the thread's CPU clock
# before and after every trial, so the figures need no PMU and hold on a
# loaded machine. Instructions the CPU lacks are listed as skipped.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/build/bench
CC=${CC:-gcc}

mkdir -p "$OUT"
"$CC" -std=c11 -O2 -Wall -Wextra -Werror -o "$OUT/ports" "$ROOT/scripts/bench/ports.c"
echo "# $(uname -r), $("$CC" --version | head -1), $(date -u +%FT%TZ)"
echo "# $(uptime | sed 's/^ *//')"
exec "$OUT/ports" "$@"
