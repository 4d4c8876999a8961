/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * guac doctor's engine: what the kernel checks when it loads a module, done
 * again in userspace. doctor_module.c reads the module file (decompressing
 * .gz/.xz/.zst), its signature trailer and PKCS#7 message, verifies that
 * signature over the module's bytes with OpenSSL and reads its vermagic;
 * doctor_keys.c reads which keyrings of the kernel hold a key and the shim's
 * EFI variables. cmd_doctor.c parses the options and prints the verdict.
 */
#ifndef GUAC_DOCTOR_H
#define GUAC_DOCTOR_H

#include <stddef.h>
#include <openssl/x509.h>

/* A certificate: DKMS's (mok_certificate) or another one doctor can read. */
struct doc_cert {
	X509 *x509;		/* NULL when missing or unreadable */
	char cn[256];		/* subject CN */
	char serial[128];	/* upper-case hex, no leading zeros */
	char keyid[128];	/* lower-case hex: what the kernel names the key by */
	unsigned char *der;	/* the DER bytes, to compare with a pending MokNew */
	int der_len;
};

/* 0 read, -ENOENT missing, another -errno (or -EINVAL: not a certificate). */
int doc_cert_read(const char *path, struct doc_cert *c);
void doc_cert_free(struct doc_cert *c);

/* What mod_verify_sig() and module_sig_check() would answer, in their errnos. */
enum doc_sig_verdict {
	DOC_SIG_NONE,		/* no marker: -ENODATA, unsigned */
	DOC_SIG_BAD_MESSAGE,	/* -EBADMSG: a damaged trailer or PKCS#7, always fatal */
	DOC_SIG_NOT_PKCS7,	/* -ENOPKG: id_type is not PKCS#7 */
	DOC_SIG_UNSUPPORTED,	/* -ENOPKG: a digest this kernel cannot compute */
	DOC_SIG_PARSED,		/* a PKCS#7 message the kernel parses: the key decides */
};

struct doc_module {
	const char *decompressed_by;	/* "gzip -dc", "xz -dc", "zstd -dc" or NULL */
	char read_error[256];		/* "" when the file was read */
	int is_elf;
	char vermagic[256];		/* .modinfo's vermagic=, "" when there is none */
	enum doc_sig_verdict sig;
	char sig_problem[256];		/* why BAD_MESSAGE, NOT_PKCS7 or UNSUPPORTED */
	int signer_by_keyid;		/* the signer named by subjectKeyIdentifier (sign-file -k) */
	char signer_cn[256];		/* issuer CN, when named by issuer and serial */
	char signer_serial[128];
	char signer_keyid[128];
	char digest[32];		/* the digest algorithm, as the kernel names it ("sha256") */
	int signer_is_cert;		/* the signer's id is the certificate's (the kernel's lookup) */
	int verifies;			/* with the certificate over the module's bytes: 1, 0, -1 not tried */
};

/*
 * Read PATH (decompressed by its suffix) and check its signature as the kernel
 * RELEASE would; CERT (may be NULL or empty) is the key the signature is
 * verified with when the signer names it. 0, or -1 with m->read_error set.
 */
int doc_module_check(const char *path, const char *release, const struct doc_cert *cert,
		     struct doc_module *m);

/* Where the kernel's keyrings hold a key (bits of enum doc_keyring). */
enum doc_keyring {
	DOC_KR_BUILTIN = 1 << 0,	/* .builtin_trusted_keys */
	DOC_KR_SECONDARY = 1 << 1,	/* .secondary_trusted_keys (links .builtin and .machine) */
	DOC_KR_MACHINE = 1 << 2,	/* .machine: MOKs, when MokListTrustedRT exists */
	DOC_KR_PLATFORM = 1 << 3,	/* .platform: UEFI db, and MOKs otherwise */
	DOC_KR_BLACKLIST = 1 << 4,	/* .blacklist: revoked */
	DOC_KR_OTHER = 1 << 5,		/* in /proc/keys, in none of those (a user's keyring) */
};

struct doc_keys {
	int proc_keys_read;	/* /proc/keys could be opened */
	int keyrings_visible;	/* .builtin_trusted_keys is in it: the reader is root */
	int members_unknown;	/* a system keyring's contents could not be read */
	int where;		/* enum doc_keyring bits for the key id asked */
	int has_machine, has_platform;
	int platform_fallback;	/* Debian's kernels: ENOKEY retries with .platform */
	int trusted;		/* for modules: 1, 0, -1 cannot tell */
};

/*
 * Which keyrings of the running kernel hold the key KEYID, and whether the
 * kernel verifies modules with it. ROOT "" reads the real system (keyring
 * contents through keyctl(KEYCTL_READ)); another ROOT, the files under it
 * (keyring contents from ROOT/keyctl/SERIAL).
 */
void doc_keys_find(const char *root, const char *keyid, struct doc_keys *k);
const char *doc_keyring_names(int where, char *out, size_t n);

/* The shim's state, from efivarfs. */
struct doc_efi {
	int booted_efi;		/* /sys/firmware/efi exists */
	int secure_boot;	/* the firmware's SecureBoot variable is 1 */
	int validation_off;	/* MokSBStateRT: mokutil --disable-validation */
	int mok_trusted;	/* MokListTrustedRT: MOKs go to .machine */
	int pending;		/* MokNew exists */
	int pending_has_cert;	/* ... and lists this certificate */
	int pending_keys;	/* X.509 entries in MokNew */
};

void doc_efi_read(const char *root, const struct doc_cert *cert, struct doc_efi *e);

/*
 * What loading the module would answer (kernel/module/signing.c,
 * module_sig_check, then check_modinfo): the signature check's errno, the
 * load's, and whether doctor could tell.
 */
struct doc_answer {
	int sig_err;	/* 0, -ENODATA, -ENOPKG, -ENOKEY, -EKEYREJECTED, -EBADMSG */
	int err;	/* 0, -EKEYREJECTED (enforced), -EPERM (lockdown), -EBADMSG, -ENOEXEC */
	int unknown;	/* sig_err depends on a key doctor cannot see or check */
	int taints;	/* loads with its signature unverified (taint E) */
};

void doc_kernel_answer(const struct doc_module *m, const struct doc_keys *cert_keys,
		       const char *release, int sig_enforce, int locked_down,
		       struct doc_answer *a);

#endif /* GUAC_DOCTOR_H */
