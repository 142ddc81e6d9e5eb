# The README's contract: `make test` sets up a fresh Debian machine and runs
# every check; `make run` sets it up and starts Strata.
SHELL := /bin/bash

# A persistent target dir keeps repeated runs warm; builds still pass without it.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/strata/target
export CARGO_TERM_COLOR ?= never

.PHONY: all setup build test fmt-check clippy rust-tests run run-cli fmt

all: build

setup:
	@scripts/setup.sh

build: setup
	cargo build --workspace --locked

fmt:
	cargo fmt --all

fmt-check: setup
	cargo fmt --all -- --check

clippy: setup
	cargo clippy --workspace --all-targets --locked -- -D warnings

rust-tests: setup
	scripts/cargo-tests.sh

test: fmt-check clippy rust-tests
