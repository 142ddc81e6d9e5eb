#!/usr/bin/env bash
# Runs a command and prints its peak memory: the PSS of its whole process
# tree, sampled from /proc/<pid>/smaps_rollup every 50 ms, and the largest
# max RSS the kernel reports for it (GNU time's %M). Usage:
#   scripts/peak-memory.sh COMMAND [ARGS...]
# The command's own output goes to stdout/stderr as usual; the last line is
#   peak memory: PSS <kB> kB (sampled), max RSS <kB> kB, <seconds> s: COMMAND
# (the command's exit status is passed on).
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/peak-memory.sh COMMAND [ARGS...]" >&2
  exit 2
fi

rss_file=$(mktemp)
trap 'rm -f "$rss_file"' EXIT

# The process and everything under it.
tree() {
  local pid=$1 child
  echo "$pid"
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
    tree "$child"
  done
}

tree_pss() {
  local total=0 pid kb
  for pid in $(tree "$1"); do
    kb=$(awk '/^Pss:/ {print $2}' /proc/"$pid"/smaps_rollup 2>/dev/null || true)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

started=$(date +%s%N)
/usr/bin/time -f '%M' -o "$rss_file" "$@" &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  pss=$(tree_pss "$pid")
  if [ "$pss" -gt "$peak" ]; then peak=$pss; fi
  sleep 0.05
done
status=0
wait "$pid" || status=$?
ms=$((($(date +%s%N) - started) / 1000000))
echo "peak memory: PSS $peak kB (sampled), max RSS $(tail -n 1 "$rss_file") kB, $((ms / 1000)).$(printf %03d $((ms % 1000))) s: $*"
exit "$status"
