#!/usr/bin/env bash
# Issue 33, case 5, end to end: `mortar report` had written through
# symbolic links in its folder (a link at OUT/index.html.tmp had its
# target overwritten; with OUT/traces a link to another folder, the
# <digits>.js files there were deleted or replaced). Nothing outside the
# folder may change now. The database is web_make_db's (tests/web).
set -u
M=${MORTAR_BIN:-build/bin}/mortar
source "$(dirname "$0")/lib_default_study.sh"
need_default_study
DIR=$(mktemp -d /tmp/mortar-reliability-report.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$WEB_MAKE_DB" "$DIR/mortar.db" "$DIR/runs" "$DIR/manifest.json" >/dev/null ||
    fail "web_make_db failed"
mkdir -p "$DIR/out" "$DIR/elsewhere" "$DIR/their-traces"
echo "keep me" >"$DIR/elsewhere/victim"
ln -s "$DIR/elsewhere/victim" "$DIR/out/index.html.tmp"
ln -s "$DIR/elsewhere/victim" "$DIR/out/index.html"
"$M" report --db "$DIR/mortar.db" --out "$DIR/out" >/dev/null 2>"$DIR/err1" ||
    fail "report failed: $(cat "$DIR/err1")"
[ "$(cat "$DIR/elsewhere/victim")" = "keep me" ] || fail "a link's target was overwritten"
[ -f "$DIR/out/index.html" ] && [ ! -L "$DIR/out/index.html" ] ||
    fail "index.html is not the page"

echo theirs >"$DIR/their-traces/1.js"
echo theirs >"$DIR/their-traces/999999.js"
rm -rf "$DIR/out/traces"
ln -s "$DIR/their-traces" "$DIR/out/traces"
if "$M" report --db "$DIR/mortar.db" --out "$DIR/out" >/dev/null 2>"$DIR/err2"; then
    fail "a report through a linked traces/ succeeded"
fi
grep -q "traces is a symbolic link: not writing through it" "$DIR/err2" ||
    fail "the refusal does not say why: $(cat "$DIR/err2")"
[ "$(ls "$DIR/their-traces")" = "$(printf '1.js\n999999.js')" ] &&
    [ "$(cat "$DIR/their-traces/1.js" "$DIR/their-traces/999999.js")" = "$(printf 'theirs\ntheirs')" ] ||
    fail "the linked folder's files were changed: $(ls -l "$DIR/their-traces")"
echo "PASS: nothing outside the report's folder changed"
