// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify on hostile data: what a damaged disk hands back. Verify's
 * steps (cmd/cmd_verify.h: parse, plan, check, with the classification and
 * diagnosis of bad sectors and the bad list) are called directly, none of
 * them able to exit the process, on a file in the private directory.
 * Input: a flags byte (raw or XOR mode, 512- or 4096-byte sectors, 1 or 2
 * jobs), the stream offset and origin (8 bytes each, any value: positions
 * past 2^64 bytes included), then the data. In XOR mode the file holds the
 * expected stream XOR the data, so that zero bytes are right ones and the
 * fuzzer damages a few bytes at a time; in raw mode it holds the data.
 * Oracles, against a byte comparison done here: OK (exit 0) exactly when
 * every byte matches, else exit 1 (MISMATCH), never 2; and the --bad-list
 * names exactly the sectors holding a wrong byte.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_verify.h"
#include "fuzz_common.h"
#include "libguac.h"
#include "parse_options.h"
#include "util.h"

#define FUZZ_VERIFY_MAX (1u << 16)

/*
 * Parse, plan and check @argv as guac verify would; the signal handlers the
 * check takes over (Ctrl-C stops it) are given back to libFuzzer after.
 */
static int fuzz_verify_run(int argc, char **argv)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	static struct verify_run run;
	static struct guac_manifest manifest;
	struct sigaction saved[2];
	struct verify_options *opts = guac_verify_options_new();
	struct verify_request req;
	int ret;
	size_t i;

	for (i = 0; i < 2; i++)
		sigaction(sigs[i], NULL, &saved[i]);
	ret = opts ? guac_verify_parse(argc, argv, opts, &req) : GUAC_EXIT_ERROR;
	if (!ret)
		ret = guac_verify_prepare(&run, &manifest, &req);
	if (!ret)
		ret = guac_verify_check(&run, opts);
	free(opts);
	fflush(stdout);
	for (i = 0; i < 2; i++)
		sigaction(sigs[i], &saved[i], NULL);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t want[FUZZ_VERIFY_MAX], file[FUZZ_VERIFY_MAX];
	static bool bad[FUZZ_VERIFY_MAX / 512 + 1], listed[FUZZ_VERIFY_MAX / 512 + 1];
	char off_s[32], org_s[32], sec_s[16], line[512], kind[32];
	char *argv[16];
	uint64_t offset, origin, a, b, la, lb;
	unsigned int sector, nsec, i;
	bool xor, any = false;
	size_t len;
	int argc = 0, rc;
	FILE *f;

	fuzz_init();
	if (size < 18)
		return 0;
	xor = !(data[0] & 1);
	sector = data[0] & 2 ? 4096 : 512;
	memcpy(&offset, data + 1, 8);
	memcpy(&origin, data + 9, 8);
	data += 17;
	len = size - 17 < FUZZ_VERIFY_MAX ? size - 17 : FUZZ_VERIFY_MAX;
	guac_stream_at(guac_impl_best(), want, origin, offset, 0, len);
	nsec = (unsigned int)((len + sector - 1) / sector);
	memset(bad, 0, sizeof(bad));
	memset(listed, 0, sizeof(listed));
	for (i = 0; i < len; i++) {
		file[i] = xor ? want[i] ^ data[i] : data[i];
		if (file[i] != want[i]) {
			bad[i / sector] = true;
			any = true;
		}
	}
	if (!fuzz_write_file("data.bin", file, len))
		abort();
	unlink("bad.txt");
	snprintf(off_s, sizeof(off_s), "%" PRIu64, offset);
	snprintf(org_s, sizeof(org_s), "%" PRIu64, origin);
	snprintf(sec_s, sizeof(sec_s), "%u", sector);
	argv[argc++] = "guac verify";
	argv[argc++] = "--buffered";
	argv[argc++] = "--jobs";
	argv[argc++] = data[-17] & 4 ? "2" : "1";
	argv[argc++] = "--offset";
	argv[argc++] = off_s;
	argv[argc++] = "--origin";
	argv[argc++] = org_s;
	argv[argc++] = "--sector";
	argv[argc++] = sec_s;
	argv[argc++] = "--bad-list";
	argv[argc++] = "bad.txt";
	argv[argc++] = "data.bin";
	argv[argc] = NULL;
	rc = fuzz_verify_run(argc, argv);
	if (rc != (any ? 1 : 0))
		fuzz_fail("verify exits %d on %zu bytes with%s a wrong byte", rc, len,
			  any ? "" : "out");
	f = fopen("bad.txt", "r");
	if (!f)
		fuzz_fail("no --bad-list written");
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%31s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, kind, &a, &b,
			   &la, &lb) != 5 || strcmp(kind, "mismatch") || a > b || b >= len)
			fuzz_fail("bad-list line '%s'", line);
		if (a % sector || la != a / sector || lb != b / sector)
			fuzz_fail("bad-list line '%s' is not whole %u-byte sectors", line, sector);
		for (; a <= b && a < len; a += sector)
			listed[a / sector] = true;
	}
	fclose(f);
	for (i = 0; i < nsec; i++)
		if (bad[i] != listed[i])
			fuzz_fail("sector %u (%u bytes each) is %s but %s in the bad list", i, sector,
				  bad[i] ? "wrong" : "right", listed[i] ? "listed" : "not");
	return 0;
}
