//! The API sketch of the exercise's statement, compiled and run: the
//! statement (`exercises/103-graph-static-buffers/README.md`) includes the
//! lines between the anchors.

use gpu::{AsView, Backend, Device, DeviceOptions};
use graph_buffers::{Model, Runner, WIDTH, bucket_for};

#[test]
fn the_statements_api_sketch_runs() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    // Three batches of 1, 3 and 16 rows, and an output of the same size for each.
    let rows = [1, 3, 16];
    let inputs = rows
        .iter()
        .map(|&r| stream.alloc_zeros::<f32>(r * WIDTH))
        .collect::<gpu::Result<Vec<_>>>()?;
    let outputs = rows
        .iter()
        .map(|&r| stream.alloc_zeros::<f32>(r * WIDTH))
        .collect::<gpu::Result<Vec<_>>>()?;
    let [x0, x1, x2] = [0, 1, 2].map(|i| inputs[i].view());
    let [y0, y1, y2] = [0, 1, 2].map(|i| outputs[i].view());
    // ANCHOR: api
    let model = Model::new();
    let mut runner = Runner::new(&stream, &model)?; // allocate, warm up, capture
    // One step per batch: outputs[i] = model(inputs[i]), rows of WIDTH elements.
    runner.decode(&[x0, x1, x2], &[y0, y1, y2])?;
    assert_eq!(bucket_for(3), Some(4));
    // ANCHOR_END: api
    let expected = model.reference(&vec![0.0; 3 * WIDTH]);
    assert_eq!(stream.to_vec(&outputs[1])?, expected);
    Ok(())
}
