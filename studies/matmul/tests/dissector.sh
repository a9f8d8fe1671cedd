#!/usr/bin/env bash
# studies/matmul/tests/dissector.sh MORTAR SOURCE_DIR - the case study's protocol in tshark
# through the dissector `mortar dissector` writes from its study file
# (cli/spec/study_wire.h): on a capture made here with text2pcap, a request
# split over three TCP segments, and a reply and a second request in one
# segment, each message is decoded with its fields and nothing is malformed.
# (studies/matmul/tests/qemu/test_case_study.sh does the same on a real run's switch.pcap.)
set -euo pipefail
mortar=$1 src=$2
for tool in tshark text2pcap python3; do
    command -v $tool >/dev/null || { echo "skipped: no $tool (tools/setup.sh)"; exit 77; }
done
dir=$(mktemp -d /tmp/mortar-dissector.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$mortar" dissector --study "$src/studies/matmul/experiments/study.json" -o "$dir/matmul.lua"

# The packets as text2pcap's hex dump, from studies/matmul/guest/matmul_wire.h's layout.
python3 - "$dir/packets.txt" <<'PY'
import struct, sys
def request(req_id, kind, payload):
    return b"MMRQ" + struct.pack("<HHQIIQ", 2, kind, req_id, 512, 0, len(payload)) + payload
def response(req_id, service_ns, payload):
    return (b"MMRS" + struct.pack("<HHQIIQQ", 2, 0, req_id, 512, 0, len(payload), service_ns)
            + payload)
first = request(5, 1, bytes(range(100)))
segments = [first[:20], first[20:70], first[70:],
            response(5, 12345, bytes(8)) + request(6, 2, b"")]
with open(sys.argv[1], "w") as f:
    for seg in segments:
        for i in range(0, len(seg), 16):
            f.write("%06x  %s\n" % (i, " ".join("%02x" % b for b in seg[i:i + 16])))
PY
text2pcap -q -4 10.0.0.1,10.0.0.2 -T 40000,7000 "$dir/packets.txt" "$dir/capture.pcap"

decode() { tshark -X "lua_script:$dir/matmul.lua" -r "$dir/capture.pcap" "$@" 2>"$dir/tshark.err"; }
fields=$(decode -Y mortar_matmul -T fields -E separator=, -e frame.number \
    -e mortar_matmul.request.req_id -e mortar_matmul.request.type \
    -e mortar_matmul.request.payload_bytes -e mortar_matmul.response.req_id \
    -e mortar_matmul.response.service_ns) || fail "tshark: $(cat "$dir/tshark.err")"
expected=$'3,5,1,100,,\n4,6,2,0,5,12345'
[ "$fields" = "$expected" ] || fail "decoded:
$fields
expected:
$expected"
malformed=$(decode -Y '_ws.malformed || _ws.expert.severity == error' | wc -l)
[ "$malformed" -eq 0 ] || fail "$malformed frames malformed: $(decode -Y _ws.malformed)"
info=$(decode -Y 'frame.number == 4' -T fields -e _ws.col.Info)
[ "$info" = "response, request" ] || fail "frame 4's info is '$info'"
echo "without the dissector: $(tshark -r "$dir/capture.pcap" -Y _ws.malformed 2>/dev/null | wc -l) malformed frames"
echo "PASS: 3 messages decoded over 4 segments, none malformed"
