// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * guac doctor: why guacrng does not load, and the fix. It reads what the
 * kernel and DKMS left on the machine, and never loads or changes anything:
 *
 *   the module    /sys/module/guacrng (loaded?), the file DKMS installed for
 *                 the kernel (/lib/modules/RELEASE/updates/dkms/guacrng.ko*)
 *                 and the signature appended to it (PKCS#7: issuer and serial)
 *   the DKMS key  mok_certificate of /etc/dkms/framework.conf(.d), by default
 *                 /var/lib/dkms/mok.pub: its subject, serial and key id
 *   the kernel    whether it trusts that key: an asymmetric key with its key id
 *                 in /proc/keys (the .machine keyring holds the enrolled MOKs,
 *                 .platform and .builtin_trusted_keys the others)
 *   enforcement   Secure Boot (the EFI variable SecureBoot), the lockdown
 *                 state (/sys/kernel/security/lockdown), module.sig_enforce
 *
 * and says in plain words what is wrong: with Secure Boot on, a module signed
 * by a key the kernel does not trust is refused ("Key was rejected by
 * service"); the fix for DKMS's key is `mokutil --import` and MokManager.
 * --root reads all of it under another directory (the tests' fake systems).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include "cmds.h"
#include "util.h"

#define DOC_MAGIC "~Module signature appended~\n"
#define DOC_EFI_GLOBAL "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define DOC_SHIM_GUID "605dab50-e046-4300-abb6-3dd810dd8b23"
#define DOC_MAX_MODULE (64u << 20)

struct doc_id {
	int present;
	char cn[256];		/* subject CN of a certificate, issuer CN of a signature */
	char serial[128];	/* upper-case hex, no leading zeros */
	char keyid[128];	/* lower-case hex of the subject key identifier */
};

struct doc {
	const char *root;
	char release[128];
	char module[4096];	/* as the user knows it (without --root) */
	int module_given;
	int loaded;
	char taint[16];
	int module_found;
	int signed_pkcs7;	/* -1: unknown (unreadable), 0 no, 1 yes */
	struct doc_id signer;
	char cert_path[4096];
	int cert_state;		/* 0 missing, 1 read, -1 unreadable */
	struct doc_id cert;
	int trusted;		/* the cert's key id is in /proc/keys: -1 unknown */
	int secure_boot;	/* -1 no EFI, 0 off, 1 on */
	int mok_pending;
	char lockdown[32];
	int sig_enforce;
};

static void doctor_usage(FILE *f)
{
	fprintf(f,
		"Usage: guac doctor [--module FILE] [--kernel RELEASE] [--root DIR]\n\n"
		"Check why guacrng does or would not load, and say what to do: whether\n"
		"the module is loaded; the module file DKMS installed for the kernel and\n"
		"the key that signed it; the certificate DKMS signs with (framework.conf's\n"
		"mok_certificate, by default /var/lib/dkms/mok.pub) and whether the\n"
		"kernel trusts it (its key id among the keys of /proc/keys: the enrolled\n"
		"machine owner keys are in the .machine keyring); Secure Boot, the\n"
		"lockdown state and module.sig_enforce. Reads only; loads nothing.\n\n"
		"      --module FILE     check FILE instead of the installed module\n"
		"      --kernel RELEASE  the kernel to check for (default: the running one)\n"
		"      --root DIR        read /sys, /proc, /lib, /etc and /var under DIR\n"
		"                        (a test's fake system)\n"
		"      --version         print the version\n"
		"  -h, --help            show this help\n\n"
		"Exit status: 0 guacrng is loaded or would load, 1 a problem was found\n"
		"(the message says which, and the fix), 2 a usage error.\n");
}

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

static void doc_hex(const unsigned char *p, size_t n, char *out, size_t outn, int upper)
{
	static const char lo[] = "0123456789abcdef", up[] = "0123456789ABCDEF";
	const char *digits = upper ? up : lo;
	size_t i, o = 0;

	for (i = 0; i < n && o + 2 < outn; i++) {
		out[o++] = digits[p[i] >> 4];
		out[o++] = digits[p[i] & 15];
	}
	out[o] = 0;
}

static void doc_serial(const ASN1_INTEGER *serial, char *out, size_t n)
{
	BIGNUM *bn = ASN1_INTEGER_to_BN(serial, NULL);
	char *hex = bn ? BN_bn2hex(bn) : NULL;
	const char *p = hex ? hex : "";

	while (*p == '0' && p[1])
		p++;
	snprintf(out, n, "%s", p);
	OPENSSL_free(hex);
	BN_free(bn);
}

static void doc_cn(const X509_NAME *name, char *out, size_t n)
{
	out[0] = 0;
	if (name)
		X509_NAME_get_text_by_NID((X509_NAME *)name, NID_commonName, out, (int)n);
}

/* A whole file (at most DOC_MAX_MODULE bytes), or a compressed module's content. */
static unsigned char *doc_slurp(const char *path, size_t *len)
{
	const char *tool = NULL;
	unsigned char *buf;
	size_t n = 0, cap = 1 << 20;
	ssize_t r;
	int fd, pipefd[2] = { -1, -1 };
	pid_t pid = -1;
	size_t plen = strlen(path);

	if (plen > 3 && !strcmp(path + plen - 3, ".xz"))
		tool = "xz";
	else if (plen > 4 && !strcmp(path + plen - 4, ".zst"))
		tool = "zstd";
	if (tool) {
		if (pipe(pipefd))
			return NULL;
		pid = fork();
		if (pid < 0)
			return NULL;
		if (!pid) {
			dup2(pipefd[1], 1);
			close(pipefd[0]);
			close(pipefd[1]);
			execlp(tool, tool, "-dc", "--", path, (char *)NULL);
			_exit(127);
		}
		close(pipefd[1]);
		fd = pipefd[0];
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
	}
	buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			unsigned char *b = n >= DOC_MAX_MODULE ? NULL : realloc(buf, cap * 2);

			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (pid > 0) {
		int st;

		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			free(buf);
			return NULL;
		}
	}
	*len = n;
	return buf;
}

/*
 * The signature sign-file appends: the PKCS#7 message, a 12-byte struct
 * module_signature (id_type 2 = PKCS#7, the message's length big-endian in
 * its last 4 bytes), then the magic string.
 */
static void doc_module_signature(struct doc *d, const char *file)
{
	size_t len, ml = sizeof(DOC_MAGIC) - 1, siglen;
	unsigned char *buf = doc_slurp(file, &len);
	const unsigned char *hdr, *p;
	PKCS7 *p7;

	d->signed_pkcs7 = -1;
	if (!buf)
		return;
	d->signed_pkcs7 = 0;
	if (len < ml + 12 || memcmp(buf + len - ml, DOC_MAGIC, ml))
		goto out;
	hdr = buf + len - ml - 12;
	siglen = (size_t)hdr[8] << 24 | (size_t)hdr[9] << 16 | (size_t)hdr[10] << 8 | hdr[11];
	if (hdr[2] != 2 || siglen > len - ml - 12)
		goto out;
	p = hdr - siglen;
	p7 = d2i_PKCS7(NULL, &p, (long)siglen);
	if (p7) {
		STACK_OF(PKCS7_SIGNER_INFO) *si = PKCS7_get_signer_info(p7);
		PKCS7_SIGNER_INFO *s = si && sk_PKCS7_SIGNER_INFO_num(si) > 0 ?
				       sk_PKCS7_SIGNER_INFO_value(si, 0) : NULL;

		if (s && s->issuer_and_serial) {
			d->signed_pkcs7 = 1;
			d->signer.present = 1;
			doc_cn(s->issuer_and_serial->issuer, d->signer.cn, sizeof(d->signer.cn));
			doc_serial(s->issuer_and_serial->serial, d->signer.serial,
				   sizeof(d->signer.serial));
		}
		PKCS7_free(p7);
	}
out:
	free(buf);
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

static void doc_read_cert(struct doc *d)
{
	char full[8400];
	const ASN1_OCTET_STRING *skid;
	X509 *x = NULL;
	FILE *f;

	doc_path(d, full, sizeof(full), d->cert_path);
	f = fopen(full, "r");
	if (!f) {
		d->cert_state = errno == ENOENT ? 0 : -1;
		return;
	}
	x = d2i_X509_fp(f, NULL);
	if (!x) {
		rewind(f);
		x = PEM_read_X509(f, NULL, NULL, NULL);
	}
	fclose(f);
	if (!x) {
		d->cert_state = -1;
		return;
	}
	d->cert_state = 1;
	d->cert.present = 1;
	doc_cn(X509_get_subject_name(x), d->cert.cn, sizeof(d->cert.cn));
	doc_serial(X509_get0_serialNumber(x), d->cert.serial, sizeof(d->cert.serial));
	skid = X509_get0_subject_key_id(x);
	if (skid)
		doc_hex(ASN1_STRING_get0_data(skid), (size_t)ASN1_STRING_length(skid),
			d->cert.keyid, sizeof(d->cert.keyid), 0);
	else	/* the kernel names a key without one by its serial number */
		snprintf(d->cert.keyid, sizeof(d->cert.keyid), "%s", d->cert.serial);
	for (char *c = d->cert.keyid; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	X509_free(x);
}

/* An asymmetric key "CN: keyid" in /proc/keys with the certificate's key id. */
static void doc_trusted(struct doc *d)
{
	char full[4200], line[1024], *desc;
	FILE *f;

	d->trusted = -1;
	if (!d->cert.present || !d->cert.keyid[0])
		return;
	doc_path(d, full, sizeof(full), "/proc/keys");
	f = fopen(full, "r");
	if (!f)
		return;
	d->trusted = 0;
	while (fgets(line, sizeof(line), f)) {
		desc = strstr(line, " asymmetri ");	/* the type, cut to 9 characters */
		if (!desc)
			continue;
		/* "CN: keyid": the CN may hold ": " too; the key id ends at ':', ' ' or the end */
		while ((desc = strstr(desc + 1, ": "))) {
			size_t n = strlen(d->cert.keyid);
			char end = desc[2 + n];

			if (!strncasecmp(desc + 2, d->cert.keyid, n) &&
			    (end == ':' || end == ' ' || end == '\n' || !end))
				d->trusted = 1;
		}
	}
	fclose(f);
}

static void doc_enforcement(struct doc *d)
{
	char full[4200], line[256], *a, *b;
	unsigned char var[5];
	FILE *f;

	d->secure_boot = -1;
	if (doc_exists(d, "/sys/firmware/efi")) {
		d->secure_boot = 0;
		doc_path(d, full, sizeof(full),
			 "/sys/firmware/efi/efivars/SecureBoot-" DOC_EFI_GLOBAL);
		f = fopen(full, "rb");
		/* efivarfs: 4 bytes of attributes, then the value */
		if (f && fread(var, 1, 5, f) == 5 && var[4] == 1)
			d->secure_boot = 1;
		if (f)
			fclose(f);
		d->mok_pending = doc_exists(d, "/sys/firmware/efi/efivars/MokNew-" DOC_SHIM_GUID);
	}
	snprintf(d->lockdown, sizeof(d->lockdown), "unknown");
	if (doc_read_line(d, "/sys/kernel/security/lockdown", line, sizeof(line))) {
		a = strchr(line, '[');
		b = a ? strchr(a, ']') : NULL;
		if (a && b && b - a - 1 < (long)sizeof(d->lockdown)) {
			*b = 0;
			snprintf(d->lockdown, sizeof(d->lockdown), "%s", a + 1);
		}
	}
	d->sig_enforce = doc_read_line(d, "/sys/module/module/parameters/sig_enforce", line,
				       sizeof(line)) && line[0] == 'Y';
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

static const char *doc_id_text(const struct doc_id *id, char *out, size_t n)
{
	snprintf(out, n, "'%s', serial %s", id->cn[0] ? id->cn : "(no CN)", id->serial);
	return out;
}

static int doc_fix_enroll(const struct doc *d)
{
	if (d->mok_pending) {
		printf("An enrollment is pending (MokNew is set): reboot, and in the blue MokManager\n"
		       "screen choose Enroll MOK, Continue, Yes, and type the password you chose.\n");
		return GUAC_EXIT_FAIL;
	}
	int w = (int)strlen("mokutil --import ") + (int)strlen(d->cert_path);

	printf("FIX: enroll the DKMS key as a Machine Owner Key, once for this machine:\n"
	       "  mokutil --import %s   # asks for a one-time password\n"
	       "  %-*s   # MokManager: Enroll MOK, Continue, Yes, the password\n"
	       "then `modprobe guacrng` (it also loads at every boot).\n", d->cert_path, w,
	       "reboot");
	return GUAC_EXIT_FAIL;
}

static int doc_verdict(const struct doc *d)
{
	int enforced = d->secure_boot == 1 || d->sig_enforce ||
		       (strcmp(d->lockdown, "none") && strcmp(d->lockdown, "unknown"));
	int by_dkms = d->signed_pkcs7 == 1 && d->cert.present &&
		      !strcmp(d->signer.serial, d->cert.serial) && !strcmp(d->signer.cn, d->cert.cn);
	char a[512];

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
	if (d->signed_pkcs7 < 0) {
		printf("PROBLEM: cannot read %s.\n", d->module);
		return GUAC_EXIT_FAIL;
	}
	if (!enforced) {
		printf("OK: the kernel does not enforce module signatures (Secure Boot off, no\n"
		       "lockdown): `modprobe guacrng` loads it%s.\n",
		       by_dkms && d->trusted == 1 ? "" : " (a module not signed by a trusted key taints the kernel)");
		return GUAC_EXIT_OK;
	}
	if (!d->signed_pkcs7) {
		printf("PROBLEM: %s is not signed, and this kernel refuses unsigned modules\n"
		       "(Secure Boot or lockdown): modprobe fails with \"Key was rejected by service\".\n"
		       "FIX: have DKMS build and sign it again with its key (%s):\n"
		       "  dkms remove guacrng --all && dpkg-reconfigure guacrng-dkms\n",
		       d->module, d->cert_path);
		if (!d->cert.present || d->trusted != 1)
			printf("and enroll that key (see below).\n");
		if (d->cert.present && d->trusted != 1)
			doc_fix_enroll(d);
		return GUAC_EXIT_FAIL;
	}
	if (!by_dkms) {
		printf("PROBLEM: %s is signed by %s,\n", d->module,
		       doc_id_text(&d->signer, a, sizeof(a)));
		if (d->cert.present)
			printf("not by the key DKMS signs with (%s: '%s', serial %s).\n",
			       d->cert_path, d->cert.cn, d->cert.serial);
		else
			printf("and DKMS's certificate %s is %s.\n", d->cert_path,
			       d->cert_state < 0 ? "unreadable" : "missing");
		printf("Under Secure Boot the kernel loads it only if that key is enrolled; if not,\n"
		       "modprobe fails with \"Key was rejected by service\".\n"
		       "FIX: rebuild it so that DKMS signs it with its key%s:\n"
		       "  dkms remove guacrng --all && dpkg-reconfigure guacrng-dkms\n",
		       d->trusted == 1 ? " (which the kernel trusts)" : ", and enroll that key");
		if (d->trusted != 1)
			printf("  mokutil --import %s; reboot; MokManager: Enroll MOK\n", d->cert_path);
		return GUAC_EXIT_FAIL;
	}
	if (d->trusted == 1) {
		printf("OK: signed by the DKMS key, which the kernel trusts: `modprobe guacrng`\n"
		       "loads it.\n");
		return GUAC_EXIT_OK;
	}
	if (d->trusted < 0) {
		printf("PROBLEM: cannot read /proc/keys to tell whether the kernel trusts the DKMS\n"
		       "key (run as root?). If `modprobe guacrng` says \"Key was rejected by service\",\n"
		       "the key is not enrolled.\n");
		return doc_fix_enroll(d);
	}
	printf("PROBLEM: Secure Boot is on and the key that signed guacrng.ko (DKMS's, %s)\n"
	       "is not enrolled: the kernel does not trust it, and refuses the module\n"
	       "(modprobe: \"Key was rejected by service\").\n", d->cert_path);
	return doc_fix_enroll(d);
}

int guac_cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "root", required_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct doc d;
	struct utsname u;
	char a[512], full[8400];
	struct stat st;
	int c;

	memset(&d, 0, sizeof(d));
	d.root = "";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			snprintf(d.module, sizeof(d.module), "%s", optarg);
			d.module_given = 1;
			break;
		case 'k':
			if (!*optarg || strchr(optarg, '/') || strlen(optarg) >= sizeof(d.release)) {
				guac_err("--kernel: '%s' is not a kernel release", optarg);
				return GUAC_EXIT_ERROR;
			}
			snprintf(d.release, sizeof(d.release), "%s", optarg);
			break;
		case 'r':
			if (stat(optarg, &st) || !S_ISDIR(st.st_mode)) {
				guac_err("--root: '%s' is not a directory", optarg);
				return GUAC_EXIT_ERROR;
			}
			d.root = optarg;
			break;
		case 'V':
			guac_print_version();
			return GUAC_EXIT_OK;
		case 'h':
			doctor_usage(stdout);
			return GUAC_EXIT_OK;
		default:
			fprintf(stderr, "Try 'guac doctor --help'.\n");
			return GUAC_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		guac_err("unexpected argument '%s' (try 'guac doctor --help')", argv[optind]);
		return GUAC_EXIT_ERROR;
	}
	if (!d.release[0]) {
		if (uname(&u)) {
			guac_err("uname: %s", strerror(errno));
			return GUAC_EXIT_ERROR;
		}
		snprintf(d.release, sizeof(d.release), "%s", u.release);
	}
	if (d.module_given) {
		if (access(d.module, R_OK)) {
			guac_err("--module: cannot read '%s': %s", d.module, strerror(errno));
			return GUAC_EXIT_ERROR;
		}
		d.module_found = 1;
		doc_module_signature(&d, d.module);
	} else {
		doc_find_module(&d);
		if (d.module_found) {
			doc_path(&d, full, sizeof(full), d.module);
			doc_module_signature(&d, full);
		}
	}
	d.loaded = doc_exists(&d, "/sys/module/guacrng");
	if (d.loaded)
		doc_read_line(&d, "/sys/module/guacrng/taint", d.taint, sizeof(d.taint));
	doc_find_cert(&d);
	doc_read_cert(&d);
	doc_trusted(&d);
	doc_enforcement(&d);

	printf("guac doctor: guacrng on kernel %s\n", d.release);
	if (d.loaded && d.taint[0])
		printf("  loaded:        yes (taint flags %s)\n", d.taint);
	else
		printf("  loaded:        %s\n", d.loaded ? "yes" : "no");
	printf("  module file:   %s%s\n", d.module, d.module_found ? "" : " (missing)");
	if (d.module_found)
		printf("  signature:     %s\n", d.signed_pkcs7 == 1 ?
		       doc_id_text(&d.signer, a, sizeof(a)) :
		       d.signed_pkcs7 ? "unreadable" : "none (unsigned)");
	if (d.cert_state == 1)
		printf("  DKMS key:      %s: %s, key id %s\n", d.cert_path,
		       doc_id_text(&d.cert, a, sizeof(a)), d.cert.keyid);
	else
		printf("  DKMS key:      %s: %s\n", d.cert_path,
		       d.cert_state ? "unreadable (not a certificate)" : "missing");
	printf("  kernel trusts: %s\n", d.trusted == 1 ? "the DKMS key (in /proc/keys)" :
	       d.trusted == 0 ? "not the DKMS key: it is not in /proc/keys (not enrolled)" :
	       d.cert.present ? "unknown (/proc/keys unreadable)" : "unknown (no DKMS key)");
	printf("  Secure Boot:   %s%s\n", d.secure_boot == 1 ? "enabled" :
	       d.secure_boot == 0 ? "disabled" : "no (not booted with EFI)",
	       d.mok_pending ? "; a MOK enrollment is pending (MokNew)" : "");
	printf("  lockdown:      %s%s\n", d.lockdown,
	       d.sig_enforce ? "; module.sig_enforce=Y" : "");
	return doc_verdict(&d);
}
