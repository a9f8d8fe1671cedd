#!/usr/bin/env bash
# mortar run's failure handling: a bad spec is rejected before anything
# starts, with its JSON path; a killed component ends the run, names the
# component, records the run as failed and leaves no process behind; Ctrl-C
# and SIGHUP leave no process, socket directory or lost record behind and
# record the run as interrupted; a run killed outright (SIGKILL) is marked
# abandoned, its socket directory removed, by the next run; a stalled
# component (its clock stops) ends the run naming it; a final database
# write that fails is an error that keeps the result for `mortar import`.
source "$(dirname "$0")/harness.sh"
qh_init run-failures
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
SPEC=$QH_SOURCE/experiments/examples/pcitest.json
DB=$QH_DIR/results.db
export MORTAR_BIN=$QH_BIN

EXTRA_ARGS=()
runs() { sqlite3 "$DB" "select count(*) from runs" 2>/dev/null || echo 0; }
leftovers() { pgrep -f "$QH_DIR/runs" | grep -v "^$$\$" || true; }

# 1. A bad spec: nothing starts, nothing is recorded.
if "$MORTAR" run "$SPEC" --db "$DB" --out "$QH_DIR/runs" --set pcie.latency=0ns \
    2>"$QH_DIR/bad.err"; then
    qh_fail "a spec with latency 0 was accepted"
fi
grep -q 'links\[0\].latency: must be greater than 0' "$QH_DIR/bad.err" ||
    qh_fail "the error does not name the JSON path: $(cat "$QH_DIR/bad.err")"
[ "$(runs)" = 0 ] || qh_fail "a rejected spec left a run record"

# Starts a long run in the background; waits until its hosts synchronized.
start_long_run() {
    "$MORTAR" run "$SPEC" --db "$DB" --out "$QH_DIR/runs" --set reads=10000000 \
        "${EXTRA_ARGS[@]}" 2>"$QH_DIR/$1.err" &
    RUN_PID=$!
    local end=$((SECONDS + 300))
    until grep -q synchronized "$QH_DIR/$1.err"; do
        kill -0 "$RUN_PID" 2>/dev/null || qh_fail "$1: mortar run ended early"
        [ "$SECONDS" -lt "$end" ] || qh_fail "$1: the hosts never synchronized"
        sleep 0.2
    done
    sleep 1
}

# 2. A component killed mid-run.
start_long_run crash
sim=$(pgrep -f "mortar-sim $QH_DIR/runs/.*/sim0.json" | head -n 1)
[ -n "$sim" ] || qh_fail "no mortar-sim process found"
kill -9 "$sim"
wait "$RUN_PID" && qh_fail "the run succeeded although its simulator was killed"
grep -Eq "sim sim0: was killed|device 'dev'" "$QH_DIR/crash.err" ||
    qh_fail "the failure does not name the component: $(tail -n 5 "$QH_DIR/crash.err")"
[ "$(sqlite3 "$DB" "select status from runs order by id desc limit 1")" = failed ] ||
    qh_fail "the crashed run is not recorded as failed"
sleep 0.5
[ -z "$(leftovers)" ] || qh_fail "processes left behind: $(leftovers)"

# 3. Ctrl-C.
start_long_run interrupt
sockdirs_before=$(ls -d /tmp/mortar-run-* 2>/dev/null | wc -l)
kill -INT "$RUN_PID"
wait "$RUN_PID" && qh_fail "an interrupted run reported success"
grep -q "interrupted" "$QH_DIR/interrupt.err" || qh_fail "no 'interrupted' message"
last_run() { sqlite3 "$DB" "select $1 from runs order by id desc limit 1"; }
[ "$(last_run "status || ': ' || error")" = "interrupted: interrupted by SIGINT (Ctrl-C)" ] ||
    qh_fail "the interrupted run is not recorded as interrupted: $(last_run "status, error")"
[ "$(sqlite3 "$DB" "select count(*) from runs where status='failed'")" = 1 ] ||
    qh_fail "a finished run record was lost"
sleep 0.5
[ -z "$(leftovers)" ] || qh_fail "processes left behind after Ctrl-C: $(leftovers)"
sockdirs_after=$(ls -d /tmp/mortar-run-* 2>/dev/null | wc -l)
[ "$sockdirs_after" -lt "$sockdirs_before" ] || qh_fail "the socket directory was not removed"

# 3b. SIGHUP (the terminal closed): the same as Ctrl-C.
start_long_run hangup
kill -HUP "$RUN_PID"
wait "$RUN_PID" && qh_fail "a run ended by SIGHUP reported success"
[ "$(last_run status)" = interrupted ] ||
    qh_fail "the run ended by SIGHUP is not recorded as interrupted: $(last_run "status, error")"
sleep 0.5
[ -z "$(leftovers)" ] || qh_fail "processes left behind after SIGHUP: $(leftovers)"

# 3c. SIGKILL: nothing can be done then, but the next run marks the run
# abandoned and removes its socket directory.
start_long_run killed
killed_id=$(last_run id)
killed_pid=$RUN_PID
killed_dir=$(last_run private_dir)
[ "$(last_run pid)" = "$RUN_PID" ] || qh_fail "the run does not record its PID"
[ -d "$killed_dir" ] || qh_fail "the running run names no private directory: '$killed_dir'"
kill -KILL "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
pkill -KILL -f "$QH_DIR/runs/0*$killed_id-" || true
sleep 0.5
# 4. A stalled component: its clock stops (SIGSTOP), so every clock stops.
#    The host runs on until its guest next needs the device (it does not
#    crawl: a null message the full ring refuses is no deadline), then
#    waits; 5 s without any clock moving is the stall.
EXTRA_ARGS=(--stall-timeout 5)
start_long_run stall
sim=$(pgrep -f "mortar-sim $QH_DIR/runs/.*/sim0.json" | head -n 1)
[ -n "$sim" ] || qh_fail "no mortar-sim process found for the stall"
kill -STOP "$sim"
wait "$RUN_PID" && qh_fail "the run succeeded although its simulator stalled"
grep -q "stalled: no simulated time passed" "$QH_DIR/stall.err" ||
    qh_fail "no stall reported: $(tail -n 5 "$QH_DIR/stall.err")"
grep -q "sim sim0 is stopped" "$QH_DIR/stall.err" ||
    qh_fail "the stall does not name the stalled simulator: $(grep stalled "$QH_DIR/stall.err")"
[ "$(sqlite3 "$DB" "select status from runs order by id desc limit 1")" = failed ] ||
    qh_fail "the stalled run is not recorded as failed"
sleep 0.5
[ -z "$(leftovers)" ] || qh_fail "processes left behind after a stall: $(leftovers)"
[ "$(sqlite3 "$DB" "select status from runs where id=$killed_id")" = abandoned ] ||
    qh_fail "the killed run is not marked abandoned"
sqlite3 "$DB" "select error from runs where id=$killed_id" | grep -q "PID $killed_pid" ||
    qh_fail "the abandoned run's error does not name its PID"
[ ! -e "$killed_dir" ] || qh_fail "the killed run's private directory $killed_dir is left"
grep -q "run $killed_id abandoned" "$QH_DIR/stall.err" || qh_fail "the next run did not say so"

# 5. The final write fails (a trigger planted by the test refuses it): the
#    run says so and exits 1, the row stays running, the result is kept in
#    the run's directory, and `mortar import` records it.
sqlite3 "$DB" "CREATE TRIGGER refuse_end BEFORE UPDATE OF status ON runs
               WHEN NEW.status = 'ok' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
if "$MORTAR" run "$SPEC" --db "$DB" --out "$QH_DIR/runs" >"$QH_DIR/unrecorded.out" \
    2>"$QH_DIR/unrecorded.err"; then
    qh_fail "a run whose result was not recorded exited 0"
fi
grep -q "ERROR: its result could not be written.*refused by the test" "$QH_DIR/unrecorded.err" ||
    qh_fail "the failed write is not reported: $(tail -n 5 "$QH_DIR/unrecorded.err")"
! grep -q " ok" "$QH_DIR/unrecorded.out" || qh_fail "the unrecorded run printed ok"
unrecorded_id=$(last_run id)
[ "$(last_run status)" = running ] || qh_fail "the unrecorded run's row says $(last_run status)"
kept=$(printf '%s/runs/%06d-pcitest/result.json' "$QH_DIR" "$unrecorded_id")
[ -f "$kept" ] || qh_fail "the result is not kept in $kept"
grep -q "mortar import '$kept' --db '$DB'" "$QH_DIR/unrecorded.err" ||
    qh_fail "the error does not give the import command"
sqlite3 "$DB" "DROP TRIGGER refuse_end"
"$MORTAR" import "$kept" --db "$DB" >/dev/null || qh_fail "mortar import failed"
[ "$(sqlite3 "$DB" "select status from runs where id=$unrecorded_id")" = ok ] ||
    qh_fail "the imported run is not ok"

echo "PASS: bad specs, crashed and stalled components, Ctrl-C, SIGHUP, SIGKILL and a failed final write are handled cleanly"
