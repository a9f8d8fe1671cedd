#!/usr/bin/python3
"""check_perfetto.py FILE... - each FILE is a trace Perfetto's JSON importer
takes as it is (the Trace Event Format, as Perfetto reads it): an object
with a "traceEvents" list; every event with a known phase, integer pid and
tid, a name, a time stamp of at least 0 and an object of args; complete
events ("X") with a duration of at least 0; begin and end events ("B",
"E") paired on their thread, an end closing the latest begin; the slices
of a thread nested, never overlapping part way (the importer drops or cuts
such a slice); every flow that ends somewhere ("flow_in") started
("flow_out") with the same bind_id at or before that time; metadata events
("M") of the kinds Perfetto reads with the argument each needs; a
displayTimeUnit, if any, of "ms" or "ns". Prints one line per problem and
exits 1 if there is any."""
import json
import sys
from collections import defaultdict

PHASES = set("BEXiIbeMsftCnNODPRvV") | {"(", ")"}
METADATA = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
            "thread_sort_index": "sort_index", "process_labels": "labels"}
problems = []


def event_problems(e):
    if not isinstance(e, dict):
        return ["an event that is not an object"]
    out = []
    if e.get("ph") not in PHASES:
        out.append(f"unknown phase {e.get('ph')!r}")
    for key in ("pid", "tid"):
        if type(e.get(key)) is not int:
            out.append(f"{key} {e.get(key)!r} is not an integer")
    if not isinstance(e.get("name"), str):
        out.append("no name")
    ts = e.get("ts")
    if type(ts) not in (int, float) or ts < 0:
        out.append(f"time stamp {ts!r}")
    if "args" in e and not isinstance(e["args"], dict):
        out.append("args that are not an object")
    if e.get("ph") == "X" and (type(e.get("dur")) not in (int, float) or e["dur"] < 0):
        out.append(f"a complete event with duration {e.get('dur')!r}")
    if e.get("ph") == "M":
        need = METADATA.get(e.get("name"))
        if not need or need not in e.get("args", {}):
            out.append(f"metadata {e.get('name')!r} Perfetto does not read, or without its arg")
    return out


def slices(events, fix):
    """The slices of each thread as (start, end, name), from X and B/E."""
    open_ = defaultdict(list)
    found = defaultdict(list)
    for e in sorted((e for e in events if e["ph"] in "BEX"), key=lambda e: e["ts"]):
        thread = (e["pid"], e["tid"])
        if e["ph"] == "X":
            found[thread].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        elif e["ph"] == "B":
            open_[thread].append(e)
        elif not open_[thread]:
            problems.append(f"{fix}: an end at {e['ts']} on thread {thread} with no begin open")
        else:
            b = open_[thread].pop()
            found[thread].append((b["ts"], e["ts"], b["name"]))
    for thread, left in open_.items():
        for b in left:
            problems.append(f"{fix}: {b['name']!r} on thread {thread} begins and never ends")
    return found


def check_nesting(found, fix):
    for thread, spans in found.items():
        stack = []
        for start, end, name in sorted(spans, key=lambda s: (s[0], -s[1])):
            while stack and stack[-1][1] <= start:
                stack.pop()
            if stack and end > stack[-1][1]:
                problems.append(f"{fix}: {name!r} [{start}, {end}] on thread {thread} overlaps "
                                f"{stack[-1][2]!r} [{stack[-1][0]}, {stack[-1][1]}] part way")
            stack.append((start, end, name))


def check_flows(events, fix):
    started = {}
    for e in sorted(events, key=lambda e: e["ts"]):
        if "bind_id" in e and e.get("flow_out"):
            started.setdefault(e["bind_id"], e["ts"])
    for e in events:
        if "bind_id" in e and e.get("flow_in") and started.get(e["bind_id"], float("inf")) > e["ts"]:
            problems.append(f"{fix}: flow {e['bind_id']} ends at {e['ts']} without a start before")


def check(fix):
    with open(fix) as f:
        doc = json.load(f)
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list) or not events:
        problems.append(f"{fix}: no traceEvents list")
        return
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        problems.append(f"{fix}: displayTimeUnit {doc['displayTimeUnit']!r}")
    bad = 0
    for i, e in enumerate(events):
        for p in event_problems(e):
            problems.append(f"{fix}: traceEvents[{i}]: {p}")
            bad += 1
    if bad:
        return
    before = len(problems)
    check_nesting(slices(events, fix), fix)
    check_flows(events, fix)
    if len(problems) == before:
        print(f"{fix}: {len(events)} events, as Perfetto's JSON importer takes them")


for path in sys.argv[1:]:
    check(path)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
