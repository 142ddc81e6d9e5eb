#!/usr/bin/env bash
# Copies the end-to-end run's screenshots (target/screenshots/, written by
# `make e2e`) to docs/screenshots/, where the README shows them: metadata
# stripped and reduced to 256 colours; each must be 1280x800.
set -euo pipefail
cd "$(dirname "$0")/.."

src=target/screenshots
dest=docs/screenshots
shopt -s nullglob
shots=("$src"/*.png)
if ((${#shots[@]} == 0)); then
  echo "screenshots: none under $src; run make e2e first" >&2
  exit 1
fi

mkdir -p "$dest"
rm -f "$dest"/*.png
for shot in "${shots[@]}"; do
  size=$(identify -format '%wx%h' "$shot")
  if [ "$size" != "1280x800" ]; then
    echo "screenshots: $shot is $size, not 1280x800" >&2
    exit 1
  fi
  # 256 colours, no dithering: flat UI colours and text survive, the files shrink by half.
  convert "$shot" -strip -dither None -colors 256 -define png:compression-level=9 \
    "PNG8:$dest/$(basename "$shot")"
done
ls -l "$dest"
