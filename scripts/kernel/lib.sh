# SPDX-License-Identifier: GPL-2.0
#
# Shared by build-kernel.sh and run-debug.sh: the --variant option that picks
# a test kernel (debug, kcsan or arm64; see README.md). Each script defines usage()
# before it calls guac_variant_option, and checks the variant itself.
#
# variant and variant_args are set here for the scripts that source this file.
# shellcheck shell=bash disable=SC2034

# The variant when no --variant is given.
variant=debug

# guac_variant_option ARGS...: when ARGS begin with "--variant V" or
# "--variant=V", set variant to V and variant_args to how many of ARGS that
# took (2 or 1), for the caller to shift; otherwise set variant_args to 0.
# A --variant with nothing after it calls usage.
guac_variant_option() {
	variant_args=0
	case ${1:-} in
	--variant)
		[ $# -ge 2 ] || usage
		variant=$2
		variant_args=2
		;;
	--variant=*)
		variant=${1#--variant=}
		variant_args=1
		;;
	esac
}
