#!/usr/bin/env bash
# The NIC study (studies/nic/experiments/study.json, docs/studies.md "The NIC
# study") end to end, through the same commands as the case study's: one
# point of its grid (PCIe latency 2.5 us, the fewest synchronization rounds;
# MTU 9000) with 2 requests a run, swept as a study (both variants, traced)
# into a fresh database. Both variants' runs are ok, every product verified,
# each on its own NIC model and Ethernet rate; then `mortar verdict --study`
# compares them in a cell keyed by the study's variant names, naming them by
# the study's labels, and `mortar report --study` builds the explorer's page
# with that verdict, the labels and the traced median requests.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
qh_init nic-study
MORTAR=$QH_BIN/mortar
[ -x "$MORTAR" ] || MORTAR=$QH_SOURCE/build/bin/mortar
STUDY=$QH_SOURCE/studies/nic/experiments/study.json
DB=$QH_DIR/results.db
export MORTAR_BIN=$QH_BIN

# The study's own names and labels, never typed in here.
read -r -a VARIANTS <<<"$(jq -r '.variants.compare | join(" ")' "$STUDY")"
[ "${#VARIANTS[@]}" -eq 2 ] || qh_fail "the study does not compare two variants"
label() { jq -r --arg v "$1" '.variants.values[$v].label' "$STUDY"; }

# 1. The study restricted to one point: the same variants (their specs by
# absolute path, as the study's directory is elsewhere), one part.
jq --arg dir "$(dirname "$STUDY")" '
    .variants.values |= map_values(.spec |= $dir + "/" + .)
    | .parts = [{"description": "one point of the grid, few requests",
                 "variants": .variants.compare,
                 "grid": {"mtu": [9000]},
                 "set": {"pcie.latency": "2.5us", "requests": 2, "warmup": 0}}]' \
    "$STUDY" >"$QH_DIR/study-point.json" || qh_fail "cannot restrict the study"
"$MORTAR" sweep "$QH_DIR/study-point.json" --db "$DB" --out "$QH_DIR/runs" --trace \
    >"$QH_DIR/sweep.out" 2>"$QH_DIR/sweep.err" ||
    qh_fail "the sweep failed: $(tail -n 5 "$QH_DIR/sweep.out" "$QH_DIR/sweep.err")"

# 2. Each variant: one ok run on its own NIC, both requests verified.
"$MORTAR" results --db "$DB" --json >"$QH_DIR/results.json" || qh_fail "mortar results failed"
for v in "${VARIANTS[@]}"; do
    spec=$(jq -r --arg v "$v" '.variants.values[$v].spec' "$STUDY")
    bandwidth=$(jq -r '.vars["eth.bandwidth"]' "$(dirname "$STUDY")/$spec")
    run=$(jq -c --arg v "$v" '[.runs[] | select(.vars.nic == $v)]' "$QH_DIR/results.json")
    [ "$(jq length <<<"$run")" = 1 ] || qh_fail "$v: not exactly one run: $run"
    [ "$(jq -r '.[0].status' <<<"$run")" = ok ] || qh_fail "$v: the run is not ok: $run"
    [ "$(jq -r '.[0].summary.verified' <<<"$run")" = 2 ] &&
        [ "$(jq -r '.[0].summary.requests' <<<"$run")" = 2 ] ||
        qh_fail "$v: not 2 requests, all verified: $(jq -c '.[0].summary' <<<"$run")"
    [ "$(jq -r '.[0].vars["eth.bandwidth"]' <<<"$run")" = "$bandwidth" ] ||
        qh_fail "$v: its Ethernet is not the variant's $bandwidth"
    dir=$(jq -r '.[0].run_dir' <<<"$run")
    [ "$(jq -r '[.components[] | select(.name | startswith("nic_")) | .kind] | unique | join(",")' \
        "$dir/spec.json")" = "$v" ] || qh_fail "$v: its NICs are not $v models"
    echo "$v ($(label "$v")): median $(jq -r '.[0].summary.median_us' <<<"$run") us"
done

# 3. The verdict, from the study: one cell, keyed by the variant names,
# holding the runs above; its text names the variants by their labels.
"$MORTAR" verdict --db "$DB" --study "$STUDY" >"$QH_DIR/verdict.txt" 2>"$QH_DIR/verdict.err" ||
    qh_fail "mortar verdict --study failed: $(cat "$QH_DIR/verdict.err")"
"$MORTAR" verdict --db "$DB" --study "$STUDY" --json >"$QH_DIR/verdict.json" ||
    qh_fail "mortar verdict --study --json failed"
[ "$(jq '.cells | length' "$QH_DIR/verdict.json")" = 1 ] ||
    qh_fail "the verdict has not one cell: $(jq -c .cells "$QH_DIR/verdict.json")"
for v in "${VARIANTS[@]}"; do
    id=$(jq -r --arg v "$v" '.runs[] | select(.vars.nic == $v) | .id' "$QH_DIR/results.json")
    [ "$(jq -r --arg v "$v" '.cells[0][$v].run_id' "$QH_DIR/verdict.json")" = "$id" ] ||
        qh_fail "the verdict's cell does not hold $v's run $id: $(jq -c '.cells[0]' "$QH_DIR/verdict.json")"
    grep -qF "$(label "$v")" "$QH_DIR/verdict.txt" ||
        qh_fail "the verdict does not name $v by its label $(label "$v"): $(cat "$QH_DIR/verdict.txt")"
done
winner=$(jq -r '.cells[0].winner' "$QH_DIR/verdict.json")
[[ " ${VARIANTS[*]} " == *" $winner "* ]] || qh_fail "the verdict's winner '$winner' is not a variant"
echo "verdict: $(label "$winner") wins, by $(jq -r '.cells[0].margin_pct' "$QH_DIR/verdict.json") %"

# 4. The explorer's page: the same verdict, the labels, the traced runs.
"$MORTAR" report --db "$DB" --study "$STUDY" --out "$QH_DIR/report" >/dev/null \
    2>"$QH_DIR/report.err" || qh_fail "mortar report --study failed: $(cat "$QH_DIR/report.err")"
page=$QH_DIR/report/index.html
python3 -c 'import re, sys
m = re.search(r"<script type=\"application/json\" id=\"mortar-data\">(.*?)</script>",
              open(sys.argv[1]).read(), re.S)
print(m.group(1) if m else "null")' "$page" >"$QH_DIR/page-data.json"
# The cells' runs, medians and winners (the page has no split in its cells:
# it has one per trace), and their margins within 1 ns: `mortar verdict
# --json` prints reals with 10 significant digits, the page with all of
# them (7825.9425 against 7825.942499999999 us once rounded to different ns).
cells() {
    jq -c '[.[] | {x, series, winner, variants: [to_entries[] |
            select(.value | type == "object") | {(.key): .value.run_id, median: .value.median_us}]}]'
}
[ "$(jq .verdict.cells "$QH_DIR/page-data.json" | cells)" = "$(jq .cells "$QH_DIR/verdict.json" | cells)" ] ||
    qh_fail "the page's verdict is not mortar verdict's: $(jq -c '.verdict_error' "$QH_DIR/page-data.json")"
jq -e --slurpfile cli "$QH_DIR/verdict.json" '[.verdict.cells, $cli[0].cells] | transpose |
    all(.[0].margin_us - .[1].margin_us | fabs < 0.001)' "$QH_DIR/page-data.json" >/dev/null ||
    qh_fail "the page's margins are not mortar verdict's"
for v in "${VARIANTS[@]}"; do
    grep -qF "$(label "$v")" "$page" || qh_fail "the page does not name $v by its label"
    id=$(jq -r --arg v "$v" '.runs[] | select(.vars.nic == $v) | .id' "$QH_DIR/results.json")
    [ "$(jq -r --arg id "$id" '.traces[$id].error // "none"' "$QH_DIR/page-data.json")" = none ] &&
        [ -s "$QH_DIR/report/traces/$id.js" ] ||
        qh_fail "the page has no trace of $v's run $id: $(jq -c --arg id "$id" '.traces[$id]' "$QH_DIR/page-data.json")"
done
echo "PASS: the NIC study's variants ran and verified; the verdict and the page compare them by the study's names and labels"
