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
# With KEEP="0 1" every count runs twice, without and with kept hosts
# (MORTAR_KEEP_HOSTS, docs/snapshots.md "Kept hosts"), and the keys above
# end in _keep0 and _keep1 (same_results compares with the first count's
# keep0 sweep), plus
#   kept_speedup_jobs<N>         keep0's wall / keep1's
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
KEEP=${KEEP:-}
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
case $KEEP in '' | 0 | 1 | "0 1" | "1 0") ;; *) die "KEEP='$KEEP': 0, 1 or \"0 1\"" ;; esac
work=$(mktemp -d /tmp/mortar-bench-sweep.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MORTAR_SOURCE=$SOURCE MORTAR_BIN=$BIN

# sweep TAG JOBS KEEP [ARGS...]: the sweep into its own database (KEEP: the
# MORTAR_KEEP_HOSTS value, empty for the default); prints its wall seconds.
sweep() {
    local tag=$1 jobs=$2 keep=$3
    shift 3
    local start end
    start=$(date +%s.%N)
    MORTAR_KEEP_HOSTS=${keep:-${MORTAR_KEEP_HOSTS:-}} \
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
sweep warmup 2 "" >/dev/null
points=$(results warmup | wc -l)
echo "sweep_runs=$points"

# The configurations compared: "N" or, with KEEP, "N:K" for each K.
configs=
for n in $JOBS; do
    if [ -z "$KEEP" ]; then
        configs="$configs $n"
    else
        for k in $KEEP; do configs="$configs $n:$k"; done
    fi
done
suffix() { case $1 in *:*) echo "jobs${1%%:*}_keep${1##*:}" ;; *) echo "jobs$1" ;; esac; }
keep_of() { case $1 in *:*) echo "${1##*:}" ;; *) echo "" ;; esac; }

order=$configs
for ((r = 1; r <= ROUNDS; r++)); do
    for c in $order; do
        n=${c%%:*} key=$(suffix "$c")
        echo "bench-sweep: round $r, --jobs $n${KEEP:+, MORTAR_KEEP_HOSTS=$(keep_of "$c")}" >&2
        wall=$(sweep "r$r-$key" "$n" "$(keep_of "$c")")
        echo "round${r}_sweep_wall_s_$key=$wall"
        echo "$wall" >>"$work/wall-$key"
        [ "$(results "r$r-$key" | wc -l)" = "$points" ] ||
            die "$key: $(results "r$r-$key" | wc -l) of $points points ok"
    done
    order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
done

first=$(suffix "$(echo "$configs" | awk '{ print $1 }')")
best= best_wall=
for c in $configs; do
    key=$(suffix "$c")
    wall=$(median <"$work/wall-$key")
    echo "sweep_wall_s_$key=$wall"
    awk -v p="$points" -v w="$wall" 'BEGIN { printf "runs_per_hour_'"$key"'=%.1f\n", p * 3600 / w }'
    awk -v a="$(median <"$work/wall-$first")" -v b="$wall" \
        'BEGIN { printf "speedup_'"$key"'=%.2f\n", a / b }'
    same=1
    for ((r = 1; r <= ROUNDS; r++)); do
        [ "$(results "r$r-$key")" = "$(results "r1-$first")" ] || same=0
    done
    echo "same_results_$key=$same"
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
        best=${c%%:*} best_wall=$wall
    fi
done
if [ "$KEEP" = "0 1" ] || [ "$KEEP" = "1 0" ]; then
    for n in $JOBS; do
        awk -v a="$(median <"$work/wall-jobs${n}_keep0")" -v b="$(median <"$work/wall-jobs${n}_keep1")" \
            'BEGIN { printf "kept_speedup_jobs'"$n"'=%.2f\n", a / b }'
    done
fi
echo "best_jobs=$best"
