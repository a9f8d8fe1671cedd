#!/usr/bin/env bash
# tests/sdk_example.sh BUILD_DIR SOURCE_DIR - a device model built outside
# the tree against the installed SDK only (docs/sdk.md).
#
# `cmake --install` of the build into a temporary prefix; a copy of the
# installed examples/my-device/ (share/doc/mortar/examples/), built with its Makefile
# and pkg-config (the compiler is never shown a path into the source or
# build tree); its smallest run (run.sh: device and host side in two
# mortar-sim processes of the prefix over a shared-memory PCIe link) must
# compute the right checksum, which this script recomputes on its own
# (xorshift64 data, Adler-32 as RFC 1950 defines it). Then the same
# plugins built with CMake's find_package(mortar) and installed into the
# SDK's plugin directory, where mortar-sim finds them with no
# MORTAR_PLUGIN_PATH. Seconds (label "unit").
set -euo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mortar-sdk.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
pass() { echo "ok: $*"; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "cmake --install $build"; }
prefix=$work/prefix
# The example as the install has it.
cp -r "$prefix/share/doc/mortar/examples/my-device" "$work/my-device"
cd "$work"

# Only the prefix: no MORTAR_* variable, no other pkg-config directory.
sdk() {
    env -u MORTAR_SOURCE -u MORTAR_BIN -u MORTAR_PLUGIN_PATH -u CMAKE_PREFIX_PATH \
        PKG_CONFIG_PATH="$prefix/lib/pkgconfig" PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" \
        PATH="$prefix/bin:$PATH" "$@"
}

sdk pkg-config --exists mortar || fail "pkg-config finds no mortar in the prefix"
version=$(sdk pkg-config --modversion mortar)
sdk make -C my-device CC=cc >"$work/make.log" 2>&1 || { cat "$work/make.log" >&2; fail "make of the example"; }
if grep -qF -e "$source" -e "$build" "$work/make.log"; then
    cat "$work/make.log" >&2
    fail "the example's build refers to the source or build tree"
fi
for so in mortar-model-my-device.so mortar-model-my-device-host.so; do
    exported=$(nm -D --defined-only "my-device/$so" | awk '{ print $3 }')
    [ "$exported" = mortar_plugin_component ] ||
        fail "$so exports '$exported', not just mortar_plugin_component"
done
sdk env MORTAR_PLUGIN_PATH="$work/my-device" mortar-sim --list >"$work/list.out" 2>&1
grep -q "^my-device .*(plugin $work/my-device/mortar-model-my-device.so)" "$work/list.out" ||
    { cat "$work/list.out" >&2; fail "mortar-sim --list does not show the plugin"; }
pass "built with pkg-config against the installed SDK $version"

sdk my-device/run.sh >"$work/run.out" 2>&1 || { cat "$work/run.out" >&2; fail "the smallest run"; }
cat "$work/run.out"

# The checksum of the host's first buffer (4096 bytes of xorshift64 from
# seed 1, bits 24..31 of each state), computed here independently.
x=1 a=1 b=0
for ((i = 0; i < 4096; i++)); do
    ((x ^= x << 13, x ^= (x >> 7) & 0x01ffffffffffffff, x ^= x << 17))
    ((a = (a + ((x >> 24) & 0xff)) % 65521, b = (b + a) % 65521))
done
want=$(printf '0x%08x' $(((b << 16) | a)))
grep -q "adler32 $want, device $want (in memory $want, status 0x2)" "$work/run.out" ||
    fail "the device's checksum is not $want"
pass "the device's checksum is $want, as computed here"

sdk cmake -S my-device -B cmake-build -G Ninja >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; fail "cmake of the example (find_package(mortar))"; }
sdk cmake --build cmake-build >>"$work/cmake.log" 2>&1 &&
    sdk cmake --install cmake-build >>"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; fail "build and install of the example with CMake"; }
[ -e "$prefix/lib/mortar/plugins/mortar-model-my-device.so" ] ||
    fail "the example's CMake install put no plugin into the SDK's plugin directory"
rm my-device/*.so
sdk my-device/run.sh 2>&1 | tail -n1 >"$work/run2.out" || { cat "$work/run2.out" >&2; fail "the run with installed plugins"; }
grep -q "1 of 1 checksums over 4096 bytes checked, 0 wrong" "$work/run2.out" ||
    { cat "$work/run2.out" >&2; fail "the run with installed plugins"; }
pass "built with find_package(mortar), found in the installed plugin directory"

rm "$prefix"/lib/mortar/plugins/mortar-model-my-device*.so
if sdk my-device/run.sh >"$work/run3.out" 2>&1; then
    fail "a run without the plugins succeeded"
fi
# Both simulators miss their plugin; whichever says so first ends the run
# (run.sh stops the other), so either kind may be the one named.
grep -Eq "unknown component kind 'my-device(-host)?'.*searched: $work/my-device, $prefix/bin/../lib/mortar/plugins" \
    "$work/run3.out" || { cat "$work/run3.out" >&2; fail "no error naming the kind and the directories"; }
pass "without the plugins: $(grep -Eo "unknown component kind 'my-device(-host)?'.*" "$work/run3.out" | head -n1 | cut -c1-80)..."
