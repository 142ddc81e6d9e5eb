# Sourced by scripts/e2e.sh and scripts/bench-desktop.sh: `start_xvfb NAME`
# starts an Xvfb (1920x1080) when DISPLAY is unset, exports DISPLAY and sets
# xvfb_pid (empty when a display was already there); `stop_xvfb` stops it.
# The screen is larger than the app's 1280x800 window so a test can size the
# window up to 1440x900 and still capture all of it (header.test.js).

xvfb_pid=""

start_xvfb() {
  local name="$1"
  [ -z "${DISPLAY:-}" ] || return 0
  local display_file
  display_file=$(mktemp)
  # -displayfd: Xvfb picks a free display number and writes it to fd 3.
  Xvfb -displayfd 3 -screen 0 1920x1080x24 -nolisten tcp 3>"$display_file" 2>/dev/null &
  xvfb_pid=$!
  for _ in $(seq 100); do
    [ -s "$display_file" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { echo "$name: Xvfb failed to start" >&2; exit 1; }
    sleep 0.05
  done
  [ -s "$display_file" ] || { echo "$name: Xvfb did not report a display" >&2; exit 1; }
  export DISPLAY=":$(tr -d '[:space:]' <"$display_file")"
  rm -f "$display_file"
  echo "$name: started Xvfb on $DISPLAY" >&2
}

stop_xvfb() {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
    xvfb_pid=""
  fi
}
