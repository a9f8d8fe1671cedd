#!/usr/bin/env bash
# hosts/qemu/build.sh — build mortar's QEMU host.
#
# Builds qemu-system-x86_64 from Debian's QEMU 7.2 source package (fetched
# with `apt-get source qemu`) plus the project's additions:
#   hosts/qemu/patches/*.patch   applied with `patch -p1`, in name order
#   hosts/qemu/src/              copied to hw/misc/mortar/, every *.c compiled
#   include/mortar/*.h           copied to hw/misc/mortar/include/mortar/
#   files in src/libmortar.list  (lib/*.c ...) copied to hw/misc/mortar/<path>
# The result lives in $CACHE/qemu/<key>/bin/qemu-system-x86_64, where
# CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar} and
# key = <Debian source version>-<sha256, 12 hex, of the inputs above and of
# this script>. A cached build is reused; a changed input rebuilds
# incrementally in the kept work tree $CACHE/qemu/work/<version>/.
#
# Usage: hosts/qemu/build.sh               build if needed
#        hosts/qemu/build.sh --print-path  print the binary's path, build nothing
# Progress goes to stderr, prefixed "[qemu]"; the last line on stdout is the
# binary's path. $CACHE/qemu/current links to the newest build.
# apt's answers for the key (the source version) are cached in
# $CACHE/qemu/apt/ while apt's state is unchanged: every `mortar run` asks
# for the key.
# Needs root (or sudo) only to add a deb-src entry and missing build deps.
set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar}
QCACHE=$CACHE/qemu
# apt_cached: apt's answers cached while apt's state is unchanged.
. "$ROOT/tools/apt_cached.sh"
JOBS=${MORTAR_BUILD_JOBS:-$(nproc)}

# libfdt-dev: x86_64-softmmu has TARGET_NEED_FDT (for microvm), so configure
# insists on libfdt even though mortar uses pc.
BUILD_DEPS=(build-essential ninja-build meson pkg-config libglib2.0-dev
    libpixman-1-dev zlib1g-dev python3-venv dpkg-dev flex bison seabios
    qemu-system-data libfdt-dev)
# Only the x86_64 system emulator with the devices the machines select
# (pc/q35 keep working; no VGA, no NICs: mortar's NIC comes over mortar-pci).
CONFIGURE_ARGS=(--target-list=x86_64-softmmu --without-default-features
    --without-default-devices --disable-install-blobs --disable-docs
    --disable-werror)

log() { printf '[qemu] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# as_root CMD...: run CMD as root, directly or through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "need root (or sudo) for: $*"
    fi
}

# apt_retry CMD...: run an apt command as root, waiting and retrying while
# another process holds the apt/dpkg lock; any other failure is fatal.
apt_retry() {
    local try out
    out=$(mktemp)
    for try in $(seq 1 60); do
        if as_root "$@" -o DPkg::Lock::Timeout=60 2>&1 | tee "$out" >&2; then
            rm -f "$out"
            return 0
        fi
        grep -qiE 'could not get lock|unable to lock|is another process using it' "$out" ||
            { rm -f "$out"; die "'$*' failed"; }
        log "apt is locked by another process; retry $try/60 in 10 s"
        sleep 10
    done
    rm -f "$out"
    die "'$*': apt stayed locked"
}

# --- Debian source version ---------------------------------------------------

# Print the version (without epoch) of the qemu source `apt-get source` would
# fetch, or nothing when apt knows no qemu source.
apt_source_version() {
    { apt_cached "$QCACHE/apt" apt-get source --print-uris -qq qemu || true; } |
        awk '$2 ~ /^qemu_.*\.dsc$/ { v = $2; sub(/^qemu_/, "", v); sub(/\.dsc$/, "", v); print v; exit }'
}

# Print the source version; without deb-src entries, fall back to the
# candidate of the arch:all binary qemu-system-data (same version, same
# source) so --print-path and cache hits need no apt changes.
source_version() {
    local v
    v=$(apt_source_version)
    if [ -z "$v" ]; then
        v=$(apt_cached "$QCACHE/apt" apt-cache policy qemu-system-data |
            awk '/Candidate:/ { print $2; exit }')
        [ "$v" = "(none)" ] && v=
        v=${v#*:}
    fi
    [ -n "$v" ] || die "cannot tell the Debian qemu version (apt-cache knows no qemu)"
    printf '%s\n' "$v"
}

# --- cache key -----------------------------------------------------------------

# Print the repository-relative paths listed in src/libmortar.list.
listed_files() {
    local list=$HERE/src/libmortar.list line
    [ -f "$list" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        line=${line//[[:space:]]/}
        [ -n "$line" ] || continue
        case $line in
            /* | *..*) die "libmortar.list: '$line' must be a path inside the repository" ;;
        esac
        [ -f "$ROOT/$line" ] || die "libmortar.list: no such file: $line"
        printf '%s\n' "$line"
    done <"$list"
}

# Print, relative to ROOT and sorted, every file that goes into the build.
input_files() {
    (
        cd "$ROOT"
        printf '%s\n' hosts/qemu/build.sh
        find hosts/qemu/patches hosts/qemu/src -type f 2>/dev/null
        find include/mortar -maxdepth 1 -type f -name '*.h' 2>/dev/null
        listed_files
    ) | LC_ALL=C sort -u
}

# Print "<sha256>  <path>" for every input file, in order (one sha256sum for
# all: a process a file cost every run's --print-path 0.4 s).
input_listing() {
    input_files | (cd "$ROOT" && xargs -r -d '\n' sha256sum --)
}

compute_key() {
    local h
    h=$(input_listing | sha256sum | cut -c1-12)
    printf '%s-%s\n' "$VERSION" "$h"
}

binary_path() { printf '%s\n' "$QCACHE/$KEY/bin/qemu-system-x86_64"; }

# Report a ready build: refresh the "current" link, print the binary's path.
finish() {
    ln -sfn "$KEY" "$QCACHE/current"
    binary_path
}

# --- deb-src -------------------------------------------------------------------

# Print deb822 "Types: deb-src" stanzas copied from the machine's "deb"
# entries of release $1 (suites CODENAME and CODENAME-*), from enabled
# *.sources files and from one-line sources.list / *.list entries. Entries of
# other suites (third-party repositories) are left out.
derive_deb_src() {
    local codename=$1 parts list f
    parts=$(apt-config shell P Dir::Etc::sourceparts/d | sed -n "s/^P='\(.*\)'$/\1/p")
    list=$(apt-config shell L Dir::Etc::sourcelist/f | sed -n "s/^L='\(.*\)'$/\1/p")
    local sources=() lists=()
    for f in "$parts"/*.sources; do [ -f "$f" ] && sources+=("$f"); done
    [ -f "$list" ] && lists+=("$list")
    for f in "$parts"/*.list; do [ -f "$f" ] && lists+=("$f"); done

    [ ${#sources[@]} -eq 0 ] || awk -v cn="$codename" '
        function flush(   n, s, i, out) {
            if (types ~ /(^|[ \t])deb([ \t]|$)/ && uris != "" && enabled != "no") {
                n = split(suites, s, /[ \t]+/)
                out = ""
                for (i = 1; i <= n; i++)
                    if (s[i] == cn || index(s[i], cn "-") == 1)
                        out = out " " s[i]
                if (out != "") {
                    printf "Types: deb-src\nURIs: %s\nSuites:%s\nComponents: %s\n", uris, out, comps
                    if (signed != "")
                        printf "Signed-By: %s\n", signed
                    printf "\n"
                }
            }
            types = uris = suites = comps = signed = enabled = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ { next }      # continuation lines (inline keys) are not copied
        {
            key = tolower($0); sub(/:.*/, "", key)
            val = $0; sub(/^[^:]*:[ \t]*/, "", val)
            if (key == "types") types = val
            else if (key == "uris") uris = val
            else if (key == "suites") suites = val
            else if (key == "components") comps = val
            else if (key == "signed-by") signed = val
            else if (key == "enabled") enabled = tolower(val)
        }
        END { flush() }' "${sources[@]}"

    [ ${#lists[@]} -eq 0 ] || awk -v cn="$codename" '
        /^[ \t]*deb[ \t]/ {
            i = 2; signed = ""
            if ($2 ~ /^\[/) {                 # [arch=amd64 signed-by=/x.gpg]
                opts = ""
                for (; i <= NF; i++) { opts = opts " " $i; if ($i ~ /\]$/) { i++; break } }
                if (match(opts, /signed-by=[^] ]+/))
                    signed = substr(opts, RSTART + 10, RLENGTH - 10)
            }
            uri = $i; suite = $(i + 1); comps = ""
            for (j = i + 2; j <= NF && $j !~ /^#/; j++)
                comps = comps (comps == "" ? "" : " ") $j
            if (suite != cn && index(suite, cn "-") != 1)
                next
            printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n", uri, suite, comps
            if (signed != "")
                printf "Signed-By: %s\n", signed
            printf "\n"
        }' "${lists[@]}"
}

# Make `apt-get source qemu` work: when apt knows no qemu source, write
# mortar-src.sources from the machine's own deb entries and update.
ensure_deb_src() {
    [ -z "$(apt_source_version)" ] || return 0
    local codename parts entries
    # shellcheck disable=SC1091
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
    parts=$(apt-config shell P Dir::Etc::sourceparts/d | sed -n "s/^P='\(.*\)'$/\1/p")
    entries=$(derive_deb_src "$codename")
    [ -n "$entries" ] || die "no 'deb' entries for $codename in the apt configuration to derive deb-src from"
    log "no qemu source known to apt: adding deb-src entries to ${parts}mortar-src.sources"
    printf '# Written by mortar hosts/qemu/build.sh: deb-src twins of the deb entries\n# for %s, so that apt-get source qemu works.\n\n%s\n' \
        "$codename" "$entries" | as_root tee "${parts}mortar-src.sources" >/dev/null
    log "apt-get update"
    apt_retry apt-get update -q
    [ -n "$(apt_source_version)" ] || die "apt still knows no qemu source after adding deb-src entries"
}

ensure_build_deps() {
    local missing=() p
    for p in "${BUILD_DEPS[@]}"; do
        dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
            missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    log "installing build deps: ${missing[*]}"
    apt_retry env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# --- source tree ---------------------------------------------------------------

# Fetch and unpack the Debian source (Debian's patches applied) once per
# version into $QCACHE/src/<version>/; print the unpacked tree's path.
fetch_source() {
    local dir=$QCACHE/src/$VERSION tmp tree
    if [ -f "$dir/.mortar-fetched" ]; then
        cat "$dir/.mortar-fetched"
        return 0
    fi
    log "fetching qemu $VERSION source with apt-get source"
    rm -rf "$dir"
    tmp=$QCACHE/src/.tmp-$$
    rm -rf "$tmp"
    mkdir -p "$tmp"
    local opts=(-q)
    # As root, apt warns that its _apt sandbox user cannot write here.
    [ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
    (cd "$tmp" && apt-get source "${opts[@]}" qemu >&2)
    [ -f "$tmp/qemu_$VERSION.dsc" ] ||
        die "apt-get source fetched $(cd "$tmp" && ls -- *.dsc), not qemu_$VERSION.dsc; run again"
    tree=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -n1)
    if [ -z "$tree" ] || [ ! -f "$tree/configure" ]; then
        die "no unpacked qemu tree in $tmp"
    fi
    mv "$tmp" "$dir"
    tree=$dir/$(basename "$tree")
    printf '%s\n' "$tree" >"$dir/.mortar-fetched"
    printf '%s\n' "$tree"
}

# Print the hash of the patches; the work tree is re-made when it changes.
patches_hash() {
    (cd "$HERE" && find patches -type f -name '*.patch' | LC_ALL=C sort |
        xargs -r sha256sum) | sha256sum | cut -c1-12
}

# Make $TREE a patched copy of the pristine source (re-made only when the
# patches change, so unchanged files keep their mtimes for ninja).
prepare_tree() {
    local pristine=$1 want
    want=$(patches_hash)
    if [ -f "$WORK/tree.stamp" ] && [ "$(cat "$WORK/tree.stamp")" = "$want" ]; then
        return 0
    fi
    log "preparing the work tree $TREE"
    rm -rf "$TREE" "$BUILD" "$WORK/tree.stamp"
    mkdir -p "$WORK"
    cp -a "$pristine" "$TREE"
    local p
    for p in "$HERE"/patches/*.patch; do
        [ -f "$p" ] || continue
        log "applying patches/$(basename "$p")"
        patch -p1 -s -d "$TREE" <"$p" >&2 || die "patch $(basename "$p") does not apply"
    done
    printf '%s\n' "$want" >"$WORK/tree.stamp"
}

# Write hw/misc/mortar/meson.build for the .c files under $1 (a staging dir).
write_meson_build() {
    local stage=$1 f
    {
        printf '# Generated by hosts/qemu/build.sh; edit hosts/qemu/src/ instead.\n'
        printf '# Every .c here (mortar device sources, libmortar files) is built\n'
        printf '# into the system emulator; include/ is the project'"'"'s include/.\n'
        printf '# Files named *_target.c are built per target: they may include\n'
        printf '# target/i386/cpu.h.\n'
        printf 'mortar_files = files(\n'
        (cd "$stage" && find . -type f -name '*.c' ! -name '*_target.c' | sed 's|^\./||' |
            LC_ALL=C sort) |
            while IFS= read -r f; do printf "  '%s',\n" "$f"; done
        printf ')\n'
        printf 'mortar_target_files = files(\n'
        (cd "$stage" && find . -type f -name '*_target.c' | sed 's|^\./||' | LC_ALL=C sort) |
            while IFS= read -r f; do printf "  '%s',\n" "$f"; done
        printf ')\n'
        printf "mortar_dep = declare_dependency(include_directories: include_directories('include'))\n"
        printf "softmmu_ss.add(when: 'CONFIG_MORTAR_PCI', if_true: [mortar_files, mortar_dep])\n"
        printf "specific_ss.add(when: 'CONFIG_MORTAR_PCI', if_true: [mortar_target_files, mortar_dep])\n"
    } >"$stage/meson.build"
}

# Make $TREE/hw/misc/mortar/ equal to the project's files, touching only
# files whose content changed.
sync_mortar_dir() {
    local stage=$WORK/stage dest=$TREE/hw/misc/mortar f
    rm -rf "$stage"
    mkdir -p "$stage/include/mortar"
    (cd "$HERE/src" && find . -type f ! -name README.md ! -name libmortar.list) |
        while IFS= read -r f; do
            mkdir -p "$stage/$(dirname "$f")"
            cp "$HERE/src/$f" "$stage/$f"
        done
    if [ -d "$ROOT/include/mortar" ]; then
        find "$ROOT/include/mortar" -maxdepth 1 -type f -name '*.h' -exec cp -t "$stage/include/mortar" {} +
    fi
    listed_files | while IFS= read -r f; do
        mkdir -p "$stage/$(dirname "$f")"
        cp "$ROOT/$f" "$stage/$f"
    done
    write_meson_build "$stage"

    mkdir -p "$dest"
    (cd "$stage" && find . -type f) | while IFS= read -r f; do
        if ! cmp -s "$stage/$f" "$dest/$f"; then
            mkdir -p "$dest/$(dirname "$f")"
            cp "$stage/$f" "$dest/$f"
            log "updated hw/misc/mortar/${f#./}"
        fi
    done
    (cd "$dest" && find . -type f) | while IFS= read -r f; do
        [ -e "$stage/$f" ] || { rm -f "$dest/$f"; log "removed hw/misc/mortar/${f#./}"; }
    done
    rm -rf "$stage"
}

configure_build() {
    local want="${CONFIGURE_ARGS[*]}"
    if [ -f "$BUILD/build.ninja" ] && [ -f "$WORK/configure.stamp" ] &&
        [ "$(cat "$WORK/configure.stamp")" = "$want" ]; then
        return 0
    fi
    log "configure ${CONFIGURE_ARGS[*]}"
    rm -rf "$BUILD" "$WORK/configure.stamp"
    mkdir -p "$BUILD"
    (cd "$BUILD" && "$TREE/configure" "${CONFIGURE_ARGS[@]}" >&2) || die "configure failed"
    printf '%s\n' "$want" >"$WORK/configure.stamp"
}

# Quick checks of a fresh binary: the mortar device is in, and the patched
# -icount accepts a negative shift.
check_binary() {
    local bin=$1 out
    "$bin" -device help 2>&1 | grep -q '"mortar' ||
        die "$bin has no mortar device (hw/misc/mortar not built in?)"
    out=$(printf '{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n' |
        timeout 30 "$bin" -M none -nodefaults -display none \
            -icount shift=-4,sleep=off -qmp stdio 2>&1) ||
        die "$bin refuses -icount shift=-4: $out"
}

# --- main ----------------------------------------------------------------------

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

PRINT_PATH=0
case ${1:-} in
    --print-path) PRINT_PATH=1 ;;
    -h | --help) usage; exit 0 ;;
    "") ;;
    *) usage >&2; exit 2 ;;
esac

VERSION=$(source_version)
KEY=$(compute_key)
if [ "$PRINT_PATH" -eq 1 ]; then
    binary_path
    exit 0
fi

mkdir -p "$QCACHE"
if [ -x "$(binary_path)" ]; then
    log "cached: $(binary_path)"
    finish
    exit 0
fi

exec 9>"$QCACHE/.lock"
if ! flock -n 9; then
    log "waiting for another build.sh (lock $QCACHE/.lock)"
    flock 9
fi
if [ -x "$(binary_path)" ]; then
    log "cached (built meanwhile): $(binary_path)"
    finish
    exit 0
fi

START=$(date +%s)
ensure_deb_src
VERSION=$(apt_source_version)
KEY=$(compute_key)
log "building $KEY (qemu $VERSION + mortar inputs)"
ensure_build_deps

PRISTINE=$(fetch_source)
WORK=$QCACHE/work/$VERSION
TREE=$WORK/tree
BUILD=$WORK/build
prepare_tree "$PRISTINE"
sync_mortar_dir
configure_build
log "ninja -j$JOBS qemu-system-x86_64 (in $BUILD)"
ninja -C "$BUILD" -j"$JOBS" qemu-system-x86_64 >&2 || die "build failed (see above; work dir $WORK)"
check_binary "$BUILD/qemu-system-x86_64"
if [ "$(compute_key)" != "$KEY" ]; then
    log "warning: inputs changed during the build; storing it as $KEY anyway, run build.sh again"
fi

OUT=$QCACHE/$KEY
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/bin"
cp "$BUILD/qemu-system-x86_64" "$OUT.tmp/bin/"
printf '%s\n' "$VERSION" >"$OUT.tmp/source-version"
printf 'configure %s\n' "${CONFIGURE_ARGS[*]}" >"$OUT.tmp/configure-line"
input_listing >"$OUT.tmp/inputs.sha256"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
log "built $(binary_path) in $(($(date +%s) - START)) s"
finish
