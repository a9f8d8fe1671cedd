#!/usr/bin/env bash
# Issue 33, cases 2, 3 and 8, end to end through the command line: input
# that had been accepted and then lost a result or hung is refused before
# anything starts, with the reason, and no database is created.
#   2. a host whose "run" is blank (the guest dropped to a shell until
#      --timeout);
#   3. `--db=` (SQLite kept the record in a temporary database deleted on
#      close, and the run said "ok");
#   8. a latency that overflows the link's time (the first register read
#      returned 0).
set -u
M=${MORTAR_BIN:-build/bin}/mortar
SPEC=${MORTAR_SOURCE:-.}/experiments/examples/pcitest.json
DIR=$(mktemp -d /tmp/mortar-reliability-input.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
failed=0

# refused STATUS NEEDLE ARGS...: `mortar ARGS` exits STATUS saying NEEDLE,
# and leaves no database behind.
refused() {
    local status=$1 needle=$2 rc
    shift 2
    "$M" "$@" >out.txt 2>err.txt
    rc=$?
    if [ "$rc" != "$status" ] || ! grep -qF -- "$needle" err.txt; then
        echo "FAIL: mortar $*: exit $rc (expected $status), stderr: $(cat err.txt)"
        failed=1
    elif compgen -G "*.db" >/dev/null || [ -e mortar.db ]; then
        echo "FAIL: mortar $*: a database was created: $(ls)"
        failed=1
    else
        echo "ok: mortar $* -> $(head -n 1 err.txt)"
    fi
    rm -f ./*.db
}

refused 1 "hosts[0].run: empty" run "$SPEC" --db r.db --set 'hosts.0.run='
refused 1 "hosts[0].run: empty" run "$SPEC" --db r.db --set 'hosts.0.run=   '
refused 2 "option '--db' wants a value" run "$SPEC" --db=
refused 2 "option '--out' wants a value" run "$SPEC" --db r.db --out=
refused 1 "links[0].latency: at most 1 s" run "$SPEC" --db r.db \
    --set pcie.latency=18446744073709551615ps
refused 1 "links[0].latency: at most 1 s" run "$SPEC" --db r.db \
    --set pcie.latency=18446744073709us
refused 1 "links[0].latency: at most 1 s" run "$SPEC" --db r.db --set pcie.latency=1001ms
[ "$failed" = 0 ] && echo "PASS: every input was refused before anything started"
exit "$failed"
