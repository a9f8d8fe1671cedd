#!/usr/bin/env bash
# bench-run: what one case-study run costs in wall time, printed as key=value.
#
#   run_wall_s_<L>        `mortar run` of design B (studies/matmul/experiments; DESIGN=a,
#                         regcopy or software for another) at
#                         PCIe latency L (0.5us, 2.5us), REQUESTS requests
#                         after one warm-up: wall seconds, boot included
#   run_sim_us_per_wall_s_<L>
#                         the synchronized phase: simulated microseconds of
#                         the later host per wall second
#   run_median_us_<L>     the run's median end-to-end latency
#
#   rounds_wall_s_<L>     every round's run_wall_s, comma-separated
#   run_cost_ratio        run_wall_s at the first latency / at the last
#                         (the issue's "a run at 0.5 us costs at most 1.3x
#                         one at 2.5 us")
#
# BASELINE=DIR (another mortar checkout, built with `make` and `make setup`)
# runs the same runs with that tree's mortar, QEMU, mortar-sim, spec and
# guest programs, alternating with this tree's so both see the same machine
# load, and adds
#
#   baseline_run_wall_s_<L>, baseline_run_sim_us_per_wall_s_<L>,
#   baseline_run_median_us_<L>
#   speedup_<L>           baseline wall / this tree's wall
#   rate_speedup_<L>      this tree's synchronized-phase rate / the baseline's
#   same_median_<L>       1 when both trees measured the same median
#
# ROUNDS=N repeats everything (default 1; the figures are the medians). A
# round runs every latency, this tree then the baseline, so slow minutes of
# a busy machine fall on both.
# Not a test. Needs `make setup` (QEMU, guest image) and `make`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SOURCE=${MORTAR_SOURCE:-$(cd "$here/../.." && pwd)}
MORTAR_SOURCE=$SOURCE source "$SOURCE/bench/options.sh"
MORTAR_SOURCE=$SOURCE bench_options bench-run "$0" "$@"
BIN=${MORTAR_BIN:-$here}
REQUESTS=${REQUESTS:-10}
ROUNDS=${ROUNDS:-1}
LATENCIES=${LATENCIES:-"0.5us 2.5us"}
DESIGN=${DESIGN:-b}
BASELINE=${BASELINE:-}

die() { echo "bench-run: $*" >&2; exit 1; }
[ -x "$BIN/mortar" ] || die "no $BIN/mortar: run make first"
case $DESIGN in
a | b | regcopy) SPEC=design-$DESIGN.json ;;
software) SPEC=software.json ;;
*) die "DESIGN=$DESIGN: one of a, b, regcopy, software" ;;
esac
if [ -n "$BASELINE" ]; then
    BASELINE=$(cd "$BASELINE" 2>/dev/null && pwd) || die "BASELINE=$BASELINE: no such directory"
    [ -x "$BASELINE/build/bin/mortar" ] ||
        die "BASELINE=$BASELINE has no build/bin/mortar: run make there first"
fi
work=$(mktemp -d /tmp/mortar-bench-run.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run TREE BIN TAG LATENCY: one run; prints "wall median sim_us_per_wall_s".
run() {
    local tree=$1 bin=$2 tag=$3 lat=$4 db=$work/$3.db
    MORTAR_SOURCE=$tree MORTAR_BIN=$bin MORTAR_GUEST_BIN=$tree/build/guest-bin \
        "$bin/mortar" run "$tree/studies/matmul/experiments/$SPEC" \
        --set pcie.latency="$lat" --set requests="$REQUESTS" --set warmup=1 \
        --db "$db" --out "$work/runs-$tag" >"$work/$tag.out" 2>"$work/$tag.err" ||
        die "$tag run at $lat failed: $(tail -n 3 "$work/$tag.err")"
    local id
    id=$(sqlite3 "$db" "select max(id) from runs")
    local dir
    dir=$(sqlite3 "$db" "select run_dir from runs where id=$id")
    # the later host's synchronized phase, against the run's wall time
    # after both hosts synchronized
    local sim_us
    sim_us=$(cat "$dir"/*.host.json 2>/dev/null |
        sed -n 's/.*"virtual_time_ps": \([0-9]*\), "sync_start_ps": \([0-9]*\).*/\1 \2/p' |
        awk '{ d = ($1 - $2) / 1e6; if (d > m) m = d } END { printf "%.0f", m }')
    local boot
    boot=$(sed -n 's/.*synchronized after \([0-9.]*\) s.*/\1/p' "$work/$tag.err")
    sqlite3 -separator ' ' "$db" "select wall_s, median_us from runs where id=$id" |
        awk -v us="$sim_us" -v boot="${boot:-0}" \
            '{ printf "%.2f %.1f %.0f\n", $1, $2, (us > 0 && $1 > boot) ? us / ($1 - boot) : 0 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for lat in $LATENCIES; do
    key=${lat//./_}
    : >"$work/this-$key" >"$work/base-$key"
done
for ((r = 1; r <= ROUNDS; r++)); do
    for lat in $LATENCIES; do
        key=${lat//./_}
        echo "bench-run: round $r/$ROUNDS at $lat" >&2
        run "$SOURCE" "$BIN" "this-$key-$r" "$lat" >>"$work/this-$key"
        [ -z "$BASELINE" ] ||
            run "$BASELINE" "$BASELINE/build/bin" "base-$key-$r" "$lat" >>"$work/base-$key"
    done
done

# field K of FILE's lines, their median
field_median() { cut -d' ' -f"$1" "$2" | median; }

first= last=
for lat in $LATENCIES; do
    key=${lat//./_}
    wall=$(field_median 1 "$work/this-$key")
    rate=$(field_median 3 "$work/this-$key")
    echo "run_wall_s_$key=$wall"
    echo "run_sim_us_per_wall_s_$key=$rate"
    med=$(cut -d' ' -f2 "$work/this-$key" | head -n 1)
    echo "run_median_us_$key=$med"
    echo "rounds_wall_s_$key=$(cut -d' ' -f1 "$work/this-$key" | paste -sd,)"
    [ -n "$first" ] || first=$wall
    last=$wall
    if [ -n "$BASELINE" ]; then
        bwall=$(field_median 1 "$work/base-$key")
        brate=$(field_median 3 "$work/base-$key")
        bmed=$(cut -d' ' -f2 "$work/base-$key" | head -n 1)
        echo "baseline_run_wall_s_$key=$bwall"
        echo "baseline_run_sim_us_per_wall_s_$key=$brate"
        echo "baseline_run_median_us_$key=$bmed"
        echo "baseline_rounds_wall_s_$key=$(cut -d' ' -f1 "$work/base-$key" | paste -sd,)"
        awk -v a="$bwall" -v b="$wall" 'BEGIN { printf "speedup_%s=%.2f\n", "'"$key"'", a / b }'
        awk -v a="$rate" -v b="$brate" \
            'BEGIN { printf "rate_speedup_%s=%.2f\n", "'"$key"'", (b > 0) ? a / b : 0 }'
        echo "same_median_$key=$([ "$med" = "$bmed" ] && echo 1 || echo 0)"
    fi
done
awk -v a="$first" -v b="$last" 'BEGIN { printf "run_cost_ratio=%.2f\n", a / b }'
