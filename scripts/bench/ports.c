// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ports.c: per-cycle throughput of the vector instructions the core uses
 * (docs/cost-model.md, section 2), for machines without a PMU.
 *
 * Each test is a loop of independent instructions (or, for the chain tests,
 * of interleaved dependent add-rotate-xor chains) written in inline asm and
 * unrolled 8 times. Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
 * so a loaded machine costs trials, not accuracy; cycles come from a chain
 * of dependent 64-bit imul (3 cycles each, on Intel since Nehalem and on
 * AMD since Zen) timed the same way right before and right after every
 * trial. The figure is the median over the trials of instructions per
 * cycle.
 *
 *   ports [--trials N] [--ms MS]
 *
 * Build: gcc -std=c11 -O2 -Wall -Wextra -Werror -o ports ports.c
 * (scripts/bench/ports.sh does, into build/bench/). The asm needs no -m
 * flag: the assembler knows every instruction, and each test runs only if
 * the CPU has what it needs (__builtin_cpu_supports); the others are
 * listed as skipped. Only registers 0-15 are used, so the clobber lists
 * are valid without AVX-512 enabled in the compiler.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if !defined(__x86_64__)
#error "ports.c measures x86-64 instructions"
#endif

#define UNROLL "8"

static unsigned char store_buf[512] __attribute__((aligned(64)));

static double thread_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
		perror("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
		exit(1);
	}
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n iterations of 100 dependent imul: 300 n cycles. */
static void imul_chain(uint64_t n)
{
	uint64_t x = 3;

	__asm__ volatile("1:\n\t"
			 ".rept 100\n\t"
			 "imul %0, %0\n\t"
			 ".endr\n\t"
			 "dec %1\n\t"
			 "jnz 1b"
			 : "+r"(x), "+r"(n)
			 :
			 : "cc");
}

/* Returns cycles per ns (GHz). */
static double clock_ghz(uint64_t n)
{
	double t0 = thread_ns();

	imul_chain(n);
	return (double)n * 300.0 / (thread_ns() - t0);
}

#define CLOBBERS_XMM                                                        \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",     \
		"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
		"xmm15"

/*
 * One test: BODY (a string of instructions) repeated UNROLL times per loop
 * iteration. Registers 12-15 are sources and are set to small non-zero
 * values first; 0-11 are destinations (or accumulators).
 */
#define DEFINE_TEST(fn, init, body)                                           \
	static void fn(uint64_t n)                                            \
	{                                                                     \
		static const uint32_t src[16] __attribute__((aligned(64))) = { \
			1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16  \
		};                                                            \
		__asm__ volatile(init "\n\t"                                  \
				 "1:\n\t"                                     \
				 ".rept " UNROLL "\n\t" body "\n\t"           \
				 ".endr\n\t"                                  \
				 "dec %0\n\t"                                 \
				 "jnz 1b\n\t"                                 \
				 "vzeroupper"                                 \
				 : "+r"(n)                                    \
				 : "r"(src), "r"(store_buf)                   \
				 : "cc", "memory", CLOBBERS_XMM);             \
	}

#define INIT_Z                                                    \
	"vmovdqu64 (%1), %%zmm12\n\t vmovdqu64 (%1), %%zmm13\n\t" \
	"vmovdqu64 (%1), %%zmm14\n\t vmovdqu64 (%1), %%zmm15\n\t"  \
	"vmovdqu64 (%1), %%zmm0\n\t vmovdqa64 %%zmm0, %%zmm1\n\t"  \
	"vmovdqa64 %%zmm0, %%zmm2\n\t vmovdqa64 %%zmm0, %%zmm3\n\t" \
	"vmovdqa64 %%zmm0, %%zmm4\n\t vmovdqa64 %%zmm0, %%zmm5\n\t" \
	"vmovdqa64 %%zmm0, %%zmm6\n\t vmovdqa64 %%zmm0, %%zmm7\n\t" \
	"vmovdqa64 %%zmm0, %%zmm8\n\t vmovdqa64 %%zmm0, %%zmm9\n\t" \
	"vmovdqa64 %%zmm0, %%zmm10\n\t vmovdqa64 %%zmm0, %%zmm11"
#define INIT_Y                                                \
	"vmovdqu (%1), %%ymm12\n\t vmovdqu (%1), %%ymm13\n\t" \
	"vmovdqu (%1), %%ymm14\n\t vmovdqu (%1), %%ymm15\n\t"  \
	"vmovdqu (%1), %%ymm0\n\t vmovdqa %%ymm0, %%ymm1\n\t"  \
	"vmovdqa %%ymm0, %%ymm2\n\t vmovdqa %%ymm0, %%ymm3\n\t" \
	"vmovdqa %%ymm0, %%ymm4\n\t vmovdqa %%ymm0, %%ymm5\n\t" \
	"vmovdqa %%ymm0, %%ymm6\n\t vmovdqa %%ymm0, %%ymm7\n\t" \
	"vmovdqa %%ymm0, %%ymm8\n\t vmovdqa %%ymm0, %%ymm9\n\t" \
	"vmovdqa %%ymm0, %%ymm10\n\t vmovdqa %%ymm0, %%ymm11"
#define INIT_X                                              \
	"movdqu (%1), %%xmm12\n\t movdqu (%1), %%xmm13\n\t" \
	"movdqu (%1), %%xmm14\n\t movdqu (%1), %%xmm15\n\t"  \
	"movdqu (%1), %%xmm0\n\t movdqa %%xmm0, %%xmm1\n\t"  \
	"movdqa %%xmm0, %%xmm2\n\t movdqa %%xmm0, %%xmm3\n\t" \
	"movdqa %%xmm0, %%xmm4\n\t movdqa %%xmm0, %%xmm5\n\t" \
	"movdqa %%xmm0, %%xmm6\n\t movdqa %%xmm0, %%xmm7\n\t" \
	"movdqa %%xmm0, %%xmm8\n\t movdqa %%xmm0, %%xmm9\n\t" \
	"movdqa %%xmm0, %%xmm10\n\t movdqa %%xmm0, %%xmm11"

/* 12 instructions OP SRC..., %REG0 ... %REG11 (write-only destinations). */
#define X12(op, a, r)                                                  \
	op a "%%" r "0\n\t" op a "%%" r "1\n\t" op a "%%" r "2\n\t"    \
	op a "%%" r "3\n\t" op a "%%" r "4\n\t" op a "%%" r "5\n\t"    \
	op a "%%" r "6\n\t" op a "%%" r "7\n\t" op a "%%" r "8\n\t"    \
	op a "%%" r "9\n\t" op a "%%" r "10\n\t" op a "%%" r "11\n\t"

/* ---- zmm (AVX-512F) ---- */
DEFINE_TEST(z_prold, INIT_Z, X12("vprold ", "$7, %%zmm12, ", "zmm"))
DEFINE_TEST(z_pslld, INIT_Z, X12("vpslld ", "$7, %%zmm12, ", "zmm"))
DEFINE_TEST(z_paddd, INIT_Z, X12("vpaddd ", "%%zmm12, %%zmm13, ", "zmm"))
DEFINE_TEST(z_pxord, INIT_Z, X12("vpxord ", "%%zmm12, %%zmm13, ", "zmm"))
/* vpternlogd reads its destination: 12 chains of latency 1. */
DEFINE_TEST(z_ternlog, INIT_Z,
	    X12("vpternlogd ", "$0x96, %%zmm12, %%zmm13, ", "zmm"))
DEFINE_TEST(z_unpck, INIT_Z,
	    X12("vpunpckldq ", "%%zmm12, %%zmm13, ", "zmm"))
DEFINE_TEST(z_shufi, INIT_Z,
	    X12("vshufi64x2 ", "$0x4e, %%zmm12, %%zmm13, ", "zmm"))

/* 16-byte extracts to memory (12 different slots), and plain xmm stores. */
#define ST12(op, src)                                                        \
	op src "0(%2)\n\t" op src "16(%2)\n\t" op src "32(%2)\n\t"           \
	op src "48(%2)\n\t" op src "64(%2)\n\t" op src "80(%2)\n\t"          \
	op src "96(%2)\n\t" op src "112(%2)\n\t" op src "128(%2)\n\t"        \
	op src "144(%2)\n\t" op src "160(%2)\n\t" op src "176(%2)\n\t"
DEFINE_TEST(z_extract, INIT_Z, ST12("vextracti32x4 ", "$1, %%zmm12, "))
DEFINE_TEST(y_extract, INIT_Y, ST12("vextracti128 ", "$1, %%ymm12, "))
DEFINE_TEST(x_store, INIT_X, ST12("vmovdqu ", "%%xmm12, "))

/* Mixes of section 2: 4 extracts to memory beside 4 shuffles or 4 vprold. */
#define EXT4                                                    \
	"vextracti32x4 $1, %%zmm12, 0(%2)\n\t"                  \
	"vextracti32x4 $2, %%zmm12, 16(%2)\n\t"                 \
	"vextracti32x4 $3, %%zmm12, 32(%2)\n\t"                 \
	"vextracti32x4 $1, %%zmm13, 48(%2)\n\t"
DEFINE_TEST(z_ext_shuf, INIT_Z,
	    EXT4 "vshufi64x2 $0x4e, %%zmm12, %%zmm13, %%zmm0\n\t"
		 "vshufi64x2 $0x4e, %%zmm12, %%zmm13, %%zmm1\n\t"
		 "vshufi64x2 $0x4e, %%zmm12, %%zmm13, %%zmm2\n\t"
		 "vshufi64x2 $0x4e, %%zmm12, %%zmm13, %%zmm3\n\t")
DEFINE_TEST(z_ext_prold, INIT_Z,
	    EXT4 "vprold $7, %%zmm12, %%zmm0\n\t"
		 "vprold $7, %%zmm12, %%zmm1\n\t"
		 "vprold $7, %%zmm12, %%zmm2\n\t"
		 "vprold $7, %%zmm12, %%zmm3\n\t")
#define YEXT4                                   \
	"vextracti128 $1, %%ymm12, 0(%2)\n\t"   \
	"vextracti128 $1, %%ymm13, 16(%2)\n\t"  \
	"vextracti128 $1, %%ymm14, 32(%2)\n\t"  \
	"vextracti128 $1, %%ymm15, 48(%2)\n\t"
DEFINE_TEST(y_ext_unpck, INIT_Y,
	    YEXT4 "vpunpckldq %%ymm12, %%ymm13, %%ymm0\n\t"
		  "vpunpckldq %%ymm12, %%ymm13, %%ymm1\n\t"
		  "vpunpckldq %%ymm12, %%ymm13, %%ymm2\n\t"
		  "vpunpckldq %%ymm12, %%ymm13, %%ymm3\n\t")

/* Do extracts to memory take ALU pipes? 4 of them beside adds that alone
 * fill 4 cycles (8 zmm, 16 ymm). */
#define ZADD4(a, b, c, d)                                                  \
	"vpaddd %%zmm12, %%zmm13, %%zmm" a "\n\t"                        \
	"vpaddd %%zmm12, %%zmm13, %%zmm" b "\n\t"                        \
	"vpaddd %%zmm12, %%zmm13, %%zmm" c "\n\t"                        \
	"vpaddd %%zmm12, %%zmm13, %%zmm" d "\n\t"
DEFINE_TEST(z_ext_add, INIT_Z,
	    EXT4 ZADD4("0", "1", "2", "3") ZADD4("4", "5", "6", "7"))
#define YADD4(a, b, c, d)                                                  \
	"vpaddd %%ymm12, %%ymm13, %%ymm" a "\n\t"                        \
	"vpaddd %%ymm12, %%ymm13, %%ymm" b "\n\t"                        \
	"vpaddd %%ymm12, %%ymm13, %%ymm" c "\n\t"                        \
	"vpaddd %%ymm12, %%ymm13, %%ymm" d "\n\t"
DEFINE_TEST(y_ext_add, INIT_Y,
	    YEXT4 YADD4("0", "1", "2", "3") YADD4("4", "5", "6", "7")
		  YADD4("8", "9", "10", "11") YADD4("0", "1", "2", "3"))

/* And plain stores (chunk 0 of a row, spills): 4 beside 16 ymm adds. */
DEFINE_TEST(x_st_add, INIT_Y,
	    "vmovdqu %%xmm12, 0(%2)\n\t vmovdqu %%xmm13, 16(%2)\n\t"
	    "vmovdqu %%xmm14, 32(%2)\n\t vmovdqu %%xmm15, 48(%2)\n\t"
	    YADD4("0", "1", "2", "3") YADD4("4", "5", "6", "7")
	    YADD4("8", "9", "10", "11") YADD4("0", "1", "2", "3"))
DEFINE_TEST(y_st_add, INIT_Y,
	    "vmovdqu %%ymm12, 0(%2)\n\t vmovdqu %%ymm13, 32(%2)\n\t"
	    "vmovdqu %%ymm14, 64(%2)\n\t vmovdqu %%ymm15, 96(%2)\n\t"
	    YADD4("0", "1", "2", "3") YADD4("4", "5", "6", "7")
	    YADD4("8", "9", "10", "11") YADD4("0", "1", "2", "3"))

/* Which pipes do rotates/shifts and shuffles share with each other and with
 * adds: 1:1 mixes, 6 + 6, independent. */
#define Z2(a, b, i, j)                                               \
	a "%%zmm" i "\n\t" b "%%zmm" j "\n\t"
DEFINE_TEST(z_prold_unpck, INIT_Z,
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "0", "1")
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "2", "3")
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "4", "5")
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "6", "7")
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "8", "9")
	    Z2("vprold $7, %%zmm12, ", "vpunpckldq %%zmm12, %%zmm13, ", "10", "11"))
DEFINE_TEST(z_prold_paddd, INIT_Z,
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "0", "1")
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "2", "3")
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "4", "5")
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "6", "7")
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "8", "9")
	    Z2("vprold $7, %%zmm12, ", "vpaddd %%zmm12, %%zmm13, ", "10", "11"))

/* The avx512 step's proportions, independent: add, vprold, xor 1:1:1. */
#define ZARX(i, j, k)                                 \
	"vpaddd %%zmm12, %%zmm13, %%zmm" i "\n\t"     \
	"vprold $7, %%zmm14, %%zmm" j "\n\t"          \
	"vpxord %%zmm12, %%zmm15, %%zmm" k "\n\t"
DEFINE_TEST(z_arx_indep, INIT_Z,
	    ZARX("0", "1", "2") ZARX("3", "4", "5") ZARX("6", "7", "8")
	    ZARX("9", "10", "11"))

/*
 * Chains: x_i = x_i ^ rotl(x_i + k, 7), N chains interleaved (x in
 * registers 0..N-1, k in 12, temporaries 8..11 renamed). Latency of a step:
 * add + rotate + xor, 3 cycles with vprold, 4 with shifts and or.
 */
#define ZCH(i)                                      \
	"vpaddd %%zmm12, %%zmm" i ", %%zmm8\n\t"    \
	"vprold $7, %%zmm8, %%zmm8\n\t"             \
	"vpxord %%zmm8, %%zmm" i ", %%zmm" i "\n\t"
DEFINE_TEST(z_chain1, INIT_Z, ZCH("0"))
DEFINE_TEST(z_chain4, INIT_Z, ZCH("0") ZCH("1") ZCH("2") ZCH("3"))
DEFINE_TEST(z_chain8, INIT_Z,
	    ZCH("0") ZCH("1") ZCH("2") ZCH("3") ZCH("4") ZCH("5") ZCH("6")
	    ZCH("7"))

/* ---- ymm ---- */
DEFINE_TEST(y_prold, INIT_Y, X12("vprold ", "$7, %%ymm12, ", "ymm"))
DEFINE_TEST(y_pslld, INIT_Y, X12("vpslld ", "$7, %%ymm12, ", "ymm"))
DEFINE_TEST(y_paddd, INIT_Y, X12("vpaddd ", "%%ymm12, %%ymm13, ", "ymm"))
DEFINE_TEST(y_pxor, INIT_Y, X12("vpxor ", "%%ymm12, %%ymm13, ", "ymm"))
DEFINE_TEST(y_ternlog, INIT_Y,
	    X12("vpternlogd ", "$0x96, %%ymm12, %%ymm13, ", "ymm"))
DEFINE_TEST(y_unpck, INIT_Y,
	    X12("vpunpckldq ", "%%ymm12, %%ymm13, ", "ymm"))
DEFINE_TEST(y_perm2, INIT_Y,
	    X12("vperm2i128 ", "$0x21, %%ymm12, %%ymm13, ", "ymm"))
#define Y2(a, b, i, j) a "%%ymm" i "\n\t" b "%%ymm" j "\n\t"
DEFINE_TEST(y_sll_unpck, INIT_Y,
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "0", "1")
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "2", "3")
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "4", "5")
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "6", "7")
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "8", "9")
	    Y2("vpslld $7, %%ymm12, ", "vpunpckldq %%ymm12, %%ymm13, ", "10", "11"))
DEFINE_TEST(y_sll_paddd, INIT_Y,
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "0", "1")
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "2", "3")
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "4", "5")
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "6", "7")
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "8", "9")
	    Y2("vpslld $7, %%ymm12, ", "vpaddd %%ymm12, %%ymm13, ", "10", "11"))
/* The avx2 step's proportions, independent: add, sll, srl, or, xor. */
#define YARX(a, b, c, d, e)                          \
	"vpaddd %%ymm12, %%ymm13, %%ymm" a "\n\t"    \
	"vpslld $7, %%ymm14, %%ymm" b "\n\t"         \
	"vpsrld $25, %%ymm14, %%ymm" c "\n\t"        \
	"vpor %%ymm12, %%ymm15, %%ymm" d "\n\t"      \
	"vpxor %%ymm13, %%ymm15, %%ymm" e "\n\t"
DEFINE_TEST(y_arx_indep, INIT_Y,
	    YARX("0", "1", "2", "3", "4") YARX("5", "6", "7", "8", "9"))
#define YCH(i)                                          \
	"vpaddd %%ymm12, %%ymm" i ", %%ymm8\n\t"        \
	"vpslld $7, %%ymm8, %%ymm9\n\t"                 \
	"vpsrld $25, %%ymm8, %%ymm8\n\t"                \
	"vpor %%ymm9, %%ymm8, %%ymm8\n\t"               \
	"vpxor %%ymm8, %%ymm" i ", %%ymm" i "\n\t"
DEFINE_TEST(y_chain1, INIT_Y, YCH("0"))
DEFINE_TEST(y_chain4, INIT_Y, YCH("0") YCH("1") YCH("2") YCH("3"))
DEFINE_TEST(y_chain8, INIT_Y,
	    YCH("0") YCH("1") YCH("2") YCH("3") YCH("4") YCH("5") YCH("6")
	    YCH("7"))
/* Twelve chains: more than two AVX2 groups could keep in 16 registers. */
DEFINE_TEST(y_chain12, INIT_Y,
	    YCH("0") YCH("1") YCH("2") YCH("3") YCH("4") YCH("5") YCH("6")
	    YCH("7") YCH("10") YCH("11") YCH("13") YCH("14"))

/* ---- xmm, legacy SSE2 encoding (two operands: 12 accumulators) ---- */
DEFINE_TEST(x_paddd, INIT_X, X12("paddd ", "%%xmm12, ", "xmm"))
DEFINE_TEST(x_pslld, INIT_X, X12("pslld ", "$7, ", "xmm"))
DEFINE_TEST(x_pxor, INIT_X, X12("pxor ", "%%xmm12, ", "xmm"))
DEFINE_TEST(x_unpck, INIT_X, X12("punpckldq ", "%%xmm12, ", "xmm"))
DEFINE_TEST(x_movdqa, INIT_X, X12("movdqa ", "%%xmm12, ", "xmm"))
/* The sse2 step's proportions, independent accumulators. */
#define XARX(a, b, c, d, e)                 \
	"paddd %%xmm12, %%xmm" a "\n\t"     \
	"pslld $7, %%xmm" b "\n\t"          \
	"psrld $25, %%xmm" c "\n\t"         \
	"por %%xmm12, %%xmm" d "\n\t"       \
	"pxor %%xmm13, %%xmm" e "\n\t"
DEFINE_TEST(x_arx_indep, INIT_X,
	    XARX("0", "1", "2", "3", "4") XARX("5", "6", "7", "8", "9"))
/* The sse2 step as compiled: two copies, five ALU uops. */
#define XCH(i)                                  \
	"movdqa %%xmm" i ", %%xmm8\n\t"         \
	"paddd %%xmm12, %%xmm8\n\t"             \
	"movdqa %%xmm8, %%xmm9\n\t"             \
	"pslld $7, %%xmm8\n\t"                  \
	"psrld $25, %%xmm9\n\t"                 \
	"por %%xmm9, %%xmm8\n\t"                \
	"pxor %%xmm8, %%xmm" i "\n\t"
DEFINE_TEST(x_chain1, INIT_X, XCH("0"))
DEFINE_TEST(x_chain4, INIT_X, XCH("0") XCH("1") XCH("2") XCH("3"))
DEFINE_TEST(x_chain8, INIT_X,
	    XCH("0") XCH("1") XCH("2") XCH("3") XCH("4") XCH("5") XCH("6")
	    XCH("7"))

enum need { SSE2, AVX2, AVX512F, AVX512VL };

struct test {
	const char *name;
	const char *what;
	enum need need;
	void (*fn)(uint64_t);
	int insns; /* counted instructions per body (loop overhead excluded) */
	int alu;   /* vector ALU instructions of them (stores excluded) */
};

static const struct test tests[] = {
	{ "zmm vprold", "independent", AVX512F, z_prold, 12, 12 },
	{ "zmm vpslld", "independent", AVX512F, z_pslld, 12, 12 },
	{ "zmm vpaddd", "independent", AVX512F, z_paddd, 12, 12 },
	{ "zmm vpxord", "independent", AVX512F, z_pxord, 12, 12 },
	{ "zmm vpternlogd", "12 accumulators", AVX512F, z_ternlog, 12, 12 },
	{ "zmm vpunpckldq", "independent", AVX512F, z_unpck, 12, 12 },
	{ "zmm vshufi64x2", "independent", AVX512F, z_shufi, 12, 12 },
	{ "vextracti32x4 to memory", "12 slots", AVX512F, z_extract, 12, 0 },
	{ "mix 4 vextracti32x4 + 4 vshufi64x2", "per instruction", AVX512F,
	  z_ext_shuf, 8, 4 },
	{ "mix 4 vextracti32x4 + 4 vprold", "per instruction", AVX512F,
	  z_ext_prold, 8, 4 },
	{ "mix 4 vextracti32x4 + 8 zmm vpaddd", "per instruction", AVX512F,
	  z_ext_add, 12, 8 },
	{ "mix zmm vprold + vpunpckldq 1:1", "per instruction", AVX512F,
	  z_prold_unpck, 12, 12 },
	{ "mix zmm vprold + vpaddd 1:1", "per instruction", AVX512F,
	  z_prold_paddd, 12, 12 },
	{ "mix zmm add, vprold, xor 1:1:1", "independent", AVX512F,
	  z_arx_indep, 12, 12 },
	{ "zmm add-vprold-xor, 1 chain", "latency", AVX512F, z_chain1, 3, 3 },
	{ "zmm add-vprold-xor, 4 chains", "dependent", AVX512F, z_chain4, 12,
	  12 },
	{ "zmm add-vprold-xor, 8 chains", "dependent", AVX512F, z_chain8, 24,
	  24 },
	{ "ymm vprold", "independent (AVX-512VL)", AVX512VL, y_prold, 12, 12 },
	{ "ymm vpslld", "independent", AVX2, y_pslld, 12, 12 },
	{ "ymm vpaddd", "independent", AVX2, y_paddd, 12, 12 },
	{ "ymm vpxor", "independent", AVX2, y_pxor, 12, 12 },
	{ "ymm vpternlogd", "12 accumulators (AVX-512VL)", AVX512VL,
	  y_ternlog, 12, 12 },
	{ "ymm vpunpckldq", "independent", AVX2, y_unpck, 12, 12 },
	{ "ymm vperm2i128", "independent", AVX2, y_perm2, 12, 12 },
	{ "vextracti128 to memory", "12 slots", AVX2, y_extract, 12, 0 },
	{ "mix 4 vextracti128 + 4 ymm vpunpckldq", "per instruction", AVX2,
	  y_ext_unpck, 8, 4 },
	{ "mix 4 vextracti128 + 16 ymm vpaddd", "per instruction", AVX2,
	  y_ext_add, 20, 16 },
	{ "mix 4 xmm vmovdqu stores + 16 ymm vpaddd", "per instruction", AVX2,
	  x_st_add, 20, 16 },
	{ "mix 4 ymm vmovdqu stores + 16 ymm vpaddd", "per instruction", AVX2,
	  y_st_add, 20, 16 },
	{ "mix ymm vpslld + vpunpckldq 1:1", "per instruction", AVX2,
	  y_sll_unpck, 12, 12 },
	{ "mix ymm vpslld + vpaddd 1:1", "per instruction", AVX2, y_sll_paddd,
	  12, 12 },
	{ "mix ymm add, sll, srl, or, xor", "independent", AVX2, y_arx_indep,
	  10, 10 },
	{ "ymm add-sll-srl-or-xor, 1 chain", "latency", AVX2, y_chain1, 5, 5 },
	{ "ymm add-sll-srl-or-xor, 4 chains", "dependent", AVX2, y_chain4, 20,
	  20 },
	{ "ymm add-sll-srl-or-xor, 8 chains", "dependent", AVX2, y_chain8, 40,
	  40 },
	{ "ymm add-sll-srl-or-xor, 12 chains", "dependent", AVX2, y_chain12,
	  60, 60 },
	{ "xmm paddd", "12 accumulators", SSE2, x_paddd, 12, 12 },
	{ "xmm pslld", "12 accumulators", SSE2, x_pslld, 12, 12 },
	{ "xmm pxor", "12 accumulators", SSE2, x_pxor, 12, 12 },
	{ "xmm punpckldq", "12 accumulators", SSE2, x_unpck, 12, 12 },
	{ "xmm movdqa reg-reg", "independent", SSE2, x_movdqa, 12, 0 },
	{ "xmm vmovdqu store", "12 slots", SSE2, x_store, 12, 0 },
	{ "mix xmm add, sll, srl, or, xor", "12 accumulators", SSE2,
	  x_arx_indep, 10, 10 },
	{ "xmm sse2 step (2 movdqa), 1 chain", "latency", SSE2, x_chain1, 7,
	  5 },
	{ "xmm sse2 step (2 movdqa), 4 chains", "dependent", SSE2, x_chain4,
	  28, 20 },
	{ "xmm sse2 step (2 movdqa), 8 chains", "dependent", SSE2, x_chain8,
	  56, 40 },
};

static int have(enum need need)
{
	__builtin_cpu_init();
	switch (need) {
	case SSE2:
		return __builtin_cpu_supports("sse2");
	case AVX2:
		return __builtin_cpu_supports("avx2");
	case AVX512F:
		return __builtin_cpu_supports("avx512f");
	case AVX512VL:
		return __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl");
	}
	return 0;
}

static const char *need_name(enum need need)
{
	static const char *const names[] = { "SSE2", "AVX2", "AVX-512F",
					     "AVX-512VL" };
	return names[need];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void cpu_name(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	unsigned fam = 0, model = 0, step = 0;
	char name[256] = "unknown";

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *v = strchr(line, ':');

			if (!v)
				continue;
			v += 2;
			v[strcspn(v, "\n")] = 0;
			if (!strncmp(line, "model name", 10))
				snprintf(name, sizeof(name), "%s", v);
			else if (!strncmp(line, "cpu family", 10))
				fam = (unsigned)atoi(v);
			else if (!strncmp(line, "model\t", 6))
				model = (unsigned)atoi(v);
			else if (!strncmp(line, "stepping", 8))
				step = (unsigned)atoi(v);
			else if (line[0] == '\n' || !strncmp(line, "power", 5))
				break;
		}
		fclose(f);
	}
	snprintf(buf, len, "%s, family %u model %u stepping %u", name, fam,
		 model, step);
}

int main(int argc, char **argv)
{
	int trials = 7;
	double target_ms = 20.0;
	const uint64_t clock_iters = 40000; /* 12e6 cycles, ~3 ms */
	char cpu[400];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trials") && i + 1 < argc)
			trials = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			target_ms = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--trials N] [--ms MS]\n",
				argv[0]);
			return 2;
		}
	}
	if (trials < 1 || trials > 99 || !(target_ms > 0)) {
		fprintf(stderr, "ports: bad --trials or --ms\n");
		return 2;
	}

	cpu_name(cpu, sizeof(cpu));
	imul_chain(clock_iters * 10); /* wake the core up */
	printf("# ports on %s\n", cpu);
	printf("# per cycle: median of %d trials of ~%.0f ms thread CPU time; "
	       "clock from %u-imul chains before and after each trial\n",
	       trials, target_ms, (unsigned)clock_iters * 100);
	printf("%-40s %-28s %9s %7s %7s %8s %s\n", "test", "kind",
	       "insn/cyc", "min", "max", "alu/cyc", "GHz");

	for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		const struct test *ts = &tests[t];
		double ipc[99], ghz_lo = 1e9, ghz_hi = 0;
		uint64_t n = 1000;
		double per_body = (double)ts->insns * 8;

		if (!have(ts->need)) {
			printf("%-40s %-28s skipped: no %s on this CPU\n",
			       ts->name, ts->what, need_name(ts->need));
			continue;
		}
		/* Calibrate the iteration count to target_ms. */
		for (;;) {
			double t0 = thread_ns();

			ts->fn(n);
			double dt = thread_ns() - t0;

			if (dt > 2e6) {
				n = (uint64_t)((double)n * target_ms * 1e6 / dt);
				break;
			}
			n *= 4;
		}
		if (n < 1)
			n = 1;
		for (int k = 0; k < trials; k++) {
			double g0 = clock_ghz(clock_iters);
			double t0 = thread_ns();

			ts->fn(n);
			double dt = thread_ns() - t0;
			double g1 = clock_ghz(clock_iters);
			double ghz = (g0 + g1) / 2;

			if (ghz < ghz_lo)
				ghz_lo = ghz;
			if (ghz > ghz_hi)
				ghz_hi = ghz;
			ipc[k] = per_body * (double)n / (dt * ghz);
		}
		qsort(ipc, (size_t)trials, sizeof(ipc[0]), cmp_double);
		double med = ipc[trials / 2];

		printf("%-40s %-28s %9.2f %7.2f %7.2f ", ts->name, ts->what, med,
		       ipc[0], ipc[trials - 1]);
		if (ts->alu)
			printf("%8.2f", med * ts->alu / ts->insns);
		else
			printf("%8s", "-");
		printf(" %.2f-%.2f", ghz_lo, ghz_hi);
		if (!strcmp(ts->what, "latency"))
			printf("  %.2f cycles per step", ts->insns / med);
		putchar('\n');
		fflush(stdout);
	}
	return 0;
}
