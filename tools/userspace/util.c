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

bool guac_parse_u64(const char *what, const char *s, uint64_t *out)
{
	static const char suffixes[] = "KMGTPE";
	unsigned long long v;
	const char *p;
	char *end;
	int shift = 0;

	if (!*s || !isdigit((unsigned char)*s)) {
		guac_err("invalid %s '%s': expected a non-negative number", what, s);
		return false;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE) {
		guac_err("invalid %s '%s': larger than 2^64-1", what, s);
		return false;
	}
	if (*end) {
		p = strchr(suffixes, toupper((unsigned char)*end));
		if (!p) {
			guac_err("invalid %s '%s': unknown suffix '%s' (use K, M, G, T, P or E)",
				 what, s, end);
			return false;
		}
		shift = 10 * (int)(p - suffixes + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
		if (*end) {
			guac_err("invalid %s '%s': trailing characters '%s'", what, s, end);
			return false;
		}
		if (v > (~0ULL >> shift)) {
			guac_err("invalid %s '%s': larger than 2^64-1", what, s);
			return false;
		}
	}
	*out = (uint64_t)v << shift;
	return true;
}

int guac_parse_impl(const char *s)
{
	int impl = guac_impl_parse(s);

	if (impl < 0) {
		guac_err("unknown implementation '%s' (auto, generic, sse2, avx2, avx512)", s);
		exit(GUAC_EXIT_ERROR);
	}
	if (!guac_impl_usable(impl, guac_cpu_features())) {
		guac_err("implementation '%s' is not supported by this CPU", s);
		exit(GUAC_EXIT_ERROR);
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

double guac_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *guac_alloc(size_t size)
{
	void *p = NULL;
	int err = posix_memalign(&p, 4096, size ? size : 1);

	if (err) {
		guac_err("cannot allocate %zu bytes: %s", size, strerror(err));
		exit(GUAC_EXIT_ERROR);
	}
	return p;
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
