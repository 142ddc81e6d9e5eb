#!/usr/bin/env bash
# Runs the end-to-end tests of the real desktop app (tests/e2e): under the
# current DISPLAY, or under an Xvfb this script starts (and stops) when there
# is none. Expects the debug app and CLI built (`make e2e` builds them) and
# tauri-driver installed (scripts/setup.sh). Extra arguments go to
# `node --test` (e.g. a test file). Fails when zero tests ran.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/xvfb.sh
node_pid=""
log=""
cleanup() {
  if [ -n "$node_pid" ] && kill -0 "$node_pid" 2>/dev/null; then
    # The test runner and its per-file processes share one process group;
    # the harness stops its tauri-driver and app on SIGTERM.
    kill -TERM -- "-$node_pid" 2>/dev/null || true
    wait "$node_pid" 2>/dev/null || true
  fi
  node_pid=""
  [ -z "$log" ] || rm -f "$log"
  stop_xvfb
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

start_xvfb e2e

export PATH="$HOME/.cargo/bin:$PATH"
# A full run rewrites every screenshot; drop those of screens that no longer exist.
(($#)) || rm -rf target/screenshots
log=$(mktemp)
status=0
(cd tests/e2e && exec setsid node --test --test-concurrency=1 --test-reporter=spec "$@") > >(tee "$log") 2>&1 &
node_pid=$!
wait "$node_pid" || status=$?
node_pid=""

# The spec reporter's closing lines: "ℹ tests N", "ℹ pass N", "ℹ fail N"
# (a name filter that matches nothing still counts its tests, as skipped).
passed=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log" | tail -1)
if [ "${passed:-0}" -eq 0 ]; then
  echo "e2e: zero tests ran and passed; failing the stage" >&2
  exit 1
fi
exit "$status"
