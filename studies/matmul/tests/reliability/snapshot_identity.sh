#!/usr/bin/env bash
# needs: qemu
# Issue 33, case 11. Booted-guest snapshots do not depend on where they were built
# (docs/snapshots.md, "Determinism" and "Identity"): the case study's
# design B (two hosts, 512 MiB each) builds its snapshots in two fresh
# caches, the second while a busy loop loads the CPU. A run from each gives
# the same per-request results to the ns, and both record the same
# snapshot identities, the ones stored beside the snapshots. (Once, a main
# loop that looked at the wrong moment warped a snapshot's clock 252 us on
# and every run from it measured a request 3 ns slower.)
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init snapshot-identity
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
export MORTAR_BIN=$QH_BIN
SPEC=$QH_SOURCE/studies/matmul/experiments/design-b.json
DB=$QH_DIR/results.db
BUSY=

cleanup() {
    [ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null
    qh_cleanup
}
trap cleanup EXIT

# build CACHE: a run that builds its snapshots in the fresh cache $QH_DIR/CACHE.
build() {
    MORTAR_SNAPSHOTS=$QH_DIR/$1 "$MORTAR" run "$SPEC" --set requests=3 --db "$DB" \
        --out "$QH_DIR/runs" >"$QH_DIR/$1.out" 2>"$QH_DIR/$1.err" ||
        qh_fail "the run building in cache $1 failed: $(tail -n 5 "$QH_DIR/$1.err")"
    grep -q "building booted-guest snapshots" "$QH_DIR/$1.err" ||
        qh_fail "the run in the fresh cache $1 built no snapshot"
}

# The last run's field FILTER (jq, on the run's object of `mortar results --json --requests`).
last_run() {
    "$MORTAR" results --db "$DB" --json --requests | jq -c "[.runs[]] | max_by(.id) | $1"
}

build a
REQUESTS_A=$(last_run .requests)
IDS_A=$(last_run .versions.snapshots)

yes >/dev/null &
BUSY=$!
build b
kill "$BUSY"
BUSY=
REQUESTS_B=$(last_run .requests)
IDS_B=$(last_run .versions.snapshots)

[ "$(jq length <<<"$REQUESTS_A")" = 3 ] || qh_fail "the first run recorded no 3 requests: $REQUESTS_A"
[ "$REQUESTS_A" = "$REQUESTS_B" ] ||
    qh_fail "runs from snapshots built in two caches differ: $REQUESTS_A vs $REQUESTS_B"
echo "per-request results from the two caches: identical ($(jq -c 'map(.latency_ns)' <<<"$REQUESTS_A"))"

[ "$(jq -r '[.[] | select(test("^[0-9a-f]{64}$"))] | length' <<<"$IDS_A" 2>/dev/null)" = 2 ] ||
    qh_fail "the run did not record the identities of its two snapshots: $IDS_A"
[ "$IDS_A" = "$IDS_B" ] || qh_fail "the two caches' snapshots differ: $IDS_A vs $IDS_B"
for cache in a b; do
    stored=$(cat "$QH_DIR/$cache"/*.sha256 | sort | tr '\n' ' ')
    recorded=$(jq -r '.[]' <<<"$IDS_A" | sort | tr '\n' ' ')
    [ "$stored" = "$recorded" ] ||
        qh_fail "cache $cache holds identities $stored, the runs recorded $recorded"
done
echo "snapshot identities: the same in both caches ($IDS_A)"
