#!/usr/bin/env bash
# tests/no_study_names.sh SOURCE_DIR - the platform names no study: what is
# compared, over which knobs, along which topology and how a request is
# reported come from the study file and the run's spec (docs/studies.md).
# Fails listing every line of a platform folder that names the case study's
# device, designs, knobs, load axis, the components of its topology or the
# labels of its time split's parts (its study file's metric.split).
#
# The platform folders: cli/, lib/, include/, web/src/, and hosts/ but for
# the patches to QEMU's own sources (whose tree has an accel/ folder); and
# the platform's models, RTL and guest SDK (sims/, rtl/, guest/), where the
# knobs' words are left out: they are the models' own parameters too (a
# NIC's line `speed`, a DMA queue's requests in flight). The case study
# lives in studies/matmul/.
#
# With NO_STUDY_NAMES_SELF_TEST=1 it copies a platform folder, plants a name
# of each kind in it and requires the check to report each.
set -euo pipefail
src=${1:?usage: no_study_names.sh SOURCE_DIR}
pattern='matmul|speed|pcie_lat|in_flight|inflight|design[-_ ]?[ab]\b|regcopy|register copy'
pattern+='|nic_client|nic_server|\baccel\b|host interface and link'
folders=(cli lib include web/src hosts)
device_pattern='matmul|design[-_ ]?[ab]\b|regcopy|register copy|nic_client|nic_server|\baccel\b'
device_folders=(sims rtl guest)

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
    # a model's folder: the design is reported, a NIC's line speed is not
    mkdir -p "$tmp/sims"
    printf '%s\n' 'static int regcopy;' >"$tmp/sims/planted.c"
    printf '%s\n' 'uint64_t speed_bps;' >"$tmp/sims/own_words.c"
    found=$(pattern=$device_pattern hits_in "$tmp/sims")
    [ "$found" = "$tmp/sims/planted.c:1:static int regcopy;" ] ||
        { echo "FAIL: in a model's folder the check found: ${found:-nothing}" >&2; exit 1; }
    echo "ok: the check reports each of the ${#planted[@]} planted names, and one in a model's folder"
    exit 0
fi

dirs=()
for f in "${folders[@]}"; do dirs+=("$src/$f"); done
device_dirs=()
for f in "${device_folders[@]}"; do device_dirs+=("$src/$f"); done
hits=$(hits_in "${dirs[@]}"; pattern=$device_pattern hits_in "${device_dirs[@]}")
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    echo "FAIL: the lines above name the case study in a platform folder" >&2
    exit 1
fi
echo "ok: ${folders[*]} ${device_folders[*]} name no study"
