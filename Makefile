# The README's contract: `make test` sets up a fresh Debian machine and runs
# every check; `make run` sets it up and starts Strata.
SHELL := /bin/bash

# A persistent target dir keeps repeated runs warm; builds still pass without it.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/strata/target
export CARGO_TERM_COLOR ?= never

.PHONY: all setup mcp-npm build test fmt-check clippy rust-tests ui-tests e2e screenshots run run-cli fmt ui-build icons package bindings soak fuzz bench bench-1m bench-desktop bench-context

all: build

setup:
	@scripts/setup.sh

# The desktop app (src-tauri) embeds ui/dist at compile time, so every cargo
# step that compiles the workspace needs the UI built first.
UI_DEPS := ui/node_modules/.package-lock.json

$(UI_DEPS): ui/package.json ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund

ui-build: setup $(UI_DEPS)
	cd ui && npm run build

build: setup ui-build
	cargo build --workspace --locked

fmt:
	cargo fmt --all

fmt-check: setup
	cargo fmt --all -- --check

clippy: setup ui-build
	cargo clippy --workspace --all-targets --locked -- -D warnings

# The real npm MCP servers strata-mcp's tests start, pinned in
# crates/strata-mcp/tests/npm, installed into ~/.cache/strata/npm.
mcp-npm: setup
	@scripts/mcp-npm-servers.sh

rust-tests: setup ui-build mcp-npm
	scripts/cargo-tests.sh

# The UI's type check, lint and component tests (Vitest, IPC mocked).
ui-tests: setup $(UI_DEPS)
	cd ui && npm run lint && npm test

# End-to-end tests of the real app (tests/e2e): the debug build driven by
# tauri-driver + WebKitWebDriver under Xvfb (started when there is no
# DISPLAY), talking to a local mock provider, on a throwaway STRATA_HOME.
# Writes screenshots under target/screenshots/; fails if zero tests ran.
e2e: setup ui-build mcp-npm
	cargo build -p strata-desktop -p strata-cli -p strata-sandbox --locked
	scripts/e2e.sh

# Runs the end-to-end tests and refreshes docs/screenshots/ from their PNGs.
screenshots: e2e
	scripts/screenshots.sh

test: fmt-check clippy rust-tests ui-tests e2e

# The benchmarks (not part of `make test`): the session library's index
# against file scans, replay and append throughput, resume from the tail
# against whole replay, and streaming latency through the agent. Generated
# data is cached under $(CARGO_TARGET_DIR)/strata-bench/ (or
# $STRATA_BENCH_DIR); figures go in docs/PERFORMANCE.md; then the desktop
# figures (bench-desktop). BENCH_1M=1 adds bench-1m.
bench: setup
	cargo bench -p strata-index --locked
	cargo bench -p strata-providers --bench streaming --locked
	$(if $(BENCH_1M),$(MAKE) bench-1m)
	$(MAKE) bench-desktop

# The generator's peak memory (PSS and max RSS) streaming sessions of 10k,
# 100k and 1M records (written, measured, deleted), then the 1,000,000-record
# resume against a file holding only its tail (the session, 2.5 GB, is
# generated once into the bench data folder). About 10 minutes.
BENCH_DATA = $${STRATA_BENCH_DIR:-$(CARGO_TARGET_DIR)/strata-bench}
bench-1m: setup
	cargo build --release --locked -p strata-index --bin strata-gen
	for records in 10000 100000 1000000; do \
	  scripts/peak-memory.sh $(CARGO_TARGET_DIR)/release/strata-gen session $$records $(BENCH_DATA)/gen-memory || exit 1; \
	  rm -rf $(BENCH_DATA)/gen-memory; \
	done
	STRATA_BENCH_RESUME_RECORDS=1000000 cargo bench -p strata-index --bench resume --locked

# The desktop app's figures: the release build under Xvfb (cold start to
# first paint, idle memory of the process tree, opening a 5,000-round
# session, frame times while streaming), each several times, beside
# baselines measured in the same run.
bench-desktop: setup ui-build
	scripts/bench-desktop.sh

# An interactive `strata chat` session on the offline demo model, working in
# this folder (STRATA_HOME moves where the session is kept).
run-cli: setup
	cargo build -p strata-sandbox --locked
	cargo run -p strata-cli --bin strata --locked -- chat --provider demo

# The desktop app on the configured profile (the offline demo model when
# nothing is configured); STRATA_HOME moves everything it writes. The
# sandbox launcher is built beside it, where run_shell looks for it.
run: setup ui-build
	cargo build -p strata-sandbox --locked
	cargo run -p strata-desktop --locked

# The Tauri CLI (for icons and the .deb) comes from npm, pinned in
# src-tauri/package.json.
TAURI_CLI := src-tauri/node_modules/.package-lock.json

$(TAURI_CLI): src-tauri/package.json src-tauri/package-lock.json
	cd src-tauri && npm ci --no-audit --no-fund

# Regenerates the icon set from its one source image.
icons: $(TAURI_CLI)
	cd src-tauri && npx tauri icon ../icons/source.svg -o ../icons
	rm -rf icons/android icons/ios icons/Square*Logo.png icons/StoreLogo.png icons/64x64.png

# An installable .deb (release build). Only the deb target: the others
# download tools, which fails offline.
package: setup ui-build $(TAURI_CLI)
	cd src-tauri && npx tauri build --bundles deb --ci
	@ls -l $(CARGO_TARGET_DIR)/release/bundle/deb/*.deb

# Regenerates ui/src/bindings from the Rust types (a test fails when they drift).
bindings:
	STRATA_UPDATE_BINDINGS=1 cargo test -p strata-protocol --lib bindings

# The crash harness at soak size: the CLI SIGKILLed 500 times (CRASH_KILLS)
# mid-stream, mid-tool, mid-compaction and at random; CRASH_SEED repeats a
# run; CRASH_POLICY=layered or base runs every session on that compaction
# policy (both alternate by default). `make test` runs it with 24 kills.
soak: setup
	CRASH_KILLS=$${CRASH_KILLS:-500} cargo test -p strata-cli --locked --test crash_harness -- --nocapture

# Every fuzz target for FUZZ_SECONDS (default 60) each, on stable Rust; new
# crash inputs land in crates/strata-fuzz/crashes/<target>/ and `make test`
# replays them.
fuzz: setup
	cargo run -p strata-fuzz --release --locked -- all --seconds $${FUZZ_SECONDS:-60}

# The context-management simulation (300 scripted rounds per policy through
# the real agent loop); its table is recorded in docs/CONTEXT.md. The
# 50-round version runs with the other tests.
bench-context:
	cargo test -p strata-core --test context_bench --locked -- --ignored --nocapture bench_context
