//! A tour of the runtime's behaviour, measured on whichever backend is here.
//!
//! ```text
//! cargo run --release -p gpu --example tour            # CUDA if present, else the virtual GPU
//! GPU_BACKEND=virtual cargo run --release -p gpu --example tour
//! ```
//!
//! Each section reproduces one row of the H200 table in `DESIGN.md`: a launch
//! only queues work; a copy into a `Vec` is a hidden sync and pinned memory
//! is its fix; `cuMemFree` waits for the device; a block reused across
//! streams without an event corrupts a sum (and the race checker says where);
//! a graph submits 200 kernels in one launch; nothing may block inside a
//! capture. On the virtual GPU every number is deterministic.

mod support;

use gpu::{Backend, Device, DeviceOptions, Result, Stream};
use std::time::Duration;

const MS5: Duration = Duration::from_millis(5);

fn main() -> Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        ..Default::default()
    })?;
    let (major, minor) = device.compute_capability();
    print!("{}", support::header(&device, "tour"));
    println!(
        "\nbackend: {} ({}, compute capability {major}.{minor})\n",
        device.backend(),
        device.name()
    );
    let s = device.new_stream()?;
    warm_up(&s)?;
    launch(&device, &s)?;
    hidden_sync(&device, &s)?;
    staging(&device, &s)?;
    raw_free(&device, &s)?;
    reuse(&device)?;
    graphs(&device, &s)?;
    gate(&device, &s)?;
    capture_rules(&s)?;
    Ok(())
}

/// Milliseconds of CPU time `f` takes on the device's clock.
fn cpu_ms<R>(device: &Device, f: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
    let start = device.now();
    let value = f()?;
    Ok((value, (device.now() - start).as_secs_f64() * 1e3))
}

fn warm_up(s: &Stream) -> Result<()> {
    s.spin(Duration::from_micros(10))?;
    let x = s.alloc_zeros::<f32>(1 << 20)?;
    let _ = s.to_vec(&x)?;
    s.synchronize()
}

fn launch(device: &Device, s: &Stream) -> Result<()> {
    let (start, end) = (device.new_event()?, device.new_event()?);
    start.record(s)?;
    let mut launches = Vec::new();
    for _ in 0..10 {
        launches.push(cpu_ms(device, || s.spin(MS5))?.1 * 1e3);
    }
    end.record(s)?;
    let gpu_ms = start.elapsed_ms(&end)? / 10.0;
    launches.sort_by(f64::total_cmp);
    println!("1. a launch only queues work");
    println!(
        "   CPU time to launch a 5 ms kernel: {:.1} us (median of 10, {:.1} to {:.1}); the GPU ran each for {gpu_ms:.2} ms\n",
        launches[5], launches[0], launches[9]
    );
    Ok(())
}

fn hidden_sync(device: &Device, s: &Stream) -> Result<()> {
    let x = s.alloc_zeros::<f32>(1 << 20)?; // 4 MiB
    let pinned = device.alloc_pinned::<f32>(1 << 20)?;
    s.synchronize()?;
    let (_, pageable_ms) = cpu_ms(device, || {
        s.spin(MS5)?;
        s.to_vec(&x)
    })?;
    let start = device.now();
    s.spin(MS5)?;
    s.copy_to_pinned(&x, &pinned)?;
    let submit = device.now() - start;
    s.synchronize()?;
    let total = device.now() - start;
    println!("2. a copy into a Vec is a hidden sync; pinned memory is the fix");
    println!("   5 ms kernel, then D2H 4 MiB into a Vec:   CPU blocked {pageable_ms:.2} ms");
    println!(
        "   the same into pinned memory:            {:.1} us to submit, {:.2} ms until the data is there\n",
        submit.as_secs_f64() * 1e6,
        total.as_secs_f64() * 1e3
    );
    Ok(())
}

fn staging(device: &Device, s: &Stream) -> Result<()> {
    println!("3. a copy from pageable memory returns once the driver has staged it");
    let mut row = String::from("   behind a 50 ms kernel, H2D from a Vec of");
    for bytes in [4 << 10, 2 << 20, 4 << 20, 64 << 20] {
        let host = vec![0u32; bytes / 4];
        let dst = s.alloc_zeros::<u32>(host.len())?;
        s.synchronize()?;
        s.spin(Duration::from_millis(50))?;
        let (_, ms) = cpu_ms(device, || s.copy_from_host(&host, &dst))?;
        s.synchronize()?;
        let size = if bytes < 1 << 20 {
            format!("{} KiB", bytes >> 10)
        } else {
            format!("{} MiB", bytes >> 20)
        };
        row += &format!(" {size}: {ms:.2} ms;");
    }
    let x = s.alloc_zeros::<u32>(16 << 20)?;
    let pinned = device.alloc_pinned::<u32>(16 << 20)?;
    s.synchronize()?;
    s.spin(Duration::from_millis(50))?;
    let (_, pinned_ms) = cpu_ms(device, || s.copy_from_pinned(&pinned, &x))?;
    s.synchronize()?;
    println!("{row} pinned 64 MiB: {pinned_ms:.2} ms\n");
    Ok(())
}

fn raw_free(device: &Device, s: &Stream) -> Result<()> {
    s.spin(MS5)?;
    let (segment, alloc_ms) = cpu_ms(device, || device.alloc_segment(64 << 20))?;
    let (_, free_ms) = cpu_ms(device, || device.free_segment(segment))?;
    println!("4. cuMemFree waits for the device");
    println!(
        "   while a 5 ms kernel runs: cuMemAlloc 64 MiB {:.0} us, cuMemFree {free_ms:.2} ms\n",
        alloc_ms * 1e3
    );
    Ok(())
}

fn reuse(device: &Device) -> Result<()> {
    println!("5. a block reused by stream B while stream A still reads it");
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    let block = a.alloc_zeros::<f32>(1024)?;
    let out = a.alloc_zeros::<f32>(1)?;
    for fixed in [false, true] {
        device.synchronize()?;
        a.fill(&block, 1.0)?;
        a.sum_after(MS5, &block, &out)?; // a slow reader
        if fixed {
            b.wait_event(&a.record_event()?)?;
        }
        b.fill(&block, 999.0)?; // "the allocator handed the block to stream B"
        device.synchronize()?;
        let sum = a.to_vec(&out)?[0];
        let how = if fixed {
            "with an event wait:   "
        } else {
            "without an event wait:"
        };
        println!("   {how} sum {sum} (expected 1024)");
    }
    for race in device.take_races() {
        println!(
            "   the race checker: {}",
            race.to_string().replace('\n', "\n   ")
        );
    }
    println!();
    Ok(())
}

fn graphs(device: &Device, s: &Stream) -> Result<()> {
    let empty = |s: &Stream| (0..200).try_for_each(|_| s.spin(Duration::ZERO));
    s.synchronize()?;
    let start = device.now();
    empty(s)?;
    let eager_submit = device.now() - start;
    s.synchronize()?;
    let eager_total = device.now() - start;
    s.begin_capture()?;
    empty(s)?;
    let graph = s.end_capture()?;
    graph.launch()?;
    s.synchronize()?;
    let start = device.now();
    graph.launch()?;
    let graph_submit = device.now() - start;
    s.synchronize()?;
    let graph_total = device.now() - start;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!("6. a graph submits many kernels with one launch");
    println!(
        "   200 empty kernels, eager:  submit {:.0} us, total {:.0} us",
        us(eager_submit),
        us(eager_total)
    );
    println!(
        "   captured as one graph:     launch {:.1} us, total {:.0} us\n",
        us(graph_submit),
        us(graph_total)
    );
    Ok(())
}

fn gate(device: &Device, s: &Stream) -> Result<()> {
    let x = s.alloc_zeros::<f32>(1024)?;
    let pinned = device.alloc_pinned::<f32>(1024)?;
    let mut host = vec![0.0f32; 1024];
    let (mut launches, mut pinned_ms, mut pageable_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..20 {
        s.synchronize()?;
        s.spin(Duration::from_millis(20))?;
        launches.push(cpu_ms(device, || (0..32).try_for_each(|_| s.fill(&x, 1.0)))?.1);
        pinned_ms.push(cpu_ms(device, || s.copy_to_pinned(&x, &pinned))?.1);
        pageable_ms.push(cpu_ms(device, || s.copy_to_host(&x, &mut host))?.1);
    }
    let range = |v: &[f64]| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        format!("{lo:.3}–{hi:.3} ms")
    };
    println!(
        "7. which calls wait: each timed behind a 20 ms kernel queued first (a gate), 20 times;"
    );
    println!(
        "   a call that only queues returns at once, one that waits takes the rest of the gate"
    );
    println!(
        "   32 launches {}; pinned D2H {}; pageable D2H {}\n",
        range(&launches),
        range(&pinned_ms),
        range(&pageable_ms)
    );
    Ok(())
}

fn capture_rules(s: &Stream) -> Result<()> {
    s.begin_capture()?;
    s.spin(Duration::ZERO)?;
    let err = s.synchronize().unwrap_err();
    let end = s.end_capture().unwrap_err();
    println!("8. nothing may block inside a capture");
    println!("   synchronize during capture: {err}");
    println!("   end_capture:                {end}");
    Ok(())
}
