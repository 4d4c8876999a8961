/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The few kernel.h helpers the shared sources use, for userspace builds. */
#ifndef GUAC_TOOLS_LINUX_KERNEL_H
#define GUAC_TOOLS_LINUX_KERNEL_H

#include <linux/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* GUAC_TOOLS_LINUX_KERNEL_H */
