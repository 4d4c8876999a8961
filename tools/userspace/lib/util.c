// SPDX-License-Identifier: GPL-2.0 OR MIT
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "libguac.h"
#include "util.h"

#ifndef GUAC_VERSION
#error "GUAC_VERSION comes from dkms.conf through the Makefile"
#endif

const char *guac_prog = "guac";

void guac_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", guac_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Binary suffixes (K, KiB, M, MiB, ... E, EiB: powers of 1024) and decimal ones
 * (kB, KB, MB, GB, TB, PB, EB: powers of 1000). Storage vendors sell decimal
 * terabytes and the kernel counts binary sectors; both must be sayable.
 */
static bool guac_suffix_scale(const char *sfx, uint64_t *scale)
{
	static const char units[] = "KMGTPE";
	const char *p;
	uint64_t m = 1;
	int i, n;

	if (!*sfx) {
		*scale = 1;
		return true;
	}
	p = strchr(units, toupper((unsigned char)sfx[0]));
	if (!p || !sfx[0])
		return false;
	n = (int)(p - units) + 1;
	if (!sfx[1] || !strcmp(sfx + 1, "iB")) {
		for (i = 0; i < n; i++)
			m <<= 10;
	} else if (!strcmp(sfx + 1, "B") && (sfx[0] == 'k' || isupper((unsigned char)sfx[0]))) {
		for (i = 0; i < n; i++)
			m *= 1000;
	} else {
		return false;
	}
	*scale = m;
	return true;
}

bool guac_parse_u64(const char *what, const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t scale;
	char *end;
	int base = 10;

	if (!*s || !isdigit((unsigned char)*s)) {
		guac_err("invalid %s '%s': expected a non-negative number", what, s);
		return false;
	}
	/* Base 10 or 0x only: "010" is ten, never octal eight. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2])) {
			guac_err("invalid %s '%s': no hex digits after 0x", what, s);
			return false;
		}
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE) {
		guac_err("invalid %s '%s': larger than 2^64-1", what, s);
		return false;
	}
	if (!guac_suffix_scale(end, &scale)) {
		guac_err("invalid %s '%s': unknown suffix '%s' (binary K, M, G, T, P, E or "
			 "KiB...EiB; decimal kB, MB, GB, TB, PB, EB)", what, s, end);
		return false;
	}
	if (scale > 1 && v > UINT64_MAX / scale) {
		guac_err("invalid %s '%s': larger than 2^64-1", what, s);
		return false;
	}
	*out = (uint64_t)v * scale;
	return true;
}

int guac_impl_check(const char *s)
{
	int impl = guac_impl_parse(s);

	if (impl < 0) {
		guac_err("unknown implementation '%s' (this build has %s)", s, guac_impl_choices());
		return -1;
	}
	if (!guac_impl_usable(impl, guac_cpu_features())) {
		guac_err("implementation '%s' is not supported by this CPU", s);
		return -1;
	}
	return impl;
}

int guac_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

const char *guac_fmt_bytes(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
	return buf;
}

const char *guac_fmt_rate(char *buf, size_t size, double bytes_per_second)
{
	if (bytes_per_second >= 1e9)
		snprintf(buf, size, "%.2f GB/s", bytes_per_second / 1e9);
	else
		snprintf(buf, size, "%.1f MB/s", bytes_per_second / 1e6);
	return buf;
}

const char *guac_fmt_duration(char *buf, size_t size, double s)
{
	unsigned long t = (unsigned long)(s + 0.5);

	snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	return buf;
}

double guac_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *guac_try_alloc(size_t size)
{
	void *p = NULL;

	return posix_memalign(&p, 4096, size ? size : 1) ? NULL : p;
}

void *guac_alloc(size_t size)
{
	void *p = guac_try_alloc(size);

	if (!p) {
		guac_err("cannot allocate %zu bytes: %s", size, strerror(ENOMEM));
		exit(GUAC_EXIT_ERROR);
	}
	return p;
}

bool guac_buffers_fit(uint64_t threads, uint64_t block, uint64_t *need, uint64_t *mem)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	*need = block && threads > UINT64_MAX / 2 / block ? UINT64_MAX : threads * 2 * block;
	*mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
	return !*mem || *need <= *mem;
}

unsigned int guac_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

void guac_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

const char *guac_escape(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	char e[12];

	if (!size)
		return buf;
	for (; *p; p++) {
		if (*p == '\\')
			snprintf(e, sizeof(e), "\\\\");
		else if (*p == '\n')
			snprintf(e, sizeof(e), "\\n");
		else if (*p == '\t')
			snprintf(e, sizeof(e), "\\t");
		else if (*p == '\r')
			snprintf(e, sizeof(e), "\\r");
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(e, sizeof(e), "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)	/* U+0080-U+009F */
			snprintf(e, sizeof(e), "\\xc2\\x%02x", *++p);
		else
			snprintf(e, sizeof(e), "%c", *p);
		if (n + strlen(e) >= size)
			break;
		memcpy(buf + n, e, strlen(e));
		n += strlen(e);
	}
	buf[n] = '\0';
	return buf;
}

const char *guac_version(void)
{
	return GUAC_VERSION;
}

bool guac_want_version(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--version"))
			return true;
	}
	return false;
}

void guac_print_version(void)
{
	printf("%s %s (stream version %d)\n", guac_prog, GUAC_VERSION, GUAC_STREAM_VERSION);
}

const char *guac_spos_str(char *buf, size_t size, struct guac_spos p)
{
	__extension__ typedef unsigned __int128 u128;
	u128 v = (u128)p.block * 64 + p.byte;
	char digits[32];
	size_t n = 0, i;

	do {
		digits[n++] = (char)('0' + (unsigned int)(v % 10));
		v /= 10;
	} while (v);
	for (i = 0; i < n && i + 1 < size; i++)
		buf[i] = digits[n - 1 - i];
	if (size)
		buf[i] = 0;
	return buf;
}

void guac_spos_fill(int impl, uint8_t *buf, uint64_t origin, struct guac_spos p, size_t len)
{
	guac_fill((enum guac_impl)impl, buf, origin + p.block, p.byte, len);
}

void guac_stream_at(int impl, uint8_t *buf, uint64_t origin, uint64_t offset, uint64_t rel,
		    size_t len)
{
	guac_spos_fill(impl, buf, origin, guac_spos_add(guac_spos_of(offset), rel), len);
}
