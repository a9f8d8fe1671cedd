#!/usr/bin/env bash
# Kept hosts (docs/snapshots.md, "Kept hosts"): design B at three PCIe
# latencies, 3 requests each, one run at a time, swept twice: with every
# run on QEMUs of its own (MORTAR_KEEP_HOSTS=0) and with the sweep keeping
# each host's QEMU for the next run (MORTAR_RESET_CHECK=1: a kept QEMU's
# reset fails the run if the log of writes missed a page). Every request's
# latency must be the same to the nanosecond, and every host's fingerprint
# of what its links carried too; the kept sweep's later runs must have run in a
# kept QEMU (host.json's qemu_run > 1), and no QEMU may be left when the
# sweep ends. Then a run whose server stand-in is killed: the run fails,
# its QEMUs end, and the next run gets fresh ones and the same results.
# About 50 s on 2 cores once the booted-guest snapshots exist.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init kept-hosts
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
export MORTAR_BIN=$QH_BIN
SPEC=$QH_SOURCE/studies/matmul/experiments/design-b.json
grid=(--grid pcie.latency=0.5us,1.5us,2.5us --set requests=3 --set warmup=1 --jobs 1)

fail() {
    for f in "$QH_DIR"/*.err; do
        [ -s "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" >&2; }
    done
    qh_fail "$@"
}

# One line per request: the point's knobs, its index and its latency.
latencies() {
    sqlite3 "$1" "select (select group_concat(name||'='||value) from run_vars v
                          where v.run_id = r.id), q.idx, q.latency_ns
                  from requests q join runs r on r.id = q.run_id order by 1, 2"
}

kept_qemus() {
    pgrep -f "qemu-system-x86_64.*$QH_DIR" | wc -l
}

# Kept hosts' directories (slot locks in a private directory) left behind.
kept_dirs() {
    ls -d /tmp/mortar-run-*/*.0.lock 2>/dev/null | wc -l
}

MORTAR_KEEP_HOSTS=0 "$MORTAR" sweep "$SPEC" "${grid[@]}" --db "$QH_DIR/fresh.db" \
    --out "$QH_DIR/fresh" >"$QH_DIR/fresh.out" 2>"$QH_DIR/fresh.err" ||
    fail "the sweep without kept hosts failed"
MORTAR_RESET_CHECK=1 "$MORTAR" sweep "$SPEC" "${grid[@]}" --db "$QH_DIR/kept.db" --out "$QH_DIR/kept" \
    >"$QH_DIR/kept.out" 2>"$QH_DIR/kept.err" || fail "the sweep with kept hosts failed"

latencies "$QH_DIR/fresh.db" >"$QH_DIR/fresh.txt"
latencies "$QH_DIR/kept.db" >"$QH_DIR/kept.txt"
[ "$(wc -l <"$QH_DIR/fresh.txt")" = 9 ] || fail "expected 9 requests, got $(wc -l <"$QH_DIR/fresh.txt")"
diff "$QH_DIR/fresh.txt" "$QH_DIR/kept.txt" >&2 ||
    fail "kept hosts changed the latencies (above: fresh <, kept >)"
# Every run's fingerprints (docs/hosts.md, "Fingerprint"): the same data on
# every link, byte for byte and stamp for stamp.
fingerprints() {
    for dir in $(sqlite3 "$1" "select run_dir from runs order by id"); do
        for host in client server; do
            echo "$host $(jq -c '.digest' "$dir/$host.host.json")"
        done
    done
}
fingerprints "$QH_DIR/fresh.db" >"$QH_DIR/fresh.digests"
fingerprints "$QH_DIR/kept.db" >"$QH_DIR/kept.digests"
grep -q '"checkpoints":\[\["' "$QH_DIR/fresh.digests" || fail "no checkpoints in the fingerprints"
cmp -s "$QH_DIR/fresh.digests" "$QH_DIR/kept.digests" ||
    fail "kept hosts changed what the links carried (fingerprints in $QH_DIR/*.digests)"

# Which run of its QEMU each host's run was: 1, 2, 3 in the kept sweep.
runs_of() {
    local db=$1 host=$2
    for dir in $(sqlite3 "$db" "select run_dir from runs order by id"); do
        jq -r '.qemu_run' "$dir/$host.host.json"
    done | tr '\n' ' '
}
for host in client server; do
    [ "$(runs_of "$QH_DIR/fresh.db" $host)" = "1 1 1 " ] ||
        fail "without kept hosts, $host ran in a QEMU of its own: $(runs_of "$QH_DIR/fresh.db" $host)"
    [ "$(runs_of "$QH_DIR/kept.db" $host)" = "1 2 3 " ] ||
        fail "the kept $host QEMU did not take the later runs: $(runs_of "$QH_DIR/kept.db" $host)"
done
[ "$(kept_qemus)" = 0 ] || fail "QEMUs are left after the sweep: $(pgrep -af qemu-system)"
[ "$(kept_dirs)" = 0 ] || fail "the kept hosts' directory is left: $(ls -d /tmp/mortar-run-*/*.0.lock)"
echo "the same $(wc -l <"$QH_DIR/kept.txt") latencies with kept hosts; runs 2 and 3 reused both QEMUs"

# A stand-in killed during its run: the run fails, its kept QEMU ends, and
# the sweep's next run starts a fresh QEMU with the same results.
"$MORTAR" sweep "$SPEC" --grid pcie.latency=0.5us,1.5us --set requests=3 --set warmup=1 \
    --jobs 1 --db "$QH_DIR/killed.db" --out "$QH_DIR/killed" \
    >"$QH_DIR/killed.out" 2>"$QH_DIR/killed.err" &
sweep=$!
for _ in $(seq 1 600); do
    grep -qs 'MORTAR-SYNCHRONIZED' "$QH_DIR"/killed/000001-*/server.console.log && break
    sleep 0.1
done
pkill -KILL -f "host-attach .*host=server" || fail "no server stand-in to kill"
wait $sweep && fail "the sweep with a killed stand-in reported success"
[ "$(sqlite3 "$QH_DIR/killed.db" "select status from runs where id = 1")" = failed ] ||
    fail "the run whose stand-in was killed did not fail"
[ "$(sqlite3 "$QH_DIR/killed.db" "select status from runs where id = 2")" = ok ] ||
    fail "the run after it failed: $(sqlite3 "$QH_DIR/killed.db" "select error from runs where id = 2")"
dir2=$(sqlite3 "$QH_DIR/killed.db" "select run_dir from runs where id = 2")
for host in client server; do
    [ "$(jq -r '.qemu_run' "$dir2/$host.host.json")" = 1 ] ||
        fail "the run after the failed one reused the $host's QEMU"
done
latencies "$QH_DIR/killed.db" | grep '^[^|]*pcie.latency=1.5us' >"$QH_DIR/killed.txt"
grep '^[^|]*pcie.latency=1.5us' "$QH_DIR/fresh.txt" | diff - "$QH_DIR/killed.txt" >&2 ||
    fail "the run after the killed one measured otherwise"
[ "$(kept_qemus)" = 0 ] || fail "QEMUs are left after the sweep: $(pgrep -af qemu-system)"
echo "PASS: a killed stand-in failed its run only; its QEMUs ended, the next run got fresh ones"
