# Readback — the README's two commands are the contract: `make demo` and `make test`.
# Every target installs what is missing first, so a fresh Debian 12 machine with only the Swift
# toolchain needs nothing else. Works as root, or through sudo otherwise.

SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the project needs (build, tests, oracle tools).
APT_PACKAGES := pkg-config libheif-dev libheif-examples libde265-dev libraw-dev libraw-bin \
                libexiv2-dev exiv2 libsqlite3-dev sqlite3 libssl-dev libimage-exiftool-perl chromium \
                libturbojpeg0-dev
# Only `make bench` needs the peers (ImageMagick, libvips, RawTherapee); gcc builds its floor helper.
BENCH_PACKAGES := gcc imagemagick libvips-tools rawtherapee
# Only `make test-dist` needs Slurm (slurmctld, slurmd, clients from slurm-wlm) and munge; python3 runs its stand-in,
# procps (ps) finds what a run left behind.
DIST_PACKAGES := slurm-wlm munge python3 procps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RELEASE_BIN := .build/release/readback
DEBUG_BIN := .build/debug/readback
# The real-world corpus (raw/, heic/, avif/ and MANIFEST.tsv), read in place by `make test-real`, `make bench` and
# `make ladder`; override with `make test-real CORPUS=/path/to/library`.
CORPUS ?= ../shared/corpus

.PHONY: all deps bench-deps dist-deps build release test test-real test-dist demo corpus corpus-large lint fuzz bench ladder clean help

all: build

help:
	@echo "make demo       install what is missing, build (release), convert and audit Corpus/, write Reports/"
	@echo "make test       install what is missing, build, run every test"
	@echo "make test-real  audit the real-world corpus (CORPUS=$(CORPUS)) against committed expectations"
	@echo "make test-dist  run a sharded job array on a throwaway single-node Slurm (as root; docs/distributed.md)"
	@echo "make corpus     regenerate Corpus/ deterministically"
	@echo "make bench      side-by-side benchmarks against peer tools"
	@echo "make ladder     re-measure the quality ladder (docs/quality-ladder.tsv; ~10 min on 2 cores)"
	@echo "make fuzz       run the HEIF parser fuzzer (libFuzzer)"
	@echo "make lint       swift format lint"

# Installs each missing Debian package; says what it installs; installs nothing when all are present.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null && \
	  echo "deps: installed$$missing"; \
	else echo "deps: all present"; fi
endef

deps:
	$(call apt_install,$(APT_PACKAGES))

bench-deps: deps
	$(call apt_install,$(BENCH_PACKAGES))

dist-deps:
	$(call apt_install,$(DIST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product readback

test: build
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --parallel --skip RealWorld

test-real: build
	@if [ ! -d "$(CORPUS)" ]; then echo "test-real: corpus folder '$(CORPUS)' does not exist" >&2; exit 2; fi
	READBACK_REAL_CORPUS="$(abspath $(CORPUS))" SWIFT_BACKTRACE=enable=no $(SWIFT) test --parallel --filter RealWorld

# A throwaway single-node Slurm (munged, slurmctld, slurmd as root, every file in a temporary folder, stopped by
# pid on exit) runs `sbatch --array=0-3` shards, a dependent merge, and a kill-and-requeue of one task.
# scripts/dist/test-dist.sh names the hooks (DIST_TASK, DIST_MERGE, ...); DIST_PRESET=readback plugs Readback in.
test-dist: dist-deps
	./scripts/dist/test-dist.sh

corpus: release
	$(RELEASE_BIN) corpus generate --out Corpus

# Also the 24 MP and 50 MP benchmark charts, uncompressed and lossless-JPEG, into Corpus/large/ (git-ignored).
corpus-large: release
	$(RELEASE_BIN) corpus generate --out Corpus --large

demo: release
	@mkdir -p Reports
	$(RELEASE_BIN) --version
	./scripts/demo.sh $(RELEASE_BIN)

lint:
	$(SWIFT) format lint --recursive --strict Sources Tests Package.swift

# Release build (debug runs ~5x slower). FUZZ_SEEDS: extra seed folders read in place, e.g.
# make fuzz FUZZ_SEEDS="$(CORPUS)/heic $(CORPUS)/avif" (a real-world corpus's HEIF and AVIF folders)
fuzz: deps
	SWIFT_BACKTRACE=enable=no $(SWIFT) build -c release --product FuzzHEIF --sanitize=fuzzer --scratch-path .build/fuzz
	mkdir -p .build/fuzz-corpus
	SWIFT_BACKTRACE=enable=no .build/fuzz/release/FuzzHEIF -runs=$${RUNS:-1000000} -max_len=65536 -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 .build/fuzz-corpus Tests/HEIFTests/Fixtures $(FUZZ_SEEDS)

# The audit comparisons read the real-world corpus in place (BENCH_CORPUS, else CORPUS).
bench: bench-deps release
	BENCH_CORPUS="$${BENCH_CORPUS:-$(abspath $(CORPUS))}" ./scripts/bench.sh $(RELEASE_BIN)

# The quality ladder (docs/quality-ladder.md): the 24 MP chart (`make corpus-large`, or generated here if missing), two real photos from the
# corpus remosaiced into DNGs under Corpus/large/ (git-ignored, never committed) and the real DNG, read in place.
LADDER_BIN := .build/release/readback-ladder
LADDER_CHART := Corpus/large/chart-24mp-rggb-14bit-o1.dng
LADDER_REAL := $(CORPUS)/raw/photoprism_canon_eos_6d.dng
# name-in-the-ladder:corpus-HEIC pairs (the iPhone 15 Pro one carries an Apple gain map, applied by remosaic).
LADDER_PHOTOS := iphone15pro-gainmap:photoprism_iphone_15_pro iphone13pro-pug:pillowheif_pug_iPhone13Pro

ladder: release
	$(SWIFT) build -c release --product readback-ladder
	@# Missing chart: generated into a temp folder, so the committed Corpus/ is left alone.
	@[ -f $(LADDER_CHART) ] || { $(RELEASE_BIN) corpus generate --out /tmp/readback-ladder-corpus --large && \
	  mkdir -p Corpus/large && cp /tmp/readback-ladder-corpus/large/$(notdir $(LADDER_CHART)) $(LADDER_CHART); }
	@for p in $(LADDER_PHOTOS); do \
	  n=$${p%%:*}; h=$${p#*:}; \
	  [ -f Corpus/large/remosaic-$$n.dng ] || \
	  $(RELEASE_BIN) corpus remosaic $(CORPUS)/heic/$$h.heic --out Corpus/large/remosaic-$$n.dng || exit 2; \
	done
	$(LADDER_BIN) run $(LADDER_CHART) $(foreach p,$(LADDER_PHOTOS),Corpus/large/remosaic-$(firstword $(subst :, ,$(p))).dng) \
	  $(LADDER_REAL) --out docs/quality-ladder.tsv

clean:
	rm -rf .build Reports
