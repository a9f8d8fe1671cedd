# tools/apt_cached.sh - sourced by hosts/qemu/build.sh and
# guest/build-image.sh: apt's answers (package and source versions) cached
# while apt's state is unchanged. Every `mortar run` asks both scripts for
# their cache key, and each apt question costs a second or more.
#
# apt_state              a fingerprint of apt's configuration, package
#                        lists and dpkg's status (sizes and modification
#                        times: an apt update or an install changes it)
# apt_cached DIR CMD...  CMD's output, from DIR/<hash of CMD and the state>
#                        when a non-empty answer is cached there; else run
#                        and, when it succeeds with output, cached
apt_state() {
    find /etc/apt /var/lib/apt/lists /var/lib/dpkg/status -maxdepth 2 \
        -printf '%p %s %T@\n' 2>/dev/null | LC_ALL=C sort | sha256sum | cut -c1-16
}

apt_cached() {
    local dir=$1 key out
    shift
    key=$({ printf '%s\n' "$*"; apt_state; } | sha256sum | cut -c1-24)
    if [ -s "$dir/$key" ]; then
        cat "$dir/$key"
        return 0
    fi
    out=$("$@" 2>/dev/null) || return 1
    if [ -n "$out" ] && mkdir -p "$dir" 2>/dev/null; then
        printf '%s\n' "$out" >"$dir/$key.$$" && mv -f "$dir/$key.$$" "$dir/$key" || true
    fi
    printf '%s\n' "$out"
}
