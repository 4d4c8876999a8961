// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites: every clock_nanosleep wakes
 * SLEEP_LATE_NS nanoseconds (default 20 ms) after it was asked to, as a
 * loaded machine's timers do, only more so. guac's rate limit sleeps with
 * clock_nanosleep; with this shim a limit that lost each late wake-up's
 * time would fall far below the rate asked for (test_write_rate.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
	static int (*real)(clockid_t, int, const struct timespec *, struct timespec *);
	const char *ns = getenv("SLEEP_LATE_NS");
	long long t = ns ? atoll(ns) : 20000000;
	struct timespec late = { (time_t)(t / 1000000000), (long)(t % 1000000000) };
	int ret;

	if (!real)
		real = (int (*)(clockid_t, int, const struct timespec *, struct timespec *))
			dlsym(RTLD_NEXT, "clock_nanosleep");
	ret = real(clock, flags, req, rem);
	if (!ret)
		nanosleep(&late, NULL);
	return ret;
}
