// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Throughput of /dev/guac (or any file) at a given request size, and of
 * `guac gen --impl IMPL` into /dev/null, for the in-VM benchmark proxy.
 * Prints "MB/s" figures; never a pass/fail verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "vmtest.h"

static void vt_bench_usage(FILE *f)
{
	fprintf(f,
		"Usage: guac-vmtest bench [--request BYTES] [--total BYTES] [--repeat N]\n"
		"                         [--file PATH | --gen IMPL]\n\n"
		"Read --total bytes (default 64M) from --file (default /dev/guac) in requests of\n"
		"--request bytes (default 1M), or time `guac gen --impl IMPL --length TOTAL`\n"
		"into /dev/null; do that --repeat times (default 3) and print the best\n"
		"throughput in MB/s (10^6 bytes per second): the run least disturbed by\n"
		"whatever else the machine was doing.\n");
}

static double vt_bench_file(const char *path, size_t request, uint64_t total)
{
	uint8_t *buf = guac_alloc(request);
	int fd = open(path, O_RDONLY);
	uint64_t done = 0;
	double t0;

	if (fd < 0) {
		guac_err("cannot open %s: %s", path, strerror(errno));
		exit(GUAC_EXIT_ERROR);
	}
	t0 = guac_now();
	while (done < total) {
		ssize_t n = read(fd, buf, request);

		if (n <= 0) {
			guac_err("read from %s: %s", path, n ? strerror(errno) : "end of file");
			exit(GUAC_EXIT_ERROR);
		}
		done += (uint64_t)n;
	}
	t0 = guac_now() - t0;
	close(fd);
	free(buf);
	return (double)done / t0 / 1e6;
}

static double vt_bench_gen(const char *impl, uint64_t total)
{
	char length[32];
	double t0 = guac_now();
	int status;
	pid_t pid = fork();

	snprintf(length, sizeof(length), "%" PRIu64, total);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execlp("guac", "guac", "gen", "--impl", impl, "--length", length, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		guac_err("guac gen --impl %s failed", impl);
		exit(GUAC_EXIT_ERROR);
	}
	return (double)total / (guac_now() - t0) / 1e6;
}

int vt_cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "request", required_argument, NULL, 'r' },
		{ "total", required_argument, NULL, 't' },
		{ "file", required_argument, NULL, 'f' },
		{ "gen", required_argument, NULL, 'g' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t request = 1 << 20, total = 64 << 20, repeat = 3;
	double best = 0;
	const char *file = GUAC_DEV, *gen = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (!guac_parse_u64("request", optarg, &request))
				return GUAC_EXIT_ERROR;
			break;
		case 't':
			if (!guac_parse_u64("total", optarg, &total))
				return GUAC_EXIT_ERROR;
			break;
		case 'f':
			file = optarg;
			break;
		case 'g':
			gen = optarg;
			break;
		case 'n':
			if (!guac_parse_u64("repeat", optarg, &repeat))
				return GUAC_EXIT_ERROR;
			break;
		case 'h':
			vt_bench_usage(stdout);
			return GUAC_EXIT_OK;
		default:
			vt_bench_usage(stderr);
			return GUAC_EXIT_ERROR;
		}
	}
	if (optind != argc || !request || request > (1u << 30) || !total ||
	    !repeat || repeat > 100) {
		guac_err("need 0 < --request <= 1G, 0 < --total, 0 < --repeat <= 100 and no other arguments");
		return GUAC_EXIT_ERROR;
	}
	while (repeat--) {
		double mbps = gen ? vt_bench_gen(gen, total) :
				    vt_bench_file(file, (size_t)request, total);

		if (mbps > best)
			best = mbps;
	}
	printf("%.1f\n", best);
	return 0;
}
