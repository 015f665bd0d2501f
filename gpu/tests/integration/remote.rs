//! A device of another process: the same program, run once on a device of
//! its own and once through proxies whose device lives in the judge's
//! thread, leaves the same results, the same trace (every entry, times
//! included, on the virtual GPU) and the same race reports.

use gpu::remote::{Frame, Link, agent, host};
use gpu::{
    Backend, Decoder, DecoderConfig, Device, DeviceOptions, PinnedBuffer, Result, Stream, SyncDebug,
};
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

/// What a learner's code might do with a stream and a pinned buffer it was
/// given: allocations, copies each way, kernels, events across two streams,
/// a capture and its replays, a decoder, a segment, a race, a refused sync,
/// in ranges.
fn program(stream: &Stream, batch: &PinnedBuffer<f32>) -> Result<Vec<f32>> {
    let device = stream.device();
    let _program = device.range("program");
    let other = device.new_stream()?;
    let upload = device.range("upload");
    let x = stream.alloc_zeros::<f32>(batch.len())?;
    let total = stream.alloc_zeros::<f32>(1)?;
    stream.spin(Duration::from_millis(2))?;
    stream.copy_from_pinned(batch, &x)?;
    stream.sum(&x, &total)?;
    drop(upload);
    let done = stream.record_event()?;
    other.wait_event(&done)?;
    let y = other.alloc_zeros::<f32>(batch.len())?;
    other.affine(&x, 2.0, 1.0, &y)?;
    // A race: `stream` overwrites `x` while `other` may still read it.
    stream.fill(&x, 5.0)?;
    let flags = other.alloc_zeros::<i32>(4)?;
    other.fill(flags.slice(0..2), 3)?;
    other.copy_from_host(&[1.0f32, 2.0, 3.0, 4.0], y.slice(0..4))?;
    let back = other.to_vec(y.slice(0..4))?;
    let out = device.alloc_pinned::<f32>(4)?;
    other.copy_to_pinned(y.slice(0..4), &out)?;
    other.synchronize()?;
    let pinned = out.to_vec();
    let start = stream.record_event()?;
    stream.begin_capture()?;
    stream.affine(&x, 1.0, 1.0, &x)?;
    stream.affine(&x, 1.0, 1.0, &x)?;
    let graph = stream.end_capture()?;
    graph.launch()?;
    graph.launch()?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let replay_ms = start.elapsed_ms(&end)?;
    let config = DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 3,
        step_time: Duration::from_micros(50),
    };
    let decoder = Decoder::new(stream, config)?;
    let tokens = stream.alloc_zeros::<i32>(2)?;
    let next = stream.alloc_zeros::<i32>(2)?;
    stream.copy_from_host(&[1, 5], &tokens)?;
    stream.decode_step(&decoder, &tokens, &next)?;
    let stepped = stream.to_vec(&next)?;
    assert_eq!(stepped, decoder.reference_step(&[1, 5]));
    let segment = device.alloc_segment(1 << 20)?;
    let view = device.view::<f32>(segment.addr(), 16)?;
    stream.fill(view, 1.0)?;
    device.free_segment(segment)?;
    let refused = stream.query().is_ok() && !stream.is_capturing();
    let mut all = stream.to_vec(&x)?;
    all.extend(back);
    all.extend(pinned);
    all.extend(stepped.iter().map(|&t| t as f32));
    all.push(replay_ms);
    all.push(f32::from(u8::from(refused)));
    all.push(device.now().as_secs_f32());
    Ok(all)
}

fn batch(device: &Device) -> PinnedBuffer<f32> {
    let batch = device.alloc_pinned::<f32>(1024).unwrap();
    batch.write(&vec![1.0; 1024]).unwrap();
    batch
}

fn device() -> Device {
    Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })
    .unwrap()
}

/// A virtual device, a stream of it and a batch in pinned memory, made at
/// the same lines every time (the trace records them).
fn fresh() -> (Device, Stream, PinnedBuffer<f32>) {
    let device = device();
    let stream = device.new_stream().unwrap();
    let batch = batch(&device);
    (device, stream, batch)
}

/// Runs `program` in a thread of its own whose device is this thread's:
/// serves its calls until it says it is done; returns what it returned.
fn run_remotely(stream: &Stream, batch: &PinnedBuffer<f32>) -> Result<Vec<f32>> {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let (stream_ref, batch_ref) = (host::export_stream(stream), host::export_pinned(batch));
    let (send, receive) = mpsc::channel();
    let learner = std::thread::spawn(move || {
        let link = Rc::new(Link::accept(theirs).unwrap());
        let stream = agent::stream(&link, stream_ref);
        let batch = agent::pinned::<f32>(&link, batch_ref).unwrap();
        let result = program(&stream, &batch);
        drop((stream, batch));
        send.send(result).unwrap();
        link.send(&Frame::Harness(b"done".to_vec())).unwrap();
    });
    let link = Link::offer(ours, Default::default()).unwrap();
    loop {
        match link.recv().unwrap() {
            Frame::Gpu(call) => link
                .send(&Frame::GpuReply(host::serve(call).unwrap()))
                .unwrap(),
            Frame::Harness(_) => break,
            Frame::GpuReply(_) => panic!("an answer from the learner's side"),
        }
    }
    learner.join().unwrap();
    receive.recv().unwrap()
}

#[test]
fn a_program_through_proxies_leaves_the_same_record_as_in_process() {
    let (local, stream, batch) = fresh();
    let expected = program(&stream, &batch).unwrap();
    let (judged, stream, batch) = fresh();
    let got = run_remotely(&stream, &batch).unwrap();
    assert_eq!(got, expected);
    let (theirs, ours) = (judged.trace().entries, local.trace().entries);
    for (remote, local) in theirs.iter().zip(&ours) {
        assert_eq!(remote, local);
    }
    assert_eq!(theirs.len(), ours.len());
    let ranges = |d: &Device| d.trace().ranges;
    assert_eq!(
        ranges(&judged).len(),
        2,
        "the learner's ranges are in the judge's trace"
    );
    assert_eq!(ranges(&judged), ranges(&local));
    let races = |d: &Device| {
        d.races()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert!(!races(&local).is_empty(), "the program races");
    assert_eq!(races(&judged), races(&local));
    host::reset();
}

#[test]
fn a_refused_call_is_refused_in_the_learner_s_process_with_its_error() {
    let judged = device();
    judged.set_sync_debug(SyncDebug::Error);
    let stream = judged.new_stream().unwrap();
    let batch = batch(&judged);
    let err = run_remotely(&stream, &batch).unwrap_err();
    assert!(
        matches!(
            err,
            gpu::GpuError::SyncDisallowed {
                op: "copy to device",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("tests/integration/remote.rs"),
        "the learner's line: {err}"
    );
    host::reset();
}

#[test]
fn a_handle_the_judge_never_handed_over_is_foreign() {
    let judged = device();
    let mine = judged.new_stream().unwrap();
    let _secret = judged.new_stream().unwrap();
    let (ours, theirs) = UnixStream::pair().unwrap();
    let shared = host::export_stream(&mine);
    let learner = std::thread::spawn(move || {
        let link = Rc::new(Link::accept(theirs).unwrap());
        let stream = agent::stream(&link, shared);
        // A stream id the learner guessed: the judge's other stream.
        let guessed: gpu::remote::StreamRef =
            postcard::from_bytes(&postcard::to_stdvec(&(0u32, stream.id().0 + 1)).unwrap())
                .unwrap();
        let outcome = agent::stream(&link, guessed).synchronize();
        link.send(&Frame::Harness(Vec::new())).unwrap();
        outcome.map_err(|e| e.to_string())
    });
    let link = Link::offer(ours, Default::default()).unwrap();
    while let Frame::Gpu(call) = link.recv().unwrap() {
        link.send(&Frame::GpuReply(host::serve(call).unwrap()))
            .unwrap();
    }
    let err = learner.join().unwrap().unwrap_err();
    assert!(err.contains("mixes handles"), "{err}");
    host::reset();
}

#[test]
fn learner_code_cannot_read_the_device_s_record() {
    let judged = device();
    let stream = judged.new_stream().unwrap();
    let (ours, theirs) = UnixStream::pair().unwrap();
    let shared = host::export_stream(&stream);
    let learner = std::thread::spawn(move || {
        let link = Rc::new(Link::accept(theirs).unwrap());
        let stream = agent::stream(&link, shared);
        let _ = stream.device().trace();
    });
    let link = Link::offer(ours, Default::default()).unwrap();
    while let Ok(Frame::Gpu(call)) = link.recv() {
        link.send(&Frame::GpuReply(host::serve(call).unwrap()))
            .unwrap();
    }
    let payload = learner.join().unwrap_err();
    let message = payload.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("`Device::trace` is the judge's"),
        "{message}"
    );
    host::reset();
}
