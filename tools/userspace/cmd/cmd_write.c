// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac write: fill a file or block device with a range of the stream, the
 * bytes `guac gen` with the same --origin, --offset and --length prints, at
 * byte --seek of the target, and record what was done in a manifest so that
 * guac verify can check it later and say which bytes are wrong.
 *
 * Every argument is checked, and the target probed, before the target is
 * opened for writing: a typo must never cost a disk. The fill itself is
 * storage/fill.c's; this file parses, words its refusals and reports.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd_write.h"
#include "cmds.h"
#include "fill.h"
#include "io_options.h"
#include "shard_env.h"
#include "util.h"
#include "write_target.h"

#define WRITE_EXIT_INTERRUPTED 130	/* 128 + SIGINT, as shells report it */
#define WRITE_MAX_PASSES 1000		/* each pass writes the whole fill */
#define WRITE_MAX_IODEPTH GUAC_MANIFEST_MAX_IODEPTH	/* writes in flight a job, a buffer each */

static const struct guac_usage write_usage = {
	.synopsis = "Usage: guac write [OPTIONS] TARGET\n",
	.about =
		"Write the guacamole stream to TARGET, a block device or a regular file (created\n"
		"if missing, never truncated; never under /dev, /proc or /sys): byte --seek + k\n"
		"of TARGET gets byte --offset + k of the stream seen from block --origin, what\n"
		"`guac gen` prints. A target that holds a file system, partition table, RAID or\n"
		"LVM member (libblkid's signatures, as wipefs lists them) is refused unless\n"
		"--force; one in use (mounted, swap, held by dm or md, or a partition of it)\n"
		"or read-only is refused always.\n",
	.after =
		"With O_DIRECT, --seek, --length and --bs must be multiples of the sector size.\n"
		"Everything is fsynced at the end; the report says how many bytes are durable.\n"
		"Ctrl-C stops cleanly after the current block and records the progress.\n"
		"A log's first progress line comes after one interval: a shorter write prints\n"
		"none, a longer one ends with an \"ended\" line.\n"
		GUAC_NUMBERS_HELP "\n"
		"Exit status: 0 written and fsynced (--dry-run: the write would go ahead), 1 a\n"
		"block read back (--verify-backlog) differs from the stream, 2 a usage error\n"
		"or a target refused (nothing written), 3 the target's I/O failed (EIO,\n"
		"ENOSPC, a failed fsync), 130 interrupted.\n",
};

/* @name, from @from, as one word of UTF-8 in @out: false with the reason said. */
static bool write_word(const char *name, const char *from, const char *what, char *out,
		       size_t size)
{
	const char *p;

	for (p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			break;
	if (!*name || *p || strlen(name) >= size || !guac_manifest_utf8(name)) {
		guac_err("invalid %s '%s': expected %s of 1 to %zu bytes of UTF-8, "
			 "no space or control character", from, name, what, size - 1);
		return false;
	}
	snprintf(out, size, "%s", name);
	return true;
}

/*
 * The host to record: --host, else GUAC_HOST when set and not empty (a
 * script's GUAC_HOST=${SLURMD_NODENAME:-} off Slurm), else gethostname().
 * A name given must be one word of UTF-8 (an inventory's HOST column): false
 * with the reason said; a host name that is not UTF-8 is left out.
 */
static bool write_host(const struct write_args *a, char *host, size_t size)
{
	const char *name = a->host_arg, *from = "--host";

	if (!name && getenv("GUAC_HOST") && *getenv("GUAC_HOST")) {
		name = getenv("GUAC_HOST");
		from = "GUAC_HOST";
	}
	if (!name) {
		if (gethostname(host, size - 1) || !guac_manifest_utf8(host))
			host[0] = '\0';
		host[size - 1] = '\0';
		return true;
	}
	return write_word(name, from, "a host name", host, size);
}

/*
 * The run to record (issue 40): --run, else GUAC_RUN when set and not empty,
 * else none (empty). One word, as the host is: a report's --run names it.
 */
static bool write_run(const struct write_args *a, char *run, size_t size)
{
	const char *name = a->run_arg, *from = "--run";

	if (!name && getenv("GUAC_RUN") && *getenv("GUAC_RUN")) {
		name = getenv("GUAC_RUN");
		from = "GUAC_RUN";
	}
	run[0] = '\0';
	return !name || write_word(name, from, "a run ID", run, size);
}

/* The table's first part: the options that say what is written where, and how. */
#define WRITE_RANGE_OPTIONS 12
static void write_range_options(struct write_args *a, struct guac_option *opts)
{
	const struct guac_option range[WRITE_RANGE_OPTIONS] = {
		GUAC_OPT_U64_GIVEN('o', "offset", &a->fill.shape.offset, "BYTES",
				   "stream position of the first byte written (default 0)",
				   &a->offset_given),
		GUAC_OPT_U64_GIVEN('n', "length", &a->fill.shape.length, "BYTES",
				   "bytes to write (default: the rest of TARGET from --seek; required "
				   "for a file that is not that long)", &a->length_given),
		GUAC_OPT_U64_GIVEN(0, "origin", &a->fill.shape.origin, "BLOCK",
				   "block index added to the position, mod 2^64 (default: a fresh one "
				   "for every fill, printed; see docs/storage.md)", &a->origin_given),
		GUAC_OPT_U64_GIVEN(0, "seek", &a->fill.shape.seek, "BYTES",
				   "byte of TARGET where the data starts (default 0)", &a->seek_given),
		GUAC_OPT_CALLBACK(0, "direct", &a->fill.direct, NULL,
				  "O_DIRECT: bypass the page cache (default for block devices; "
				  "refused where impossible, e.g. tmpfs)", guac_opt_direct),
		GUAC_OPT_CALLBACK(0, "buffered", &a->fill.direct, NULL,
				  "go through the page cache, even on a block device",
				  guac_opt_direct),
		GUAC_OPT_CALLBACK_GIVEN(0, "bs", &a->fill.shape.block_size, "BYTES",
					"bytes per write system call, whole sectors (default 1M)",
					guac_opt_bs, &a->bs_given),
		GUAC_OPT_STRING(0, "bs-split", &a->bs_split_arg, "SIZE/PCT[:SIZE/PCT...]",
				"write each --bs block in equal writes of one size drawn from these "
				"(fio's bssplit, e.g. 4k/50:64k/50): at most 8 distinct sizes, each "
				"dividing --bs in whole sectors, integer percentages summing to 100; "
				"drawn per block from the seed (0 for a sequential fill), the pass and "
				"the block (docs/storage.md); recorded, a resume keeps it"),
		GUAC_OPT_CALLBACK('j', "jobs", &a->fill.shape.jobs, "N",
				  "threads, each writing its own contiguous part (default 1)",
				  guac_opt_jobs),
		GUAC_OPT_FLAG(0, "sync", &a->fill.sync,
			      "O_DSYNC: every write is durable when it returns"),
		GUAC_OPT_CALLBACK(0, "rate", &a->fill.rate, "RATE",
				  "write at most RATE bytes a second over all jobs together (as fio's "
				  "rate=; 50M is 50 MiB/s), each --bs block waiting its turn; "
				  "--verify-backlog's reads not counted; at least one --bs block an "
				  "hour; default: no limit. Not recorded: a resume may give another",
				  guac_opt_rate),
		GUAC_OPT_U64(0, "iodepth", &a->iodepth, "N",
			     "writes in flight a job, 1 to 256: 1 (default) one pwrite at a time, "
			     "the next block generated meanwhile; more through io_uring, each with "
			     "its own --bs buffer (where io_uring is unavailable or disabled, or "
			     "GUAC_IO_URING=off: pwrite, said on stderr); not with --verify-backlog"),
	};

	memcpy(opts, range, sizeof(range));
}

/* The table's --crash-safe part. */
#define WRITE_CRASH_OPTIONS 4
static void write_crash_options(struct write_args *a, struct guac_option *opts)
{
	const struct guac_option crash[WRITE_CRASH_OPTIONS] = {
		GUAC_OPT_FLAG(0, "crash-safe", &a->fill.crash_safe,
			      "power-loss validation (docs/crash-safety.md): keep a 16 KiB journal, "
			      "synced after an fdatasync of TARGET at each flush, from which `guac "
			      "verify --after-crash` tells what every sector may hold after a crash; "
			      "not with --resume or --shard, at most 128 jobs"),
		GUAC_OPT_STRING(0, "journal", &a->fill.journal, "PATH",
				"--crash-safe: keep the journal in PATH (a file, created if missing, "
				"or a block device; not TARGET) instead of TARGET's last 16 KiB (a "
				"device's, which the default length leaves out; a file's, after the "
				"fill)"),
		GUAC_OPT_CALLBACK_GIVEN(0, "flush-interval", &a->fill.flush_interval, "SECONDS",
					"--crash-safe: at most SECONDS between flushes (default 1), "
					"and one whenever a job reaches --crash-window",
					guac_opt_flush_interval, &a->flush_interval_given),
		GUAC_OPT_U64_GIVEN(0, "crash-window", &a->crash_window, "N",
				   "--crash-safe: --bs blocks a job may write past the last flush "
				   "(1 to 1048576, default 64): what may be old or new after a crash",
				   &a->crash_window_given),
	};

	memcpy(opts, crash, sizeof(crash));
}

/* The option table's part of write_parse_args(): the operands' count, or GUAC_PARSE_*. */
static int write_parse_options(struct write_args *a, int argc, char **argv)
{
	char impl_help[128];
	struct guac_option opts[WRITE_RANGE_OPTIONS + WRITE_CRASH_OPTIONS + 21];
	const struct guac_option rest[21] = {
		GUAC_OPT_STRING(0, "pattern", &a->pattern_arg, "NAME",
				"sequential (default: each job writes its part in address order) or "
				"random: every --bs block once a pass, in a seeded random order; the "
				"length must be whole --bs blocks, not with --shard (docs/storage.md)"),
		GUAC_OPT_U64_GIVEN(0, "passes", &a->passes, "N",
				   "random: write the fill N times (1 to 1000, default 1), each pass "
				   "in its own order with its own origin, the last one's recorded",
				   &a->passes_given),
		GUAC_OPT_U64_GIVEN(0, "seed", &a->fill.shape.seed, "S",
				   "random: the order's seed (default: drawn, printed in the "
				   "manifest)", &a->seed_given),
		GUAC_OPT_U64(0, "verify-backlog", &a->fill.verify_backlog, "N",
			     "verify while writing: each job reads a block back and compares it "
			     "with the stream once N more --bs blocks of its own are written (the "
			     "rest at the end); 0 (default) off, at most 1048576; read with O_DIRECT "
			     "where the file system allows it, else through the page cache"),
		GUAC_OPT_STRING(0, "verify-backlog-on-error", &a->backlog_on_error_arg, "WHAT",
				"stop (default: the fill stops at the first block read back wrong, "
				"exit 1) or continue (the fill goes on, mismatches counted, exit 1)"),
		GUAC_OPT_STRING('m', "manifest", &a->fill.manifest, "FILE",
				"record the write (docs/manifest.md); an existing manifest of another "
				"stream range moves into its history; not TARGET itself"),
		GUAC_OPT_FLAG(0, "resume", &a->fill.resume,
			      "continue the fill the manifest records, from its durable bytes (a "
			      "requeued batch task) with its options (--origin, --offset, --seek, "
			      "--length, --bs: any given must match) and target; no manifest yet: a "
			      "new fill; a writer killed outright resumes from what it recorded "
			      "while writing (every GUAC_CHECKPOINT_SECONDS, 10)"),
		GUAC_OPT_FLAG(0, "allow-overcommit", &a->fill.allow_overcommit,
			      "write a file even when the length is more than its file system "
			      "reports free (thin-provisioned, compressing or deduplicating file "
			      "systems)"),
		GUAC_OPT_STRING(0, "shard", &a->shard_arg, "K/N",
				"write only part K of N equal sector-aligned parts (N and N x --jobs "
				"at most 4096, what a merge holds)"),
		GUAC_OPT_STRING(0, "shards", &a->shards_arg, "N",
				"the N for JOB_COMPLETION_INDEX (also GUAC_SHARDS); "
				"SLURM_ARRAY_TASK_ID/COUNT work alone"),
		GUAC_OPT_STRING(0, "host", &a->host_arg, "NAME",
				"the host the manifest records (default: GUAC_HOST, else the host "
				"name): the name a fleet's inventory uses, such as Slurm's "
				"SLURMD_NODENAME or a pod's node"),
		GUAC_OPT_FLAG('f', "force", &a->fill.force,
			      "write over the signatures found on TARGET (file system, partition "
			      "table, RAID or LVM member), not over a target in use; and write an "
			      "--origin whose stream is within the target's length of a fill the "
			      "manifest records (the bytes alias)"),
		GUAC_OPT_FLAG(0, "dry-run", &a->dry_run,
			      "check everything, print the plan (target, its kind, size and "
			      "signatures, the range, the manifest) and write nothing, not even "
			      "the manifest"),
		GUAC_OPT_STRING(0, "run", &a->run_arg, "ID",
				"the run the manifest records (default: GUAC_RUN, else none; a resume "
				"without one keeps the manifest's): the fleet run this fill is of, which "
				"`guac report --run ID` counts alone (a Slurm job or array ID, a label)"),
		GUAC_OPT_FLAG(0, "json", &a->json,
			      "print the report as one JSON object on standard output (the text's "
			      "facts, the exit status and its reason)"),
		GUAC_OPT_CALLBACK(0, "progress", &a->fill.progress, "MODE",
				  GUAC_IO_PROGRESS_HELP "), none, or auto (default: tty on a terminal, "
				  "else log, as in a batch job's output file)", guac_opt_progress),
		GUAC_OPT_CALLBACK(0, "progress-interval", &a->fill.progress_interval, "SECONDS",
				  "seconds between log lines (default 30)", guac_opt_progress_interval),
		GUAC_OPT_STRING(0, "impl", &a->impl_arg, "NAME", impl_help),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};

	write_range_options(a, opts);
	write_crash_options(a, opts + WRITE_RANGE_OPTIONS);
	memcpy(opts + WRITE_RANGE_OPTIONS + WRITE_CRASH_OPTIONS, rest, sizeof(rest));
	snprintf(impl_help, sizeof(impl_help), "generator: %s", guac_impl_choices());
	return guac_parse_options(argc, argv, opts, &write_usage, 0);
}

/* After the table: --impl, the one TARGET, --json's company. */
static int write_parse_operands(struct write_args *a, int n, char **argv)
{
	if (n < 0)
		return n == GUAC_PARSE_DONE ? GUAC_PARSE_DONE : GUAC_EXIT_ERROR;
	/* Checked here, not by a callback that exits (or adds a hint it never had). */
	if (a->impl_arg) {
		a->fill.impl = guac_impl_check(a->impl_arg);
		if (a->fill.impl < 0)
			return GUAC_EXIT_ERROR;
	}
	if (n != 1) {
		if (!n)
			guac_err("missing TARGET (a block device or a regular file)");
		else
			guac_err("unexpected argument '%s' after TARGET", argv[1]);
		return GUAC_EXIT_ERROR;
	}
	a->fill.target = argv[0];
	if (a->json && a->dry_run) {
		guac_err("--json reports a write: not with --dry-run (its plan is text)");
		return GUAC_EXIT_ERROR;
	}
	return GUAC_EXIT_OK;
}

/* GUAC_CHECKPOINT_SECONDS: between the fill's progress records (default 10; 0: none). */
static bool write_checkpoint_seconds(double *secs)
{
	const char *env = getenv("GUAC_CHECKPOINT_SECONDS");
	char *end;

	*secs = 10;
	if (!env || !*env)
		return true;
	errno = 0;
	*secs = strtod(env, &end);
	if (errno || *end || !(*secs >= 0 && *secs <= 86400)) {
		guac_err("invalid GUAC_CHECKPOINT_SECONDS '%s': expected 0 (never) to 86400", env);
		return false;
	}
	return true;
}

/* "1.50 GiB" of @n, for the messages below. */
static const char *write_human(char *buf, size_t size, uint64_t n)
{
	return guac_fmt_bytes(buf, size, (double)n);
}

/* What a write did, for its report in text or JSON and its exit status. */
struct write_outcome {
	const struct write_args *a;
	const struct guac_fill *f;
	const struct guac_target *t;
	const struct guac_io *io;
	const struct guac_manifest *m;
	const struct guac_shard *shard;
	const struct guac_fill_outcome *out;
	const struct guac_fill_shape *sh;	/* as planned */
	int exit_status;
};

/* The exit status of how the fill ended. */
static int write_exit_status(enum guac_fill_end end)
{
	switch (end) {
	case GUAC_FILL_COMPLETE:
		return GUAC_EXIT_OK;
	case GUAC_FILL_IO_ERROR:
	case GUAC_FILL_JOURNAL_FAILED:
		return GUAC_EXIT_IO;	/* the target's I/O, not this machine's memory or limits */
	case GUAC_FILL_BAD_DATA:
		return GUAC_EXIT_FAIL;	/* as guac verify's for bad data */
	case GUAC_FILL_INTERRUPTED:
		return WRITE_EXIT_INTERRUPTED;
	default:
		return GUAC_EXIT_ERROR;
	}
}

/* The word a script tests: why the write ended with its exit status. */
static const char *write_exit_reason(const struct write_outcome *o)
{
	switch (o->exit_status) {
	case GUAC_EXIT_OK:
		return "complete";
	case GUAC_EXIT_IO:
		return "io_error";
	case GUAC_EXIT_FAIL:
		return "bad_data";
	case WRITE_EXIT_INTERRUPTED:
		return "interrupted";
	default:
		return "error";
	}
}

/*
 * A random fill: its seed and passes, and short of the end, how far the pass
 * under way got (its steps a job; the blocks they are spread over the fill).
 */
static void write_report_random(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	const struct guac_manifest *m = o->m;
	uint64_t bs = o->sh->block_size;
	unsigned int i;

	printf("random pattern: seed %" PRIu64 ", pass %u of %u (origin %" PRIu64 "), %" PRIu64
	       " blocks a pass\n", m->seed, m->pass + 1, m->passes,
	       guac_manifest_pass_origin(m, m->pass), io->length / bs);
	if (o->out->durable == o->out->total || !o->out->durable_ok)
		return;
	for (i = 0; i < io->jobs; i++) {
		const struct guac_io_job *j = &io->job[i];
		uint64_t d = atomic_load(&j->done);

		if (d != j->end - j->start)
			printf("  job %u: steps %" PRIu64 "-%" PRIu64 " of the pass, %" PRIu64
			       " durable\n", i, j->start / bs, j->end / bs - 1, d / bs);
	}
}

/* --crash-safe: where the journal is, what it holds, and how to check after a crash. */
static void write_report_journal(const struct write_outcome *o)
{
	const struct guac_fill_options *fo = &o->a->fill;
	const struct guac_fill_outcome *out = o->out;

	if (!fo->crash_safe)
		return;
	if (out->journal_err)
		printf("FAILED: the crash-safe journal: %s: the fill stopped there\n",
		       strerror(out->journal_err));
	printf("crash-safe: %" PRIu64 " journal record%s at byte %" PRIu64 " of '%s'%s; after "
	       "a crash: guac verify --after-crash%s%s %s\n", out->journal_records,
	       out->journal_records == 1 ? "" : "s", o->f->journal_at,
	       fo->journal ? fo->journal : fo->target, fo->journal ? "" : " (the target's end)",
	       fo->journal ? " --journal " : "", fo->journal ? fo->journal : "", fo->target);
}

/* --verify-backlog's FAILED line: the first block read back wrong, and what followed. */
static void write_report_mismatch(const struct write_outcome *o)
{
	const struct guac_fill_outcome *out = o->out;

	if (!out->mismatches)
		return;
	printf("FAILED: a block read back differs from the stream: device bytes %" PRIu64 "-%"
	       PRIu64 ", first differing byte %" PRIu64 " (sector %" PRIu64 ")", out->mismatch_start,
	       out->mismatch_start + out->mismatch_len - 1, out->mismatch_byte,
	       out->mismatch_byte / o->t->sector);
	if (o->a->fill.backlog_continue)
		printf("; %" PRIu64 " block%s differ%s, the fill went on\n", out->mismatches,
		       out->mismatches == 1 ? "" : "s", out->mismatches == 1 ? "s" : "");
	else
		printf("; the fill stopped there (--verify-backlog-on-error stop)\n");
}

/* How the jobs write at @depth: through io_uring with a queue depth, or one pwrite at a time. */
static const char *write_engine_name(unsigned int depth)
{
	return depth > 1 ? "io_uring" : "pwrite";
}

static unsigned int write_depth(unsigned int depth)
{
	return depth > 1 ? depth : 1;
}

/* Why io_uring did not write: GUAC_IO_URING=off (-1), or the errno of its setup. */
static const char *write_uring_why(int err)
{
	return err == -1 ? "GUAC_IO_URING=off" : strerror(err);
}

/* The buffers a job holds, for the refusal of too many. */
static const char *write_buffer_blocks(char *buf, size_t size, const struct guac_fill_options *o)
{
	if (o->iodepth > 2)
		snprintf(buf, size, "%" PRIu64 " blocks a job, one a write in flight (--iodepth %u)",
			 guac_fill_job_buffers(o), o->iodepth);
	else
		snprintf(buf, size, "%s blocks a job",
			 o->verify_backlog ? "four, with --verify-backlog's two" : "two");
	return buf;
}

/* The FAILED lines, and the OK, INTERRUPTED or DURABLE line with the fill's numbers. */
static void write_report_text(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	const struct guac_fill_outcome *out = o->out;
	char human[32], rate[32], soff[32], limit[48], split[GUAC_BS_SPLIT_STR];
	unsigned int i;

	guac_fmt_bytes(human, sizeof(human), (double)out->durable);
	guac_fmt_rate(rate, sizeof(rate), io->seconds > 0 ? out->ran / io->seconds : 0);
	if (out->first_err)
		printf("FAILED: %s at device byte %" PRIu64 " (sector %" PRIu64 ")\n",
		       strerror(out->first_err), out->first_err_pos, out->first_err_pos / o->t->sector);
	if (io->sync_error)
		printf("FAILED: fsync: %s%s\n", strerror(io->sync_error),
		       o->a->fill.sync ? " (each write was O_DSYNC, so what completed is durable)" :
		       ": no byte of this run can be counted durable");
	if (out->thread_err)
		printf("FAILED: cannot start a thread: %s: its part was not written\n",
		       strerror(out->thread_err));
	if (out->lost)
		printf("FAILED: %s: %s\n", out->lost, out->lost_why);
	if (!out->saved)
		printf("FAILED: the manifest '%s' could not be saved: no record of this fill\n",
		       o->a->fill.manifest);
	write_report_mismatch(o);
	printf("%s", !out->failed && out->done == out->total ? "OK: " :
	       !out->failed ? "INTERRUPTED: " : "DURABLE: ");
	/*
	 * Short of the whole, the range is the fill's, not what is durable: say
	 * so (issue 36, U10; the job lines below say which bytes are).
	 */
	printf("%" PRIu64 " of %" PRIu64 " bytes (%s) durable (fsynced)%s at device bytes %" PRIu64
	       "-%" PRIu64 " of %s '%s': stream offset %s, origin %" PRIu64,
	       out->durable, out->total, human, out->durable == out->total ? "" : ", of the fill",
	       io->base, io->base + out->total - 1,
	       o->t->kind == GUAC_TARGET_BLOCK ? "block device" : "file", o->a->fill.target,
	       guac_spos_str(soff, sizeof(soff), out->stream_start), o->sh->origin);
	if (o->shard->count > 1)
		printf(", shard %u/%u", o->shard->index, o->shard->count);
	printf("; %s I/O, %u job%s, %s, queue depth %u, bs %" PRIu64 ", %u-byte sectors",
	       guac_target_mode(o->t), io->jobs, io->jobs == 1 ? "" : "s",
	       write_engine_name(io->iodepth), write_depth(io->iodepth), o->sh->block_size,
	       o->t->sector);
	if (o->sh->split.n)
		printf(", bs split %s", guac_bs_split_str(split, sizeof(split), &o->sh->split));
	if (o->a->fill.rate)
		printf(", rate limit %s", guac_rate_limit_str(limit, sizeof(limit), o->a->fill.rate));
	printf("; %.3f s, %s\n", io->seconds, rate);
	if (o->a->fill.verify_backlog)
		printf("read back: %" PRIu64 " blocks (%" PRIu64 " bytes), %" PRIu64 " mismatch%s; "
		       "%s, %" PRIu64 " blocks behind\n", out->read_back_blocks, out->read_back_bytes,
		       out->mismatches, out->mismatches == 1 ? "" : "es",
		       io->backlog_direct ? "O_DIRECT" : "buffered (the page cache may answer)",
		       o->a->fill.verify_backlog);
	write_report_journal(o);
	if (o->sh->random)
		write_report_random(o);
	else if (out->durable < out->total && out->durable_ok) {
		for (i = 0; i < io->jobs; i++) {
			const struct guac_io_job *j = &io->job[i];
			uint64_t d = atomic_load(&j->done);

			if (d == j->end - j->start)
				continue;
			printf("  job %u: ", i);
			if (d)
				printf("device bytes %" PRIu64 "-%" PRIu64 " durable, ",
				       io->base + j->start, io->base + j->start + d - 1);
			printf("device bytes %" PRIu64 "-%" PRIu64 " not written\n",
			       io->base + j->start + d, io->base + j->end - 1);
		}
	}
}

/* "key":"value" (null when empty), with the comma before it. */
static void write_json_text(const char *key, const char *value)
{
	printf(",\"%s\":", key);
	if (value && *value)
		guac_json_string(stdout, value);
	else
		printf("null");
}

/* The parts not durable, as the text's job lines: "not_durable":[{...}]. */
static void write_json_not_durable(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	const struct guac_fill_outcome *out = o->out;
	unsigned int i, n = 0;

	printf(",\"not_durable\":[");
	for (i = 0; i < io->jobs; i++) {
		const struct guac_io_job *j = &io->job[i];
		uint64_t d = out->durable_ok ? atomic_load(&j->done) : 0;

		if (d == j->end - j->start)
			continue;
		printf("%s{\"job\":%u,\"first_byte\":%" PRIu64 ",\"last_byte\":%" PRIu64 "}",
		       n++ ? "," : "", i, io->base + j->start + d, io->base + j->end - 1);
	}
	printf("]");
}

/*
 * --resume of a fill the manifest records complete: nothing is written, and
 * the report says so (--json: an object with the recorded numbers).
 */
static void write_report_complete(const struct write_args *a, const struct guac_manifest *old)
{
	const char *manifest = a->fill.manifest;

	if (!a->json) {
		printf("OK: nothing to resume: '%s' records this fill complete, %" PRIu64
		       " bytes durable (finished %s)\n", manifest, guac_manifest_done(old),
		       old->finished);
		return;
	}
	printf("{\"target\":");
	guac_json_string(stdout, a->fill.target);
	printf(",\"kind\":\"%s\",\"origin\":%" PRIu64 ",\"offset\":%" PRIu64
	       ",\"device_offset\":%" PRIu64 ",\"length\":%" PRIu64 ",\"bytes_written\":0"
	       ",\"bytes_durable\":%" PRIu64 ",\"status\":\"complete\",\"result\":\"ok\""
	       ",\"nothing_to_resume\":true", old->target_type, old->origin, old->stream_offset,
	       old->device_offset, old->length, guac_manifest_done(old));
	write_json_text("manifest", manifest);
	write_json_text("finished", old->finished);
	printf(",\"exit_status\":0,\"exit_reason\":\"complete\"}\n");
}

/* --json: "io_uring_unavailable" when --iodepth asked for io_uring and some or all jobs had none. */
static void write_json_uring(const struct write_outcome *o)
{
	int err = o->f->uring_error ? o->f->uring_error : atomic_load(&o->io->uring_error);

	if (err)
		write_json_text("io_uring_unavailable", write_uring_why(err));
}

/* --json: the text report's facts as one object on standard output. */
static void write_report_json(const struct write_outcome *o)
{
	const struct guac_io *io = o->io;
	const struct guac_fill_outcome *out = o->out;
	const struct guac_manifest *m = o->m;
	char soff[32], split[GUAC_BS_SPLIT_STR];

	printf("{\"target\":");
	guac_json_string(stdout, o->a->fill.target);
	printf(",\"kind\":\"%s\",\"size\":%" PRIu64 ",\"sector\":%u",
	       o->t->kind == GUAC_TARGET_BLOCK ? "block" : "file", m->target_size, o->t->sector);
	write_json_text("serial", m->serial);
	write_json_text("wwid", m->wwid);
	write_json_text("identity", m->identity);
	write_json_text("host", m->host);
	write_json_text("run", m->run);
	printf(",\"origin\":%" PRIu64 ",\"offset\":%s,\"device_offset\":%" PRIu64
	       ",\"length\":%" PRIu64 ",\"shard\":", o->sh->origin,
	       guac_spos_str(soff, sizeof(soff), out->stream_start), io->base, out->total);
	if (o->shard->count > 1) {
		printf("{\"index\":%u,\"count\":%u,\"from\":", o->shard->index, o->shard->count);
		guac_json_string(stdout, o->shard->source);
		printf("}");
	} else {
		printf("null");
	}
	printf(",\"engine\":\"%s\",\"iodepth\":%u", write_engine_name(io->iodepth),
	       write_depth(io->iodepth));
	write_json_uring(o);
	printf(",\"io_mode\":\"%s\",\"jobs\":%u,\"block_size\":%" PRIu64 ",\"sync\":%s"
	       ",\"resumed_bytes\":%" PRIu64 ",\"bytes_written\":%" PRIu64
	       ",\"bytes_durable\":%" PRIu64 ",\"fsynced\":%s",
	       guac_target_mode(o->t), io->jobs, o->sh->block_size, o->a->fill.sync ? "true" : "false",
	       out->resumed, out->done, out->durable, out->durable_ok ? "true" : "false");
	if (o->sh->random)
		printf(",\"not_durable\":null,\"pattern\":\"random\",\"seed\":%" PRIu64
		       ",\"passes\":%u,\"pass\":%u",
		       m->seed, m->passes, m->pass);
	else
		write_json_not_durable(o);
	printf(",\"status\":\"%s\",\"result\":\"%s\"", guac_fill_status_name(m->status),
	       !out->failed && out->done == out->total ? "ok" :
	       !out->failed ? "interrupted" : "failed");
	write_json_text("error", m->error);
	if (out->first_err)
		printf(",\"error_byte\":%" PRIu64 ",\"error_sector\":%" PRIu64, out->first_err_pos,
		       out->first_err_pos / o->t->sector);
	if (o->a->fill.rate)
		printf(",\"rate_limit\":%" PRIu64, o->a->fill.rate);
	else
		printf(",\"rate_limit\":null");
	write_json_text("bs_split", guac_bs_split_str(split, sizeof(split), &o->sh->split));
	if (o->a->fill.verify_backlog)
		printf(",\"verify_backlog\":%" PRIu64 ",\"read_back_blocks\":%" PRIu64
		       ",\"read_back_bytes\":%" PRIu64 ",\"mismatches\":%" PRIu64,
		       o->a->fill.verify_backlog, out->read_back_blocks, out->read_back_bytes,
		       out->mismatches);
	if (o->a->fill.verify_backlog)
		printf(",\"read_back_direct\":%s", io->backlog_direct ? "true" : "false");
	if (out->mismatches)
		printf(",\"mismatch_first_byte\":%" PRIu64 ",\"mismatch_last_byte\":%" PRIu64
		       ",\"mismatch_byte\":%" PRIu64, out->mismatch_start,
		       out->mismatch_start + out->mismatch_len - 1, out->mismatch_byte);
	if (o->a->fill.crash_safe) {
		write_json_text("journal", o->a->fill.journal ? o->a->fill.journal :
					   o->a->fill.target);
		printf(",\"journal_byte\":%" PRIu64 ",\"journal_records\":%" PRIu64,
		       o->f->journal_at, out->journal_records);
	}
	write_json_text("manifest", o->a->fill.manifest);
	printf(",\"manifest_saved\":%s", o->a->fill.manifest && out->saved ? "true" : "false");
	write_json_text("started", m->started);
	write_json_text("finished", m->finished);
	printf(",\"seconds\":%.6f,\"bytes_per_second\":%.0f,\"exit_status\":%d,"
	       "\"exit_reason\":\"%s\"}\n", io->seconds,
	       io->seconds > 0 ? out->ran / io->seconds : 0.0, o->exit_status, write_exit_reason(o));
}

/* --pattern, --passes and --seed: a random fill's, checked; false after a message. */
static bool write_parse_pattern(struct write_args *a)
{
	const char *p = a->pattern_arg;

	if (p && strcmp(p, "sequential") && strcmp(p, "random")) {
		guac_err("invalid --pattern '%s': expected sequential or random", p);
		return false;
	}
	a->fill.shape.random = p && !strcmp(p, "random");
	a->fill.shape.passes = a->passes_given ? (unsigned int)a->passes : 1;
	if (a->passes_given && (!a->passes || a->passes > WRITE_MAX_PASSES)) {
		guac_err("invalid --passes %" PRIu64 ": expected 1 to %d", a->passes,
			 WRITE_MAX_PASSES);
		return false;
	}
	/* A resume without --pattern takes the recorded one, which the others must then fit. */
	if ((a->passes_given || a->seed_given) && !a->fill.shape.random && (p || !a->fill.resume)) {
		guac_err("--%s is for --pattern random (a sequential fill has one order and one "
			 "pass)", a->passes_given ? "passes" : "seed");
		return false;
	}
	return true;
}

/* --verify-backlog and what a mismatch does; false after a message. */
static bool write_parse_backlog(struct write_args *a)
{
	const char *w = a->backlog_on_error_arg;

	if (a->fill.verify_backlog > GUAC_IO_MAX_BACKLOG) {
		guac_err("invalid --verify-backlog %" PRIu64 ": expected 0 (off) to %u blocks",
			 a->fill.verify_backlog, GUAC_IO_MAX_BACKLOG);
		return false;
	}
	if (w && strcmp(w, "stop") && strcmp(w, "continue")) {
		guac_err("invalid --verify-backlog-on-error '%s': expected stop or continue", w);
		return false;
	}
	a->fill.backlog_continue = w && !strcmp(w, "continue");
	return true;
}

/* --crash-safe's options: its own, and only with it; false after a message. */
static bool write_parse_crash_safe(struct write_args *a)
{
	const char *alone = a->fill.journal ? "--journal" : a->flush_interval_given ?
			    "--flush-interval" : a->crash_window_given ? "--crash-window" : NULL;

	if (!a->fill.crash_safe && alone) {
		guac_err("%s is for a --crash-safe fill: give --crash-safe too", alone);
		return false;
	}
	if (a->crash_window_given && (!a->crash_window || a->crash_window > GUAC_IO_MAX_BACKLOG)) {
		guac_err("invalid --crash-window %" PRIu64 ": expected 1 to %u blocks",
			 a->crash_window, GUAC_IO_MAX_BACKLOG);
		return false;
	}
	if (a->fill.journal && !*a->fill.journal) {
		guac_err("invalid --journal '': expected a file or block device");
		return false;
	}
	a->fill.crash_window = (unsigned int)a->crash_window;
	return true;
}

/*
 * --iodepth, and GUAC_IO_URING (off: pwrite whatever the depth, for tests
 * of the fallback; auto or unset: io_uring where it works); false after a
 * message.
 */
static bool write_parse_iodepth(struct write_args *a)
{
	const char *env = getenv("GUAC_IO_URING");

	if (a->iodepth < 1 || a->iodepth > WRITE_MAX_IODEPTH) {
		guac_err("invalid --iodepth %" PRIu64 ": expected 1 to %d writes in flight a job",
			 a->iodepth, WRITE_MAX_IODEPTH);
		return false;
	}
	if (a->iodepth > 1 && a->fill.verify_backlog) {
		guac_err("--verify-backlog reads back each job's blocks in order, one write at a "
			 "time: not with --iodepth %" PRIu64 " (give --iodepth 1)", a->iodepth);
		return false;
	}
	if (env && *env && strcmp(env, "off") && strcmp(env, "auto")) {
		guac_err("invalid GUAC_IO_URING '%s': expected off or auto", env);
		return false;
	}
	a->uring_off = env && !strcmp(env, "off");
	a->fill.iodepth = (unsigned int)a->iodepth;
	return true;
}

/*
 * What is wrong with --bs-split @arg (@recorded: the manifest's one; @s as
 * parsed; @bs and @sector the plan's, 0 before it), entry @which at fault.
 */
static void write_say_bs_split(const char *arg, bool recorded, const struct guac_bs_split *s,
			       enum guac_bs_split_problem problem, unsigned int which, uint64_t bs,
			       unsigned int sector)
{
	const char *was = recorded ? " (the recorded one)" : "";
	uint64_t size = s->size[which];
	unsigned int i, sum = 0;

	for (i = 0; i < s->n; i++)
		sum += s->percent[i];
	if (problem == GUAC_BS_SPLIT_ZERO_SIZE)
		guac_err("invalid --bs-split '%s'%s: a size of 0 bytes (entry %u)", arg, was,
			 which + 1);
	else if (problem == GUAC_BS_SPLIT_ZERO_PERCENT)
		guac_err("invalid --bs-split '%s'%s: size %" PRIu64 " at 0%% (leave it out)", arg,
			 was, size);
	else if (problem == GUAC_BS_SPLIT_DUPLICATE)
		guac_err("invalid --bs-split '%s'%s: size %" PRIu64 " is given twice (give it once, "
			 "with the percentages added)", arg, was, size);
	else if (problem == GUAC_BS_SPLIT_NOT_100)
		guac_err("invalid --bs-split '%s'%s: the percentages sum to %u, not 100", arg, was,
			 sum);
	else if (problem == GUAC_BS_SPLIT_NOT_DIVIDING)
		guac_err("invalid --bs-split '%s'%s: size %" PRIu64 " does not divide --bs %" PRIu64
			 " (each block is written in equal writes of one size); nothing written",
			 arg, was, size, bs);
	else if (problem == GUAC_BS_SPLIT_NOT_SECTORS)
		guac_err("invalid --bs-split '%s'%s: size %" PRIu64 " is not whole %u-byte sectors "
			 "of the target; nothing written", arg, was, size, sector);
	else if (problem == GUAC_BS_SPLIT_TOO_MANY)
		guac_err("invalid --bs-split '%s'%s: more than %d sizes", arg, was,
			 GUAC_BS_SPLIT_MAX);
}

/* One SIZE/PCT of --bs-split, @len bytes at @p, into entry s->n; false after a message. */
static bool write_parse_bs_entry(const char *arg, const char *p, size_t len,
				 struct guac_bs_split *s)
{
	char entry[64], *slash, *end;
	unsigned long percent;

	if (s->n == GUAC_BS_SPLIT_MAX) {
		write_say_bs_split(arg, false, s, GUAC_BS_SPLIT_TOO_MANY, 0, 0, 0);
		return false;
	}
	if (len && len < sizeof(entry)) {
		memcpy(entry, p, len);
		entry[len] = '\0';
	}
	slash = len && len < sizeof(entry) ? strchr(entry, '/') : NULL;
	if (!slash || !isdigit((unsigned char)slash[1])) {
		guac_err("invalid --bs-split '%s': expected SIZE/PERCENT[:SIZE/PERCENT...], such "
			 "as 4k/50:64k/50", arg);
		return false;
	}
	*slash = '\0';
	if (!guac_parse_u64("--bs-split size", entry, &s->size[s->n]))
		return false;
	errno = 0;
	percent = strtoul(slash + 1, &end, 10);
	if (errno || *end || percent > 100) {
		guac_err("invalid --bs-split '%s': percentage '%s' is not an integer from 1 to 100",
			 arg, slash + 1);
		return false;
	}
	s->percent[s->n++] = (unsigned int)percent;
	return true;
}

/*
 * --bs-split (fio's bssplit syntax): its entries, checked but against the
 * block and sector sizes, which the plan knows; false after a message.
 */
static bool write_parse_bs_split(struct write_args *a)
{
	struct guac_bs_split *s = &a->fill.shape.split;
	const char *arg = a->bs_split_arg, *p = arg;
	enum guac_bs_split_problem problem;
	unsigned int which;

	if (!arg)
		return true;
	for (;;) {
		size_t len = strcspn(p, ":");

		if (!write_parse_bs_entry(arg, p, len, s))
			return false;
		if (!p[len])
			break;
		p += len + 1;
	}
	problem = guac_bs_split_check(s, 0, 0, &which);
	if (problem)
		write_say_bs_split(arg, false, s, problem, which, 0, 0);
	return !problem;
}

/* The fill's values the options fixed: the others default, or a resume takes them. */
static unsigned int write_fixed(const struct write_args *a)
{
	return (a->origin_given ? GUAC_FILL_FIXED_ORIGIN : 0) | (a->offset_given ? GUAC_FILL_FIXED_OFFSET : 0) |
	       (a->seek_given ? GUAC_FILL_FIXED_SEEK : 0) | (a->length_given ? GUAC_FILL_FIXED_LENGTH : 0) |
	       (a->bs_given ? GUAC_FILL_FIXED_BLOCK_SIZE : 0) |
	       (a->pattern_arg ? GUAC_FILL_FIXED_PATTERN : 0) |
	       (a->seed_given ? GUAC_FILL_FIXED_SEED : 0) |
	       (a->passes_given ? GUAC_FILL_FIXED_PASSES : 0) |
	       (a->bs_split_arg ? GUAC_FILL_FIXED_BS_SPLIT : 0);
}

int write_parse_args(struct write_args *a, int argc, char **argv)
{
	int ret;

	*a = (struct write_args){ .iodepth = 1,
				  .fill = { .shape = { .block_size = GUAC_IO_DEFAULT_BS,
							.jobs = 1 },
					    .progress_interval = GUAC_PROGRESS_LOG_SECONDS,
					    .impl = guac_impl_best() } };
	a->fill.progress = guac_progress_auto();
	ret = write_parse_operands(a, write_parse_options(a, argc, argv), argv);
	if (ret)
		return ret;
	if (!guac_shard_parse(&a->fill.shard, a->shard_arg, a->shards_arg))
		return GUAC_EXIT_ERROR;
	if (a->fill.resume && !a->fill.manifest) {
		guac_err("--resume needs --manifest (the fill to continue is recorded there)");
		return GUAC_EXIT_ERROR;
	}
	if (!write_parse_pattern(a) || !write_parse_backlog(a) || !write_parse_iodepth(a) ||
	    !write_parse_crash_safe(a) || !write_parse_bs_split(a))
		return GUAC_EXIT_ERROR;
	if (!write_host(a, a->host, sizeof(a->host)) || !write_run(a, a->run, sizeof(a->run)) ||
	    !write_checkpoint_seconds(&a->fill.checkpoint_seconds))
		return GUAC_EXIT_ERROR;
	a->fill.host = a->host;
	a->fill.run = a->run;
	a->fill.fixed = write_fixed(a);
	return GUAC_EXIT_OK;
}

/* A refusal of --crash-safe's, worded with its options. */
static void write_say_journal_refusal(const struct guac_fill *f, enum guac_fill_reason reason)
{
	const char *target = f->o->target;

	if (reason == GUAC_FILL_CRASH_SAFE_RESUME)
		guac_err("--crash-safe starts a fill: not with --resume (after a crash, check it "
			 "with guac verify --after-crash); nothing written");
	else if (reason == GUAC_FILL_CRASH_SAFE_SHARDED)
		guac_err("--crash-safe keeps one journal for one writer: not with --shard; "
			 "nothing written");
	else if (reason == GUAC_FILL_CRASH_SAFE_JOBS)
		guac_err("--crash-safe: at most %u --jobs (a journal record holds their parts), "
			 "got %" PRIu64 "; nothing written", GUAC_JOURNAL_MAX_JOBS, f->shape.jobs);
	else if (reason == GUAC_FILL_JOURNAL_IS_TARGET)
		guac_err("--journal '%s' is the target: leave --journal out to keep the journal in "
			 "its last 16 KiB; nothing written", f->o->journal);
	else if (reason == GUAC_FILL_JOURNAL_IS_MANIFEST)
		guac_err("--journal '%s' is the manifest: give each its own file; nothing written",
			 f->o->journal);
	else if (reason == GUAC_FILL_JOURNAL_NO_ROOM)
		guac_err("--crash-safe keeps its journal in the last 16 KiB of '%s' (%" PRIu64
			 " bytes): nothing is left for the fill after --seek %" PRIu64 " (or give "
			 "--journal); nothing written", target, f->t.size, f->shape.seek);
	else if (reason == GUAC_FILL_JOURNAL_OVERLAP)
		guac_err("--crash-safe keeps its journal in device bytes %" PRIu64 "-%" PRIu64
			 " of '%s': --seek %" PRIu64 " + --length %" PRIu64 " covers them (at most "
			 "--length %" PRIu64 ", or give --journal); nothing written",
			 f->refusal.start, f->refusal.end - 1, target, f->shape.seek,
			 f->shape.length, f->refusal.start - f->shape.seek);
	else if (reason == GUAC_FILL_JOURNAL_UNUSABLE)
		guac_err("cannot open the journal '%s': %s; nothing written",
			 f->o->journal ? f->o->journal : target, strerror(f->refusal.error));
}

/* The plan's refusal of the split against --bs and the target's sectors. */
static void write_say_bs_split_plan(const struct guac_fill *f)
{
	char arg[GUAC_BS_SPLIT_STR];

	guac_bs_split_str(arg, sizeof(arg), &f->shape.split);
	/* Resumed, it is the recorded one, which --bs may have been given against. */
	write_say_bs_split(arg, !(f->o->fixed & GUAC_FILL_FIXED_BS_SPLIT), &f->shape.split,
			   f->refusal.split_problem, f->refusal.split_entry, f->shape.block_size,
			   f->t.sector);
}

/* A refusal of the range, worded with the options that set it. */
static void write_say_range(const struct guac_fill *f, enum guac_fill_reason reason)
{
	const char *target = f->o->target;
	const struct guac_target *t = &f->t;
	const struct guac_fill_shape *sh = &f->shape;
	unsigned int s = t->sector;

	if (reason == GUAC_FILL_NOTHING_AFTER_SEEK)
		guac_err("--length is needed: '%s' holds %" PRIu64 " bytes, nothing after "
			 "--seek %" PRIu64, target, t->size, sh->seek);
	else if (reason == GUAC_FILL_RANGE_OVERFLOWS)
		guac_err("--seek %" PRIu64 " + --length %" PRIu64 " overflows", sh->seek, sh->length);
	else if (reason == GUAC_FILL_PAST_DEVICE_END)
		guac_err("--seek %" PRIu64 " + --length %" PRIu64 " = %" PRIu64 " is past the end "
			 "of '%s' (%" PRIu64 " bytes)", sh->seek, sh->length, sh->seek + sh->length,
			 target, t->size);
	/*
	 * A disk takes whole sectors whatever the mode (--buffered would only
	 * read the partial ones back first): say what to give, not how to get
	 * round it (issue 36, U10).
	 */
	else if (reason == GUAC_FILL_NOT_WHOLE_SECTORS && t->kind == GUAC_TARGET_BLOCK)
		guac_err("'%s' is written in whole %u-byte sectors: give --seek, --length and --bs "
			 "in multiples of %u (got %" PRIu64 ", %" PRIu64 ", %" PRIu64 "; for "
			 "example --seek %" PRIu64 " --length %" PRIu64 ")", target, s, s, sh->seek,
			 sh->length, sh->block_size, sh->seek / s * s, sh->length / s * s);
	else if (reason == GUAC_FILL_NOT_WHOLE_SECTORS)
		guac_err("--direct on '%s' needs --seek, --length and --bs in whole %u-byte sectors "
			 "(got %" PRIu64 ", %" PRIu64 ", %" PRIu64 "); without --direct a file "
			 "takes any size", target, s, sh->seek, sh->length, sh->block_size);
	else if (reason == GUAC_FILL_EMPTY)
		guac_err("--length 0: nothing to write");
	else if (reason == GUAC_FILL_TOO_MANY_SHARDS)
		guac_shard_say_too_many(&f->o->shard, sh->length, s, "refusing to write");
	else if (reason == GUAC_FILL_BLOCK_NOT_SECTORS)
		guac_err("--bs %" PRIu64 " is not a multiple of the %u-byte sector size of '%s'",
			 sh->block_size, s, target);
	else if (reason == GUAC_FILL_RANDOM_NOT_WHOLE_BLOCKS)
		guac_err("--pattern random writes whole --bs blocks: --length %" PRIu64 " is not a "
			 "multiple of --bs %" PRIu64 " (for example --length %" PRIu64 "); nothing "
			 "written", sh->length, sh->block_size,
			 sh->length / sh->block_size ? sh->length / sh->block_size * sh->block_size :
			 sh->block_size);
	else if (reason == GUAC_FILL_RANDOM_SHARDED)
		guac_err("--pattern random permutes the whole fill's blocks: not with --shard (a "
			 "shard's blocks are not the fill's); nothing written");
	else if (reason == GUAC_FILL_NO_SEED)
		guac_err("cannot draw a seed for --pattern random (getrandom: %s): give --seed",
			 strerror(f->refusal.error));
	else if (reason == GUAC_FILL_BS_SPLIT_INVALID)
		write_say_bs_split_plan(f);
	else
		write_say_journal_refusal(f, reason);
}

/* A refusal for the space the fill would take: memory, the largest file, free space. */
static void write_say_space(const struct guac_fill *f, enum guac_fill_reason reason)
{
	const struct guac_fill_refusal *r = &f->refusal;
	const char *target = f->o->target;
	char h1[32], h2[32], blocks[96];

	if (reason == GUAC_FILL_BUFFERS_EXCEED_MEMORY)
		guac_err("refusing to write: %" PRIu64 " jobs with --bs %" PRIu64 " need %" PRIu64
			 " bytes (%s) of buffers (%s), more than this machine's memory, %" PRIu64
			 " bytes (%s); use fewer jobs or a smaller --bs%s", r->jobs,
			 f->shape.block_size, r->need, write_human(h1, sizeof(h1), r->need),
			 write_buffer_blocks(blocks, sizeof(blocks), f->o), r->avail,
			 write_human(h2, sizeof(h2), r->avail),
			 f->o->iodepth > 2 ? " or --iodepth" : "");
	else if (reason == GUAC_FILL_PAST_LARGEST_OFFSET)
		guac_err("refusing to write: the data would end at byte %" PRIu64 " of '%s', past "
			 "2^63-1 = %" PRId64 ", the largest file offset Linux has; nothing written",
			 r->end, target, INT64_MAX);
	else if (reason == GUAC_FILL_PAST_LARGEST_FILE)
		guac_err("refusing to write: the data would end at byte %" PRIu64 " of '%s' (%s), "
			 "past the largest file its file system holds (a seek there is refused); "
			 "nothing written", r->end, target, write_human(h1, sizeof(h1), r->end));
	else if (reason == GUAC_FILL_NO_SPACE)
		guac_err("refusing to write: %" PRIu64 " bytes (%s) at device bytes %" PRIu64
			 "-%" PRIu64 " of '%s' need %" PRIu64 " bytes of new space (the file "
			 "already holds %" PRIu64 " of them), but its file system has %" PRIu64
			 " bytes (%s) available (statvfs f_bavail); the fill would end in "
			 "ENOSPC. Nothing written. Give a --length that fits, or "
			 "--allow-overcommit for a thin-provisioned, compressing or "
			 "deduplicating file system that holds more than it reports free",
			 r->end - r->start, write_human(h1, sizeof(h1), r->end - r->start),
			 r->start, r->end - 1, target, r->need, r->have, r->avail,
			 write_human(h2, sizeof(h2), r->avail));
}

/* A refusal for the manifest: its path, its directory, what it holds. */
static void write_say_manifest(const struct guac_fill *f, enum guac_fill_reason reason)
{
	const char *target = f->o->target, *manifest = f->o->manifest;
	const struct guac_fill_options *o = f->o;

	if (reason == GUAC_FILL_TOO_MANY_RANGES)
		guac_err("%u shards of %" PRIu64 " jobs each would make %" PRIu64 " ranges, and "
			 "guac manifest merge holds at most %d: use at most %u jobs per shard",
			 o->shard.count, o->shape.jobs, o->shard.count * o->shape.jobs,
			 GUAC_MANIFEST_MAX_RANGES,
			 GUAC_MANIFEST_MAX_RANGES / o->shard.count);
	else if (reason == GUAC_FILL_MANIFEST_INVALID)
		guac_err("refusing to write: '%s' exists and is not a valid manifest "
			 "(move it away to start a new one)", manifest);
	else if (reason == GUAC_FILL_MANIFEST_IS_TARGET)
		guac_err("refusing to write: the manifest '%s' is the target '%s' itself (the "
			 "manifest would replace the data); give the manifest another path",
			 manifest, target);
	else if (reason == GUAC_FILL_NO_ABSOLUTE_PATH)
		guac_err("cannot make an absolute path of '%s' for the manifest: %s", target,
			 strerror(f->refusal.error));
	else if (reason == GUAC_FILL_PATH_NOT_UTF8)
		guac_err("the path '%s' is not valid UTF-8: a manifest (JSON) cannot record it; "
			 "use a name or link that is", target);
	else if (reason == GUAC_FILL_MANIFEST_DIR_UNWRITABLE)
		guac_err("cannot write the manifest in '%s': %s", f->refusal.dir,
			 strerror(f->refusal.error));
	else if (reason == GUAC_FILL_TARGET_REFUSED)
		guac_target_say_refusal(&f->t);
	else if (reason == GUAC_FILL_TARGET_UNUSABLE)
		write_target_usable(target, &f->probe);
	else if (reason == GUAC_FILL_NOT_FILE_OR_DEVICE)
		guac_err("'%s' is neither a regular file nor a block device", target);
}

/* --resume's refusal: which of the recorded fill's values differs (manifest.h's rule). */
static void write_say_mismatch(const struct guac_fill *f)
{
	static const char *const names[] = {
		[GUAC_FILL_ORIGIN] = "origin",
		[GUAC_FILL_STREAM_OFFSET] = "stream offset (--offset)",
		[GUAC_FILL_DEVICE_OFFSET] = "device offset (--seek)",
		[GUAC_FILL_LENGTH] = "length",
		[GUAC_FILL_PATTERN] = "pattern (--pattern)",
		[GUAC_FILL_SEED] = "seed (--seed)",
		[GUAC_FILL_PASSES] = "passes (--passes)",
		[GUAC_FILL_BLOCK_SIZE] = "block size (--bs)",
		[GUAC_FILL_SECTOR_SIZE] = "sector size differs",
		[GUAC_FILL_TARGET_SIZE] = "target size differs",
		[GUAC_FILL_SHARD_COUNT] = "shard differs",
		[GUAC_FILL_SHARD_INDEX] = "shard differs",
		[GUAC_FILL_TARGET_PATH] = "target path differs",
		[GUAC_FILL_TARGET_TYPE] = "target type differs",
		[GUAC_FILL_SERIAL] = "target serial differs",
		[GUAC_FILL_WWID] = "target WWN differs",
		[GUAC_FILL_MACHINE] = "machine differs",
		[GUAC_FILL_IO_MODE] = "I/O mode (--direct/--buffered) differs",
		[GUAC_FILL_IDENTITY] = "identity differs",
		[GUAC_FILL_BS_SPLIT] = "block size split (--bs-split)",
	};
	const struct guac_fill_diff *d = &f->refusal.mismatch;
	char why[160 + 2 * GUAC_BS_SPLIT_STR], was[GUAC_BS_SPLIT_STR], now[GUAC_BS_SPLIT_STR];

	/* The numbers with their values: the one to give again, or to leave out. */
	if (d->field == GUAC_FILL_PATTERN)
		snprintf(why, sizeof(why), "%s differs (recorded %s, given %s; without it --resume "
			 "takes the recorded one)", names[d->field], d->a ? "random" : "sequential",
			 d->b ? "random" : "sequential");
	else if (d->field == GUAC_FILL_BS_SPLIT)
		snprintf(why, sizeof(why), "%s differs (recorded %s, given %s; without it --resume "
			 "takes the recorded one)", names[d->field],
			 f->old.bs_split.n ? guac_bs_split_str(was, sizeof(was), &f->old.bs_split) :
			 "none", guac_bs_split_str(now, sizeof(now), &f->shape.split));
	else if (d->field <= GUAC_FILL_PASSES || d->field == GUAC_FILL_BLOCK_SIZE)
		snprintf(why, sizeof(why), "%s differs (recorded %" PRIu64 ", given %" PRIu64
			 "; without it --resume takes the recorded one)", names[d->field],
			 d->a, d->b);
	else
		snprintf(why, sizeof(why), "%s", names[d->field]);
	guac_err("cannot resume: '%s' records another fill: its %s; nothing written",
		 f->o->manifest, why);
}

/* A refusal on the open target: another target's manifest, a writer, another fill. */
static void write_say_claim(const struct guac_fill *f, enum guac_fill_reason reason)
{
	const struct guac_fill_refusal *r = &f->refusal;
	const char *target = f->o->target, *manifest = f->o->manifest;

	if (reason == GUAC_FILL_OTHER_TARGET)
		guac_err("refusing to write: '%s' records another target than '%s' (%s); this is "
			 "%s. Its fill and history are not this target's: give another --manifest "
			 "(or move that one away); nothing written", manifest, target, r->why,
			 r->which);
	else if (reason == GUAC_FILL_LOCKED)
		guac_err("'%s' is being written by another guac write (it holds the lock of bytes "
			 "%" PRIu64 "-%" PRIu64 " or some of them): two fills of the same bytes at "
			 "once would both be wrong; nothing written", target, r->start, r->end - 1);
	else if (reason == GUAC_FILL_RESUME_DIFFERS)
		write_say_mismatch(f);
	else if (reason == GUAC_FILL_RESUME_RANGES_DIFFER)
		guac_err("cannot resume: the ranges of '%s' are not the parts this write makes of "
			 "its shard (edited?); nothing written", manifest);
}

/*
 * The origin given aliases a recorded fill. A random fill's passes count
 * from its first pass's origin (the last pass's is the one given): the
 * distance is that one's.
 */
static void write_say_alias(const struct guac_fill *f)
{
	const struct guac_fill_refusal *r = &f->refusal;
	const struct guac_origin_clash *c = &r->clash;
	const struct guac_fill_shape *sh = &f->shape;
	uint64_t first = sh->origin - (uint64_t)(sh->random ? sh->passes - 1 : 0) * sh->pass_stride;
	char passes[128] = "";

	if (first != sh->origin)
		snprintf(passes, sizeof(passes), " (the last of %u passes, the first at origin %" PRIu64
			 ")", sh->passes, first);
	guac_err("refusing to write: origin %" PRIu64 "%s puts the stream %" PRIu64 " blocks "
		 "from where %s (origin %" PRIu64 ") put it, less than the %" PRIu64 " blocks this "
		 "fill spans: origins that differ by d are the same stream shifted by 64*d bytes, "
		 "so this fill's bytes would be that fill's, %" PRIu64 " bytes away (or in the "
		 "same place), and a stale or misplaced sector could not be told from a good "
		 "one; nothing written. Leave out --origin for a fresh one, or give --force",
		 sh->origin, passes, c->distance, c->fill ? "an earlier fill the manifest's "
		 "history records" : "the fill the manifest records", c->other, r->need,
		 64 * c->distance);
}

/* Why the fill has no origin: the options that would give it one. */
static void write_say_origin(const struct guac_fill *f)
{
	const struct guac_fill_refusal *r = &f->refusal;
	const struct guac_origin_clash *c = &r->clash;
	const struct guac_shard *shard = &f->o->shard;

	switch (r->origin) {
	case GUAC_ORIGIN_CHOSEN:
		break;
	case GUAC_ORIGIN_NO_RANDOMNESS:
		guac_err("cannot draw a fresh origin (getrandom: %s): give --origin",
			 strerror(c->err));
		break;
	case GUAC_ORIGIN_NONE_FREE:
		guac_err("cannot draw an origin %" PRIu64 " blocks from every fill the manifest "
			 "records: give --origin", r->need);
		break;
	case GUAC_ORIGIN_SHARD_NEEDS_ONE:
		guac_err("a sharded fill (shard %u/%u) needs --origin: every part must write the "
			 "same stream, and a fresh origin drawn by each part would differ; draw one "
			 "for the whole fill (od -An -N8 -tu8 /dev/urandom) and give it to every "
			 "part", shard->index, shard->count);
		break;
	case GUAC_ORIGIN_ALIASES:
		write_say_alias(f);
		break;
	}
}

/* Why nothing was written, in the command's words (a check that said it already: nothing). */
static void write_say(const struct guac_fill *f, enum guac_fill_reason reason)
{
	write_say_range(f, reason);
	write_say_space(f, reason);
	write_say_manifest(f, reason);
	write_say_claim(f, reason);
	if (reason == GUAC_FILL_ORIGIN_REFUSED)
		write_say_origin(f);
}

/*
 * The queue depth the jobs get: --iodepth's through io_uring where it can
 * write, else pwrite, said once. Never a reason not to fill.
 */
static void write_engine(const struct write_args *a, struct guac_fill *f)
{
	f->iodepth = a->fill.iodepth;
	if (f->iodepth <= 1)
		return;
	f->uring_error = a->uring_off ? -1 : guac_io_uring_probe(f->iodepth);
	if (!f->uring_error)
		return;
	guac_err("note: io_uring unavailable (%s): writing with %" PRIu64 " thread%s, queue "
		 "depth 1 each, instead of --iodepth %u", write_uring_why(f->uring_error),
		 f->shape.jobs, f->shape.jobs == 1 ? "" : "s", f->iodepth);
	f->iodepth = 1;
}

int write_plan_fill(const struct write_args *a, struct guac_fill *f)
{
	const struct guac_fill_options *o = &a->fill;
	enum guac_fill_reason reason = guac_fill_plan(f, o);
	const struct guac_target *t = &f->t;
	const struct guac_fill_shape *sh = &f->shape;
	char rate[48], split[GUAC_BS_SPLIT_STR];
	bool clear;

	if (reason) {
		write_say(f, reason);
		return GUAC_EXIT_ERROR;
	}
	if (!guac_rate_fits(o->rate, sh->block_size, "write", "; nothing written"))
		return GUAC_EXIT_ERROR;
	if (a->dry_run)
		write_target_plan(&(struct write_plan){ o->target, o->manifest,
			t->kind == GUAC_TARGET_BLOCK, t->size, t->sector, t->serial, t->wwid,
			sh->origin, sh->offset, sh->seek, sh->length, f->shard_start, f->shard_end,
			o->shard.index, o->shard.count,
			!(f->fixed & GUAC_FILL_FIXED_ORIGIN) && !f->resume_of }, &f->probe, f->resume_of);
	write_engine(a, f);
	if (a->dry_run)
		printf("engine:   %s, queue depth %u a job\n", write_engine_name(f->iodepth),
		       write_depth(f->iodepth));
	if (a->dry_run && sh->random)
		printf("pattern:  random, seed %" PRIu64 "%s, %u pass%s of %" PRIu64 " blocks\n",
		       sh->seed, f->fixed & GUAC_FILL_FIXED_SEED ? "" : " (drawn for this plan)",
		       sh->passes, sh->passes == 1 ? "" : "es", sh->length / sh->block_size);
	if (a->dry_run && o->rate)
		printf("rate:     at most %s over all jobs, %" PRIu64 " bytes a second\n",
		       guac_rate_limit_str(rate, sizeof(rate), o->rate), o->rate);
	if (a->dry_run && o->crash_safe)
		printf("journal:  16 KiB at byte %" PRIu64 " of '%s', a flush at least every %g s "
		       "and every %u blocks a job\n", f->journal_at, o->journal ? o->journal :
		       o->target, o->flush_interval > 0 ? o->flush_interval :
		       GUAC_JOURNAL_DEFAULT_INTERVAL, o->crash_window ? o->crash_window :
		       GUAC_JOURNAL_DEFAULT_WINDOW);
	if (a->dry_run && sh->split.n)
		printf("writes:   each --bs block in equal writes of one size, SIZE/PERCENT %s, "
		       "drawn per block (seed %" PRIu64 ")\n",
		       guac_bs_split_str(split, sizeof(split), &sh->split),
		       sh->random ? sh->seed : 0);
	clear = write_target_clear(o->target, &f->probe, f->resume_of, o->force) &&
		(!o->crash_safe || !o->journal ||
		 write_journal_clear(o->journal, o->force));
	return clear ? GUAC_EXIT_OK : GUAC_EXIT_ERROR;
}

/* What the fill tells while it runs, worded. */
static void write_note(const struct guac_fill *f, enum guac_fill_note note, void *arg)
{
	const struct write_args *a = arg;

	if (note == GUAC_FILL_NOTE_NEW_FILL)
		guac_err("note: no manifest '%s' yet: nothing to resume, a new fill",
			 a->fill.manifest);
	else if (note == GUAC_FILL_NOTE_RESUMING && f->shape.random)
		fprintf(a->json ? stderr : stdout, "resuming '%s' (%s): %" PRIu64 " of %" PRIu64
			" bytes already durable in random pass %u of %u\n", a->fill.manifest,
			guac_fill_status_name(f->old.status), f->out.resumed, f->io.length,
			f->pass + 1, f->shape.passes);
	else if (note == GUAC_FILL_NOTE_RESUMING)
		fprintf(a->json ? stderr : stdout, "resuming '%s' (%s): %" PRIu64 " of %" PRIu64
			" bytes already durable\n", a->fill.manifest, guac_fill_status_name(f->old.status),
			f->out.resumed, f->io.length);
}

/* The fill planned: written, then reported. */
static int write_fill(struct write_args *a, struct guac_fill *f)
{
	struct write_outcome out = { a, f, &f->t, &f->io, &f->m, &a->fill.shard, &f->out,
				     &f->shape, 0 };
	enum guac_fill_reason reason;

	if (!(f->fixed & GUAC_FILL_FIXED_ORIGIN) && !a->fill.manifest)
		guac_err("note: origin %" PRIu64 " was drawn for this fill (a fresh one "
			 "each time); without a manifest, check it with guac verify --origin %"
			 PRIu64, f->shape.origin, f->shape.origin);
	if (f->shape.random && !a->seed_given && !a->fill.manifest)
		guac_err("note: seed %" PRIu64 " was drawn for this random fill; without a "
			 "manifest, nothing else records it", f->shape.seed);
	a->fill.note = write_note;
	a->fill.note_arg = a;
	reason = guac_fill_run(f);
	if (atomic_load(&f->io.uring_error))
		guac_err("note: io_uring could not be set up for a job (%s): it wrote with pwrite, "
			 "queue depth 1", strerror(atomic_load(&f->io.uring_error)));
	if (reason == GUAC_FILL_NOTHING_TO_RESUME) {
		write_report_complete(a, &f->old);
		return GUAC_EXIT_OK;
	}
	if (reason) {
		write_say(f, reason);
		return GUAC_EXIT_ERROR;
	}
	out.exit_status = write_exit_status(f->out.end);
	if (a->json)
		write_report_json(&out);
	else
		write_report_text(&out);
	return out.exit_status;
}

int guac_cmd_write(int argc, char **argv)
{
	struct write_args a;
	struct guac_fill *f;
	int ret = write_parse_args(&a, argc, argv);

	if (ret)
		return ret == GUAC_PARSE_DONE ? GUAC_EXIT_OK : ret;
	/* Zeroed, and large (a manifest of each kind, the jobs): not on the stack. */
	f = calloc(1, sizeof(*f));
	if (!f) {
		guac_err("cannot allocate %zu bytes: %s", sizeof(*f), strerror(ENOMEM));
		return GUAC_EXIT_ERROR;
	}
	ret = write_plan_fill(&a, f);
	if (!ret && !a.dry_run)
		ret = write_fill(&a, f);
	free(f);
	return ret;
}
