#!/usr/bin/env bash
# A team's device, driver and workload in a full mortar system, built
# against the installed SDK only (docs/sdk.md, "Guest programs"):
# `cmake --install` of the normal build (it has the guest library) into a
# temporary prefix; a copy of the installed examples/my-device/ built with
# its Makefile and pkg-config: the device model as a plugin and
# my-device-client, a static guest program against mortar-guest; then the
# installed `mortar run` of its system.json: a QEMU host whose spec lists
# the program (copied into the guest through fw_cfg after the snapshot
# point), the plugin on a PCIe link. Every checksum must be right, the
# latencies identical in a second run from the same snapshot, and a run
# whose guest program fails must fail and say so.
source "$(dirname "$0")/harness.sh"
qh_init sdk-guest
BUILD=$QH_SOURCE/build
[ -f "$BUILD/guest-bin/mortar-params" ] || qh_fail "no normal build with the guest in $BUILD (make)"
PREFIX=$QH_DIR/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >"$QH_DIR/install.log" 2>&1 ||
    qh_fail "cmake --install $BUILD"
cp -r "$PREFIX/share/doc/mortar/examples/my-device" "$QH_DIR/my-device"
EX=$QH_DIR/my-device

# Only the prefix: no source tree, no other pkg-config directory.
sdk() {
    env -u MORTAR_SOURCE -u MORTAR_BIN -u CMAKE_PREFIX_PATH \
        PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig" \
        MORTAR_PLUGIN_PATH="$EX" MORTAR_SNAPSHOTS="$QH_DIR/snapshots" \
        PATH="$PREFIX/bin:$PATH" "$@"
}
sdk make -C "$EX" all guest CC=cc >"$QH_DIR/make.log" 2>&1 || qh_fail "make all guest of the example"
grep -qF -e "$QH_SOURCE" "$QH_DIR/make.log" && qh_fail "the example's build refers to the source tree"
file "$EX/my-device-client" | grep -q 'statically linked' ||
    qh_fail "my-device-client is not a static program: $(file "$EX/my-device-client")"
echo "ok: built the plugin and the guest program against the installed SDK"

# run NAME [ARGS...]: one run of system.json; its console in $CONSOLE.
run() {
    local name=$1
    shift
    sdk mortar run "$EX/system.json" --db "$QH_DIR/r.db" --out "$QH_DIR/runs" "$@" \
        >"$QH_DIR/$name.out" 2>"$QH_DIR/$name.err"
    local rc=$?
    CONSOLE=$(ls -d "$QH_DIR"/runs/0* | tail -n 1)/host.console.log
    return $rc
}

run first --set requests=4 || qh_fail "the run failed: $(tail -n 5 "$QH_DIR/first.err")"
tr -d '\r' <"$CONSOLE" | grep -q '^4 of 4 checksums over 4096 bytes checked, 0 wrong' ||
    qh_fail "not every checksum was right: $(tr -d '\r' <"$CONSOLE" | grep -E '^req=|checksums' | tail -n 5)"
grep -q 'run 1 ok: 4 requests verified' "$QH_DIR/first.out" ||
    qh_fail "mortar did not count 4 verified requests: $(cat "$QH_DIR/first.out")"
FIRST=$(tr -d '\r' <"$CONSOLE" | grep '^req=')
echo "ok: 4 checksums right in the guest; $(echo "$FIRST" | head -n 1)"

run second --set requests=4 || qh_fail "the second run failed: $(tail -n 5 "$QH_DIR/second.err")"
[ "$(tr -d '\r' <"$CONSOLE" | grep '^req=')" = "$FIRST" ] ||
    qh_fail "two runs from one snapshot differ: $(tr -d '\r' <"$CONSOLE" | grep '^req=' | head -n 2)"
echo "ok: a second run gives identical latencies"

if run failing --set requests=0; then
    qh_fail "a run whose guest program failed (exit 2) was ok"
fi
grep -q 'host host: its program failed: MORTAR-EXIT 2' "$QH_DIR/failing.err" ||
    qh_fail "the failure does not name the host and the program: $(tail -n 3 "$QH_DIR/failing.err")"
echo "ok: a failing guest program fails the run: $(grep -o 'host host: its program failed.*' "$QH_DIR/failing.err" | head -n 1)"
