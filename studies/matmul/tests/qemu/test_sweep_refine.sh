#!/usr/bin/env bash
# mortar sweep --refine on real runs: designs A and B at 1x over two PCIe
# latencies, 2 requests each, refined to 0.25 us. Where the two grid points
# have different winners, the refinement runs both designs at the midpoint
# (the bracket 0.5 us wide needs one halving: 2 runs) and the verdict says
# the crossing was measured, bracketed within 0.25 µs; where they have the
# same winner, it runs nothing. The same command again runs nothing more.
# About 40 s on 2 cores once the booted-guest snapshots exist.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init sweep-refine
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
export MORTAR_BIN=$QH_BIN
DB=$QH_DIR/results.db
OUT=$QH_DIR/runs
SWEEP=$QH_DIR/refine.json
SPECS=$QH_SOURCE/studies/matmul/experiments
cat >"$SWEEP" <<JSON
{"name": "refine",
 "parts": [{"specs": ["$SPECS/design-a.json", "$SPECS/design-b.json"],
            "grid": {"pcie.latency": ["1us", "1.5us"]},
            "set": {"speed": 1, "requests": 2, "warmup": 1}}]}
JSON

fail() {
    for f in "$QH_DIR"/sweep*.out "$QH_DIR"/sweep*.err; do
        [ -s "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" >&2; }
    done
    qh_fail "$@"
}

args=("$SWEEP" --refine --resolution 0.25us --jobs 2 --db "$DB" --out "$OUT")
"$MORTAR" sweep "${args[@]}" >"$QH_DIR/sweep1.out" 2>"$QH_DIR/sweep1.err" ||
    fail "the refining sweep failed"
"$MORTAR" verdict --db "$DB" --json >"$QH_DIR/verdict.json" || fail "no verdict"
cross=$(jq -c '.crossovers[] | select(.series == 1)' "$QH_DIR/verdict.json")
refined=$(grep -c '^run [0-9]* ok *refine ' "$QH_DIR/sweep1.err")
if [ "$(jq '.crossings | length' <<<"$cross")" = 0 ]; then
    [ "$refined" = 0 ] || fail "no crossing between the grid points, yet $refined refinement runs"
    echo "PASS (no crossing between 1 and 1.5 us with 2 requests: nothing to refine)"
    exit 0
fi
[ "$refined" = 2 ] || fail "expected 2 refinement runs (one halving), got $refined"
grep -q 'refine design-a pcie.latency=1.25us' "$QH_DIR/sweep1.err" || fail "no run of A at 1.25us"
grep -q 'refine design-b pcie.latency=1.25us' "$QH_DIR/sweep1.err" || fail "no run of B at 1.25us"
[ "$(jq '.measured' <<<"$cross")" = true ] || fail "the crossing is not measured: $cross"
jq -e '.to_x - .from_x <= 0.25' <<<"$cross" >/dev/null || fail "bracket wider than 0.25 us: $cross"
jq -e '.text | test("measured between runs at")' <<<"$cross" >/dev/null ||
    fail "the sentence does not say measured: $cross"
[ "$(jq '.extra_cells | length' "$QH_DIR/verdict.json")" = 1 ] || fail "expected one extra cell"
grep -q '1 crossing(s), bracketed within 0.25 µs' "$QH_DIR/sweep1.out" ||
    fail "the summary does not say where the series stands"

# Again: everything is there, nothing runs.
"$MORTAR" sweep "${args[@]}" >"$QH_DIR/sweep2.out" 2>"$QH_DIR/sweep2.err" ||
    fail "the second sweep failed"
grep -q '4 skipped (already done)' "$QH_DIR/sweep2.out" || fail "the grid was not skipped"
grep -q 'refinement: 0 runs' "$QH_DIR/sweep2.out" || fail "the refinement ran again"
echo "PASS: $(jq -r '.text' <<<"$cross")"
