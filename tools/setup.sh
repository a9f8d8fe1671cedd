#!/usr/bin/env bash
# Installs everything mortar needs on a Debian 12 machine, idempotently:
# the Debian packages, then (unless --no-qemu) the QEMU build and the guest
# image, both cached under ${MORTAR_CACHE:-~/.cache/mortar}.
#
#   tools/setup.sh            everything
#   tools/setup.sh --no-qemu  packages only (enough for the unit tests)
set -euo pipefail
cd "$(dirname "$0")/.."

with_qemu=1
for arg in "$@"; do
  case "$arg" in
    --no-qemu) with_qemu=0 ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done

say() { echo "[setup] $*"; }

packages=(
  build-essential cmake ninja-build pkg-config git
  # the tests read JSON from shell scripts
  jq
  # the man pages, generated from the commands' --help
  help2man
  libjansson-dev libcmocka-dev libsqlite3-dev sqlite3
  clang libclang-rt-14-dev
  tshark
  # the trace exports' tests: the OTLP schema compiled, Perfetto's rules
  protobuf-compiler python3-protobuf
  # mortar report --video: the narration spoken, the video encoded; its
  # test reads the subtitles back
  espeak-ng ffmpeg tesseract-ocr tesseract-ocr-eng
  # QEMU build and guest image (and zlib1g-dev below)
  meson libglib2.0-dev libpixman-1-dev libfdt-dev python3-venv dpkg-dev flex bison
  seabios qemu-system-data busybox-static cpio xz-utils zstd bzip2
  # the explorer: mortar serve's HTTP server and its compression, and the
  # browser its test drives
  libmicrohttpd-dev zlib1g-dev chromium
  # RTL designs: Verilator simulates them, yosys checks they synthesize
  verilator yosys
)
# node and npm build the explorer's page (web/); a node installed another way
# brings its own npm, which Debian's npm package would conflict with.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "setup: run as root to install: ${missing[*]}" >&2; exit 1; }
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  say "Debian packages present"
fi

if [ "$with_qemu" = 1 ]; then
  if [ -x hosts/qemu/build.sh ]; then
    say "QEMU (built once, then cached)"
    bash hosts/qemu/build.sh >/dev/null
  fi
  if [ -x guest/build-image.sh ]; then
    say "guest image (built once, then cached)"
    bash guest/build-image.sh >/dev/null
  fi
fi
say "done"
