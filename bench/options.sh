# bench/options.sh - the command line of the bench-* scripts, sourced by
# each right after it knows the source tree. Their knobs are environment
# variables; the only options are --help (the script's header comment, on
# stdout, exit 0) and --version. Anything else is a usage error (exit 2).
#
#   bench_options NAME SCRIPT "$@"
bench_options() {
    local name=$1 script=$2
    shift 2
    case "${1-}" in
    "") [ $# -eq 0 ] && return 0 ;;
    -h | --help)
        if [ $# -eq 1 ]; then
            echo "Usage: $name [--help | --version]  (knobs: environment variables, below)"
            awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$script"
            exit 0
        fi ;;
    --version)
        if [ $# -eq 1 ]; then
            echo "$name (mortar) $(sed -n 's/^project(mortar VERSION \([0-9.]*\).*/\1/p' \
                "$MORTAR_SOURCE/CMakeLists.txt")"
            exit 0
        fi ;;
    esac
    echo "$name: unrecognized arguments: $*" >&2
    echo "Try '$name --help' for more information." >&2
    exit 2
}
