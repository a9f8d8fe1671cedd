#!/usr/bin/env bash
# bench-sweep: how many runs at a time a sweep should start on this machine
# (mortar sweep --jobs), printed as key=value.
#
#   sweep_runs                   the sweep's points
#   sweep_wall_s_jobs<N>         wall seconds of the whole sweep with --jobs N
#                                (a fresh database; snapshots built before)
#   runs_per_hour_jobs<N>        points per wall hour
#   speedup_jobs<N>              --jobs 1's wall / --jobs N's
#   same_results_jobs<N>         1 when every point's mean, median and p99
#                                equal those of the --jobs 1 sweep
#   best_jobs                    the N with the least wall time
#
# SWEEP=file (default studies/matmul/experiments/sweep-quick.json: 4 runs of two
# QEMU hosts and a mortar-sim each), JOBS="1 2 3" (the counts compared),
# ROUNDS=N (default 1; rounds alternate the order of the counts so both
# ends see the same machine; the figures are the medians). First a warm-up
# sweep (--jobs 2, not counted) builds every host configuration's
# snapshot, so no count pays for booting. Not a test. Needs `make setup`
# and `make`; takes about ROUNDS x (number of counts) + 1 sweeps.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SOURCE=${MORTAR_SOURCE:-$(cd "$here/../.." && pwd)}
MORTAR_SOURCE=$SOURCE source "$SOURCE/bench/options.sh"
MORTAR_SOURCE=$SOURCE bench_options bench-sweep "$0" "$@"
BIN=${MORTAR_BIN:-$here}
SWEEP=${SWEEP:-$SOURCE/studies/matmul/experiments/sweep-quick.json}
JOBS=${JOBS:-"1 2 3"}
ROUNDS=${ROUNDS:-1}

die() { echo "bench-sweep: $*" >&2; exit 1; }
[ -x "$BIN/mortar" ] || die "no $BIN/mortar: run make first"
[ -f "$SWEEP" ] || die "SWEEP=$SWEEP: no such file"
command -v jq >/dev/null || die "jq is needed (make setup installs it)"
for n in $JOBS; do
    case $n in '' | *[!0-9]*) die "JOBS='$JOBS': whole numbers from 1" ;; esac
    [ "$n" -ge 1 ] || die "JOBS='$JOBS': whole numbers from 1"
done
case $ROUNDS in '' | *[!0-9]* | 0) die "ROUNDS=$ROUNDS: a whole number from 1" ;; esac
work=$(mktemp -d /tmp/mortar-bench-sweep.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MORTAR_SOURCE=$SOURCE MORTAR_BIN=$BIN

# sweep TAG JOBS [ARGS...]: the sweep into its own database; prints its wall
# seconds.
sweep() {
    local tag=$1 jobs=$2
    shift 2
    local start end
    start=$(date +%s.%N)
    "$BIN/mortar" sweep "$SWEEP" --jobs "$jobs" --no-trace --db "$work/$tag.db" \
        --out "$work/runs-$tag" "$@" >"$work/$tag.out" 2>"$work/$tag.err" ||
        die "the sweep $tag (--jobs $jobs) failed: $(tail -n 3 "$work/$tag.err")"
    end=$(date +%s.%N)
    echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }'
}

# results TAG: one line per ok point: name, variables, mean, median, p99.
results() {
    "$BIN/mortar" results --db "$work/$1.db" --json |
        jq -r '.runs[] | select(.status == "ok") |
               [.name, (.vars | tojson), .summary.mean_us, .summary.median_us, .summary.p99_us] | @tsv' |
        sort
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench-sweep: warm-up (every host configuration's snapshot)" >&2
sweep warmup 2 >/dev/null
points=$(results warmup | wc -l)
echo "sweep_runs=$points"

order=$JOBS
for ((r = 1; r <= ROUNDS; r++)); do
    for n in $order; do
        echo "bench-sweep: round $r, --jobs $n" >&2
        wall=$(sweep "r$r-j$n" "$n")
        echo "round${r}_sweep_wall_s_jobs$n=$wall"
        echo "$wall" >>"$work/wall-$n"
        [ "$(results "r$r-j$n" | wc -l)" = "$points" ] ||
            die "--jobs $n: $(results "r$r-j$n" | wc -l) of $points points ok"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
done

first=$(echo "$JOBS" | awk '{ print $1 }')
best= best_wall=
for n in $JOBS; do
    wall=$(median <"$work/wall-$n")
    echo "sweep_wall_s_jobs$n=$wall"
    awk -v p="$points" -v w="$wall" 'BEGIN { printf "runs_per_hour_jobs'"$n"'=%.1f\n", p * 3600 / w }'
    awk -v a="$(median <"$work/wall-$first")" -v b="$wall" \
        'BEGIN { printf "speedup_jobs'"$n"'=%.2f\n", a / b }'
    same=1
    for ((r = 1; r <= ROUNDS; r++)); do
        [ "$(results "r$r-j$n")" = "$(results "r1-j$first")" ] || same=0
    done
    echo "same_results_jobs$n=$same"
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
        best=$n best_wall=$wall
    fi
done
echo "best_jobs=$best"
