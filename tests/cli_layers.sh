#!/usr/bin/env bash
# tests/cli_layers.sh SOURCE_DIR - cli/ is built in layers
# (docs/architecture.md, "The `mortar` command in layers"): each folder of
# cli/ is one layer, and a file of a layer includes only its own headers and
# those of the layers it stands on, which are below it in LAYERS. So no
# layer includes a header of a layer above it, of a layer beside it, or of
# the commands (the files at the top of cli/); and the layers cannot include
# each other in a circle. The headers in a layer's private/ folder are its
# own: no other layer and no command includes them. Fails listing every
# include that breaks this, and when:
#   - a folder of cli/ is not in LAYERS (a new layer is placed on purpose),
#     or a layer has a folder other than private/;
#   - a layer's cli/<layer>/CMakeLists.txt links other layers than those
#     LAYERS says it stands on (the compiler's include path is that link);
#   - two files of cli/ have one name (headers are included by bare name);
#   - an include names a folder ("db/db.h", "../spec/spec.h"): a header is
#     found through the include path of the layers below, never by path.
#
# With CLI_LAYERS_SELF_TEST=1 it copies cli/, plants a bad include of each
# kind and a folder that is no layer, and requires the check to report each.
set -euo pipefail
src=${1:?usage: cli_layers.sh SOURCE_DIR}

# Bottom to top: "layer: the layers below it that it stands on".
LAYERS=(
    "base:"
    "spec: base"
    "db: base"
    "proc:"
    "trace: spec db base"
    "run: spec db base"
    "study: trace spec db proc base"
    "sweep: study spec db base"
    "explorer: study trace spec db proc base"
)

# Prints one line per breach of the rules in the tree `cli` (a cli/ folder).
check() {
    local cli=$1
    declare -A below=() placed=() owner=() private=()
    local entry layer lower
    for entry in "${LAYERS[@]}"; do
        layer=${entry%%:*}
        for lower in ${entry#*:}; do
            [[ -n ${placed[$lower]:-} ]] ||
                echo "LAYERS: $layer stands on $lower, which is not below it"
        done
        below[$layer]=" ${entry#*:} "
        placed[$layer]=1
    done

    # Which layer each file's name belongs to ("commands" at the top), and
    # whether it is in the layer's private/ folder.
    local path name dir sub
    while IFS= read -r path; do
        name=${path##*/}
        dir=${path#"$cli"/}
        sub=${dir%/*}
        dir=${dir%%/*}
        [[ $dir == "$name" ]] && dir=commands
        if [[ $dir != commands && -z ${placed[$dir]:-} ]]; then
            echo "cli/$dir/ is not a layer: place it in LAYERS (tests/cli_layers.sh)"
            placed[$dir]=unplaced # said once
        fi
        if [[ $dir != commands && $sub != "$dir" && $sub != "$dir/private" ]]; then
            echo "cli/${path#"$cli"/}: a layer's only folder is private/"
        fi
        if [[ -n ${owner[$name]:-} ]]; then
            echo "cli/${path#"$cli"/}: a file of that name is in cli/${owner[$name]}/ too"
        fi
        owner[$name]=$dir
        [[ $sub == */private ]] && private[$name]=1
    done < <(find "$cli" -name '*.[ch]' | sort)

    # Each layer's link is its list.
    local want got
    for entry in "${LAYERS[@]}"; do
        layer=${entry%%:*}
        want=$(for lower in ${entry#*:}; do echo "$lower"; done | sort | xargs)
        got=$(grep -o "mortar_cli_[a-z]*" "$cli/$layer/CMakeLists.txt" 2>/dev/null |
              grep -vx "mortar_cli_$layer" | sed 's/^mortar_cli_//' | sort -u | xargs)
        [[ $want == "$got" ]] ||
            echo "cli/$layer/CMakeLists.txt links the layers '$got', LAYERS says '$want'"
    done

    # Every include of a layer's file.
    local file line header at
    while IFS=: read -r file line header; do
        dir=${file#"$cli"/}
        dir=${dir%%/*}
        [[ $dir == *.[ch] ]] && dir=commands
        at="cli/${file#"$cli"/}:$line"
        if [[ $header == */* && -n ${owner[${header##*/}]:-} ]]; then
            echo "$at: includes \"$header\" by path: name the header only"
            continue
        fi
        lower=${owner[$header]:-}
        [[ -z $lower || $lower == "$dir" ]] && continue # not cli's, or its own
        if [[ -n ${private[$header]:-} ]]; then
            echo "$at: includes $header, private to cli/$lower/"
        elif [[ $dir == commands ]]; then
            continue # a command may use every layer
        elif [[ $lower == commands ]]; then
            echo "$at: includes $header of the commands (cli/), above every layer"
        elif [[ ${below[$dir]:-} != *" $lower "* ]]; then
            echo "$at: includes $header of cli/$lower/, which cli/$dir/ does not stand on"
        fi
    done < <(grep -rnoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' \
                 --include='*.[ch]' "$cli" | sed -E 's/:([0-9]+):[^"]*"([^"]+)"$/:\1:\2/')
}

if [[ ${CLI_LAYERS_SELF_TEST:-} == 1 ]]; then
    tmp=$(mktemp -d /tmp/mortar-cli-layers.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    cp -r "$src/cli" "$tmp/cli"
    printf '#include "verdict.h"\n' >"$tmp/cli/spec/planted_up.c"        # a layer above
    printf '#include "trace_join.h"\n' >"$tmp/cli/run/planted_beside.c"  # a layer beside
    printf '#include "usage.h"\n' >"$tmp/cli/base/planted_command.h"     # the commands
    printf '#include "../spec/spec.h"\n' >"$tmp/cli/db/planted_path.c"   # by path
    printf '#include "db_step.h"\n' >"$tmp/cli/sweep/planted_private.c" # private below
    printf '#include "sentence.h"\n' >"$tmp/cli/planted_command.c"      # private, by a command
    mkdir "$tmp/cli/db/more" && printf '\n' >"$tmp/cli/db/more/planted.h"
    mkdir "$tmp/cli/unplaced" && printf '\n' >"$tmp/cli/unplaced/planted.c"
    cp "$tmp/cli/base/errbuf.h" "$tmp/cli/proc/errbuf.h"                 # one name twice
    sed -i 's/mortar_cli_base/mortar_cli_base mortar_cli_sweep/' "$tmp/cli/db/CMakeLists.txt"
    out=$(check "$tmp/cli")
    for expected in 'cli/spec/planted_up.c:1: includes verdict.h of cli/study/' \
                    'cli/run/planted_beside.c:1: includes trace_join.h of cli/trace/' \
                    'cli/base/planted_command.h:1: includes usage.h of the commands' \
                    'cli/db/planted_path.c:1: includes "../spec/spec.h" by path' \
                    'cli/sweep/planted_private.c:1: includes db_step.h, private to cli/db/' \
                    'cli/planted_command.c:1: includes sentence.h, private to cli/study/' \
                    "cli/db/more/planted.h: a layer's only folder is private/" \
                    'cli/unplaced/ is not a layer' \
                    'errbuf.h: a file of that name is in cli/' \
                    "cli/db/CMakeLists.txt links the layers 'base sweep'"; do
        if [[ $out != *"$expected"* ]]; then
            printf '%s\n' "$out"
            echo "FAIL: the check did not report: $expected" >&2
            exit 1
        fi
    done
    echo "ok: each planted breach of the layers is reported"
    exit 0
fi

out=$(check "$src/cli")
if [[ -n $out ]]; then
    printf '%s\n' "$out"
    echo "FAIL: the lines above break cli/'s layers (docs/architecture.md)" >&2
    exit 1
fi
echo "ok: cli/'s layers include only their own headers and those below them"
