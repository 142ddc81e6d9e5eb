#!/usr/bin/env bash
# Runs every Rust test in the workspace and fails if none ran: a test stage
# that runs zero tests is a broken stage, not a green one.
set -euo pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT

status=0
cargo test --workspace --locked --no-fail-fast "$@" 2>&1 | tee "$log" || status=$?

passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s += $1} END {print s + 0}')
echo "rust tests: ${passed} passed, ${failed} failed"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$passed" -eq 0 ]; then
  echo "rust tests: no test ran; failing the stage" >&2
  exit 1
fi
