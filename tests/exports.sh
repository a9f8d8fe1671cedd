#!/usr/bin/env bash
# tests/exports.sh LIBRARY MAJOR - the shared libmortar exports only its
# public API and carries the SONAME of its major version (docs/sdk.md).
#
# Fails on every defined dynamic symbol that does not start with "mortar_"
# (an internal function that leaks into the ABI, where a user's own
# heap_push would collide with it) and on a SONAME other than
# libmortar.so.MAJOR.
set -euo pipefail

lib=$1
major=$2

[ -f "$lib" ] || { echo "FAIL: no library at $lib" >&2; exit 1; }
symbols=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }')
[ -n "$symbols" ] || { echo "FAIL: $lib exports nothing" >&2; exit 1; }
leaks=$(printf '%s\n' "$symbols" | grep -v '^mortar_' || true)
if [ -n "$leaks" ]; then
    echo "FAIL: $lib exports symbols outside the mortar_ API:" >&2
    printf '  %s\n' $leaks >&2
    exit 1
fi
echo "ok: $(printf '%s\n' "$symbols" | wc -l) exported symbols, all mortar_*"

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libmortar.so.$major" ] ||
    { echo "FAIL: SONAME is '$soname', expected libmortar.so.$major" >&2; exit 1; }
echo "ok: SONAME $soname"
