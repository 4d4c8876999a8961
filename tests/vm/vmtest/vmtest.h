/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac-vmtest: checks on /dev/guac that the shell cannot express. Each
 * subcommand checks one behaviour, reports every failure on stderr and exits
 * non-zero if there was any; the expected bytes always come from `guac gen`.
 */
#ifndef GUAC_VMTEST_H
#define GUAC_VMTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uapi/linux/guacrng.h>
#include "util.h"	/* tools/userspace/lib: guac_parse_u64, guac_alloc, guac_now */

#define GUAC_DEV "/dev/guac"
/* The largest position lseek() takes: the device's end of file, 2^63-64. */
#define GUAC_POS_MAX ((int64_t)GUAC_DEV_END)

/*
 * The fuzzers' reproducible generator (xorshift64*): thread @index of a run
 * seeded with @seed starts from vt_rand_seed(); never zero.
 */
static inline uint64_t vt_rand_seed(uint64_t seed, unsigned int index)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL * (index + 1);

	return x ? x : 1;
}

static inline uint64_t vt_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

/* Report a failed expectation (counted; the subcommand then fails). */
void vt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Failures reported so far (by any thread). */
unsigned int vt_failures(void);

/* Open /dev/guac (with @flags); exits with a message if that fails. */
int vt_open(int flags);
/* The file position of @fd, as lseek(SEEK_CUR) reports it. */
int64_t vt_pos(int fd);
/*
 * Whether sendfile() takes a character device as input on kernel @release
 * (uname -r's form; NULL: the running kernel): from 5.19 on (async.c).
 */
bool vt_sendfile_takes_chardev(const char *release);

/*
 * The reference: `guac gen --origin ORIGIN --offset OFFSET --length LEN`,
 * read as a stream so that long comparisons need no big buffers.
 */
struct vt_ref {
	FILE *pipe;
	uint64_t origin, offset, len;
};
bool vt_ref_open(struct vt_ref *ref, uint64_t origin, uint64_t offset, uint64_t len);
/* Compare the next @len bytes of the reference with @got; false on mismatch. */
bool vt_ref_compare(struct vt_ref *ref, const void *got, size_t len, const char *what);
/* Close; false if guac gen failed or did not produce exactly LEN bytes. */
bool vt_ref_close(struct vt_ref *ref);

/* @got must be the @len stream bytes at (@origin, @offset); reports and returns false if not. */
bool vt_check_bytes(const char *what, uint64_t origin, uint64_t offset,
		    const void *got, size_t len);

/* Subcommands: each returns the process exit status. */
int vt_cmd_pread(int argc, char **argv);
int vt_cmd_log_replay(int argc, char **argv);
int vt_cmd_preadv(int argc, char **argv);
int vt_cmd_seek_cur(int argc, char **argv);
int vt_cmd_eof(int argc, char **argv);
int vt_cmd_splice(int argc, char **argv);
int vt_cmd_bad_seek(int argc, char **argv);
int vt_cmd_write(int argc, char **argv);
int vt_cmd_ioctl(int argc, char **argv);
int vt_cmd_origin(int argc, char **argv);
int vt_cmd_info(int argc, char **argv);
int vt_cmd_tail_fault(int argc, char **argv);
int vt_cmd_signal(int argc, char **argv);
int vt_cmd_concurrent(int argc, char **argv);
int vt_cmd_bench(int argc, char **argv);
int vt_cmd_fork_race(int argc, char **argv);
int vt_cmd_mmap_shared(int argc, char **argv);
int vt_cmd_shared_fd(int argc, char **argv);
int vt_cmd_open_write(int argc, char **argv);
int vt_cmd_load_unseen(int argc, char **argv);
int vt_cmd_uring_order(int argc, char **argv);
int vt_cmd_nowait(int argc, char **argv);
int vt_cmd_edges(int argc, char **argv);
int vt_cmd_sysfuzz(int argc, char **argv);
int vt_cmd_sysfuzz_shared(int argc, char **argv);
int vt_cmd_hwrng_fuzz(int argc, char **argv);
/* Debug kernel only (scripts/kernel/run-debug.sh). */
int vt_cmd_usercopy_fault(int argc, char **argv);
int vt_cmd_stress(int argc, char **argv);

#endif /* GUAC_VMTEST_H */
