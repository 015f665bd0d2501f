//! What the checks share: a device with the two streams and the decoder, the
//! learner's server on it, and a run of steps with a trace mark before each.

use super::workload::{self, Workload};
use gpu::{Decoder, Device, Stream};
use judge_harness::{Ctx, Failure};
use sync_elimination::{Report, Server};

/// A device, its compute and copy streams, the decoder and the workload.
pub(super) struct Bench {
    pub(super) device: Device,
    pub(super) compute: Stream,
    pub(super) copy: Stream,
    pub(super) decoder: Decoder,
    pub(super) workload: Workload,
}

impl Bench {
    /// Opens the judge's device and sets the workload up.
    pub(super) fn open(ctx: &Ctx) -> Result<Self, Failure> {
        let device = ctx.device()?;
        let compute = device.new_stream()?;
        let copy = device.new_stream()?;
        let decoder = workload::decoder(&compute)?;
        let workload = workload::workload(&decoder, ctx.seed_for(workload::SEED));
        Ok(Self {
            device,
            compute,
            copy,
            decoder,
            workload,
        })
    }

    /// The learner's server for the workload.
    pub(super) fn server(&self) -> Result<Server<'_>, Failure> {
        Server::new(
            &self.decoder,
            &self.compute,
            &self.copy,
            self.workload.config(),
        )
        .map_err(|e| Failure::new("`Server::new` to succeed", e.to_string()))
    }

    /// Runs step `t` of the workload.
    pub(super) fn step(&self, server: &mut Server<'_>, t: usize) -> Result<(), Failure> {
        server
            .step(&self.workload.inputs[t])
            .map_err(|e| Failure::new(format!("step {t} to succeed"), e.to_string()))
    }

    /// Runs steps `0..steps`, calling `between(t)` before step `t` and
    /// `between(steps)` after the last; returns the report of `finish`.
    pub(super) fn run(
        &self,
        steps: usize,
        mut between: impl FnMut(usize) -> Result<(), Failure>,
    ) -> Result<Report, Failure> {
        let mut server = self.server()?;
        for t in 0..steps {
            between(t)?;
            self.step(&mut server, t)?;
        }
        between(steps)?;
        server
            .finish()
            .map_err(|e| Failure::new("`finish` to succeed", e.to_string()))
    }
}
