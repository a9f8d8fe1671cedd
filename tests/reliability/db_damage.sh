#!/usr/bin/env bash
# Issue 33, case 6, end to end: after 40 random 512-byte blocks of a
# database were overwritten, `results`, `results --json --requests` and
# `report` had exited 0 with runs and requests missing and no warning, and
# `mortar run` wrote into the damaged file. Now each read either fails,
# naming the database, or gives exactly what it gave before the damage;
# and a run refuses the file before anything starts. The blocks are
# chosen by a fixed seed; the database is web_make_db's (tests/web).
set -u
M=${MORTAR_BIN:-build/bin}/mortar
source "$(dirname "$0")/lib_default_study.sh"
SPEC=${MORTAR_SOURCE:-.}/experiments/examples/pcitest.json
DIR=$(mktemp -d /tmp/mortar-reliability-db.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
DB=$DIR/mortar.db
"$WEB_MAKE_DB" "$DB" "$DIR/runs" "$DIR/manifest.json" >/dev/null || fail "web_make_db failed"

reads=("results" "results --json --requests" "results --csv")
for i in "${!reads[@]}"; do
    # shellcheck disable=SC2086
    "$M" ${reads[$i]} --db "$DB" >"$DIR/before.$i" 2>&1 || fail "mortar ${reads[$i]} failed"
done

blocks=$(($(stat -c %s "$DB") / 512))
RANDOM=33
for _ in $(seq 40); do
    block=$((RANDOM * 32768 + RANDOM))
    head -c 512 /dev/zero | tr '\0' '\245' |
        dd of="$DB" bs=512 seek=$((block % blocks)) conv=notrunc status=none
done

failed=0
for i in "${!reads[@]}"; do
    # shellcheck disable=SC2086
    if "$M" ${reads[$i]} --db "$DB" >"$DIR/after.$i" 2>"$DIR/err.$i"; then
        cmp -s "$DIR/before.$i" "$DIR/after.$i" ||
            fail "mortar ${reads[$i]} exited 0 with other output than before the damage"
        echo "ok: mortar ${reads[$i]}: the damage is not in what it reads"
    else
        grep -q "$DB" "$DIR/err.$i" || fail "mortar ${reads[$i]} does not name the database"
        echo "ok: mortar ${reads[$i]}: $(head -n 1 "$DIR/err.$i")"
        failed=$((failed + 1))
    fi
done
if ! have_default_study; then
    echo "skipped: mortar report (this build has no default study)"
elif "$M" report --db "$DB" --out "$DIR/report" >/dev/null 2>"$DIR/report.err"; then
    echo "ok: mortar report: the damage is not in what it reads"
else
    grep -q "$DB" "$DIR/report.err" || fail "mortar report does not name the database"
    failed=$((failed + 1))
fi
[ "$failed" -gt 0 ] || fail "40 damaged blocks went unnoticed by every read"
cp "$DB" "$DIR/copy.db"
if "$M" run "$SPEC" --db "$DB" --out "$DIR/out" >/dev/null 2>"$DIR/run.err"; then
    fail "mortar run wrote into the damaged database"
fi
grep -q "$DB" "$DIR/run.err" || fail "mortar run does not name the database: $(cat "$DIR/run.err")"
cmp -s "$DB" "$DIR/copy.db" || fail "mortar run changed the damaged database"
echo "PASS: $failed reads refused the damaged database, naming it; run refused it"
