# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Benchmarks and statistical test runs of the userspace tools. None of these
# is part of `make check` (check-user already runs the quick modes); they
# measure this machine and write what they measured.
#
#   make bench           guac bench all: table and plot in build/bench/
#   make bench-verify    guac verify throughput on a page-cached 1 GiB file
#   make bench-storage   guac write/verify against dd and fio on tmpfs and a loop device
#                        (root, fio): docs/results/storage-DATE.md
#   make stat-quick      scripts/dieharder.sh --quick and scripts/rngtest.sh on the stream
#   make stat-full       full dieharder battery on the stream and on /dev/urandom
#                        (hours); dieharder's own output kept in build/stat/

BENCH_DIR     := $(BUILD)/bench
STAT_DIR      := $(BUILD)/stat
GUAC_BIN      := $(BUILD)/userspace/guac
BENCH_ARGS    ?=
VERIFY_FILE   ?= $(BENCH_DIR)/verify-1g.bin

bench: tools
	mkdir -p $(BENCH_DIR)
	nice $(GUAC_BIN) bench all $(BENCH_ARGS) --plot $(BENCH_DIR)/bench.png > $(BENCH_DIR)/bench.txt
	cat $(BENCH_DIR)/bench.txt

# The file is read once to load the page cache, then timed on 1 thread and on all.
bench-verify: tools
	mkdir -p $(BENCH_DIR)
	$(GUAC_BIN) gen --length 1G > $(VERIFY_FILE)
	$(GUAC_BIN) verify $(VERIFY_FILE) > /dev/null
	nice $(GUAC_BIN) verify --jobs 1 $(VERIFY_FILE)
	nice $(GUAC_BIN) verify $(VERIFY_FILE)
	rm -f $(VERIFY_FILE)

bench-storage: tools
	scripts/bench-storage.sh

stat-quick: tools
	GUAC=$(GUAC_BIN) scripts/dieharder.sh guac --quick
	GUAC=$(GUAC_BIN) scripts/rngtest.sh guac -c 10000

stat-full: tools
	mkdir -p $(STAT_DIR)
	GUAC=$(GUAC_BIN) nice scripts/dieharder.sh guac --log $(STAT_DIR)/dieharder-guac.log
	nice scripts/dieharder.sh /dev/urandom --log $(STAT_DIR)/dieharder-urandom.log

.PHONY: bench bench-verify bench-storage stat-quick stat-full
