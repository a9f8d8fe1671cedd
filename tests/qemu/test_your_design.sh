#!/usr/bin/env bash
# docs/your-design.md, followed literally: every ```sh block of the page,
# in order, run by bash -e in a fresh home directory from mortar's source
# tree (the page's step 0 installs the normal build, which has the guest
# library, as an SDK into ~/mortar-sdk; everything after uses that SDK
# only). Then what the page promises is checked on what it left behind:
# the guest program is static, every checksum was right, the traced run at
# 2 us differs from the run at 500 ns by the six link crossings (9 us),
# the study's verdict flips where the model's timing says;
# and beyond the page: tracing on or off gives identical latencies, and a
# run whose guest program fails is failed, naming the host.
source "$(dirname "$0")/harness.sh"
qh_init your-design
DOC=$QH_SOURCE/docs/your-design.md
[ -f "$QH_SOURCE/build/guest-bin/mortar-params" ] ||
    qh_fail "no normal build with the guest in $QH_SOURCE/build (make)"

awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$DOC" >"$QH_DIR/page.sh"
[ "$(grep -c . "$QH_DIR/page.sh")" -ge 10 ] || qh_fail "found only $(grep -c . "$QH_DIR/page.sh") commands in $DOC"

# The page's reader: a fresh home, mortar's cache where make setup left it,
# no variable pointing into the source or build tree.
CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar}
READER=$QH_DIR/home
mkdir -p "$READER"
reader() {
    (cd "$QH_SOURCE" &&
        env -u MORTAR_SOURCE -u MORTAR_BIN -u MORTAR_PLUGIN_PATH -u PKG_CONFIG_PATH \
            -u CMAKE_PREFIX_PATH -u XDG_CACHE_HOME HOME="$READER" MORTAR_CACHE="$CACHE" \
            MORTAR_SNAPSHOTS="$QH_DIR/snapshots" "$@")
}
reader bash -euo pipefail "$QH_DIR/page.sh" >"$QH_DIR/page.out" 2>"$QH_DIR/page.err" ||
    qh_fail "the page's commands failed: $(tail -n 8 "$QH_DIR/page.err")"
echo "ok: the page's $(grep -c . "$QH_DIR/page.sh") commands ran"

EX=$READER/my-device
file "$EX/my-device-client" | grep -q 'statically linked' ||
    qh_fail "my-device-client is not a static program: $(file "$EX/my-device-client")"
grep -q '2 of 2 checksums over 4096 bytes checked, 0 wrong' "$QH_DIR/page.out" ||
    qh_fail "run.sh (without QEMU) did not check 2 checksums"

console() { tr -d '\r' <"$(ls -d "$EX"/runs/"$(printf %06d "$1")"-* | head -n 1)/host.console.log"; }
latency() { console "$1" | sed -n 's/^req=0 latency_ns=\([0-9]*\) .*/\1/p'; }
for run in 1 2; do
    console $run | grep -q '^4 of 4 checksums over 4096 bytes checked, 0 wrong' ||
        qh_fail "run $run: not every checksum was right: $(console $run | grep -E '^req=|checksums')"
done
grep -q '"name":"dma_read"' "$EX/request.json" && grep -q '"name":"interrupt"' "$EX/request.json" ||
    qh_fail "the timeline of the traced request has no DMA read or interrupt"
fast=$(latency 1) slow=$(latency 2)
diff_ns=$((slow - fast))
[ "$diff_ns" -ge 8980 ] && [ "$diff_ns" -le 9020 ] ||
    qh_fail "2 us against 500 ns: $slow - $fast = $diff_ns ns, not six crossings of 1.5 us"
echo "ok: 4 checksums right in the guest at each latency; $fast ns at 500 ns, $slow ns at 2 us (+$diff_ns ns)"

# The study (section 6): the sweep's 8 points are ok (those the runs
# before already measured are skipped), and the verdict puts the flip
# where the model's timing does:
# 12 L + 1.28 us against 6 L + 2.05 us, about 0.13 us, between the grid's
# 100 and 250 ns.
grep -qE '^sweep my-device: 8 points: [0-9]+ ok, 0 failed' "$QH_DIR/page.out" ||
    qh_fail "the sweep did not end with its 8 points ok: $(grep '^sweep' "$QH_DIR/page.out")"
grep -qE '1 KiB chunks wins below 0\.1[0-9] µs and 4 KiB chunks above' "$EX/verdict.txt" ||
    qh_fail "the verdict has no flip between 100 and 250 ns: $(grep -i 'wins' "$EX/verdict.txt" | head -n 3)"
echo "ok: the study's verdict: $(grep -m1 -o '1 KiB chunks wins below.*' "$EX/verdict.txt")"

# Beyond the page: the same run traced gives the same latencies; a failing
# guest program fails the run.
more() {
    reader bash -c 'cd ~/my-device && PATH=~/mortar-sdk/bin:$PATH MORTAR_PLUGIN_PATH=$PWD mortar run system.json "$@"' \
        more "$@" >"$QH_DIR/more.out" 2>"$QH_DIR/more.err"
}
more --set requests=4 --trace || qh_fail "the traced run failed: $(tail -n 5 "$QH_DIR/more.err")"
last=$(ls -d "$EX"/runs/0* | wc -l)
[ "$(console "$last" | grep '^req=')" = "$(console 1 | grep '^req=')" ] ||
    qh_fail "tracing changed the latencies: $(console "$last" | grep '^req=' | head -n 2)"
echo "ok: tracing on or off, identical latencies"
if more --set requests=0; then
    qh_fail "a run whose guest program failed (exit 2) was ok"
fi
grep -q 'host host: its program failed: MORTAR-EXIT 2' "$QH_DIR/more.err" ||
    qh_fail "the failure does not name the host and the program: $(tail -n 3 "$QH_DIR/more.err")"
echo "ok: a failing guest program fails the run: $(grep -o 'host host: its program failed.*' "$QH_DIR/more.err" | head -n 1)"

# The explorer (section 7): the page names the variants as the study does,
# and the traced run at 250 ns is the 1 KiB cell's, with its trace beside
# the page.
page=$EX/report/index.html
[ -f "$page" ] || qh_fail "mortar report wrote no $page"
python3 -c 'import re, sys
m = re.search(r"<script type=\"application/json\" id=\"mortar-data\">(.*?)</script>",
              open(sys.argv[1]).read(), re.S)
print(m.group(1) if m else "null")' "$page" >"$QH_DIR/page-data.json"
for label in "4 KiB chunks" "1 KiB chunks"; do
    jq -e --arg l "$label" '[.study.variants[]?.label, (.study.variants | objects | .[].label)] | index($l)' \
        "$QH_DIR/page-data.json" >/dev/null ||
        qh_fail "the page's study does not name the variant '$label': $(jq -c .study.variants "$QH_DIR/page-data.json")"
done
traced=$(jq -r '[.verdict.cells[] | select(.x == 0.25) | .["chunk-1k"].run_id][0]' "$QH_DIR/page-data.json")
[ -f "$EX/report/traces/$traced.js" ] ||
    qh_fail "the 1 KiB cell at 250 ns (run $traced) has no trace in report/traces/: $(ls "$EX/report/traces" 2>&1)"
echo "ok: the explorer names both variants; run $traced's trace is beside the page"
