# SPDX-License-Identifier: GPL-2.0
# Not a test of guacrng: tests/vm/test_boot_retry.sh's failure after the
# load. The module loads, then the kernel is crashed on purpose (sysrq c):
# a panic with guacrng among the loaded modules, which the harness must
# report and never retry.

check "insmod guacrng.ko" guac_load
echo c >/proc/sysrq-trigger
