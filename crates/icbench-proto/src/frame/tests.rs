use super::*;

fn sample() -> Frame {
    Frame {
        ty: FrameType::Echo,
        flags: Flags::empty(),
        chan: 2,
        seq: 0x0102_0304,
        ts: Some(Timestamps { t_origin: 1, t_rx: 2, t_tx: 3 }),
        frag: Some(Fragment { msg_len: 1000, offset: 500 }),
        payload: b"hello".to_vec(),
    }
}

#[test]
fn round_trip_with_extensions() {
    let f = sample();
    let bytes = f.encode().unwrap();
    assert_eq!(bytes.len(), OVERHEAD + TS_LEN + FRAG_LEN + 5);
    assert_eq!(&bytes[..3], &[0xCB, 0x1C, 1]);
    assert_eq!(bytes[4], 0x06);
    let back = decode_exact(&bytes, MAX_BODY).unwrap();
    assert_eq!(back.payload, b"hello");
    assert_eq!(back.ts, f.ts);
    assert_eq!(back.frag, f.frag);
    assert_eq!(back.flags, Flags::TS | Flags::FRAG);
    assert_eq!(back.seq, f.seq);
    assert_eq!(back.chan, 2);
}

#[test]
fn empty_frame_is_sixteen_bytes() {
    let f = FrameRef::new(FrameType::Stats, 7, &[]);
    let mut buf = [0u8; 16];
    assert_eq!(f.encode_into(&mut buf), Ok(16));
    assert_eq!(decode_exact(&buf, 0).unwrap(), f);
    assert_eq!(
        f.encode_into(&mut [0u8; 15]),
        Err(EncodeError::BufferTooSmall { needed: 16, have: 15 })
    );
}

#[test]
fn body_too_long_is_refused() {
    let big = vec![0u8; MAX_BODY + 1];
    let f = FrameRef::new(FrameType::Echo, 0, &big);
    assert_eq!(
        f.encode_to_vec(&mut Vec::new()),
        Err(EncodeError::BodyTooLong { len: MAX_BODY + 1 })
    );
    let max = vec![0u8; MAX_BODY];
    let bytes = FrameRef::new(FrameType::Echo, 0, &max);
    let mut v = Vec::new();
    assert_eq!(bytes.encode_to_vec(&mut v), Ok(MAX_BODY + OVERHEAD));
}

#[test]
fn named_errors() {
    let good = FrameRef::new(FrameType::Echo, 1, b"abc").to_frame().encode().unwrap();
    let mut bad = good.clone();
    bad[12] ^= 1;
    assert!(matches!(decode(&bad, MAX_BODY), Err(FrameError::CrcMismatch { .. })));
    let mut bad = good.clone();
    bad[2] = 2;
    assert_eq!(decode(&bad, MAX_BODY).unwrap_err(), FrameError::UnsupportedVersion { version: 2 });
    let mut bad = good.clone();
    bad[4] = 0x10;
    assert_eq!(decode(&bad, MAX_BODY).unwrap_err(), FrameError::ReservedFlags { flags: 0x10 });
    let mut bad = good.clone();
    bad[4] = Flags::TS.bits();
    assert_eq!(decode(&bad, MAX_BODY).unwrap_err(), FrameError::BadLength { len: 3, needed: 24 });
    assert_eq!(decode(&good, 2).unwrap_err(), FrameError::TooLong { len: 3, max: 2 });
    assert_eq!(
        decode(&good[..10], MAX_BODY).unwrap_err(),
        FrameError::Truncated { needed: 12, have: 10 }
    );
    assert_eq!(
        decode(&good[..18], MAX_BODY).unwrap_err(),
        FrameError::Truncated { needed: 19, have: 18 }
    );
    assert_eq!(decode(b"xy", MAX_BODY).unwrap_err(), FrameError::BadMagic { got: *b"xy" });
    let mut two = good.clone();
    two.push(0);
    assert_eq!(decode_exact(&two, MAX_BODY).unwrap_err(), FrameError::TrailingBytes { bytes: 1 });
    assert_eq!(decode(&two, MAX_BODY).unwrap().1, good.len());
}

#[test]
fn records_round_trip() {
    let c = Caps {
        max_frame: 496,
        modes: Modes(Modes::ALL),
        clock_hz: 209_000_000,
        clock_id: ClockId::COUNTER,
        rx_slots: 8,
        ack_every_bytes: 4096,
    };
    assert_eq!(Caps::from_bytes(&c.to_bytes()), Ok(c));
    let a = Ack { acked_seq: 9, bytes: 4096 };
    assert_eq!(Ack::from_bytes(&a.to_bytes()), Ok(a));
    let s = PeerStats { rx_frames: 1, send_errors: 9, garbage_bytes: 7, ..Default::default() };
    assert_eq!(PeerStats::from_bytes(&s.to_bytes()), Ok(s));
    let e = ErrorReport { code: 7, seq: 3 };
    assert_eq!(ErrorReport::from_bytes(&e.to_bytes()), Ok(e));
    assert_eq!(Credit::from_bytes(&[1, 0, 0, 0]), Ok(Credit { frames: 1 }));
    assert_eq!(TimeReply::from_bytes(&TimeReply { now_ticks: 5 }.to_bytes()).unwrap().now_ticks, 5);
    assert_eq!(Ack::from_bytes(&[0; 7]), Err(PayloadError { record: "ack", expected: 8, got: 7 }));
}

#[test]
fn types_round_trip() {
    for v in 0..=255u8 {
        assert_eq!(FrameType::from_u8(v).as_u8(), v);
    }
}
