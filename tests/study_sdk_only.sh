#!/usr/bin/env bash
# tests/study_sdk_only.sh SOURCE_DIR - a study is built on the SDK alone, as
# a team's design outside this tree would be (docs/sdk.md): the code of
# every package under studies/ (all but its tests/ and docs/) includes only
# the public headers (include/mortar/, the guest SDK's mortar_guest.h and
# guest_cli.h), its own package's headers and the system's, and its
# CMakeLists.txt links no library of the platform's insides (mortar_sims,
# mortar_cli, mortar_plugin_path). A study's tests may reach further: they
# check how the platform reads the study's files.
#
# Fails listing each include and each link that breaks the rule. With
# STUDY_SDK_ONLY_SELF_TEST=1 it plants one of each kind in a copy and
# requires the check to report each, and nothing in a clean file.
set -euo pipefail
src=${1:?usage: study_sdk_only.sh SOURCE_DIR}
guest_sdk=(mortar_guest.h guest_cli.h)
private_libs='mortar_(sims|cli|plugin_path)'

# Each quoted include of the package's code that is neither public nor the
# package's own, as FILE: "HEADER".
bad_includes() {
    local root=$1 file header dir resolved
    while IFS= read -r file; do
        dir=$(dirname "$file")
        while IFS= read -r header; do
            if [[ $header == mortar/* && -f $src/include/$header ]]; then continue; fi
            if [[ " ${guest_sdk[*]} " == *" $header "* ]]; then continue; fi
            resolved=""
            for base in "$dir" "$root"; do
                if [ -f "$base/$header" ]; then resolved=$(realpath "$base/$header"); break; fi
            done
            if [[ -n $resolved && $resolved == "$(realpath "$root")"/* ]]; then continue; fi
            # on the package's own include path: one of its folders has it
            if [[ $header != *..* ]] && [ -n "$(find "$root" -path "*/$header" -type f | head -1)" ]
            then continue; fi
            echo "$file: \"$header\""
        done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$file")
    done < <(find "$root" -path "$root/tests" -prune -o -path "$root/docs" -prune -o \
                  -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) -print | sort)
}

# Each line of the package's CMake files that links a private library.
bad_links() {
    local root=$1
    find "$root" -path "$root/tests" -prune -o -name CMakeLists.txt -print | sort |
        xargs -r grep -nHE "^[^#]*\b$private_libs\b" || true
}

check() {
    local study hits=""
    for study in "$1"/*/; do
        study=${study%/}
        hits+=$(bad_includes "$study"; bad_links "$study")
    done
    printf '%s' "$hits"
}

if [ "${STUDY_SDK_ONLY_SELF_TEST:-}" = 1 ]; then
    tmp=$(mktemp -d /tmp/mortar-study-sdk-only.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    pkg=$tmp/studies/planted
    mkdir -p "$pkg/model" "$pkg/tests"
    printf '%s\n' '#include "own.h"' '#include "mortar/pcie.h"' '#include "mortar_guest.h"' \
        '#include <stdio.h>' >"$pkg/model/clean.c"
    : >"$pkg/model/own.h"
    planted=('#include "sims/registry.h"' '#include "db.h"' '#include "../../../lib/sync_rule.h"'
             '#include "mortar/no_such_header.h"')
    printf '%s\n' "${planted[@]}" >"$pkg/model/planted.c"
    printf '%s\n' 'target_link_libraries(x PUBLIC mortar_sims)' '# mortar_cli in a comment' \
        >"$pkg/CMakeLists.txt"
    printf '%s\n' '#include "db.h"' >"$pkg/tests/test_x.c"
    mkdir -p "$tmp/lib" && : >"$tmp/lib/sync_rule.h"
    found=$(src=$src check "$tmp/studies")
    expected=$((${#planted[@]} + 1))
    count=$(printf '%s\n' "$found" | grep -c . || true)
    if [ "$count" -ne "$expected" ] || grep -q 'clean.c\|tests/' <<<"$found"; then
        printf '%s\n' "$found"
        echo "FAIL: the check reported $count lines, expected the $expected planted" >&2
        exit 1
    fi
    echo "ok: the check reports each of the $expected planted includes and links"
    exit 0
fi

[ -d "$src/studies" ] || { echo "skipped: no studies/ in $src"; exit 77; }
hits=$(check "$src/studies")
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    echo "FAIL: the lines above reach past the SDK from a study's code" >&2
    exit 1
fi
echo "ok: every study's code includes and links the SDK only"
