// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify from the outside: files written with the shared core, then
 * corrupted, cut short or fed through pipes, checked through the binary
 * ($GUAC) and its --json summary: exact merged ranges, totals, the first
 * differing byte, short data, --offset, --origin, stdin, exit codes, and
 * memory that stays bounded while gigabytes go through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "libguac.h"

#define TEST_CHUNK (256 << 10)	/* verify's per-thread read size: ranges must merge across it */
#define TEST_MEM_LIMIT (256ULL << 20)	/* address space for the bounded-memory runs */

static const char *test_guac;
static char test_dir[] = "/tmp/guac-verify-test.XXXXXX";

struct test_run {
	int status;		/* exit code, or -1 if killed by a signal */
	char out[1 << 19];	/* standard output: up to 1000 diagnosed sectors in JSON */
	long maxrss_kb;
};

struct test_input {
	const char *file;		/* stdin redirected from this file, or */
	const char *const *feeder;	/* stdin a pipe from this command */
	rlim_t as_limit;		/* RLIMIT_AS for guac, 0 for none */
};

static char *test_path(const char *name)
{
	static char paths[8][256];
	static unsigned int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", test_dir, name);
	return p;
}

/* Write @len stream bytes starting at byte @offset as seen from block @origin. */
static void test_write_stream(const char *path, u64 origin, u64 offset, size_t len)
{
	u8 *buf = malloc(len ? len : 1);
	FILE *f = fopen(path, "wb");

	assert_non_null(buf);
	assert_non_null(f);
	guac_stream_fill(guac_impl_best(), buf, origin, offset, len);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

/* Flip every bit of @n bytes at @pos. */
static void test_corrupt(const char *path, off_t pos, size_t n)
{
	int fd = open(path, O_RDWR);
	u8 b;

	assert_true(fd >= 0);
	for (; n; n--, pos++) {
		assert_int_equal(pread(fd, &b, 1, pos), 1);
		b = (u8)~b;
		assert_int_equal(pwrite(fd, &b, 1, pos), 1);
	}
	close(fd);
}

/* Run guac with @args (NULL-terminated, without argv[0]). */
static void test_run_guac(struct test_run *r, const struct test_input *in, const char *const *args)
{
	const char *argv[32] = { test_guac };
	int outp[2], feedp[2] = { -1, -1 };
	pid_t feeder = -1, pid;
	struct rusage ru;
	size_t len = 0, i;
	ssize_t n;

	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	assert_int_equal(pipe(outp), 0);
	if (in && in->feeder) {
		assert_int_equal(pipe(feedp), 0);
		feeder = fork();
		assert_true(feeder >= 0);
		if (!feeder) {
			dup2(feedp[1], STDOUT_FILENO);
			close(feedp[0]);
			close(feedp[1]);
			close(outp[0]);
			close(outp[1]);
			execv(in->feeder[0], (char *const *)in->feeder);
			_exit(127);
		}
		close(feedp[1]);
	}
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (in && in->file) {
			int fd = open(in->file, O_RDONLY);

			if (fd < 0)
				_exit(126);
			dup2(fd, STDIN_FILENO);
		} else if (feedp[0] >= 0) {
			dup2(feedp[0], STDIN_FILENO);
		}
		if (in && in->as_limit) {
			struct rlimit rl = { in->as_limit, in->as_limit };

			setrlimit(RLIMIT_AS, &rl);
		}
		dup2(outp[1], STDOUT_FILENO);
		close(outp[0]);
		close(outp[1]);
		execv(test_guac, (char *const *)argv);
		_exit(127);
	}
	if (feedp[0] >= 0)
		close(feedp[0]);
	close(outp[1]);
	while ((n = read(outp[0], r->out + len, sizeof(r->out) - 1 - len)) > 0)
		len += (size_t)n;
	r->out[len] = 0;
	close(outp[0]);
	assert_int_equal(wait4(pid, &r->status, 0, &ru), pid);
	r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	r->maxrss_kb = ru.ru_maxrss;
	if (feeder > 0)
		waitpid(feeder, NULL, 0);
}

/* The number after "key": in the JSON summary; fails the test if absent. */
static uint64_t test_json_u64(const struct test_run *r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(r->out, pat);
	if (!p)
		fail_msg("no %s in: %s", key, r->out);
	return strtoull(p + strlen(pat), NULL, 10);
}

static void test_json_has(const struct test_run *r, const char *text)
{
	if (!strstr(r->out, text))
		fail_msg("expected %s in: %s", text, r->out);
}

static void test_ok_whole_file(void **state)
{
	const char *f = test_path("ok");
	struct test_run r;

	(void)state;
	/* Not a multiple of the chunk, the sector or the block size. */
	test_write_stream(f, 0, 0, 3 * TEST_CHUNK + 1000);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", f, NULL });
	assert_int_equal(r.status, 0);
	test_json_has(&r, "\"result\":\"ok\"");
	assert_int_equal(test_json_u64(&r, "bytes_checked"), 3 * TEST_CHUNK + 1000);
	assert_int_equal(test_json_u64(&r, "bad_ranges"), 0);
	test_json_has(&r, "\"first_mismatch\":null");

	test_run_guac(&r, NULL, (const char *[]){ "verify", f, NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "OK: 787432 bytes"));
}

/*
 * Sectors 9, 11 and 12, and 511 and 512 on both sides of a chunk boundary:
 * three ranges, the last two merged, whatever the thread count.
 */
static void test_corrupted_sectors(void **state)
{
	static const char *const jobs[] = { "1", "2", "7" };
	const char *f = test_path("corrupt");
	struct test_run r;
	u8 expected;
	char want[128];
	size_t i;

	(void)state;
	test_write_stream(f, 0, 0, 2 * TEST_CHUNK);
	guac_stream_fill(guac_impl_best(), &expected, 0, 5000, 1);
	test_corrupt(f, 5000, 3);		/* sector 9 */
	test_corrupt(f, 5700, 1);		/* sector 11 */
	test_corrupt(f, 6200, 2);		/* sector 12 */
	test_corrupt(f, TEST_CHUNK - 1, 2);	/* sectors 511 and 512 */
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", "--jobs", jobs[i], f, NULL });
		assert_int_equal(r.status, 1);
		test_json_has(&r, "\"result\":\"mismatch\"");
		test_json_has(&r, "\"ranges\":[{\"start\":4608,\"length\":512},"
				  "{\"start\":5632,\"length\":1024},"
				  "{\"start\":261632,\"length\":1024}]");
		assert_int_equal(test_json_u64(&r, "bad_sectors"), 5);
		assert_int_equal(test_json_u64(&r, "bad_bytes"), 8);
		assert_int_equal(test_json_u64(&r, "bad_ranges"), 3);
		snprintf(want, sizeof(want), "\"first_mismatch\":{\"byte\":5000,\"expected\":%u,\"actual\":%u}",
			 expected, (u8)~expected);
		test_json_has(&r, want);
		assert_int_equal(test_json_u64(&r, "bytes_checked"), 2 * TEST_CHUNK);
	}

	/* 4096-byte sectors: 5000..6201 is sector 1; 262143 and 262144 sectors 63 and 64. */
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", "--sector", "4096", f, NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"ranges\":[{\"start\":4096,\"length\":4096},"
			  "{\"start\":258048,\"length\":8192}]");
	assert_int_equal(test_json_u64(&r, "bad_sectors"), 3);

	/* The text report says the same. */
	test_run_guac(&r, NULL, (const char *[]){ "verify", f, NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "MISMATCH: 5 bad 512-byte sectors in 3 ranges, 8 bytes differ"));
	assert_non_null(strstr(r.out, "bytes 5632-6655 (1024 bytes, sectors 11-12)"));
	assert_non_null(strstr(r.out, "first difference at byte 5000"));
}

/* Thousands of ranges: the first 20 listed, the totals exact. */
static void test_range_list_capped(void **state)
{
	const char *f = test_path("many");
	struct test_run r;
	off_t s;

	(void)state;
	test_write_stream(f, 0, 0, 4 * TEST_CHUNK);
	for (s = 0; s < 4 * TEST_CHUNK / 512; s += 2)	/* every other sector */
		test_corrupt(f, s * 512 + 7, 1);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", f, NULL });
	assert_int_equal(r.status, 1);
	assert_int_equal(test_json_u64(&r, "bad_ranges"), 4 * TEST_CHUNK / 1024);
	assert_int_equal(test_json_u64(&r, "bad_sectors"), 4 * TEST_CHUNK / 1024);
	assert_int_equal(test_json_u64(&r, "bad_bytes"), 4 * TEST_CHUNK / 1024);
	test_json_has(&r, "{\"start\":19456,\"length\":512}]");	/* 20th range, the last listed */

	test_run_guac(&r, NULL, (const char *[]){ "verify", f, NULL });
	assert_non_null(strstr(r.out, "... and 1004 more ranges"));
}

static void test_short_file(void **state)
{
	const char *f = test_path("short");
	struct test_run r;

	(void)state;
	test_write_stream(f, 0, 0, 1000);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", "--length", "1M", f, NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"short\":true");
	assert_int_equal(test_json_u64(&r, "bytes_checked"), 1000);
	assert_int_equal(test_json_u64(&r, "bad_ranges"), 0);

	test_run_guac(&r, NULL, (const char *[]){ "verify", "--length", "1M", f, NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "SHORT: the data ends at byte 1000, 1047576 bytes before"));

	/* A shorter --length checks only that much. */
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", "--length", "999", f, NULL });
	assert_int_equal(r.status, 0);
	assert_int_equal(test_json_u64(&r, "bytes_checked"), 999);
}

static void test_offset_and_origin(void **state)
{
	const char *f = test_path("offset"), *g = test_path("origin");
	struct test_run r;

	(void)state;
	test_write_stream(f, 0, 12345, 100000);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--offset", "12345", f, NULL });
	assert_int_equal(r.status, 0);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--offset", "12346", f, NULL });
	assert_int_equal(r.status, 1);
	test_run_guac(&r, NULL, (const char *[]){ "verify", f, NULL });
	assert_int_equal(r.status, 1);

	/* Across the wrap: the last block of the stream, then block 0. */
	test_write_stream(g, 0xffffffffffffffffULL, 32, 4096);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--origin", "0xffffffffffffffff",
						  "--offset", "32", g, NULL });
	assert_int_equal(r.status, 0);
	/* The same position as block 2^64-2 plus 96 bytes. */
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--origin", "0xfffffffffffffffe",
						  "--offset", "96", g, NULL });
	assert_int_equal(r.status, 0);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--origin", "0xfffffffffffffffe",
						  "--offset", "32", g, NULL });
	assert_int_equal(r.status, 1);
}

#define TEST_STDIN_LENGTH "786432"	/* 3 * TEST_CHUNK */

static void test_stdin(void **state)
{
	const char *f = test_path("stdin");
	const char *const cat[] = { "/bin/cat", f, NULL };
	struct test_input pipe_in = { .feeder = cat }, file_in = { .file = f };
	struct test_run r;

	(void)state;
	test_write_stream(f, 0, 777, 3 * TEST_CHUNK);
	/* A pipe must say how much it holds: one that ended early would pass. */
	test_run_guac(&r, &pipe_in, (const char *[]){ "verify", "--offset", "777", "-", NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, &pipe_in, (const char *[]){ "verify", "--offset", "777", "--length",
						      TEST_STDIN_LENGTH, "-", NULL });
	assert_int_equal(r.status, 0);
	test_run_guac(&r, &file_in, (const char *[]){ "verify", "--offset", "777", "-", NULL });
	assert_int_equal(r.status, 0);

	test_corrupt(f, TEST_CHUNK + 512, 600);	/* sectors 513 and 514 */
	test_run_guac(&r, &pipe_in, (const char *[]){ "verify", "--json", "--offset", "777",
						      "--length", TEST_STDIN_LENGTH, "-", NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"ranges\":[{\"start\":262656,\"length\":1024}]");
	assert_int_equal(test_json_u64(&r, "bad_bytes"), 600);
	assert_int_equal(test_json_u64(&r, "length"), 3 * TEST_CHUNK);

	/* A pipe that ends before --length is short. */
	test_run_guac(&r, &pipe_in, (const char *[]){ "verify", "--json", "--offset", "777",
						      "--length", "1G", "-", NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"short\":true");
	assert_int_equal(test_json_u64(&r, "bytes_checked"), 3 * TEST_CHUNK);
}

static void test_usage_errors(void **state)
{
	const char *f = test_path("usage");
	struct test_run r;

	(void)state;
	test_write_stream(f, 0, 0, 4096);
	test_run_guac(&r, NULL, (const char *[]){ "verify", test_path("missing"), NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", f, f, NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", test_dir, NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--sector", "1024", f, NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--jobs", "0", f, NULL });
	assert_int_equal(r.status, 2);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--length", "12Q", f, NULL });
	assert_int_equal(r.status, 2);
	/* An empty file is no proof of anything, unless zero bytes were asked for. */
	test_write_stream(f, 0, 0, 0);
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", f, NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"result\":\"empty\"");
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--length", "0", f, NULL });
	assert_int_equal(r.status, 0);

	/* Reading a process's memory at address 0 fails with EIO: an I/O error. */
	test_run_guac(&r, NULL, (const char *[]){ "verify", "--json", "--length", "4K",
						  "/proc/self/mem", NULL });
	assert_int_equal(r.status, 3);	/* the target's I/O failed (issue 36, U7) */
	test_json_has(&r, "\"result\":\"error\"");
	test_json_has(&r, "\"error\":\"Input/output error\"");
	/* Retried sector by sector: all eight unreadable, listed apart from mismatches. */
	assert_int_equal(test_json_u64(&r, "unreadable_sectors"), 8);
	test_json_has(&r, "\"unreadable\":[{\"start\":0,\"length\":4096}]");
	assert_int_equal(test_json_u64(&r, "bad_sectors"), 0);

	test_run_guac(&r, NULL, (const char *[]){ "verify", "--help", NULL });
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "Exit status"));
}

/*
 * Under an emulator (GUAC_TEST_EMULATED: make check-user-arm64 runs guac
 * under qemu-aarch64) both bounds measure the emulator: its RSS holds its
 * translated code (16-22 MiB), and its reservations meet the address-space
 * limit first (an emulated run under it failed to start now and then). The
 * bounded-memory tests are then skipped.
 */
static void test_skip_if_emulated(void)
{
	if (getenv("GUAC_TEST_EMULATED")) {
		print_message("[   INFO   ] emulated: the memory bounds would be the emulator's\n");
		skip();
	}
}

/* 1 GiB through a pipe, under an address-space limit far below it. */
static void test_bounded_memory_pipe(void **state)
{
	const char *const gen[] = { test_guac, "gen", "--offset", "5", "--length", "1G", NULL };
	struct test_input in = { .feeder = gen, .as_limit = TEST_MEM_LIMIT };
	struct test_run r;

	(void)state;
	test_skip_if_emulated();
	test_run_guac(&r, &in, (const char *[]){ "verify", "--json", "--offset", "5", "--length", "1G",
						 "-", NULL });
	assert_int_equal(r.status, 0);
	assert_int_equal(test_json_u64(&r, "bytes_checked"), 1ULL << 30);
	print_message("[   INFO   ] 1 GiB pipe verified with max RSS %ld KiB\n", r.maxrss_kb);
	assert_true(r.maxrss_kb < 16 * 1024);
}

/* A 2 GiB sparse file (all zeros, all wrong) on every thread, same limit. */
static void test_bounded_memory_sparse(void **state)
{
	const char *f = test_path("sparse");
	struct test_input in = { .as_limit = TEST_MEM_LIMIT };
	struct test_run r;
	int fd;

	(void)state;
	test_skip_if_emulated();
	fd = open(f, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 2LL << 30), 0);
	close(fd);
	test_run_guac(&r, &in, (const char *[]){ "verify", "--json", "--jobs", "4", f, NULL });
	assert_int_equal(r.status, 1);
	test_json_has(&r, "\"ranges\":[{\"start\":0,\"length\":2147483648}]");
	assert_int_equal(test_json_u64(&r, "bad_sectors"), (2ULL << 30) / 512);
	assert_int_equal(test_json_u64(&r, "bad_ranges"), 1);
	print_message("[   INFO   ] 2 GiB sparse file verified with max RSS %ld KiB\n", r.maxrss_kb);
	assert_true(r.maxrss_kb < 16 * 1024);
	unlink(f);
}

static int test_setup(void **state)
{
	(void)state;
	test_guac = getenv("GUAC") ? getenv("GUAC") : "build/userspace/guac";
	if (access(test_guac, X_OK)) {
		fprintf(stderr, "no guac binary at %s (set GUAC)\n", test_guac);
		return -1;
	}
	return mkdtemp(test_dir) ? 0 : -1;
}

static int test_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok_whole_file),
		cmocka_unit_test(test_corrupted_sectors),
		cmocka_unit_test(test_range_list_capped),
		cmocka_unit_test(test_short_file),
		cmocka_unit_test(test_offset_and_origin),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_bounded_memory_pipe),
		cmocka_unit_test(test_bounded_memory_sparse),
	};

	return cmocka_run_group_tests_name("verify", tests, test_setup, test_teardown);
}
