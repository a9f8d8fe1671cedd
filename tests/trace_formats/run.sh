#!/usr/bin/env bash
# tests/trace_formats/run.sh MORTAR MAKE_DB - `mortar trace`'s exports open
# as they are in the tools they are for: the Perfetto JSON of every traced
# run of the synthetic database (tests/web/make_db.c) by Perfetto's JSON
# importer rules (check_perfetto.py), the OTLP JSON against the OTLP trace
# schema (otlp_trace.proto, compiled by protoc; check_otlp.py). First each
# checker must refuse files planted with one fault each, so that a checker
# that accepts anything fails here.
set -euo pipefail
mortar=$1 make_db=$2
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3 # Debian's, with python3-protobuf
command -v protoc >/dev/null && $py -c 'import google.protobuf' 2>/dev/null ||
    { echo "skipped: no protoc or python3-protobuf (tools/setup.sh)"; exit 77; }
dir=$(mktemp -d /tmp/mortar-trace-formats.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
protoc --proto_path="$here" --python_out="$dir" "$here/otlp_trace.proto"

# refused CHECKER EXPECTED JSON: the checker exits 1 on JSON and says EXPECTED.
refused() {
    local checker=$1 expected=$2
    printf '%s' "$3" >"$dir/planted.json"
    if "$checker" "$dir/planted.json" >"$dir/planted.out" 2>&1; then
        fail "$(basename "$checker") accepted: $3"
    fi
    grep -qF -- "$expected" "$dir/planted.out" ||
        fail "$(basename "$checker") did not say '$expected': $(cat "$dir/planted.out")"
}
perfetto() { $py "$here/check_perfetto.py" "$@"; }
otlp() { $py "$here/check_otlp.py" "$dir" "$@"; }
ev='"name":"a","pid":1,"tid":1'
refused perfetto "'b' [5, 15] on thread (1, 1) overlaps 'a' [0, 10] part way" \
    "{\"traceEvents\":[{$ev,\"ph\":\"X\",\"ts\":0,\"dur\":10},{\"name\":\"b\",\"pid\":1,\"tid\":1,\"ph\":\"X\",\"ts\":5,\"dur\":10}]}"
refused perfetto "with no begin open" "{\"traceEvents\":[{$ev,\"ph\":\"E\",\"ts\":3}]}"
refused perfetto "begins and never ends" "{\"traceEvents\":[{$ev,\"ph\":\"B\",\"ts\":3}]}"
refused perfetto "tid '1' is not an integer" "{\"traceEvents\":[{\"name\":\"a\",\"pid\":1,\"tid\":\"1\",\"ph\":\"X\",\"ts\":0,\"dur\":1}]}"
refused perfetto "without a start before" \
    "{\"traceEvents\":[{$ev,\"ph\":\"X\",\"ts\":0,\"dur\":0,\"bind_id\":7,\"flow_in\":true}]}"
span() { echo "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"$1\",\"spanId\":\"00000000000000a1\",\"name\":\"r\",\"startTimeUnixNano\":\"5\",\"endTimeUnixNano\":\"$2\"$3}]}]}]}"; }
good_trace=0123456789abcdef0123456789abcdef
refused otlp "is not 16 bytes of lower-case hex" "$(span 0123456789ABCDEF0123456789ABCDEF 9 '')"
refused otlp "ends before it starts" "$(span $good_trace 4 '')"
refused otlp "not an OTLP trace request" "$(span $good_trace 9 ',"color":"red"')"
refused otlp "is not a 64-bit integer as a decimal string" \
    "$(span $good_trace 9 ',"attributes":[{"key":"k","value":{"intValue":5}}]')"
refused otlp "not a lowerCamelCase key" "$(span $good_trace 9 ',"parent_span_id":"00000000000000a2"')"
otlp <(span $good_trace 9 '') >/dev/null || fail "check_otlp.py refused a valid span"
echo "ok: each checker refuses the planted faults"

"$make_db" "$dir/mortar.db" "$dir/runs" "$dir/manifest.json" >/dev/null
exported=0
for id in $(sqlite3 "$dir/mortar.db" "select id from runs where status = 'ok' order by id"); do
    "$mortar" trace "$id" --db "$dir/mortar.db" --format perfetto -o "$dir/$id.perfetto.json" \
        2>/dev/null || continue # a run without trace files
    "$mortar" trace "$id" --db "$dir/mortar.db" --format otlp -o "$dir/$id.otlp.json" 2>/dev/null
    exported=$((exported + 1))
done
[ "$exported" -ge 4 ] || fail "only $exported runs of the synthetic database could be exported"
perfetto "$dir"/*.perfetto.json | tail -n 1
otlp "$dir"/*.otlp.json | tail -n 1
echo "PASS: $exported runs' exports as Perfetto and OTLP read them"
