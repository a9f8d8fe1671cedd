#!/usr/bin/env bash
# The main job, as far as it is built: every accelerator design on the
# component bench ("alone") at every compute speed of the case study, each
# product checked against the reference. The full case study (hosts, NICs,
# switch) replaces this as it lands.
set -euo pipefail
cd "$(dirname "$0")/.."
mortar=build/bin/mortar
[ -x "$mortar" ] || { echo "demo: build first (make)" >&2; exit 1; }

speeds=(0.25 0.5 1 2)
echo "matmul 512x512 int8, one request, device alone (us):"
printf '%-10s' design
for s in "${speeds[@]}"; do printf '%10s' "${s}x"; done
echo
for d in a b regcopy; do
  printf '%-10s' "$d"
  for s in "${speeds[@]}"; do
    v=$("$mortar" alone --design "$d" --speed "$s" | sed -n 's/^alone_us=//p')
    printf '%10s' "$v"
  done
  echo
done
echo "every product verified against the reference multiply"
