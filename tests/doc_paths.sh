#!/usr/bin/env bash
# tests/doc_paths.sh SOURCE_DIR - every repository file the documentation
# names exists. Scans the project's markdown (every tracked *.md: README.md,
# docs/**, fuzz/README.md, bench/README.md, hosts/qemu/src/README.md, ...)
# and fails listing each named path that is missing, with its doc and line.
#
# What counts as a named repository path:
#   - a link target `[text](target)` that is not a URL or an anchor: it is
#     resolved against the linking doc's folder, its #anchor dropped;
#   - a word of an inline `code span`, of the prose or of a ``` fenced
#     block (quotes and a trailing ':line' or punctuation dropped) whose
#     first folder is a top-level folder of the repository (lib/, cli/,
#     sims/, tests/, docs/, ...): runs/, report/, build/, ~/..., /usr/...
#     and ../... are runtime, system or relative paths and are not checked;
#   - a code span that is a bare file name with a source extension (.c .h
#     .cpp .sv .sh .py .cmake .mjs): some file of that name must exist
#     somewhere in the repository (a doc names files beside the one it
#     describes); EXTERNAL_NAMES lists the few names that are not ours.
# A path under studies/ is not checked in a checkout without studies/ (the
# platform alone). A path with a <placeholder> is not checked; a glob (*, ?, [..], {a,b})
# must match at least one file. A path git ignores (web/node_modules, a
# build tree) is generated and not checked. The rows of a table whose first
# column is headed "installed" (docs/install.md, docs/sdk.md) name the
# installed layout, relative to the install prefix, and are not checked.
#
# Given DOC.md files, checks only those. DOC_PATHS_SELF_TEST=1 runs it on a
# planted doc naming missing files and requires that it reports each.
set -euo pipefail
src=$(cd "${1:?usage: doc_paths.sh SOURCE_DIR [DOC.md...]}" && pwd)
shift
EXTERNAL_NAMES=' sqlite3.h '

if [[ ${DOC_PATHS_SELF_TEST:-} == 1 ]]; then
    planted=$(mktemp --suffix=.md)
    trap 'rm -f "$planted"' EXIT
    # shellcheck disable=SC2016 # the backquotes are markdown
    printf 'See `lib/no_such_file.c`,\n`no_such_file.h`, [here](no-such-doc.md)\nand tests/no_such_test.sh.\n```\nbash \x27tests/qemu/no_such_test.sh\x27\n```\n' >"$planted"
    if out=$(DOC_PATHS_SELF_TEST='' bash "$0" "$src" "$planted" 2>&1); then
        echo "FAIL: a doc naming missing files passed" >&2
        exit 1
    fi
    for expected in "$planted:1: lib/no_such_file.c does not exist" \
                    "$planted:2: no file named no_such_file.h" "no-such-doc.md does not exist" \
                    "$planted:3: tests/no_such_test.sh does not exist" \
                    "$planted:5: tests/qemu/no_such_test.sh does not exist"; do
        if [[ $out != *"$expected"* ]]; then
            printf '%s\n' "$out"
            echo "FAIL: the check did not report: $expected" >&2
            exit 1
        fi
    done
    echo "ok: planted missing paths are reported"
    exit 0
fi

cd "$src"
# The repository's files: git's list when this is a checkout (so untracked
# runs/, report/ and build trees are not the repository), else the tree.
in_git=
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    in_git=1
    repo_files=$(git ls-files --cached --others --exclude-standard)
else
    repo_files=$(find . -path ./.git -prune -o -path './build*' -prune \
                    -o -type f -print | sed 's|^\./||')
fi
declare -A top_dirs=() basenames=()
while IFS= read -r f; do
    [[ $f == */* ]] && top_dirs[${f%%/*}]=1
    basenames[${f##*/}]=1
done <<<"$repo_files"
if (($# > 0)); then
    docs=("$@")
else
    mapfile -t docs < <(grep -E '\.md$' <<<"$repo_files" | grep -v '/node_modules/' | sort)
fi

# Emits "doc<TAB>line<TAB>kind<TAB>candidate" for each link target, each
# code-span word and each word with a '/' of the prose and fenced blocks,
# outside "installed" tables.
extract() {
    awk '
    # The words of TEXT that look like paths (lib/x.c, tests/qemu/).
    function path_words(text,    word) {
        while (match(text, /(^|[ \t(="\x27])[A-Za-z0-9_-]+\/[A-Za-z0-9_.*\/-]*/)) {
            word = substr(text, RSTART, RLENGTH)
            sub(/^[ \t(="\x27]/, "", word)
            print FILENAME "\t" FNR "\tword\t" word
            text = substr(text, RSTART + RLENGTH)
        }
    }
    FNR == 1                         { fenced = 0; install = 0; carry = "" }
    /^[ \t]*```/                     { fenced = !fenced; carry = ""; next }
    fenced                           { path_words($0); next }
    /^\| *installed *\|/              { install = 1 }
    install && /^\|/                 { next }
                                     { install = 0 }
    {
        line = $0
        while (match(line, /\]\([^) ]+\)/)) {
            print FILENAME "\t" FNR "\tlink\t" substr(line, RSTART + 2, RLENGTH - 3)
            line = substr(line, RSTART + RLENGTH)
        }
        # A code span may continue on the next line of its paragraph.
        line = (carry != "" ? carry " " : "") $0
        carry = ""
        if ($0 ~ /^[ \t]*$/)
            next
        prose = ""
        while (match(line, /`[^`]+`/)) {
            span = substr(line, RSTART + 1, RLENGTH - 2)
            n = split(span, words, /[ \t]+/)
            for (i = 1; i <= n; i++)
                if (words[i] != "")
                    print FILENAME "\t" FNR "\t" (n == 1 ? "span" : "word") "\t" words[i]
            prose = prose " " substr(line, 1, RSTART - 1)
            line = substr(line, RSTART + RLENGTH)
        }
        if (index(line, "`")) {
            carry = substr(line, index(line, "`"))
            line = substr(line, 1, index(line, "`") - 1)
        }
        prose = prose " " line
        gsub(/\]\([^)]*\)/, "]", prose)
        path_words(prose)
    }' "$@"
}

# Whether PATH (relative to the source root) names at least one file or
# folder; globs and {a,b} alternatives are expanded.
exists() {
    local path=$1
    [[ -e $path ]] && return 0
    [[ $path == *[\*\?\[\{]* ]] || return 1
    local matches
    matches=$(shopt -s nullglob; eval "printf '%s\n' $(printf '%q' "$path" |
        sed -E 's/\\([][*?{},])/\1/g')")
    [[ -n $matches ]]
}

# Whether some repository file is named NAME (a glob matches any).
has_basename() {
    local name=$1 b
    [[ -n ${basenames[$name]:-} ]] && return 0
    [[ $name == *[\*\?\[]* ]] || return 1
    for b in "${!basenames[@]}"; do
        # shellcheck disable=SC2053 # NAME is a glob
        [[ $b == $name ]] && return 0
    done
    return 1
}

# Whether git ignores PATH: a generated path (web/node_modules, a build tree).
ignored() {
    [[ -n $in_git ]] && git check-ignore --no-index "$1" "${1%/}/x" >/dev/null
}

trailing_punctuation="[\"'),.;:]\$"
checked=0 missing=0
while IFS=$'\t' read -r doc line kind word; do
    path=
    case $kind in
    link)
        case $word in http:* | https:* | mailto:* | file:* | '#'* | /*) continue ;; esac
        target=${word%%#*}
        [[ -n $target ]] || continue
        path=$(realpath -m --relative-to=. "$(dirname "$doc")/$target")
        ;;
    span | word)
        word=${word#[\"\'(]}
        while [[ $word =~ $trailing_punctuation ]]; do word=${word%?}; done
        word=${word%%:[0-9]*}
        [[ $word == *'<'* || $word == *'>'* || $word == *=* ]] && continue
        if [[ $word == */* ]]; then
            first=${word%%/*}
            [[ -n $first && -n ${top_dirs[$first]:-} ]] || continue
            path=$word
        elif [[ $kind == span && $word =~ ^[A-Za-z0-9_][^/]*\.(c|h|cpp|sv|sh|py|cmake|mjs)$ ]]; then
            [[ $EXTERNAL_NAMES == *" $word "* ]] && continue
            checked=$((checked + 1))
            if ! has_basename "$word"; then
                echo "$doc:$line: no file named $word in the repository"
                missing=$((missing + 1))
            fi
            continue
        else
            continue
        fi
        ;;
    esac
    # the studies are packages of their own: a checkout of the platform
    # alone (no studies/) keeps the docs that name their files
    [[ $path == studies/* && ! -d studies ]] && continue
    checked=$((checked + 1))
    if ! exists "$path" && ! ignored "$path"; then
        echo "$doc:$line: $path does not exist"
        missing=$((missing + 1))
    fi
done < <(extract "${docs[@]}")

if ((missing > 0)); then
    echo "FAIL: $missing of $checked paths named in the docs are missing (lines above)" >&2
    exit 1
fi
echo "ok: all $checked paths named in the docs exist"
