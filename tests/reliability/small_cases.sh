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

# The database's folder read-only for mortar alone: as root, bound onto
# itself read-only in a mount namespace of its own (file modes do not stop
# root); otherwise by its mode.
mkdir ro
"$WEB_MAKE_DB" ro/mortar.db "$DIR/runs2" "$DIR/manifest2.json" >/dev/null ||
    fail "web_make_db failed"
if [ "$(id -u)" = 0 ]; then
    unshare -m sh -c 'mount --make-rprivate / && mount --bind ro ro &&
        mount -o remount,bind,ro ro && exec "$0" run "$1" --db ro/mortar.db --out out' \
        "$M" "$SPEC" 2>err4
else
    chmod 555 ro
    "$M" run "$SPEC" --db ro/mortar.db --out out 2>err4
fi
[ $? = 1 ] || fail "a run into a read-only database did not exit 1"
chmod 755 ro
grep -q "ro/mortar.db: the database is read-only" err4 ||
    fail "the read-only database is not named so: $(cat err4)"
[ ! -e out ] || fail "a run into a read-only database started"
echo "ok: read-only database: $(head -n 1 err4)"
echo "PASS: case 12's command-line cases"
