#!/usr/bin/env bash
# tests/no_study_names.sh SOURCE_DIR - the platform names no study: what is
# compared, over which knobs, along which topology and how a request is
# reported come from the study file and the run's spec (docs/studies.md).
# Fails listing every line of a platform folder that names the case study's
# device, designs, knobs, load axis, the components of its topology or the
# labels of its time split's parts (its study file's metric.split).
#
# The platform folders: cli/, lib/, include/, web/src/, and hosts/ but for
# the patches to QEMU's own sources (whose tree has an accel/ folder).
# sims/ and guest/ hold the case study's models and programs until they
# move to a package of their own (issue 34), so they are not checked yet.
#
# With NO_STUDY_NAMES_SELF_TEST=1 it copies a platform folder, plants a name
# of each kind in it and requires the check to report each.
set -euo pipefail
src=${1:?usage: no_study_names.sh SOURCE_DIR}
pattern='matmul|speed|pcie_lat|in_flight|inflight|design[-_ ]?[ab]\b|regcopy|register copy'
pattern+='|nic_client|nic_server|\baccel\b|host interface and link'
folders=(cli lib include web/src hosts)

hits_in() { grep -rniE --exclude-dir=patches "$pattern" "$@" || true; }

if [ "${NO_STUDY_NAMES_SELF_TEST:-}" = 1 ]; then
    tmp=$(mktemp -d /tmp/mortar-no-study-names.XXXXXX)
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/lib"
    planted=('/* the matmul device */' 'int design_a;' '"nic_client"' 'track = "accel";'
             '{"host interface and link", "iface"}')
    for i in "${!planted[@]}"; do
        printf '%s\n' "${planted[$i]}" >"$tmp/lib/planted$i.c"
    done
    found=$(hits_in "$tmp/lib" | wc -l)
    [ "$found" -eq "${#planted[@]}" ] ||
        { echo "FAIL: the check found $found of ${#planted[@]} planted names" >&2; exit 1; }
    echo "ok: the check reports each of the ${#planted[@]} planted names"
    exit 0
fi

dirs=()
for f in "${folders[@]}"; do dirs+=("$src/$f"); done
hits=$(hits_in "${dirs[@]}")
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    echo "FAIL: the lines above name the case study in a platform folder" >&2
    exit 1
fi
echo "ok: ${folders[*]} name no study"
