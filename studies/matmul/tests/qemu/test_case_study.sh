#!/usr/bin/env bash
# The case study end to end with `mortar run` (two QEMU hosts, two e1000
# models, a switch, the accelerator): short runs of every backend complete
# with every product verified and are recorded in SQLite; the same spec run
# three times (plain, without lookahead promises and without skipping the
# server's pure wait, traced) gives identical per-request latencies, and
# the plain run skipped, with two requests in flight too;
# the traced run can be exported (and its pcap is on the run's clock), the
# results too; the int32 variant (result=int32: the raw
# accumulators, replies 4 times the size) is verified too and takes longer;
# a device that computes wrong products fails its run; the client's NIC in
# a second simulator process changes nothing.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init case-study
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
SPECS=$QH_SOURCE/studies/matmul/experiments
DB=$QH_DIR/results.db
export MORTAR_BIN=$QH_BIN

# run NAME SPEC [ARGS...]: one run into $DB; its id in $RUN_ID.
run() {
    local name=$1 spec=$2 rc
    shift 2
    "$MORTAR" run "$SPECS/$spec" --db "$DB" --out "$QH_DIR/runs" "$@" \
        >"$QH_DIR/$name.out" 2>"$QH_DIR/$name.err"
    rc=$?
    RUN_ID=$(sqlite3 "$DB" "select max(id) from runs")
    return $rc
}

# latencies ID: the run's "idx latency_ns" lines.
latencies() {
    sqlite3 "$DB" "select idx, latency_ns from requests where run_id=$1 order by idx"
}

expect_ok() {
    local name=$1 requests=$2
    [ "$(sqlite3 "$DB" "select status from runs where id=$RUN_ID")" = ok ] ||
        qh_fail "$name: the run is not recorded as ok: $(tail -n 5 "$QH_DIR/$name.err")"
    [ "$(sqlite3 "$DB" "select count(*) from requests where run_id=$RUN_ID and verified=1")" \
        = "$requests" ] || qh_fail "$name: not every one of $requests products was verified"
}

# 1. Design B, three times: plain, without lookahead promises
# (MORTAR_PROMISES=0: plain null messages, docs/protocol.md), without
# skipping pure wait loops (the hosts' "skip_spin": false, docs/hosts.md),
# without running translation blocks whole past a horizon
# (MORTAR_WHOLE_BLOCKS=0, docs/hosts.md), without giving device accesses
# blocks of their own (MORTAR_IO_BLOCKS=0, docs/hosts.md) and without
# wall-clock profiles (MORTAR_PROFILE=0), traced, stopped at
# pseudo-random times as well (MORTAR_STOP_JITTER, docs/hosts.md),
# using less than the links allow (MORTAR_BOUND_JITTER=1, docs/hosts.md)
# and with QEMU's main loop woken every 20 us (MORTAR_MAIN_LOOP_POKE_US,
# docs/hosts.md: without icount-warp-counted.patch its idle warps then
# put the vCPU past its horizon tens of times a run).
run b1 design-b.json --set requests=3 --set warmup=1 || qh_fail "b1 failed: $(tail -n 5 "$QH_DIR/b1.err")"
expect_ok b1 3
B1=$RUN_ID
MORTAR_PROMISES=0 MORTAR_PROFILE=0 MORTAR_WHOLE_BLOCKS=0 MORTAR_IO_BLOCKS=0 run b2 design-b.json --set requests=3 --set warmup=1 \
    --set hosts.0.skip_spin=false --set hosts.1.skip_spin=false || qh_fail "b2 failed"
expect_ok b2 3
B2=$RUN_ID
MORTAR_STOP_JITTER=50 MORTAR_BOUND_JITTER=1 MORTAR_MAIN_LOOP_POKE_US=20 \
    run b3 design-b.json --set requests=3 --set warmup=1 --trace ||
    qh_fail "b3 (traced, extra stops, bounds held back, main loop poked) failed"
expect_ok b3 3
B3=$RUN_ID
[ "$(latencies "$B1")" = "$(latencies "$B2")" ] ||
    qh_fail "lookahead promises, skipping, whole blocks or I/O blocks changed the latencies: $(latencies "$B1" | tr '\n' ' ') vs $(latencies "$B2" | tr '\n' ' ')"
[ "$(latencies "$B1")" = "$(latencies "$B3")" ] ||
    qh_fail "tracing, extra stops or bounds held back changed the latencies: $(latencies "$B1" | tr '\n' ' ') vs $(latencies "$B3" | tr '\n' ' ')"
echo "design b: identical latencies in 3 runs (one without promises, skipping, whole blocks and I/O blocks, one traced, stopped at random and holding back bounds): $(latencies "$B1" | tr '\n' ' ')"
# host_stat ID HOST FIELD: a counter of the host (HOST.host.json).
host_stat() {
    jq -r ".$3" "$(sqlite3 "$DB" "select run_dir from runs where id=$1")/$2.host.json"
}
# fingerprint ID: both hosts' digests of the data their links carried
# (docs/hosts.md, "Fingerprint").
fingerprint() {
    local h
    for h in client server; do
        echo "$h $(host_stat "$1" $h digest | jq -c .)"
    done
}
# parting A B: where runs A and B parted: each host's first checkpoint
# (one each 10 ms of simulated time) whose digests differ, and which.
parting() {
    local h
    for h in client server; do
        paste -d' ' <(host_stat "$1" $h 'digest.checkpoints[] | join(" ")') \
            <(host_stat "$2" $h 'digest.checkpoints[] | join(" ")') |
            awk -v h=$h '$1 != $3 || $2 != $4 { printf "%s: checkpoint %d (%s%s); ", h, NR,
                ($1 != $3 ? "received" : ""), ($2 != $4 ? " sent" : ""); exit }'
    done
}
# same_fingerprint A B WHAT: runs A and B carried the same messages.
same_fingerprint() {
    [ "$(fingerprint "$1")" = "$(fingerprint "$2")" ] ||
        qh_fail "$3 changed what the links carried (the same latencies): $(parting "$1" "$2")"
}
# on_time ID: neither host of run ID handled a message after its vCPU had
# passed it (late_messages), got one stamped before where the links had
# let it go (bound_breaks), nor stopped past its horizon
# (horizon_overruns; docs/hosts.md "Time").
on_time() {
    local h
    for h in client server; do
        [ "$(host_stat "$1" $h late_messages)" = 0 ] ||
            qh_fail "run $1: host $h handled $(host_stat "$1" $h late_messages) messages after its vCPU had passed them (late_messages)"
        [ "$(host_stat "$1" $h bound_breaks)" = 0 ] ||
            qh_fail "run $1: host $h got $(host_stat "$1" $h bound_breaks) messages stamped before where the links had let it go (bound_breaks): $(grep -h 'mortar: link' "$(sqlite3 "$DB" "select run_dir from runs where id=$1")/$h.qemu.log")"
        [ "$(host_stat "$1" $h horizon_overruns)" = 0 ] ||
            qh_fail "run $1: host $h stopped $(host_stat "$1" $h horizon_overruns) times past its vCPU's horizon (horizon_overruns; its QEMU log shows the hub's last steps)"
    done
}
on_time "$B1"
on_time "$B2"
on_time "$B3"
same_fingerprint "$B1" "$B2" "lookahead promises, skipping, whole blocks or I/O blocks"
same_fingerprint "$B1" "$B3" "tracing, extra stops or bounds held back"
[ "$(host_stat "$B1" server 'digest.links[] | select(.link == "accel") | .messages_received')" -gt 0 ] ||
    qh_fail "the server's fingerprint holds no message from the accelerator"
echo "design b: the same messages on every link in the 3 runs (fingerprints)"
[ "$(host_stat "$B1" server spin_skips)" -gt 0 ] && [ "$(host_stat "$B1" server spin_skipped_ps)" -gt 0 ] ||
    qh_fail "the server skipped none of its wait on the record (spin_skips $(host_stat "$B1" server spin_skips))"
[ "$(host_stat "$B2" server spin_skips)" = 0 ] ||
    qh_fail "\"skip_spin\": false did not turn skipping off"
echo "design b: the server skipped $(host_stat "$B1" server spin_skipped_ps) ps of its waits in $(host_stat "$B1" server spin_skips) skips"
[ "$(host_stat "$B1" server spin_reads_served)" -gt 0 ] ||
    qh_fail "the server answered none of the accelerator's reads while waiting (spin_reads_served)"
[ "$(host_stat "$B2" server spin_reads_served)" = 0 ] ||
    qh_fail "\"skip_spin\": false did not stop the reads answered while waiting"
echo "design b: the server answered $(host_stat "$B1" server spin_reads_served) of the accelerator's reads while waiting"
# counted_then_off STAT WHAT SWITCH: both hosts counted some STAT (WHAT)
# in b1, and none in b2, which ran with SWITCH.
counted_then_off() {
    local stat=$1 what=$2 switch=$3 h
    for h in client server; do
        [ "$(host_stat "$B1" $h $stat)" -gt 0 ] || qh_fail "host $h had no $what ($stat)"
        [ "$(host_stat "$B2" $h $stat)" = 0 ] || qh_fail "host $h: $switch did not turn $what off"
    done
    echo "design b: $what: client $(host_stat "$B1" client $stat), server $(host_stat "$B1" server $stat); none with $switch"
}
counted_then_off blocks_whole "translation blocks run whole past a horizon" MORTAR_WHOLE_BLOCKS=0
counted_then_off io_insns_apart "I/O instructions in blocks of their own" MORTAR_IO_BLOCKS=0
[ "$(host_stat "$B3" client services)" -gt $((3 * $(host_stat "$B1" client services))) ] ||
    qh_fail "MORTAR_STOP_JITTER=50 did not stop the client more often (services $(host_stat "$B3" client services) against $(host_stat "$B1" client services))"
echo "design b: the client's hub served its link $(host_stat "$B1" client services) times, $(host_stat "$B3" client services) with MORTAR_STOP_JITTER=50"
[ "$(host_stat "$B3" client mmio_reads_held)" -lt "$(host_stat "$B1" client mmio_reads_held)" ] ||
    qh_fail "MORTAR_BOUND_JITTER=1 did not answer fewer of the client's reads from holds ($(host_stat "$B3" client mmio_reads_held) against $(host_stat "$B1" client mmio_reads_held))"
echo "design b: the client answered $(host_stat "$B1" client mmio_reads_held) reads from holds, $(host_stat "$B3" client mmio_reads_held) with MORTAR_BOUND_JITTER=1"
# host_profile ID HOST FIELD: a field of the host's wall-clock profile.
host_profile() {
    "$MORTAR" profile "$1" --db "$DB" --json |
        jq -r --arg h "$2" ".processes[] | select(.name == \$h) | .host.profile.$3"
}
for h in client server; do
    [ "$(host_profile "$B1" $h enabled)" = true ] && [ "$(host_profile "$B1" $h wall_ns)" -gt 0 ] ||
        qh_fail "host $h recorded no wall-clock profile"
    [ "$(host_profile "$B1" $h links[0].peer)" != null ] ||
        qh_fail "host $h: its profile's link names no peer"
    [ "$(host_profile "$B2" $h enabled)" = false ] ||
        qh_fail "host $h measured wall time with MORTAR_PROFILE=0"
done

# 2. The traced run's files, and its export.
dir=$(sqlite3 "$DB" "select run_dir from runs where id=$B3")
for f in client.trace server.trace sim0.trace switch.pcap; do
    [ -s "$dir/$f" ] || qh_fail "the traced run has no $f"
done
# The switch's frames open in Wireshark's reader, and hold the requests.
frames=$(tshark -r "$dir/switch.pcap" -Y 'tcp.port == 7000' 2>"$QH_DIR/tshark.err" | wc -l)
[ "$frames" -gt 0 ] ||
    qh_fail "tshark finds no matmul frames in switch.pcap: $(head -c 300 "$QH_DIR/tshark.err")"
echo "switch.pcap: $frames frames of the matmul connection (tshark)"
# Through the study's own dissector (mortar dissector): every request and
# reply decoded, each multiply answered ok, nothing malformed (port 7000 is
# registered to another protocol, whose decoder called 49 frames malformed).
"$MORTAR" dissector --study "$SPECS/study.json" -o "$QH_DIR/matmul.lua" ||
    qh_fail "mortar dissector failed"
wire() {
    tshark -X "lua_script:$QH_DIR/matmul.lua" -r "$dir/switch.pcap" "$@" 2>>"$QH_DIR/tshark.err"
}
malformed=$(wire -Y '_ws.malformed || _ws.expert.severity == error' | wc -l)
[ "$malformed" -eq 0 ] || qh_fail "$malformed frames of switch.pcap malformed with the dissector"
count() { wire -Y "$1" -T fields -e "$2" | tr ',' '\n' | grep -cx "$3"; }
asked=$(count mortar_matmul.request mortar_matmul.request.type 1)
answered=$(count mortar_matmul.response mortar_matmul.response.status 0)
recorded=$(sqlite3 "$DB" "select count(*) from requests where run_id=$B3")
[ "$asked" -ge "$recorded" ] && [ "$answered" -eq "$asked" ] ||
    qh_fail "the dissector decodes $asked multiply requests and $answered ok replies ($recorded recorded)"
echo "switch.pcap through the dissector: $asked requests, $answered replies, none malformed"
# Its clock is the run's: simulated time 0 is started_at (docs/traces.md).
started=$(sqlite3 "$DB" "select strftime('%s', started_at) from runs where id=$B3")
first=$(tshark -r "$dir/switch.pcap" -c 1 -T fields -e frame.time_epoch 2>/dev/null | cut -d. -f1)
[ -n "$first" ] && [ "$first" -ge "$started" ] && [ "$first" -lt $((started + 86400)) ] ||
    qh_fail "the pcap's first frame ($first) is not on the run's clock (started at $started)"
if "$MORTAR" trace "$B3" --db "$DB" --format perfetto --output "$QH_DIR/b3.perfetto.json" \
    2>"$QH_DIR/trace.err"; then
    formats=$QH_SOURCE/tests/trace_formats
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any("bind_id" in e for e in d["traceEvents"])' \
        "$QH_DIR/b3.perfetto.json" || qh_fail "the Perfetto export has no arrows"
    /usr/bin/python3 "$formats/check_perfetto.py" "$QH_DIR/b3.perfetto.json" ||
        qh_fail "the Perfetto export breaks Perfetto's importer rules"
    "$MORTAR" trace "$B3" --db "$DB" --format otlp -o "$QH_DIR/b3.otlp.json" ||
        qh_fail "the OTLP export failed"
    protoc --proto_path="$formats" --python_out="$QH_DIR" "$formats/otlp_trace.proto" &&
        /usr/bin/python3 "$formats/check_otlp.py" "$QH_DIR" "$QH_DIR/b3.otlp.json" ||
        qh_fail "the OTLP export is not a valid OTLP trace request"
    "$MORTAR" results --db "$DB" --csv >"$QH_DIR/results.csv" || qh_fail "results --csv failed"
    [ "$(wc -l <"$QH_DIR/results.csv")" -eq 4 ] || qh_fail "results --csv: not a header and 3 runs"
    "$MORTAR" results --db "$DB" --json --requests |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["schema_version"] == 2; assert len(d["runs"][0]["requests"]) == 3' ||
        qh_fail "results --json --requests has no schema version or not the requests"
else
    qh_fail "mortar trace failed: $(cat "$QH_DIR/trace.err")"
fi

# 3. The other backends, one measured request each. Design A and the
# register copy poll device registers: while the server's vCPU is stalled
# in such a read the host promises its peers (stall_promises), and without
# promises (MORTAR_PROMISES=0) the latencies are the same. The device holds
# what it will not change before its next event, and the host answers
# later reads from it (mmio_reads_held, docs/hosts.md "Held reads"); with
# skipping off (the hosts' "skip_spin": false) it answers none, and the
# latencies are the same.

# off_matches NAME STAT WHAT [ARGS...]: one measured request of $spec (run
# with ARGS, and whatever the caller's environment turns off): the same
# latency as run $on, and none of the server's STAT, of which $on had some.
off_matches() {
    local name=$1 stat=$2 what=$3
    shift 3
    run $name $spec --set requests=1 --set warmup=0 "$@" ||
        qh_fail "$name failed: $(tail -n 5 "$QH_DIR/$name.err")"
    expect_ok $name 1
    [ "$(latencies "$on")" = "$(latencies "$RUN_ID")" ] ||
        qh_fail "$backend: $what changed the latencies: $(latencies "$on") vs $(latencies "$RUN_ID")"
    same_fingerprint "$on" "$RUN_ID" "$backend: $what"
    [ "$(host_stat "$on" server $stat)" -gt 0 ] ||
        qh_fail "$backend: the server had no $stat ($what)"
    [ "$(host_stat "$RUN_ID" server $stat)" = 0 ] ||
        qh_fail "$backend: $name still had $stat: $what were not turned off"
    echo "$backend: $stat $(host_stat "$on" server $stat) ($what; $(host_stat "$on" server mmio_reads) MMIO reads), the same latency without"
}
for backend in a regcopy; do
    spec=design-$backend.json
    run $backend $spec --set requests=1 --set warmup=0 ||
        qh_fail "$backend failed: $(tail -n 5 "$QH_DIR/$backend.err")"
    expect_ok $backend 1
    on=$RUN_ID
    on_time "$on"
    # The client has only its NIC: the driver's NVM reads at probe are held.
    [ "$(host_stat "$on" client mmio_reads_held)" -gt 0 ] ||
        qh_fail "$backend: the client answered no read from its NIC's hold"
    MORTAR_PROMISES=0 off_matches $backend-plain stall_promises \
        "promises while stalled in an MMIO read"
    off_matches $backend-unheld mmio_reads_held "reads answered from the device's hold" \
        --set hosts.0.skip_spin=false --set hosts.1.skip_spin=false
done
run software software.json --set requests=1 --set warmup=0 ||
    qh_fail "software failed: $(tail -n 5 "$QH_DIR/software.err")"
expect_ok software 1

# 4. The int32 variant: both programs told so, products verified, and the
# 1 MiB replies take longer than the 256 KiB int8 ones.
console() {
    echo "$(sqlite3 "$DB" "select run_dir from runs where id=$1")/server.console.log"
}
grep -q 'listening .* result=int8' "$(console "$B1")" ||
    qh_fail "the default run's server does not return int8 products"
run b-int32 design-b.json --set requests=1 --set warmup=0 --set result=int32 ||
    qh_fail "design b with result=int32 failed: $(tail -n 5 "$QH_DIR/b-int32.err")"
expect_ok b-int32 1
grep -q 'listening .* result=int32' "$(console "$RUN_ID")" ||
    qh_fail "result=int32 did not reach the server"
lat32=$(latencies "$RUN_ID" | cut -d'|' -f2)
lat8=$(latencies "$B1" | cut -d'|' -f2 | sort -n | tail -n 1)
[ "$lat32" -gt "$lat8" ] ||
    qh_fail "an int32 reply ($lat32 ns) is not slower than the int8 ones (up to $lat8 ns)"
echo "result=int32: verified, $lat32 ns (int8: up to $lat8 ns)"

# 5. A device that computes wrong products fails the run.
if run wrong design-a.json --set requests=1 --set warmup=0 --set components.3.params.corrupt=true; then
    qh_fail "a run with wrong products succeeded"
fi
[ "$(sqlite3 "$DB" "select status from runs where id=$RUN_ID")" = failed ] ||
    qh_fail "the run with wrong products is not recorded as failed"
grep -Eq "WRONG|verified" "$QH_DIR/wrong.err" || qh_fail "the failure does not say the products were wrong: $(tail -n 3 "$QH_DIR/wrong.err")"
# 6. The client's NIC in a mortar-sim process of its own: the run ends once
# both hosts are gone (each simulator then waits only on the other, which
# promised never to send again), with design B's latencies of section 1.
run b-split design-b.json --set requests=3 --set warmup=1 --set components.0.process=sim1 \
    --stall-timeout 60 || qh_fail "design b with two simulators failed: $(tail -n 5 "$QH_DIR/b-split.err")"
expect_ok b-split 3
[ "$(latencies "$B1")" = "$(latencies "$RUN_ID")" ] ||
    qh_fail "a second simulator process changed the latencies: $(latencies "$RUN_ID" | tr '\n' ' ')"
same_fingerprint "$B1" "$RUN_ID" "a second simulator process"
echo "design b with the client's NIC in sim1: the same latencies"
# 7. With two requests in the ring the server alternates poll() and 20 us waits
# ended by an interval timer: the timer takes the vCPU out of its wait
# without a message, and a host still promising then sent early (the NIC's
# model refused the message). The same latencies with skipping and without.
run b4 design-b.json --set requests=8 --set warmup=1 --set inflight=2 ||
    qh_fail "b4 (two in flight) failed: $(tail -n 3 "$QH_DIR/b4.err")"
expect_ok b4 8
B4=$RUN_ID
run b5 design-b.json --set requests=8 --set warmup=1 --set inflight=2 \
    --set hosts.0.skip_spin=false --set hosts.1.skip_spin=false || qh_fail "b5 failed"
B5=$RUN_ID
[ "$(latencies "$B4")" = "$(latencies "$B5")" ] ||
    qh_fail "skipping changed the latencies with two in flight: $(latencies "$B4" | tr '\n' ' ') vs $(latencies "$RUN_ID" | tr '\n' ' ')"
[ "$(host_stat "$B4" server spin_skips)" -gt 0 ] || qh_fail "two in flight: the server skipped nothing"
same_fingerprint "$B4" "$B5" "skipping, with two in flight,"

echo "design b with two in flight: the same latencies with skipping and without"
echo "PASS: every backend verified, deterministic, tracing changes nothing, wrong products fail, two simulators agree with one"
