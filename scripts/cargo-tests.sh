#!/usr/bin/env bash
# Runs every Rust test in the workspace and fails if none ran: a test stage
# that runs zero tests is a broken stage, not a green one. Tests that need
# ../shared (the recorded material beside the clone) and do not find it pass
# as skipped, each writing its name to $STRATA_SKIP_LOG (strata-testkit);
# the summary counts and names them.
set -euo pipefail

log=$(mktemp)
skipped_log=$(mktemp)
trap 'rm -f "$log" "$skipped_log"' EXIT
export STRATA_SKIP_LOG="$skipped_log"

status=0
cargo test --workspace --locked --no-fail-fast "$@" 2>&1 | tee "$log" || status=$?

passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s += $1} END {print s + 0}')
skipped_names=$(sed -n 's/^SKIPPED (no \.\.\/shared): //p' "$skipped_log" | sort -u)
skipped=$(printf '%s' "$skipped_names" | grep -c . || true)
# Tests of the real npm MCP servers skip when node or the pinned packages
# are missing (scripts/mcp-npm-servers.sh installs them).
npm_skipped_names=$(sed -n 's/^SKIPPED (no npm MCP server): \([^:]*\):.*/\1/p' "$skipped_log" | sort -u)
npm_skipped=$(printf '%s' "$npm_skipped_names" | grep -c . || true)
# A skipped test returned early, so the harness counted it as passed.
passed=$((passed - skipped - npm_skipped))
summary="rust tests: ${passed} passed, ${failed} failed, ${skipped} skipped for lack of ../shared"
if [ "$skipped" -gt 0 ]; then
  shared=${STRATA_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}
  summary+=" (no ${shared}): $(printf '%s' "$skipped_names" | paste -sd, - | sed 's/,/, /g')"
fi
echo "$summary"
if [ "$npm_skipped" -gt 0 ]; then
  echo "rust tests: ${npm_skipped} skipped for lack of node or the npm MCP servers: $(printf '%s' "$npm_skipped_names" | paste -sd, - | sed 's/,/, /g')"
fi
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$passed" -eq 0 ]; then
  echo "rust tests: no test ran; failing the stage" >&2
  exit 1
fi
