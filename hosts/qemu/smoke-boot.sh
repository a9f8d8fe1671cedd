#!/usr/bin/env bash
# hosts/qemu/smoke-boot.sh — boot mortar's QEMU with the guest image once.
#
# Builds (or takes from the cache) the QEMU binary and the guest image, boots
# the pc machine under -icount with a command on the kernel command line and
# checks the console for MORTAR-READY, the command's output and
# MORTAR-EXIT 0. Prints the wall time; exits non-zero on failure.
#
# Usage: hosts/qemu/smoke-boot.sh [--shift N] [--timeout S] [--run CMD]
#                                 [--expect TEXT] [--append ARGS]
#                                 [-- EXTRA-QEMU-ARGS...]
#   --shift N     -icount shift (default 0; negative down to -4 allowed)
#   --timeout S   wall-clock limit in seconds (default 120)
#   --run CMD     guest command (default: echo hello)
#   --expect TEXT console text the command must print (default: hello)
#   --append ARGS more kernel command line (e.g. "mortar.ip=10.0.0.1/24")
# The console log is kept in $CACHE/smoke-boot.log.
set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar}

SHIFT=0
TIMEOUT=120
RUN="echo hello"
EXPECT=hello
APPEND=
while [ $# -gt 0 ]; do
    case $1 in
        --shift) SHIFT=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --run) RUN=$2; shift 2 ;;
        --expect) EXPECT=$2; shift 2 ;;
        --append) APPEND=" $2"; shift 2 ;;
        --) shift; break ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: $0 [--shift N] [--timeout S] [--run CMD] [--expect TEXT] [--append ARGS] [-- QEMU-ARGS]" >&2; exit 2 ;;
    esac
done
case $RUN in
    *\'*) echo "[smoke] --run must not contain single quotes" >&2; exit 2 ;;
esac

QEMU=$("$HERE/build.sh" | tail -n1)
IMAGE=$("$ROOT/guest/build-image.sh" | tail -n1)
read -r -a FIRMWARE <<<"$("$HERE/firmware-dirs" --check)"

mkdir -p "$CACHE"
LOG=$CACHE/smoke-boot.log
echo "[smoke] booting kernel $(cat "$IMAGE/kernel-version") with -icount shift=$SHIFT,sleep=off" >&2
START=$(date +%s.%N)
set +e
timeout "$TIMEOUT" "$QEMU" "${FIRMWARE[@]}" \
    -M pc -m 256 -nodefaults -vga none -nographic -serial stdio -no-reboot \
    -icount "shift=$SHIFT,sleep=off" \
    -kernel "$IMAGE/vmlinuz" -initrd "$IMAGE/initramfs.cpio.gz" \
    -append "console=ttyS0 quiet panic=-1 mortar.run='$RUN'$APPEND" \
    "$@" </dev/null >"$LOG" 2>&1
RC=$?
set -e
END=$(date +%s.%N)
WALL=$(awk -v a="$START" -v b="$END" 'BEGIN { printf "%.1f", b - a }')
tr -d '\r' <"$LOG" | sed 's/^/  | /' >&2

fail() { echo "[smoke] FAIL: $* (wall ${WALL} s, log $LOG)" >&2; exit 1; }
[ "$RC" -ne 124 ] || fail "timeout after $TIMEOUT s"
[ "$RC" -eq 0 ] || fail "qemu exited with $RC"
tr -d '\r' <"$LOG" | grep -q '^MORTAR-READY' || fail "no MORTAR-READY"
tr -d '\r' <"$LOG" | awk -v e="$EXPECT" 'index($0, e) == 1 { f = 1 } END { exit !f }' ||
    fail "no line starting with '$EXPECT' in the output"
tr -d '\r' <"$LOG" | grep -qx 'MORTAR-EXIT 0' || fail "no MORTAR-EXIT 0"
echo "[smoke] PASS: shift=$SHIFT wall ${WALL} s" >&2
echo "$WALL"
