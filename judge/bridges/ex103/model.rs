//! The given model, as the judge keeps it: a stack of tiny layers, each one
//! kernel launch (the same file as the starter's `src/model.rs`, so the
//! judge's reference and eager runs are the course's, not the learner's).

use gpu::{Result, Stream, View};

/// Elements in one row (one request of the batch).
pub const WIDTH: usize = 256;
/// Layers in the stack: kernel launches per step when run eagerly.
pub const LAYERS: usize = 64;

/// The layers' coefficients: the same model on every run.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    layers: Vec<(f32, f32)>,
}

impl Default for Model {
    fn default() -> Self {
        Self::new()
    }
}

impl Model {
    /// The model of [`LAYERS`] layers. Each `a` lies in [0.75, 1) and each
    /// `b` in [-0.25, 0.25], multiples of 1/64, so values stay small.
    pub fn new() -> Self {
        let layers = (0..LAYERS)
            .map(|i| {
                let a = 0.75 + (i % 16) as f32 / 64.0;
                let b = ((i * 7) % 33) as f32 / 64.0 - 0.25;
                (a, b)
            })
            .collect();
        Self { layers }
    }

    /// The `(a, b)` of every layer, in order.
    pub fn layers(&self) -> &[(f32, f32)] {
        &self.layers
    }

    // ANCHOR: forward
    /// Queues the whole stack on `stream`: `y = layers(x)`, row by row.
    ///
    /// `x`, `y` and both `scratch` views must have the same length, a
    /// multiple of [`WIDTH`]. The layers ping-pong between the scratch views,
    /// so the step allocates nothing. Every call is a kernel launch: run
    /// eagerly, each one costs the CPU a few microseconds.
    #[track_caller]
    pub fn forward(
        &self,
        stream: &Stream,
        x: View<f32>,
        y: View<f32>,
        scratch: [View<f32>; 2],
    ) -> Result<()> {
        let last = self.layers.len() - 1;
        for (i, &(a, b)) in self.layers.iter().enumerate() {
            let src = if i == 0 { x } else { scratch[(i + 1) % 2] };
            let dst = if i == last { y } else { scratch[i % 2] };
            stream.affine(src, a, b, dst)?;
        }
        Ok(())
    }
    // ANCHOR_END: forward

    /// The output for `x` computed on the CPU, exactly as the GPU computes it
    /// (each product and each sum rounded to `f32`).
    pub fn reference(&self, x: &[f32]) -> Vec<f32> {
        x.iter()
            .map(|&v| self.layers.iter().fold(v, |v, &(a, b)| a * v + b))
            .collect()
    }
}
