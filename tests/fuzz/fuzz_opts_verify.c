// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify's options and plan (cmd/cmd_verify.h), called directly: the
 * input, split at NUL bytes, is the argument list; guac_verify_parse()
 * makes the request, and when it is one, the plan is made for it
 * (storage/verify_plan.c: the manifest loaded, the range, shard, segments
 * and reads) against a stand-in for SOURCE, a 64 KiB file never opened.
 * Nothing on this path exits the process or does I/O but the manifest's
 * load (fopen() stays limited to the private directory, fuzz_common.h).
 * Oracles: the status is 0 (--help, --version, or a plan made) or 2 (a
 * refusal, with its message); a refused plan names its reason; a plan made
 * has segments inside the range, reads of whole sectors, and nothing
 * planned past its end; the same arguments answer the same twice.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>
#include "cmd_verify.h"
#include "fuzz_opts.h"
#include "parse_options.h"
#include "util.h"

/* A plan made: its segments lie in the range it names, its reads are whole sectors. */
static void fuzz_plan_sane(const struct verify_run *run)
{
	uint64_t sum = 0;
	unsigned int i;

	if (!run->sector || run->bs % run->sector)
		fuzz_fail("verify plans %" PRIu64 "-byte reads of %u-byte sectors", run->bs,
			  run->sector);
	for (i = 0; i < run->nseg; i++) {
		const struct verify_segment *s = &run->seg[i];

		if (s->resume > s->length || s->device_offset + s->length > run->end ||
		    s->device_offset + s->length < s->device_offset)
			fuzz_fail("verify plans segment %u at %" PRIu64 " of %" PRIu64
				  " bytes past the range's end %" PRIu64, i, s->device_offset,
				  s->length, run->end);
		sum += s->length;
	}
	if (sum != run->planned)
		fuzz_fail("verify plans %" PRIu64 " bytes in segments of %" PRIu64, run->planned,
			  sum);
}

/* The plan for @req against the stand-in SOURCE: 0 when made, else 2 after its message. */
static int fuzz_verify_plan(const struct verify_request *req)
{
	static struct verify_run run;
	static struct guac_manifest manifest;
	bool made;

	verify_plan_start(&run, req);
	if (req->manifest_path) {
		memset(&manifest, 0, sizeof(manifest));
		if (!guac_manifest_load(req->manifest_path, &manifest))
			return GUAC_EXIT_ERROR;
		run.manifest = &manifest;
	}
	run.target = (struct guac_target){ .fd = -1, .kind = GUAC_TARGET_FILE, .size = 65536,
					   .sector = 512, .physical_sector = 512 };
	made = (run.manifest ? verify_plan_manifest(&run) : verify_plan_plain(&run)) &&
	       verify_plan_reads(&run);
	if (!made) {
		if (run.reason.kind == VERIFY_FINE)
			fuzz_fail("verify refuses a plan without a reason");
		guac_verify_say(&run);
		return GUAC_EXIT_ERROR;
	}
	fuzz_plan_sane(&run);
	return GUAC_EXIT_OK;
}

static int fuzz_verify_once(const uint8_t *data, size_t size)
{
	static char buf[4096];
	char *argv[FUZZ_MAX_ARGS + 2];
	int argc = fuzz_split_args(data, size, "guac verify", argv, FUZZ_MAX_ARGS, buf,
				   sizeof(buf));
	struct verify_options *opts = guac_verify_options_new();
	struct verify_request req;
	int ret;

	if (!opts)
		return GUAC_EXIT_ERROR;
	ret = guac_verify_parse(argc, argv, opts, &req);
	free(opts);
	/* --after-crash's check reads the target and its journal: its parse is what is fuzzed. */
	if (ret == GUAC_PARSE_AFTER_CRASH)
		return GUAC_EXIT_OK;
	if (ret)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	return fuzz_verify_plan(&req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int a, b;

	(void)fuzz_opts;	/* fuzz_opts.h's runner of whole commands: verify's steps run here */
	fuzz_opts_fixtures();
	fuzz_no_io = true;
	a = fuzz_verify_once(data, size);
	b = fuzz_verify_once(data, size);
	fuzz_no_io = false;
	fflush(stdout);
	if (a != b)
		fuzz_fail("guac verify: status %d, then %d for the same arguments", a, b);
	if (a != GUAC_EXIT_OK && a != GUAC_EXIT_ERROR)
		fuzz_fail("guac verify: exit status %d", a);
	return 0;
}
