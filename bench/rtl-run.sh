#!/usr/bin/env bash
# bench-rtl-run: what design B in RTL costs against the behavioural model,
# printed as key=value (studies/matmul/docs/rtl-matmul.md, "In the case study").
#
#   alone_wall_s_<d>      `mortar-matmul-alone --design <d> --speed 1` (d = b, rtl_b):
#                         wall seconds of one 512 x 512 request alone
#   alone_cycles_per_wall_s
#                         rtl-b alone: its service time in 400 MHz cycles
#                         (the edges of the request) per wall second
#   run_wall_s_<d>        `mortar run` of design-b.json and design-rtl-b.json
#                         at PCIe latency LATENCY (default 0.5us), REQUESTS
#                         (default 3) requests after one warm-up, one after
#                         the other in this invocation: wall seconds, boot
#                         included
#   run_sync_wall_s_<d>   the same after both hosts synchronized (the
#                         requests; no boot, no snapshot build)
#   run_median_us_<d>     each run's median end-to-end latency
#   run_cycles_per_wall_s the rtl-b run: edges the adapter evaluated (its
#                         `edges` stat) per wall second of the run after
#                         both hosts synchronized (the block under load)
#   rtl_cost_ratio        run_wall_s_rtl_b / run_wall_s_b (goal: at most 3)
#   rtl_sync_cost_ratio   run_sync_wall_s_rtl_b / run_sync_wall_s_b: the
#                         same without boot (a snapshot built for one run
#                         and not the other skews the first ratio)
#
# Not a test. Needs `make setup` (QEMU, guest image) and `make`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SOURCE=${MORTAR_SOURCE:-$(cd "$here/../.." && pwd)}
MORTAR_SOURCE=$SOURCE source "$SOURCE/bench/options.sh"
MORTAR_SOURCE=$SOURCE bench_options bench-rtl-run "$0" "$@"
BIN=${MORTAR_BIN:-$here}
REQUESTS=${REQUESTS:-3}
LATENCY=${LATENCY:-0.5us}

die() { echo "bench-rtl-run: $*" >&2; exit 1; }
[ -x "$BIN/mortar" ] || die "no $BIN/mortar: run make first"
work=$(mktemp -d /tmp/mortar-bench-rtl-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

# alone DESIGN KEY: wall seconds of one alone request; its output in $work/KEY.alone.
alone() {
    local t0 t1
    t0=$(now)
    "$BIN/mortar-matmul-alone" --design "$1" --speed 1 >"$work/$2.alone" 2>&1 ||
        die "mortar-matmul-alone --design $1 failed: $(tail -n 3 "$work/$2.alone")"
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}

for d in b rtl-b; do
    echo "alone_wall_s_${d//-/_}=$(alone "$d" "${d//-/_}")"
done
wall=$(alone rtl-b rtl_b)
service_us=$(sed -n 's/^service_us=//p' "$work/rtl_b.alone")
awk -v us="$service_us" -v w="$wall" 'BEGIN { printf "alone_cycles_per_wall_s=%.0f\n", us * 400 / w }'

DB=$work/runs.db
# run SPEC KEY: one run into $DB.
run() {
    echo "bench-rtl-run: $1 at $LATENCY" >&2
    MORTAR_BIN=$BIN "$BIN/mortar" run "$SOURCE/studies/matmul/experiments/$1" \
        --set pcie.latency="$LATENCY" --set requests="$REQUESTS" --set warmup=1 \
        --db "$DB" --out "$work/runs" >"$work/$2.out" 2>"$work/$2.err" ||
        die "$1 failed: $(tail -n 3 "$work/$2.err")"
    local id boot
    id=$(sqlite3 "$DB" "select max(id) from runs")
    boot=$(sed -n 's/.*synchronized at the common start after \([0-9.]*\) s.*/\1/p' "$work/$2.err")
    sqlite3 -separator ' ' "$DB" "select wall_s, median_us from runs where id=$id" |
        awk -v k="$2" -v boot="${boot:-0}" '{ printf "run_wall_s_%s=%.2f\nrun_sync_wall_s_%s=%.2f\nrun_median_us_%s=%.1f\n", k, $1, k, $1 - boot, k, $2 }'
    if [ "$2" = rtl_b ]; then
        local edges
        edges=$(sqlite3 "$DB" "select value from stats where run_id=$id and component='accel' and key='edges'")
        sqlite3 "$DB" "select wall_s from runs where id=$id" |
            awk -v e="${edges:-0}" -v boot="${boot:-0}" \
                '{ printf "run_cycles_per_wall_s=%.0f\n", ($1 > boot) ? e / ($1 - boot) : 0 }'
    fi
}
run design-b.json b | tee "$work/b.kv"
run design-rtl-b.json rtl_b | tee "$work/rtl_b.kv"
awk -F= '/^run_(sync_)?wall_s_/ { w[$1] = $2 }
    END { printf "rtl_cost_ratio=%.2f\nrtl_sync_cost_ratio=%.2f\n", w["run_wall_s_rtl_b"] / w["run_wall_s_b"],
          w["run_sync_wall_s_rtl_b"] / w["run_sync_wall_s_b"] }' \
    "$work/b.kv" "$work/rtl_b.kv"
