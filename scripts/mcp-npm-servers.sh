#!/usr/bin/env bash
# Installs the real MCP servers strata-mcp's tests start (pinned in
# crates/strata-mcp/tests/npm/package.json and its lockfile) into
# $STRATA_NPM_CACHE, by default ~/.cache/strata/npm, outside the clone.
# Idempotent and quiet when the installed tree matches the lockfile.
# Without node or npm it says so and exits 0: the tests that need the
# servers then print why they skipped (and fail under CI=true).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
pinned="$here/crates/strata-mcp/tests/npm"
cache=${STRATA_NPM_CACHE:-$HOME/.cache/strata/npm}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "mcp-npm-servers: node or npm not found; the npm MCP server tests will skip" >&2
  exit 0
fi

mkdir -p "$cache"
# npm ci writes node_modules/.package-lock.json; equal to the pinned lockfile's
# packages means the tree is current.
if [ -f "$cache/node_modules/.package-lock.json" ] \
  && cmp -s "$pinned/package-lock.json" "$cache/package-lock.json" \
  && cmp -s "$pinned/package.json" "$cache/package.json"; then
  exit 0
fi
echo "mcp-npm-servers: installing into $cache"
cp "$pinned/package.json" "$pinned/package-lock.json" "$cache/"
# No install scripts: the servers are plain JavaScript.
(cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
