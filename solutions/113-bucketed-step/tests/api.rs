//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/113-bucketed-step/README.md`) includes the lines
//! between the anchors, and the checks after them hold for the reference
//! solution.

use bucketed_step::{BucketedStep, Error, bucket_for};
use gpu::{Backend, Decoder, DecoderConfig, Device, DeviceOptions};
use std::time::Duration;

#[test]
fn the_statements_api_sketch_runs() -> Result<(), Error> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 113,
        step_time: Duration::from_micros(200),
    };
    let decoder = Decoder::new(&stream, config)?;
    let tokens = stream.alloc_zeros::<i32>(8)?;
    let next = stream.alloc_zeros::<i32>(8)?;
    stream.copy_from_host(&[396, 104, 68, 17, 34, 250, 9, 77], &tokens)?;
    let (x, y) = (|n: usize| tokens.slice(0..n), |n: usize| next.slice(0..n));
    // ANCHOR: api
    let mut step = BucketedStep::new(&stream, &decoder)?; // given: one graph per bucket
    step.step(x(8), y(8))?; // bucket 8
    step.step(x(3), y(3))?; // bucket 4: rows 0..3 copied in, row 3 padded
    step.step(x(0), y(0))?; // an empty batch: nothing queued
    assert_eq!(bucket_for(5), Some(8));
    // ANCHOR_END: api
    let all = stream.to_vec(&tokens)?;
    let want = decoder.reference_step(&all);
    let got = stream.to_vec(&next)?;
    assert_eq!(got[..3], want[..3], "the batch of 3, copied out");
    assert_eq!(
        got[3..],
        want[3..],
        "the batch of 8's rows 3..8, left as they were"
    );
    let (input, _) = step.static_buffers();
    assert_eq!(stream.to_vec(input)?[3], bucketed_step::PAD, "row 3 padded");
    Ok(())
}

#[test]
fn a_batch_bigger_than_the_largest_bucket_is_refused() -> Result<(), Error> {
    let device = Device::open(Backend::Virtual)?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 3,
        step_time: Duration::from_micros(10),
    };
    let decoder = Decoder::new(&stream, config)?;
    let mut step = BucketedStep::new(&stream, &decoder)?;
    let nine = stream.alloc_zeros::<i32>(9)?;
    let refused = step.step(nine.slice(0..9), nine.slice(0..9));
    assert!(matches!(
        refused,
        Err(Error::TooManyRows { rows: 9, max: 8 })
    ));
    Ok(())
}
