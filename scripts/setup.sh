#!/usr/bin/env bash
# Every set-up step a fresh Debian machine needs before Strata builds and tests.
# Idempotent and quiet when everything is already there.
set -euo pipefail

# Debian packages the build and the tests need.
packages=(
  build-essential
  pkg-config
  # The keychain test runs a real Secret Service (gnome-keyring on a private D-Bus).
  dbus
  gnome-keyring
  # The Tauri desktop app: WebKitGTK and friends to build it, Xvfb and
  # ImageMagick to run it headless and take screenshots, WebKitWebDriver for
  # its end-to-end tests, and what its .deb bundler calls.
  libwebkit2gtk-4.1-dev
  libxdo-dev
  libssl-dev
  libayatana-appindicator3-dev
  librsvg2-dev
  xvfb
  xauth
  imagemagick
  webkit2gtk-driver
  # The desktop secrets audit (tests/e2e/secrets.test.js) reads its
  # screenshots back with OCR.
  tesseract-ocr
  tesseract-ocr-eng
  curl
  wget
  file
)

# The UI's build tools; Debian's Node.js only when no node is installed.
command -v node >/dev/null || packages+=(nodejs npm)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust with rustup" >&2; exit 1; }
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy rustfmt

# tauri-driver, the WebDriver bridge the end-to-end tests (tests/e2e) drive the
# app through; pinned, built into the usual ~/.cargo/bin once.
TAURI_DRIVER_VERSION=2.1.0
if ! cargo install --list 2>/dev/null | grep -qx "tauri-driver v${TAURI_DRIVER_VERSION}:"; then
  echo "setup: installing tauri-driver ${TAURI_DRIVER_VERSION}"
  cargo install tauri-driver --version "${TAURI_DRIVER_VERSION}" --locked --quiet
fi
