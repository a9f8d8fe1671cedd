#!/usr/bin/env bash
# tests/install.sh BUILD_DIR - `cmake --install` of a build, then the
# installed mortar on its own (docs/install.md): the prefix is moved away from
# where it was installed, the commands run from another directory with no
# MORTAR_* variables, so neither the source nor the build tree is reachable.
#
# Checks: the layout (bin/, share/mortar/, share/doc/mortar/); `version`;
# `spec` on an installed example; `run` with an empty HOME fails naming the
# missing QEMU build and guest image and how to get them; `run` with a cache
# holding the builds cache-keys names (a stand-in QEMU that records its
# arguments and exits) starts the installed mortar-sim and that QEMU with
# that image; `report` on the run's database writes the explorer page from
# the installed template. No QEMU runs: seconds (label "unit").
set -euo pipefail

build=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mortar-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
pass() { echo "ok: $*"; }

cmake --install "$build" --prefix "$work/staged" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install $build"; }
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
home=$work/home
mkdir "$work/cwd" "$home"
cd "$work/cwd"

# The installed mortar as a user with only the install runs it.
mortar() {
    env -u MORTAR_SOURCE -u MORTAR_BIN -u MORTAR_DATA -u MORTAR_WEB_DIR -u MORTAR_CACHE \
        -u MORTAR_GUEST_BIN -u XDG_CACHE_HOME HOME="$home" "$prefix/bin/mortar" "$@"
}

# A study's programs are installed when the build has them (the platform
# builds without studies/).
study_programs=$(cd "$build/bin" && ls mortar-*-alone 2>/dev/null || true)
for f in $study_programs; do
    [ -e "$prefix/bin/$f" ] || fail "the install has no bin/$f (the build has)"
done
if [ -e "$build/share/mortar/wireshark/mortar-default-study.lua" ]; then
    [ -e "$prefix/share/mortar/wireshark/mortar-default-study.lua" ] ||
        fail "the install has no share/mortar/wireshark/mortar-default-study.lua (the build has)"
fi
for f in bin/mortar bin/mortar-sim share/mortar/cache-keys \
    share/mortar/experiments/examples/pcitest.json share/doc/mortar/README.md \
    share/doc/mortar/docs/experiments.md lib/libmortar.so \
    include/mortar/component.h include/mortar/version.h lib/pkgconfig/mortar.pc \
    lib/cmake/mortar/mortarConfig.cmake lib/cmake/mortar/mortarTargets.cmake \
    lib/mortar/plugins; do
    [ -e "$prefix/$f" ] || fail "the install has no $f"
done
with_web=0
if [ -e "$build/share/mortar/web/explorer.html" ]; then
    [ -e "$prefix/share/mortar/web/explorer.html" ] ||
        fail "the install has no share/mortar/web/explorer.html"
    with_web=1
fi
pass "installed layout"

out=$(mortar version) || fail "mortar version exited with $?"
[[ $out == "mortar "* ]] || fail "mortar version printed '$out'"
pass "version: $out"

spec=$prefix/share/mortar/experiments/examples/pcitest.json
mortar spec "$spec" >"$work/spec.out" 2>"$work/spec.err" ||
    { cat "$work/spec.err" >&2; fail "mortar spec on the installed example"; }
grep -q '"name": "pcitest"' "$work/spec.out" || fail "mortar spec printed no resolved spec"
pass "spec on the installed example"

# The default study's alone benchmark: the installed study, its installed
# program next to mortar, the run recorded (when the build has the study).
if [ -e "$build/bin/mortar-matmul-alone" ]; then
    mortar alone --set design=a --set speed=2 --db "$work/alone.db" >"$work/alone.out" \
        2>"$work/alone.err" || { cat "$work/alone.err" >&2; fail "mortar alone from the install"; }
    grep -qx "alone_us=960.00" "$work/alone.out" || fail "mortar alone printed no alone_us=960.00"
    pass "alone: the installed study's benchmark, recorded"
fi

# Empty cache: a clear error naming both builds, where, and how to get them.
qemu_key=$(awk '$1 == "qemu" { print $2 }' "$prefix/share/mortar/cache-keys")
guest_key=$(awk '$1 == "guest" { print $2 }' "$prefix/share/mortar/cache-keys")
cache=$home/.cache/mortar
if mortar run "$spec" --db "$work/none.db" --out "$work/runs" 2>"$work/run.err"; then
    fail "mortar run succeeded without QEMU"
fi
for want in "QEMU build $qemu_key" "$cache/qemu/$qemu_key/bin/qemu-system-x86_64" \
    "guest image $guest_key" "$cache/guest/$guest_key" "make setup"; do
    grep -qF "$want" "$work/run.err" || { cat "$work/run.err" >&2; fail "the error does not say '$want'"; }
done
[ ! -e "$work/none.db" ] || fail "mortar run created a database before finding QEMU"
pass "run without QEMU and image: $(tail -n1 "$work/run.err" | cut -c1-100)..."

# A cache with the named builds: a stand-in QEMU that records how it was
# started and exits, and an (empty) image.
mkdir -p "$cache/qemu/$qemu_key/bin" "$cache/guest/$guest_key"
cat >"$cache/qemu/$qemu_key/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
printf '%s\n' "\$@" >"$work/qemu-args"
echo "stand-in QEMU of tests/install.sh" >&2
exit 3
EOF
chmod +x "$cache/qemu/$qemu_key/bin/qemu-system-x86_64"
: >"$cache/guest/$guest_key/vmlinuz"
: >"$cache/guest/$guest_key/initramfs.cpio.gz"
echo "6.1.0-install-test" >"$cache/guest/$guest_key/kernel-version"
if mortar run "$spec" --db "$work/run.db" --out "$work/runs" 2>"$work/run2.err"; then
    fail "mortar run succeeded with a QEMU that exits"
fi
grep -q "host h0: exited with status 3" "$work/run2.err" ||
    { cat "$work/run2.err" >&2; fail "the run did not get as far as the host"; }
[ -e "$work/qemu-args" ] || fail "the cached QEMU was not started"
grep -qxF "$cache/guest/$guest_key/vmlinuz" "$work/qemu-args" ||
    { cat "$work/qemu-args" >&2; fail "QEMU was not given the cached image's kernel"; }
# (a run's own log, or its snapshot pass's when the snapshot is built first)
sim_log=
for f in "$work"/runs/*/sim0.log "$work"/runs/*/snapshot-boot/sim0.log; do
    if [ -e "$f" ]; then sim_log=$f; fi
done
[ -n "$sim_log" ] || fail "mortar-sim left no log"
pass "run finds the cached QEMU and image and the installed mortar-sim"

# The page is of the default study, installed with the study.
default_study=$(head -n 1 "$prefix/share/mortar/default-study")
if [ ! -e "$prefix/share/mortar/$default_study" ]; then
    echo "skipped: report (no default study installed: the platform without studies/)"
elif [ "$with_web" = 1 ]; then
    mortar report --db "$work/run.db" --out "$work/report" 2>"$work/report.err" ||
        { cat "$work/report.err" >&2; fail "mortar report from the install"; }
    [ -s "$work/report/index.html" ] || fail "mortar report wrote no index.html"
    grep -q "pcitest" "$work/report/index.html" || fail "the page holds no run"
    pass "report with the installed explorer template"
else
    echo "skipped: report (this build has no explorer page: no node)"
fi
