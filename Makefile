# Kernel Playground — the two front-door commands:
#   make serve   install what is missing, build the wasm and dist/, serve dist/ on 127.0.0.1
#   make dist    dist/: the static site to publish (docs/deploy.md)
#   make test    install what is missing, run native, wasm (headless Chromium) and end-to-end tests
# Every install step checks first, so a second run skips it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PORT ?= 8000
HOST ?= 127.0.0.1
export PATH := $(HOME)/.cargo/bin:$(PATH)
export WASM_BINDGEN_TEST_TIMEOUT ?= 300
export CHROME ?= /usr/bin/chromium

# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WBG_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/{getline; gsub(/"/,"",$$3); print $$3}' Cargo.lock)
# Honour CARGO_TARGET_DIR (parallel worktrees each need their own: the cdylib's rlib has no hash).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
WASM := $(TARGET_DIR)/wasm32-unknown-unknown/release/kernel_playground.wasm
E2E := tests/e2e
APT_UPDATED := /tmp/.kplay-apt-updated

.PHONY: proptest-explore tools-rust-src build-threads lint dist bench-dist load bench-peers soak test-e2e-throttled bench-web serve test build tools tools-rust tools-web tools-browser tools-node test-native test-wasm test-e2e bench clean-pkg

## ---- installs (idempotent) ---------------------------------------------------------------
tools: tools-rust tools-rust-src tools-web tools-browser tools-node

tools-rust:
	@command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup first"; exit 1; }
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
	  || { echo "+ rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }

# The threaded wasm build (issue 21 §3) rebuilds std with atomics (-Z build-std), which needs the
# standard library's source. It uses the SAME compiler as the one-thread build (the active
# toolchain, with RUSTC_BOOTSTRAP=1 for -Z build-std) rather than a nightly: a nightly's own libm
# and codegen changed the last bits of a 5000-iteration FISTA run between the two builds, and
# the page ↔ CLI promise is bits (tests/e2e/threads.test.mjs compares the builds).
tools-rust-src: tools-rust
	@rustup component list --installed | grep -q '^rust-src' \
	  || { echo "+ rustup component add rust-src"; rustup component add rust-src; }

tools-web: tools-rust
	@if [ "$$(wasm-bindgen --version 2>/dev/null | awk '{print $$2}')" != "$(WBG_VERSION)" ]; then \
	  echo "+ cargo install wasm-bindgen-cli --version $(WBG_VERSION)"; \
	  cargo install wasm-bindgen-cli --version $(WBG_VERSION) --force; \
	fi

tools-browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "+ apt-get install chromium chromium-driver"; \
	  $$SUDO apt-get update -q && touch $(APT_UPDATED); \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium chromium-driver; \
	fi
	@command -v wasm-pack >/dev/null || { echo "+ cargo install wasm-pack --locked"; cargo install wasm-pack --locked; }

tools-node:
	@command -v node >/dev/null || { echo "node is missing: apt-get install nodejs npm"; exit 1; }
	@[ -d $(E2E)/node_modules/playwright-core ] && [ -x $(WASM_OPT) ] || { echo "+ npm ci ($(E2E))"; cd $(E2E) && npm ci --no-audit --no-fund; }

## ---- build ---------------------------------------------------------------------------------
# Then one wasm per page group with only the exports its scripts use (tools/wasm-split.mjs: the
# front page and embed.html, and each paper page with its workers), each linked again from the
# LTO object that tools/wasm-link/wasm-ld (the wasm32 linker, .cargo/config.toml) kept; the full
# module stays for the timing pages.
# wasm-opt from npm's binaryen (a JS build; Debian's binaryen 108 breaks wasm-bindgen's output).
# The features are the ones rustc's wasm32 target emits by default.
WASM_OPT := $(E2E)/node_modules/.bin/wasm-opt
WASM_OPT_FLAGS := -O2 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue --enable-simd

build: tools-web tools-node
	cargo build --release --target wasm32-unknown-unknown --lib
	wasm-bindgen --target web --out-dir www/pkg --no-typescript $(WASM)
	$(WASM_OPT) $(WASM_OPT_FLAGS) www/pkg/kernel_playground_bg.wasm -o www/pkg/kernel_playground_bg.wasm
	@printf 'wasm: %s bytes raw, %s bytes gzipped\n' "$$(stat -c %s www/pkg/kernel_playground_bg.wasm)" "$$(gzip -9c www/pkg/kernel_playground_bg.wasm | wc -c)"
	node tools/wasm-split.mjs --wasm-opt $(WASM_OPT) --link $(TARGET_DIR)/wasm32-unknown-unknown/release/deps/kernel_playground.link

# The threaded build (issue 21 §3): std rebuilt with atomics and bulk memory, a shared imported
# memory (max 4 GiB), the TLS exports wasm-bindgen's thread start-up needs; feature `threads`
# (rayon, faer's rayon backend, wasm-bindgen-rayon). Its own target dir (other RUSTFLAGS).
# www/pkg-threads/ is loaded by paper B's worker only when the page is cross-origin isolated.
THREADS_TARGET_DIR := $(TARGET_DIR)/wasm-threads
THREADS_WASM := $(THREADS_TARGET_DIR)/wasm32-unknown-unknown/release/kernel_playground.wasm
THREADS_RUSTFLAGS := -C target-feature=+atomics,+bulk-memory,+simd128 -C link-arg=--shared-memory \
  -C link-arg=--import-memory -C link-arg=--max-memory=4294967296 -C link-arg=--export=__wasm_init_tls \
  -C link-arg=--export=__tls_size -C link-arg=--export=__tls_align -C link-arg=--export=__tls_base

build-threads: tools-rust-src tools-web tools-node
	CARGO_TARGET_DIR=$(THREADS_TARGET_DIR) RUSTFLAGS="$(THREADS_RUSTFLAGS)" RUSTC_BOOTSTRAP=1 cargo build --release \
	  --target wasm32-unknown-unknown --lib --features threads -Z build-std=panic_abort,std
	wasm-bindgen --target web --out-dir www/pkg-threads --no-typescript $(THREADS_WASM)
	$(WASM_OPT) $(WASM_OPT_FLAGS) --enable-threads www/pkg-threads/kernel_playground_bg.wasm -o www/pkg-threads/kernel_playground_bg.wasm
	@printf 'threaded wasm: %s bytes raw, %s bytes gzipped\n' "$$(stat -c %s www/pkg-threads/kernel_playground_bg.wasm)" "$$(gzip -9c www/pkg-threads/kernel_playground_bg.wasm | wc -c)"

# dist/: what a static host serves (docs/deploy.md): hashed names, relative URLs, the build stamp,
# the service worker's precache list, .gz/.br copies. `make serve` serves exactly this folder
# (tools/serve.py: Python's http.server with the .br/.gz copies, the cache headers and a listen
# backlog for a room of clients).
dist: build build-threads
	node tools/dist.mjs

serve: dist
	@echo "Kernel Playground: http://$(HOST):$(PORT)/  (Ctrl-C stops)"
	python3 tools/serve.py --port $(PORT) --bind $(HOST) --directory dist

## ---- tests -----------------------------------------------------------------------------------
test: tools lint test-native test-wasm test-e2e

# rustfmt and clippy clean (natively, and for wasm32, where src/web/ alone compiles), and no
# import cycle between the crate's modules (docs/design.md, "Layers").
lint: tools-rust
	@rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
	@rustup component list --installed | grep -q '^clippy' || rustup component add clippy
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib -- -D warnings
	python3 tools/check-imports.py
	python3 tools/check-lengths.py
	python3 tools/check-deleted.py
	python3 tools/check-slicing.py

# The property tests draw their cases from a fixed seed here, so that the gate gives the same
# answer on every run of the same commit (a failure is reproducible from the log); a plain
# `cargo test` draws fresh cases each time, and `make proptest-explore` runs ROUNDS fresh draws.
PROPTEST_GATE_SEED ?= 20261127
test-native: tools-rust
	PROPTEST_RNG_SEED=$(PROPTEST_GATE_SEED) cargo test

# Not part of make test: the native test binaries with proptests, ROUNDS times (default 20),
# each with fresh random cases; prints each failure with its seed (then: PROPTEST_RNG_SEED=…).
ROUNDS ?= 20
proptest-explore: tools-rust
	cargo test --release --no-run -q
	@fails=0; for r in $$(seq 1 $(ROUNDS)); do seed=$$(od -An -N8 -tu8 /dev/urandom | tr -d ' '); \
	  if ! PROPTEST_RNG_SEED=$$seed cargo test --release -q >/tmp/kplay-proptest.log 2>&1; then \
	    fails=$$((fails+1)); echo "round $$r: FAILED with PROPTEST_RNG_SEED=$$seed"; \
	    grep -E "panicked|minimal failing input|Test failed" /tmp/kplay-proptest.log | head -8; \
	  else echo "round $$r: ok (seed $$seed)"; fi; done; test $$fails -eq 0

# The wasm-bindgen tests in headless Chromium, the way our users run them.
test-wasm: tools-web tools-browser
	wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver

test-e2e: dist tools-node tools-browser
	cargo build --release --bin kplay
	cd $(E2E) && node --test --test-concurrency=1 --test-reporter=spec *.test.mjs

# The same e2e suite with Chromium's CPU slowed 4× (CDP Emulation.setCPUThrottlingRate):
# tests wait for states, never for milliseconds, so they pass on a slow machine too.
test-e2e-throttled: dist tools-node tools-browser
	cargo build --release --bin kplay
	cd $(E2E) && KPLAY_CPU_THROTTLE=4 node --test --test-concurrency=1 --test-reporter=spec *.test.mjs

# Not part of make test: each page plays its default run at its largest allowed settings for
# SOAK_MINUTES (default 10) sampling JS heap and wasm memory; the CLI runs 10⁶ iterations
# sampling its RSS. Results: docs/robustness.md.
SOAK_MINUTES ?= 10
soak: dist tools-node tools-browser
	cargo build --release --bin kplay
	cd $(E2E) && SOAK_MINUTES=$(SOAK_MINUTES) node soak.mjs

bench:
	cargo bench

# Browser timings next to the native ones (not part of make test: tests never check time).
bench-web: dist tools-node tools-browser
	cargo build --release --bin kplay
	cd $(E2E) && node bench.mjs

# dist/'s sizes (wasm raw / gzip / brotli, the folder, a first visit) and the front page's time to
# its first moving plot from dist/, five cold loads (docs/deploy.md; not part of make test).
bench-dist: dist tools-node tools-browser
	cd $(E2E) && node bench-dist.mjs

# A room of CLIENTS (default 100) students fetching the front page and paper A's page with every
# file, cold and then warm (after the service worker), from python http.server on loopback: bytes
# per client and the server's throughput (docs/deploy.md; not part of make test).
load: dist tools-node
	cd $(E2E) && node load.mjs

# Our solvers against numpy / scipy / scikit-learn on the same data, natively and in Chromium
# (issue 12; not part of make test). The peers' virtualenv lives in .tools/ (gitignored).
PEERS_VENV := .tools/peers-venv
$(PEERS_VENV)/.installed:
	python3 -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install --quiet numpy scipy scikit-learn
	touch $@

bench-peers: $(PEERS_VENV)/.installed $(if $(PEERS_NO_WEB),,dist tools-node tools-browser)
	cargo build --release --bin kplay --example peers
	$(PEERS_VENV)/bin/python benches/peers/run.py
