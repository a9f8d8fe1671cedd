# tests/qemu/harness.sh - run simulated systems for the qemu-labelled tests.
#
# Source it, then:
#   qh_init NAME                  private run directory $QH_DIR, cleanup on exit
#   qh_sim NAME JSON              start mortar-sim with the description JSON
#   qh_host NAME SCRIPT [QEMU-ARGS...]
#                                 start a QEMU host whose guest runs SCRIPT
#                                 (sh); `qh_device SOCKET NAME` builds the
#                                 -device arguments for a mortar device
#   qh_wait_hosts SECONDS         wait for every host to power off
#   qh_wait_sims SECONDS          wait for every mortar-sim to exit
#   qh_log NAME                   a host's console log (\r removed)
#   qh_fail MESSAGE               print the logs and fail the test
# Knobs: QH_HOSTS (hosts that meet for the common start, default 1),
# QH_SHIFT (icount shift, default 0), QH_MEM (MiB, default 256).
set -u

QH_SOURCE=${MORTAR_SOURCE:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
QH_BIN=${MORTAR_BIN:-$QH_SOURCE/build/bin}
QH_HOSTS=${QH_HOSTS:-1}
QH_SHIFT=${QH_SHIFT:-0}
QH_MEM=${QH_MEM:-256}
QH_PIDS_SIM=()
QH_PIDS_HOST=()
QH_NAMES_HOST=()

qh_fail() {
    echo "FAIL: $*" >&2
    for f in "$QH_DIR"/*.log "$QH_DIR"/*.err; do
        [ -s "$f" ] || continue
        echo "---- $(basename "$f") (last 30 lines)" >&2
        tr -d '\r' <"$f" | tail -n 30 >&2
    done
    exit 1
}

qh_cleanup() {
    for p in "${QH_PIDS_HOST[@]}" "${QH_PIDS_SIM[@]}"; do
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    [ -n "${QH_KEEP:-}" ] || rm -rf "$QH_DIR"
}

# Removes the folders /tmp/mortar-NAME.* of earlier runs of this test whose
# owner (the PID in their .owner) is gone: a test killed outright (CTest's
# timeout sends SIGKILL) cannot run its EXIT trap. A folder without an
# owner is left for a minute, so one just made is never taken.
qh_sweep_stale() {
    local old owner
    for old in /tmp/mortar-"$1".??????; do
        [ -d "$old" ] || continue
        owner=$(cat "$old/.owner" 2>/dev/null)
        if [ -n "$owner" ]; then
            kill -0 "$owner" 2>/dev/null && continue
        elif [ -z "$(find "$old" -maxdepth 0 -mmin +1)" ]; then
            continue
        fi
        rm -rf "$old"
    done
}

qh_init() {
    qh_sweep_stale "$1"
    QH_DIR=$(mktemp -d "/tmp/mortar-$1.XXXXXX")
    echo $$ >"$QH_DIR/.owner"
    mkdir -p "$QH_DIR/rendezvous"
    trap qh_cleanup EXIT
    # a signal ends the test through its EXIT trap, which removes QH_DIR
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    QH_QEMU=$("$QH_SOURCE/hosts/qemu/build.sh" --print-path)
    [ -x "$QH_QEMU" ] || qh_fail "QEMU is not built ($QH_QEMU); run 'make setup' first"
    QH_IMAGE=$(MORTAR_GUEST_BIN=${MORTAR_GUEST_BIN:-$QH_SOURCE/build/guest-bin} \
        "$QH_SOURCE/guest/build-image.sh" 2>"$QH_DIR/image.err" | tail -n 1)
    [ -f "$QH_IMAGE/vmlinuz" ] || qh_fail "the guest image could not be built (see image.err)"
    read -r -a QH_FIRMWARE <<<"$("$QH_SOURCE/hosts/qemu/firmware-dirs")"
}

qh_sim() {
    local name=$1 json=$2
    printf '%s\n' "$json" >"$QH_DIR/$name.json"
    "$QH_BIN/mortar-sim" "$QH_DIR/$name.json" 2>"$QH_DIR/$name.err" &
    QH_PIDS_SIM+=($!)
}

# -device arguments for a mortar device joined to the run's rendezvous.
qh_device() {
    local host=$1 sock=$2 name=$3
    echo "-device mortar-pci,socket=$sock,name=$name,rendezvous=$QH_DIR/rendezvous,hosts=$QH_HOSTS,host=$host"
}

qh_host() {
    local name=$1 script=$2
    shift 2
    local run64
    run64=$(printf '%s\n' "$script" | base64 -w0)
    # The console log exists before the host starts: the redirection below
    # happens in the background child, after qh_host returns, so a reader
    # at once (qh_log; bench-boot's first wait) found no file.
    : >"$QH_DIR/$name.log"
    MORTAR_HOST_STATS="$QH_DIR/$name.host.json" "$QH_QEMU" "${QH_FIRMWARE[@]}" \
        -M pc -m "$QH_MEM" -smp 1 -nodefaults -vga none -display none -no-reboot \
        -serial stdio -rtc base=2026-01-01T00:00:00,clock=vm \
        -icount "shift=$QH_SHIFT,sleep=off" \
        -kernel "$QH_IMAGE/vmlinuz" -initrd "$QH_IMAGE/initramfs.cpio.gz" \
        -append "console=ttyS0 quiet panic=-1 acpi=noirq ${QH_APPEND:-} mortar.run64=$run64" \
        "$@" </dev/null >"$QH_DIR/$name.log" 2>"$QH_DIR/$name.qemu.err" &
    QH_PIDS_HOST+=($!)
    QH_NAMES_HOST+=("$name")
}

qh_log() {
    tr -d '\r' <"$QH_DIR/$1.log"
}

# Waits for a list of pids, at most $2 seconds in all; fails on a timeout.
qh_wait_pids() {
    local what=$1 limit=$2
    shift 2
    local end=$((SECONDS + limit))
    for p in "$@"; do
        while kill -0 "$p" 2>/dev/null; do
            [ "$SECONDS" -lt "$end" ] || qh_fail "$what still running after $limit s"
            sleep 0.2
        done
    done
}

qh_wait_hosts() {
    qh_wait_pids "a host" "$1" "${QH_PIDS_HOST[@]}"
}

qh_wait_sims() {
    qh_wait_pids "a mortar-sim" "$1" "${QH_PIDS_SIM[@]}"
}

# The value of key=value in a host's console log (last occurrence).
qh_value() {
    qh_log "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -n 1
}
