#!/usr/bin/env bash
# tools/platform-alone.sh - the platform builds and passes its own tests
# without any study (docs/studies.md, "A study's package"): the committed
# tree (HEAD) is copied without studies/ into a scratch folder, configured
# and built there (the normal build, no sanitizers) and its unit tests run.
# The scratch folder is removed afterwards. .ci/run calls it after the
# test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/mortar-platform-alone.XXXXXX")
trap 'rm -rf "$work"' EXIT

log() { echo "[platform-alone] $*" >&2; }

git -C "$root" archive --format=tar HEAD | tar -x -C "$work"
rm -rf "$work/studies"
log "the tree at $(git -C "$root" rev-parse --short HEAD) without studies/, in $work"
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; exit 1; }
ninja -C "$work/build" -j "$jobs" >"$work/build.log" 2>&1 ||
    { tail -40 "$work/build.log" >&2; log "FAIL: the build"; exit 1; }
log "built; its unit tests:"
(cd "$work/build" && ctest -L unit -j "$jobs" --output-on-failure) ||
    { log "FAIL: unit tests of the platform alone"; exit 1; }
log "ok: the platform builds and passes its unit tests without studies/"
