#!/usr/bin/env bash
# The desktop app's figures (`make bench-desktop`, part of `make bench`):
# builds the release app (no bundle: a plain cargo build embeds ui/dist) and
# the session generator, then runs scripts/bench-desktop.mjs under the
# current DISPLAY, or under an Xvfb this script starts (and stops) when there
# is none. Generated data is kept under $STRATA_BENCH_DIR (default
# $CARGO_TARGET_DIR/strata-bench). Prints the tables docs/PERFORMANCE.md
# records.
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
# The app embeds ui/dist when it compiles: with a bundle older than what
# builds it (sources, config, packages) the figures would be an old UI's
# (`make bench-desktop` builds it first).
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui -path ui/node_modules -prune -o -path ui/dist -prune -o -type f -newer ui/dist/index.html -print -quit)" ]; then
  echo "bench-desktop: ui/dist is missing or older than the UI's sources: run make ui-build (make bench-desktop does)" >&2
  exit 1
fi
cargo build --release --locked -p strata-desktop -p strata-index --bin strata-desktop --bin strata-gen >&2
export STRATA_BENCH_APP="$target/release/strata-desktop"
export STRATA_BENCH_PROFILE="release build"
export STRATA_BENCH_GEN="$target/release/strata-gen"
export STRATA_BENCH_DIR="${STRATA_BENCH_DIR:-$target/strata-bench}"
export PATH="$HOME/.cargo/bin:$PATH"

source scripts/lib/xvfb.sh
trap stop_xvfb EXIT
trap 'stop_xvfb; exit 130' INT TERM
start_xvfb bench-desktop

node scripts/bench-desktop.mjs
