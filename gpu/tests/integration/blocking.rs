//! Which calls block the CPU, and for how long: the lessons' core semantics.

use crate::both;
use crate::support::{GATE, cpu_time, open};
use gpu::{Backend, BlockReason, Device, GpuError, OpKind, SyncDebug};
use std::time::Duration;

both!(
    launch_returns_at_once,
    pageable_d2h_waits_for_the_stream,
    pinned_d2h_does_not_wait,
    pageable_h2d_small_is_staged_large_waits,
    pageable_h2d_staging_has_two_slots_and_small_copies_skip_it,
    raw_free_waits_for_the_device,
    pinned_free_waits_for_the_device,
    events_wait_on_the_gpu_not_the_cpu,
    elapsed_time_measures_the_gpu,
    query_never_blocks,
    sync_debug_error_refuses_every_blocking_call,
);

fn launch_returns_at_once(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    s.spin(Duration::from_micros(10)).unwrap(); // warm up
    s.synchronize().unwrap();
    let (_, t) = cpu_time(&device, || s.spin(GATE).unwrap());
    assert!(t < GATE / 10, "a launch took {t:?} of CPU time");
    assert!(!s.query().unwrap(), "the spin cannot be done yet");
    let (_, t) = cpu_time(&device, || s.synchronize().unwrap());
    assert!(t > GATE / 2, "synchronize returned after {t:?}");
}

fn pageable_d2h_waits_for_the_stream(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(1024).unwrap();
    s.fill(&x, 2.0).unwrap();
    s.synchronize().unwrap();
    s.spin(GATE).unwrap();
    let (host, t) = cpu_time(&device, || s.to_vec(&x).unwrap());
    assert!(
        t >= GATE * 9 / 10,
        "a pageable copy returned after {t:?}, before the gate ended"
    );
    assert_eq!(host, vec![2.0; 1024]);
    let entry = device
        .trace()
        .entries
        .into_iter()
        .rfind(|e| e.op == OpKind::CopyDeviceToHost)
        .unwrap();
    assert_eq!(entry.blocking, Some(BlockReason::PageableDeviceToHost));
}

fn pinned_d2h_does_not_wait(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<i32>(4096).unwrap();
    let pinned = device.alloc_pinned::<i32>(4096).unwrap();
    s.synchronize().unwrap();
    s.spin(GATE).unwrap();
    s.fill(&x, 7).unwrap();
    let (_, t) = cpu_time(&device, || s.copy_to_pinned(&x, &pinned).unwrap());
    assert!(t < GATE / 2, "a pinned copy took {t:?} to submit");
    let done = s.record_event().unwrap();
    assert_eq!(
        pinned.to_vec()[0],
        0,
        "read before the copy landed: still the old data"
    );
    done.synchronize().unwrap();
    assert_eq!(pinned.to_vec(), vec![7; 4096]);
}

fn pageable_h2d_small_is_staged_large_waits(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let small = vec![1.0f32; 1024]; // 4 KiB: fits the staging buffer
    let large = vec![1.0f32; 4 << 20]; // 16 MiB: does not
    let (ds, dl) = (
        s.alloc_zeros::<f32>(small.len()).unwrap(),
        s.alloc_zeros::<f32>(large.len()).unwrap(),
    );
    s.copy_from_host(&large, &dl).unwrap(); // warm up
    s.synchronize().unwrap();
    s.spin(GATE).unwrap();
    let (_, t_small) = cpu_time(&device, || s.copy_from_host(&small, &ds).unwrap());
    let (_, t_large) = cpu_time(&device, || s.copy_from_host(&large, &dl).unwrap());
    assert!(t_small < GATE / 4, "a 4 KiB pageable copy took {t_small:?}");
    assert!(
        t_small + t_large >= GATE * 9 / 10,
        "a 16 MiB pageable copy returned after {t_large:?}"
    );
    let total = s.alloc_zeros::<f32>(1).unwrap();
    s.sum(&dl, &total).unwrap();
    assert_eq!(s.to_vec(&total).unwrap(), [(4 << 20) as f32]);
}

fn pageable_h2d_staging_has_two_slots_and_small_copies_skip_it(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let (small, staged) = (vec![1u32; 1024], vec![1u32; 64 << 10]); // 4 KiB, 256 KiB
    let (ds, dl) = (
        s.alloc_zeros::<u32>(small.len()).unwrap(),
        s.alloc_zeros::<u32>(staged.len()).unwrap(),
    );
    s.copy_from_host(&staged, &dl).unwrap(); // warm up
    device.synchronize().unwrap();
    s.spin(GATE).unwrap();
    let mut times = Vec::new();
    for _ in 0..4 {
        times.push(cpu_time(&device, || s.copy_from_host(&small, &ds).unwrap()).1);
    }
    assert!(
        times.iter().all(|&t| t < GATE / 4),
        "4 KiB copies behind the gate: {times:?}"
    );
    device.synchronize().unwrap();
    s.spin(GATE).unwrap();
    let times: Vec<_> = (0..3)
        .map(|_| cpu_time(&device, || s.copy_from_host(&staged, &dl).unwrap()).1)
        .collect();
    assert!(
        times[0] < GATE / 4 && times[1] < GATE / 4,
        "two staged copies fit: {times:?}"
    );
    assert!(
        times[2] >= GATE / 2,
        "the third waits for a slot: {times:?}"
    );
    device.synchronize().unwrap();
}

fn raw_free_waits_for_the_device(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let seg = device.alloc_segment(64 << 20).unwrap();
    device.free_segment(seg).unwrap(); // warm up
    let other = device.new_stream().unwrap();
    other.spin(GATE).unwrap(); // the free waits even for work on another stream
    let (seg, t_alloc) = cpu_time(&device, || device.alloc_segment(64 << 20).unwrap());
    assert!(
        t_alloc < GATE / 2,
        "cuMemAlloc took {t_alloc:?}: it should not wait"
    );
    let (_, t_free) = cpu_time(&device, || device.free_segment(seg).unwrap());
    assert!(
        t_alloc + t_free >= GATE * 9 / 10,
        "cuMemFree returned after {t_free:?}"
    );
    let _ = s;
}

fn pinned_free_waits_for_the_device(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    drop(device.alloc_pinned::<f32>(1 << 20).unwrap()); // warm up
    let pinned = device.alloc_pinned::<f32>(1 << 20).unwrap();
    s.spin(GATE).unwrap();
    let (_, t) = cpu_time(&device, || drop(pinned));
    assert!(t >= GATE * 9 / 10, "cuMemFreeHost returned after {t:?}");
}

fn events_wait_on_the_gpu_not_the_cpu(backend: Backend) {
    let device = open(backend);
    let (a, b) = (device.new_stream().unwrap(), device.new_stream().unwrap());
    let x = a.alloc_zeros::<f32>(256).unwrap();
    let out = b.alloc_zeros::<f32>(1).unwrap();
    device.synchronize().unwrap();
    a.spin(GATE).unwrap();
    a.fill(&x, 1.0).unwrap();
    let ready = a.record_event().unwrap();
    let (_, t) = cpu_time(&device, || {
        b.wait_event(&ready).unwrap();
        b.sum(&x, &out).unwrap();
    });
    assert!(t < GATE / 2, "wait_event blocked the CPU for {t:?}");
    assert_eq!(b.to_vec(&out).unwrap(), [256.0]);
    assert!(device.races().is_empty(), "{:?}", device.races());
}

fn elapsed_time_measures_the_gpu(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let (start, end) = (device.new_event().unwrap(), device.new_event().unwrap());
    assert!(matches!(
        start.elapsed_ms(&end),
        Err(GpuError::Event { .. })
    ));
    s.spin(Duration::from_millis(1)).unwrap();
    start.record(&s).unwrap();
    s.spin(GATE).unwrap();
    end.record(&s).unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    let gate_ms = GATE.as_secs_f32() * 1e3;
    assert!(
        ms >= gate_ms * 0.99 && ms < gate_ms * 1.2,
        "elapsed {ms} ms around a {gate_ms} ms spin"
    );
}

fn query_never_blocks(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let never = device.new_event().unwrap();
    assert!(
        never.query().unwrap(),
        "an event never recorded is complete"
    );
    s.spin(GATE).unwrap();
    let e = s.record_event().unwrap();
    let (done, t) = cpu_time(&device, || (s.query().unwrap(), e.query().unwrap()));
    assert_eq!(done, (false, false));
    assert!(t < GATE / 4);
    e.synchronize().unwrap();
    assert!(s.query().unwrap() && e.query().unwrap());
}

fn sync_debug_error_refuses_every_blocking_call(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(1 << 20).unwrap();
    let e = s.record_event().unwrap();
    let seg = device.alloc_segment(1 << 20).unwrap();
    let mut host = vec![0.0f32; 1 << 20];
    let pinned = device.alloc_pinned::<f32>(1 << 20).unwrap();
    device.set_sync_debug(SyncDebug::Error);
    let refused = |r: gpu::Result<()>| matches!(r, Err(GpuError::SyncDisallowed { .. }));
    assert!(refused(s.synchronize()));
    assert!(refused(e.synchronize()));
    assert!(refused(device.synchronize()));
    assert!(refused(e.elapsed_ms(&e).map(drop)));
    assert!(refused(s.copy_to_host(&x, &mut host)));
    assert!(refused(s.copy_from_host(&host, &x)));
    assert!(refused(device.free_segment(seg)));
    // Asynchronous calls are allowed.
    s.copy_to_pinned(&x, &pinned).unwrap();
    s.fill(&x, 1.0).unwrap();
    e.query().unwrap();
    device.set_sync_debug(SyncDebug::Off);
    s.synchronize().unwrap();
}

#[test]
fn the_virtual_gpu_blocks_for_exactly_the_remaining_stream_time() {
    let device = open(Backend::Virtual);
    let cal = device.calibration();
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(1).unwrap();
    s.synchronize().unwrap();
    let t0 = device.now();
    s.spin(GATE).unwrap();
    let _ = s.to_vec(&x).unwrap();
    let blocked = device.now() - t0;
    // launch, copy submit, then the gate (its spin and a kernel's own
    // overhead), the 4-byte copy, and the wake-up.
    let copy_ns = (4.0 / cal.pageable_d2h_bytes_per_ns) as u64 + 1_000;
    let gate_ns = GATE.as_nanos() as u64 + cal.kernel_min_ns;
    let expected = cal.launch_ns + gate_ns + copy_ns + cal.wake_ns;
    assert_eq!(blocked, Duration::from_nanos(expected));
}

#[test]
fn pageable_h2d_stages_like_driver_580_on_the_h200() {
    // What driver 580 did on the H200 behind a 50 ms kernel (the tour,
    // section 3): 4 KiB and 2 MiB return at once, 4 MiB waits for the
    // kernel, 64 MiB for the kernel and then its own transfer. The last is
    // modelled at the cost table's pageable rate, measured on an idle device:
    // the H200 drained the chunks of a copy queued behind the kernel more
    // slowly, so its 64 MiB took longer (the book says so).
    let cal = open(Backend::Virtual).calibration();
    let transfer_ms = |bytes: f64| bytes / cal.pageable_h2d_bytes_per_ns / 1e6;
    let big = (64 << 20) as f64;
    let cases = [
        (4 << 10, 0.0, 0.5),
        (2 << 20, 0.1, 0.6),
        (4 << 20, 50.0, 51.0),
        (
            64 << 20,
            50.0 + transfer_ms(big - (2 << 20) as f64),
            50.5 + transfer_ms(big),
        ),
    ];
    for (bytes, lo, hi) in cases {
        let device = open(Backend::Virtual);
        let s = device.new_stream().unwrap();
        let host = vec![0u32; bytes / 4];
        let dst = s.alloc_zeros::<u32>(host.len()).unwrap();
        s.spin(Duration::from_millis(50)).unwrap();
        let (_, t) = cpu_time(&device, || s.copy_from_host(&host, &dst).unwrap());
        let ms = t.as_secs_f64() * 1e3;
        assert!(
            (lo..hi).contains(&ms),
            "{bytes} bytes returned after {ms:.3} ms, expected {lo}..{hi}"
        );
    }
}

#[test]
fn sync_debug_warn_lets_the_call_through() {
    let device: Device = open(Backend::Virtual);
    device.set_sync_debug(SyncDebug::Warn);
    let s = device.new_stream().unwrap();
    s.synchronize().unwrap();
    assert_eq!(device.trace().blocking().count(), 1);
}
