// SPDX-License-Identifier: GPL-2.0 OR MIT
/* guac: generate, verify and benchmark the guacamole stream and guacrng devices. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "libguac.h"
#include "util.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} guac_cmds[] = {
	{ "gen", guac_cmd_gen, "write the guacamole stream to stdout" },
	{ "write", guac_cmd_write, "fill a block device or file with the stream, with a manifest" },
	{ "verify", guac_cmd_verify, "check that a file, device or pipe holds the stream" },
	{ "manifest", guac_cmd_manifest, "show or merge write manifests (shards)" },
	{ "report", guac_cmd_report, "one report for many disks' manifests (a fleet)" },
	{ "probe", guac_cmd_probe, "does a device hold what it claims (fake capacity), in seconds" },
	{ "bench", guac_cmd_bench, "measure the core, the devices and their peers" },
	{ "doctor", guac_cmd_doctor, "why guacrng does not load (module, key, Secure Boot), and the fix" },
};

#define GUAC_NR_CMDS (sizeof(guac_cmds) / sizeof(guac_cmds[0]))

static void guac_usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "Usage: guac COMMAND [OPTIONS]\n\n"
		"The guacamole stream: 2^64 blocks of 64 bytes, byte-for-byte what /dev/guac\n"
		"serves at the same position.\n\nCommands:\n");
	for (i = 0; i < GUAC_NR_CMDS; i++)
		fprintf(f, "  %-9s %s\n", guac_cmds[i].name, guac_cmds[i].summary);
	fprintf(f, "\n'guac COMMAND --help' describes each command; 'guac --version' (also\n"
		"'guac COMMAND --version') prints the version.\n"
		"Best implementation on this CPU: %s\n",
		guac_impl_names[guac_impl_best()]);
}

int main(int argc, char **argv)
{
	static char prog[64];
	unsigned int i;

	/*
	 * glibc reserves 64 MiB of address space for each thread's malloc arena:
	 * with --jobs threads and their fillers that is gigabytes, and under a
	 * ulimit -v (a batch system's memory limit) threads fail to start. guac
	 * allocates a few buffers a thread, once: two arenas are plenty.
	 */
	mallopt(M_ARENA_MAX, 2);
	if (argc < 2) {
		guac_usage(stderr);
		return GUAC_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		guac_usage(stdout);
		return GUAC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		guac_print_version();
		return GUAC_EXIT_OK;
	}
	for (i = 0; i < GUAC_NR_CMDS; i++) {
		if (strcmp(argv[1], guac_cmds[i].name))
			continue;
		snprintf(prog, sizeof(prog), "guac %s", guac_cmds[i].name);
		guac_prog = prog;
		argv[1] = prog;		/* the parser's messages name the subcommand */
		/* Every subcommand answers --version, whatever its own options. */
		if (guac_want_version(argc - 1, argv + 1)) {
			guac_print_version();
			return GUAC_EXIT_OK;
		}
		return guac_cmds[i].run(argc - 1, argv + 1);
	}
	guac_err("unknown command '%s' (try 'guac --help')", argv[1]);
	return GUAC_EXIT_ERROR;
}
