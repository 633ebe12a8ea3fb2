//! The site from synthetic entries: a measured board with a marked cell,
//! a published table with a hostile name.

use icbench_model::{CellData, CellKey, CellOutcome, CellResult, LatencyHistogram, Pattern};

use super::*;
use crate::format::bytes;

/// A measured cell around `base` ns a message (block `rep` of its cell,
/// when given).
fn cell(link: &str, pattern: Pattern, size: u64, rep: Option<u32>, base: u64) -> CellResult {
    let mut h = LatencyHistogram::new();
    (0..500).for_each(|i| h.record(base + i % 7));
    let mut key = CellKey::new(link, pattern, size);
    if let Some(r) = rep {
        key = key.with("rep", r);
    }
    CellResult {
        outcome: CellOutcome::Measured(CellData {
            messages: 500,
            bytes: 500 * size,
            elapsed_ns: 500 * base,
            warmup_messages: 0,
            latency: (pattern != Pattern::Stream).then_some(h),
            raw_ns: None,
            window: (pattern == Pattern::Stream).then_some(32),
            counters: Default::default(),
            channels: None,
            adaptive: None,
            per_channel: Vec::new(),
            disturbance: None,
            cut_at_messages: None,
            timed_batch: None,
            state: None,
        }),
        key,
    }
}

/// shm in three blocks: 64 B agreeing, 4 KiB disagreeing (marked), a
/// stream at 64 B agreeing.
fn measured_entry() -> SiteEntry {
    let mut cells = Vec::new();
    for (rep, (a, b, s)) in
        [(1000, 2000, 50), (1010, 4000, 51), (1005, 6000, 50)].iter().enumerate()
    {
        let rep = Some(rep as u32);
        cells.push(cell("shm", Pattern::PingPong, 64, rep, *a));
        cells.push(cell("shm", Pattern::PingPong, 4096, rep, *b));
        cells.push(cell("shm", Pattern::Stream, 64, rep, *s));
    }
    SiteEntry {
        file: "stm32mp157-shm.icbench.json".into(),
        board: "STM32MP157C-DK2".into(),
        provenance: vec![("kernel".into(), "6.1.0 PREEMPT_RT".into())],
        kind: EntryKind::Measured,
        runs: vec![crate::view::build(1, &crate::testing::meta(), &cells)],
    }
}

const HOSTILE: &str = "ADI <script>alert(1)</script>";

/// A reference table: one imported ping-pong cell, not judged.
fn published_entry() -> SiteEntry {
    let cells = vec![cell("rpmsg", Pattern::PingPong, 64, None, 30_000)];
    let view = crate::view::build(2, &crate::testing::meta(), &cells).with_source(
        "imported:adi-rpmsg",
        Some("adi-sc598.html".into()),
        Vec::new(),
    );
    SiteEntry {
        file: "adi-sc598.icbench.json".into(),
        board: HOSTILE.into(),
        provenance: vec![(
            "source".into(),
            "published, not re-measured: ADI ADSP-SC598 RPMsg page".into(),
        )],
        kind: EntryKind::Published,
        runs: vec![view],
    }
}

/// The rows of the table of class `class` in `html`.
fn rows<'a>(html: &'a str, class: &str) -> Vec<&'a str> {
    let start = html.find(&format!("<table class=\"{class}\">")).expect(class);
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    table.split("<tr class=\"row ").skip(1).collect()
}

#[test]
fn the_index_compares_every_board_link_and_size() {
    let entries = [measured_entry(), published_entry()];
    let pages = build(&entries);
    let names: Vec<&str> = pages.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(names, ["index.html", "stm32mp157-shm.html", "adi-sc598.html"]);
    let index = &pages[0].1;
    // A row per board × link × size.
    let rtt = rows(index, "rtt");
    let board = |b: &str| format!("data-board=\"{}\"", crate::svg::esc(b));
    let want =
        [("STM32MP157C-DK2", "shm", 64), ("STM32MP157C-DK2", "shm", 4096), (HOSTILE, "rpmsg", 64)];
    assert_eq!(rtt.len(), want.len(), "{rtt:#?}");
    for (b, link, size) in want {
        let n = rtt
            .iter()
            .filter(|r| {
                r.contains(&board(b))
                    && r.contains(&format!("<td class=\"l\">{link}"))
                    && r.contains(&format!("<td>{}</td>", bytes(size)))
            })
            .count();
        assert_eq!(n, 1, "{b} {link} {size}: {rtt:#?}");
    }
    let tput = rows(index, "tput");
    assert_eq!(tput.len(), 1, "{tput:#?}");
    assert!(tput[0].contains("h2p") && tput[0].contains("B/s"), "{}", tput[0]);
}

#[test]
fn a_marked_figure_is_greyed_with_its_reason() {
    let entries = [measured_entry(), published_entry()];
    let index = &build(&entries)[0].1;
    let rtt = rows(index, "rtt");
    let big = rtt.iter().find(|r| r.contains(&format!("<td>{}</td>", bytes(4096)))).unwrap();
    assert!(big.contains("class=\"unq marked\""), "{big}");
    assert!(big.contains("blocks disagree"), "{big}");
    // The same words as the run's list of marked cells.
    let notes = crate::marks::footnotes(entries[0].runs[0].rows());
    assert!(notes.iter().any(|n| n.contains("4 KiB") || n.contains(&bytes(4096))), "{notes:?}");
    // The agreeing cell is quotable, with its interval in the terminal's words.
    let small = rtt
        .iter()
        .find(|r| r.contains("STM32") && r.contains(&format!("<td>{}</td>", bytes(64))))
        .unwrap();
    assert!(!small.contains("unq"), "{small}");
    let ci = crate::replicates::ci_short(
        entries[0].runs[0]
            .pingpong
            .iter()
            .find(|r| r.size_bytes == 64)
            .unwrap()
            .replicates
            .as_ref()
            .unwrap(),
    );
    assert!(ci.starts_with('±'), "{ci}");
    assert!(small.contains(&crate::svg::esc(&ci)), "{small} {ci}");
    // The imported figure is not judged, and says so.
    let adi = rtt.iter().find(|r| r.contains("rpmsg")).unwrap();
    assert!(adi.contains("class=\"unq not-judged\""), "{adi}");
    assert!(adi.contains("not judged: imported:adi-rpmsg from adi-sc598.html"), "{adi}");
}

#[test]
fn kinds_verdicts_and_downloads_are_shown() {
    let entries = [measured_entry(), published_entry()];
    let pages = build(&entries);
    let index = &pages[0].1;
    assert!(index.contains("<span class=\"badge published\">published</span>"), "{index}");
    let verdict = &entries[0].runs[0].verdict.as_ref().unwrap().text;
    assert!(index.contains(&crate::svg::esc(verdict)), "{verdict}");
    assert!(index.contains("verdict: not judged"));
    assert!(index.contains("href=\"stm32mp157-shm.icbench.json\" download"));
    assert!(index.contains("href=\"stm32mp157-shm.html\""));
    let page = &pages[1].1;
    assert!(page.contains("href=\"stm32mp157-shm.icbench.json\" download"), "{page}");
    assert!(page.contains("<dt>kernel</dt><dd>6.1.0 PREEMPT_RT</dd>"));
    assert!(page.contains(&crate::svg::esc(verdict)));
    assert!(page.contains("<h3>Marked cells</h3>") && page.contains("blocks disagree"));
    let adi = &pages[2].1;
    assert!(adi.contains("<span class=\"badge published\">published</span>"));
    assert!(adi.contains("ADI ADSP-SC598 RPMsg page"));
}

#[test]
fn data_is_escaped_and_nothing_is_loaded() {
    let entries = [measured_entry(), published_entry()];
    for (name, html) in build(&entries) {
        assert!(!html.contains("<script"), "{name}: {html}");
        assert!(!html.contains("http://") && !html.contains("https://"), "{name}");
        assert!(html.len() < 300_000, "{name}: {} bytes", html.len());
    }
    let pages = build(&entries);
    assert!(pages[0].1.contains("ADI &lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(pages[2].1.contains("<title>icbench: ADI &lt;script&gt;"));
}

#[test]
fn filters_name_every_link_size_board_and_kind() {
    let entries = [measured_entry(), published_entry()];
    let index = &build(&entries)[0].1;
    // Links shm, rpmsg; sizes 64 B, 4 KiB; two boards; two kinds.
    assert_eq!(index.matches("<input type=\"checkbox\" class=\"filter\"").count(), 8);
    for f in ["link", "size", "board", "kind"] {
        assert!(index.contains(&format!("data-filter=\"{f}\"")), "{f}");
    }
    // Unticking hides the rows it names, without a script.
    assert!(index.contains("#f-l0:not(:checked)~.tables tr.l0{display:none}"));
    assert!(index.contains("label for=\"f-b1\">ADI &lt;script&gt;"));
}

#[test]
fn page_names_are_safe_and_distinct() {
    let mut a = measured_entry();
    a.runs.clear();
    let mut b = a.clone();
    b.file = "../stm32mp157-shm.icbench.json".into();
    let mut c = a.clone();
    c.file = "index.json".into();
    let mut d = a.clone();
    d.file = "<x> y.json".into();
    assert_eq!(
        page_names(&[a, b, c, d]),
        ["stm32mp157-shm.html", "stm32mp157-shm-2.html", "index-2.html", "x--y.html"]
    );
}

/// A disturbed cell (counters beyond its link's own work) is greyed with
/// what disturbed it, as the run's list of marked cells says it.
#[test]
fn a_disturbed_figure_says_what_disturbed_it() {
    let mut c = cell("pipe", Pattern::PingPong, 64, None, 5_000);
    if let CellOutcome::Measured(d) = &mut c.outcome {
        let mut x = icbench_model::Disturbance { span_ns: 100_000_000, ..Default::default() };
        x.host.runq_wait_ns = Some(50_000_000);
        d.disturbance = Some(x);
    }
    let view = crate::view::build(7, &crate::testing::meta(), &[c]);
    let cause = view.pingpong[0].disturbance.as_ref().unwrap().causes.join("; ");
    assert!(!cause.is_empty());
    let e = SiteEntry {
        file: "d.json".into(),
        board: "host".into(),
        provenance: Vec::new(),
        kind: EntryKind::Emulated,
        runs: vec![view],
    };
    let index = &build(&[e])[0].1;
    let row = rows(index, "rtt")[0];
    assert!(row.contains("class=\"unq marked\""), "{row}");
    assert!(row.contains(&crate::svg::esc(&cause)), "{row}\n{cause}");
    assert!(row.contains("<span class=\"badge emulated\">emulated</span>"), "{row}");
}

/// A board known only by bulk transfers (the STM32MP1 tty and netlink
/// tables are block × blocks) has its rows in the throughput table, as
/// payload rates, marked `bulk`.
#[test]
fn bulk_transfers_are_throughput_rows() {
    let mut c = cell("tty:/dev/ttyRPMSG0", Pattern::Bulk, 512, None, 11_970_000);
    c.key.blocks = Some(2);
    if let CellOutcome::Measured(d) = &mut c.outcome {
        (d.messages, d.bytes, d.elapsed_ns) = (1, 1024, 11_970_000);
    }
    let entry = SiteEntry {
        file: "tty.icbench.json".into(),
        board: "DK2 tty".into(),
        provenance: Vec::new(),
        kind: EntryKind::Published,
        runs: vec![crate::view::build(1, &crate::testing::meta(), &[c])],
    };
    let index = &build(&[entry])[0].1;
    let tput = rows(index, "tput");
    assert_eq!(tput.len(), 1, "{index}");
    assert!(tput[0].contains("bulk") && tput[0].contains("kB/s"), "{}", tput[0]);
}
