use super::*;

fn chip() -> Chip {
    Chip {
        cores: 2,
        timer_hz: 25_000_000,
        max_size: 4096,
        notify: notify::POLL | notify::DOORBELL,
        regions: vec!["isram".into(), "ssram2".into()],
        labels: vec![("cpu0_hz".into(), "25000000".into()), ("emulated".into(), "qemu".into())],
    }
}

fn cell() -> RunCell {
    RunCell {
        pattern: OnChipPattern::Oneway,
        direction: OnChipDirection::A2i,
        region: 1,
        notify: notify::DOORBELL,
        raw: false,
        size: 64,
        count: 1024,
        warmup: 16,
        window: 0,
        timeout_ms: 5000,
    }
}

#[test]
fn buckets_are_exact_below_128_and_narrower_than_one_percent_above() {
    for v in 0..128u32 {
        assert_eq!(TickHist::index_of(v, 7), v as u16);
        assert_eq!(TickHist::bucket(v as u16, 7), (u64::from(v), 1));
    }
    // Known answers: 128 opens the first power of two, 256 the second
    // (width 2), 1000 lies in [1000, 1004), u32::MAX in the last bucket.
    assert_eq!(TickHist::index_of(128, 7), 128);
    assert_eq!(TickHist::index_of(256, 7), 256);
    assert_eq!(TickHist::bucket(256, 7), (256, 2));
    assert_eq!(TickHist::index_of(1000, 7), 506);
    assert_eq!(TickHist::bucket(506, 7), (1000, 4));
    assert_eq!(u32::from(TickHist::index_of(u32::MAX, 7)), TickHist::buckets_for(7) - 1);
    // Every value lies in its bucket, and the bucket is < 1 % of it.
    let mut v = 128u64;
    while v <= u64::from(u32::MAX) {
        for x in [v, v + v / 3, v * 2 - 1] {
            let x = x.min(u64::from(u32::MAX)) as u32;
            let (lo, w) = TickHist::bucket(TickHist::index_of(x, 7), 7);
            assert!(lo <= u64::from(x) && u64::from(x) < lo + w, "{x} in [{lo}, +{w})");
            assert!((w as f64) / (lo as f64) < 0.01, "{x}: width {w} of {lo}");
        }
        v *= 2;
    }
}

#[test]
fn every_record_round_trips() {
    let c = chip();
    assert_eq!(Chip::from_bytes(&c.to_bytes()).unwrap(), c);
    let r = cell();
    assert_eq!(RunCell::from_bytes(&r.to_bytes()).unwrap(), r);
    let res = RunResult {
        status: OnChipStatus::Ok,
        detail: 0,
        window_ticks: 0,
        bytes: 0,
        hist: TickHist::of(&[5, 5, 130, 1000, 1003, 70_000], 7),
        raw: None,
    };
    assert_eq!(RunResult::from_bytes(&res.to_bytes()).unwrap(), res);
    // With the raw samples after the histogram.
    let with_raw = RunResult { raw: Some(vec![5, 1000, 5, 70_000, 130, 1003]), ..res.clone() };
    assert_eq!(RunResult::from_bytes(&with_raw.to_bytes()).unwrap(), with_raw);
    // Two values share [1000, 1004); the middle of a wide bucket stands
    // for its values, an exact one for itself.
    let v: Vec<(f64, u32)> = res.hist.values().collect();
    assert_eq!(v[0], (5.0, 2));
    assert_eq!(v[2], (1001.5, 2));
    assert_eq!((res.hist.count, res.hist.min, res.hist.max, res.hist.sum), (6, 5, 70_000, 72_143));
}

#[test]
fn a_record_cut_anywhere_or_with_bytes_past_its_end_is_refused() {
    let res = RunResult {
        status: OnChipStatus::Corrupt,
        detail: 17,
        window_ticks: 9,
        bytes: 64,
        hist: TickHist::of(&[1, 2, 300], 7),
        raw: None,
    };
    let with_raw = RunResult { raw: Some(vec![2, 300, 1]), ..res.clone() };
    type Read = fn(&[u8]) -> bool;
    let cases: [(Vec<u8>, Read); 4] = [
        (chip().to_bytes(), |b| Chip::from_bytes(b).is_ok()),
        (cell().to_bytes().to_vec(), |b| RunCell::from_bytes(b).is_ok()),
        (res.to_bytes(), |b| RunResult::from_bytes(b).is_ok()),
        (with_raw.to_bytes(), |b| RunResult::from_bytes(b).is_ok()),
    ];
    // Raw samples are optional: cut right after its histogram, a result
    // reads as one without them (the host checks it got what it asked for).
    let plain = res.to_bytes().len();
    for (i, (bytes, reads)) in cases.into_iter().enumerate() {
        assert!(reads(&bytes));
        for n in (0..bytes.len()).filter(|&n| !(i == 3 && n == plain)) {
            assert!(!reads(&bytes[..n]), "a {n}-byte prefix of {bytes:?} was read");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(!reads(&long), "a byte past the end of {bytes:?} was taken");
    }
}

#[test]
fn another_version_is_refused_by_name() {
    let mut b = chip().to_bytes();
    b[0] = 2;
    let e = Chip::from_bytes(&b).unwrap_err();
    assert_eq!(e.to_string(), "CHIP record: version 2, this icbench reads 1");
}

#[test]
fn a_histogram_that_does_not_add_up_is_refused() {
    let h = TickHist::of(&[10, 20, 5000], 7);
    let mut b = h.to_bytes();
    b[4] = 4; // count 4, buckets hold 3
    assert!(TickHist::from_bytes(&b).unwrap_err().why.contains("hold 3 values"));
    let mut b = h.to_bytes();
    b[16] = 11; // min 11: outside the first bucket (10)
    assert!(TickHist::from_bytes(&b).unwrap_err().why.contains("outside"));
    // Buckets out of order.
    let mut bad = h.clone();
    bad.buckets.swap(0, 1);
    assert!(TickHist::from_bytes(&bad.to_bytes()).is_err());
    // An index past the last bucket.
    let mut bad = h.clone();
    bad.buckets[2].0 = TickHist::buckets_for(7) as u16;
    assert!(TickHist::from_bytes(&bad.to_bytes()).is_err());
}

#[test]
fn a_chip_that_cannot_run_a_cell_is_refused_in_one_line() {
    let one = Chip { cores: 1, ..chip() };
    assert!(Chip::from_bytes(&one.to_bytes()).unwrap_err().why.contains("needs two"));
    let no_timer = Chip { timer_hz: 0, ..chip() };
    assert!(Chip::from_bytes(&no_timer.to_bytes()).unwrap_err().why.contains("no timer"));
    let mut b = cell().to_bytes();
    b[4] = notify::POLL | notify::EVENT;
    assert!(RunCell::from_bytes(&b).unwrap_err().why.contains("one mode"));
    b[4] = notify::POLL;
    b[1] = 9;
    assert!(RunCell::from_bytes(&b).unwrap_err().why.contains("unknown pattern 9"));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_value_lies_in_its_bucket(v in any::<u32>(), s in 1u8..=11) {
            let (lo, w) = TickHist::bucket(TickHist::index_of(v, s), s);
            prop_assert!(lo <= u64::from(v) && u64::from(v) < lo + w);
            prop_assert!(u32::from(TickHist::index_of(v, s)) < TickHist::buckets_for(s));
        }

        #[test]
        fn any_bytes_are_read_or_refused_never_a_panic(b in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = Chip::from_bytes(&b);
            let _ = RunCell::from_bytes(&b);
            let _ = RunResult::from_bytes(&b);
        }

        #[test]
        fn any_histogram_round_trips(v in proptest::collection::vec(any::<u32>(), 0..300)) {
            let h = TickHist::of(&v, 7);
            prop_assert_eq!(TickHist::from_bytes(&h.to_bytes()).unwrap(), h);
        }
    }
}
