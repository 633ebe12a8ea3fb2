//! The arithmetic of one looped edge, kept apart from the GPIO calls so
//! that it can be checked on recorded timestamps.
//!
//! Every time is in ns on CLOCK_MONOTONIC: the two read by icbench
//! (`clock_gettime`) and the edge timestamps gpiolib-cdev puts in each
//! `struct gpio_v2_line_event` (`timestamp_ns`, from `ktime_get_ns()` in
//! the line's hard interrupt handler unless the request asked for
//! CLOCK_REALTIME or HTE; Documentation/userspace-api/gpio/gpio-v2-line-event-read.rst).

/// The four instants of one edge, ns on CLOCK_MONOTONIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeTimes {
    /// icbench's clock read just before the ioctl that sets the output.
    pub set_ns: u64,
    /// The kernel's timestamp of the edge on the input line.
    pub edge_ns: u64,
    /// icbench's clock read as the measuring thread returns from poll(2)
    /// on the input's request.
    pub woken_ns: u64,
    /// The kernel's timestamp of the response edge (the second pair), if
    /// there is one.
    pub response_ns: Option<u64>,
}

/// The intervals of one edge, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intervals {
    /// (a) output set → edge timestamp: the interrupt's arrival.
    pub set_to_edge: u64,
    /// (b) edge timestamp → the measuring thread woken.
    pub edge_to_wake: u64,
    /// (c) edge timestamp → the response edge's timestamp.
    pub edge_to_response: Option<u64>,
}

/// Which of the three intervals came out negative: instants out of order,
/// which one clock cannot produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfOrder {
    /// The edge was stamped before the output was set: a stray edge
    /// (bouncing wire, another writer), or an event clock that is not
    /// CLOCK_MONOTONIC.
    EdgeBeforeSet { by_ns: u64 },
    /// The thread read the clock before the edge's stamp.
    WokenBeforeEdge { by_ns: u64 },
    /// The response edge was stamped before the edge it answers.
    ResponseBeforeEdge { by_ns: u64 },
}

impl std::fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutOfOrder::EdgeBeforeSet { by_ns } => write!(
                f,
                "the input's edge was stamped {by_ns} ns before the output was set: a stray edge \
                 (a loose wire, another program driving the line) or an event clock other than \
                 CLOCK_MONOTONIC"
            ),
            OutOfOrder::WokenBeforeEdge { by_ns } => write!(
                f,
                "the thread woke {by_ns} ns before the edge's kernel timestamp: the event clock \
                 is not CLOCK_MONOTONIC"
            ),
            OutOfOrder::ResponseBeforeEdge { by_ns } => write!(
                f,
                "the response edge was stamped {by_ns} ns before the edge it answers: a stray \
                 edge on the response input"
            ),
        }
    }
}

fn later(late: u64, early: u64) -> Result<u64, u64> {
    late.checked_sub(early).ok_or_else(|| early - late)
}

/// The intervals of one edge, or which pair of instants is out of order.
pub fn intervals(t: &EdgeTimes) -> Result<Intervals, OutOfOrder> {
    let set_to_edge =
        later(t.edge_ns, t.set_ns).map_err(|by_ns| OutOfOrder::EdgeBeforeSet { by_ns })?;
    let edge_to_wake =
        later(t.woken_ns, t.edge_ns).map_err(|by_ns| OutOfOrder::WokenBeforeEdge { by_ns })?;
    let edge_to_response = t
        .response_ns
        .map(|r| later(r, t.edge_ns).map_err(|by_ns| OutOfOrder::ResponseBeforeEdge { by_ns }))
        .transpose()?;
    Ok(Intervals { set_to_edge, edge_to_wake, edge_to_response })
}

/// Edge `n` (0-based) of a run is rising when `n` is even: the output
/// starts low and toggles once per edge.
pub fn rising(n: u64) -> bool {
    n.is_multiple_of(2)
}

/// What the kernel's per-line sequence number of edge `n` must be
/// (`line_seqno` counts from 1 on each request), and the complaint when it
/// is not: an edge missed (the event buffer overflowed) or an extra one.
pub fn check_seqno(line: &str, n: u64, seqno: u32) -> Result<(), String> {
    let want = n + 1;
    if u64::from(seqno) == want {
        return Ok(());
    }
    let what = if u64::from(seqno) > want {
        "edges arrived that icbench did not make (a bouncing or floating wire, or another \
         program driving it)"
    } else {
        "an edge was lost"
    };
    Err(format!("{line} saw edge number {seqno} where {want} was due: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(set: u64, edge: u64, woken: u64, resp: Option<u64>) -> EdgeTimes {
        EdgeTimes { set_ns: set, edge_ns: edge, woken_ns: woken, response_ns: resp }
    }

    #[test]
    fn the_three_intervals_of_a_recorded_edge() {
        // Recorded on a board: set at 1 000 000, the edge stamped 7 µs
        // later, the thread running 41 µs after the stamp, the response
        // edge 63 µs after it.
        let i = intervals(&t(1_000_000, 1_007_000, 1_048_000, Some(1_070_000))).unwrap();
        assert_eq!(
            i,
            Intervals { set_to_edge: 7_000, edge_to_wake: 41_000, edge_to_response: Some(63_000) }
        );
        let i = intervals(&t(5, 5, 5, None)).unwrap();
        assert_eq!(i, Intervals { set_to_edge: 0, edge_to_wake: 0, edge_to_response: None });
    }

    #[test]
    fn instants_out_of_order_say_which_and_by_how_much() {
        assert_eq!(
            intervals(&t(1_000, 900, 2_000, None)),
            Err(OutOfOrder::EdgeBeforeSet { by_ns: 100 })
        );
        assert_eq!(
            intervals(&t(1_000, 1_500, 1_499, None)),
            Err(OutOfOrder::WokenBeforeEdge { by_ns: 1 })
        );
        assert_eq!(
            intervals(&t(1_000, 1_500, 1_600, Some(1_400))),
            Err(OutOfOrder::ResponseBeforeEdge { by_ns: 100 })
        );
        let msg = OutOfOrder::EdgeBeforeSet { by_ns: 100 }.to_string();
        assert!(msg.contains("100 ns before") && msg.contains("CLOCK_MONOTONIC"), "{msg}");
    }

    #[test]
    fn edges_alternate_starting_with_a_rising_one() {
        assert!(rising(0));
        assert!(!rising(1));
        assert!(rising(10_000));
    }

    #[test]
    fn sequence_numbers_catch_lost_and_extra_edges() {
        assert_eq!(check_seqno("line 27", 0, 1), Ok(()));
        assert_eq!(check_seqno("line 27", 41, 42), Ok(()));
        let extra = check_seqno("line 27", 0, 3).unwrap_err();
        assert!(extra.starts_with("line 27 saw edge number 3 where 1 was due"), "{extra}");
        assert!(extra.contains("did not make"), "{extra}");
        let lost = check_seqno("line 27", 5, 5).unwrap_err();
        assert!(lost.contains("lost"), "{lost}");
    }
}
