#!/usr/bin/env bash
# tests/no_study_names.sh SOURCE_DIR - the platform's command and explorer
# name no study: what is compared, over which knobs and how a request is
# reported come from the study file (docs/studies.md). Fails listing every
# line of cli/ or web/src/ that names the case study's device, designs,
# knobs or load axis.
set -euo pipefail
src=${1:?usage: no_study_names.sh SOURCE_DIR}
pattern='matmul|speed|pcie_lat|in_flight|inflight|design[-_ ]?[ab]\b|regcopy|register copy'
if hits=$(grep -rniE "$pattern" "$src/cli" "$src/web/src"); then
    printf '%s\n' "$hits"
    echo "FAIL: the lines above name the case study in cli/ or web/src/" >&2
    exit 1
fi
echo "ok: cli/ and web/src/ name no study"
