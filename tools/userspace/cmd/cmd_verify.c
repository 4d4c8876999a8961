// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac verify: check that a file, block device or pipe holds a segment of the
 * stream, as written by guac write (with its manifest), `dd if=/dev/guac` or
 * `guac gen`, and say exactly which bytes are wrong and why.
 *
 * The command: its help, its options and the main flow. The check is
 * storage/verify_check.c, the reports storage/verify_report.c; verify_run.h
 * holds the run they share.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "io_engine.h"
#include "io_options.h"
#include "libguac.h"
#include "identity.h"
#include "manifest.h"
#include "shard.h"
#include "shard_env.h"
#include "util.h"
#include "verify_run.h"

#define VERIFY_SAVE_SECONDS 10		/* between progress saves in a long check */

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

/*
 * --origins LIST: "7,9,20261101-20261130": single origins (checked on every
 * bad sector, like the manifest's history) and ranges (searched, for the
 * sectors the diagnosis keeps). False after a message.
 */
static bool verify_parse_origins(struct verify_run *run, const char *list)
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
		if (!dash && run->nnamed_origins == VERIFY_NAMED_ORIGINS) {
			guac_err("--origins: more than %d single origins", VERIFY_NAMED_ORIGINS);
			return false;
		}
		if (dash && run->norigin_ranges == VERIFY_NAMED_ORIGINS) {
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
			run->origin_range[run->norigin_ranges++] =
				(struct guac_diag_origin_range){ a, b };
		else
			run->named_origin[run->nnamed_origins++] = a;
	}
	if (!run->nnamed_origins && !run->norigin_ranges) {
		guac_err("invalid --origins '%s': no origin in it", list);
		return false;
	}
	return true;
}

static bool verify_opt_sector(const struct guac_option *opt, const char *arg)
{
	struct verify_run *run = opt->value;
	uint64_t v;

	if (!guac_parse_u64("sector size", arg, &v))
		return false;
	if (v != 512 && v != 4096) {
		guac_err("invalid sector size '%s': expected 512 or 4096", arg);
		return false;
	}
	run->sector = (unsigned int)v;
	run->sector_source = "--sector";
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

static bool verify_opt_origins(const struct guac_option *opt, const char *arg)
{
	return verify_parse_origins(opt->value, arg);
}

/* GUAC_EXIT_OK with @run's options set, GUAC_PARSE_DONE after --help, or an exit status. */
static int verify_parse(struct verify_run *run, int argc, char **argv)
{
	bool offset_given = false, origin_given = false;
	char jobs_help[192], impl_help[128], after[sizeof(verify_after_fmt) + 32];
	const struct guac_usage usage = {
		.synopsis = "Usage: guac verify [OPTIONS] SOURCE\n"
			    "       guac verify --manifest FILE [OPTIONS] [SOURCE]\n",
		.about =
			"Check that SOURCE (a file, a block device, or - for standard input) holds the\n"
			"guacamole stream: byte --seek + k of SOURCE must be byte --offset + k of the\n"
			"stream as seen from block --origin, the bytes `guac gen` with the same options\n"
			"writes. With --manifest, what guac write recorded is checked instead, on\n"
			"SOURCE or the recorded target (any copy works; a shorter one fails).\n",
		.after = after,
	};
	const struct guac_option opts[] = {
		GUAC_OPT_U64_GIVEN('o', "offset", &run->offset, "BYTES",
				   "stream position of the first byte (default 0)", &offset_given),
		GUAC_OPT_U64_GIVEN('n', "length", &run->length, "BYTES",
				   "bytes to check (default: to the end of the file or device, or of "
				   "the manifest; a pipe needs it)", &run->length_given),
		GUAC_OPT_U64_GIVEN(0, "origin", &run->origin, "BLOCK",
				   "block index added to the position, mod 2^64 (default 0)",
				   &origin_given),
		GUAC_OPT_U64_GIVEN(0, "seek", &run->seek, "BYTES",
				   "byte of SOURCE where the stream data starts (default 0)",
				   &run->seek_given),
		GUAC_OPT_STRING('m', "manifest", &run->manifest_path, "FILE",
				"check what guac write recorded in FILE"),
		GUAC_OPT_U64_GIVEN(0, "skip", &run->skip, "BYTES",
				   "start this many bytes into the data (a sub-range; reports still "
				   "give true device byte offsets and LBAs)", &run->skip_given),
		GUAC_OPT_FLAG(0, "resume", &run->resume,
			      "continue from the progress saved in the manifest; the earlier run's "
			      "findings are part of the result (from the start if the target "
			      "changed since that run)"),
		GUAC_OPT_STRING(0, "shard", &run->shard_arg, "K/N",
				"check part K of N, exactly as guac write --shard K/N"),
		GUAC_OPT_STRING(0, "shards", &run->shards_arg, "N",
				"the N for JOB_COMPLETION_INDEX (also GUAC_SHARDS); "
				"SLURM_ARRAY_TASK_ID/COUNT/MIN/STEP work alone"),
		GUAC_OPT_CALLBACK(0, "direct", &run->direct, NULL,
				  "O_DIRECT reads, from the media, not the page cache (default for "
				  "block devices; refused where impossible)", guac_opt_direct),
		GUAC_OPT_CALLBACK(0, "buffered", &run->direct, NULL,
				  "read through the page cache, even a block device", guac_opt_direct),
		GUAC_OPT_CALLBACK_GIVEN(0, "bs", &run->bs, "BYTES",
					"bytes per read system call (default 256K)", guac_opt_bs,
					&run->bs_given),
		GUAC_OPT_CALLBACK('j', "jobs", &run->jobs, "N", jobs_help, guac_opt_jobs),
		GUAC_OPT_CALLBACK(0, "sector", run, "SIZE",
				  "512 or 4096: the sector bad ranges are reported and classified in "
				  "(default: a block device's physical sector, 4096 on a 512e disk; "
				  "else the manifest's, else 512)", verify_opt_sector),
		GUAC_OPT_CALLBACK(0, "max-errors", &run->max_errors, "N",
				  "stop at N bad or unreadable sectors (default: never)",
				  verify_opt_max_errors),
		GUAC_OPT_CALLBACK(0, "origins", run, "LIST",
				  "origins of earlier fills the manifest does not name (comma-separated; "
				  "A-B for a range): a bad sector holding one's data is STALE_ORIGIN, "
				  "not UNKNOWN", verify_opt_origins),
		GUAC_OPT_STRING(0, "bad-list", &run->bad_list_path, "FILE",
				"write every bad range, one per line, split where the class changes: "
				"KIND FIRST_BYTE LAST_BYTE FIRST_LBA LAST_LBA CLASS"),
		GUAC_OPT_FLAG(0, "json", &run->json,
			      "print a JSON summary on standard output instead of text"),
		GUAC_OPT_CALLBACK(0, "progress", &run->progress.mode, "MODE",
				  GUAC_IO_PROGRESS_HELP ", bad and unreadable sectors so far), none, "
				  "or auto (default: tty on a terminal, else log, as in a batch job's "
				  "output file)", guac_opt_progress),
		GUAC_OPT_CALLBACK(0, "progress-interval", &run->progress.interval, "SECONDS",
				  "seconds between log lines (default 30)", guac_opt_progress_interval),
		GUAC_OPT_CALLBACK(0, "impl", &run->impl, "NAME", impl_help, guac_opt_impl),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	int n;

	snprintf(jobs_help, sizeof(jobs_help),
		 "reader threads, each on its own contiguous part (default: one per CPU, here %u); "
		 "pipes are read by one, from their byte 0 (the bytes before the data are "
		 "dropped)", guac_nr_cpus());
	snprintf(impl_help, sizeof(impl_help), "generator: %s", guac_impl_choices());
	snprintf(after, sizeof(after), verify_after_fmt, VERIFY_SHOWN_RANGES, VERIFY_DIAG_MAX);
	n = guac_parse_options(argc, argv, opts, &usage, 0);
	if (n < 0)
		return n == GUAC_PARSE_DONE ? GUAC_PARSE_DONE : GUAC_EXIT_ERROR;
	run->origin_given = origin_given;
	if (run->manifest_path && (offset_given || origin_given || run->seek_given)) {
		guac_err("--offset, --origin and --seek come from the manifest; use --skip and "
			 "--length for a sub-range");
		return GUAC_EXIT_ERROR;
	}
	if (run->resume && !run->manifest_path) {
		guac_err("--resume needs --manifest (the progress is saved there)");
		return GUAC_EXIT_ERROR;
	}
	if (run->resume && (run->skip_given || run->length_given)) {
		guac_err("--resume continues the whole check: no --skip or --length with it");
		return GUAC_EXIT_ERROR;
	}
	/* Like guac write: a range past 2^64 would wrap and check the wrong bytes. */
	if (run->seek + run->skip < run->seek) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " overflows", run->seek, run->skip);
		return GUAC_EXIT_ERROR;
	}
	if (run->length_given && run->seek + run->skip + run->length < run->seek + run->skip) {
		guac_err("--seek %" PRIu64 " + --skip %" PRIu64 " + --length %" PRIu64 " overflows",
			 run->seek, run->skip, run->length);
		return GUAC_EXIT_ERROR;
	}
	if (run->manifest_path && run->length_given && !run->length) {
		guac_err("--length 0 with --manifest checks nothing");
		return GUAC_EXIT_ERROR;
	}
	if (!guac_shard_parse(&run->shard, run->shard_arg, run->shards_arg))
		return GUAC_EXIT_ERROR;
	/* Without a manifest, --length is the whole data's, as for guac write --shard. */
	if (run->shard.count > 1 && (run->skip_given || run->resume ||
				     (run->manifest_path && run->length_given))) {
		guac_err("--shard (%s) chooses the range: no --skip, --resume, or --length with "
			 "--manifest", run->shard.source);
		return GUAC_EXIT_ERROR;
	}
	if (n > 1) {
		guac_err("unexpected argument '%s' after SOURCE", argv[1]);
		return GUAC_EXIT_ERROR;
	}
	if (!n && !run->manifest_path) {
		guac_err("missing SOURCE (a file, a block device, or - for standard input)");
		return GUAC_EXIT_ERROR;
	}
	run->path = n ? argv[0] : NULL;
	return GUAC_EXIT_OK;
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

int guac_cmd_verify(int argc, char **argv)
{
	static struct verify_run run;
	static struct guac_manifest manifest;
	unsigned int i;
	double saved;
	int ret;

	/* The state is static for its size: each call starts from the defaults. */
	free(run.seg);
	free(run.job_lists);
	memset(&run, 0, sizeof(run));
	memset(&manifest, 0, sizeof(manifest));
	run.impl = guac_impl_best();
	run.jobs = guac_nr_cpus();
	pthread_mutex_init(&run.sample_lock, NULL);
	run.first_last = UINT64_MAX;	/* no set is full yet */
	run.other_last = UINT64_MAX;
	guac_progress_parse("auto", &run.progress.mode);
	run.progress.interval = GUAC_PROGRESS_LOG_SECONDS;
	ret = verify_parse(&run, argc, argv);
	if (ret)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	if (run.manifest_path) {
		if (!guac_manifest_load(run.manifest_path, &manifest))
			return GUAC_EXIT_ERROR;
		run.manifest = &manifest;
		if (!run.path)
			run.path = manifest.target_path;
	}
	if (!guac_target_open(&run.target, run.path, false, run.direct, false))
		return GUAC_EXIT_ERROR;
	/* What the target is, and its stamp (which may wait out its time-stamp granularity). */
	guac_ident_of(&run.target, run.ident, sizeof(run.ident));
	guac_ident_stamp(&run.target, run.manifest != NULL, run.stamp, sizeof(run.stamp));
	if (run.target.fd == STDIN_FILENO && run.target.kind == GUAC_TARGET_FILE) {
		/* `guac verify - < file` checks from where the shell left the file. */
		off_t cur = lseek(STDIN_FILENO, 0, SEEK_CUR);

		run.seek += cur > 0 ? (uint64_t)cur : 0;
	}
	if (run.target.kind == GUAC_TARGET_STREAM)
		run.jobs = 1;	/* a pipe is read by one thread, whatever --jobs says */
	if (run.manifest) {
		char other[1024];

		run.recorded_target = verify_is_recorded_target(&run, other, sizeof(other));
		if (run.resume && other[0]) {
			guac_err("cannot resume: %s; nothing of the recorded check holds for it "
				 "(guac verify --manifest without --resume checks it, unrecorded)",
				 other);
			return GUAC_EXIT_ERROR;
		}
		if (other[0])
			guac_err("note: %s: it is checked, but the check is not recorded in '%s'",
				 other, run.manifest_path);
		if (run.resume && !run.recorded_target) {
			guac_err("--resume continues the check of the manifest's target '%s', not "
				 "of '%s'", manifest.target_path, run.path);
			return GUAC_EXIT_ERROR;
		}
		if (run.resume)
			verify_take_record(&run);
	}
	if (run.manifest && !verify_plan_manifest(&run))
		return GUAC_EXIT_ERROR;
	if (!run.manifest && !verify_plan_plain(&run))
		return GUAC_EXIT_ERROR;
	if (run.bs % run.sector) {
		/* A read must end on a sector boundary, or a sector is seen in two pieces. */
		if (run.bs_given) {
			guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector verify "
				 "reports in (%s; --sector sets it)", run.bs, run.sector,
				 run.sector_source);
			return GUAC_EXIT_ERROR;
		}
		run.bs = (run.bs + run.sector - 1) / run.sector * run.sector;
	}
	verify_first_byte(&run);
	verify_diag_setup(&run);
	if (run.target.direct && run.bs % run.target.sector) {
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector O_DIRECT needs",
			 run.bs, run.target.sector);
		return GUAC_EXIT_ERROR;
	}
	/*
	 * Two buffers of --bs a reader (the block checked and the next one read),
	 * touched no further than its part: not past the machine's memory.
	 */
	if (!verify_memory_fits(&run)) {
		guac_target_close(&run.target);
		return GUAC_EXIT_ERROR;
	}
	if (run.manifest && run.manifest->serial[0] && run.target.serial[0] &&
	    strcmp(run.manifest->serial, run.target.serial))
		guac_err("note: '%s' has serial %s, the manifest's target had %s (a copy?)",
			 run.path, run.target.serial, run.manifest->serial);
	guac_badlog_init(&run.mismatch, run.mismatch_kept, VERIFY_SHOWN_RANGES);
	guac_badlog_init(&run.unreadable, run.unreadable_kept, VERIFY_SHOWN_RANGES);

	if (run.manifest && !run.subrange && !run.recorded_target)
		/* The manifest's progress is its target's: a copy's check is no part of it. */
		guac_err("note: progress not saved in '%s': '%s' is not its target '%s'",
			 run.manifest_path, run.path, manifest.target_path);

	guac_io_catch_signals(&run.stop);
	verify_save_progress(&run, true);
	saved = guac_now();
	for (i = 0; i < run.nseg && !run.already_complete; i++) {
		if (run.seg[i].length == run.seg[i].resume) {
			run.progress_done += run.seg[i].length;
			continue;
		}
		if (!verify_segment(&run, &run.seg[i]))
			break;
		/* A manifest of many ranges records its progress as it goes, now and then. */
		if (guac_now() - saved >= VERIFY_SAVE_SECONDS) {
			verify_save_progress(&run, true);
			saved = guac_now();
		}
	}
	guac_progress_finish(&run.progress);
	/* Stopped before every byte was compared (a stop that came later changes nothing). */
	if (atomic_load(&run.stop) && !run.max_reached && !run.fatal && !run.short_data &&
	    verify_covered(&run) < run.planned)
		run.interrupted = true;
	verify_save_progress(&run, false);
	/*
	 * The search names some OTHER sectors: the record (saved again, the
	 * progress being safe already) and --bad-list carry those classes.
	 */
	verify_diagnose(&run);
	if (verify_record_searched(&run))
		verify_save_progress(&run, false);
	verify_save_partial(&run);
	if (run.bad_list_path && !verify_write_bad_list(&run))
		ret = GUAC_EXIT_ERROR;
	/* Open until here: the diagnosis reads again the incident its search's bound cut. */
	guac_target_close(&run.target);

	if (run.json)
		verify_report_json(&run);
	else
		verify_report_text(&run);
	if (run.fatal)
		guac_err("read error on '%s' at byte %" PRIu64 ": %s", run.path, run.fatal_pos,
			 strerror(run.fatal_errno));
	for (i = 0; i < run.nsample; i++)
		free(run.sample[i].data);
	if (!run.manifest && !run.origin_given && run.mismatch.nranges)
		guac_err("note: no --origin or --manifest, so origin 0 was checked; guac write "
			 "draws a fresh origin for every fill and prints it (\"origin N\" in its "
			 "last line): give --origin N, or the fill's --manifest");
	return ret ? GUAC_EXIT_ERROR : verify_exit_status(&run);
}
