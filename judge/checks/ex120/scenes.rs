//! The judge's steps, drawn from a seed: an engine's decode step, each
//! part in a range, as a script of opens, calls and closes.
//!
//! Every step has an embedding (a pinned upload of the tokens and a
//! kernel on the main stream, the positions' kernel beside them on the
//! side stream), two to four layers (an attention of four kernels and an MLP of
//! three), a range with no GPU work (`schedule`, host work), the sampling
//! (a kernel and a pinned download) and the read of the tokens (`to_vec`).
//! The seed draws every kernel's length and which layers hold the parts
//! that make the summary table hard: a prefetch on the side stream, queued
//! by the layer itself, that runs while the attention's kernels do; a
//! `kv cache` range inside the attention (three deep) whose device copy
//! runs on the side stream beside the attention's kernels; and a stall in
//! one MLP, host work longer than all the GPU work queued so far, which
//! leaves the GPU idle between its kernels. The CPU only queues work
//! elsewhere, so most kernels run after their range has closed.

use judge_harness::SplitMix;

/// The steps of a run, each traced and handed over on its own.
pub(crate) const STEPS: usize = 3;

/// The main stream, which runs the step's kernels.
pub(crate) const MAIN: usize = 0;
/// The side stream: prefetches and the kv cache's copies.
pub(crate) const SIDE: usize = 1;

/// A call of the judge's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// `spin` of `us` microseconds on `stream` (a kernel), named `label`
    /// in the judge's words.
    Kernel {
        stream: usize,
        us: u64,
        label: &'static str,
    },
    /// `copy_from_pinned` of the tokens on `stream`.
    Upload { stream: usize },
    /// `copy` between two device buffers on `stream`.
    DeviceCopy { stream: usize },
    /// `copy_to_pinned` of the sampled tokens on `stream`.
    PinnedDownload { stream: usize },
    /// `to_vec` of the sampled tokens on `stream`: it waits for the stream.
    ToVec { stream: usize },
    /// `Device::host_work` of `us` microseconds, named `label`.
    HostWork { us: u64, label: &'static str },
    /// An event recorded on the main stream, which the side stream waits
    /// for: two calls, no GPU work.
    Fork,
}

/// One part of a step's script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// `Device::range(name)`: a range opens.
    Open(String),
    /// The innermost open range closes (its guard is dropped).
    Close,
    /// A call.
    Do(Action),
}

/// What the seed draws for one step.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Shape {
    layers: usize,
    /// The layers that queue a prefetch on the side stream.
    prefetch: Vec<bool>,
    /// The layers whose attention has a `kv cache` range.
    kv_cache: Vec<bool>,
    /// The layer whose MLP stalls.
    stall: usize,
    /// Whether `sample` holds an empty range, `log`.
    log: bool,
}

/// The script of each step of a run of `seed`.
pub(crate) fn steps(seed: u64) -> Vec<Vec<Part>> {
    let mut rng = SplitMix::new(seed);
    (0..STEPS).map(|_| script(&mut rng)).collect()
}

/// A number from `lo` to `hi`, both included.
fn between(rng: &mut SplitMix, lo: u64, hi: u64) -> u64 {
    lo + rng.below(hi - lo + 1)
}

/// Which of `n` layers hold a part: each with even odds, one at least.
fn some_layers(rng: &mut SplitMix, n: usize) -> Vec<bool> {
    let mut chosen: Vec<bool> = (0..n).map(|_| rng.below(2) == 1).collect();
    chosen[rng.below(n as u64) as usize] = true;
    chosen
}

/// What the seed draws for a step.
fn shape(rng: &mut SplitMix) -> Shape {
    let layers = between(rng, 2, 4) as usize;
    Shape {
        layers,
        prefetch: some_layers(rng, layers),
        kv_cache: some_layers(rng, layers),
        stall: rng.below(layers as u64) as usize,
        log: rng.below(2) == 1,
    }
}

/// A step's script as it is written: parts opened and closed, calls in them.
struct Script {
    parts: Vec<Part>,
    /// The GPU time queued so far, in µs (every kernel with a margin).
    queued_us: u64,
}

impl Script {
    fn open(&mut self, name: &str) {
        self.parts.push(Part::Open(name.to_owned()));
    }

    fn close(&mut self) {
        self.parts.push(Part::Close);
    }

    fn call(&mut self, action: Action) {
        self.parts.push(Part::Do(action));
    }

    /// A kernel of `lo` to `hi` µs on `stream`.
    fn kernel(
        &mut self,
        rng: &mut SplitMix,
        stream: usize,
        (lo, hi): (u64, u64),
        label: &'static str,
    ) {
        let us = between(rng, lo, hi);
        self.queued_us += us + 5;
        self.call(Action::Kernel { stream, us, label });
    }

    /// Host work longer than everything queued so far: the GPU goes idle.
    fn stall(&mut self) {
        let us = self.queued_us + 60;
        self.call(Action::HostWork { us, label: "stall" });
    }
}

/// One step's script.
fn script(rng: &mut SplitMix) -> Vec<Part> {
    let shape = shape(rng);
    let mut s = Script {
        parts: Vec::new(),
        queued_us: 0,
    };
    s.open("step");
    let us = between(rng, 5, 40);
    s.call(Action::HostWork {
        us,
        label: "prepare",
    });
    s.open("embed");
    s.call(Action::Upload { stream: MAIN });
    s.kernel(rng, SIDE, (5, 30), "positions");
    s.kernel(rng, MAIN, (5, 30), "embedding");
    s.close();
    for layer in 0..shape.layers {
        s.open(&format!("layer.{layer}"));
        if shape.prefetch[layer] {
            s.call(Action::Fork);
            s.kernel(rng, SIDE, (40, 200), "prefetch");
        }
        attention(&mut s, rng, shape.kv_cache[layer]);
        mlp(&mut s, rng, shape.stall == layer);
        s.close();
    }
    s.open("schedule");
    let us = between(rng, 10, 60);
    s.call(Action::HostWork {
        us,
        label: "schedule",
    });
    s.close();
    s.open("sample");
    s.kernel(rng, MAIN, (5, 40), "argmax");
    s.call(Action::PinnedDownload { stream: MAIN });
    if shape.log {
        s.open("log");
        s.close();
    }
    s.close();
    s.open("read tokens");
    s.call(Action::ToVec { stream: MAIN });
    s.close();
    s.close();
    s.parts
}

/// A layer's attention: four kernels, and a `kv cache` range after the
/// first when `kv_cache`.
fn attention(s: &mut Script, rng: &mut SplitMix, kv_cache: bool) {
    s.open("attention");
    s.kernel(rng, MAIN, (10, 120), "qkv");
    if kv_cache {
        s.open("kv cache");
        s.call(Action::Fork);
        s.call(Action::DeviceCopy { stream: SIDE });
        s.close();
    }
    s.kernel(rng, MAIN, (10, 120), "scores");
    s.kernel(rng, MAIN, (10, 120), "softmax");
    s.kernel(rng, MAIN, (10, 120), "out");
    s.close();
}

/// A layer's MLP: three kernels, with a stall after the first when `stall`.
fn mlp(s: &mut Script, rng: &mut SplitMix, stall: bool) {
    s.open("mlp");
    s.kernel(rng, MAIN, (10, 150), "up");
    if stall {
        s.stall();
    }
    s.kernel(rng, MAIN, (10, 150), "act");
    s.kernel(rng, MAIN, (10, 150), "down");
    s.close();
}
