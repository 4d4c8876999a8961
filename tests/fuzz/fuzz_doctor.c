// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac doctor (cmd/cmd_doctor.c) on a fake system whose files come from
 * the input: a module file (its appended PKCS#7 signature is parsed), the
 * DKMS certificate, /proc/keys, DKMS's framework.conf, the Secure Boot EFI
 * variable, /sys/kernel/security/lockdown and sig_enforce. The input is up
 * to seven fields, each a 2-byte little-endian length and its bytes (an
 * empty field leaves the file out). guac doctor runs with --root on that
 * tree, --kernel and --module, and after them the rest of the input split at
 * NUL bytes: doctor's own options fuzzed too (--root, --kernel, --module,
 * --version, --help, unknown and extra arguments), later ones overriding the
 * fixed ones. An argument that could name a file outside the private
 * directory (an absolute path or "..") makes the input uninteresting, so that
 * doctor reads only the fake tree (and its fixed absolute paths under it).
 * Oracle: the exit status is one guac(1) gives it (0, 1 or 2), and no
 * sanitizer report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmds.h"
#include "fuzz_common.h"

#define FUZZ_DOCTOR_ARGS 8	/* fuzzed arguments after the fixed ones */

static const char *const files[] = {
	"root/mod.ko",
	"root/var/lib/dkms/mok.pub",
	"root/proc/keys",
	"root/etc/dkms/framework.conf",
	"root/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
	"root/sys/kernel/security/lockdown",
	"root/sys/module/module/parameters/sig_enforce",
};

static void fuzz_mkdirs(void)
{
	static const char *const dirs[] = {
		"root", "root/var", "root/var/lib", "root/var/lib/dkms", "root/proc", "root/etc",
		"root/etc/dkms", "root/sys", "root/sys/firmware", "root/sys/firmware/efi",
		"root/sys/firmware/efi/efivars", "root/sys/kernel", "root/sys/kernel/security",
		"root/sys/module", "root/sys/module/module", "root/sys/module/module/parameters",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdir(dirs[i], 0700);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *fixed[] = { "guac doctor", "--root", "root", "--kernel", "6.1.0-fuzz",
				 "--module", "root/mod.ko" };
	static char buf[1024];
	char *argv[7 + FUZZ_DOCTOR_ARGS + 2];
	size_t i, len;
	int rc, argc, j;

	fuzz_init();
	fuzz_mkdirs();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		len = 0;
		if (size >= 2) {
			len = (size_t)data[0] | (size_t)data[1] << 8;
			data += 2;
			size -= 2;
			if (len > size)
				len = size;
		}
		unlink(files[i]);
		/* The module must exist (--module is checked); the rest may be missing. */
		if ((len || !i) && !fuzz_write_file(files[i], data, len))
			fuzz_fail("cannot write %s", files[i]);
		data += len;
		size -= len;
	}
	/* The fuzzed arguments after the fixed ones (argv[0] of the split is a placeholder). */
	argc = fuzz_split_args(data, size, "", argv + 6, FUZZ_DOCTOR_ARGS, buf, sizeof(buf)) + 6;
	for (j = 7; j < argc; j++)
		if (argv[j][0] == '/' || strstr(argv[j], "..") || strstr(argv[j], "=/"))
			return 0;
	memcpy(argv, fixed, sizeof(fixed));
	rc = fuzz_run_cmd(guac_cmd_doctor, argc, argv);
	if (rc < 0 || rc > 2)
		fuzz_fail("doctor exits %d", rc);
	return 0;
}
