#!/usr/bin/env bash
# guest/build-image.sh — build mortar's guest image: kernel + initramfs.
#
# From Debian packages fetched with `apt-get download` (nothing is
# installed): the kernel behind linux-image-amd64 (vmlinuz and the modules
# in MODULES below, with their dependencies) and busybox-static. The
# initramfs (cpio newc, gzip) holds busybox and its applet links, /init from
# guest/init/init, the modules, and every file of build/guest-bin/ (static
# guest programs) in /usr/bin.
#
# Output: $CACHE/guest/<key>/{vmlinuz,initramfs.cpio.gz,kernel-version,...}
# with CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar} and
# key = <kernel package version>_<busybox version>_<sha256, 12 hex, of
# guest/init/*, build/guest-bin/* and this script>. A cached image is reused.
# apt's answers for the key (package versions) are cached in $CACHE/guest/apt/
# as long as apt's state is unchanged: every `mortar run` asks for the key.
#
# Usage: guest/build-image.sh               build if needed
#        guest/build-image.sh --print-path  print the image dir, build nothing
# Progress goes to stderr, prefixed "[guest]"; the last line on stdout is the
# image dir. $CACHE/guest/current links to the newest image.
set -euo pipefail
shopt -s inherit_errexit

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CACHE=${MORTAR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mortar}
GCACHE=$CACHE/guest
GUEST_BIN=${MORTAR_GUEST_BIN:-$ROOT/build/guest-bin}

# Kernel modules to put into the image, loaded by /init in this order (after
# their dependencies). e1000 and i40e: the NICs the e1000 and i40e models
# present over mortar-pci. PCI sysfs (resource files) needs no module.
MODULES=(e1000 i40e)
# NIC drivers: /init loads one only when a PCI device it drives is present
# (loading costs guest time after the hosts synchronize). "vendor:device
# module" lines, written to /lib/modules/pci-drivers.
NIC_DRIVERS=("8086:100e e1000.ko" "8086:1583 i40e.ko")
# Modules put into /lib/modules (with their dependencies, listed in
# /lib/modules/on-demand) but not loaded at boot: loading costs guest time
# after the hosts synchronize. The guest library loads them when a program
# needs them. uio_pci_generic (needs uio): INTx for guest programs, see
# docs/guest-programs.md. No VFIO: Debian's kernel lacks CONFIG_VFIO_NOIOMMU.
ON_DEMAND_MODULES=(uio_pci_generic)

log() { printf '[guest] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# apt_state and apt_cached (tools/apt_cached.sh).
. "$ROOT/tools/apt_cached.sh"

# Print the candidate version (epoch dropped) of package $1.
candidate() {
    local v
    v=$(apt_cached "$GCACHE/apt" apt-cache policy "$1" | awk '/Candidate:/ { print $2; exit }')
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
        die "apt knows no package $1"
    fi
    printf '%s\n' "${v#*:}"
}

# Print the versioned kernel package linux-image-amd64 depends on.
kernel_package() {
    local p
    p=$(apt_cached "$GCACHE/apt" apt-cache depends linux-image-amd64 |
        awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64$/ { print $2; exit }')
    [ -n "$p" ] || die "cannot resolve linux-image-amd64 to a versioned kernel package"
    printf '%s\n' "$p"
}

# Print "<sha256>  <path>" for every hashed input (paths relative to ROOT,
# guest programs as guest-bin/NAME).
input_listing() {
    (cd "$ROOT" && sha256sum guest/build-image.sh &&
        find guest/init -type f | LC_ALL=C sort | xargs -r sha256sum)
    if [ -d "$GUEST_BIN" ]; then
        (cd "$GUEST_BIN" && find . -type f | sed 's|^\./||' | LC_ALL=C sort |
            xargs -r sha256sum | sed 's|  |  guest-bin/|')
    fi
}

image_dir() { printf '%s\n' "$GCACHE/$KEY"; }

finish() {
    ln -sfn "$KEY" "$GCACHE/current"
    image_dir
}

# Download package $1 version $2 into $GCACHE/debs (once); print the .deb path.
download() {
    local pkg=$1 ver=$2 deb
    mkdir -p "$GCACHE/debs"
    deb=$(find "$GCACHE/debs" -maxdepth 1 -name "${pkg}_*${ver//+/?}_*.deb" | head -n1)
    if [ -z "$deb" ]; then
        log "apt-get download $pkg ($ver)"
        local opts=(-q)
        [ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
        (cd "$GCACHE/debs" && apt-get download "${opts[@]}" "$pkg" >&2) ||
            die "apt-get download $pkg failed"
        deb=$(find "$GCACHE/debs" -maxdepth 1 -name "${pkg}_*${ver//+/?}_*.deb" | head -n1)
        [ -n "$deb" ] || die "downloaded $pkg is not version $ver"
    fi
    printf '%s\n' "$deb"
}

# Print the module names module file $1 depends on (from its .modinfo).
module_depends() {
    readelf -p .modinfo "$1" 2>/dev/null |
        sed -n 's/^ *\[ *[0-9a-f]*\] *depends=//p' | tr ',' '\n' | sed '/^$/d'
}

# Print the path of module $2 (name, - and _ alike) under modules dir $1.
find_module() {
    local dir=$1 name=$2 alt
    alt=$(printf '%s' "$name" | tr '_-' '-_')
    find "$dir/kernel" -type f \( -name "$name.ko" -o -name "$name.ko.*" \
        -o -name "$alt.ko" -o -name "$alt.ko.*" \) | head -n1
}

# Copy module $3 and its dependencies from modules dir $1 into $2 (flat,
# decompressed), appending each to $2/${ORDER:-load-order} after its
# dependencies.
add_module() {
    local src=$1 dst=$2 name=$3 file base dep
    [ -f "$dst/.seen-$name" ] && return 0
    : >"$dst/.seen-$name"
    file=$(find_module "$src" "$name")
    if [ -z "$file" ]; then
        # Built into the kernel: nothing to load.
        grep -qE "/($name|$(printf '%s' "$name" | tr '_-' '-_'))\.ko\$" "$src/modules.builtin" && return 0
        die "module $name not in the kernel package"
    fi
    base=$(basename "$file")
    case $base in
        *.ko) cp "$file" "$dst/$base" ;;
        *.ko.xz) xz -dc "$file" >"$dst/${base%.xz}"; base=${base%.xz} ;;
        *.ko.zst) zstd -qdc "$file" >"$dst/${base%.zst}"; base=${base%.zst} ;;
        *.ko.gz) gzip -dc "$file" >"$dst/${base%.gz}"; base=${base%.gz} ;;
        *) die "unknown module format: $file" ;;
    esac
    for dep in $(module_depends "$dst/$base"); do
        add_module "$src" "$dst" "$dep"
    done
    printf '%s\n' "$base" >>"$dst/${ORDER:-load-order}"
}

build_image() {
    local kdeb bbdeb work root kdir kver f
    kdeb=$(download "$KPKG" "$KVER")
    bbdeb=$(download busybox-static "$BBVER")

    work=$GCACHE/.work-$$
    rm -rf "$work"
    mkdir -p "$work/kernel" "$work/busybox" "$work/out"
    trap 'rm -rf "$work"' EXIT
    log "extracting $(basename "$kdeb")"
    dpkg-deb -x "$kdeb" "$work/kernel"
    dpkg-deb -x "$bbdeb" "$work/busybox"

    kdir=$(find "$work/kernel/lib/modules" -mindepth 1 -maxdepth 1 -type d | head -n1)
    [ -n "$kdir" ] || die "no lib/modules/<version> in $(basename "$kdeb")"
    kver=$(basename "$kdir")
    [ -f "$work/kernel/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in $(basename "$kdeb")"

    root=$work/root
    mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,run,tmp,root,etc,mortar,lib/modules}
    chmod 1777 "$root/tmp"
    chmod 0700 "$root/root"

    # busybox and a link for each of its applets
    cp "$work/busybox/bin/busybox" "$root/bin/busybox"
    local applet
    for applet in $("$root/bin/busybox" --list-full); do
        [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
    done

    install -m 0755 "$HERE/init/init" "$root/init"

    local m
    for m in "${MODULES[@]}"; do
        add_module "$kdir" "$root/lib/modules" "$m"
    done
    for m in "${ON_DEMAND_MODULES[@]}"; do
        ORDER=on-demand add_module "$kdir" "$root/lib/modules" "$m"
    done
    rm -f "$root"/lib/modules/.seen-*
    printf '%s\n' "${NIC_DRIVERS[@]}" >"$root/lib/modules/pci-drivers"
    log "modules: $(tr '\n' ' ' <"$root/lib/modules/load-order")"
    log "modules on demand: $(tr '\n' ' ' 2>/dev/null <"$root/lib/modules/on-demand")"

    if [ -d "$GUEST_BIN" ]; then
        while IFS= read -r f; do
            if readelf -l "$GUEST_BIN/$f" 2>/dev/null | grep -q 'Requesting program interpreter'; then
                log "warning: guest-bin/$f is dynamically linked; the image has no libc"
            fi
            mkdir -p "$root/usr/bin/$(dirname "$f")"
            install -m 0755 "$GUEST_BIN/$f" "$root/usr/bin/$f"
            log "guest program: /usr/bin/$f"
        done < <(cd "$GUEST_BIN" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
    fi

    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
    printf 'root:x:0:\n' >"$root/etc/group"
    printf '127.0.0.1 localhost\n' >"$root/etc/hosts"

    # Same inputs, same bytes: fixed owner and mtime, sorted entries.
    log "packing initramfs"
    find "$root" -exec touch -h -d @0 {} +
    (cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
        cpio -o -H newc -R 0:0 --reproducible --quiet) | gzip -9n >"$work/out/initramfs.cpio.gz"
    cp "$work/kernel/boot/vmlinuz-$kver" "$work/out/vmlinuz"
    printf '%s\n' "$kver" >"$work/out/kernel-version"
    printf '%s %s\nbusybox-static %s\n' "$KPKG" "$KVER" "$BBVER" >"$work/out/packages"
    cp "$root/lib/modules/load-order" "$work/out/modules"
    input_listing >"$work/out/inputs.sha256"

    rm -rf "${GCACHE:?}/${KEY:?}"
    mv "$work/out" "$GCACHE/$KEY"
    rm -rf "$work"
    trap - EXIT
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

PRINT_PATH=0
case ${1:-} in
    --print-path) PRINT_PATH=1 ;;
    -h | --help) usage; exit 0 ;;
    "") ;;
    *) usage >&2; exit 2 ;;
esac

KPKG=$(kernel_package)
KVER=$(candidate "$KPKG")
BBVER=$(candidate busybox-static)
KEY=${KVER}_${BBVER}_$(input_listing | sha256sum | cut -c1-12)
if [ "$PRINT_PATH" -eq 1 ]; then
    image_dir
    exit 0
fi

mkdir -p "$GCACHE"
if [ -f "$GCACHE/$KEY/initramfs.cpio.gz" ]; then
    log "cached: $(image_dir)"
    finish
    exit 0
fi
exec 9>"$GCACHE/.lock"
if ! flock -n 9; then
    log "waiting for another build-image.sh (lock $GCACHE/.lock)"
    flock 9
fi
if [ ! -f "$GCACHE/$KEY/initramfs.cpio.gz" ]; then
    START=$(date +%s)
    log "building $KEY ($KPKG, busybox-static)"
    for tool in dpkg-deb cpio gzip readelf; do
        command -v "$tool" >/dev/null || die "$tool not found (packages dpkg, cpio, gzip, binutils)"
    done
    build_image
    log "built $(image_dir) in $(($(date +%s) - START)) s (kernel $(cat "$GCACHE/$KEY/kernel-version"))"
fi
finish
