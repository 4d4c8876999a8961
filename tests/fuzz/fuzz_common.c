// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Shared by the libFuzzer targets (fuzz_common.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "manifest.h"
#include "util.h"

char fuzz_dir[4096];
bool fuzz_no_io;

static bool fuzz_own_dir;

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FUZZ ORACLE FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static int fuzz_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void fuzz_cleanup(void)
{
	if (fuzz_own_dir && fuzz_dir[0]) {
		if (chdir("/") == 0)
			nftw(fuzz_dir, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
	}
}

void fuzz_init(void)
{
	static const char *const vars[] = {
		"JOB_COMPLETION_INDEX", "GUAC_SHARDS", "SLURM_ARRAY_TASK_ID",
		"SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
	};
	const char *dir = getenv("GUAC_FUZZ_DIR");
	size_t i;

	if (fuzz_dir[0])
		return;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	if (dir && *dir) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s", dir);
		if (mkdir(fuzz_dir, 0700) && errno != EEXIST) {
			perror(fuzz_dir);
			abort();
		}
	} else {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/guac-fuzz.XXXXXX");
		if (!mkdtemp(fuzz_dir)) {
			perror("mkdtemp");
			abort();
		}
		fuzz_own_dir = true;
		atexit(fuzz_cleanup);
	}
	if (chdir(fuzz_dir)) {
		perror(fuzz_dir);
		abort();
	}
}

/*
 * The signals the commands take over (Ctrl-C and SIGTERM stop a fill cleanly,
 * a closed pipe is an error): given back to libFuzzer after each call, so that
 * its own SIGINT and SIGTERM handling (and a kill of the run) still work.
 */
static const int fuzz_signals[] = { SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGXFSZ };

int fuzz_run_cmd(int (*cmd)(int, char **), int argc, char **argv)
{
	struct sigaction saved[sizeof(fuzz_signals) / sizeof(fuzz_signals[0])];
	int ret;
	size_t i;

	for (i = 0; i < sizeof(fuzz_signals) / sizeof(fuzz_signals[0]); i++)
		sigaction(fuzz_signals[i], NULL, &saved[i]);

	fflush(stdout);
	ret = cmd(argc, argv);	/* the tool returns its status: an exit() is a crash here */
	fflush(stdout);
	for (i = 0; i < sizeof(fuzz_signals) / sizeof(fuzz_signals[0]); i++)
		sigaction(fuzz_signals[i], &saved[i], NULL);
	return ret;
}

int fuzz_split_args(const uint8_t *data, size_t size, const char *argv0, char **argv, int max,
		    char *buf, size_t bufsize)
{
	int argc = 1;
	size_t i, n = size < bufsize - 1 ? size : bufsize - 1;

	argv[0] = (char *)argv0;
	if (!n) {
		argv[1] = NULL;
		return 1;
	}
	memcpy(buf, data, n);
	buf[n] = 0;
	argv[argc++] = buf;
	for (i = 0; i < n && argc < max; i++) {
		if (!buf[i] && i + 1 <= n)
			argv[argc++] = buf + i + 1;
	}
	/* A trailing NUL makes no empty last argument. */
	if (argc > 1 && !*argv[argc - 1] && argv[argc - 1] == buf + n)
		argc--;
	argv[argc] = NULL;
	return argc;
}

bool fuzz_write_file(const char *name, const void *data, size_t size)
{
	FILE *f;
	bool ok;

	/* Not fopen(): the wrapped one may refuse, and this is the harness's own file. */
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return false;
	}
	ok = fwrite(data, 1, size, f) == size;
	return !fclose(f) && ok;
}

/*
 * Only files in the private directory, sysfs and /proc/cpuinfo, for reading:
 * the option targets read the files their arguments name (manifest show and
 * merge's parts, report's manifests and --expect list, verify's and write's
 * -m), and report writes its --svg picture with fopen().
 */
bool fuzz_in_dir(const char *path, bool missing_ok)
{
	char real[PATH_MAX], dir[PATH_MAX], *slash;
	size_t n = strlen(fuzz_dir);

	if (!realpath(path, real)) {
		if (errno != ENOENT || !missing_ok || strlen(path) >= sizeof(dir))
			return false;
		/* A file to be created: where its directory is. */
		strcpy(dir, path);
		slash = strrchr(dir, '/');
		if (slash == dir)
			return false;
		if (slash)
			*slash = '\0';
		if (!realpath(slash ? dir : ".", real))
			return false;
		return !strncmp(real, fuzz_dir, n) && (real[n] == '/' || !real[n]);
	}
	return !strncmp(real, fuzz_dir, n) && real[n] == '/';
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode)
{
	if (!fuzz_no_io)
		return __real_fopen(path, mode);
	if (strcmp(mode, "r")) {
		errno = EROFS;
		return NULL;
	}
	if (!strncmp(path, "/sys/", 5) || !strcmp(path, "/proc/cpuinfo"))
		return __real_fopen(path, mode);
	if (!fuzz_in_dir(path, false)) {
		errno = EACCES;
		return NULL;
	}
	return __real_fopen(path, mode);
}

/* guac manifest merge's OUT (fuzz_opts_manifest runs the merge) is named by the input. */
bool __real_guac_manifest_save(const char *path, const struct guac_manifest *m);
bool __wrap_guac_manifest_save(const char *path, const struct guac_manifest *m);
bool __wrap_guac_manifest_save(const char *path, const struct guac_manifest *m)
{
	if (!fuzz_no_io)
		return __real_guac_manifest_save(path, m);
	return true;
}
