// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU's random number instructions as a hwrng, for /dev/hwrng, rngd and
 * khwrngd: RDSEED or RDRAND on x86-64, RNDRRS on arm64.
 *
 * Registered when the CPU has the DRBG instruction (RDRAND; arm64's FEAT_RNG,
 * RNDR), and fed by the seed one (RDSEED; RNDRRS) when it has that too: RDSEED
 * hands out the conditioned output of the CPU's entropy source, RNDRRS that
 * of a DRBG reseeded from it for every read, RDRAND and RNDR that of a DRBG
 * seeded from it. The hwrng's name says which (hwrng_insn.h). A word is
 * delivered only after the whole window it belongs to has passed the health
 * tests (hwrng_read.c); a failure stops delivery (-EIO) until the source
 * passes again.
 *
 * The hwrng core serialises calls of the read op (its reading_mutex), so the
 * source needs no lock of its own; the counters are atomic for sysfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hw_random.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <uapi/linux/guacrng.h>
#include "compat.h"
#include "guacrng.h"
#include "hwrng.h"
#include "testing.h"

/*
 * Entropy credit: the user's decision. random.c already mixes RDRAND and
 * RDSEED (arm64: RNDR and RNDRRS) into every reseed and honours
 * random.trust_cpu=; crediting this
 * hwrng on top would override a user who said not to trust the CPU, and on
 * kernels whose hw_random core makes the best-credited hwrng rng_current, it
 * would push aside a TPM or virtio-rng. So by default we claim the least the
 * core allows (GUAC_HWRNG_MIN_QUALITY), and quality= opts in. docs/hwrng.md
 * has the reasoning and how to make guacrng rng_current for rngd.
 */
static bool hwrng_enable = true;
module_param_named(hwrng, hwrng_enable, bool, 0444);
MODULE_PARM_DESC(hwrng, "Register the CPU's random number instructions as a hwrng, x86-64: RDSEED/RDRAND when it has RDRAND, arm64: RNDRRS when it has FEAT_RNG (default: 1)");

static unsigned int hwrng_quality;

static int guac_quality_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1024);
}

static const struct kernel_param_ops guac_quality_ops = {
	.set = guac_quality_set,
	.get = param_get_uint,
};
module_param_cb(quality, &guac_quality_ops, &hwrng_quality, 0444);
MODULE_PARM_DESC(quality, "Entropy credited per 1024 bits read, 1..1024; 0 (default): the least the kernel's hw_random core allows (see docs/hwrng.md)");

/* ============================ the hwrng itself ============================ */

static struct guac_hwrng {
	struct hwrng rng;
	struct guac_hwrng_src src;
} guac_hwrng;

static bool guac_hwrng_registered;

static int guac_hwrng_read(struct hwrng *rng, void *buf, size_t max, bool wait)
{
	struct guac_hwrng *hw = container_of(rng, struct guac_hwrng, rng);

	return guac_hwrng_fill(&hw->src, buf, max, wait);
}

/* ============== /sys/module/guacrng/hwrng/: source and counters ============== */

/*
 * Attributes of a module's kobject are module_attributes: its sysfs_ops
 * call them with the module_kobject, not the kobj_attribute convention.
 */
struct guac_counter_attr {
	struct module_attribute attr;
	atomic64_t *counter;
};

static ssize_t guac_counter_show(GUAC_MODATTR_CONST struct module_attribute *attr,
				 struct module_kobject *mk, char *buf)
{
	const struct guac_counter_attr *ca =
		container_of(attr, struct guac_counter_attr, attr);

	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(ca->counter));
}

static struct guac_counter_attr guac_attr_bytes = {
	.attr = __ATTR(bytes, 0444, guac_counter_show, NULL),
	.counter = &guac_hwrng.src.stats.bytes,
};

static struct guac_counter_attr guac_attr_retries = {
	.attr = __ATTR(retries, 0444, guac_counter_show, NULL),
	.counter = &guac_hwrng.src.stats.retries,
};

static struct guac_counter_attr guac_attr_failures = {
	.attr = __ATTR(failures, 0444, guac_counter_show, NULL),
	.counter = &guac_hwrng.src.stats.failures,
};

static struct guac_counter_attr guac_attr_health_failures = {
	.attr = __ATTR(health_failures, 0444, guac_counter_show, NULL),
	.counter = &guac_hwrng.src.stats.health_failures,
};

static ssize_t source_show(GUAC_MODATTR_CONST struct module_attribute *attr,
			   struct module_kobject *mk, char *buf)
{
	return sysfs_emit(buf, "%s\n", guac_insn_names[guac_hwrng.src.seed].source);
}

static ssize_t health_show(GUAC_MODATTR_CONST struct module_attribute *attr,
			   struct module_kobject *mk, char *buf)
{
	enum guac_health_state state = READ_ONCE(guac_hwrng.src.health.state);

	return sysfs_emit(buf, "%s\n", guac_health_state_name(state));
}

static struct module_attribute guac_attr_source = __ATTR_RO(source);
static struct module_attribute guac_attr_health = __ATTR_RO(health);

static struct attribute *guac_hwrng_attrs[] = {
	&guac_attr_source.attr,
	&guac_attr_health.attr,
	&guac_attr_bytes.attr.attr,
	&guac_attr_retries.attr.attr,
	&guac_attr_failures.attr.attr,
	&guac_attr_health_failures.attr.attr,
	NULL
};

static const struct attribute_group guac_hwrng_group = {
	.name = "hwrng",
	.attrs = guac_hwrng_attrs,
};

/* ============================ setup and teardown ============================ */

int guac_hwrng_init(void)
{
	const struct guac_insn_ops *ops;
	u32 features = guac_cpu_features();
	bool seed, opted_in;
	int ret;

	if (!hwrng_enable) {
		pr_info("hwrng: disabled (hwrng=0)\n");
		return 0;
	}
	ops = guac_test_hwrng_insn(&guac_insn_cpu);
	if (!ops)
		return -EINVAL;
	if (!guac_hwrng_selftest()) {
		pr_err("hwrng self-tests: FAIL\n");
		return -ENOTRECOVERABLE;
	}
	pr_info("hwrng self-tests: pass\n");

	if (!(features & guac_insn_names[false].feature)) {
		pr_info("hwrng: not registered, the CPU has no %s\n",
			guac_insn_names[false].insn);
		return 0;
	}

	seed = features & guac_insn_names[true].feature;
	ret = guac_hwrng_src_init(&guac_hwrng.src, ops, seed, true);
	if (ret)
		return ret;
	guac_hwrng.rng.name = guac_insn_names[seed].hwrng;
	guac_hwrng.rng.read = guac_hwrng_read;
	/* A test double's output is public: it never earns credit. */
	opted_in = ops == &guac_insn_cpu && hwrng_quality;
	guac_hwrng.rng.quality = opted_in ? hwrng_quality : GUAC_HWRNG_MIN_QUALITY;

	ret = sysfs_create_group(&THIS_MODULE->mkobj.kobj, &guac_hwrng_group);
	if (ret)
		goto free;
	ret = hwrng_register(&guac_hwrng.rng);
	if (ret) {
		sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &guac_hwrng_group);
		goto free;
	}
	guac_hwrng_registered = true;

	ret = guac_test_init_fault("hwrng");
	if (ret) {
		guac_hwrng_uninit();
		return ret;
	}
	if (ops != &guac_insn_cpu)
		pr_warn("hwrng: TEST ONLY: %s replaced by the '%s' double\n",
			guac_insn_names[seed].insn, ops->name);
	pr_info("hwrng %s registered, entropy credit %u per 1024 bits%s\n",
		guac_hwrng.rng.name, guac_hwrng.rng.quality,
		opted_in ? " (quality=)" : ", the least the hw_random core allows");
	return 0;

free:
	guac_hwrng_src_free(&guac_hwrng.src);
	return ret;
}

void guac_hwrng_uninit(void)
{
	if (!guac_hwrng_registered)
		return;
	/* Returns once no read op runs: the buffers are then ours alone. */
	hwrng_unregister(&guac_hwrng.rng);
	sysfs_remove_group(&THIS_MODULE->mkobj.kobj, &guac_hwrng_group);
	guac_hwrng_src_free(&guac_hwrng.src);
	guac_hwrng_registered = false;
}
