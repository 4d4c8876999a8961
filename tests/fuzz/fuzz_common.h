/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the libFuzzer targets of tests/fuzz/ share (fuzz_common.c): a private
 * directory to work in, and the few points where a command's parse, plan or
 * run, called directly by an option target, would still touch a file named
 * by the input: cut off, so that a fuzzed command line never writes a file
 * outside that directory. Linked with -Wl,--wrap= for each wrapped function
 * (tests/fuzz/Makefile). The rest of the commands' I/O (gen's output,
 * bench's measurements, write's and verify's targets) lies past the steps
 * the targets call, and needs no wrapper; write's plan reads its target, so
 * fuzz_opts_write names it a stand-in here (fuzz_in_dir()).
 */
#ifndef GUAC_FUZZ_COMMON_H
#define GUAC_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The private directory (cwd of the target): $GUAC_FUZZ_DIR, or a fresh one removed at exit. */
extern char fuzz_dir[4096];

/* Set up once: the directory, a clean environment (no shard variables), quiet output. */
void fuzz_init(void);

/*
 * While true (the option targets), fopen() opens only files in fuzz_dir (and
 * /sys, /proc/cpuinfo) for reading (manifests, --expect lists; report's
 * --svg is refused), and guac_manifest_save() (manifest merge's OUT) writes
 * nothing.
 */
extern bool fuzz_no_io;

/*
 * Whether @path is a file in fuzz_dir (symbolic links followed); with
 * @missing_ok, a path that does not exist counts when its directory is
 * fuzz_dir or below it.
 */
bool fuzz_in_dir(const char *path, bool missing_ok);

/*
 * Run @cmd (a guac_cmd_*) on @argc/@argv as guac's main() would, its signal
 * handlers given back afterwards. Returns the exit status; the tool never
 * calls exit() on a command's path, so one is a crash of the target.
 */
int fuzz_run_cmd(int (*cmd)(int, char **), int argc, char **argv);

/* Split @data at NUL bytes into at most @max arguments after @argv0; returns argc. */
int fuzz_split_args(const uint8_t *data, size_t size, const char *argv0, char **argv, int max,
		    char *buf, size_t bufsize);

/* Write @data to a file named @name in fuzz_dir (replacing it); false on failure. */
bool fuzz_write_file(const char *name, const void *data, size_t size);

/* abort() with a message: an oracle failed (libFuzzer reports it as a crash). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
