/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Small helpers shared by the guac subcommands. */
#ifndef GUAC_UTIL_H
#define GUAC_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GUAC_EXIT_OK 0
#define GUAC_EXIT_FAIL 1	/* the check failed (verify: mismatch) */
#define GUAC_EXIT_ERROR 2	/* usage or I/O error */

extern const char *guac_prog;	/* "guac gen" etc., for messages */

/* Print "guac CMD: message" to stderr. */
void guac_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a byte count or index: decimal or 0x hex, optionally followed by a
 * binary suffix K, M, G, T, P or E (also "KiB", "KB", lower case). Returns
 * false, with a message naming @what, on anything else or on overflow.
 */
bool guac_parse_u64(const char *what, const char *s, uint64_t *out);

/* Parse an implementation name for --impl; exits with a message if unusable. */
int guac_parse_impl(const char *s);

/* Write all of @buf; returns 0 or an errno value. */
int guac_write_all(int fd, const void *buf, size_t len);

/* Format a byte count as "1.50 GiB" into @buf. */
const char *guac_fmt_bytes(char *buf, size_t size, double bytes);

/* Monotonic time in seconds. */
double guac_now(void);

/* Online CPUs, at least 1: the default thread count of verify and bench. */
unsigned int guac_nr_cpus(void);

/* Print @s as a JSON string literal, quoted and escaped. */
void guac_json_string(FILE *f, const char *s);

/* Page-aligned allocation that is freed with free(); exits on failure. */
void *guac_alloc(size_t size);

#endif /* GUAC_UTIL_H */
