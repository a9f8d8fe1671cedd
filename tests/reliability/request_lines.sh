#!/usr/bin/env bash
# needs: qemu
# Issue 33, case 4, end to end: a guest's per-request lines that had been
# believed (latency_ns=abc stored as 0, 12abc as 12, verified=1x as
# verified, 2^64 as INT64_MAX, a request reported twice failing the final
# write as a database error and leaving the run "running", 120,000 requests
# kept as 100,000 without a word) now fail the run naming the host, the
# line and the field; a console line with "DEBUG: " is not a kernel crash.
# One guest prints the lines; each spec is one short run. (More requests
# than a run records is tests/test_request_read.c's: 100,001 lines through
# the emulated serial port take minutes.)
source "$(dirname "$0")/../qemu/harness.sh"
source "$(dirname "$0")/lib_run.sh"
qh_init reliability-requests
RR_DB=$QH_DIR/results.db
n=0

# lines EXPECTED-STATUS EXPECTED-ERROR COMMAND: a run whose guest runs
# COMMAND (it prints request lines) ends EXPECTED-STATUS with that error.
lines() {
    local status=$1 expected=$2 command=$3
    n=$((n + 1))
    jq -n --arg run "$command" '{name: "lines", measure: {host: "h0"},
        hosts: [{name: "h0", memory_mib: 256, run: $run}],
        components: [{name: "dev", kind: "pcitest"}],
        links: [{name: "pcie0", host: "h0", component: "dev.0", latency: "500ns"}]}' \
        >"$QH_DIR/spec$n.json"
    "$QH_BIN/mortar" run "$QH_DIR/spec$n.json" --db "$RR_DB" --out "$QH_DIR/runs" \
        --timeout 300 >/dev/null 2>"$QH_DIR/run$n.err"
    [ "$(rr_last status)" = "$status" ] ||
        qh_fail "$command: recorded '$(rr_last status)', not $status: $(rr_last error)"
    [ -z "$expected" ] || rr_last error | grep -qF -- "$expected" ||
        qh_fail "$command: the error does not say '$expected': $(rr_last error)"
    echo "ok: $command -> $(rr_last status) $(rr_last error)"
}

ok='latency_ns=1000 verified=1'
lines failed "latency_ns" "echo 'req=0 latency_ns=abc verified=1'"
lines failed "latency_ns" "echo 'req=0 latency_ns=12abc verified=1'"
lines failed "verified" "echo 'req=0 latency_ns=1000 verified=1x'"
lines failed "latency_ns" "echo 'req=0 latency_ns=99999999999999999999 verified=1'"
lines failed "req" "echo 'req=abc $ok'"
lines failed "twice" "echo 'req=0 $ok'; echo 'req=0 $ok'"
lines ok "" "echo 'DEBUG: BUG: not a crash'; echo 'req=0 $ok'"
[ "$(sqlite3 "$RR_DB" "select count(*) from runs where status='running'")" = 0 ] ||
    qh_fail "a run was left 'running'"
echo "PASS: every malformed request line failed its run, naming it"
