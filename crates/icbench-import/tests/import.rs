//! Importers on files in the tools' formats carrying the figures of
//! shared/references (see testdata/import/README.md for what each file
//! reproduces and from where).

use icbench_import::{Format, Imported, Options, parse};
use icbench_model::{CellData, CellOutcome, Pattern};

fn file(name: &str) -> String {
    let p = format!("{}/../../testdata/import/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn import(name: &str, f: Format, opts: &Options) -> Imported {
    parse(f, &file(name), opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn data(imp: &Imported, i: usize) -> &CellData {
    match &imp.cells[i].outcome {
        CellOutcome::Measured(d) => d,
        o => panic!("cell {i} is {}", o.status_str()),
    }
}

fn has_warning(imp: &Imported, needle: &str) -> bool {
    imp.warnings.iter().any(|w| w.contains(needle))
}

#[test]
fn seed_000_tty_log_gives_eleven_one_sample_bulk_cells() {
    let imp = import("seed-000-tty.log", Format::SeedTty, &Options::default());
    assert_eq!(imp.cells.len(), 11);
    let first = &imp.cells[0];
    assert_eq!(
        (first.key.link.as_str(), first.key.pattern, first.key.size_bytes),
        ("tty:/dev/ttyRPMSG0", Pattern::Bulk, 512)
    );
    let d = data(&imp, 0);
    assert_eq!(first.key.blocks, Some(1));
    assert_eq!((d.messages, d.bytes, d.elapsed_ns), (1, 512, 11_970_765));
    assert_eq!(d.raw_ns.as_deref(), Some(&[11_970_765u64][..]));
    // b: 1024, n:5, nsec: 53327292, bytes sent: 5120
    let d = data(&imp, 7);
    assert_eq!(
        (imp.cells[7].key.size_bytes, imp.cells[7].key.blocks, d.bytes, d.elapsed_ns),
        (1024, Some(5), 5120, 53_327_292)
    );
    // The last: 4096 B in 37.649 ms = 106 KB/s, as the post says.
    let d = data(&imp, 10);
    assert!((d.bytes_per_s() - 108_794.4).abs() < 0.1, "{}", d.bytes_per_s());
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    assert!(imp.notes.iter().any(|n| n.contains("one sample")));
}

#[test]
fn seed_001_netlink_log_flags_the_broken_bytes_sent_counter() {
    let imp = import("seed-001-netlink.log", Format::SeedNetlink, &Options::default());
    assert_eq!(imp.cells.len(), 7);
    let sizes: Vec<u64> = imp.cells.iter().map(|c| c.key.size_bytes).collect();
    assert_eq!(sizes, [512, 1024, 2048, 4096, 8192, 16384, 32768]);
    let d = data(&imp, 6);
    assert_eq!((d.bytes, d.elapsed_ns), (32768, 162_541_198));
    assert!(has_warning(&imp, "7 of 7 lines report 'bytes sent'"), "{:?}", imp.warnings);
    // 32 KiB in 162.54 ms: the post's 201.6 KB/s.
    assert!((d.bytes_per_s() / 1024.0 - 196.9).abs() < 0.1);
}

#[test]
fn seed_tables_match_the_logs_to_their_rounding() {
    let log = import("seed-000-tty.log", Format::SeedTty, &Options::default());
    let table = import("seed-000-table.txt", Format::SeedTable, &Options::default());
    assert_eq!(table.cells.len(), 11);
    for (i, c) in table.cells.iter().enumerate() {
        assert_eq!(c.key, log.cells[i].key);
        let (t, l) = (data(&table, i), data(&log, i));
        assert_eq!(c.key.blocks, log.cells[i].key.blocks);
        // Two decimals of ms: within 5 µs (the post truncates 53.327 to 53.32).
        assert!((t.elapsed_ns as i64 - l.elapsed_ns as i64).abs() <= 10_000, "{i}");
    }
    let net = import("seed-001-table.txt", Format::SeedTable, &Options::default());
    assert_eq!(net.cells.len(), 7);
    assert_eq!(data(&net, 6).elapsed_ns, 162_540_000);
}

#[test]
fn the_comparison_table_reads_its_negative_diff_and_skips_ambiguous_rows() {
    let imp = import("seed-001-compare.txt", Format::SeedTable, &Options::default());
    let tty: Vec<_> = imp.cells.iter().filter(|c| c.key.link.starts_with("tty")).collect();
    let net: Vec<_> = imp.cells.iter().filter(|c| c.key.link == "rpmsg-netlink").collect();
    assert_eq!((tty.len(), net.len()), (4, 4));
    // "4096 37.64 31.33 – 6.31": the diff checks out, so no diff warning.
    assert!(!has_warning(&imp, "is not Netlink − TTY"), "{:?}", imp.warnings);
    assert_eq!(imp.warnings.iter().filter(|w| w.contains("ambiguous")).count(), 3);
    // A wrong diff is caught.
    let bad = "block (B) TTY (ms) netlink (ms) netlink - TTY (ms)\n512 11.97 21.38 9.99\n";
    let imp = parse(Format::SeedTable, bad, &Options::default()).unwrap();
    assert!(has_warning(&imp, "diff 9.99 ms is not Netlink − TTY = 9.41 ms"), "{:?}", imp.warnings);
}

#[test]
fn xmit_p_single_channel_reproduces_the_published_rate() {
    let opts = Options { size_bytes: Some(496), ..Options::default() };
    let imp = import("xmit-p-1ch-496B.txt", Format::XmitP, &opts);
    assert_eq!(imp.cells.len(), 1);
    let d = data(&imp, 0);
    assert_eq!((d.channels, d.bytes), (Some(1), 10_000_000));
    assert!((d.bytes_per_s() - 5_402_480.0).abs() < 1.0, "{}", d.bytes_per_s());
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    // Without --size the output cannot be read.
    let e = parse(Format::XmitP, &file("xmit-p-1ch-496B.txt"), &Options::default()).unwrap_err();
    assert!(e.to_string().contains("--size"), "{e}");
}

#[test]
fn xmit_p_32_channels_flags_the_impossible_thread_and_the_summed_total() {
    let opts = Options { size_bytes: Some(256), ..Options::default() };
    let imp = import("xmit-p-32ch-256B.txt", Format::XmitP, &opts);
    let d = data(&imp, 0);
    assert_eq!(d.channels, Some(32));
    // The stored rate is Σ bytes over the longest window: near 32 × 87138,
    // not 2.5e13.
    assert!(d.bytes_per_s() < 32.0 * 90_000.0, "{}", d.bytes_per_s());
    assert!(has_warning(&imp, "Thread-17 claims"), "{:?}", imp.warnings);
    assert!(has_warning(&imp, "cannot be true"), "{:?}", imp.warnings);
    assert!(has_warning(&imp, "measured over different windows"), "{:?}", imp.warnings);
    assert!(has_warning(&imp, "without zero padding"), "{:?}", imp.warnings);
}

/// Issue #17 item 5: ADI's page imports as published — three tables, the
/// empty PACKET SIZE cells filled from above, the same warnings as the CSV.
#[test]
fn adis_benchmark_page_imports_as_published() {
    let imp = import("adi-rpmsg-benchmarks.rst", Format::AdiTable, &Options::default());
    let per = |n: u32| imp.cells.iter().filter(|c| rate_channels(c) == n).count();
    assert_eq!((per(1), per(8), per(32)), (30, 27, 23));
    // Repeated sizes were filled in: 1 channel has 5 rows of each size.
    let ones = imp.cells.iter().filter(|c| rate_channels(c) == 1 && c.key.size_bytes == 1);
    assert_eq!(ones.count(), 5);
    let w: Vec<&String> = imp.warnings.iter().filter(|w| w.contains("25052788426826")).collect();
    assert!(w.iter().any(|w| w.contains("not channels × the per-channel average")), "{w:?}");
    assert!(w.iter().any(|w| w.contains("median of the other rows")), "{w:?}");
    // The 32-channel rates are the ones the hand-made CSV of that table
    // gives (its transfer_bytes is the table's TRANSFER SIZE taken as moved,
    // so only the rates, not the bytes, are alike).
    let csv = import("adi-32ch-table.csv", Format::Csv, &Options::default());
    let figures = |cells: &[icbench_model::CellResult]| {
        let mut v: Vec<(u64, f64)> = cells
            .iter()
            .filter(|c| rate_channels(c) == 32)
            .map(|c| match &c.outcome {
                icbench_model::CellOutcome::Measured(d) => {
                    (c.key.size_bytes, d.bytes as f64 / d.elapsed_ns as f64 * 1e9)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        v
    };
    let (a, b) = (figures(&imp.cells), figures(&csv.cells));
    assert_eq!(a.len(), b.len());
    for ((sa, ra), (sb, rb)) in a.iter().zip(&b) {
        // Within the stored times' 1 ns rounding (the 25 TB/s row's
        // transfer takes ≈ 40 µs, so ±0.5 ns is 1.3·10⁻⁵ of it).
        assert!(sa == sb && (ra / rb - 1.0).abs() < 1e-4, "{sa} B {ra} ≠ {sb} B {rb}");
    }
}

/// Issue #31 item 4, by hand: rpmsg-xmit-p sends whole packets while
/// `total_sent < total` (its `-t`, the table's TRANSFER SIZE per channel),
/// so a row moved ⌈transfer ÷ size⌉ packets per channel, every byte of them
/// counted in the published rate. 1 channel, 64 B, TRANSFER 100, 839,190
/// B/s: 2 packets, 128 B, 152.5 µs, 13,112 packets/s (76.3 µs each); 256 B
/// and 496 B at TRANSFER 100 one packet each (not none). Every row: packets
/// per second = the rate ÷ the size, and the transfer a factor of its cell.
#[test]
fn adis_message_counts_are_whole_packets() {
    let imp = import("adi-rpmsg-benchmarks.rst", Format::AdiTable, &Options::default());
    let data = |c: &icbench_model::CellResult| match &c.outcome {
        icbench_model::CellOutcome::Measured(d) => d.clone(),
        other => panic!("{other:?}"),
    };
    let find = |size: u64, transfer: &str| {
        imp.cells
            .iter()
            .find(|c| {
                rate_channels(c) == 1
                    && c.key.size_bytes == size
                    && c.key.factor("transfer") == Some(transfer)
            })
            .map(data)
            .unwrap_or_else(|| panic!("no 1-channel {size} B cell at transfer {transfer}"))
    };
    let d = find(64, "100");
    assert_eq!((d.messages, d.bytes), (2, 128));
    assert_eq!(d.elapsed_ns, (128.0f64 / 839_190.0 * 1e9).round() as u64);
    let per_s = d.messages as f64 / (d.elapsed_ns as f64 / 1e9);
    assert!((per_s - 13_112.3).abs() < 1.0, "{per_s}");
    for (size, rate) in [(256, 2_611_392.0f64), (496, 4_598_496.0)] {
        let d = find(size, "100");
        assert_eq!((d.messages, d.bytes), (1, size), "{size} B");
        assert_eq!(d.elapsed_ns, (size as f64 / rate * 1e9).round() as u64);
    }
    for c in &imp.cells {
        let d = data(c);
        let transfer: u64 = c.key.factor("transfer").unwrap().parse().unwrap();
        let size = c.key.size_bytes;
        let channels = u64::from(rate_channels(c));
        assert_eq!(d.messages, transfer.div_ceil(size) * channels, "{:?}", c.key);
        assert_eq!(d.bytes, d.messages * size, "{:?}", c.key);
        let rate = d.bytes as f64 / d.elapsed_ns as f64 * 1e9;
        let per_s = d.messages as f64 / (d.elapsed_ns as f64 / 1e9);
        assert!((per_s / (rate / size as f64) - 1.0).abs() < 1e-6, "{:?}", c.key);
    }
}

fn rate_channels(c: &icbench_model::CellResult) -> u32 {
    match &c.outcome {
        icbench_model::CellOutcome::Measured(d) => d.channels.unwrap_or(1),
        _ => 0,
    }
}

#[test]
fn the_adi_32_channel_table_flags_25052788426826() {
    let imp = import("adi-32ch-table.csv", Format::Csv, &Options::default());
    assert_eq!(imp.cells.len(), 23);
    let w: Vec<&String> = imp.warnings.iter().filter(|w| w.contains("25052788426826")).collect();
    // Three reasons: above any plausible rate, not channels × average, and
    // far above the other rows of its size.
    assert!(w.iter().any(|w| w.contains("not channels × the per-channel average")), "{w:?}");
    assert!(w.iter().any(|w| w.contains("median of the other rows")), "{w:?}");
    assert!(has_warning(&imp, "cannot be true"), "{:?}", imp.warnings);
    // Consistent rows are not flagged: 64 B × 100 is 32 × 424507 within 0.1 %.
    assert!(!imp.warnings.iter().any(|w| w.contains("line 11:")), "{:?}", imp.warnings);
}

#[test]
fn ti_histogram_keeps_every_round_trip() {
    let opts = Options { size_bytes: Some(1), ..Options::default() };
    let imp = import("ti-histogram.txt", Format::TiHistogram, &opts);
    let d = data(&imp, 0);
    let h = d.latency.as_ref().unwrap();
    assert_eq!(h.len(), 100_000);
    assert_eq!(d.messages, 100_000);
    // The worst bin, 194 µs, read at its middle.
    assert!((h.max_ns() as f64 - 194_500.0).abs() < 200.0, "{}", h.max_ns());
    let neg = "-3 , 2\n5 , 10\n";
    let imp = parse(Format::TiHistogram, neg, &opts).unwrap();
    assert!(has_warning(&imp, "negative latency"), "{:?}", imp.warnings);
}

#[test]
fn cyclictest_json_and_text_agree_and_flag_overflows() {
    let j = import("cyclictest.json", Format::CyclictestJson, &Options::default());
    let t = import("cyclictest-hist.txt", Format::CyclictestHist, &Options::default());
    assert_eq!((j.cells.len(), t.cells.len()), (2, 2));
    assert_eq!(j.cells[0].key.pattern, Pattern::Timer);
    assert_eq!(j.cells[0].key.link, "cyclictest thread 0 (CPU 0)");
    assert_eq!(j.hostname.as_deref(), Some("phycore-mpc5200b"));
    for i in 0..2 {
        let (a, b) = (data(&j, i).latency.as_ref().unwrap(), data(&t, i).latency.as_ref().unwrap());
        assert!(a.inner() == b.inner(), "thread {i}: histograms differ");
    }
    assert_eq!(data(&j, 0).messages, 100_000);
    assert!(has_warning(&j, "2 samples beyond its range"), "{:?}", j.warnings);
    assert!(has_warning(&t, "thread 1: 2 samples overflowed"), "{:?}", t.warnings);
    assert!(!has_warning(&j, "thread 0"), "{:?}", j.warnings);
}

#[test]
fn icbench_irq_json_comes_back_as_irq_cells_keyed_as_stored() {
    // Recorded in the VM rig: `icbench irq --json … --respond 2 --respond-in 3`.
    let imp = import("icbench-irq.json", Format::CyclictestJson, &Options::default());
    let links: Vec<&str> = imp.cells.iter().map(|c| c.key.link.as_str()).collect();
    assert_eq!(links, ["set-to-edge", "edge-to-wake", "edge-to-response"]);
    for c in &imp.cells {
        assert_eq!(c.key.pattern, Pattern::Irq, "{}", c.key.link);
        assert_eq!(c.key.factor("chip"), Some("/dev/gpiochip0"));
        assert_eq!((c.key.factor("out"), c.key.factor("in")), (Some("0"), Some("1")));
        assert_eq!(c.key.factor("respond"), Some("2"));
    }
    // (a): every one of the 2000 edges is inside the 1000 µs histogram; the
    // file's own p50 (27 480 ns) is in bin 27, read at its middle.
    let a = data(&imp, 0);
    assert_eq!(a.messages, 2000);
    let p50 = a.latency.as_ref().unwrap().quantile_ns(0.5);
    assert!(p50.abs_diff(27_500) < 100, "{p50}");
    // (b) ran past the histogram's 1000 µs (max 5988 µs): said, not hidden.
    assert!(has_warning(&imp, "edge-to-wake: 2000 cycles but"), "{:?}", imp.warnings);
    assert!(imp.notes.iter().any(|n| n.contains("icbench irq")), "{:?}", imp.notes);
    // A file that says irq but lacks the labels is refused, not stored as timer.
    let text = file("icbench-irq.json").replace("\"label\"", "\"labl\"");
    let e = parse(Format::CyclictestJson, &text, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("not `icbench irq --json` output"), "{e}");
}

#[test]
fn bad_input_names_the_line() {
    let e = parse(
        Format::SeedTty,
        "- 1 INFO: -> b: x, n:1, nsec: 5, bytes sent: 1",
        &Options::default(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "line 1: b 'x' is not a number");
    let e = parse(Format::SeedTty, "nothing here", &Options::default()).unwrap_err();
    assert!(e.to_string().contains("no seed-tty results"), "{e}");
    let e = parse(Format::Csv, "size_bytes,foo\n1,2\n", &Options::default()).unwrap_err();
    assert!(e.to_string().contains("time_ns or a bytes_per_s"), "{e}");
}

/// Values no measurement can have are refused with their line, before
/// anything is stored (issue #22): inf, 1e30 and 9.3e18 ns, a 1e-300 ns
/// round trip that stored as 0 ns, a rate past what a cell holds or past f64.
#[test]
fn a_csv_value_out_of_range_is_refused_with_its_line() {
    let csv = |col: &str, v: &str| format!("size_bytes,{col}\n64,1000\n64,{v}\n");
    for v in ["inf", "1e30", "9.3e18", "1e-300", "0", "-5", "NaN"] {
        let e = parse(Format::Csv, &csv("time_ns", v), &Options::default()).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("line 3: time_ns") && e.contains("outside 1 ns"), "{v}: {e}");
    }
    for v in ["1e400", "1e30", "inf", "0"] {
        let e = parse(Format::Csv, &csv("bytes_per_s", v), &Options::default()).unwrap_err();
        let e = e.to_string();
        assert!(e.starts_with("line 3: bytes_per_s") && e.contains("outside 0"), "{v}: {e}");
    }
    assert!(parse(Format::Csv, &csv("time_ns", "1.5"), &Options::default()).is_ok());
}

/// Counts the store keeps only from 1 up (channels, blocks) are refused at
/// 0 with their line, not with SQLite's CHECK text; a channel count no
/// board has is imported with a warning (issue #30 item 12).
#[test]
fn a_csv_count_of_zero_is_refused_and_an_absurd_one_flagged() {
    for col in ["channels", "blocks"] {
        let text = format!("size_bytes,bytes_per_s,{col}\n64,1000,1\n64,1000,0\n");
        let e = parse(Format::Csv, &text, &Options::default()).unwrap_err().to_string();
        assert!(e.starts_with(&format!("line 3: {col} 0: a cell has at least 1")), "{e}");
    }
    let text = "size_bytes,bytes_per_s,channels\n64,1000,4294967295\n";
    let w = parse(Format::Csv, text, &Options::default()).unwrap().warnings;
    assert!(w.iter().any(|w| w.starts_with("line 2: 4294967295 channels")), "{w:?}");
    let w = parse(Format::Csv, "size_bytes,bytes_per_s,channels\n64,1000,8\n", &Options::default());
    assert!(w.unwrap().warnings.is_empty());
}

/// A histogram file cut short imports what it has, with a warning that
/// says so (before, half the data with no warning).
#[test]
fn a_histogram_file_cut_short_is_flagged() {
    let whole = file("cyclictest-hist.txt");
    let cut = &whole[..whole.find("# Min").unwrap() - 40];
    let w = parse(Format::CyclictestHist, cut, &Options::default()).unwrap().warnings;
    assert!(w.iter().any(|w| w.contains("cut short")), "{w:?}");
    let w = parse(Format::CyclictestHist, &whole, &Options::default()).unwrap().warnings;
    assert!(!w.iter().any(|w| w.contains("cut short")), "{w:?}");
    let ti = file("ti-histogram.txt");
    let opts = Options { size_bytes: Some(64), ..Options::default() };
    let cut = &ti[..ti.len() - 1]; // "194 , 6" may have been "194 , 60"
    let w = parse(Format::TiHistogram, cut, &opts).unwrap().warnings;
    assert!(w.iter().any(|w| w.contains("cut short")), "{w:?}");
    let w = parse(Format::TiHistogram, &ti, &opts).unwrap().warnings;
    assert!(!w.iter().any(|w| w.contains("cut short")), "{w:?}");
}

/// Offending input is quoted short and with control characters escaped: a
/// file's terminal escapes never reach the terminal, a huge line never
/// floods it.
#[test]
fn offending_input_is_quoted_short_and_escaped() {
    let evil = format!("\u{1b}]0;owned\u{7}\u{1b}[2J{}", "9".repeat(10_000));
    let e = parse(Format::Csv, &format!("size_bytes,time_ns\n64,{evil}x\n"), &Options::default())
        .unwrap_err()
        .to_string();
    assert!(!e.chars().any(|c| c.is_control()), "{e:?}");
    assert!(e.contains("\\u{1b}]0;owned\\u{7}"), "{e:?}");
    assert!(e.len() < 200, "{} bytes", e.len());
}

/// The tty and netlink logs differ only by `n:`: each format refuses the
/// other's log and names the right one, instead of importing a tty log as
/// netlink with every block count read as 1.
#[test]
fn a_seed_log_given_as_the_other_client_names_the_right_format() {
    let e = parse(Format::SeedNetlink, &file("seed-000-tty.log"), &Options::default());
    let e = e.unwrap_err().to_string();
    assert!(e.starts_with("line 17: ") && e.contains("-f seed-tty"), "{e}");
    let e = parse(Format::SeedTty, &file("seed-001-netlink.log"), &Options::default());
    let e = e.unwrap_err().to_string();
    assert!(e.starts_with("line 13: ") && e.contains("-f seed-netlink"), "{e}");
}

/// Issue #30 item 3: a histogram whose counts add up past i64::MAX (a
/// bucket of 2⁶⁴ − 1) is refused in one line, in every histogram format,
/// instead of panicking when the cell is stored; i64::MAX itself is kept.
#[test]
fn histogram_counts_past_i64_are_refused_in_one_line() {
    let opts = Options::default();
    let cases = [
        (Format::CyclictestHist, "# Histogram\n000008 18446744073709551615\t000000\n"),
        (
            Format::CyclictestHist,
            "# Histogram\n000008 9223372036854775807\t000000\n000009 1\t000000\n",
        ),
        (Format::CyclictestJson, r#"{"thread":{"0":{"histogram":{"8":18446744073709551615}}}}"#),
    ];
    for (f, text) in cases {
        let e = parse(f, text, &opts).unwrap_err().to_string();
        assert!(e.contains("the histogram's counts add up past 9223372036854775807"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let max = "# Histogram\n000008 9223372036854775807\t000000\n";
    let imp = parse(Format::CyclictestHist, max, &opts).unwrap();
    let h = data(&imp, 0).latency.as_ref().unwrap();
    assert_eq!(h.len(), i64::MAX as u64);
    assert!(!h.to_blob().is_empty(), "a histogram of i64::MAX samples serialises");
}

/// A file names at most `MAX_CELLS` cells, and one that names more is
/// refused as the cell past the bound appears, quickly and before the
/// histograms are made: 300,000 sizes in a 3.5 MB CSV were on their way
/// to 69 GB (each cell's histogram is ≈ 256 KiB decoded), and the search
/// for a row's cell made such a file quadratic. A cyclictest file of more
/// threads than that is refused the same way.
#[test]
fn a_file_of_more_cells_than_an_import_holds_is_refused_in_time() {
    use icbench_import::MAX_CELLS;
    let t0 = std::time::Instant::now();
    let mut csv = String::from("size_bytes,time_ns\n");
    // (5,000 sizes: without the bound, 1.3 GB and no error.)
    for n in 1..=5_000u64 {
        csv.push_str(&format!("{n},{}\n", 1000 + n % 97));
    }
    let e = parse(Format::Csv, &csv, &Options::default()).unwrap_err().to_string();
    assert!(e.contains(&format!("line {}: more than {MAX_CELLS} cells", MAX_CELLS + 2)), "{e}");
    // Rates: a cell a row, bounded the same way.
    let mut rates = String::from("size_bytes,bytes_per_s\n");
    for n in 1..=(MAX_CELLS as u64 + 1) {
        rates.push_str(&format!("{n},1000000\n"));
    }
    let e = parse(Format::Csv, &rates, &Options::default()).unwrap_err().to_string();
    assert!(e.contains(&format!("more than {MAX_CELLS} cells")), "{e}");
    // cyclictest's text histogram: a column a thread.
    let columns = MAX_CELLS + 1;
    let row = |us: u32| format!("{us:06} {}\n", vec!["1"; columns].join(" "));
    let hist = format!("# Histogram\n{}{}", row(1), row(2));
    let e = parse(Format::CyclictestHist, &hist, &Options::default()).unwrap_err().to_string();
    assert!(e.contains(&format!("more than {MAX_CELLS} cells")), "{e}");
    // Many rows of few cells are not refused, and not slow.
    let mut many = String::from("size_bytes,time_ns\n");
    for n in 0..200_000u64 {
        many.push_str(&format!("{},{}\n", 64 << (n % 8), 1000 + n % 97));
    }
    assert_eq!(parse(Format::Csv, &many, &Options::default()).unwrap().cells.len(), 8);
    assert!(t0.elapsed() < std::time::Duration::from_secs(60), "{:?}", t0.elapsed());
}
