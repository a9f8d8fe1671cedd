#!/usr/bin/python3
"""check_otlp.py PB2_DIR FILE... - each FILE is an OTLP/JSON trace request
as the OTLP specification defines it: parsed strictly against the trace
schema (otlp_trace.proto, compiled by protoc into PB2_DIR: no unknown
field, every value of its field's type), keys in lowerCamelCase, trace and
span ids as lower-case hex of 16 and 8 bytes that are not all zero, 64-bit
integers as decimal strings, no span ending before it starts, and every
parent span id naming a span of the request. Prints one line per problem
and exits 1 if there is any."""
import base64
import json
import re
import sys

sys.path.insert(0, sys.argv[1])
from google.protobuf import json_format  # noqa: E402  (Debian's python3-protobuf)
import otlp_trace_pb2  # noqa: E402

HEX_IDS = {"traceId": 16, "spanId": 8, "parentSpanId": 8}
INT64 = {"startTimeUnixNano", "endTimeUnixNano", "timeUnixNano", "intValue"}
problems = []


def walk(node, path, fix):
    """Checks the JSON-level rules and returns the node with hex ids as the
    proto3 JSON mapping's base64, for the strict parse."""
    if isinstance(node, list):
        return [walk(v, f"{path}[{i}]", fix) for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        where = f"{path}.{key}"
        if not re.fullmatch(r"[a-z][A-Za-z0-9]*", key):
            problems.append(f"{fix}: {where}: not a lowerCamelCase key")
        if key in HEX_IDS:
            if not (isinstance(value, str) and re.fullmatch(r"[0-9a-f]{%d}" % (2 * HEX_IDS[key]), value)):
                problems.append(f"{fix}: {where}: {value!r} is not {HEX_IDS[key]} bytes of lower-case hex")
                value = ""
            elif set(value) == {"0"}:
                problems.append(f"{fix}: {where}: an id of zeros is invalid")
            out[key] = base64.b64encode(bytes.fromhex(value)).decode()
            continue
        if key in INT64 and not (isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value)):
            problems.append(f"{fix}: {where}: {value!r} is not a 64-bit integer as a decimal string")
        out[key] = walk(value, where, fix)
    return out


def check(fix):
    with open(fix) as f:
        doc = json.load(f)
    msg = otlp_trace_pb2.ExportTraceServiceRequest()
    before = len(problems)
    try:
        json_format.ParseDict(walk(doc, "", fix), msg, ignore_unknown_fields=False)
    except json_format.ParseError as e:
        problems.append(f"{fix}: not an OTLP trace request: {e}")
        return
    spans = [s for rs in msg.resource_spans for ss in rs.scope_spans for s in ss.spans]
    if not spans:
        problems.append(f"{fix}: no span")
    ids = {s.span_id for s in spans}
    for s in spans:
        if s.end_time_unix_nano < s.start_time_unix_nano:
            problems.append(f"{fix}: span {s.name!r} ends before it starts")
        if s.parent_span_id and s.parent_span_id not in ids:
            problems.append(f"{fix}: span {s.name!r} names a parent that is not in the request")
    if len(problems) == before:
        print(f"{fix}: {len(spans)} spans, "
              f"{sum(len(s.events) for s in spans)} events, valid OTLP")


for path in sys.argv[2:]:
    check(path)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
