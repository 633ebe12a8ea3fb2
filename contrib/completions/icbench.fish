# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_icbench_global_optspecs
    string join \n sysfs-root= dev-root= h/help V/version
end

function __fish_icbench_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_icbench_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_icbench_using_subcommand
    set -l cmd (__fish_icbench_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c icbench -n "__fish_icbench_needs_command" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_needs_command" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_needs_command" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_needs_command" -s V -l version -d 'Print version'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "run" -d 'Measure links between two CPUs and store the run'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "plan" -d 'Check a plan file: expand it, show its cells, order and estimated duration, or name the line of what is wrong'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "runs" -d 'List the runs in the results database'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "label" -d 'Label a stored run (as `run --label` does), or take its label away'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "show" -d 'Print a stored run again, from the database alone'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "model" -d 'Fit t(n) = a + b·n per link and pattern: fixed cost, bandwidth, n½'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "compare" -d 'Compare runs (or links of one run): medians, ratio with CI, significance'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "effects" -d 'Which factors matter: main effects, interactions and the share of variation each explains, for latency and bandwidth (Jain 1991)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "export" -d 'Write a run\'s cells as CSV, JSON or HdrHistogram percentile text'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "import" -d 'Store another tool\'s results as a run (the STM32MP1 rpmsg test clients\' logs, xmit-p, ADI\'s tables, TI, cyclictest, CSV)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "report" -d 'Write a self-contained HTML report (SVG figures, no network) of runs'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "bundle" -d 'Write runs into one file others can check and re-import: every block, the floor, the plan, provenance, and a SHA-256 of it all'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "site" -d 'Write a static site comparing boards from bundles: an index of boards × links × sizes with repeat intervals and verdicts, and a page per bundle; it opens from the file system'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "floor" -d 'Measure only the floor: cache-line, two-line and 64 B slot round trips, memcpy bandwidth, and pipe and unix against bare loops'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "links" -d 'List the link kinds, and the rpmsg devices and remote processors this machine offers, with the spec to use for each'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "timer" -d 'Timer wake-up latency, as cyclictest measures it (rt-tests options)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "wakeup" -d 'Cross-core wake-up latency through a blocking primitive'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "irq" -d 'Interrupt latency through a GPIO loopback: an output line wired to an input line, timed by the kernel\'s edge timestamps (what an oscilloscope on both pins would measure, in software)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "chip" -d 'Two cores of one microcontroller measured on-chip, on a timer both read, driven through the initiator core\'s serial link'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "rpmsg" -d 'Bind or unbind an rpmsg channel to the rpmsg_char driver (sysfs)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "remote" -d 'Remote processors (remoteproc sysfs): list, status, start, stop, load'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "doctor" -d 'Check what on this machine affects measurements (governor, isolated CPUs, RT throttling, SCHED_FIFO and mlock, SMT, PREEMPT_RT, rpmsg), and what to change'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "merge" -d 'Copy every run of other icbench databases (a board\'s, a colleague\'s) into this one, each with where it came from; a run already here is not copied again'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "generate" -d 'Print the man page or a shell\'s completions, from these very definitions (the release tarball and the Yocto recipe install them)'
complete -c icbench -n "__fish_icbench_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand run" -s L -l link -d 'A link to measure; repeat for several. Default: every local link (shm, pipe, unix, seqpacket, mq, tcp, netlink, pty). Other kinds: netlink-bridge, iceoryx2, tty:PATH, serial:PATH, rpmsg:PATH, rpmsg-ctrl:PATH, sdb:PATH (`icbench links` shows each kind\'s parameters, e.g. `shm?wait=futex`).' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -s p -l pattern -d 'A pattern to run; repeat for several. Default: pingpong and stream (dimtass: bulk and pingpong; raw: pingpong, and stream where the remote fills and checks buffers, sdb:)' -r -f -a "pingpong\t'Round trip per message, echo checked byte for byte'
stream\t'A window of messages in flight, every one checked by the receiver; throughput. Host → peer, or peer → host with --direction'
bulk\t'block × blocks bytes (see --blocks), then one acknowledgement; time per transfer (the STM32MP1 rpmsg tty test client\'s test). Protocols icb and dimtass'
oneway\t'One-way latency on the common clock, one cell per direction (see --direction); messages of at least 16 B. Local peer only'"
complete -c icbench -n "__fish_icbench_using_subcommand run" -l direction -d 'Oneway and stream: which way the messages travel, one cell per direction. Default: oneway both, stream h2p. Stream p2h needs icbench\'s own peer (no --protocol), or --protocol raw on sdb:, and one channel' -r -f -a "h2p\t'Host end sends, peer receives'
p2h\t'Peer sends, host end receives'
both\t'Each direction in a cell of its own'"
complete -c icbench -n "__fish_icbench_using_subcommand run" -s s -l sizes -d 'Message sizes (bulk: block sizes): a list and/or log2 sweeps, binary units (e.g. `64,4K` or `1-64K`). Default 1-64K; dimtass pingpong 512-32K' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l blocks -d 'Bulk: blocks per transfer, a list of counts crossed with --sizes (`1,2,4,8`) and/or block × blocks pairs, each a cell (`512×8,1K×4`; `x` for `×`). Without it and without --sizes, bulk runs the STM32MP1 rpmsg tty test client\'s matrix: 512×1, 512×2, 512×4, 512×8, 1024×1, 1024×2, 1024×4, 1024×5, 2048×1, 2048×2, 4096×1' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l protocol -d 'The wire protocol spoken to the peer. Default: icbench\'s own local peer with its control protocol (local links only). Remote links (tty:, serial:) need one' -r -f -a "icb\t'icbench\'s frames v1 (docs/protocol.md §1): HELLO/CAPS handshake, ECHO for pingpong (fragmented above the peer\'s frame size), DATA with credits for stream, DATA × blocks + ACK for bulk; CRC on every frame'
dimtass\t'The format of dimtass\'s STM32MP1 rpmsg test clients (tty and netlink): a {0xABCD, length, crc16} header over the first 6 bytes, the data, and a 2-byte count as the only reply. Patterns bulk (default matrix: the tty client\'s block × blocks) and pingpong (the netlink client\'s sizes 512 B … 32 KiB, one write each)'
raw\t'Byte-exact echo, for stock OpenAMP / TI / ADI echo firmware. Pattern pingpong'"
complete -c icbench -n "__fish_icbench_using_subcommand run" -l peer-cmd -d 'Start this program as the peer (split on spaces; `{path}` becomes the device the link offers, e.g. the pty\'s slave), e.g. `--peer-cmd \'firmware/build/icb-peer --path {path}\'`. Needs --protocol' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l cpus -d 'The two CPUs: host end first, peer second (e.g. `--cpus 0,1`). Default: the first two online CPUs this process may use' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l peer -d 'Where the peer end runs' -r -f -a "process\t'A separate process: the icbench binary re-executed, pinned to its CPU'
thread\t'A thread of this process, pinned to its CPU'"
complete -c icbench -n "__fish_icbench_using_subcommand run" -l fifo -d 'Run both ends under SCHED_FIFO at this priority (1-99). With a spinning link (shm) both measured CPUs are held while a cell runs: on a two-CPU machine every other program (and icbench\'s own storing) gets only what RT throttling leaves, 5 % of each second by default, until the cell ends. icbench\'s watchdog ranks itself above the run' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l timeout -d 'Longest wait for any reply before a cell fails (e.g. 5s, 500ms)' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l cell-time -d 'Measuring time per cell and block, after a discarded warm-up' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l replicates -d 'Measure each cell in this many blocks, interleaved with every other cell\'s in a random order (its seed stored with the run); the CI is then where a repeat run\'s figure will land, from the spread of the blocks. 1: one block per cell in listed order, the CI within it. A resumed run keeps its own' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l window -d 'Messages in flight in the stream pattern (2 to 65536)' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -s P -l channels -d 'Channels: N independent links (1-32), each with its own peer, started together and measured over one common window; the total is Σ bytes / that window, with per-channel rates and Jain\'s fairness index. Pingpong and stream, with icbench\'s own peer or --protocol icb (a peer per channel: --peer-cmd, or an rpmsg-ctrl endpoint each)' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l channel-stagger -d '(testing) Start channel i this much × i after the common start' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l ci -d 'Adaptive repetitions: keep measuring each ping-pong cell until the 95 % CI half-width of its median is within this (e.g. 2%), or --ci-max-time ends; the output says which. With -P N each phase is another common window of all channels' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l ci-max-time -d 'Longest measuring time per ping-pong cell with --ci' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l db -d 'Results database (SQLite); created if missing' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand run" -l plan -d 'Measure the cells of a plan file (TOML: factors and levels, repetitions, order, budgets; see docs/plans.md and plans/). The other flags still set placement, peer and limits' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand run" -l label -d 'A name for the run, stored with it (at most 200 characters): `compare --baseline NAME` and `runs --label NAME` find it by this' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l note -d 'A note of your own, stored and shown with the run (at most 4,096 characters)' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l resume -d 'Continue an interrupted run (Ctrl-C, kill -9, power loss, an exhausted budget): measure its stored plan\'s remaining cells with its stored settings, into the same run. RUN is a number or `latest`' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l peer-fault -d '(testing) Make the first peer of each link misbehave: die-after=N, hang-after=N, corrupt-after=N data messages; for icb-peer also garbage-after=N, truncate-after=N, crc-after=N replies' -r
complete -c icbench -n "__fish_icbench_using_subcommand run" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand run" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand run" -l emulated -d 'The peer runs under emulation (QEMU): the run is labelled so, its timings mean nothing; it checks framing, fragmentation, integrity and the handshake'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l mlock -d 'Lock all memory (mlockall) so page faults cannot land in a measurement'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l no-remeasure -d 'Measure each planned block once, even one the kernel\'s counters show disturbed (by default such a block is measured once more at the end of the run)'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l raw -d 'Also keep every round-trip sample (not only the histogram); with -P N, every channel\'s, channel 0\'s first'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l no-floor -d 'Skip measuring the floor (ratios are then not shown)'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l json -d 'Print the run as JSON instead of tables'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l cells -d 'Print every cell\'s table above the summary (the default prints the summary, the footnotes and the verdict; `icbench show N --cells` prints the tables later)'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l dry-run -d 'Print the cells the run would measure, in order, with an estimated duration; measure nothing'
complete -c icbench -n "__fish_icbench_using_subcommand run" -l json-stream -d 'Print one JSON object per finished cell on standard output as the run goes (and a last one when it ends), instead of the tables'
complete -c icbench -n "__fish_icbench_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and not __fish_seen_subcommand_from check help" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand plan; and not __fish_seen_subcommand_from check help" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand plan; and not __fish_seen_subcommand_from check help" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'Validate a plan file (docs/plans.md) and print what it measures'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from check" -l cell-time -d 'Measuring time per cell when the plan gives no cell_time' -r
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from check" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from check" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from check" -l json -d 'Print the expanded plan as JSON'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "check" -d 'Validate a plan file (docs/plans.md) and print what it measures'
complete -c icbench -n "__fish_icbench_using_subcommand plan; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand runs" -l label -d 'Only the runs with this label (`run --label`)' -r
complete -c icbench -n "__fish_icbench_using_subcommand runs" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand runs" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand runs" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand runs" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand runs" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand label" -l db -d 'Results database (SQLite)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand label" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand label" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand label" -l remove -d 'Take the run\'s label away instead'
complete -c icbench -n "__fish_icbench_using_subcommand label" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand show" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand show" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand show" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand show" -l stats -d 'Print every statistic of every cell (count, min, mean, stddev, p50, p90, p99, p99.9, max, 95 % CIs of mean and median, outliers)'
complete -c icbench -n "__fish_icbench_using_subcommand show" -l cells -d 'Every cell\'s table (ping-pong, stream, bulk, channels, oneway, CPU pairs) above the summary; the default prints the summary alone'
complete -c icbench -n "__fish_icbench_using_subcommand show" -l targets -d 'The run\'s targets: each ratio against the floor measured in the same run, what is required, and whether the run shows it met'
complete -c icbench -n "__fish_icbench_using_subcommand show" -l blocks -d 'One row per measured block instead of per cell: a cell\'s replicate blocks (`run --replicates`, a plan\'s repetitions) each with its own figures and `rep` factor, in the order they were stored'
complete -c icbench -n "__fish_icbench_using_subcommand show" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand show" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand model" -s L -l link -d 'Only this link (as stored, e.g. `shm?wait=futex`); repeat for several' -r
complete -c icbench -n "__fish_icbench_using_subcommand model" -s p -l pattern -d 'Only this pattern: pingpong, stream or bulk' -r
complete -c icbench -n "__fish_icbench_using_subcommand model" -l predict -d 'Also predict the time at this size (e.g. 8K)' -r
complete -c icbench -n "__fish_icbench_using_subcommand model" -l where -d 'Only the cells with this factor level, e.g. `transfer=10000000` (an imported ADI table\'s transfer size) or `wait=futex`; repeat for several (all must hold)' -r
complete -c icbench -n "__fish_icbench_using_subcommand model" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand model" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand model" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand model" -l crossover -d 'Also say where each pair of links of one pattern cross: between which measured sizes their order flips, and where their lines meet'
complete -c icbench -n "__fish_icbench_using_subcommand model" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand model" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l baseline -d 'Compare against the latest run labelled NAME (`run --label NAME`): it becomes the baseline, before the runs given (default: `latest`)' -r
complete -c icbench -n "__fish_icbench_using_subcommand compare" -s L -l link -d 'With one run: a link to compare; the first is the baseline' -r
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l fail-if-slower -d 'Exit 1 when any cell is shown slower than its baseline by more than this (e.g. 10%), naming each: a regression gate for CI' -r
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand compare" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand compare" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l metric -d 'The response to analyse' -r -f -a "latency\t'The cells\' p50 latency (ns)'
bandwidth\t'The cells\' payload bytes per second'
both\t'Both, one after the other'"
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l scale -d 'The scale: log (relative effects, the default: latencies and rates differ by factors, not by fixed amounts) or linear' -r -f -a "log\t'Analyse ln(response): geometric means, effects as ratios (×)'
linear\t'Analyse the response itself: effects as differences in its unit'"
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l where -d 'Only cells whose FACTOR has this level (repeat: the same factor means either level, different factors both), e.g. `--where pattern=pingpong`' -r
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand effects" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand effects" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c icbench -n "__fish_icbench_using_subcommand export" -s f -l format -d 'What to write: csv (one line per cell, every statistic), json (as `show --json`), hgrm (each latency histogram\'s percentiles, µs) or md (as `show` prints it, tables in GitHub markdown)' -r -f -a "csv\t'One line per cell with every statistic'
json\t'The run\'s view, as `show --json` prints it'
hgrm\t'Each latency histogram as HdrHistogram\'s percentile distribution (µs)'
md\t'The run as `show` prints it, its tables in GitHub markdown, for pasting into issues and reviews'"
complete -c icbench -n "__fish_icbench_using_subcommand export" -s o -l output -d 'Write to this file instead of standard output' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand export" -l db -d 'Results database (SQLite)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand export" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand export" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c icbench -n "__fish_icbench_using_subcommand import" -s f -l format -d 'Its format: seed-tty or seed-netlink (a log of dimtass\'s STM32MP1 rpmsg tty or netlink test client), seed-table (the tables of their posts), xmit-p, adi-table (ADI\'s benchmark page as published), ti-histogram, cyclictest-json, cyclictest-hist, csv, or bundle (an `icbench bundle` file: its runs stored as they were)' -r
complete -c icbench -n "__fish_icbench_using_subcommand import" -s L -l link -d 'File the cells under this link name (each format has a default)' -r
complete -c icbench -n "__fish_icbench_using_subcommand import" -l size -d 'Message size the file does not record (xmit-p\'s -s, TI\'s -m), e.g. 496' -r
complete -c icbench -n "__fish_icbench_using_subcommand import" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand import" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand import" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand import" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand import" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand report" -s o -l output -d 'The HTML file to write' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand report" -l svg -d 'Also write each figure as its own SVG file into this directory' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand report" -l db -d 'Results database (SQLite)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand report" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand report" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand report" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -s o -l output -d 'The bundle file to write (JSON; docs/bundle.schema.json)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand bundle" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand site" -s o -l output -d 'The directory to write the site into (made if missing)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand site" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand site" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand site" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l cpus -d 'The two CPUs: host end first, peer second (e.g. `--cpus 0,1`). Default: the first two online CPUs this process may use' -r
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l peer -d 'How the peers of the pipe and unix comparisons run: a separate process (icbench re-executed, the default) or a thread' -r -f -a "process\t'A separate process: the icbench binary re-executed, pinned to its CPU'
thread\t'A thread of this process, pinned to its CPU'"
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l bare-blocks -d 'Alternating blocks a side for --bare\'s comparisons (200 round trips each, 2000 for shm); fewer is quicker and less certain' -r
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l bare -d 'Also measure seqpacket, tcp, pty, mq, netlink and shm each against the bare loop of the same calls (or ring), as pipe and unix are: icbench\'s own overhead on every local link (about 10 s more)'
complete -c icbench -n "__fish_icbench_using_subcommand floor" -l json -d 'Print JSON instead of text'
complete -c icbench -n "__fish_icbench_using_subcommand floor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c icbench -n "__fish_icbench_using_subcommand links" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand links" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand links" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s a -l affinity -d 'CPUs to measure on, one thread each (e.g. 0-3,6). Default: every usable CPU' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s b -l breaktrace -d 'Stop every thread when a wake-up is later than this many µs' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s p -l priority -d 'SCHED_FIFO priority of the measuring threads (1-99); default SCHED_OTHER' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s i -l interval -d 'Wake-up interval in µs (rt-tests\' -i)' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s l -l loops -d 'Measured wake-ups per thread (rt-tests\' -l). Default: 10000 for timer, 1000 per primitive for wakeup, 1000 edges for irq, unless -D is given' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s D -l duration -d 'Measure for this long instead (e.g. 10s, 2m; a bare number is seconds)' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l dma-latency -d 'Hold /dev/cpu_dma_latency at US µs while measuring, as cyclictest holds it at 0 by default: CPUs stay out of idle states slower to leave. Without it the figures include those exits' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l histogram -d 'Histogram range in µs (1 µs buckets) for --histfile and --json (cyclictest\'s -h; here -h is help)' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l histfile -d 'Write the histogram in rt-tests\' text format to PATH (`-` for stdout)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l load -d 'Load during the measurement: cpu, memory, ipc, io, net (comma list)' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l load-cpus -d 'CPUs the load runs on (e.g. 0-1). Default: the measured CPUs' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l load-with -d 'Who generates the load: auto (stress-ng when installed), stress-ng, builtin' -r
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l db -d 'Results database (SQLite); created if missing' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s m -l mlockall -d 'Lock all memory (mlockall)'
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l raw -d 'Also keep every sample, in time order'
complete -c icbench -n "__fish_icbench_using_subcommand timer" -l json -d 'Print rt-tests-style JSON (with schema_version) instead of the table'
complete -c icbench -n "__fish_icbench_using_subcommand timer" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s P -l primitive -d 'Primitives (comma list): futex, eventfd, pipe, mq, unix, signal. Default: all' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l cpus -d 'Sender CPU, receiver CPU (e.g. 0,1; the same CPU twice measures a same-CPU wake-up). Default: the first two usable CPUs' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l warmup -d 'Wake-ups before the measured ones, discarded' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l timeout -d 'Longest wait for one wake-up to arrive before the cell fails' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s p -l priority -d 'SCHED_FIFO priority of the measuring threads (1-99); default SCHED_OTHER' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s i -l interval -d 'Wake-up interval in µs (rt-tests\' -i)' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s l -l loops -d 'Measured wake-ups per thread (rt-tests\' -l). Default: 10000 for timer, 1000 per primitive for wakeup, 1000 edges for irq, unless -D is given' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s D -l duration -d 'Measure for this long instead (e.g. 10s, 2m; a bare number is seconds)' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l dma-latency -d 'Hold /dev/cpu_dma_latency at US µs while measuring, as cyclictest holds it at 0 by default: CPUs stay out of idle states slower to leave. Without it the figures include those exits' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l histogram -d 'Histogram range in µs (1 µs buckets) for --histfile and --json (cyclictest\'s -h; here -h is help)' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l histfile -d 'Write the histogram in rt-tests\' text format to PATH (`-` for stdout)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l load -d 'Load during the measurement: cpu, memory, ipc, io, net (comma list)' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l load-cpus -d 'CPUs the load runs on (e.g. 0-1). Default: the measured CPUs' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l load-with -d 'Who generates the load: auto (stress-ng when installed), stress-ng, builtin' -r
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l db -d 'Results database (SQLite); created if missing' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s m -l mlockall -d 'Lock all memory (mlockall)'
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l raw -d 'Also keep every sample, in time order'
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -l json -d 'Print rt-tests-style JSON (with schema_version) instead of the table'
complete -c icbench -n "__fish_icbench_using_subcommand wakeup" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l chip -d 'The GPIO chip both lines are on (e.g. /dev/gpiochip0; gpiodetect lists them)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l out -d 'The output line icbench toggles (offset on the chip, as gpioinfo numbers it)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l in -d 'The input line wired to --out, with edge detection' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l respond -d 'A second output, set by the woken thread on each edge (the response)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l respond-in -d 'The input wired to --respond: its edge\'s timestamp ends interval (c)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l cpus -d 'Driving CPU, measuring CPU (e.g. 0,1; the same CPU twice is allowed). Default: the first two usable CPUs' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l warmup -d 'Edges before the measured ones, discarded' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l timeout -d 'Longest wait for one edge before the run stops (the wire is missing?)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s p -l priority -d 'SCHED_FIFO priority of the measuring threads (1-99); default SCHED_OTHER' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s i -l interval -d 'Wake-up interval in µs (rt-tests\' -i)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s l -l loops -d 'Measured wake-ups per thread (rt-tests\' -l). Default: 10000 for timer, 1000 per primitive for wakeup, 1000 edges for irq, unless -D is given' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s D -l duration -d 'Measure for this long instead (e.g. 10s, 2m; a bare number is seconds)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l dma-latency -d 'Hold /dev/cpu_dma_latency at US µs while measuring, as cyclictest holds it at 0 by default: CPUs stay out of idle states slower to leave. Without it the figures include those exits' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l histogram -d 'Histogram range in µs (1 µs buckets) for --histfile and --json (cyclictest\'s -h; here -h is help)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l histfile -d 'Write the histogram in rt-tests\' text format to PATH (`-` for stdout)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l load -d 'Load during the measurement: cpu, memory, ipc, io, net (comma list)' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l load-cpus -d 'CPUs the load runs on (e.g. 0-1). Default: the measured CPUs' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l load-with -d 'Who generates the load: auto (stress-ng when installed), stress-ng, builtin' -r
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l db -d 'Results database (SQLite); created if missing' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l hte -d 'Ask for edge timestamps from the line\'s hardware timestamp engine (HTE) instead of CLOCK_MONOTONIC; refused where the line has none'
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s m -l mlockall -d 'Lock all memory (mlockall)'
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l raw -d 'Also keep every sample, in time order'
complete -c icbench -n "__fish_icbench_using_subcommand irq" -l json -d 'Print rt-tests-style JSON (with schema_version) instead of the table'
complete -c icbench -n "__fish_icbench_using_subcommand irq" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand chip" -s L -l link -d 'The link to the initiator core: serial:/dev/ttyACM0?baud=115200, tty:/dev/ttyRPMSG0, or pty with --peer-cmd (the host build)' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l peer-cmd -d 'A program to start as the initiator, e.g. \'firmware/build/icb-peer --onchip 0,1 --path {path}\' (the two-thread host build)' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -s p -l pattern -d 'Patterns (comma list): pingpong, oneway, stream, bulk' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -s s -l sizes -d 'Message sizes (bulk: block sizes), e.g. 4,64,1K or 4-4K' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l direction -d 'Directions (comma list): i2a (initiator → agent), a2i (agent → initiator); for pingpong, the core that starts' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l region -d 'Shared-memory regions by the chip\'s names (comma list). Default: every region the firmware offers' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l notify -d 'How the receiving core learns of a message: poll, doorbell, event' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l count -d 'Measured repetitions per cell (stream: messages)' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l warmup -d 'Repetitions before the measured ones, discarded' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l window -d 'Stream: messages in flight' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l blocks -d 'Bulk: blocks per transfer' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l timeout -d 'Longest wait for the other core (on the chip) and for the chip' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l label -d 'A name for the run, at most 200 characters (`runs --label`, `compare --baseline`)' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l image -d 'Firmware images to measure (comma list of files): each is put on the chip by --flash-cmd before its cells, and is the `image` factor' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l flash-cmd -d 'The command that puts an image on the chip, `{image}` where its path goes (no shell), e.g. \'openocd -f board.cfg -c program {image} verify reset exit\'. At most 300 s each' -r
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l plan -d 'An experiment in a file (plans/002-onchip.toml): its factors, repetitions and random order replace the flags above' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l raw -d 'Keep every sample too, in the order taken (`export`), not only the chip\'s histogram; the firmware must have room for them'
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l cells -d 'Print every cell\'s table above the summary (as `show N --cells`)'
complete -c icbench -n "__fish_icbench_using_subcommand chip" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand chip" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -f -a "bind" -d 'Bind CHANNEL (a name under /sys/bus/rpmsg/devices) to the driver, as ADI\'s rpmsg-bind-chardev does: driver_override, then bind'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -f -a "unbind" -d 'Unbind CHANNEL from its driver and clear its driver_override'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and not __fish_seen_subcommand_from bind unbind help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from bind" -l driver -d 'The rpmsg driver' -r
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from bind" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from bind" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from bind" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from unbind" -l driver -d 'The rpmsg driver' -r
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from unbind" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from unbind" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from unbind" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from help" -f -a "bind" -d 'Bind CHANNEL (a name under /sys/bus/rpmsg/devices) to the driver, as ADI\'s rpmsg-bind-chardev does: driver_override, then bind'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from help" -f -a "unbind" -d 'Unbind CHANNEL from its driver and clear its driver_override'
complete -c icbench -n "__fish_icbench_using_subcommand rpmsg; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "list" -d 'Every remote processor with its name, state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "status" -d 'One remote processor\'s state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "start" -d 'Start it (echo start > state)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "stop" -d 'Stop it (echo stop > state)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "load" -d 'Set the firmware the next start loads (a file under /lib/firmware); the core must be offline'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and not __fish_seen_subcommand_from list status start stop load help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from list" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from list" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from status" -s r -l rproc -d 'remoteprocN, N, or its name; may be left out when there is only one' -r
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from status" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from status" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from start" -s r -l rproc -d 'remoteprocN, N, or its name; may be left out when there is only one' -r
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from start" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from start" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from stop" -s r -l rproc -d 'remoteprocN, N, or its name; may be left out when there is only one' -r
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from stop" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from stop" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from load" -s r -l rproc -d 'remoteprocN, N, or its name; may be left out when there is only one' -r
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from load" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from load" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from load" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every remote processor with its name, state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "status" -d 'One remote processor\'s state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start it (echo start > state)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop it (echo stop > state)'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "load" -d 'Set the firmware the next start loads (a file under /lib/firmware); the core must be offline'
complete -c icbench -n "__fish_icbench_using_subcommand remote; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -l cpus -d 'The two CPUs: host end first, peer second (e.g. `--cpus 0,1`). Default: the first two online CPUs this process may use' -r
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -l root -d 'Read sys/, proc/ and dev/ under DIR instead of /sys, /proc and /dev (e.g. a tree copied from a board). SCHED_FIFO and mlock are still tried on this process' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -l json -d 'Print JSON instead of text (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand merge" -l board -d 'The board (or lab place) the databases come from, recorded with each run (default: each file\'s name, or its directory\'s for icbench.db; two files that would be one board are refused)' -r
complete -c icbench -n "__fish_icbench_using_subcommand merge" -l db -d 'Results database (SQLite); `run`, `import`, `timer` and `wakeup` create it, the other commands only read it' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand merge" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand merge" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand merge" -l json -d 'Print JSON instead of tables (with a schema_version)'
complete -c icbench -n "__fish_icbench_using_subcommand merge" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand generate" -l sysfs-root -d 'Where sysfs is (rpmsg channels, remoteprocs); a copy or a fake tree for tests' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand generate" -l dev-root -d 'Where the device nodes are (/dev/rpmsg*, /dev/ttyRPMSG*)' -r -F
complete -c icbench -n "__fish_icbench_using_subcommand generate" -s h -l help -d 'Print help'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "run" -d 'Measure links between two CPUs and store the run'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "plan" -d 'Check a plan file: expand it, show its cells, order and estimated duration, or name the line of what is wrong'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "runs" -d 'List the runs in the results database'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "label" -d 'Label a stored run (as `run --label` does), or take its label away'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "show" -d 'Print a stored run again, from the database alone'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "model" -d 'Fit t(n) = a + b·n per link and pattern: fixed cost, bandwidth, n½'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "compare" -d 'Compare runs (or links of one run): medians, ratio with CI, significance'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "effects" -d 'Which factors matter: main effects, interactions and the share of variation each explains, for latency and bandwidth (Jain 1991)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "export" -d 'Write a run\'s cells as CSV, JSON or HdrHistogram percentile text'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "import" -d 'Store another tool\'s results as a run (the STM32MP1 rpmsg test clients\' logs, xmit-p, ADI\'s tables, TI, cyclictest, CSV)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "report" -d 'Write a self-contained HTML report (SVG figures, no network) of runs'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "bundle" -d 'Write runs into one file others can check and re-import: every block, the floor, the plan, provenance, and a SHA-256 of it all'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "site" -d 'Write a static site comparing boards from bundles: an index of boards × links × sizes with repeat intervals and verdicts, and a page per bundle; it opens from the file system'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "floor" -d 'Measure only the floor: cache-line, two-line and 64 B slot round trips, memcpy bandwidth, and pipe and unix against bare loops'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "links" -d 'List the link kinds, and the rpmsg devices and remote processors this machine offers, with the spec to use for each'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "timer" -d 'Timer wake-up latency, as cyclictest measures it (rt-tests options)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "wakeup" -d 'Cross-core wake-up latency through a blocking primitive'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "irq" -d 'Interrupt latency through a GPIO loopback: an output line wired to an input line, timed by the kernel\'s edge timestamps (what an oscilloscope on both pins would measure, in software)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "chip" -d 'Two cores of one microcontroller measured on-chip, on a timer both read, driven through the initiator core\'s serial link'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "rpmsg" -d 'Bind or unbind an rpmsg channel to the rpmsg_char driver (sysfs)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "remote" -d 'Remote processors (remoteproc sysfs): list, status, start, stop, load'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "doctor" -d 'Check what on this machine affects measurements (governor, isolated CPUs, RT throttling, SCHED_FIFO and mlock, SMT, PREEMPT_RT, rpmsg), and what to change'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "merge" -d 'Copy every run of other icbench databases (a board\'s, a colleague\'s) into this one, each with where it came from; a run already here is not copied again'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "generate" -d 'Print the man page or a shell\'s completions, from these very definitions (the release tarball and the Yocto recipe install them)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and not __fish_seen_subcommand_from run plan runs label show model compare effects export import report bundle site floor links timer wakeup irq chip rpmsg remote doctor merge generate help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from plan" -f -a "check" -d 'Validate a plan file (docs/plans.md) and print what it measures'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from rpmsg" -f -a "bind" -d 'Bind CHANNEL (a name under /sys/bus/rpmsg/devices) to the driver, as ADI\'s rpmsg-bind-chardev does: driver_override, then bind'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from rpmsg" -f -a "unbind" -d 'Unbind CHANNEL from its driver and clear its driver_override'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "list" -d 'Every remote processor with its name, state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "status" -d 'One remote processor\'s state and firmware'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "start" -d 'Start it (echo start > state)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "stop" -d 'Stop it (echo stop > state)'
complete -c icbench -n "__fish_icbench_using_subcommand help; and __fish_seen_subcommand_from remote" -f -a "load" -d 'Set the firmware the next start loads (a file under /lib/firmware); the core must be offline'
