# SPDX-License-Identifier: GPL-2.0
#
# sparse over every module source (scripts/sparse.sh): C=2 W=1 against
# Debian's 6.12 headers, for the module and its test variant; any sparse
# warning or error fails.

sparse: deps
	scripts/sparse.sh

CHECK_SUITES += sparse

.PHONY: sparse
