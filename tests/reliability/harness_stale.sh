#!/usr/bin/env bash
# A QEMU test killed outright (CTest's timeout sends SIGKILL) had left its
# folder /tmp/mortar-<test>.XXXXXX behind for good: the next run of the same
# test removes it once its owner is gone (tests/qemu/harness.sh,
# qh_sweep_stale), and leaves those of a test still running.
set -u
source "$(dirname "$0")/../qemu/harness.sh"
NAME=harness-stale-$$
fail() { echo "FAIL: $*"; rm -rf /tmp/mortar-"$NAME".*; exit 1; }
sh -c 'exit 0' &
dead=$!
wait "$dead"
stale=$(mktemp -d "/tmp/mortar-$NAME.XXXXXX")
echo "$dead" >"$stale/.owner"
live=$(mktemp -d "/tmp/mortar-$NAME.XXXXXX")
echo $$ >"$live/.owner"
fresh=$(mktemp -d "/tmp/mortar-$NAME.XXXXXX")
qh_sweep_stale "$NAME"
[ ! -e "$stale" ] || fail "the folder of a test that is gone was kept"
[ -d "$live" ] || fail "the folder of a running test was removed"
[ -d "$fresh" ] || fail "a folder made a moment ago, without owner yet, was removed"
rm -rf "$live" "$fresh"
echo "PASS: a killed test's folder is removed by the next run, a running one's kept"
