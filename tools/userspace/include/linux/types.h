/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel's short integer types for userspace builds of the shared core,
 * as the kernel's own tools/include/linux/types.h provides them, so that one
 * source compiles in both worlds.
 */
#ifndef GUAC_TOOLS_LINUX_TYPES_H
#define GUAC_TOOLS_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#endif /* GUAC_TOOLS_LINUX_TYPES_H */
