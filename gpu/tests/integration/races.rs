//! Cross-stream ordering: what a missing wait does to the data, and what the
//! race checker says about it.

use crate::both;
use crate::support::open;
use gpu::{Actor, Backend, RaceKind, StreamId};
use std::time::Duration;

both!(
    reuse_without_wait_corrupts_the_sum,
    reuse_with_an_event_wait_is_correct,
    reading_without_wait_sees_stale_data,
    cpu_reading_pinned_memory_too_early_is_a_race,
    freed_buffer_reused_while_another_stream_reads_it,
    a_free_before_the_reader_is_ordered_is_reported_at_the_free,
    a_free_ordered_after_the_reader_raises_nothing,
);

const N: usize = 1024;
const SLOW: Duration = Duration::from_millis(5);

/// The DESIGN.md experiment: stream A fills a block with 1.0 and sums it
/// slowly; stream B writes 999.0 into the same block. Returns the sum and
/// the device.
fn reuse(backend: Backend, with_wait: bool) -> (f32, gpu::Device, u32, u32) {
    let device = open(backend);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let block = a.alloc_zeros::<f32>(N).unwrap();
    let out = a.alloc_zeros::<f32>(1).unwrap();
    device.synchronize().unwrap();
    a.fill(&block, 1.0).unwrap();
    let read_line = line!() + 1;
    a.sum_after(SLOW, &block, &out).unwrap();
    if with_wait {
        let done = a.record_event().unwrap();
        b.wait_event(&done).unwrap();
    }
    let write_line = line!() + 1;
    b.fill(&block, 999.0).unwrap();
    device.synchronize().unwrap();
    let sum = a.to_vec(&out).unwrap()[0];
    (sum, device, read_line, write_line)
}

fn reuse_without_wait_corrupts_the_sum(backend: Backend) {
    let (sum, device, read_line, write_line) = reuse(backend, false);
    assert_eq!(
        sum,
        999.0 * N as f32,
        "B's write landed before A's slow read"
    );
    let races = device.races();
    assert_eq!(races.len(), 1, "{races:#?}");
    let race = &races[0];
    assert_eq!(race.kind, RaceKind::Unordered);
    assert_eq!(race.current.actor, Actor::Stream(StreamId(2)));
    assert!(race.current.write && !race.previous.write);
    assert_eq!(
        (race.current.site.line, race.previous.site.line),
        (write_line, read_line)
    );
    assert!(race.current.site.file.ends_with("races.rs"));
    let text = race.to_string();
    assert!(
        text.contains("wait_event"),
        "the report says how to fix it: {text}"
    );
}

fn reuse_with_an_event_wait_is_correct(backend: Backend) {
    let (sum, device, ..) = reuse(backend, true);
    assert_eq!(sum, N as f32);
    assert!(device.races().is_empty(), "{:#?}", device.races());
}

fn reading_without_wait_sees_stale_data(backend: Backend) {
    let device = open(backend);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let x = a.alloc_zeros::<f32>(N).unwrap();
    let out = b.alloc_zeros::<f32>(1).unwrap();
    device.synchronize().unwrap();
    a.spin(SLOW).unwrap();
    a.fill(&x, 3.0).unwrap();
    b.sum(&x, &out).unwrap(); // nothing makes B wait for A's fill
    assert_eq!(
        b.to_vec(&out).unwrap(),
        [0.0],
        "B read the buffer before A wrote it"
    );
    let race = &device.races()[0];
    assert!(!race.current.write && race.previous.write);
    assert_eq!(race.previous.what, "kernel `fill_f32`");
}

fn cpu_reading_pinned_memory_too_early_is_a_race(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<i32>(16).unwrap();
    let pinned = device.alloc_pinned::<i32>(16).unwrap();
    s.synchronize().unwrap();
    s.spin(SLOW).unwrap();
    s.fill(&x, 5).unwrap();
    s.copy_to_pinned(&x, &pinned).unwrap();
    let early = pinned.to_vec();
    assert_eq!(early, vec![0; 16]);
    let race = &device.races()[0];
    assert_eq!(race.current.actor, Actor::Cpu);
    assert!(race.host && race.previous.write);
    assert!(race.to_string().contains("synchronize"), "{race}");
    s.synchronize().unwrap();
    assert_eq!(pinned.to_vec(), vec![5; 16]);
    assert_eq!(
        device.races().len(),
        1,
        "after the sync the read is ordered"
    );
}

fn freed_buffer_reused_while_another_stream_reads_it(backend: Backend) {
    let device = open(backend);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let out = b.alloc_zeros::<f32>(1).unwrap();
    let block = a.alloc_zeros::<f32>(N).unwrap();
    a.fill(&block, 1.0).unwrap();
    let filled = a.record_event().unwrap();
    b.wait_event(&filled).unwrap();
    b.sum_after(SLOW, &block, &out).unwrap(); // B is still reading for 5 ms
    let addr = block.addr();
    let free_line = line!() + 1;
    block.free(); // freed on A: nothing tells A that B still reads it
    let again = a.alloc_zeros::<f32>(N).unwrap();
    a.fill(&again, 999.0).unwrap();
    device.synchronize().unwrap();
    let sum = b.to_vec(&out).unwrap()[0];
    let races = device.races();
    if again.addr() == addr {
        assert_ne!(
            sum, N as f32,
            "the reused block was overwritten under the reader"
        );
        let race = races
            .iter()
            .find(|r| r.kind == RaceKind::ReuseAfterFree)
            .expect("a reuse report");
        assert_eq!(race.freed_at.map(|s| s.line), Some(free_line));
        assert_eq!(race.previous.actor, Actor::Stream(b.id()));
    } else {
        // The CUDA pool is free to pick another address; then nothing is corrupted.
        assert_eq!(sum, N as f32);
        assert!(
            backend == Backend::Cuda,
            "the virtual pool reuses the block"
        );
    }
}

/// Stream B reads a buffer of stream A's; A drops it, ordered after B's
/// read or not. Returns the device and the line of the allocation.
fn dropped_while_read(backend: Backend, ordered: bool) -> (gpu::Device, u32) {
    let device = open(backend);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let out = b.alloc_zeros::<f32>(1).unwrap();
    let alloc_line = line!() + 1;
    let block = a.alloc_zeros::<f32>(N).unwrap();
    a.fill(&block, 1.0).unwrap();
    let filled = a.record_event().unwrap();
    b.wait_event(&filled).unwrap();
    b.sum_after(SLOW, &block, &out).unwrap();
    if ordered {
        let read = b.record_event().unwrap();
        a.wait_event(&read).unwrap();
    }
    drop(block); // freed on A, with nothing allocated after it
    device.synchronize().unwrap();
    assert_eq!(b.to_vec(&out).unwrap(), [N as f32], "nothing reused it");
    (device, alloc_line)
}

fn a_free_before_the_reader_is_ordered_is_reported_at_the_free(backend: Backend) {
    let (device, alloc_line) = dropped_while_read(backend, false);
    let races = device.races();
    let [race] = races.as_slice() else {
        panic!("one report, at the free: {races:#?}")
    };
    assert_eq!(race.kind, RaceKind::UnorderedFree);
    assert_eq!(
        (race.current.actor, race.previous.actor),
        (Actor::Stream(StreamId(1)), Actor::Stream(StreamId(2))),
        "A frees what B reads"
    );
    assert!(!race.previous.write, "B's read: {race:#?}");
    assert_eq!(race.allocated_at.map(|s| s.line), Some(alloc_line));
    let text = race.to_string();
    assert!(
        text.starts_with("memory freed while another stream may still use it")
            && text.contains("dropped: freed on stream")
            && text.contains("wait_event"),
        "{text}"
    );
}

fn a_free_ordered_after_the_reader_raises_nothing(backend: Backend) {
    let (device, _) = dropped_while_read(backend, true);
    assert!(device.races().is_empty(), "{:#?}", device.races());
}

#[test]
fn the_race_report_reads_well() {
    let (_, device, ..) = reuse(Backend::Virtual, false);
    let text = device.races()[0].to_string();
    let text = text.replace(env!("CARGO_MANIFEST_DIR"), "[gpu]");
    insta::assert_snapshot!(text);
}

#[test]
fn the_free_hazard_report_reads_well() {
    let (device, _) = dropped_while_read(Backend::Virtual, false);
    let text = device.races()[0].to_string();
    let text = text.replace(env!("CARGO_MANIFEST_DIR"), "[gpu]");
    insta::assert_snapshot!(text);
}
