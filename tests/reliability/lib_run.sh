# tests/reliability/lib_run.sh - `mortar run` in the background, for the
# reliability scripts that end one of its components. Source it after
# tests/qemu/harness.sh's qh_init.
#
#   rr_start TAG SPEC [ARGS...]  start `mortar run` (its stderr in
#                                $QH_DIR/TAG.err); wait for the common start
#   rr_pid HOST|sim              the PID of that host's QEMU or of mortar-sim
#   rr_wait_end SECONDS          wait for the run to end; RR_STATUS, RR_WAITED
#   rr_last COLUMN               that column of the newest run record
MORTAR=$QH_BIN/mortar

rr_start() {
    local tag=$1 spec=$2
    shift 2
    RR_ERR=$QH_DIR/$tag.err
    RR_DB=$QH_DIR/results.db
    "$MORTAR" run "$spec" --db "$RR_DB" --out "$QH_DIR/runs" --timeout 300 "$@" \
        >"$QH_DIR/$tag.out" 2>"$RR_ERR" &
    RR_PID=$!
    local end=$((SECONDS + 300))
    until grep -q "hosts synchronized" "$RR_ERR"; do
        kill -0 "$RR_PID" 2>/dev/null || qh_fail "$tag: mortar run ended early"
        [ "$SECONDS" -lt "$end" ] || qh_fail "$tag: the hosts never synchronized"
        sleep 0.1
    done
    sleep 1
}

rr_pid() {
    if [ "$1" = sim ]; then
        pgrep -f "^/[^ ]*mortar-sim $QH_DIR/runs/" | head -n 1
    else
        pgrep -f "^/[^ ]*qemu-system-x86_64 .*file=$QH_DIR/runs/[^ ]*/$1\\.params" | head -n 1
    fi
}

rr_wait_end() {
    local limit=$1 start
    start=$(date +%s%N)
    while kill -0 "$RR_PID" 2>/dev/null; do
        [ $(($(date +%s%N) - start)) -lt $((limit * 1000000000)) ] || {
            kill -INT "$RR_PID"
            wait "$RR_PID"
            qh_fail "the run did not end within $limit s: $(tail -n 3 "$RR_ERR")"
        }
        sleep 0.05
    done
    wait "$RR_PID"
    RR_STATUS=$?
    RR_WAITED=$(( ($(date +%s%N) - start) / 1000000 ))
}

rr_last() {
    sqlite3 "$RR_DB" "select $1 from runs order by id desc limit 1"
}
