#!/usr/bin/env bash
# The case study with design B in RTL, picked by name from the study file
# (`mortar run studies/matmul/experiments/study.json --set design=rtl-b`, which runs
# studies/matmul/experiments/design-rtl-b.json: the rtl component running matmul_b,
# driven by the server's unchanged design B driver): a short traced run (3
# requests, 1 warm-up) is recorded as design rtl-b with every product
# verified, and its trace holds the
# RTL's own events (descriptor fetch, DMA, compute per step, completion)
# on the run's clock, each step 16,387 cycles of 2,500 ps.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init case-study-rtl
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
DB=$QH_DIR/results.db
export MORTAR_BIN=$QH_BIN

"$MORTAR" run "$QH_SOURCE/studies/matmul/experiments/study.json" --set design=rtl-b --db "$DB" \
    --out "$QH_DIR/runs" --set requests=3 --set warmup=1 --trace \
    >"$QH_DIR/rtl.out" 2>"$QH_DIR/rtl.err" ||
    qh_fail "the rtl-b run failed: $(tail -n 5 "$QH_DIR/rtl.err")"
ID=$(sqlite3 "$DB" "select max(id) from runs")
[ "$(sqlite3 "$DB" "select name || ' ' || (select value from run_vars where run_id = runs.id and name = 'design') || ' ' || status from runs where id=$ID")" = \
  "matmul-rtl-b rtl-b ok" ] || qh_fail "the run is not recorded as an ok rtl-b run of design-rtl-b.json"
[ "$(sqlite3 "$DB" "select count(*) from requests where run_id=$ID and verified=1")" = 3 ] ||
    qh_fail "not every one of the 3 products was verified"

# The median request's timeline: the accelerator's track holds the RTL's
# events (compute_start/compute_end joined into `compute` slices), every
# step lasts exactly 16,387 cycles, and the split's compute is 64 of them.
"$MORTAR" trace "$ID" --db "$DB" --format timeline --output "$QH_DIR/timeline.json" \
    2>"$QH_DIR/trace.err" || qh_fail "mortar trace failed: $(cat "$QH_DIR/trace.err")"
python3 - "$QH_DIR/timeline.json" <<'PY' || qh_fail "the trace does not show the RTL's events"
import json, sys
t = json.load(open(sys.argv[1]))
events = [e for tr in t["tracks"] if tr["name"] == "accel" for e in tr["events"]]
names = {e["name"] for e in events}
want = {"doorbell", "desc_fetch", "dma_read", "dma_write", "compute", "completion"}
missing = want - names
assert not missing, f"missing {sorted(missing)} among {sorted(names)}"
steps = [e["end_ps"] - e["start_ps"] for e in events if e["name"] == "compute"]
assert len(steps) == 64 and set(steps) == {16387 * 2500}, (len(steps), set(steps))
assert t["split"]["parts"][-1]["ps"] == 64 * 16387 * 2500, t["split"]
print(f"accel: {len(events)} RTL events, 64 steps of {16387 * 2500} ps")
PY
echo "PASS: rtl-b recorded, 3 products verified, the RTL's events traced"
