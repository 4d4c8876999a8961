# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Coverage-guided fuzzing of every reader of outside input in guac (issue 26):
# libFuzzer targets in tests/fuzz/, built with clang 14's fuzzer, ASan and
# UBSan into build/fuzz/ (apart from the normal build), run by scripts/fuzz/run.sh.
#
#   make fuzz             every target for FUZZ_SECONDS (default 60) each
#   make fuzz-short       every target for 10 s, after replaying every
#                         regression input and checking that the option
#                         targets stay in their directory (part of make check)
#   make fuzz-long        every target for FUZZ_LONG_SECONDS (default 300) (part of
#                         make check-all)
#   make fuzz-replay      only the regression inputs and seeds, once each
#   make fuzz-build       only build; FUZZ_TARGETS="json manifest" picks targets
#   make fuzz-coverage    line and region coverage per parser source file from
#                         the committed seeds and regression inputs (not in make
#                         check): the targets built with clang's
#                         -fprofile-instr-generate -fcoverage-mapping into
#                         build/fuzz-cov/, reported by llvm-cov-14 (scripts/fuzz/
#                         coverage.sh); FUZZ_COV_GENERATED=1 adds the inputs earlier
#                         fuzz runs kept in build/fuzz/corpus/
#
# Each target prints `fuzz NAME: N execs, M edges, K crashes`; a crash fails.

FUZZ_OUT     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_LONG_SECONDS ?= 300
FUZZ_TARGETS ?=

fuzz-build: deps
	$(MAKE) -C tests/fuzz O=$(FUZZ_OUT)

fuzz: fuzz-build
	FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/run.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: fuzz-build
	FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/run.sh --replay $(FUZZ_TARGETS)

fuzz-short: fuzz-build
	FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/run.sh --replay $(FUZZ_TARGETS)
	tests/fuzz/test_confined.sh $(FUZZ_OUT)
	FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/run.sh --seconds 10 $(FUZZ_TARGETS)

fuzz-long: fuzz-build
	FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/run.sh --seconds $(FUZZ_LONG_SECONDS) $(FUZZ_TARGETS)

FUZZ_COV_OUT := $(BUILD)/fuzz-cov
FUZZ_COV_FLAGS := -fprofile-instr-generate -fcoverage-mapping

fuzz-coverage: deps
	$(MAKE) -C tests/fuzz O=$(FUZZ_COV_OUT) SAN="$(FUZZ_COV_FLAGS)"
	COV_OUT=$(FUZZ_COV_OUT) FUZZ_OUT=$(FUZZ_OUT) scripts/fuzz/coverage.sh \
		$(if $(FUZZ_COV_GENERATED),--generated) $(FUZZ_TARGETS)

CHECK_SUITES += fuzz-short
CHECK_ALL_SUITES += fuzz-long

.PHONY: fuzz fuzz-build fuzz-replay fuzz-short fuzz-long fuzz-coverage
