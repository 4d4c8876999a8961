// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac doctor: why guacrng does not load, and the fix. It reads what the
 * kernel, the shim and DKMS left on the machine, and never loads or changes
 * anything; the checks, which redo the kernel's, are doctor/'s engine:
 *
 *   the module    /sys/module/guacrng (loaded?), the file DKMS installed for
 *                 the kernel (/lib/modules/RELEASE/updates/dkms/guacrng.ko*,
 *                 decompressed), its signature trailer, the PKCS#7 signature
 *                 verified over the module's bytes with DKMS's certificate,
 *                 its digest against the kernel's, its vermagic
 *   the DKMS key  mok_certificate of /etc/dkms/framework.conf(.d), by default
 *                 /var/lib/dkms/mok.pub
 *   the kernel    which of its keyrings hold that key, and whether it checks
 *                 modules with them (.builtin/.secondary_trusted_keys, which
 *                 holds .machine; Debian's .platform fallback)
 *   enforcement   module.sig_enforce and the lockdown state; Secure Boot and
 *                 the shim's variables (MokSBStateRT, MokListTrustedRT, MokNew)
 *
 * and says in plain words what the kernel would answer, and the fix that can
 * work on this machine. --root reads all of it under another directory (the
 * tests' fake systems).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cmds.h"
#include "parse_options.h"
#include "doctor.h"
#include "util.h"

struct doc {
	const char *root;
	char release[128];
	char module[4096];	/* as the user knows it (without --root) */
	int module_given;
	int loaded;
	char taint[16];
	int module_found;
	int module_read;	/* doc_module_check() read it */
	struct doc_module mod;
	char cert_path[4096];
	int cert_state;		/* 0 missing, 1 read, -1 unreadable */
	struct doc_cert cert;
	struct doc_keys keys;
	struct doc_efi efi;
	char lockdown[32];
	int lockdown_assumed;	/* no lockdown file: taken from Secure Boot */
	int locked_down;
	int sig_enforce;
	struct doc_answer answer;
};

static const struct guac_usage doctor_usage = {
	.synopsis = "Usage: guac doctor [--module FILE] [--kernel RELEASE] [--root DIR]\n",
	.about =
		"Check why guacrng does or would not load, and say what to do, by redoing\n"
		"the kernel's checks: whether the module is loaded; the module file DKMS\n"
		"installed for the kernel (.gz, .xz, .zst decompressed), its signature\n"
		"trailer, the PKCS#7 signature verified over the module's bytes with the\n"
		"certificate DKMS signs with (framework.conf's mok_certificate, by default\n"
		"/var/lib/dkms/mok.pub), the digest against the kernel's, the vermagic\n"
		"against the kernel release; which of the kernel's keyrings hold that key\n"
		"(root only: others cannot see them) and whether the kernel checks modules\n"
		"with them; module.sig_enforce, the lockdown state, Secure Boot and the\n"
		"shim's variables. Reads only; loads nothing.\n",
	.after =
		"Exit status: 0 guacrng is loaded or would load, 1 a problem was found or\n"
		"doctor cannot tell (the message says which, and the fix), 2 a usage error.\n",
};

/* ROOT/PATH; a path too long for OUT becomes "", which no file has. */
static void doc_path(const struct doc *d, char *out, size_t n, const char *path)
{
	int r = snprintf(out, n, "%s%s", d->root, path);

	if (r < 0 || (size_t)r >= n)
		out[0] = 0;
}

/* The first line of a small file under the root, without its newline. */
static int doc_read_line(const struct doc *d, const char *path, char *out, size_t n)
{
	char full[4200];
	FILE *f;

	doc_path(d, full, sizeof(full), path);
	f = fopen(full, "r");
	if (!f)
		return 0;
	if (!fgets(out, (int)n, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return 1;
}

static int doc_exists(const struct doc *d, const char *path)
{
	char full[4200];

	doc_path(d, full, sizeof(full), path);
	return access(full, F_OK) == 0;
}

/* DKMS's certificate: the last mok_certificate= of framework.conf and its .d. */
static void doc_find_cert(struct doc *d)
{
	char pattern[4200], line[4200], *v;
	const char *files[64];
	glob_t g;
	size_t i, nfiles = 0;
	FILE *f;

	snprintf(d->cert_path, sizeof(d->cert_path), "/var/lib/dkms/mok.pub");
	doc_path(d, pattern, sizeof(pattern), "/etc/dkms/framework.conf");
	files[nfiles++] = strdup(pattern);
	doc_path(d, pattern, sizeof(pattern), "/etc/dkms/framework.conf.d/*.conf");
	if (!glob(pattern, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc && nfiles < 64; i++)
			files[nfiles++] = strdup(g.gl_pathv[i]);
		globfree(&g);
	}
	for (i = 0; i < nfiles; i++) {
		f = files[i] ? fopen(files[i], "r") : NULL;
		while (f && fgets(line, sizeof(line), f)) {
			v = line + strspn(line, " \t");
			if (strncmp(v, "mok_certificate=", 16))
				continue;
			v += 16;
			v[strcspn(v, "\n")] = 0;
			if (*v == '"' || *v == '\'') {
				/* strcspn() takes a string: the quote and its NUL, not &quote. */
				char q[2] = { *v++, 0 };

				v[strcspn(v, q)] = 0;
			}
			if (*v)
				snprintf(d->cert_path, sizeof(d->cert_path), "%s", v);
		}
		if (f)
			fclose(f);
		free((void *)files[i]);
	}
}

static void doc_find_module(struct doc *d)
{
	static const char *const suffix[] = { "", ".xz", ".zst", ".gz" };
	char rel[sizeof(d->module)];
	unsigned int i;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(rel, sizeof(rel), "/lib/modules/%s/updates/dkms/guacrng.ko%s",
			 d->release, suffix[i]);
		if (doc_exists(d, rel)) {
			memcpy(d->module, rel, sizeof(rel));
			d->module_found = 1;
			return;
		}
	}
	snprintf(d->module, sizeof(d->module), "/lib/modules/%s/updates/dkms/guacrng.ko", d->release);
}


static void doc_enforcement(struct doc *d)
{
	char line[256], *a, *b;

	snprintf(d->lockdown, sizeof(d->lockdown), "unknown");
	if (doc_read_line(d, "/sys/kernel/security/lockdown", line, sizeof(line))) {
		a = strchr(line, '[');
		b = a ? strchr(a, ']') : NULL;
		if (a && b && b - a - 1 < (long)sizeof(d->lockdown)) {
			*b = 0;
			snprintf(d->lockdown, sizeof(d->lockdown), "%s", a + 1);
		}
	}
	if (!strcmp(d->lockdown, "unknown")) {
		/* no lockdown LSM to ask: Debian's kernels lock down under Secure Boot */
		d->lockdown_assumed = 1;
		d->locked_down = d->efi.secure_boot && !d->efi.validation_off;
	} else {
		d->locked_down = strcmp(d->lockdown, "none") != 0;
	}
	d->sig_enforce = doc_read_line(d, "/sys/module/module/parameters/sig_enforce", line,
				       sizeof(line)) && line[0] == 'Y';
}

static const char *doc_signer_text(const struct doc_module *m, char *out, size_t n)
{
	if (m->signer_by_keyid)
		snprintf(out, n, "key id %s", m->signer_keyid);
	else
		snprintf(out, n, "'%s', serial %s", m->signer_cn[0] ? m->signer_cn : "(no CN)",
			 m->signer_serial);
	return out;
}

/* What modprobe says when the kernel refuses a module for its signature. */
static const char *doc_refusal(const struct doc *d)
{
	if (d->sig_enforce)
		return "module.sig_enforce=Y; modprobe: \"Key was rejected by service\"";
	return "lockdown; modprobe: \"Operation not permitted\"";
}

/* The enrollment of DKMS's key, where it can make the kernel trust it. */
static int doc_fix_enroll(const struct doc *d)
{
	int w = (int)strlen("mokutil --import ") + (int)strlen(d->cert_path);

	if (!d->efi.booted_efi || !d->efi.secure_boot) {
		printf("No Machine Owner Key can help here: %s,\n"
		       "so there is no shim to enroll one with.\n"
		       "What enforces signatures is %s%s (on the kernel's\n"
		       "command line, or in its build): remove it, or boot with Secure Boot on and\n"
		       "run guac doctor again.\n",
		       d->efi.booted_efi ? "Secure Boot is off" : "the machine did not boot with EFI",
		       d->sig_enforce ? "module.sig_enforce=1" : "lockdown=",
		       d->sig_enforce ? "" : d->lockdown);
		return GUAC_EXIT_FAIL;
	}
	if (d->keys.where & DOC_KR_BLACKLIST) {
		printf("The DKMS key is on the kernel's .blacklist (revoked, dbx or MokListX):\n"
		       "FIX: make DKMS a new key (move %s and its .key aside, then\n"
		       "  dpkg-reconfigure guacrng-dkms), and enroll the new one.\n", d->cert_path);
		return GUAC_EXIT_FAIL;
	}
	if (d->keys.where & DOC_KR_PLATFORM) {
		if (d->keys.has_machine)
			printf("The DKMS key is enrolled but only in .platform, which this kernel does not\n"
			       "check modules with (no MokListTrustedRT: shim keeps MOKs out of .machine).\n"
			       "FIX: let the kernel trust Machine Owner Keys, then reboot:\n"
			       "  mokutil --trust-mok   # MokManager: Trust MOK, Yes, the password\n");
		else
			printf("The DKMS key is enrolled but only in .platform, which this kernel does not\n"
			       "check modules with, and it has no .machine keyring (before 5.19): sign\n"
			       "the module with a key the kernel was built with, or use a kernel that\n"
			       "trusts Machine Owner Keys (Debian's do).\n");
		return GUAC_EXIT_FAIL;
	}
	if (d->efi.pending && d->efi.pending_has_cert) {
		printf("An enrollment of the DKMS key is pending (MokNew):\n"
		       "reboot, and in the blue MokManager screen choose Enroll MOK, Continue, Yes,\n"
		       "and type the password you chose.\n");
		return GUAC_EXIT_FAIL;
	}
	if (d->efi.pending)
		printf("An enrollment is pending (MokNew), but of %s, not of the DKMS key:\n"
		       "finishing it does not make the kernel trust guacrng.\n",
		       d->efi.pending_keys ? "another key" : "keys doctor cannot read");
	printf("FIX: enroll the DKMS key as a Machine Owner Key, once for this machine:\n"
	       "  mokutil --import %s   # asks for a one-time password\n"
	       "  %-*s   # MokManager: Enroll MOK, Continue, Yes, the password\n"
	       "then `modprobe guacrng` (it also loads at every boot).\n", d->cert_path, w,
	       "reboot");
	return GUAC_EXIT_FAIL;
}

static void doc_fix_rebuild(const struct doc *d)
{
	printf("FIX: have DKMS build and sign it again with its key (%s):\n"
	       "  dkms remove guacrng --all && dpkg-reconfigure guacrng-dkms\n", d->cert_path);
}

/* The signature as the kernel judged it fatal: damaged, or not matching the bytes. */
static int doc_verdict_bad_signature(const struct doc *d)
{
	if (d->mod.sig == DOC_SIG_BAD_MESSAGE) {
		printf("PROBLEM: the signature of %s\nis damaged: %s.\n"
		       "The kernel refuses it with \"Bad message\" (EBADMSG), even with Secure Boot\n"
		       "off: a signature it cannot parse is always fatal.\n", d->module,
		       d->mod.sig_problem);
	} else {
		printf("PROBLEM: the signature of %s\n"
		       "does not match its bytes (checked with the DKMS key): the module was changed\n"
		       "after it was signed (stripped or patched), or another key with the DKMS\n"
		       "certificate's issuer and serial number signed it.\n", d->module);
		if (d->answer.err == -EKEYREJECTED || d->answer.unknown)
			printf("%s the kernel trusts that key, it refuses the module with \"Key was\n"
			       "rejected by service\", even with Secure Boot off.\n",
			       d->answer.unknown ? "If" : "As");
		if (d->answer.err != -EKEYREJECTED)
			printf("Where the kernel does not check it, it loads it unverified (tainted):\n"
			       "do not.\n");
	}
	doc_fix_rebuild(d);
	return GUAC_EXIT_FAIL;
}

static int doc_verdict_refused(const struct doc *d)
{
	char a[512];

	if (d->answer.sig_err == -ENODATA) {
		printf("PROBLEM: %s is not signed, and this kernel refuses unsigned modules\n(%s).\n",
		       d->module, doc_refusal(d));
		doc_fix_rebuild(d);
		if (d->keys.trusted == 0)
			return doc_fix_enroll(d);
		return GUAC_EXIT_FAIL;
	}
	if (d->answer.sig_err == -ENOPKG) {
		printf("PROBLEM: %s is signed with %s:\n"
		       "the kernel calls it unsupported crypto and refuses it\n(%s).\n",
		       d->module, d->mod.sig_problem, doc_refusal(d));
		doc_fix_rebuild(d);
		return GUAC_EXIT_FAIL;
	}
	if (!d->mod.signer_is_cert) {
		printf("PROBLEM: %s is signed by %s,\n", d->module,
		       doc_signer_text(&d->mod, a, sizeof(a)));
		if (d->cert_state == 1)
			printf("not by the key DKMS signs with (%s: '%s', serial %s).\n",
			       d->cert_path, d->cert.cn, d->cert.serial);
		else
			printf("and DKMS's certificate %s is %s.\n", d->cert_path,
			       d->cert_state < 0 ? "unreadable" : "missing");
		printf("The kernel loads it only if it trusts that key (doctor cannot check it);\n"
		       "if not, it refuses it (%s).\n"
		       "FIX: rebuild it so that DKMS signs it with its key%s:\n"
		       "  dkms remove guacrng --all && dpkg-reconfigure guacrng-dkms\n",
		       doc_refusal(d),
		       d->keys.trusted == 1 ? " (which the kernel trusts)" : "");
		if (d->keys.trusted == 0)
			return doc_fix_enroll(d);
		return GUAC_EXIT_FAIL;
	}
	if (d->answer.unknown) {
		printf("CANNOT TELL: the module is signed by the DKMS key, but doctor cannot see\n"
		       "the kernel's keyrings (%s), so not whether the kernel\n"
		       "trusts that key. Run it as root: sudo guac doctor\n",
		       d->keys.keyrings_visible ? "their contents are unreadable" :
		       "only root can");
		return GUAC_EXIT_FAIL;
	}
	printf("PROBLEM: the key that signed guacrng.ko (DKMS's, %s)\n"
	       "is not one the kernel checks modules with, so it refuses the module\n"
	       "(%s).\n", d->cert_path, doc_refusal(d));
	return doc_fix_enroll(d);
}

static int doc_verdict(const struct doc *d)
{
	if (d->loaded && !d->module_given) {
		printf("OK: guacrng is loaded.\n");
		return GUAC_EXIT_OK;
	}
	if (!d->module_found) {
		printf("PROBLEM: no guacrng module for kernel %s (%s): DKMS has not built it.\n"
		       "FIX: install the kernel's headers and let DKMS build it:\n"
		       "  apt install linux-headers-%s\n"
		       "  dkms autoinstall -k %s      # `dkms status guacrng` shows the state\n",
		       d->release, d->module, d->release, d->release);
		return GUAC_EXIT_FAIL;
	}
	if (!d->module_read) {
		printf("PROBLEM: cannot read %s: %s.\n", d->module, d->mod.read_error);
		return GUAC_EXIT_FAIL;
	}
	if (d->answer.sig_err == -EBADMSG || d->mod.verifies == 0)
		return doc_verdict_bad_signature(d);
	if (d->answer.err == -EKEYREJECTED || d->answer.err == -EPERM)
		return doc_verdict_refused(d);
	if (d->answer.err == -ENOEXEC) {
		printf("PROBLEM: %s was built for %s, not for kernel %s:\n"
		       "modprobe fails with \"Invalid module format\".\n"
		       "FIX: let DKMS build it for this kernel:\n"
		       "  dkms autoinstall -k %s\n", d->module,
		       !d->mod.is_elf ? "no kernel (it is not an ELF module)" :
		       d->mod.vermagic[0] ? "another kernel (vermagic)" : "no kernel (no vermagic)",
		       d->release, d->release);
		return GUAC_EXIT_FAIL;
	}
	if (d->answer.taints) {
		printf("OK: the kernel does not enforce module signatures (%s): `modprobe guacrng`\n"
		       "loads it%s.\n",
		       d->efi.secure_boot && d->efi.validation_off ?
		       "shim's validation is off, MokSBStateRT" : "Secure Boot off, no lockdown",
		       d->answer.sig_err == -ENODATA ? " (an unsigned module taints the kernel)" :
		       d->answer.unknown ? "" : " (its signature unverified, which taints the kernel)");
		return GUAC_EXIT_OK;
	}
	printf("OK: signed by the DKMS key, which the kernel trusts: `modprobe guacrng`\n"
	       "loads it.\n");
	return GUAC_EXIT_OK;
}

static void doc_print_signature(const struct doc *d)
{
	char a[512];

	switch (d->mod.sig) {
	case DOC_SIG_NONE:
		printf("  signature:     none (unsigned)\n");
		return;
	case DOC_SIG_BAD_MESSAGE:
	case DOC_SIG_NOT_PKCS7:
		printf("  signature:     damaged: %s\n", d->mod.sig_problem);
		return;
	case DOC_SIG_UNSUPPORTED:
	case DOC_SIG_PARSED:
		break;
	}
	printf("  signature:     %s, %s\n", doc_signer_text(&d->mod, a, sizeof(a)),
	       d->mod.digest[0] ? d->mod.digest : "an unknown digest");
	if (d->mod.sig == DOC_SIG_UNSUPPORTED)
		printf("  checked:       no: %s\n", d->mod.sig_problem);
	else if (d->mod.verifies == 1)
		printf("  checked:       matches the module's bytes (with the DKMS key)\n");
	else if (d->mod.verifies == 0)
		printf("  checked:       does NOT match the module's bytes (with the DKMS key)\n");
	else
		printf("  checked:       no: not the DKMS key, and doctor has no other certificate\n");
}

static void doc_print_trust(const struct doc *d)
{
	char where[160];

	doc_keyring_names(d->keys.where, where, sizeof(where));
	if (d->keys.trusted == 1)
		printf("  kernel trusts: the DKMS key (in %s)\n", where);
	else if (!d->keys.trusted && !d->keys.where)
		printf("  kernel trusts: not the DKMS key: it is in none of its keyrings (not enrolled)\n");
	else if (!d->keys.trusted)
		printf("  kernel trusts: not the DKMS key: it is only in %s, which %s\n", where,
		       (d->keys.where & DOC_KR_PLATFORM) ?
		       "this kernel does not check modules with (no Debian fallback)" :
		       "the kernel does not check modules with");
	else if (d->cert_state != 1)
		printf("  kernel trusts: unknown (no DKMS key)\n");
	else if (!d->keys.proc_keys_read)
		printf("  kernel trusts: unknown (/proc/keys unreadable)\n");
	else if (!d->keys.keyrings_visible)
		printf("  kernel trusts: unknown: its keyrings are not in /proc/keys (only root sees them)\n");
	else
		printf("  kernel trusts: unknown (a keyring's contents unreadable)\n");
}

static void doc_print(const struct doc *d)
{
	printf("guac doctor: guacrng on kernel %s\n", d->release);
	if (d->loaded && d->taint[0])
		printf("  loaded:        yes (taint flags %s)\n", d->taint);
	else
		printf("  loaded:        %s\n", d->loaded ? "yes" : "no");
	printf("  module file:   %s%s%s%s\n", d->module, d->module_found ? "" : " (missing)",
	       d->mod.decompressed_by ? ", read through " : "",
	       d->mod.decompressed_by ? d->mod.decompressed_by : "");
	if (d->module_read) {
		doc_print_signature(d);
		printf("  vermagic:      %s\n", d->mod.vermagic[0] ? d->mod.vermagic :
		       d->mod.is_elf ? "none" : "none (not an ELF module)");
	}
	if (d->cert_state == 1)
		printf("  DKMS key:      %s: '%s', serial %s, key id %s\n", d->cert_path,
		       d->cert.cn[0] ? d->cert.cn : "(no CN)", d->cert.serial, d->cert.keyid);
	else
		printf("  DKMS key:      %s: %s\n", d->cert_path,
		       d->cert_state ? "unreadable (not a certificate)" : "missing");
	doc_print_trust(d);
	printf("  Secure Boot:   %s%s%s\n", d->efi.secure_boot ? "enabled" :
	       d->efi.booted_efi ? "disabled" : "no (not booted with EFI)",
	       d->efi.validation_off ? "; shim's validation off (MokSBStateRT)" : "",
	       d->efi.pending ? "; a MOK enrollment is pending (MokNew)" : "");
	printf("  lockdown:      %s%s%s\n", d->lockdown,
	       d->lockdown_assumed ? (d->locked_down ? " (assumed: Secure Boot)" : "") : "",
	       d->sig_enforce ? "; module.sig_enforce=Y" : "");
}

static bool doctor_opt_module(const struct guac_option *opt, const char *arg)
{
	struct doc *d = opt->value;

	snprintf(d->module, sizeof(d->module), "%s", arg);
	d->module_given = 1;
	return true;
}

static bool doctor_opt_kernel(const struct guac_option *opt, const char *arg)
{
	struct doc *d = opt->value;

	if (!*arg || strchr(arg, '/') || strlen(arg) >= sizeof(d->release)) {
		guac_err("--kernel: '%s' is not a kernel release", arg);
		return false;
	}
	snprintf(d->release, sizeof(d->release), "%s", arg);
	return true;
}

static bool doctor_opt_root(const struct guac_option *opt, const char *arg)
{
	struct doc *d = opt->value;
	struct stat st;

	if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
		guac_err("--root: '%s' is not a directory", arg);
		return false;
	}
	d->root = arg;
	return true;
}

/* Check, tell and judge, as @argc/@argv ask, into @d (zeroed by the caller). */
static int doctor_run(struct doc *d, int argc, char **argv)
{
	const struct guac_option opts[] = {
		GUAC_OPT_CALLBACK(0, "module", d, "FILE", "check FILE instead of the installed module",
				  doctor_opt_module),
		GUAC_OPT_CALLBACK(0, "kernel", d, "RELEASE",
				  "the kernel to check for (default: the running one)",
				  doctor_opt_kernel),
		GUAC_OPT_CALLBACK(0, "root", d, "DIR",
				  "read /sys, /proc, /lib, /etc and /var under DIR, and the keyrings' "
				  "contents (keyctl read) from DIR/keyctl/SERIAL (a test's fake system)",
				  doctor_opt_root),
		GUAC_OPT_VERSION(),
		GUAC_OPT_HELP(),
		GUAC_OPT_END(),
	};
	struct utsname u;
	char full[8400];
	int n, err, status;

	d->root = "";
	n = guac_parse_options(argc, argv, opts, &doctor_usage, 0);
	if (n < 0)
		return guac_parse_exit(n);
	if (n) {
		guac_err("unexpected argument '%s' (try 'guac doctor --help')", argv[0]);
		return GUAC_EXIT_ERROR;
	}
	if (!d->release[0]) {
		if (uname(&u)) {
			guac_err("uname: %s", strerror(errno));
			return GUAC_EXIT_ERROR;
		}
		snprintf(d->release, sizeof(d->release), "%s", u.release);
	}
	if (d->module_given && access(d->module, R_OK)) {
		guac_err("--module: cannot read '%s': %s", d->module, strerror(errno));
		return GUAC_EXIT_ERROR;
	}
	doc_find_cert(d);
	doc_path(d, full, sizeof(full), d->cert_path);
	err = doc_cert_read(full, &d->cert);
	d->cert_state = !err ? 1 : err == -ENOENT ? 0 : -1;
	if (d->module_given)
		d->module_found = 1;
	else
		doc_find_module(d);
	if (d->module_found) {
		if (d->module_given)
			snprintf(full, sizeof(full), "%s", d->module);
		else
			doc_path(d, full, sizeof(full), d->module);
		d->module_read = !doc_module_check(full, d->release, &d->cert, &d->mod);
	}
	d->loaded = doc_exists(d, "/sys/module/guacrng");
	if (d->loaded)
		doc_read_line(d, "/sys/module/guacrng/taint", d->taint, sizeof(d->taint));
	doc_keys_find(d->root, d->cert_state == 1 ? d->cert.keyid : NULL, &d->keys);
	doc_efi_read(d->root, &d->cert, &d->efi);
	doc_enforcement(d);
	doc_kernel_answer(&d->mod, &d->keys, d->release, d->sig_enforce, d->locked_down,
			  &d->answer);

	doc_print(d);
	status = doc_verdict(d);
	doc_cert_free(&d->cert);
	return status;
}

int guac_cmd_doctor(int argc, char **argv)
{
	struct doc *d = calloc(1, sizeof(*d));	/* large: not on the stack */
	int status;

	if (!d) {
		guac_err("out of memory");
		return GUAC_EXIT_ERROR;
	}
	status = doctor_run(d, argc, argv);
	free(d);
	return status;
}
