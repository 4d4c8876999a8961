// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Implementation choice for userspace, the same on every architecture: the
 * architecture's file (cpu_x86.c, cpu_arm64.c, cpu_other.c) detects the
 * features and says which each implementation needs.
 */
#include <stdio.h>
#include <string.h>
#include "libguac.h"

static unsigned int guac_cpu_mask = ~0u;

unsigned int guac_cpu_features(void)
{
	static unsigned int detected;
	static bool done;

	if (!done) {
		detected = guac_cpu_detect();
		done = true;
	}
	return detected & guac_cpu_mask;
}

void guac_cpu_restrict(unsigned int mask)
{
	guac_cpu_mask = mask;
}

bool guac_impl_usable(enum guac_impl impl, unsigned int features)
{
	if ((unsigned int)impl >= GUAC_IMPL_COUNT)
		return false;
	return (features & guac_impl_needs[impl]) == guac_impl_needs[impl];
}

enum guac_impl guac_impl_best(void)
{
	unsigned int features = guac_cpu_features();
	int impl;

	for (impl = GUAC_IMPL_COUNT - 1; impl > GUAC_IMPL_GENERIC; impl--)
		if (guac_impl_usable(impl, features))
			return impl;
	return GUAC_IMPL_GENERIC;
}

int guac_impl_parse(const char *name)
{
	int impl;

	if (!strcmp(name, "auto"))
		return guac_impl_best();
	for (impl = 0; impl < GUAC_IMPL_COUNT; impl++)
		if (!strcmp(name, guac_impl_names[impl]))
			return impl;
	return -1;
}

const char *guac_impl_choices(void)
{
	static char buf[128];
	size_t len;
	int impl;

	if (buf[0])
		return buf;
	len = (size_t)snprintf(buf, sizeof(buf), "auto");
	for (impl = 0; impl < GUAC_IMPL_COUNT && len < sizeof(buf); impl++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					impl == GUAC_IMPL_COUNT - 1 ? " or " : ", ",
					guac_impl_names[impl]);
	return buf;
}
