//! The layout check: the whole snapshot after a scripted workload of three
//! streams.

use super::support::{
    ALLOC, FREE, PEND, Row, S0, S1, S2, Sim, Size, at, bytes, ensure, ensure_rows, free, malloc,
    mb, render, sim,
};
use caching_allocator::{Pool, StreamId};
use judge_harness::{Ctx, Failure, ensure_eq};

pub(super) fn layout_after_a_scripted_workload(_: &Ctx) -> Result<(), Failure> {
    let mut a = sim(mb(64));
    let x = malloc(&mut a, 1000, S0)?;
    let _y = malloc(&mut a, mb(5), S0)?;
    let _z = malloc(&mut a, 300, S1)?;
    let _w = malloc(&mut a, mb(12), S1)?;
    let v = malloc(&mut a, 2000, S0)?;
    a.record_stream(&v, S2);
    free(&mut a, x)?;
    free(&mut a, v)?;
    let (m2, m7, m22, m24) = (mb(2) as u64, mb(7) as u64, mb(22) as u64, mb(24) as u64);
    let expected: Vec<(u64, usize, StreamId, Pool, Vec<Row>)> = vec![
        (
            0,
            mb(2),
            S0,
            Pool::Small,
            vec![
                (0, 1024, FREE),
                (1024, 2048, PEND),
                (3072, mb(2) - 3072, FREE),
            ],
        ),
        (
            m2,
            mb(20),
            S0,
            Pool::Large,
            vec![(m2, mb(5), ALLOC), (m7, mb(15), FREE)],
        ),
        (
            m22,
            mb(2),
            S1,
            Pool::Small,
            vec![(m22, 512, ALLOC), (m22 + 512, mb(2) - 512, FREE)],
        ),
        (m24, mb(12), S1, Pool::Large, vec![(m24, mb(12), ALLOC)]),
    ];
    let script = "malloc(1000, s0), malloc(5 MiB, s0), malloc(300, s1), malloc(12 MiB, s1), v = malloc(2000, s0), record_stream(v, s2), free the first and v";
    ensure_layout(&a, &expected, script)?;
    a.driver_mut().finish(S2);
    malloc(&mut a, 1024, S0)?;
    ensure_rows(
        &a,
        0,
        &[(0, 1024, ALLOC), (1024, mb(2) - 1024, FREE)],
        "after stream 2 finishes and malloc(1 KiB, s0): the pending block merged with both free neighbours before the search",
    )?;
    ensure_eq(
        (Size(a.memory_allocated()), Size(a.memory_reserved())),
        (Size(1024 + mb(5) + 512 + mb(12)), Size(mb(36))),
        "(memory_allocated, memory_reserved) at the end",
    )
}

/// Fails unless the whole snapshot is `expected`, segment by segment.
fn ensure_layout(
    a: &Sim,
    expected: &[(u64, usize, StreamId, Pool, Vec<Row>)],
    script: &str,
) -> Result<(), Failure> {
    let snapshot = a.snapshot();
    let show = |segments: &mut dyn Iterator<Item = (u64, usize, StreamId, Pool, Vec<Row>)>| {
        segments
            .map(|(base, size, stream, pool, rows)| {
                format!(
                    "\n  {pool:?} segment of {} at {} for stream {}: {}",
                    bytes(size),
                    at(base),
                    stream.0,
                    render(&rows)
                )
            })
            .collect::<String>()
    };
    let actual: Vec<_> = snapshot
        .iter()
        .map(|s| {
            (
                s.base,
                s.size,
                s.stream,
                s.pool,
                s.blocks
                    .iter()
                    .map(|b| (b.addr, b.size, b.state))
                    .collect::<Vec<Row>>(),
            )
        })
        .collect();
    ensure(
        actual == expected,
        format!(
            "the snapshot after {script}:{}",
            show(&mut expected.iter().cloned())
        ),
        || show(&mut actual.into_iter()),
    )
}
