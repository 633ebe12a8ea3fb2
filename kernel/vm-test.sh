#!/bin/sh
# In-VM tests of the VM rig (run by vm-init.sh; output parsed on the host by
# scripts/vm-rig-check).  Every result is one JSON line between the markers
#   @@ICB-VM-BEGIN@@ … @@ICB-VM-END@@
# of the form {"name":N,"expect":E,"result":R}: E says what the host must
# find in R (clean, lost, mismatch, delay>=NS, state=S, ...).  Timings are
# real timings of the real driver stack on the guest's virtual CPUs.
P=/sys/module/virtual_rproc/parameters
RP=
N=${ICB_N:-200}

. "${ICB_VM_LIB:-/icb/vm-lib.sh}"

say "@@ICB-VM-BEGIN@@"
CS=/sys/devices/system/clocksource/clocksource0/current_clocksource
say "{\"name\":\"boot\",\"expect\":\"info\",\"result\":{\"clocksource\":\"$(cat $CS)\",\"cpus\":$(grep -c ^processor /proc/cpuinfo),\"kernel\":\"$(uname -r)\",\"cmdline\":\"$(cat /proc/cmdline)\"}}"
[ -d /sys/class/remoteproc ] && rpc=1 || rpc=0
say "{\"name\":\"remoteproc-class\",\"expect\":\"present\",\"result\":{\"present\":$rpc}}"

insmod /icb/virtual_rproc.ko cpu=1 ${ICB_VRING_NUM:+vring_num=$ICB_VRING_NUM} 2>/tmp/err
insmod /icb/icb_nl_bridge.ko 2>>/tmp/err
for d in /sys/class/remoteproc/remoteproc*; do
    [ "$(cat "$d/name" 2>/dev/null)" = virtual-rproc ] && RP=$d
done
if [ -z "$RP" ]; then
    say "{\"name\":\"modules\",\"expect\":\"present\",\"result\":{\"present\":0,\"err\":\"$(tr '\n"' '  ' </tmp/err)\"}}"
    say "@@ICB-VM-END@@"; exit 1
fi
say "{\"name\":\"modules\",\"expect\":\"present\",\"result\":{\"present\":1}}"

echo start > "$RP/state"
wait_state running start
wait_node /dev/rpmsg_ctrl0; wait_node /dev/ttyRPMSG0
RAW=$(i=0; while [ $i -lt 50 ]; do vmcheck find rpmsg-raw 1024 && break; sleep 0.1; i=$((i+1)); done)
say "{\"name\":\"nodes\",\"expect\":\"nodes\",\"result\":{\"ctrl\":$([ -e /dev/rpmsg_ctrl0 ] && echo 1 || echo 0),\"tty\":$([ -e /dev/ttyRPMSG0 ] && echo 1 || echo 0),\"raw\":\"$RAW\",\"bridge\":$(dmesg | grep -c 'netlink family icbench_bridge')}}"

# --- your own program against the running remote (scripts/vm-rig VM_EXTRA=…)
if [ -f /icb/extra/run.sh ]; then
    say "@@ICB-VM-EXTRA-BEGIN@@"
    RAW=$RAW RP=$RP PATH=/icb/extra:$PATH timeout 300 sh /icb/extra/run.sh 2>&1
    say "@@ICB-VM-EXTRA-END@@ rc=$?"
    # it may have restarted the remote: the endpoint device may be new
    [ "$(state)" = running ] || { echo start > "$RP/state"; wait_state running extra/restart; }
    RAW=$(i=0; while [ $i -lt 50 ]; do vmcheck find rpmsg-raw 1024 && break; sleep 0.1; i=$((i+1)); done)
fi

# --- the real user interfaces, raw echo, with vmcheck -------------------
for p in proto_raw proto_tty proto_nl; do echo raw > $P/$p; done
for size in 1 64 496; do
    check "rpmsg-ctrl/raw/$size" clean 60 vmcheck ctrl /dev/rpmsg_ctrl0 1024 "$N" $size
    check "rpmsg/raw/$size" clean 60 vmcheck dev "$RAW" "$N" $size
    check "tty/raw/$size" clean 60 vmcheck tty /dev/ttyRPMSG0 "$N" $size
    check "netlink-bridge/raw/$size" clean 60 vmcheck nl "$N" $size
done
check "tty/raw/4096" clean 60 vmcheck tty /dev/ttyRPMSG0 50 4096
check "netlink-bridge/raw/4000-chunked" clean 60 vmcheck nl 50 4000
check "netlink-bridge/raw/64-3clients" clean 60 vmcheck nl "$N" 64 3

# --- icbench's netlink-bridge link (its test, built for the guest) -----
if [ -x /icb/icbench-link-tests ]; then
    out=$(timeout 120 /icb/icbench-link-tests --exact sys::nlbridge::tests::echo_through_the_real_bridge --nocapture 2>&1)
    rc=$?
    ok=$(echo "$out" | grep -c 'echoed 1 B')
    say "{\"name\":\"icbench-link/netlink-bridge\",\"expect\":\"present\",\"rc\":$rc,\"result\":{\"present\":$([ $rc = 0 ] && [ "$ok" = 1 ] && echo 1 || echo 0),\"out\":\"$(echo "$out" | tail -n 5 | tr '\n"\\' '   ')\"}}"
fi

# --- icbench over the merged links (icb, raw, dimtass) -----------------
LINKS=
if [ -x /icb/icbench ]; then
    LINKS=$(/icb/icbench links 2>/dev/null)
    # the remote protocols come with `--protocol` (the remote-protocol issue)
    /icb/icbench run --help 2>/dev/null | grep -q -- '--protocol' || LINKS=
fi
SPECS="rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024 rpmsg:RAW tty:/dev/ttyRPMSG0 netlink-bridge"
for proto in icb raw dimtass; do
    for p in proto_raw proto_tty proto_nl; do echo $proto > $P/$p; done
    for spec in $SPECS; do
        spec=$(echo "$spec" | sed "s|RAW|$RAW|")
        kind=${spec%%:*}
        icb_run "icbench/$kind/$proto" icbench "$spec" $proto -s 16,256,496
    done
done
# reference 003's 32 channels: 32 rpmsg-ctrl endpoints at once, each with its
# own responder in the remote, over one common window. The window is 200 ms
# unless the kernel command line says otherwise (icb_cell_32ch=, from
# scripts/vm-rig): the armv7 guest's round trips mostly take a 10 ms jiffy,
# and 200 ms windows in which no channel completed a message came up in both
# of its first full runs (4 of the 4 cells in one, 1 in the other).
echo icb > $P/proto_raw
icb_run "icbench/rpmsg-ctrl/icb/32-channels" icbench \
    "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024" icb -p pingpong -p stream -s 64,496 -P 32 \
    --cell-time "${icb_cell_32ch:-200ms}"
# --- sdb: ST's stm32-rpmsg-sdb interface (kernel/sdb) ----------------
# Buffers mmap()ed from /dev/rpmsg-sdb, only descriptors on the
# rpmsg-sdb-channel; the remote (firmware/src/icb_sdb.c) fills, checks and
# copies them. Live buffers are counted in /sys/module/icb_sdb/parameters.
SDBP=/sys/module/icb_sdb/parameters
insmod /icb/icb_sdb.ko 2>/tmp/err
wait_node /dev/rpmsg-sdb
say "{\"name\":\"sdb/node\",\"expect\":\"present\",\"result\":{\"present\":$([ -e /dev/rpmsg-sdb ] && echo 1 || echo 0),\"err\":\"$(jstr </tmp/err)\"}}"
if [ -x /icb/icbench-link-tests ]; then
    out=$(timeout 120 /icb/icbench-link-tests --exact sys::sdb::tests::fill_and_check_through_the_real_module --nocapture 2>&1)
    rc=$?
    # 4 sizes each way, the corrupted offset, the ignored buffer: 6 lines
    ok=$(echo "$out" | grep -c '^sdb: .*\(checked\|offset 12345\)')
    say "{\"name\":\"icbench-link/sdb\",\"expect\":\"present\",\"rc\":$rc,\"result\":{\"present\":$([ $rc = 0 ] && [ "$ok" = 6 ] && echo 1 || echo 0),\"out\":\"$(echo "$out" | grep '^sdb:' | jstr)\"}}"
fi
for p in proto_raw proto_tty; do echo raw > $P/$p; done
SDB="sdb:/dev/rpmsg-sdb?size=4M"
icb_run "icbench/sdb/raw" icbench "$SDB" raw -s 4K,64K,1M,4M
# beside the rpmsg paths, in one run: the comparison's sizes the rig affords
# (a 1 MiB echo through 496-byte rpmsg messages took 0.1-2.4 s per sample
# under TCG and stalled past 5 s in one boot: measured by hand, plans/017)
icb_run "icbench/sdb-beside-rpmsg/raw" icbench "$SDB" raw -s 512,4K,64K --timeout 20s \
    -L "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024" -L "rpmsg:$RAW" -L tty:/dev/ttyRPMSG0
# --- sdb stream, both ways (issue 17 item 1), and buffers past 4 MiB (CMA) --
# remote fills → icbench checks every byte; icbench fills → the remote checks
# every byte and reports; two buffers in flight. 32 MiB buffers come from the
# CMA area (kernel/vm.config, cma= from scripts/vm-rig).
icb_run "icbench/sdb/stream" icbench "$SDB" raw -p stream --direction both -s 64K,1M,4M
icb_run "icbench/sdb/32M" icbench "sdb:/dev/rpmsg-sdb?size=32M" raw -p pingpong -p stream \
    --direction both -s 32M --timeout 30s
say "{\"name\":\"sdb/cma\",\"expect\":\"info\",\"result\":{\"meminfo\":\"$(grep -E '^(MemTotal|MemFree|CmaTotal|CmaFree)' /proc/meminfo | jstr)\"}}"
# plans/017 in one run, the sizes the required rig affords: sdb against
# rpmsg_char at 4 KiB, 64 KiB and 1 MiB (three points for each link's line
# in `icbench model`). A 1 MiB echo is ≈ 2 100 496-byte messages each way,
# 0.25-8 s per sample under TCG (8 s when the remote's wakeups snap to the
# guest's 4 ms ticks): --timeout is the longest sample, so 60 s.
# The armv7 guest (icb_017_sizes=, from scripts/vm-rig) takes 4, 16 and 64
# KiB: there a 1 MiB echo is some 20 s a sample (kernel/README.md).
ICB_RUN_TIMEOUT=600
icb_run "icbench/017/raw" icbench "$SDB" raw -s "${icb_017_sizes:-4K,64K,1M}" --timeout 60s \
    -L "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024"
# `icbench model` of that run, per link (the store stays in the guest; the
# fit comes out in results.json)
model017() {
    check "$1" info 120 sh -c "${ICB_BIN:-/icb/icbench} model latest --db ${ICB_DB:-/tmp/icb.db} \
        --json --predict 1M | tr -d '\n'"
}
has_link sdb && model017 icbench/017/model
# the whole comparison (512 B-32 MiB; the rpmsg paths to 1 MiB, past which
# one sample takes minutes under TCG) only when asked: VM_SDB_SWEEP=1
if [ -n "${icb_sdb_sweep:-}" ]; then
    ICB_RUN_TIMEOUT=7200
    icb_run "icbench/017-sweep/raw" icbench "sdb:/dev/rpmsg-sdb?size=32M" raw \
        -p pingpong -s 512,4K,32K,256K,1M,2M,8M,32M --timeout 120s
    model017 icbench/017-sweep/model
    icb_run "icbench/017-sweep-rpmsg/raw" icbench \
        "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024" raw -p pingpong \
        -s 512,4K,32K,256K,1M --timeout 120s -L "rpmsg:$RAW" -L tty:/dev/ttyRPMSG0 \
        -L "sdb:/dev/rpmsg-sdb?size=32M"
    model017 icbench/017-sweep-rpmsg/model
    icb_run "icbench/017-sweep-stream/raw" icbench "sdb:/dev/rpmsg-sdb?size=32M" raw \
        -p stream --direction both -s 64K,1M,4M,32M --timeout 120s
    # the guest's store, whole, for `icbench report`/`model` on the host:
    # scripts/vm-rig decodes it into $VM_DIR/guest.db
    say "@@ICB-VM-DB-BEGIN@@"
    base64 "${ICB_DB:-/tmp/icb.db}"
    say "@@ICB-VM-DB-END@@"
fi
unset ICB_RUN_TIMEOUT
# VM_RIG_BUNDLE=FILE on the host (issue #31 item 3): a run of figures, not
# checks (icbench's default repeats and cell time), over every rpmsg link
# with the icb protocol and over sdb, and the GPIO loopback's interrupt
# latency below: one bundle, written at the end of this script.
run_id() { "${ICB_BIN:-/icb/icbench}" show latest --json --db "${ICB_DB:-/tmp/icb.db}" 2>/dev/null |
    sed -n 's/^ *"run_id": \([0-9]*\),*$/\1/p' | head -n 1; }
if [ -n "${icb_bundle:-}" ] && has_link sdb; then
    board="VM rig: Linux $(uname -r) rpmsg stack, virtual remote ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), emulated)"
    for proto in proto_raw proto_tty proto_nl; do echo icb > $P/$proto; done
    ICB_RUN_TIMEOUT=1800 icb_run "bundle/rpmsg" icbench \
        "rpmsg-ctrl:/dev/rpmsg_ctrl0?name=icbench&dst=1024" icb -p pingpong -p stream \
        -s 16,256,496 -L "rpmsg:$RAW" -L tty:/dev/ttyRPMSG0 -L netlink-bridge --replicates 3
    first=$(run_id)
    "${ICB_BIN:-/icb/icbench}" label latest "$board" --db "${ICB_DB:-/tmp/icb.db}" >/dev/null
    ICB_RUN_TIMEOUT=1800 icb_run "bundle/sdb" icbench "$SDB" raw -p pingpong -p stream \
        -s 4K,64K,1M --replicates 3 --timeout 20s
    "${ICB_BIN:-/icb/icbench}" label latest "$board" --db "${ICB_DB:-/tmp/icb.db}" >/dev/null
    # written at the end, with the GPIO loopback's interrupt run
    bundle_runs="$first $(run_id)"
fi
# a remote that damages every buffer it fills or reads: each stream cell
# fails either way, naming the byte
echo 1 > $P/corrupt_every
icb_run "icbench-fault/corrupt/sdb-stream" "icbench-fails:at byte 32768" "$SDB" raw -p stream \
    --direction both -s 64K --timeout 2s
echo 0 > $P/corrupt_every
# --- end of the sdb stream block

# a remote that damages every buffer it copies: each cell fails, naming
# the byte (the middle of a 64 KiB buffer)
echo 1 > $P/corrupt_every
icb_run "icbench-fault/corrupt/sdb" "icbench-fails:sent at byte 32768" "$SDB" raw -s 64K --timeout 2s
echo 0 > $P/corrupt_every
# kill -9 of a run holding 4 buffers: the driver frees them on release
/icb/icbench run -L "sdb:/dev/rpmsg-sdb?buffers=4&size=1M" --protocol raw -p pingpong -s 1M \
    --cell-time 60s --replicates 1 --no-floor --db /tmp/leak.db --cpus 0,1 >/dev/null 2>&1 &
pid=$!
i=0; while [ "$(cat $SDBP/live_buffers)" -lt 4 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
held=$(cat $SDBP/live_buffers)
kill -9 $pid; wait $pid 2>/dev/null
i=0; while [ "$(cat $SDBP/live_buffers)" != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
after=$(cat $SDBP/live_buffers) bytes=$(cat $SDBP/live_bytes) orphans=$(cat $SDBP/orphans)
say "{\"name\":\"sdb/leak-kill9\",\"expect\":\"present\",\"result\":{\"present\":$([ "$held" -ge 4 ] && [ "$after" = 0 ] && [ "$bytes" = 0 ] && [ "$orphans" = 0 ] && echo 1 || echo 0),\"held\":$held,\"after\":$after,\"bytes\":$bytes,\"orphans\":$orphans,\"reports\":$(cat $SDBP/reports),\"bad_reports\":$(cat $SDBP/bad_reports)}}"
# a remote that drops every message never reports: each cell fails on --timeout;
# its buffers, owed a report, are kept (orphans) until the channel goes
echo 1 > $P/drop_every
icb_run "icbench-fault/silent/sdb" "icbench-fails:timeout" "$SDB" raw -s 4K --timeout 2s
echo 0 > $P/drop_every
orphans=$(cat $SDBP/orphans)
rmmod icb_sdb; urc=$?
left=$(cat $SDBP/live_buffers 2>/dev/null || echo 0)
say "{\"name\":\"sdb/unload\",\"expect\":\"present\",\"result\":{\"present\":$([ $urc = 0 ] && [ ! -e /dev/rpmsg-sdb ] && [ ! -d $SDBP ] && echo 1 || echo 0),\"orphans_before\":$orphans,\"left\":$left}}"
echo icb > $P/proto_raw; echo icb > $P/proto_tty

# faults seen by icbench: a corrupting remote fails cells with a reason
echo icb > $P/proto_nl; echo icb > $P/proto_tty
echo 3 > $P/corrupt_every
icb_run "icbench-fault/corrupt/netlink-bridge" "icbench-fails:CRC mismatch" netlink-bridge icb -s 64 --timeout 2s
icb_run "icbench-fault/corrupt/tty" "icbench-fails:CRC mismatch" tty:/dev/ttyRPMSG0 icb -s 64 --timeout 2s
echo 0 > $P/corrupt_every
for p in proto_raw proto_tty proto_nl; do echo raw > $P/$p; done

# --- seed 001's netlink path (kernel/README.md, "Seed 001's own
# client"): the bridge reloaded with compat_unit=31 serves the seed's raw
# netlink unit beside its family, the remote answers the bridge's channel in
# the dimtass format, and nlunit31 (kernel/tools) sends the seed client's
# seven blocks, byte for byte as that client did; then icbench over the same
# unit, and nlunit31's log imported into the same store.
if [ -x /bin/nlunit31 ]; then
    rmmod icb_nl_bridge && insmod /icb/icb_nl_bridge.ko compat_unit=31
    i=0
    while ! dmesg | grep -q 'netlink unit 31 (seed 001) bridged' && [ $i -lt 50 ]; do
        sleep 0.1; i=$((i+1))
    done
    echo dimtass > $P/proto_nl
    # nlunit31 gives up on a reply after 30 s; bounded here as well
    timeout 120 nlunit31 >"$T/seed001.log" 2>"$T/err"; rc=$?
    say "{\"name\":\"seed001/client\",\"expect\":\"seed001\",\"rc\":$rc,\"stderr\":\"$(head -c 200 "$T/err" | jstr)\",\"result\":$(seed001_cases "$T/seed001.log")}"
    sed 's/^/seed001: /' "$T/seed001.log"
    # its seven sizes, on the same path, in the same format, from icbench
    icb_run "seed001/icbench/netlink-bridge-unit31" icbench "netlink-bridge?unit=31" dimtass \
        -s 512,1K,2K,4K,8K,16K,32K
    if has_link netlink-bridge; then
        timeout 60 /icb/icbench import "$T/seed001.log" -f seed-netlink -L "netlink-bridge?unit=31" \
            --db "${ICB_DB:-/tmp/icb.db}" --json >"$T/out" 2>"$T/err"; rc=$?
        out=$(tr -d '\n' <"$T/out"); [ -n "$out" ] || out=null
        say "{\"name\":\"seed001/import\",\"expect\":\"imported=7\",\"rc\":$rc,\"stderr\":\"$(tail -c 200 "$T/err" | jstr)\",\"result\":$out}"
    fi
    # the family still serves its own clients beside the unit
    echo raw > $P/proto_nl
    check "seed001/netlink-bridge-family/raw/64" clean 60 vmcheck nl 20 64
    rmmod icb_nl_bridge && insmod /icb/icb_nl_bridge.ko; urc=$?
    say "{\"name\":\"seed001/reload\",\"expect\":\"present\",\"result\":{\"present\":$([ $urc = 0 ] && echo 1 || echo 0)}}"
fi

# --- faults ------------------------------------------------------------
echo 2000 > $P/delay_us
check "fault/delay/rpmsg" "delay>=2000000" 60 vmcheck dev "$RAW" 20 64
echo 0 > $P/delay_us
echo 4 > $P/drop_every
check "fault/drop/rpmsg" lost 60 vmcheck dev "$RAW" 8 64
check "fault/drop/netlink-bridge" lost 60 vmcheck nl 8 64
echo 0 > $P/drop_every
echo 3 > $P/corrupt_every
check "fault/corrupt/rpmsg" mismatch 60 vmcheck dev "$RAW" 9 64
check "fault/corrupt/tty" mismatch 60 vmcheck tty /dev/ttyRPMSG0 9 64
echo 0 > $P/corrupt_every
echo 1 > $P/stall
check "fault/stall/tty" lost 60 vmcheck tty /dev/ttyRPMSG0 4 4096
check "fault/stall/rpmsg" lost 60 vmcheck dev "$RAW" 2 64
echo 0 > $P/stall
# the remote now answers the backlog: those replies are stale
check "fault/stall-drain/rpmsg" info 10 vmcheck drain "$RAW"
check "fault/stall-recovered/rpmsg" clean 60 vmcheck dev "$RAW" 20 64

# crash with recovery disabled: the state must read `crashed`
echo disabled > "$RP/recovery"
echo 1 > $P/crash
wait_state crashed "fault/crash/state"
check "fault/crash/rpmsg" lost 60 vmcheck dev "$RAW" 2 64
# icbench must fail these cells with a reason, not hang: the rpmsg links
# watch the remoteproc state (`crashed`); the others time out
icb_run "icbench-fault/crash/rpmsg" "icbench-fails:crashed" "rpmsg:$RAW" raw -s 64 --timeout 2s
icb_run "icbench-fault/crash/netlink-bridge" "icbench-fails:timeout" netlink-bridge raw -s 64 --timeout 2s
echo recover > "$RP/recovery"
wait_state running "fault/crash/recovered-state"
RAW=$(i=0; while [ $i -lt 50 ]; do vmcheck find rpmsg-raw 1024 && break; sleep 0.1; i=$((i+1)); done)
check "fault/crash/recovered-rpmsg" clean 60 vmcheck dev "$RAW" 20 64
check "fault/crash/recovered-netlink-bridge" clean 60 vmcheck nl 20 64
# and with recovery enabled: remoteproc restarts it by itself
echo enabled > "$RP/recovery"
echo 1 > $P/crash
sleep 2
wait_state running "fault/crash-auto/state"
RAW=$(i=0; while [ $i -lt 50 ]; do vmcheck find rpmsg-raw 1024 && break; sleep 0.1; i=$((i+1)); done)
check "fault/crash-auto/rpmsg" clean 60 vmcheck dev "$RAW" 20 64

say "{\"name\":\"clocksource-at-end\",\"expect\":\"info\",\"result\":{\"clocksource\":\"$(cat $CS)\"}}"
say "{\"name\":\"remote-stats\",\"expect\":\"info\",\"result\":{\"stats\":\"$(stats)\"}}"
# The library's cache hooks (issue #34 item 4): each message the remote sent
# cleans its buffer, the used element and the used index (3 calls); each it
# took cleans the element and index it gave back (2); every buffer taken
# invalidates the avail index, the ring entry and the descriptor (3), and a
# received one its header too (1 more).  The counts only add beyond these.
say "$(stats | awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
  END { tx = v["tx_msgs"]; rx = v["rx_msgs"]; ok = (tx > 0 && rx > 0 &&
        v["cache_clean"] >= 3 * tx + 2 * rx && v["cache_inval"] >= 3 * tx + 4 * rx)
        printf "{\"name\":\"remote-cache-hooks\",\"expect\":\"present\",\"result\":{\"present\":%d,\"tx\":%d,\"rx\":%d,\"clean\":%d,\"inval\":%d}}", ok, tx, rx, v["cache_clean"], v["cache_inval"] }')"
echo stop > "$RP/state"
wait_state offline stop
# unloading with the remote running tears it down through rproc_del
echo start > "$RP/state"
wait_state running restart
check "restart/netlink-bridge" clean 60 vmcheck nl 20 64
rmmod virtual_rproc && rmmod icb_nl_bridge; urc=$?
say "{\"name\":\"unload\",\"expect\":\"present\",\"result\":{\"present\":$([ $urc = 0 ] && [ ! -e /sys/module/virtual_rproc ] && echo 1 || echo 0)}}"
# ST's 16-buffer vrings: full rings, blocking sends and -ENOMEM from rpmsg_tty
insmod /icb/icb_nl_bridge.ko && insmod /icb/virtual_rproc.ko cpu=1 vring_num=16
echo raw > $P/proto_raw; echo raw > $P/proto_tty; echo raw > $P/proto_nl
echo start > "$RP/state"
wait_state running "vring16/start"
wait_node /dev/ttyRPMSG0; sleep 0.5
check "vring16/tty/raw/4096" clean 60 vmcheck tty /dev/ttyRPMSG0 20 4096
check "vring16/netlink-bridge/raw/16000-chunked" clean 60 vmcheck nl 20 16000
check "vring16/netlink-bridge/raw/496-3clients" clean 60 vmcheck nl 50 496 3
# Reference 000 could not send "more than 5-6KB per run" over ttyRPMSG
# (512-byte blocks, dimtass format, every block written before the count
# is read) and guessed at a ring overflow. With ST's 16 buffers the TX ring
# (8 KiB) does fill when the remote is slower than the writer, and
# rpmsg_tty has no flow control: a write finding the ring full fails with
# ENOMEM (rpmsg_trysend); a client that does not retry loses that block
# and waits for ever for its count. icbench retries each refused message
# and counts it (tx_busy): 000's own matrix past 8 KiB is measured whole.
echo dimtass > $P/proto_tty
icb_run "vring16/icbench/tty/dimtass-bulk" icbench tty:/dev/ttyRPMSG0 dimtass \
    -p bulk -s 512 --blocks 1,16,32,64 --timeout 5s --cell-time 100ms
# The remote 2 ms a message behind (slower than the writer even on TCG's
# slow system calls): 16 blocks are 32 messages, the ring fills, writes are
# refused, retried (tx_busy > 0), and every count still comes back right.
echo 2000 > $P/delay_us
icb_run "vring16/icbench/tty/dimtass-bulk-slow" icbench-busy tty:/dev/ttyRPMSG0 dimtass \
    -p bulk -s 512 --blocks 16 --timeout 5s --cell-time 100ms
echo 0 > $P/delay_us
# Raw echo keeps at most two 1 KiB chunks in flight (remote/raw.rs), so it
# never needs more than 6 of the 16 buffers: 4-64 KiB echo whole.
echo raw > $P/proto_tty
icb_run "vring16/icbench/tty/raw" icbench tty:/dev/ttyRPMSG0 raw \
    -s 4K,16K,64K --timeout 5s --cell-time 100ms
# A remote that stops consuming: the ring stays full, and icbench fails
# the cell within --timeout with the reason (no hang, no silent loss).
echo 1 > $P/stall
icb_run "vring16/icbench/tty/stalled" "icbench-fails:timeout" tty:/dev/ttyRPMSG0 raw \
    -s 16K --timeout 2s --cell-time 100ms
echo 0 > $P/stall
rmmod virtual_rproc && rmmod icb_nl_bridge
# --- GPIO loopback (issue #21): `icbench irq` against kernel/gpio_loop ----
# icb_gpio_loop's lines are wired in pairs inside the module (0-1, 2-3, 4-5;
# 6 and 7 unwired): gpiolib-cdev's real edge path (line requests, edge
# interrupts from irq_sim, kernel timestamps, events) with no pins. Each
# check is one `icbench irq --json`, its exit status and the end of its
# stderr (irq_check, below); judged by scripts/vm-rig-check (irq=N,
# irq-delay>=NS, irq-refused:WORDS, irq-fails:WORDS).
irq_check() {
    name=$1 expect=$2 t=$3; shift 3
    timeout "$t" "${ICB_BIN:-/icb/icbench}" irq --json --db "${ICB_DB:-/tmp/icb.db}" "$@" \
        >"$T/out" 2>"$T/err"
    rc=$?
    out=$(tr -d '\n' <"$T/out")
    [ -n "$out" ] || out=null
    say "{\"name\":\"$name\",\"expect\":\"$expect\",\"rc\":$rc,\"stderr\":\"$(tail -c 300 "$T/err" | jstr)\",\"result\":$out}"
}
if [ -f /icb/icb_gpio_loop.ko ] && [ -x /icb/icbench ] && /icb/icbench irq --help >/dev/null 2>&1; then
    GL=/sys/module/icb_gpio_loop/parameters
    insmod /icb/icb_gpio_loop.ko 2>/tmp/err
    GCHIP=
    for c in /sys/devices/platform/icb-gpio-loop/gpiochip*; do [ -e "$c" ] && GCHIP=/dev/${c##*/}; done
    [ -n "$GCHIP" ] && wait_node "$GCHIP"
    say "{\"name\":\"gpio/chip\",\"expect\":\"present\",\"result\":{\"present\":$([ -n "$GCHIP" ] && [ -c "$GCHIP" ] && echo 1 || echo 0),\"chip\":\"$GCHIP\",\"err\":\"$(jstr </tmp/err)\"}}"
    # (a) and (b); then with the response pair, (c) too, SCHED_FIFO and mlockall
    irq_check "irq/loop" "irq=2" 180 --chip "$GCHIP" --out 0 --in 1 -l 2000 -i 500 --histfile /tmp/irq.hist
    irq_check "irq/loop-respond" "irq=3" 180 --chip "$GCHIP" --out 0 --in 1 --respond 2 --respond-in 3 \
        -l 2000 -i 500 -p 80 -m
    # the wire 300 µs long: every set-to-edge is at least that
    echo 300 > $GL/delay_us
    irq_check "irq/delay-300us" "irq-delay>=300000" 180 --chip "$GCHIP" --out 4 --in 5 -l 200 -i 2000
    echo 0 > $GL/delay_us
    # line 7 is wired to nothing: the first edge never comes, the run ends
    # at --timeout with the wire to check, and exits 1 (no hang)
    irq_check "irq-fault/no-wire" "irq-fails:check the wire from line 0 to line 7" 60 \
        --chip "$GCHIP" --out 0 --in 7 -l 50 --timeout 500ms
    # refusals: one line each, exit 2, before anything is measured
    irq_check "irq-refused/no-chip" "irq-refused:no such device" 30 --chip /dev/gpiochip99 --out 0 --in 1
    irq_check "irq-refused/out-of-range" "irq-refused:has 8 lines (0-7)" 30 --chip "$GCHIP" --out 0 --in 8
    irq_check "irq-refused/same-line" "irq-refused:are both line 1" 30 --chip "$GCHIP" --out 1 --in 1
    # --hte on a kernel without CONFIG_HTE (the rig's): the kernel says
    # EOPNOTSUPP, icbench says to run without it
    irq_check "irq-refused/no-hte" "irq-refused:has no hardware timestamp engine" 30 \
        --chip "$GCHIP" --out 0 --in 1 --hte
    /icb/icbench irq --chip "$GCHIP" --out 4 --in 5 -l 100000 -i 1000 --db /tmp/irq-busy.db >/dev/null 2>&1 &
    bpid=$!
    sleep 1
    irq_check "irq-refused/busy" "irq-refused:is held by 'icbench-irq'" 30 --chip "$GCHIP" --out 5 --in 4
    kill $bpid; wait $bpid 2>/dev/null
    # the bundle's interrupt run: (a), (b) and (c) as irq/loop-respond, 10 s
    if [ -n "${bundle_runs:-}" ]; then
        irq_check "bundle/irq" "irq=3" 300 --chip "$GCHIP" --out 0 --in 1 --respond 2 --respond-in 3 \
            -l 20000 -i 500 -p 80 -m
        "${ICB_BIN:-/icb/icbench}" label latest "$board" --db "${ICB_DB:-/tmp/icb.db}" >/dev/null
        bundle_runs="$bundle_runs $(run_id)"
    fi
    gedges=$(cat $GL/edges) gunheard=$(cat $GL/unheard)
    rmmod icb_gpio_loop; urc=$?
    say "{\"name\":\"gpio/unload\",\"expect\":\"present\",\"result\":{\"present\":$([ $urc = 0 ] && [ ! -d $GL ] && echo 1 || echo 0),\"edges\":$gedges,\"unheard\":$gunheard}}"
fi
# --- end of the GPIO loopback block ---------------------------------------
# --- The same through gpio-sim (issue #21, item 3 as written) ------------
# A gpio-sim bank of two lines set up through configfs; the wire is a
# helper that follows line 0's value (what icbench drives) into line 1's
# `pull` (an edge on the input, fired through irq_sim). The helper is a
# user-space poll loop, so it sits inside interval (a): this check shows
# the path (line requests, edge events, kernel timestamps, the stored
# run) on the kernel's own simulator, not a latency.
if [ -x /icb/icbench ] && /icb/icbench irq --help >/dev/null 2>&1; then
    CFS=/sys/kernel/config
    [ -d $CFS/gpio-sim ] || mount -t configfs none $CFS 2>/dev/null
    G=$CFS/gpio-sim/icb
    mkdir -p $G/bank0 2>/tmp/err && echo 2 > $G/bank0/num_lines && echo 1 > $G/live 2>>/tmp/err
    SCHIP=$(cat $G/bank0/chip_name 2>/dev/null) SDEV=$(cat $G/dev_name 2>/dev/null)
    S=/sys/devices/platform/$SDEV/$SCHIP
    [ -n "$SCHIP" ] && wait_node "/dev/$SCHIP"
    say "{\"name\":\"gpio-sim/chip\",\"expect\":\"present\",\"result\":{\"present\":$([ -n "$SCHIP" ] && [ -c "/dev/$SCHIP" ] && [ -d "$S/sim_gpio1" ] && echo 1 || echo 0),\"chip\":\"$SCHIP\",\"err\":\"$(jstr </tmp/err)\"}}"
    if [ -n "$SCHIP" ] && [ -d "$S/sim_gpio1" ]; then
        ( last=0
          while :; do
              read -r v < $S/sim_gpio0/value || break
              if [ "$v" != "$last" ]; then
                  if [ "$v" = 1 ]; then echo pull-up; else echo pull-down; fi > $S/sim_gpio1/pull
                  last=$v
              fi
          done ) &
        wpid=$!
        irq_check "irq/gpio-sim" "irq=2" 180 --chip "/dev/$SCHIP" --out 0 --in 1 -l 200 -i 5000 --timeout 2s
        kill $wpid; wait $wpid 2>/dev/null
    fi
    echo 0 > $G/live 2>/dev/null; rmdir $G/bank0 $G 2>/dev/null
fi
# VM_RIG_BUNDLE's runs (above), written as one bundle here, where the
# machine facts are the guest's, and left on the console for scripts/vm-rig
if [ -n "${bundle_runs:-}" ]; then
    # shellcheck disable=SC2086 # the run numbers, one word each
    "${ICB_BIN:-/icb/icbench}" bundle $bundle_runs -o "$T/rig.icbench.json" \
        --db "${ICB_DB:-/tmp/icb.db}" >/dev/null 2>"$T/err"
    say "{\"name\":\"bundle/written\",\"expect\":\"info\",\"result\":{\"runs\":\"$bundle_runs\",\"bytes\":$(wc -c <"$T/rig.icbench.json" 2>/dev/null || echo 0),\"err\":\"$(head -c 200 "$T/err" | jstr)\"}}"
    say "@@ICB-VM-BUNDLE-BEGIN@@"
    base64 "$T/rig.icbench.json"
    say "@@ICB-VM-BUNDLE-END@@"
fi
# kernel warnings, oopses and lockdep/BUG reports fail the run
bad=$(dmesg | grep -cE 'WARNING:|BUG:|Oops|Call Trace|general protection')
say "{\"name\":\"kernel-clean\",\"expect\":\"present\",\"result\":{\"present\":$([ "$bad" = 0 ] && echo 1 || echo 0),\"reports\":$bad}}"
dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|warn|rproc|rpmsg|virtio|vrproc|icb|clocksource|tsc|TSC' | tail -n 80 | sed 's/^/dmesg: /'
say "@@ICB-VM-END@@"
