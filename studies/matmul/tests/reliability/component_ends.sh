#!/usr/bin/env bash
# needs: qemu
# Issue 33, cases 1 and 7, and "a component that ends, however it ends, is
# named within 1 s": a host's QEMU that exits 0 mid-run (SIGTERM) is not a
# finished host (it had made the run wait for --timeout, or recorded it ok
# though the guest never ran its command); a killed QEMU is blamed, not the
# simulator that lost its link; a server ended mid-run is blamed, not the
# client whose program then fails. Each ends the run within a second (2 s
# allowed for a loaded machine) with the process's own words.
source "$MORTAR_SOURCE/tests/qemu/harness.sh"
source "$MORTAR_SOURCE/tests/reliability/lib_run.sh"
qh_init reliability-ends
PCITEST=$QH_SOURCE/experiments/examples/pcitest.json
MATMUL=$QH_SOURCE/studies/matmul/experiments/design-b.json

# end TAG SPEC HOST SIGNAL EXPECTED-ERROR [ARGS...]
end() {
    local tag=$1 spec=$2 who=$3 sig=$4 expected=$5 pid
    shift 5
    rr_start "$tag" "$spec" "$@"
    pid=$(rr_pid "$who")
    [ -n "$pid" ] || qh_fail "$tag: no process found for $who"
    kill "-$sig" "$pid"
    rr_wait_end 20
    [ "$RR_STATUS" = 1 ] || qh_fail "$tag: the run exited $RR_STATUS after $who got SIG$sig"
    [ "$(rr_last status)" = failed ] || qh_fail "$tag: recorded '$(rr_last status)'"
    rr_last error | grep -qF -- "$expected" ||
        qh_fail "$tag: the error does not say '$expected': $(rr_last error)"
    [ "$RR_WAITED" -le 2000 ] || qh_fail "$tag: the run took $RR_WAITED ms to end"
    echo "$tag: ended $RR_WAITED ms after SIG$sig to $who: $(rr_last error)"
}

end pcitest-term "$PCITEST" h0 TERM \
    "host h0: QEMU exited with status 0 before its guest's command ended" --set reads=10000000
grep -q "terminating on signal 15" <<<"$(rr_last error)" ||
    qh_fail "the error does not quote QEMU's last words: $(rr_last error)"
end client-term "$MATMUL" client TERM \
    "host client: QEMU exited with status 0 before its guest's command ended" --set requests=50
end client-kill "$MATMUL" client KILL "host client: QEMU was killed by signal 9 (SIGKILL)" \
    --set requests=50
end server-term "$MATMUL" server TERM \
    "host server: QEMU exited with status 0 before its guest's command ended" --set requests=50
end server-kill "$MATMUL" server KILL "host server: QEMU was killed by signal 9 (SIGKILL)" \
    --set requests=50
end sim-kill "$MATMUL" sim KILL "sim sim0: was killed by signal 9 (SIGKILL)" --set requests=50
echo "PASS: every component that ended was named, within 2 s"
