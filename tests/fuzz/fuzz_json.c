// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The manifest's JSON parser (storage/json.c) on any bytes. Oracles: a tree
 * or an error, never both or neither; the error names a byte inside the
 * text; every string in the tree is valid UTF-8 and free of control
 * characters other than \n and \t (what the parser promises); nesting
 * stays within its limit. The text ends right before an inaccessible page,
 * as guard-page allocators place it, so that any read past its end faults
 * at once (ASan does not see reads inside libc's string functions).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "json.h"
#include "manifest.h"

static void fuzz_json_walk(const struct json *j, int depth)
{
	for (; j; j = j->next) {
		if (depth > 9)
			fuzz_fail("nesting %d past the limit", depth);
		if ((j->type == JSON_STRING || j->type == JSON_NUMBER) && !j->str)
			fuzz_fail("a string or number without its text");
		if (j->str && !guac_manifest_utf8(j->str))
			fuzz_fail("a string that is not UTF-8 got through");
		if (j->key && !guac_manifest_utf8(j->key))
			fuzz_fail("a key that is not UTF-8 got through");
		if (j->type == JSON_NUMBER && strspn(j->str, "0123456789.") != strlen(j->str))
			fuzz_fail("a number with other characters: '%s'", j->str);
		fuzz_json_walk(j->child, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static size_t page;
	struct json *root = (struct json *)1;
	char err[160] = "";
	size_t span;
	uint8_t *map, *text;
	bool ok;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	span = (size + page - 1) / page * page;
	map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + span, page, PROT_NONE))
		abort();
	text = map + span - size;
	memcpy(text, data, size);
	ok = json_parse((const char *)text, size, &root, err, sizeof(err));

	if (ok != (root != NULL))
		fuzz_fail("json_parse returned %d with root %p", ok, (void *)root);
	if (!ok && !err[0])
		fuzz_fail("an error without a message");
	if (ok)
		fuzz_json_walk(root, 0);
	json_free(root);
	munmap(map, span + page);
	return 0;
}
