// SPDX-License-Identifier: GPL-2.0
/*
 * guacrng: /dev/guac, the seekable guacamole stream, and the CPU's random
 * number instructions as a hwrng (x86-64: RDRAND/RDSEED, arm64:
 * RNDR/RNDRRS). This file only strings the parts together.
 *
 * The order is the contract: everything that can refuse the load (a bad
 * parameter, a failed self-test) runs before anything is visible, the hwrng
 * is registered next, and /dev/guac appears last, so that no reader can hold
 * the device open while a later step fails and the module is freed. The
 * exit path undoes each step in exact reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "guacrng.h"

static char *impl = "auto";
module_param(impl, charp, 0444);
MODULE_PARM_DESC(impl, "Implementation for /dev/guac: auto (default), generic, or the CPU's SIMD: avx512, avx2, sse2 (x86-64), neon (arm64)");

static int __init guac_mod_init(void)
{
	int ret;

	/* Parameters and self-tests; nothing to undo when these fail. */
	ret = guac_simd_init(impl);
	if (ret)
		return ret;

	ret = guac_hwrng_init();
	if (ret)
		return ret;

	ret = guac_device_init();
	if (ret)
		goto err_hwrng;

	pr_info("/dev/guac ready, implementation %s\n",
		guac_impl_names[guac_impl_active()]);
	return 0;

err_hwrng:
	guac_hwrng_uninit();
	return ret;
}

static void __exit guac_mod_exit(void)
{
	guac_device_uninit();
	guac_hwrng_uninit();
}

module_init(guac_mod_init);
module_exit(guac_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Seekable guacamole stream (/dev/guac) and RDRAND/RDSEED or RNDR/RNDRRS hwrng");
MODULE_AUTHOR("The guacrng developers");
