// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An LD_PRELOAD shim for the shell suites: tmpfile() fails (EMFILE) from
 * its TMPFILE_FAIL_AT-th call on (1: every call), so that a suite can make
 * guac verify lose its bad-list temporary files mid-run and check what it
 * saved. Without TMPFILE_FAIL_AT every call goes through. Built with
 * cc -shared -fPIC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long calls;

FILE *tmpfile(void)
{
	FILE *(*real)(void) = (FILE *(*)(void))dlsym(RTLD_NEXT, "tmpfile");
	const char *at = getenv("TMPFILE_FAIL_AT");

	if (at && atomic_fetch_add(&calls, 1) + 1 >= atol(at)) {
		errno = EMFILE;
		return NULL;
	}
	return real();
}
FILE *tmpfile64(void) __attribute__((alias("tmpfile")));
