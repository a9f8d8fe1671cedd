# tests/reliability/lib_default_study.sh - for the scripts whose commands
# read the build's default study (share/mortar/default-study): a build of
# the platform without studies/ has none, and what needs it is skipped
# instead of failing for a study not there.
#
#   have_default_study           true when the build's default study is there
#   need_default_study           exit 77 (CTest's SKIP_RETURN_CODE) unless it is

have_default_study() {
    local rel
    rel=$(head -n1 "${MORTAR_BIN:-build/bin}/../share/mortar/default-study" 2>/dev/null || true)
    [ -n "$rel" ] && [ -e "${MORTAR_SOURCE:-.}/$rel" ]
}

need_default_study() {
    have_default_study && return 0
    echo "skipped: this build has no default study (the platform without studies/)"
    exit 77
}
