// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The one "is this the same fill?" rule (manifest.h: guac_fill_same,
 * guac_manifest_same_fill) and the fill status words. Each field the rule
 * compares is changed alone and must be named, with both values; each
 * field a flag adds must be ignored without the flag: a comparison dropped
 * or added fails here.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "manifest.h"

/* A block device named by its serial and WWN, shard 1 of 4. */
static void block_key(struct guac_fill_key *k)
{
	*k = (struct guac_fill_key){
		.origin = 7, .stream_offset = 4096, .device_offset = 1 << 20, .length = 1 << 30,
		.block_size = 1 << 20, .target_size = 1ull << 34, .sector_size = 512,
		.shard_index = 1, .shard_count = 4, .is_file = false, .direct = true,
		.target_path = "/dev/sdb", .serial = "S1", .wwid = "W1",
		.identity = "block serial=S1 wwid=W1 model=M size=17179869184",
	};
}

/* A file on a local file system, written under kernel K1. */
static void file_key(struct guac_fill_key *k)
{
	block_key(k);
	k->is_file = true;
	k->target_path = "/data/fill.img";
	k->identity = "file host=h kernel=K1 fstype=ext4 fsid=1 dev=2 ino=3";
	strcpy(k->machine, "K1");
}

/* @b differs from @a as @flags see it in @field, with numbers @na, @nb. */
static void expect_num(const struct guac_fill_key *a, const struct guac_fill_key *b,
		       unsigned int flags, enum guac_fill_field field, uint64_t na, uint64_t nb)
{
	struct guac_fill_diff d;

	assert_false(guac_fill_same(a, b, flags, &d));
	assert_int_equal(d.field, field);
	assert_int_equal(d.a, na);
	assert_int_equal(d.b, nb);
}

static void expect_str(const struct guac_fill_key *a, const struct guac_fill_key *b,
		       unsigned int flags, enum guac_fill_field field, const char *sa, const char *sb)
{
	struct guac_fill_diff d;

	assert_false(guac_fill_same(a, b, flags, &d));
	assert_int_equal(d.field, field);
	assert_string_equal(d.sa, sa);
	assert_string_equal(d.sb, sb);
}

static void expect_same(const struct guac_fill_key *a, const struct guac_fill_key *b,
			unsigned int flags)
{
	struct guac_fill_diff d;

	assert_true(guac_fill_same(a, b, flags, &d));
	assert_int_equal(d.field, GUAC_FILL_SAME);
}

static void test_same(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	expect_same(&a, &b, GUAC_FILL_MERGE | GUAC_FILL_SAME_PART | GUAC_FILL_SAME_PATH |
		    GUAC_FILL_SAME_IO_MODE);
	assert_true(guac_fill_same(&a, &b, 0, NULL));
}

/* The workload (a random pattern's seed and passes) is part of the fill: every rule compares it. */
static void test_workload(void **state)
{
	static const unsigned int rules[] = { 0, GUAC_FILL_MERGE, GUAC_FILL_RESUME };
	struct guac_fill_key a, b;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		block_key(&a);
		a.random = true;
		a.seed = 42;
		a.passes = 3;
		b = a;
		expect_same(&a, &b, rules[i]);
		b.random = false;
		expect_num(&a, &b, rules[i], GUAC_FILL_PATTERN, 1, 0);
		b = a;
		b.seed = 43;
		expect_num(&a, &b, rules[i], GUAC_FILL_SEED, 42, 43);
		b = a;
		b.passes = 2;
		expect_num(&a, &b, rules[i], GUAC_FILL_PASSES, 3, 2);
	}
}

/* The place of the fill: every rule compares it. */
static void test_place(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.origin = 8;
	expect_num(&a, &b, 0, GUAC_FILL_ORIGIN, 7, 8);
	block_key(&b);
	b.stream_offset = 0;
	expect_num(&a, &b, 0, GUAC_FILL_STREAM_OFFSET, 4096, 0);
	block_key(&b);
	b.device_offset = 0;
	expect_num(&a, &b, 0, GUAC_FILL_DEVICE_OFFSET, 1 << 20, 0);
	block_key(&b);
	b.length = 1;
	expect_num(&a, &b, 0, GUAC_FILL_LENGTH, 1 << 30, 1);
	block_key(&b);
	b.is_file = true;
	expect_num(&a, &b, 0, GUAC_FILL_TARGET_TYPE, 0, 1);
	block_key(&b);
	b.shard_count = 2;
	expect_num(&a, &b, 0, GUAC_FILL_SHARD_COUNT, 4, 2);
}

/* Sector and block size with GUAC_FILL_SAME_LAYOUT only. */
static void test_layout(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.sector_size = 4096;
	expect_same(&a, &b, 0);
	expect_num(&a, &b, GUAC_FILL_SAME_LAYOUT, GUAC_FILL_SECTOR_SIZE, 512, 4096);
	block_key(&b);
	b.block_size = 4096;
	expect_same(&a, &b, 0);
	expect_num(&a, &b, GUAC_FILL_SAME_LAYOUT, GUAC_FILL_BLOCK_SIZE, 1 << 20, 4096);
}

/* A device's size with GUAC_FILL_SAME_SIZE; a file's never (it grows as parts land). */
static void test_size(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.target_size = 1 << 30;
	expect_same(&a, &b, 0);
	expect_num(&a, &b, GUAC_FILL_SAME_SIZE, GUAC_FILL_TARGET_SIZE, 1ull << 34, 1 << 30);
	file_key(&a);
	file_key(&b);
	b.target_size = 1 << 30;
	expect_same(&a, &b, GUAC_FILL_SAME_SIZE);
}

/* A device by its serial and WWN; a file's disk only with GUAC_FILL_SAME_DISK. */
static void test_names(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.serial = "S2";
	expect_str(&a, &b, 0, GUAC_FILL_SERIAL, "S1", "S2");
	block_key(&b);
	b.wwid = "W2";
	expect_str(&a, &b, 0, GUAC_FILL_WWID, "W1", "W2");
	/* Named by serial: its path may change (another host's name for it). */
	block_key(&b);
	b.target_path = "/dev/sdc";
	expect_same(&a, &b, 0);
	expect_str(&a, &b, GUAC_FILL_SAME_PATH, GUAC_FILL_TARGET_PATH, "/dev/sdb", "/dev/sdc");
	/* A file: its path; its disk with the flag. */
	file_key(&a);
	file_key(&b);
	b.target_path = "/data/other.img";
	expect_str(&a, &b, 0, GUAC_FILL_TARGET_PATH, "/data/fill.img", "/data/other.img");
	file_key(&b);
	b.serial = "S2";
	expect_same(&a, &b, 0);
	expect_str(&a, &b, GUAC_FILL_SAME_DISK, GUAC_FILL_SERIAL, "S1", "S2");
	/* A device with neither serial nor WWN: its path. */
	block_key(&a);
	block_key(&b);
	a.serial = a.wwid = b.serial = b.wwid = "";
	b.target_path = "/dev/loop1";
	expect_str(&a, &b, 0, GUAC_FILL_TARGET_PATH, "/dev/sdb", "/dev/loop1");
}

/* The shard index with GUAC_FILL_SAME_PART; the I/O mode with GUAC_FILL_SAME_IO_MODE. */
static void test_part_and_mode(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.shard_index = 3;
	expect_same(&a, &b, 0);
	expect_num(&a, &b, GUAC_FILL_SAME_PART, GUAC_FILL_SHARD_INDEX, 1, 3);
	block_key(&b);
	b.direct = false;
	expect_same(&a, &b, GUAC_FILL_MERGE);
	expect_num(&a, &b, GUAC_FILL_SAME_IO_MODE, GUAC_FILL_IO_MODE, 1, 0);
}

/* The machine of a one-machine target, when both know it, unless the whole identity is asked. */
static void test_machine(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	file_key(&a);
	file_key(&b);
	strcpy(b.machine, "K2");
	b.identity = "";
	expect_str(&a, &b, 0, GUAC_FILL_MACHINE, "K1", "K2");
	expect_same(&a, &b, GUAC_FILL_SAME_IDENTITY);
	b.machine[0] = '\0';
	expect_same(&a, &b, 0);
}

/* The whole identity with GUAC_FILL_SAME_IDENTITY, when both record one. */
static void test_identity(void **state)
{
	struct guac_fill_key a, b;
	struct guac_fill_diff d;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.identity = "block serial=S1 wwid=W1 model=M size=1";
	expect_same(&a, &b, 0);
	assert_false(guac_fill_same(&a, &b, GUAC_FILL_SAME_IDENTITY, &d));
	assert_int_equal(d.field, GUAC_FILL_IDENTITY);
	assert_non_null(strstr(d.why, "size"));
	assert_string_equal(d.sb, b.identity);
	b.identity = "";
	expect_same(&a, &b, GUAC_FILL_SAME_IDENTITY);
}

/* The callers' rules: merge joins parts of a fill; a resume continues one part, one way. */
static void test_rules(void **state)
{
	struct guac_fill_key a, b;

	(void)state;
	block_key(&a);
	block_key(&b);
	b.shard_index = 2;
	b.target_path = "/dev/sdc";
	b.direct = false;
	expect_same(&a, &b, GUAC_FILL_MERGE);
	expect_num(&a, &b, GUAC_FILL_RESUME, GUAC_FILL_SHARD_INDEX, 1, 2);
	b.shard_index = 1;
	expect_str(&a, &b, GUAC_FILL_RESUME, GUAC_FILL_TARGET_PATH, "/dev/sdb", "/dev/sdc");
	b.target_path = "/dev/sdb";
	expect_num(&a, &b, GUAC_FILL_RESUME, GUAC_FILL_IO_MODE, 1, 0);
	b.direct = true;
	b.block_size = 4096;
	expect_num(&a, &b, GUAC_FILL_RESUME, GUAC_FILL_BLOCK_SIZE, 1 << 20, 4096);
	expect_num(&a, &b, GUAC_FILL_MERGE, GUAC_FILL_BLOCK_SIZE, 1 << 20, 4096);
	expect_same(&a, &b, 0);
}

/* From manifests: the key takes each field, and the machine from the identity. */
static void test_manifests(void **state)
{
	static struct guac_manifest a, b;
	struct guac_fill_key k;
	struct guac_fill_diff d;

	(void)state;
	a.origin = 3;
	a.block_size = 1 << 20;
	a.sector_size = 512;
	a.shard_count = 2;
	strcpy(a.target_type, "file");
	strcpy(a.target_path, "/data/f");
	strcpy(a.identity, "file host=h kernel=K9 fstype=ext4 fsid=1 dev=2 ino=3");
	b = a;
	guac_fill_key_of(&a, &k);
	assert_true(k.is_file);
	assert_int_equal(k.origin, 3);
	assert_string_equal(k.target_path, "/data/f");
	assert_string_equal(k.machine, "K9");
	assert_true(guac_manifest_same_fill(&a, &b, GUAC_FILL_MERGE, &d));
	b.block_size = 4096;
	assert_true(guac_manifest_same_fill(&a, &b, 0, &d));
	assert_false(guac_manifest_same_fill(&a, &b, GUAC_FILL_MERGE, &d));
	assert_int_equal(d.field, GUAC_FILL_BLOCK_SIZE);
}

/* The status words the JSON keeps, and none other. */
static void test_status_words(void **state)
{
	static const struct { enum guac_fill_status s; const char *word; } w[] = {
		{ GUAC_STATUS_RUNNING, "running" }, { GUAC_STATUS_COMPLETE, "complete" },
		{ GUAC_STATUS_INTERRUPTED, "interrupted" }, { GUAC_STATUS_FAILED, "failed" },
		{ GUAC_STATUS_PARTIAL, "partial" },
	};
	enum guac_fill_status s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		assert_string_equal(guac_fill_status_name(w[i].s), w[i].word);
		assert_true(guac_fill_status_parse(w[i].word, &s));
		assert_int_equal(s, w[i].s);
	}
	assert_string_equal(guac_fill_status_name(GUAC_STATUS_NONE), "");
	assert_false(guac_fill_status_parse("", &s));
	assert_false(guac_fill_status_parse("Complete", &s));
	assert_false(guac_fill_status_parse("done", &s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_workload),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_part_and_mode),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_manifests),
		cmocka_unit_test(test_status_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
