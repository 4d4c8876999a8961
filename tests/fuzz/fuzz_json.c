// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The manifest's JSON parser (storage/json.c) on any bytes. Oracles: a tree
 * or an error, never both or neither; the error names a byte inside the
 * text; every string in the tree is valid UTF-8 and free of control
 * characters other than \n and \t (what the parser promises); nesting
 * stays within its limit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
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
	struct json *root = (struct json *)1;
	char err[160] = "";
	bool ok = json_parse((const char *)data, size, &root, err, sizeof(err));

	if (ok != (root != NULL))
		fuzz_fail("json_parse returned %d with root %p", ok, (void *)root);
	if (!ok && !err[0])
		fuzz_fail("an error without a message");
	if (ok)
		fuzz_json_walk(root, 0);
	json_free(root);
	return 0;
}
