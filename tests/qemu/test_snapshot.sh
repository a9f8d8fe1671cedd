#!/usr/bin/env bash
# Booted-guest snapshots (docs/snapshots.md) with `mortar run` on the
# pcitest example: the first run builds the host's snapshot; a second run
# starts from it and gives identical results (per-read, DMA and interrupt
# figures, the common start, the guest's uptime at each setup step; not
# the virtual time at exit: QEMU's shutdown runs after the links ended, on
# the wall clock's schedule, in any run); a cold boot measures the same
# again; a command of more than 2 KB reaches the guest whole;
# another memory size gets another snapshot.
source "$(dirname "$0")/harness.sh"
qh_init snapshot
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
export MORTAR_BIN=$QH_BIN MORTAR_SNAPSHOTS=$QH_DIR/snapshots
DB=$QH_DIR/results.db

# A 2,200-character word (440 numbers of 5 digits) inside a 2.3 KB command.
LONG=$(seq 10000 10439 | tr -d '\n')
RUN="echo LONG=$LONG; mortar-pcitest mmio-timing 200 && mortar-pcitest dma-irq"
[ ${#RUN} -gt 2048 ] || qh_fail "the test's command is only ${#RUN} bytes"

# run NAME [ARGS...]: one run into $DB; its directory in $DIR.
run() {
    local name=$1
    shift
    "$MORTAR" run "$QH_SOURCE/experiments/examples/pcitest.json" --set "hosts.0.run=$RUN" \
        --db "$DB" --out "$QH_DIR/runs" "$@" >"$QH_DIR/$name.out" 2>"$QH_DIR/$name.err" ||
        qh_fail "run $name failed: $(tail -n 5 "$QH_DIR/$name.err")"
    DIR=$(sqlite3 "$DB" "select run_dir from runs where id=(select max(id) from runs)")
}

# results DIR: what the run measured, when its steps ended (guest uptime)
# and where its synchronized clock started.
results() {
    tr -d '\r' <"$1/h0.console.log" | grep -E '^(reads|dma_bytes)=|^MORTAR-(READY|SYNC|STEP)'
    sed -n 's/.*"sync_start_ps": \([0-9]*\).*/start=\1/p' "$1/h0.host.json"
}

expect_long_command() {
    [ "$(tr -d '\r' <"$1/h0.console.log" | sed -n 's/^LONG=//p')" = "$LONG" ] ||
        qh_fail "$2: the ${#RUN}-byte command did not arrive whole"
}

key_of() { sed -n 's/.*host h0: snapshot \([0-9a-f]*\) .*/\1/p' "$QH_DIR/$1.err"; }

run first
grep -q "snapshot .* (to build)" "$QH_DIR/first.err" || qh_fail "the first run built no snapshot"
[ -s "$MORTAR_SNAPSHOTS/$(key_of first).vm" ] || qh_fail "no snapshot file $(key_of first).vm"
FIRST=$DIR
expect_long_command "$FIRST" first
[ "$(results "$FIRST" | grep -cE '^(reads|dma_bytes|start)=')" = 3 ] || qh_fail "the first run measured nothing: $(results "$FIRST")"

run second
grep -q "snapshot $(key_of first) (cached)" "$QH_DIR/second.err" ||
    qh_fail "the second run did not start from the first one's snapshot"
grep -q "building booted-guest snapshots" "$QH_DIR/second.err" && qh_fail "the second run built again"
expect_long_command "$DIR" second
[ "$(results "$FIRST")" = "$(results "$DIR")" ] ||
    qh_fail "two runs from one snapshot differ: $(results "$FIRST") vs $(results "$DIR")"
echo "two runs from one snapshot: identical ($(results "$DIR" | tr '\n' ' '))"

# A cold boot measures the same. Its common start is the snapshot runs'
# unless this boot and the one that built the snapshot took different
# paths to the snapshot point (docs/snapshots.md, "Determinism"); then the
# guest's timer tick can fall into a measured loop elsewhere: the slowest
# read (max_ns), the untimed batch (total_ns, per_read_ns) and the guest's
# waits for an interrupt (*_wait_ns: a 64 KiB DMA at the link's rate takes
# 21 us, long enough for a tick to land in it; once 22113 against 22114 ns)
# may differ. Everything else must be identical, the device's own DMA times
# (write_dma_ns, read_dma_ns) included.
measured() {
    results "$1" | grep -E '^(reads|dma_bytes)=' |
        sed 's/ max_ns=[0-9]*//; s/ total_ns=[0-9]*//; s/ per_read_ns=[0-9]*//;
             s/ [a-z_]*_wait_ns=[0-9]*//g'
}
run cold --cold-boot
grep -q "snapshot [0-9a-f]" "$QH_DIR/cold.err" && qh_fail "the cold boot used a snapshot"
expect_long_command "$DIR" cold
[ "$(measured "$FIRST")" = "$(measured "$DIR")" ] ||
    qh_fail "a cold boot measures otherwise: $(measured "$DIR") vs $(measured "$FIRST")"
max_of() { results "$1" | grep -oE '(total|max)_ns=[0-9]*' | tr '\n' ' '; }
echo "batch and slowest read: snapshot runs $(max_of "$FIRST"), cold boot $(max_of "$DIR")"
echo "cold boot: identical results; common start $(results "$DIR" | grep start=)" \
    "(from the snapshot: $(results "$FIRST" | grep start=))"

run memory --set hosts.0.memory_mib=320
[ -n "$(key_of memory)" ] && [ "$(key_of memory)" != "$(key_of first)" ] ||
    qh_fail "memory_mib=320 did not change the snapshot key ($(key_of memory))"
grep -q "(to build)" "$QH_DIR/memory.err" || qh_fail "memory_mib=320 built no snapshot"
[ "$(ls "$MORTAR_SNAPSHOTS"/*.vm | wc -l)" = 2 ] || qh_fail "expected two snapshots"
echo "PASS: snapshot runs are identical to each other and to a cold boot"
