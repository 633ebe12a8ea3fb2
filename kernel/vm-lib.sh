#!/bin/sh
# Helpers of the VM rig's guest tests (kernel/vm-test.sh sources this file;
# scripts/vm-rig-check --self-test runs them on the host under busybox, as
# the guest does). Each check prints one JSON line for scripts/vm-rig-check:
#   {"name":N,"expect":E,"rc":RC,"stderr":S,"result":R}
# RC is the exit status of the command itself, as `timeout` passes it on:
# 124 (coreutils) or 143 (busybox: the child's SIGTERM) when it was killed
# for taking too long, which the checker reports as a hang.
# Env: ICB_BIN (the icbench binary; /icb/icbench), ICB_DB, ICB_TMP.

T=${ICB_TMP:-/tmp}
say() { echo "$*"; }
# One line of text made safe inside a JSON string.
jstr() { tr '\n\r\t"\\' '     ' | tr -d '\000-\037'; }

# check NAME EXPECT TIMEOUT CMD...: the last line CMD prints (one JSON
# value), wrapped with CMD's own exit status. The output goes to a file,
# not a pipe, so that $? is CMD's and not that of a filter behind it.
check() {
    name=$1 expect=$2 t=$3; shift 3
    timeout "$t" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    out=$(tail -n 1 "$T/out")
    [ -n "$out" ] || out=null
    err=$(head -c 200 "$T/err" | jstr)
    say "{\"name\":\"$name\",\"expect\":\"$expect\",\"rc\":$rc,\"stderr\":\"$err\",\"result\":$out}"
}
state() { cat "$RP/state"; }
wait_state() {
    i=0
    while [ "$(state)" != "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
    say "{\"name\":\"$2\",\"expect\":\"state=$1\",\"result\":{\"state\":\"$(state)\"}}"
}
wait_node() {
    i=0
    while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
}
stats() { tr '\n' ' ' < /sys/devices/platform/virtual-rproc/stats | sed 's/ *$//'; }

has_link() { echo "$LINKS" | grep -qE -- "--link $1(:| |$)"; }
# icb_run NAME EXPECT SPEC PROTO [ARGS...]: one `icbench run --json`
# (ping-pong unless ARGS give -p), its JSON wrapped; killed after
# ICB_RUN_TIMEOUT seconds (180), which the checker reports as a hang.
icb_run() {
    name=$1 expect=$2 spec=$3 proto=$4; shift 4
    kind=${spec%%:*}; kind=${kind%%\?*}
    if ! has_link "$kind"; then
        say "{\"name\":\"$name\",\"expect\":\"$expect\",\"result\":{\"skipped\":\"this icbench has no $kind link or no --protocol\"}}"
        return
    fi
    case " $* " in *" -p "*) pattern= ;; *) pattern="-p pingpong" ;; esac
    # One block per cell: these are checks of the drivers, not of figures.
    case " $* " in *" --replicates "*) ;; *) pattern="$pattern --replicates 1" ;; esac
    # shellcheck disable=SC2086  # $pattern is a few words or none
    timeout "${ICB_RUN_TIMEOUT:-180}" "${ICB_BIN:-/icb/icbench}" run -L "$spec" --protocol "$proto" \
        $pattern --no-floor --json --db "${ICB_DB:-/tmp/icb.db}" --cpus 0,1 "$@" \
        >"$T/out" 2>"$T/err"
    rc=$?
    out=$(tr -d '\n' <"$T/out")
    [ -n "$out" ] || out=null
    say "{\"name\":\"$name\",\"expect\":\"$expect\",\"rc\":$rc,\"stderr\":\"$(tail -c 300 "$T/err" | jstr)\",\"result\":$out}"
}

# seed001_cases LOG: nlunit31's log (kernel/tools/nlunit31.c: seed 001's
# netlink client on the wire) as one JSON object: the block sizes its
# "blocks:" line lists, its "pattern CRC16:" value, each
# "- HH:MM:SS.mmm INFO: -> b: N, nsec: T, bytes sent: S" line (the seed's
# log format) and each "reply: b: N, type: Y, count: C" line, for
# vm-rig-check's `seed001` expectation.
seed001_cases() {
    ts='- [0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9] INFO:'
    added=$(sed -n "s/^$ts blocks:\\(\\( [0-9][0-9]*\\)*\\)\$/\\1/p" "$1" | head -n 1 | sed 's/^ //; s/ /,/g')
    crc=$(sed -n "s/^$ts pattern CRC16: \\(0x[0-9a-f]*\\)\$/\\1/p" "$1" | head -n 1)
    cases=$(sed -n "s/^$ts -> b: \\([0-9][0-9]*\\), nsec: \\([0-9][0-9]*\\), bytes sent: \\([0-9][0-9]*\\)\$/{\"b\":\\1,\"nsec\":\\2,\"sent\":\\3}/p" "$1" \
        | tr '\n' ',' | sed 's/,$//')
    replies=$(sed -n "s/^$ts reply: b: \\([0-9][0-9]*\\), type: \\(-\\{0,1\\}[0-9][0-9]*\\), count: \\(-\\{0,1\\}[0-9][0-9]*\\)\$/{\"b\":\\1,\"type\":\\2,\"count\":\\3}/p" "$1" \
        | tr '\n' ',' | sed 's/,$//')
    say "{\"added\":[$added],\"crc\":\"$crc\",\"cases\":[$cases],\"replies\":[$replies],\"tail\":\"$(tail -n 3 "$1" | jstr)\"}"
}
