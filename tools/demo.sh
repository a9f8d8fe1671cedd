#!/usr/bin/env bash
# The main job: the matmul case study. The designs on the component bench
# ("alone": mortar alone, each run recorded), then the case study's sweep
# (its study, studies/matmul/experiments/study.json: sweep.json's 72 points, then
# more runs between the latencies where A and B swap places at each speed,
# by bisection, until each crossing is bracketed within 0.05 us; or
# SWEEP=quick for studies/matmul/experiments/sweep-quick.json, not refined), then
# the verdict computed from the runs, the explorer page and its one-minute
# walkthrough video.
#
# The sweep resumes: run it again after an interruption and finished runs
# are kept. Results go to mortar.db, run directories to runs/, the page to
# report/index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
mortar=build/bin/mortar
[ -x "$mortar" ] || { echo "demo: build first (make)" >&2; exit 1; }
case "${SWEEP:-full}" in
  full) sweep=studies/matmul/experiments/study.json ;;
  quick) sweep=studies/matmul/experiments/sweep-quick.json ;;
  *) sweep=$SWEEP ;;
esac
db=${MORTAR_DB:-mortar.db}

speeds=(0.25 0.5 1 2)
echo "== matmul 512x512 int8, one request, device alone (us):"
printf '%-10s' design
for s in "${speeds[@]}"; do printf '%10s' "${s}x"; done
echo
for d in a b regcopy; do
  printf '%-10s' "$d"
  for s in "${speeds[@]}"; do
    # the study's alone benchmark, recorded in $db (the verdict reads it there)
    v=$("$mortar" alone studies/matmul/experiments/study.json --set design="$d" --set speed="$s" \
        --db "$db" 2>/dev/null | sed -n 's/^alone_us=//p')
    [ -n "$v" ] || { echo "demo: the alone benchmark of $d at ${s}x failed" >&2; exit 1; }
    printf '%10s' "$v"
  done
  echo
done
echo "every product verified against the reference multiply"
echo
echo "== the case study in the whole system: $sweep"
"$mortar" sweep "$sweep" --db "$db" --out runs --trace || echo "demo: some runs failed; run 'make run' again to retry them" >&2
echo
"$mortar" results --db "$db"
echo
# the page, then the narrated walkthrough made from it (report/walkthrough.mp4)
"$mortar" report --db "$db" --out report --video
echo
echo "== the verdict"
"$mortar" verdict --db "$db"
