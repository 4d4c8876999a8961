// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify: check that a file, block device or pipe holds a segment of the
 * stream, as written by guac write (with its manifest), `dd if=/dev/guac` or
 * `guac gen`, and say exactly which bytes are wrong and why.
 *
 * The command: its help, its options (what the user typed, private to this
 * file), the request it makes of storage (struct verify_request), the main
 * flow, and the words for the reasons storage gives when it stops short,
 * the only place verify's option names are spelt. The plan is
 * storage/verify_plan.c, the check verify_check.c, the record
 * verify_record.c, the reports verify_report.c; verify_run.h holds the run
 * they share.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_verify.h"
#include "cmds.h"
#include "io_engine.h"
#include "io_options.h"
#include "libguac.h"
#include "identity.h"
#include "manifest.h"
#include "shard.h"
#include "shard_env.h"
#include "util.h"
#include "verify_crash.h"
#include "verify_run.h"

static const char verify_synopsis[] =
	"Usage: guac verify [OPTIONS] SOURCE\n"
	"       guac verify --manifest FILE [OPTIONS] [SOURCE]\n";

static const char verify_about[] =
	"Check that SOURCE (a file, a block device, or - for standard input) holds the\n"
	"guacamole stream: byte --seek + k of SOURCE must be byte --offset + k of the\n"
	"stream as seen from block --origin, the bytes `guac gen` with the same options\n"
	"writes. With --manifest, what guac write recorded is checked instead, on\n"
	"SOURCE or the recorded target (any copy works; a shorter one fails).\n";

static const char verify_after_fmt[] =
	"Reports OK with the byte count and throughput, or each bad range (whole\n"
	"sectors, adjacent ones merged, the first %u listed, then totals), the first\n"
	"differing byte with the expected and actual values, unreadable sectors\n"
	"(read errors are retried sector by sector and the check goes on), short data\n"
	"(the end of SOURCE before the length), the class of every bad sector (zeros,\n"
	"ones, torn, stale origin, scattered damage, or OTHER), and a diagnosis of\n"
	"the first %u bad sectors, and the first as many OTHER ones (searched for\n"
	"misdirected or wrapped data), one line per incident (a run of sectors with\n"
	"one class and cause).\n"
	"The I/O mode (direct or buffered) is part of the report. An empty SOURCE\n"
	"fails unless --length is 0. Ctrl-C stops with a summary of what was found\n"
	"(during the diagnosis, it ends the search); with a manifest, a check of the\n"
	"recorded target saves its progress there for --resume. Memory use is\n"
	"fixed, whatever the size.\n"
	"A log's first progress line comes after one interval: a shorter check prints\n"
	"none, a longer one ends with an \"ended\" line.\n" GUAC_NUMBERS_HELP "\n"
	"OK (exit 0) means every byte described (by the options, or the manifest and\n"
	"--skip, --length or --shard) was compared, now or by the check resumed, and\n"
	"matched; the OK line names a shard or sub-range when it checked one.\n"
	"Exit status: 0 the data matches, 1 a mismatch, short or incomplete data,\n"
	"2 a usage error, 3 unreadable sectors or a read error, 130 interrupted.\n";

/* What the user typed: the request for storage, and what only the command uses. */
struct verify_options {
	struct verify_request req;
	const char *shard_arg, *shards_arg, *impl_name;
	bool offset_given, origin_given, seek_given, skip_given, length_given, bs_given;
	bool json;
	struct guac_progress progress;	/* its mode and interval */
	/* --after-crash (verify_crash.c): its own check, and what it takes. */
	bool after_crash, prior_given, sector_given;
	const char *journal;
	uint64_t prior_origin;
};

struct verify_options *guac_verify_options_new(void)
{
	return calloc(1, sizeof(struct verify_options));
}

/*
 * --origins LIST: "7,9,20261101-20261130": single origins (checked on every
 * bad sector, like the manifest's history) and ranges (searched, for the
 * sectors the diagnosis keeps). False after a message.
 */
static bool verify_parse_origins(struct verify_request *req, const char *list)
{
	char buf[4096], *save = NULL, *item, *dash;
	uint64_t a, b;

	if (strlen(list) >= sizeof(buf) || !list[0]) {
		guac_err("invalid --origins '%s': expected origins and ranges A-B, "
			 "comma-separated", list);
		return false;
	}
	strcpy(buf, list);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		dash = strchr(item, '-');
		if (dash)
			*dash = 0;
		if (!guac_parse_u64("origin", item, &a) ||
		    (dash && !guac_parse_u64("origin", dash + 1, &b)))
			return false;
		if (!dash && req->nnamed_origins == VERIFY_NAMED_ORIGINS) {
			guac_err("--origins: more than %d single origins", VERIFY_NAMED_ORIGINS);
			return false;
		}
		if (dash && req->norigin_ranges == VERIFY_NAMED_ORIGINS) {
			guac_err("--origins: more than %d ranges", VERIFY_NAMED_ORIGINS);
			return false;
		}
		if (dash && b < a) {
			guac_err("invalid --origins range %" PRIu64 "-%" PRIu64 ": its end is before "
				 "its start", a, b);
			return false;
		}
		if (dash && b - a >= GUAC_DIAG_MAX_ORIGIN_SPAN) {
			guac_err("--origins range %" PRIu64 "-%" PRIu64 " is wider than 2^40 origins "
				 "(the search would take days): name a narrower one", a, b);
			return false;
		}
		if (dash)
			req->origin_range[req->norigin_ranges++] =
				(struct guac_diag_origin_range){ a, b };
		else
			req->named_origin[req->nnamed_origins++] = a;
	}
	if (!req->nnamed_origins && !req->norigin_ranges) {
		guac_err("invalid --origins '%s': no origin in it", list);
		return false;
	}
	return true;
}

static bool verify_opt_sector(const struct guac_option *opt, const char *arg)
{
	struct verify_request *req = opt->value;
	uint64_t v;

	if (!guac_parse_u64("sector size", arg, &v))
		return false;
	if (v != 512 && v != 4096) {
		guac_err("invalid sector size '%s': expected 512 or 4096", arg);
		return false;
	}
	req->sector = (unsigned int)v;
	req->sector_source = "--sector";
	return true;
}

static bool verify_opt_max_errors(const struct guac_option *opt, const char *arg)
{
	uint64_t *max = opt->value;

	if (!guac_parse_u64("error limit", arg, max))
		return false;
	if (!*max) {
		guac_err("invalid --max-errors '%s': expected at least 1", arg);
		return false;
	}
	return true;
}

static const char verify_rate_help[] =
	"read at most RATE bytes a second over all jobs together (as guac write --rate; 50M "
	"is 50 MiB/s); the retries of a failed read and the diagnosis's searches not "
	"counted; at least one --bs block an hour; default: no limit";

static bool verify_opt_origins(const struct guac_option *opt, const char *arg)
{
	return verify_parse_origins(opt->value, arg);
}

/*
 * --impl NAME, checked once the options are parsed, with guac_impl_check()'s
 * words, but a return where it would exit. False after a message.
 */
static bool verify_take_impl(struct verify_options *o)
{
	int impl;

	if (!o->impl_name)
		return true;
	impl = guac_impl_parse(o->impl_name);
	if (impl < 0) {
		guac_err("unknown implementation '%s' (this build has %s)", o->impl_name,
			 guac_impl_choices());
		return false;
	}
	if (!guac_impl_usable(impl, guac_cpu_features())) {
		guac_err("implementation '%s' is not supported by this CPU", o->impl_name);
		return false;
	}
	o->req.impl = impl;
	return true;
}

/* The table's --after-crash part (verify_crash.c's check). */
#define VERIFY_CRASH_OPTIONS 3
static void verify_crash_options(struct verify_options *o, struct guac_option *opts)
{
	const struct guac_option crash[VERIFY_CRASH_OPTIONS] = {
		GUAC_OPT_FLAG(0, "after-crash", &o->after_crash,
			      "check a guac write --crash-safe fill after a crash or power loss, "
			      "from its journal alone: every flushed write there, nothing torn "
			      "within a --sector, no write there that was never issued "
			      "(docs/crash-safety.md)"),
		GUAC_OPT_STRING(0, "journal", &o->journal, "PATH",
				"--after-crash: the journal guac write --crash-safe --journal PATH "
				"kept (default: SOURCE's last 16 KiB)"),
		GUAC_OPT_U64_GIVEN(0, "prior-origin", &o->prior_origin, "BLOCK",
				   "--after-crash: SOURCE held this origin's stream (an earlier "
				   "fill at the same place) before the fill: what a write not yet "
				   "flushed may have left is then checked too",
				   &o->prior_given),
	};

	memcpy(opts, crash, sizeof(crash));
}

#define VERIFY_HEAD_OPTIONS 18
#define VERIFY_TAIL_OPTIONS 7

/* The table's last part: the report's options, then --version, --help and the end. */
static void verify_tail_options(struct verify_options *o, struct guac_option *opts,
				const char *impl_help)
{
	const struct guac_option tail[VERIFY_TAIL_OPTIONS] = {
		GUAC_OPT_FLAG(0, "json", &o->json,
			      "print a JSON summary on standard output instead of text"),
		GUAC_OPT_CALLBACK(0, "progress", &o->progress.mode, "MODE",
				  GUAC_IO_PROGRESS_HELP ", bad and unreadable sectors so far), none, "
				  "or auto (default: tty on a terminal, else log, as in a batch job's "
				  "output file)", guac_opt_progress),
		GUAC_OPT_CALLBACK(0, "progress-interval", &o->progress.interval, "SECONDS",
				  "seconds between log lines (default 30)", guac_opt_progress_interval),
		GUAC_OPT_STRING(0, "impl", &o->impl_name, "NAME", impl_help),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};

	memcpy(opts, tail, sizeof(tail));
}

/*
 * The options table: SOURCE's index count, GUAC_PARSE_DONE after
 * --help or --version, or below 0 after a message.
 */
static int verify_parse_table(struct verify_options *o, int argc, char **argv)
{
	struct verify_request *req = &o->req;
	struct guac_option opts[VERIFY_HEAD_OPTIONS + VERIFY_CRASH_OPTIONS + VERIFY_TAIL_OPTIONS];
	char jobs_help[192], impl_help[128], after[sizeof(verify_after_fmt) + 32];
	const struct guac_usage usage = {
		.synopsis = verify_synopsis, .about = verify_about, .after = after,
	};
	const struct guac_option head[VERIFY_HEAD_OPTIONS] = {
		GUAC_OPT_U64_GIVEN('o', "offset", &req->offset, "BYTES",
				   "stream position of the first byte (default 0)", &o->offset_given),
		GUAC_OPT_U64_GIVEN('n', "length", &req->length, "BYTES",
				   "bytes to check (default: to the end of the file or device, or of "
				   "the manifest; a pipe needs it)", &o->length_given),
		GUAC_OPT_U64_GIVEN(0, "origin", &req->origin, "BLOCK",
				   "block index added to the position, mod 2^64 (default 0)",
				   &o->origin_given),
		GUAC_OPT_U64_GIVEN(0, "seek", &req->seek, "BYTES",
				   "byte of SOURCE where the stream data starts (default 0)",
				   &o->seek_given),
		GUAC_OPT_STRING('m', "manifest", &req->manifest_path, "FILE",
				"check what guac write recorded in FILE"),
		GUAC_OPT_U64_GIVEN(0, "skip", &req->skip, "BYTES",
				   "start this many bytes into the data (a sub-range; reports still "
				   "give true device byte offsets and LBAs)", &o->skip_given),
		GUAC_OPT_FLAG(0, "resume", &req->resume,
			      "continue from the progress saved in the manifest; the earlier run's "
			      "findings are part of the result (from the start if the target "
			      "changed since that run)"),
		GUAC_OPT_STRING(0, "shard", &o->shard_arg, "K/N",
				"check part K of N, exactly as guac write --shard K/N"),
		GUAC_OPT_STRING(0, "shards", &o->shards_arg, "N",
				"the N for JOB_COMPLETION_INDEX (also GUAC_SHARDS); "
				"SLURM_ARRAY_TASK_ID/COUNT/MIN/STEP work alone"),
		GUAC_OPT_CALLBACK(0, "direct", &req->direct, NULL,
				  "O_DIRECT reads, from the media, not the page cache (default for "
				  "block devices; refused where impossible)", guac_opt_direct),
		GUAC_OPT_CALLBACK(0, "buffered", &req->direct, NULL,
				  "read through the page cache, even a block device", guac_opt_direct),
		GUAC_OPT_CALLBACK_GIVEN(0, "bs", &req->bs, "BYTES",
					"bytes per read system call (default 256K)", guac_opt_bs,
					&o->bs_given),
		GUAC_OPT_CALLBACK('j', "jobs", &req->jobs, "N", jobs_help, guac_opt_jobs),
		GUAC_OPT_CALLBACK(0, "sector", req, "SIZE",
				  "512 or 4096: the sector bad ranges are reported and classified in "
				  "(default: a block device's physical sector, 4096 on a 512e disk; "
				  "else the manifest's, else 512)", verify_opt_sector),
		GUAC_OPT_CALLBACK(0, "max-errors", &req->max_errors, "N",
				  "stop at N bad or unreadable sectors (default: never)",
				  verify_opt_max_errors),
		GUAC_OPT_CALLBACK(0, "rate", &req->rate, "RATE", verify_rate_help, guac_opt_rate),
		GUAC_OPT_CALLBACK(0, "origins", req, "LIST",
				  "origins of earlier fills the manifest does not name (comma-separated; "
				  "A-B for a range): a bad sector holding one's data is STALE_ORIGIN, "
				  "not UNKNOWN", verify_opt_origins),
		GUAC_OPT_STRING(0, "bad-list", &req->bad_list_path, "FILE",
				"write every bad range, one per line, split where the class changes: "
				"KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS"),
	};

	snprintf(jobs_help, sizeof(jobs_help),
		 "reader threads, each on its own contiguous part (default: one per CPU, here %u); "
		 "pipes are read by one, from their byte 0 (the bytes before the data are "
		 "dropped)", guac_nr_cpus());
	snprintf(impl_help, sizeof(impl_help), "generator: %s", guac_impl_choices());
	snprintf(after, sizeof(after), verify_after_fmt, VERIFY_SHOWN_RANGES, VERIFY_DIAG_MAX);
	memcpy(opts, head, sizeof(head));
	verify_crash_options(o, opts + VERIFY_HEAD_OPTIONS);
	verify_tail_options(o, opts + VERIFY_HEAD_OPTIONS + VERIFY_CRASH_OPTIONS, impl_help);
	return guac_parse_options(argc, argv, opts, &usage, 0);
}

/* The options that go together, and the range's arithmetic: false after a message. */
static bool verify_options_agree(const struct verify_options *o)
{
	const struct verify_request *req = &o->req;

	if (req->manifest_path && (o->offset_given || o->origin_given || o->seek_given)) {
		guac_err("--offset, --origin and --seek come from the manifest; use --skip and "
			 "--length for a sub-range");
		return false;
	}
	if (req->resume && !req->manifest_path) {
		guac_err("--resume needs --manifest (the progress is saved there)");
		return false;
	}
	if (req->resume && (o->skip_given || o->length_given)) {
		guac_err("--resume continues the whole check: no --skip or --length with it");
		return false;
	}
	/* Like guac write: a range past 2^64 would wrap and check the wrong bytes. */
	if (req->seek + req->skip < req->seek) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " overflows", req->seek, req->skip);
		return false;
	}
	if (o->length_given && req->seek + req->skip + req->length < req->seek + req->skip) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " + --length %" PRIu64 " overflows",
			 req->seek, req->skip, req->length);
		return false;
	}
	if (req->manifest_path && o->length_given && !req->length) {
		guac_err("--length 0 with --manifest checks nothing");
		return false;
	}
	return true;
}

/* The shard, and SOURCE (@n arguments left in @argv): false after a message. */
static bool verify_shard_and_source(struct verify_options *o, int n, char **argv)
{
	struct verify_request *req = &o->req;

	if (!guac_shard_parse(&req->shard, o->shard_arg, o->shards_arg))
		return false;
	/* Without a manifest, --length is the whole data's, as for guac write --shard. */
	if (req->shard.count > 1 && (o->skip_given || req->resume ||
				     (req->manifest_path && o->length_given))) {
		guac_err("--shard (%s) chooses the range: no --skip, --resume, or --length with "
			 "--manifest", req->shard.source);
		return false;
	}
	if (n > 1) {
		guac_err("unexpected argument '%s' after SOURCE", argv[1]);
		return false;
	}
	if (!n && !req->manifest_path) {
		guac_err("missing SOURCE (a file, a block device, or - for standard input)");
		return false;
	}
	req->path = n ? argv[0] : NULL;
	return true;
}

/*
 * --after-crash takes the fill from the journal: none of the options that
 * describe one or a check of a manifest's. GUAC_PARSE_AFTER_CRASH, or an
 * exit status after a message.
 */
static int verify_parse_after_crash(struct verify_options *o, int n, char **argv)
{
	const struct verify_request *req = &o->req;
	const char *bad = o->offset_given ? "--offset" : o->length_given ? "--length" :
			  o->origin_given ? "--origin" : o->seek_given ? "--seek" :
			  o->skip_given ? "--skip" : req->manifest_path ? "--manifest" :
			  req->resume ? "--resume" : o->shard_arg || o->shards_arg ? "--shard" :
			  req->nnamed_origins || req->norigin_ranges ? "--origins" :
			  req->bad_list_path ? "--bad-list" : o->json ? "--json" :
			  req->max_errors ? "--max-errors" : req->rate ? "--rate" : NULL;

	if (!o->after_crash) {
		guac_err("%s is for --after-crash: give --after-crash too",
			 o->journal ? "--journal" : "--prior-origin");
		return GUAC_EXIT_ERROR;
	}
	if (bad) {
		guac_err("--after-crash takes the fill from its journal: not with %s", bad);
		return GUAC_EXIT_ERROR;
	}
	if (n != 1) {
		guac_err(n ? "unexpected argument '%s' after SOURCE" :
			 "missing SOURCE (the file or block device the crash-safe fill wrote)%s",
			 n ? argv[1] : "");
		return GUAC_EXIT_ERROR;
	}
	if (!strcmp(argv[0], "-")) {
		guac_err("--after-crash reads a file or a block device, not standard input");
		return GUAC_EXIT_ERROR;
	}
	o->req.path = argv[0];
	return verify_take_impl(o) ? GUAC_PARSE_AFTER_CRASH : GUAC_EXIT_ERROR;
}

int guac_verify_parse(int argc, char **argv, struct verify_options *o, struct verify_request *req)
{
	int n;

	memset(o, 0, sizeof(*o));
	o->req.impl = guac_impl_best();
	o->req.jobs = guac_nr_cpus();
	o->progress.mode = guac_progress_auto();
	o->progress.interval = GUAC_PROGRESS_LOG_SECONDS;
	n = verify_parse_table(o, argc, argv);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? GUAC_PARSE_DONE : GUAC_EXIT_ERROR;
	if (o->after_crash || o->journal || o->prior_given)
		return verify_parse_after_crash(o, n, argv);
	if (!verify_take_impl(o) || !verify_options_agree(o) ||
	    !verify_shard_and_source(o, n, argv))
		return GUAC_EXIT_ERROR;
	o->req.from_data_start = !o->skip_given;
	o->req.to_data_end = !o->length_given;
	o->req.bs_exact = o->bs_given;
	*req = o->req;
	return GUAC_EXIT_OK;
}

void guac_verify_say(const struct verify_run *run)
{
	const struct verify_reason *r = &run->reason;
	const uint64_t *n = r->n;

	switch (r->kind) {
	case VERIFY_FINE:
	case VERIFY_ALREADY_SAID:
		break;
	case VERIFY_OUT_OF_MEMORY:
		guac_err("out of memory");
		break;
	case VERIFY_OTHER_SHARD:
		guac_err("the manifest is shard %u/%u of the fill; %s asks for %u/%u",
			 (unsigned int)n[0], (unsigned int)n[1], r->text, (unsigned int)n[2],
			 (unsigned int)n[3]);
		break;
	case VERIFY_TOO_MANY_SHARDS:
		guac_shard_say_too_many(&run->req.shard, n[0], (unsigned int)n[1],
					"refusing to verify");
		break;
	case VERIFY_SKIP_PAST_FILL:
		guac_err("--skip %" PRIu64 " is past the end of the fill (%" PRIu64 " bytes)", n[0],
			 n[1]);
		break;
	case VERIFY_RANGE_PAST_FILL:
		guac_err("--skip + --length go past the end of the fill (%" PRIu64 " bytes)", n[0]);
		break;
	case VERIFY_RANGE_OUTSIDE_PART:
		guac_err("bytes %" PRIu64 "-%" PRIu64 " of the fill are not all in this "
			 "manifest's part, shard %u/%u: bytes %" PRIu64 "-%" PRIu64 " (--skip "
			 "counts from the fill's start; use the manifest of the part that holds "
			 "them)", n[0], n[1], (unsigned int)n[2], (unsigned int)n[3], n[4], n[5]);
		break;
	case VERIFY_PIPE_NEEDS_LENGTH:
		guac_err("a pipe needs --length (the bytes it must hold) or a --manifest: without "
			 "one, an input that ends early could not be told from a whole one");
		break;
	case VERIFY_BS_OFF_SECTOR:
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector verify "
			 "reports in (%s; --sector sets it)", n[0], (unsigned int)n[1], r->text);
		break;
	case VERIFY_BS_OFF_DIRECT_SECTOR:
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector O_DIRECT needs",
			 n[0], (unsigned int)n[1]);
		break;
	case VERIFY_NO_TEMP_FILE:
		guac_err("cannot create a temporary file for --bad-list: %s", strerror(r->err));
		break;
	case VERIFY_BAD_LIST_UNWRITABLE:
		guac_err("cannot write --bad-list '%s': %s", r->text, strerror(r->err));
		break;
	case VERIFY_RANDOM_UNFINISHED:
		guac_err("the manifest records a random-pattern fill whose first pass did not "
			 "finish (pass %" PRIu64 " of %" PRIu64 ", %" PRIu64 " of its %" PRIu64
			 " bytes written): the blocks it has not written yet, scattered over the "
			 "fill, hold nothing known; nothing checked. guac write --resume -m "
			 "MANIFEST completes it", n[0], n[1], n[2], n[3]);
		break;
	}
}

/* --jobs readers of two --bs buffers each, as far as their parts reach, fit in memory. */
static bool verify_memory_fits(const struct verify_run *run)
{
	uint64_t jobs = run->jobs, part, need, mem;

	if (!jobs)
		return true;
	part = run->planned / jobs + 1;
	if (guac_buffers_fit(jobs, part < run->bs ? part : run->bs, &need, &mem))
		return true;
	guac_err("--jobs %" PRIu64 " with --bs %" PRIu64 " needs %" PRIu64 " bytes of buffers "
		 "(two blocks a reader), more than this machine's memory, %" PRIu64 " bytes; use "
		 "fewer jobs or a smaller --bs", jobs, run->bs, need, mem);
	return false;
}

/*
 * With a manifest: whether SOURCE is its recorded target (else the check is
 * not recorded, and cannot resume), and the record a --resume continues.
 * False after a message.
 */
static bool verify_take_manifest_record(struct verify_run *run)
{
	char other[1024];

	run->recorded_target = verify_is_recorded_target(run, other, sizeof(other));
	if (run->req.resume && other[0]) {
		guac_err("cannot resume: %s; nothing of the recorded check holds for it "
			 "(guac verify --manifest without --resume checks it, unrecorded)", other);
		return false;
	}
	if (other[0])
		guac_err("note: %s: it is checked, but the check is not recorded in '%s'", other,
			 run->req.manifest_path);
	if (run->req.resume && !run->recorded_target) {
		guac_err("--resume continues the check of the manifest's target '%s', not of '%s'",
			 run->manifest->target_path, run->path);
		return false;
	}
	if (run->req.resume)
		verify_take_record(run);
	return true;
}

/* SOURCE opened, with what it is and its stamp (which may wait out its time-stamp granularity). */
static bool verify_open_source(struct verify_run *run)
{
	if (!guac_target_open(&run->target, run->path, false, run->req.direct, false)) {
		guac_target_say_refusal(&run->target);
		return false;
	}
	guac_ident_of(&run->target, run->ident, sizeof(run->ident));
	guac_ident_stamp(&run->target, run->manifest != NULL, run->stamp, sizeof(run->stamp));
	if (run->target.fd == STDIN_FILENO && run->target.kind == GUAC_TARGET_FILE) {
		/* `guac verify - < file` checks from where the shell left the file. */
		off_t cur = lseek(STDIN_FILENO, 0, SEEK_CUR);

		run->seek += cur > 0 ? (uint64_t)cur : 0;
	}
	if (run->target.kind == GUAC_TARGET_STREAM)
		run->jobs = 1;	/* a pipe is read by one thread, whatever --jobs says */
	return true;
}

/*
 * The plan for the opened SOURCE: the manifest's record, the segments and
 * reads, within the machine's memory. False after a message.
 */
static bool verify_plan_opened(struct verify_run *run)
{
	if (run->manifest && !verify_take_manifest_record(run))
		return false;
	if (!(run->manifest ? verify_plan_manifest(run) : verify_plan_plain(run)) ||
	    !verify_plan_reads(run)) {
		guac_verify_say(run);
		return false;
	}
	/*
	 * Two buffers of --bs a reader (the block checked and the next one read),
	 * touched no further than its part: not past the machine's memory.
	 */
	return verify_memory_fits(run) && guac_rate_fits(run->req.rate, run->bs, "read", "");
}

int guac_verify_prepare(struct verify_run *run, struct guac_manifest *manifest,
			const struct verify_request *req)
{
	verify_plan_start(run, req);
	if (req->manifest_path) {
		if (!guac_manifest_load(req->manifest_path, manifest))
			return GUAC_EXIT_ERROR;
		run->manifest = manifest;
		if (!run->path)
			run->path = manifest->target_path;
	}
	if (!verify_open_source(run))
		return GUAC_EXIT_ERROR;
	if (!verify_plan_opened(run)) {
		guac_target_close(&run->target);
		return GUAC_EXIT_ERROR;
	}
	if (run->manifest && run->manifest->serial[0] && run->target.serial[0] &&
	    strcmp(run->manifest->serial, run->target.serial))
		guac_err("note: '%s' has serial %s, the manifest's target had %s (a copy?)",
			 run->path, run->target.serial, run->manifest->serial);
	guac_badlog_init(&run->mismatch, run->mismatch_kept, VERIFY_SHOWN_RANGES);
	guac_badlog_init(&run->unreadable, run->unreadable_kept, VERIFY_SHOWN_RANGES);
	if (run->manifest && !run->subrange && !run->recorded_target)
		/* The manifest's progress is its target's: a copy's check is no part of it. */
		guac_err("note: progress not saved in '%s': '%s' is not its target '%s'",
			 run->req.manifest_path, run->path, run->manifest->target_path);
	return GUAC_EXIT_OK;
}

/*
 * After the reads: the diagnosis, the record (saved again when the search
 * named some OTHER sectors, the progress being safe already), the partial
 * check's findings and the bad-range list. False after a message.
 */
static bool verify_record_all(struct verify_run *run)
{
	verify_diagnose(run);
	if (verify_record_searched(run))
		verify_save_progress(run, false);
	verify_save_partial(run);
	if (run->req.bad_list_path && !verify_write_bad_list(run)) {
		guac_verify_say(run);
		return false;
	}
	return true;
}

/* The report, and what goes with it on standard error. */
static void verify_report(const struct verify_run *run, const struct verify_options *o)
{
	if (o->json)
		verify_report_json(run);
	else
		verify_report_text(run);
	if (run->fatal)
		guac_err("read error on '%s' at byte %" PRIu64 ": %s", run->path, run->fatal_pos,
			 strerror(run->fatal_errno));
	if (!run->manifest && !o->origin_given && run->mismatch.nranges)
		guac_err("note: no --origin or --manifest, so origin 0 was checked; guac write "
			 "draws a fresh origin for every fill and prints it (\"origin N\" in its "
			 "last line): give --origin N, or the fill's --manifest");
}

int guac_verify_check(struct verify_run *run, const struct verify_options *o)
{
	bool listed = true;
	size_t i;

	run->progress.mode = o->progress.mode;
	run->progress.interval = o->progress.interval;
	guac_io_catch_signals(&run->stop);
	verify_check_all(run);
	/* A segment that could not start: the progress is saved, the findings incomplete. */
	if (run->reason.kind)
		guac_verify_say(run);
	else
		listed = verify_record_all(run);
	/* Open until here: the diagnosis reads again the incident its search's bound cut. */
	guac_target_close(&run->target);
	if (!run->reason.kind || !listed)
		verify_report(run, o);
	for (i = 0; i < run->nsample; i++)
		free(run->sample[i].data);
	if (run->reason.kind)
		return GUAC_EXIT_ERROR;
	return verify_exit_status(run);
}

int guac_cmd_verify(int argc, char **argv)
{
	struct verify_options *o = guac_verify_options_new();
	struct verify_run *run = calloc(1, sizeof(*run));
	struct guac_manifest *manifest = calloc(1, sizeof(*manifest));	/* large: not on the stack */
	struct verify_request req;
	int ret = GUAC_EXIT_ERROR;

	if (!o || !run || !manifest) {
		guac_err("out of memory");
		goto out;
	}
	ret = guac_verify_parse(argc, argv, o, &req);
	if (ret == GUAC_PARSE_AFTER_CRASH) {
		ret = guac_verify_after_crash(&(struct verify_crash_args){
			.path = o->req.path, .journal = o->journal, .prior_given = o->prior_given,
			.prior_origin = o->prior_origin, .sector = o->req.sector,
			.direct = o->req.direct, .impl = o->req.impl,
			.progress = o->progress.mode, .progress_interval = o->progress.interval });
		goto out;
	}
	if (ret) {
		ret = ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
		goto out;
	}
	ret = guac_verify_prepare(run, manifest, &req);
	if (!ret)
		ret = guac_verify_check(run, o);
out:
	free(manifest);
	free(run);
	free(o);
	return ret;
}
