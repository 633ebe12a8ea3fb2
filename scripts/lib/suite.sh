# Sourced by scripts/test and .ci/run: runs named test suites, times each,
# and ends with a summary of every suite that ran, passed, failed or was
# skipped, with the reason. A suite that cannot run on this machine exits
# 77 (automake's "skipped") and prints a line with SKIP and why; with
# ICB_NO_SKIP=1 (set by .ci/run) such a skip counts as a failure, so CI
# cannot go green on a suite it never ran.
#
# A script called by another that sources this file too (scripts/test
# under .ci/run) writes to its caller's summary (ICB_SUITE_LOG) and leaves
# the printing to it.

if [ -z "${ICB_SUITE_LOG:-}" ]; then
    ICB_SUITE_LOG=$(mktemp)
    export ICB_SUITE_LOG
    suite_owner=1
else
    suite_owner=0
fi
# This script's own lines of the summary start here.
suite_first=$(($(wc -l <"$ICB_SUITE_LOG") + 1))

# suite NAME CMD...: runs CMD, records NAME as passed, FAILED or skipped.
# Always returns 0: the summary decides the exit status.
suite() {
    local name=$1 start=$SECONDS out rc status why=""
    shift
    out=$(mktemp)
    echo "== $name: $*"
    set +e
    "$@" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    set -e
    case $rc in
        0) status=passed ;;
        77)
            why=$(grep -m1 -i 'skip' "$out" | cut -c1-160)
            if [ "${ICB_NO_SKIP:-0}" != 0 ]; then
                status=FAILED why="skipped where it must run: $why"
            else
                status=skipped
            fi
            ;;
        *) status=FAILED why="exit $rc" ;;
    esac
    rm -f "$out"
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - start))" "$why" >>"$ICB_SUITE_LOG"
    echo "== $name: $status in $((SECONDS - start)) s"
}

# skip NAME REASON: a suite this machine cannot run, and why.
skip() {
    printf '%s\tskipped\t0\t%s\n' "$1" "$2" >>"$ICB_SUITE_LOG"
    echo "== $1: skipped: $2"
}

# summary: the table, then exit 1 if any suite failed (the caller's
# `exit`). A nested script returns its own status without printing.
summary() {
    local failed
    failed=$(tail -n +"$suite_first" "$ICB_SUITE_LOG" | awk -F'\t' '$2 == "FAILED"' | wc -l)
    if [ "$suite_owner" = 1 ]; then
        echo
        echo "summary (suite, result, seconds, note):"
        awk -F'\t' '{ printf "  %-34s %-8s %6s s  %s\n", $1, $2, $3, $4 }' "$ICB_SUITE_LOG"
        local passed skipped
        passed=$(awk -F'\t' '$2 == "passed"' "$ICB_SUITE_LOG" | wc -l)
        skipped=$(awk -F'\t' '$2 == "skipped"' "$ICB_SUITE_LOG" | wc -l)
        echo "suites: $passed passed, $failed failed, $skipped skipped"
        rm -f "$ICB_SUITE_LOG"
    fi
    [ "$failed" = 0 ]
}
