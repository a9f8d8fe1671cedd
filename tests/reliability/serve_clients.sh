#!/usr/bin/env bash
# Issue 33, case 10, end to end: `mortar serve` had answered any Host (a
# page on another site could read the explorer by DNS rebinding), and
# clients that trickle their headers had locked every real request out.
# Now another Host gets 421 and nothing of the page, and with its
# connections all taken by tricklers a real request is still answered.
# Loopback only; the database is web_make_db's (tests/web).
set -u
M=${MORTAR_BIN:-build/bin}/mortar
source "$(dirname "$0")/lib_default_study.sh"
need_default_study
DIR=$(mktemp -d /tmp/mortar-reliability-serve.XXXXXX)
SERVE_PID=
cleanup() {
    [ -z "$SERVE_PID" ] || kill "$SERVE_PID" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$WEB_MAKE_DB" "$DIR/mortar.db" "$DIR/runs" "$DIR/manifest.json" >/dev/null ||
    fail "web_make_db failed"
# 128 descriptors: libmicrohttpd then takes fewer than 128 connections
(ulimit -n 128 && exec "$M" serve --db "$DIR/mortar.db" --port 0) >"$DIR/serve.out" \
    2>"$DIR/serve.err" &
SERVE_PID=$!
for _ in $(seq 100); do grep -q "http://127.0.0.1:" "$DIR/serve.out" && break; sleep 0.1; done
PORT=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$DIR/serve.out")
[ -n "$PORT" ] || fail "serve did not say its port: $(cat "$DIR/serve.err")"

# status HOST: the status line of GET / with that Host header, and its body
status() {
    exec {c}<>"/dev/tcp/127.0.0.1/$PORT" || return 1
    printf 'GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$1" >&$c
    timeout 20 cat <&$c >"$DIR/answer"
    exec {c}>&-
    head -n 1 "$DIR/answer" | tr -d '\r'
}
[ "$(status evil.example.com)" = "HTTP/1.1 421 Misdirected Request" ] ||
    fail "a request for another Host was answered: $(head -n 1 "$DIR/answer")"
! grep -q "<html\|$DIR" "$DIR/answer" || fail "the 421 carries the page or a path"
[ "$(status "127.0.0.1:$PORT")" = "HTTP/1.1 200 OK" ] || fail "the page was not served"

# 200 connections that send one byte of their headers a second
exec 9>"$DIR/trickle.stop"
(
    fds=()
    for _ in $(seq 200); do
        exec {f}<>"/dev/tcp/127.0.0.1/$PORT" 2>/dev/null && fds+=("$f")
    done
    while [ -e "$DIR/trickle.stop" ]; do
        for f in "${fds[@]}"; do printf 'G' >&$f 2>/dev/null; done
        sleep 1
    done
) &
TRICKLE=$!
sleep 2
start=$SECONDS
[ "$(status "localhost:$PORT")" = "HTTP/1.1 200 OK" ] ||
    fail "a real request was locked out by trickling clients"
waited=$((SECONDS - start))
rm -f "$DIR/trickle.stop"
kill "$TRICKLE" 2>/dev/null
[ "$waited" -le 8 ] || fail "the real request waited $waited s"
echo "PASS: another Host gets 421; a real request answered in ${waited} s past 200 tricklers"
