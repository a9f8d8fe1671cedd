#!/usr/bin/env bash
# Issue 33, case 12, end to end through the command line: a malformed --set
# exits 2 (it exited 1); `report --out -` is refused (it made a folder named
# '-'); a missing spec is named once (it was "/x.json: /x.json:-1:-1: unable
# to open"); a read-only database is refused with the reason (it said
# "cannot record the run" and no more). The database is web_make_db's
# (tests/web).
set -u
M=${MORTAR_BIN:-build/bin}/mortar
SPEC=${MORTAR_SOURCE:-.}/experiments/examples/pcitest.json
DIR=$(mktemp -d /tmp/mortar-reliability-small.XXXXXX)
chmod 755 "$DIR"
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
fail() { echo "FAIL: $*"; exit 1; }

"$M" run "$SPEC" --db r.db --set nonsense 2>err1
[ $? = 2 ] || fail "a malformed --set did not exit 2: $(cat err1)"
grep -q "KEY=VALUE" err1 || fail "a malformed --set is not explained: $(cat err1)"
echo "ok: --set nonsense: $(head -n 1 err1)"

"$WEB_MAKE_DB" "$DIR/mortar.db" "$DIR/runs" "$DIR/manifest.json" >/dev/null ||
    fail "web_make_db failed"
"$M" report --db mortar.db --out - >/dev/null 2>err2
[ $? = 2 ] || fail "report --out - did not exit 2: $(cat err2)"
[ ! -e ./- ] || fail "report --out - made a folder named '-'"
echo "ok: report --out -: $(head -n 1 err2)"

"$M" run /nonexistent/x.json --db r.db 2>err3
[ $? = 1 ] || fail "a missing spec did not exit 1"
[ "$(grep -o "/nonexistent/x.json" err3 | wc -l)" = 1 ] ||
    fail "a missing spec is not named once: $(cat err3)"
echo "ok: missing spec: $(cat err3)"

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 644 mortar.db
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$M" run "$SPEC" --db "$DIR/mortar.db" --out "$DIR/out" 2>err4
    [ $? = 1 ] || fail "a run into a read-only database did not exit 1"
    grep -Eqi "read-?only" err4 || fail "the read-only database is not named so: $(cat err4)"
    echo "ok: read-only database: $(head -n 1 err4)"
fi
echo "PASS: case 12's command-line cases"
