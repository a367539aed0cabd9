# Readback — the README's two commands are the contract: `make demo` and `make test`.
# Every target installs what is missing first, so a fresh Debian 12 machine with only the Swift
# toolchain needs nothing else. Works as root, or through sudo otherwise.

SHELL := /bin/bash
SWIFT ?= swift
# SwiftPM leaves TemporaryDirectory.* folders and lock files in the temporary folder on every run: its runs here (and
# the tests they start) get a temporary folder under .build instead, which goes with it. `env`, so that the scripts
# that split SWIFT_RELEASE into a command line run it too.
SWIFTPM_TMP := $(CURDIR)/.build/tmp
override SWIFT := env TMPDIR=$(SWIFTPM_TMP) $(SWIFT)
$(shell mkdir -p $(SWIFTPM_TMP))
# Debian packages the project needs (build, tests, oracle tools).
APT_PACKAGES := pkg-config libheif-dev libheif-examples libde265-dev libraw-bin \
                g++ libjpeg62-turbo-dev zlib1g-dev liblcms2-dev libexiv2-dev exiv2 libsqlite3-dev sqlite3 libssl-dev libimage-exiftool-perl chromium \
                libturbojpeg0-dev libavif-dev libjxl-dev attr libseccomp-dev
# libseccomp-dev: the decoder workers' system-call filter (docs/security.md). libjxl-dev: DNG 1.7's JPEG XL raw
# tiles (Compression 52546), decoded in the decoder workers, and the generated corpus's JPEG XL DNGs.
# LibRaw is not Debian's (0.20.2, 2020): `make deps` builds 0.22.2 from a pinned, sha256-checked source into
# LIBRAW_PREFIX once (scripts/libraw/build.sh; g++, libjpeg, zlib and LittleCMS are what it is built with), where
# Package.swift finds it by path. libraw-bin stays: its dcraw_emu is an independent oracle.
# attr: getfattr/setfattr, the independent oracle for the file-facts tests (user.* extended attributes).
# Only `make bench` needs the peers (ImageMagick, libvips, RawTherapee); gcc builds its floor helper.
BENCH_PACKAGES := gcc imagemagick libvips-tools rawtherapee
# `make test-real` calibrates the audit on real tools' outputs: it builds them with libvips and ImageMagick too
# (libheif-examples' heif-convert/heif-enc and exiftool are in APT_PACKAGES); strace proves each input is opened once.
# g++ and make build GPAC's ComplianceWarden from $(TOOLS) into .build/compliance-warden (ComplianceWardenRealWorldTests).
# nasm assembles the checker's own test vectors (ComplianceWardenParityRealWorldTests).
REAL_PACKAGES := libvips-tools imagemagick strace g++ make nasm
# Only `make test-dist` needs Slurm (slurmctld, slurmd, clients from slurm-wlm) and munge; python3 compares the
# merged verdicts and finds free ports, procps (ps) finds what a run left behind.
DIST_PACKAGES := slurm-wlm munge python3 procps
# make deb: Debian's packaging tools (dpkg-shlibdeps, dpkg-gencontrol) and lintian, for that target only.
DEB_PACKAGES := dpkg-dev lintian
# make test-pkg: man (man -w, rendering) and zsh (parses the zsh completion).
TEST_PKG_PACKAGES := man-db zsh
LIBRAW_PREFIX := $(CURDIR)/.build/libraw
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Release builds link the Swift runtime and Foundation statically, so `make install` and `make deb` ship a binary
# that needs only Debian's libraries (docs/install.md). --static-swift-stdlib is in every module's compile
# command: build other release products with it too (as `make ladder` does), or .build/release is compiled again
# without it. The rest is link-only: no $ORIGIN run path (nothing is loaded from beside the binary) and
# immediate binding (full RELRO), as Debian's hardening asks.
SWIFT_RELEASE := $(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now
RELEASE_BIN := .build/release/readback
# make install / make uninstall, GNU style (also BINDIR MANDIR DOCDIR BASHCOMPDIR ZSHCOMPDIR; packaging/install.sh).
PREFIX ?= /usr/local
DESTDIR ?=
# The version the release binary reports, read when a recipe needs it (after `release` has built it).
VERSION = $(shell $(RELEASE_BIN) --version | awk '$$1 == "readback" { print $$2; exit }')
DEB = readback_$(VERSION)_$(shell dpkg --print-architecture).deb
DEBUG_BIN := .build/debug/readback
# The real-world corpus (raw/, heic/, avif/ and MANIFEST.tsv), read in place by `make test-real`, `make bench` and
# `make ladder`; override with `make test-real CORPUS=/path/to/library`.
CORPUS ?= ../shared/corpus
# Shared test tools (GPAC's ComplianceWarden sources), built by `make test-real` into .build/, never written to.
TOOLS ?= ../shared/tools

.PHONY: all deps bench-deps dist-deps build stale-objects release test test-real test-dist demo corpus corpus-large lint fuzz \
        bench ladder clean help install uninstall deb deb-deps test-pkg test-container codes-doc

all: build

help:
	@echo "make demo       install what is missing, build (release), convert and audit Corpus/, write Reports/"
	@echo "make test       install what is missing, build, run every test"
	@echo "make test-real  audit the real-world corpus (CORPUS=$(CORPUS)) against committed expectations"
	@echo "make test-dist  run a sharded job array on a throwaway single-node Slurm (as root; docs/distributed.md)"
	@echo "make corpus     regenerate Corpus/ deterministically"
	@echo "make codes-doc  regenerate docs/codes.md from the finding-code catalogue (readback codes --markdown)"
	@echo "make bench      side-by-side benchmarks against peer tools"
	@echo "make ladder     re-measure the quality ladder (docs/quality-ladder.tsv; ~30 min on 2 shared cores)"
	@echo "make fuzz       fuzz every parser of ours (libFuzzer; FUZZ_S=SECONDS in all, default 300)"
	@echo "make lint       swift format lint"
	@echo "make install    install readback, its man page, completions and docs (PREFIX=$(PREFIX) DESTDIR=)"
	@echo "make uninstall  remove what make install installed (same PREFIX and DESTDIR)"
	@echo "make deb        build readback_<version>_$(shell dpkg --print-architecture).deb and run lintian on it"
	@echo "make test-pkg   install the .deb with apt-get, use it without a toolchain, purge it; install/uninstall"
	@echo "make test-container  the Containerfile's steps in a debootstrap'ed bookworm root (root, network)"

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
	@./scripts/libraw/build.sh $(LIBRAW_PREFIX)

bench-deps: deps
	$(call apt_install,$(BENCH_PACKAGES))

dist-deps:
	$(call apt_install,$(DIST_PACKAGES))

build: deps stale-objects
	@mkdir -p .build; set -o pipefail; $(SWIFT) build 2>&1 | tee .build/build.log

# Swift's incremental build does not recompile the other modules' files when FindingCode gains or loses a case, yet
# the layout of every Optional holding one (FindingCode?: nil is the first unused tag) changes
# with the count; a stale test file then never sees an iterator's nil and records millions of issues. When the count
# of cases changed since the last build, every Swift object file is dropped (one full rebuild).
stale-objects:
	@n=$$(grep -c '^    case .* = "' Sources/2-Foundations/Findings/FindingCode.swift); \
	if [ "$$(cat .build/findingcode-cases 2>/dev/null)" != "$$n" ]; then \
		find .build/ -path '*.build/*.swift.o' -delete 2>/dev/null; mkdir -p .build; echo "$$n" > .build/findingcode-cases; \
	fi
	@# SwiftPM does not see a rebuilt static LibRaw (scripts/libraw/build.sh): what links it is dropped and relinked.
	@a=$(LIBRAW_PREFIX)/lib/libraw_r.a; for b in .build/*-unknown-linux-gnu/*/readback \
	  .build/*-unknown-linux-gnu/*/readback-* .build/*-unknown-linux-gnu/*/*.xctest; do \
	  if [ -f "$$b" ] && [ "$$a" -nt "$$b" ]; then rm -f "$$b"; fi; done

release: deps stale-objects
	$(SWIFT_RELEASE) --product readback

# The build must be clean: any compiler warning from Sources/ or Tests/ (and SwiftPM's unhandled-file or prohibited-flag
# warnings) fails `make test`. Swift reprints a warning only when its file compiles, so a fresh clone sees them all.
WARNING_LINES := (Sources|Tests)/[^ ]*: warning:|^macro expansion .*: warning:|warning: .*(unhandled|prohibited flag)
test: build
	@set -o pipefail; $(SWIFT) build --build-tests 2>&1 | tee .build/test-build.log
	@if grep -E "$(WARNING_LINES)" .build/build.log .build/test-build.log; then \
	  echo "make test: the build printed the warnings above; fix them" >&2; exit 1; fi
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --parallel --skip RealWorld
	python3 -B -m unittest discover -s scripts/bench -p 'test_bench.py'

test-real: build
	$(call apt_install,$(REAL_PACKAGES))
	@if [ ! -d "$(CORPUS)" ]; then echo "test-real: corpus folder '$(CORPUS)' does not exist" >&2; exit 2; fi
	READBACK_REAL_CORPUS="$(abspath $(CORPUS))" READBACK_TOOLS="$(abspath $(TOOLS))" SWIFT_BACKTRACE=enable=no $(SWIFT) test --parallel --filter RealWorld

# A throwaway single-node Slurm (munged, slurmctld, slurmd as root, every file in a temporary folder, stopped by
# pid on exit) runs `sbatch --array=0-3` shards of the release build's convert and audit over copies of Corpus/dng,
# a dependent merge, a refused partial merge and a kill-and-requeue of one task; the merged verdicts must equal one
# unsharded run's. scripts/dist/test-dist.sh names the hooks (DIST_TASK, DIST_MERGE, ...) and the knobs.
test-dist: dist-deps release
	./scripts/dist/test-dist.sh

corpus: release
	$(RELEASE_BIN) corpus generate --out Corpus

# Also the 24 MP and 50 MP benchmark charts, uncompressed and lossless-JPEG, into Corpus/large/ (git-ignored).
corpus-large: release
	$(RELEASE_BIN) corpus generate --out Corpus --large

# docs/codes.md is generated from the catalogue of finding codes; a test keeps the committed file equal to it.
codes-doc: build
	$(DEBUG_BIN) codes --markdown > docs/codes.md

demo: release
	@mkdir -p Reports
	$(RELEASE_BIN) --version
	./scripts/demo.sh $(RELEASE_BIN)

lint:
	$(SWIFT) format lint --recursive --strict Sources Tests Package.swift

# Release build (debug runs ~5x slower). FUZZ_SEEDS: extra seed folders read in place, e.g.
# make fuzz FUZZ_S=SECONDS: every parser of ours (scripts/fuzz.sh: heif, tiff, jpeg, xmp, tmap, makernote, opcodes),
# each for its share of the time, seeded from Corpus/, the HEIF fixtures and regressions, and FUZZ_SEEDS (folders of
# real files, read in place: make fuzz FUZZ_SEEDS="$(CORPUS)/heic $(CORPUS)/raw"). A crash fails it, its reproducer
# left in Reports/fuzz/.
FUZZ_S ?= 300
fuzz: deps
	SWIFT_BACKTRACE=enable=no $(SWIFT) build -c release --product FuzzParsers --sanitize=fuzzer --scratch-path .build/fuzz
	./scripts/fuzz.sh $(FUZZ_S) $(FUZZ_SEEDS)

# The audit comparisons read the real-world corpus in place (BENCH_CORPUS, else CORPUS).
bench: bench-deps release
	SWIFT_RELEASE="$(SWIFT_RELEASE)" BENCH_CORPUS="$${BENCH_CORPUS:-$(abspath $(CORPUS))}" ./scripts/bench.sh $(RELEASE_BIN)

# The quality ladder (docs/quality-ladder.md): the 24 MP chart with sensor noise at each ISO and its noiseless scene
# (`make corpus-large`, or generated here if missing), the two corpus photos remosaiced with sensor noise at several
# ISOs beside their noiseless twins (under Corpus/large/, git-ignored, never committed), and the corpus's five real
# full-pixel DNGs, read in place (the noise steps also on noisy crops of them, Corpus/large/real-noise/). The settings measured are listed in docs/quality-ladder.settings.
LADDER_BIN := .build/release/readback-ladder
LADDER_CHART := Corpus/large/chart-24mp-rggb-14bit
LADDER_ISOS := 100 800 3200 12800
LADDER_PHOTO_ISOS := 800 3200 12800
LADDER_REAL := $(addprefix $(CORPUS)/raw/,photoprism_canon_eos_6d.dng tinydng_Canon550D_MagicLantern_colorchart.dng \
               dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng hdrmerge_NikonD5000_sample1.dng \
               hdrmerge_NikonD5000_sample2.dng)
# name-in-the-ladder:corpus-HEIC pairs (the iPhone 15 Pro one carries an Apple gain map, applied by remosaic).
LADDER_PHOTOS := iphone15pro-gainmap:photoprism_iphone_15_pro iphone13pro-pug:pillowheif_pug_iPhone13Pro
LADDER_PHOTO_NAMES := $(foreach p,$(LADDER_PHOTOS),$(firstword $(subst :, ,$(p))))

ladder: release
	$(SWIFT_RELEASE) --product readback-ladder
	@# Missing charts: generated into a temp folder, so the committed Corpus/ is left alone.
	@[ -f $(LADDER_CHART)-noiseless-o1.dng ] || { t=$$(mktemp -d "$${TMPDIR:-/tmp}/readback-ladder.XXXXXX") && \
	  trap 'rm -rf "$$t"' EXIT && $(RELEASE_BIN) corpus generate --out "$$t" --large && \
	  mkdir -p Corpus/large && cp "$$t"/large/$(notdir $(LADDER_CHART))-iso*-o1.dng \
	  "$$t"/large/$(notdir $(LADDER_CHART))-noiseless-o1.dng Corpus/large/; }
	@for p in $(LADDER_PHOTOS); do n=$${p%%:*}; h=$${p#*:}; for iso in $(LADDER_PHOTO_ISOS); do \
	  [ -f Corpus/large/remosaic-$$n-iso$$iso.dng ] || $(RELEASE_BIN) corpus remosaic $(CORPUS)/heic/$$h.heic \
	    --iso $$iso --out Corpus/large/remosaic-$$n-iso$$iso.dng --clean Corpus/large/remosaic-$$n-noiseless.dng || exit 2; \
	done; done
	$(LADDER_BIN) run $(foreach i,$(LADDER_ISOS),$(LADDER_CHART)-iso$(i)-o1.dng=$(LADDER_CHART)-noiseless-o1.dng) \
	  $(foreach n,$(LADDER_PHOTO_NAMES),$(foreach i,$(LADDER_PHOTO_ISOS),\
	    Corpus/large/remosaic-$(n)-iso$(i).dng=Corpus/large/remosaic-$(n)-noiseless.dng)) \
	  $(LADDER_REAL) --crop 1024x768 --settings "$$(grep -v '^#' docs/quality-ladder.settings | paste -sd';')" \
	  --out docs/quality-ladder.tsv
	@# The noise steps (docs/quality-ladder.md "Noise"): each image's frame noise and quality, and the ISO 3200 and
	@# 12800 images below the default quality.
	$(LADDER_BIN) noise $(foreach i,$(LADDER_ISOS),$(LADDER_CHART)-iso$(i)-o1.dng) \
	  $(foreach n,$(LADDER_PHOTO_NAMES),$(foreach i,$(LADDER_PHOTO_ISOS),Corpus/large/remosaic-$(n)-iso$(i).dng)) \
	  $(LADDER_REAL) --out docs/quality-ladder-noise.tsv
	$(LADDER_BIN) run $(foreach i,3200 12800,$(LADDER_CHART)-iso$(i)-o1.dng=$(LADDER_CHART)-noiseless-o1.dng) \
	  $(foreach n,$(LADDER_PHOTO_NAMES),$(foreach i,3200 12800,\
	    Corpus/large/remosaic-$(n)-iso$(i).dng=Corpus/large/remosaic-$(n)-noiseless.dng)) \
	  --crop 1024x768 --settings "$$(for q in 35 38 41 44 47; do printf 'ultrafast:%s:tune=ssim,aq-strength=1.5;' $$q; done)" \
	  --out docs/quality-ladder-noisy.tsv
	@# The steps on real noise: every real DNG and noisy crops of it (exposure scaled down, known noise), each default
	@# encode against its archival encode at viewing size (docs/quality-ladder-steps.tsv).
	$(LADDER_BIN) noisy $(LADDER_REAL) --iso 3200,6400,12800,25600 --out-dir Corpus/large/real-noise > /dev/null
	$(LADDER_BIN) noisy $(addprefix $(CORPUS)/raw/,photoprism_canon_eos_6d.dng \
	  dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng) --iso 1250,1600,2000 \
	  --out-dir Corpus/large/real-noise > /dev/null
	$(LADDER_BIN) noisy $(CORPUS)/raw/dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV.dng --iso 1000 \
	  --out-dir Corpus/large/real-noise > /dev/null
	$(LADDER_BIN) steps $(LADDER_REAL) $$(ls Corpus/large/real-noise/*-iso*.dng | sort -V) \
	  --out docs/quality-ladder-steps.tsv
	@# Slower presets on the crops above the size bound (docs/quality-ladder-steps-presets.tsv).
	@t=$$(mktemp "$${TMPDIR:-/tmp}/readback-ladder-presets.XXXXXX") && trap 'rm -f "$$t"' EXIT && \
	{ printf '# Slower x265 presets on the noisy real crops above the size bound (docs/quality-ladder.md).\n'; \
	  printf 'preset\timage\tsigma\tquality\tbytes\tbpp\tview_arch_mean\tview_arch_worst64\n'; \
	  for p in ultrafast medium slow veryslow; do $(LADDER_BIN) steps $(addprefix Corpus/large/real-noise/,\
	    dngpy_AdobeDNGSDK_12_ImageStats_WeightedAverage_SonyA7RIV-iso25600.dng hdrmerge_NikonD5000_sample2-iso12800.dng \
	    tinydng_Canon550D_MagicLantern_colorchart-iso25600.dng) --qualities 35,38,41,44,47 --preset $$p \
	    --out "$$t" 2>/dev/null || exit 2; \
	    grep -v -e '^#' -e '^image' "$$t" | sed "s/^/$$p\t/"; done; \
	} > docs/quality-ladder-steps-presets.tsv

install: release
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./packaging/install.sh install $(RELEASE_BIN)

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./packaging/install.sh uninstall

deb-deps:
	$(call apt_install,$(DEB_PACKAGES))

# The package's files are those of `make install PREFIX=/usr`; lintian fails the target on an error, and prints
# warnings and notes (each remaining one is explained in docs/install.md).
deb: release deb-deps
	./packaging/deb.sh $(RELEASE_BIN) "$(VERSION)" $(DEB)
	lintian --display-info --fail-on error $(DEB)

# The deb through apt-get (packaging/test-pkg.sh), then make install and make uninstall into temporary DESTDIRs.
test-pkg: deb
	$(call apt_install,$(TEST_PKG_PACKAGES))
	./packaging/test-pkg.sh $(DEB)
	./packaging/test-install.sh "$(MAKE)"

# Not part of .ci/run: needs the network and a few minutes of debootstrap. CONTAINER_ROOT=DIR reuses a bookworm root.
test-container: deb
	$(call apt_install,debootstrap)
	./packaging/test-container.sh $(CONTAINER_ROOT)

clean:
	rm -rf .build Reports
