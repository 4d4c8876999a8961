/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Small helpers shared by the guac subcommands. */
#ifndef GUAC_UTIL_H
#define GUAC_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GUAC_EXIT_OK 0
#define GUAC_EXIT_FAIL 1	/* the check failed (verify: mismatch) */
#define GUAC_EXIT_ERROR 2	/* a usage error: nothing was done to the target */
/*
 * The target's I/O failed: a read or write error (EIO), unreadable sectors,
 * no space left mid-write, a failed fsync. Not 2, so that a script can tell
 * a disk's fault from its own (issue 36, U7).
 */
#define GUAC_EXIT_IO 3

/* An errno of this machine's memory or limits, not of the target's I/O. */
static inline bool guac_errno_local(int err)
{
	return err == ENOMEM || err == EAGAIN || err == EMFILE || err == ENFILE;
}

extern const char *guac_prog;	/* "guac gen" etc., for messages */

/* Print "guac CMD: message" to stderr. */
void guac_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a byte count or index: decimal or 0x hex (never octal: "010" is 10),
 * optionally followed by a binary suffix K, M, G, T, P, E or KiB ... EiB
 * (powers of 1024, any case) or a decimal one kB, MB, GB, TB, PB, EB (powers
 * of 1000). Returns false, with a message naming @what, on anything else or
 * on overflow.
 */
bool guac_parse_u64(const char *what, const char *s, uint64_t *out);

/* An implementation name for --impl: its index, or -1 after a message if unusable. */
int guac_impl_check(const char *s);

/* Write all of @buf; returns 0 or an errno value. */
int guac_write_all(int fd, const void *buf, size_t len);

/* Format a byte count as "1.50 GiB" into @buf. */
const char *guac_fmt_bytes(char *buf, size_t size, double bytes);

/* "12.3 MB/s" or "1.23 GB/s" and "h:mm:ss": shared by the progress lines and reports. */
const char *guac_fmt_rate(char *buf, size_t size, double bytes_per_second);
const char *guac_fmt_duration(char *buf, size_t size, double seconds);

/* Monotonic time in seconds. */
double guac_now(void);

/* Online CPUs, at least 1: the default thread count of verify and bench. */
unsigned int guac_nr_cpus(void);

/*
 * Whether @threads threads holding two buffers of @block bytes each fit in
 * this machine's memory (sysconf: physical pages): *@need is their bytes
 * (UINT64_MAX when that overflows), *@mem the memory (0 when unknown, which
 * fits). The check guac write, verify and bench make before they allocate:
 * more than the machine has cannot be meant; the caller names the numbers.
 */
bool guac_buffers_fit(uint64_t threads, uint64_t block, uint64_t *need, uint64_t *mem);

/* Print @s as a JSON string literal, quoted and escaped. */
void guac_json_string(FILE *f, const char *s);

/*
 * @s for a line of text a human reads (a table, a message): each control
 * character as \n, \t, \r or \xNN (C0, DEL, and C1 in its UTF-8 form), a
 * backslash as \\, so that a path holding a newline cannot forge a line.
 * Written to @buf (cut short to fit @size, never mid-escape); returns @buf.
 * GUAC_ESCAPED(n) is the room that a string of n bytes can need.
 */
#define GUAC_ESCAPED(n) (4 * (n) + 1)
const char *guac_escape(char *buf, size_t size, const char *s);

/* Page-aligned allocation that is freed with free(); exits on failure. */
void *guac_alloc(size_t size);

/* The same, NULL on failure: for threads, whose failure must reach the report. */
void *guac_try_alloc(size_t size);

/*
 * Stream positions. The stream is 2^64 blocks of 64 bytes, 2^70 bytes: a
 * byte offset does not fit in 64 bits, and "offset + n" computed in 64 bits
 * wraps at 2^64 bytes to a place 2^58 blocks away from the right one. So a
 * position is a block and a byte in it, relative to the origin, and every
 * command moves it with guac_spos_add(), never with 64-bit byte arithmetic.
 */
struct guac_spos {
	uint64_t block;
	unsigned int byte;		/* 0 ... 63 */
};

/* The position of stream byte @offset (a 64-bit offset, as the options give it). */
static inline struct guac_spos guac_spos_of(uint64_t offset)
{
	return (struct guac_spos){ offset >> 6, (unsigned int)(offset & 63) };
}

/* @n bytes further on, mod 2^70. */
static inline struct guac_spos guac_spos_add(struct guac_spos p, uint64_t n)
{
	unsigned int byte = p.byte + (unsigned int)(n & 63);

	p.block += (n >> 6) + (byte >> 6);
	p.byte = byte & 63;
	return p;
}

/* The low 64 bits of the byte offset: what a manifest range records. */
static inline uint64_t guac_spos_low64(struct guac_spos p)
{
	return (p.block << 6) | p.byte;
}

/* The byte offset in decimal, below 2^70: "18446744073709551616". */
const char *guac_spos_str(char *buf, size_t size, struct guac_spos p);

/* @len stream bytes from position @p of the stream seen from block @origin. */
void guac_spos_fill(int impl, uint8_t *buf, uint64_t origin, struct guac_spos p, size_t len);

/* Stream bytes from byte @offset + @rel: guac_spos_fill() of guac_spos_add(). */
void guac_stream_at(int impl, uint8_t *buf, uint64_t origin, uint64_t offset, uint64_t rel,
		    size_t len);

/* The text every --help ends its number rules with. */
#define GUAC_NUMBERS_HELP \
	"Numbers are decimal or 0x hex (never octal: 010 is ten). Suffixes K, M, G, T,\n" \
	"P, E and KiB ... EiB are binary (1K = 1024); kB, MB, GB, TB, PB, EB are\n" \
	"decimal (1MB = 1000000).\n"

/*
 * The stream's definition version: bumped only if the bytes of the stream
 * ever changed, so manifests say which stream they were written with.
 */
#define GUAC_STREAM_VERSION 1

/* GUAC_VERSION, from dkms.conf's PACKAGE_VERSION through the Makefile. */
const char *guac_version(void);

/* True if argv (before any "--") asks for --version. */
bool guac_want_version(int argc, char **argv);

/* "guac CMD 0.1.0 (stream version 1)" on standard output. */
void guac_print_version(void);

#endif /* GUAC_UTIL_H */
