#!/usr/bin/env bash
# mortar sweep resumes: a sweep of three points interrupted (Ctrl-C, as a
# terminal sends it to the sweep's process group) right after its first run
# is recorded ok exits 130 and leaves no process or socket directory
# behind; the same command again skips the finished point (same run id),
# runs the others, and ends with exactly one ok run per point. A run that
# fails (the guest's intermittent crash) is retried by one more invocation,
# as a user would.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init sweep-resume
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
SPEC=$QH_SOURCE/studies/matmul/experiments/design-b.json
DB=$QH_DIR/results.db
OUT=$QH_DIR/runs
export MORTAR_BIN=$QH_BIN
SWEEP_PID=

# 40 requests: a run of a kept host lasts about 2 s, long enough for the
# Ctrl-C below to find the second run still going.
sweep_args=("$SPEC" --set requests=40 --set warmup=1 --grid pcie.latency=0.5us,1us,1.5us
    --jobs 1 --db "$DB" --out "$OUT")

# Fails with the sweep's output and the end of each point's log.
fail() {
    for f in "$QH_DIR"/sweep*.out "$QH_DIR"/sweep*.err "$OUT"/sweep-*/point-*.log; do
        [ -s "$f" ] || continue
        echo "---- $f (last 15 lines)" >&2
        tail -n 15 "$f" >&2
    done
    qh_fail "$@"
}

cleanup() {
    [ -n "$SWEEP_PID" ] && kill -TERM -- "-$SWEEP_PID" 2>/dev/null && wait "$SWEEP_PID"
    qh_cleanup
}
trap cleanup EXIT

# "id latency_ns status" per run, from mortar results (the grid's latencies
# are in us: "0.5us").
runs() {
    "$MORTAR" results --db "$DB" --json 2>/dev/null |
        jq -r '.runs[] | "\(.id) \(.vars["pcie.latency"] | rtrimstr("us") | tonumber * 1000 | round) \(.status)"'
}
ok_runs() { runs | awk '$3 == "ok"'; }

# The socket directories of this test's runs, from their mortar-sim descriptions.
sock_dirs() {
    cat "$OUT"/*/sim*.json 2>/dev/null | grep -o '/tmp/mortar-run-[A-Za-z0-9]*' | sort -u
}
leftovers() {
    pgrep -af "$QH_DIR" | grep -v "^$$ " || true
    for d in $(sock_dirs); do
        pgrep -af "$d" || true
        [ ! -e "$d" ] || echo "directory $d"
    done
}

# 1. Start the sweep in its own process group; interrupt it once the first
#    run is recorded ok and a later one has started its processes.
setsid "$MORTAR" sweep "${sweep_args[@]}" >"$QH_DIR/sweep1.out" 2>"$QH_DIR/sweep1.err" &
SWEEP_PID=$!
end=$((SECONDS + 420))
until [ -n "$(ok_runs)" ]; do
    kill -0 "$SWEEP_PID" 2>/dev/null || fail "the sweep ended before a run was ok"
    [ "$SECONDS" -lt "$end" ] || fail "no run finished ok within 420 s"
    sleep 0.5
done
read -r first_id first_latency _ <<<"$(ok_runs)"
# The runs started after the ok one (run directories sort in start order;
# the next may have started before the ok run was seen here).
first_dir=$("$MORTAR" results --db "$DB" --json | jq -r ".runs[] | select(.id == $first_id) | .run_dir")
started_after_ok() {
    for d in "$OUT"/*/sim0.json; do
        [ -e "$d" ] && [[ "${d%/sim0.json}" > "$first_dir" ]] && echo "$d"
    done | wc -l
}
end=$((SECONDS + 30))
until [ "$(started_after_ok)" -gt 0 ] || [ "$SECONDS" -ge "$end" ]; do
    sleep 0.2
done
sleep 0.5
kill -INT -- "-$SWEEP_PID"
wait "$SWEEP_PID"
rc=$?
SWEEP_PID=
[ "$rc" = 130 ] || fail "the interrupted sweep exited with $rc, not 130"
grep -q interrupted "$QH_DIR/sweep1.err" || fail "the sweep did not say it was interrupted"
# The runs finished before the Ctrl-C: the first, and the second too when
# it was quicker than the wait above (runs of a kept host take under 2 s).
n_ok=$(ok_runs | wc -l)
grep -q " $n_ok ok" "$QH_DIR/sweep1.out" ||
    fail "the summary does not count the $n_ok ok run(s): $(cat "$QH_DIR/sweep1.out")"
# (a run the Ctrl-C ends as it starts records nothing; the summary says it)
grep -q " 1 interrupted" "$QH_DIR/sweep1.out" ||
    fail "the Ctrl-C ended no run (all were done first?): $(cat "$QH_DIR/sweep1.out")"
# the run the Ctrl-C ended records itself interrupted, not failed
[ -z "$(runs | awk '$3 != "ok" && $3 != "interrupted"')" ] ||
    fail "a run the Ctrl-C ended is not recorded as interrupted: $(runs)"
sleep 0.5
[ -z "$(leftovers)" ] || fail "left behind after Ctrl-C: $(leftovers)"

# 2. The same command again: the done point is skipped, the rest run (a
#    failed one once more, if need be).
for attempt in 2 3; do
    "$MORTAR" sweep "${sweep_args[@]}" >"$QH_DIR/sweep$attempt.out" 2>"$QH_DIR/sweep$attempt.err"
    rc=$?
    grep -Eq "[1-9] skipped \(already done\)" "$QH_DIR/sweep$attempt.out" ||
        fail "the done point was not skipped: $(cat "$QH_DIR/sweep$attempt.out")"
    [ "$rc" = 0 ] && break
    [ "$rc" = 1 ] || fail "the resumed sweep exited with $rc"
done
[ "$rc" = 0 ] || fail "the resumed sweep still failed: $(cat "$QH_DIR/sweep$attempt.out")"
grep -q "next: mortar verdict --db $DB" "$QH_DIR/sweep$attempt.out" || fail "no next-step hint"
[ "$(ok_runs | wc -l)" = 3 ] || fail "expected 3 ok runs: $(runs)"
[ "$(ok_runs | awk '{print $2}' | sort -n | tr '\n' ' ')" = "500 1000 1500 " ] ||
    fail "not one ok run per latency: $(runs)"
ok_runs | grep -q "^$first_id $first_latency ok$" || fail "the first ok run was redone: $(runs)"
[ "$(ls "$OUT"/sweep-design-b/point-[0-9][0-9][0-9].log | wc -l)" = 3 ] || fail "a point has no log"
# the interrupted attempt's log is kept beside the attempt that redid it
ls "$OUT"/sweep-design-b/point-[0-9][0-9][0-9].1.log >/dev/null 2>&1 ||
    fail "the interrupted attempt's log was not kept: $(ls "$OUT"/sweep-design-b)"
sleep 0.5
[ -z "$(leftovers)" ] || fail "left behind after the sweep: $(leftovers)"
echo "PASS: an interrupted sweep resumes without redoing its finished run ($(runs | wc -l) runs recorded)"
