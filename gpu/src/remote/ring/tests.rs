//! The rings: bytes cross whole, in order and past the ring's size, asleep
//! or polling; and what a broken or hostile other side writes in the shared
//! memory is an error of the link, never a read out of bounds or a hang.

use super::*;

fn pair(spin: Duration) -> (Pipe, Pipe) {
    let (a, b) = UnixStream::pair().unwrap();
    let a = Pipe::offer(a, (spin, spin)).unwrap();
    (a, Pipe::accept(b).unwrap())
}

/// `len` bytes that say where they are.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

fn round_trip_through_a_thread(spin: Duration, len: usize) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let echo = std::thread::spawn(move || {
        let pipe = Pipe::accept(theirs).unwrap();
        let mut buf = vec![0u8; len];
        pipe.read_exact(&mut buf).unwrap();
        pipe.write_all(&buf).unwrap();
    });
    let pipe = Pipe::offer(ours, (spin, spin)).unwrap();
    let sent = pattern(len);
    let mut back = vec![0u8; len];
    // The echo reads all before it answers, so a message longer than the
    // ring is written while the other side reads it.
    pipe.write_all(&sent).unwrap();
    pipe.read_exact(&mut back).unwrap();
    echo.join().unwrap();
    assert!(
        back == sent,
        "{len} bytes came back changed (spin {spin:?})"
    );
}

#[test]
fn bytes_cross_whole_and_in_order_asleep_or_polling() {
    for spin in [Duration::ZERO, Duration::from_millis(1)] {
        for len in [1, 4096, CAPACITY - 1, CAPACITY, 3 * CAPACITY + 17] {
            round_trip_through_a_thread(spin, len);
        }
    }
}

#[test]
fn the_accepting_end_takes_the_spin_the_offering_end_set() {
    let (a, b) = pair(Duration::from_micros(300));
    assert_eq!(a.spin(), Duration::from_micros(300));
    assert_eq!(b.spin(), Duration::from_micros(300));
    let (a, b) = pair(Duration::from_secs(5));
    assert_eq!((a.spin(), b.spin()), (LONGEST_SPIN, LONGEST_SPIN));
    let (a, b) = UnixStream::pair().unwrap();
    let a = Pipe::offer(a, (Duration::from_millis(1), Duration::from_millis(7))).unwrap();
    let b = Pipe::accept(b).unwrap();
    assert_eq!(
        (a.spin(), b.spin()),
        (Duration::from_millis(1), Duration::from_millis(7)),
        "each side polls for its own spin"
    );
}

#[test]
fn positions_wrap_around_the_ring_many_times() {
    let (a, b) = pair(Duration::ZERO);
    let chunk = pattern(CAPACITY / 3 + 5);
    let mut back = vec![0u8; chunk.len()];
    for _ in 0..10 {
        a.write_all(&chunk).unwrap();
        b.read_exact(&mut back).unwrap();
        assert!(back == chunk);
    }
}

#[test]
fn a_writer_that_says_it_wrote_more_than_the_ring_holds_is_refused() {
    let (a, b) = pair(Duration::ZERO);
    // `b` writes ring 1; a hostile `b` publishes any tail it likes.
    for tail in [CAPACITY as u64 + 1, u64::MAX, u64::MAX / 2] {
        b.field(1, TAIL).store(tail, Ordering::Release);
        let err = a.read_exact(&mut [0u8; 8]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "tail {tail}");
        assert!(
            err.to_string().contains("more than the link holds"),
            "{err}"
        );
    }
}

#[test]
fn a_reader_that_says_it_read_past_what_was_written_is_refused() {
    let (a, b) = pair(Duration::ZERO);
    a.write_all(&[1, 2, 3]).unwrap();
    // `b` reads ring 0: a hostile `b` says it read ahead of the writer.
    b.field(0, HEAD).store(1 << 40, Ordering::Release);
    // The writer reads the reader's position when the room it knows of runs
    // out: a write of the ring's size does.
    let err = a.write_all(&pattern(CAPACITY)).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(
        err.to_string().contains("read past what was written"),
        "{err}"
    );
}

#[test]
fn a_reader_that_never_reads_overruns_nothing_and_its_end_stops_the_writer() {
    let (a, b) = pair(Duration::ZERO);
    a.write_all(&pattern(CAPACITY)).unwrap();
    // The ring is full: the next byte waits for room, until `b` is gone.
    let writer = std::thread::spawn(move || a.write_all(&[9]));
    std::thread::sleep(Duration::from_millis(50));
    drop(b);
    let writer = writer.join().unwrap();
    assert_eq!(writer.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
}

#[test]
fn what_was_written_before_the_other_end_went_is_still_read() {
    let (a, b) = pair(Duration::ZERO);
    a.write_all(&[5, 6, 7]).unwrap();
    drop(a);
    let mut buf = [0u8; 3];
    b.read_exact(&mut buf).unwrap();
    assert_eq!(buf, [5, 6, 7]);
    assert_eq!(
        b.read_exact(&mut buf).unwrap_err().kind(),
        io::ErrorKind::UnexpectedEof
    );
}

#[test]
fn a_cleared_sleep_flag_costs_a_nap_not_a_hang() {
    let (a, b) = pair(Duration::ZERO);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 1];
        b.read_exact(&mut buf).map(|()| buf)
    });
    std::thread::sleep(Duration::from_millis(30));
    // A hostile reader's flag, cleared: the writer rings no doorbell.
    a.flag(0, READER_SLEEPS).store(0, Ordering::SeqCst);
    a.write_all(&[42]).unwrap();
    assert_eq!(reader.join().unwrap().unwrap(), [42]);
}

#[test]
fn a_first_message_without_shared_memory_is_refused() {
    let (mut a, b) = UnixStream::pair().unwrap();
    std::io::Write::write_all(&mut a, &[1]).unwrap();
    let err = Pipe::accept(b).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
}
