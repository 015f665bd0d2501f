//! The pairs of part 1: the judge's step before and after one change,
//! drawn from the seed (which regression, where, the kernels' lengths,
//! the copy's size, and in half of them a kernel made slower besides), run
//! on the judge's device with GPU timing, and handed over as a profile
//! shows them: the step's entries and ranges, `blocking` cleared. The
//! truth of each pair is how the judge built it.

use super::engine::{Change, LAYERS, Rig, Shape};
use find_the_regression::Regression;
use gpu::{Device, Trace};
use judge_harness::{Ctx, Failure, SplitMix};
use std::cell::RefCell;
use std::rc::Rc;

/// Pairs of each regression.
const EACH: usize = 2;

/// One pair of profiles, and what the judge changed.
#[derive(Clone, Debug)]
pub(crate) struct Pair {
    /// Its number, from 1.
    pub(crate) number: usize,
    /// The step before the change.
    pub(crate) before: Trace,
    /// The step after it.
    pub(crate) after: Trace,
    /// The change.
    pub(crate) change: Change,
    /// A layer whose kernel was made slower in `after` too.
    pub(crate) slower: Option<usize>,
    /// The answer.
    pub(crate) truth: Regression,
}

/// What the seed draws for one pair.
#[derive(Clone, Copy, Debug)]
struct Plan {
    shape: Shape,
    change: Change,
    slower: Option<usize>,
}

/// The changes of `kind` (0 to 3: sync, overlap, launches, allocation),
/// one drawn from `rng`.
fn change(kind: usize, rng: &mut SplitMix) -> Change {
    let layer = rng.below(LAYERS as u64) as usize;
    let coin = rng.below(2) == 1;
    match kind {
        0 => Change::Sync { layer, read: coin },
        1 if coin => Change::CopyOnCompute,
        1 => Change::CopyWaitsForCompute,
        2 => Change::Split {
            layer,
            attention: coin,
        },
        _ => Change::Alloc {
            layer: coin.then_some(layer),
        },
    }
}

/// The pairs' plans for `seed`: [`EACH`] of each regression, in an order
/// drawn from it.
fn plans(seed: u64) -> Vec<Plan> {
    let mut rng = SplitMix::new(seed ^ 0x121);
    let mut kinds: Vec<usize> = (0..4 * EACH).map(|i| i % 4).collect();
    rng.shuffle(&mut kinds);
    kinds
        .into_iter()
        .map(|kind| {
            let scale = |us: u64, rng: &mut SplitMix| us * (10 + rng.below(11)) / 10;
            let shape = Shape {
                embed_us: scale(20, &mut rng),
                attention_us: [30, 20, 15, 25].map(|us| scale(us, &mut rng)),
                mlp_us: [40, 40].map(|us| scale(us, &mut rng)),
                cols: 16_384 << rng.below(3),
            };
            let change = change(kind, &mut rng);
            let slower = (rng.below(2) == 1).then(|| rng.below(LAYERS as u64) as usize);
            Plan {
                shape,
                change,
                slower,
            }
        })
        .collect()
}

/// The pairs of one seed on one backend.
type Made = (u64, gpu::Backend, Rc<Vec<Pair>>);

thread_local! {
    /// The pairs made so far in this process, by seed and backend.
    static PAIRS: RefCell<Vec<Made>> = const { RefCell::new(Vec::new()) };
}

/// The pairs of `ctx`'s seed on its backend, made once per process.
pub(crate) fn pairs(ctx: &Ctx) -> Result<Rc<Vec<Pair>>, Failure> {
    let key = (ctx.seed(), ctx.backend());
    let cached = PAIRS.with(|p| {
        let p = p.borrow();
        p.iter()
            .find(|c| (c.0, c.1) == key)
            .map(|c| Rc::clone(&c.2))
    });
    if let Some(pairs) = cached {
        return Ok(pairs);
    }
    let device = ctx.timed_device()?;
    let pairs = plans(ctx.seed())
        .into_iter()
        .enumerate()
        .map(|(i, plan)| pair(&device, i + 1, plan))
        .collect::<Result<Vec<_>, _>>()?;
    ctx.save_timeline(&device);
    let pairs = Rc::new(pairs);
    PAIRS.with(|p| p.borrow_mut().push((key.0, key.1, Rc::clone(&pairs))));
    Ok(pairs)
}

/// Runs one pair: two warm-up steps, the step before, the step after.
fn pair(device: &Device, number: usize, plan: Plan) -> Result<Pair, Failure> {
    let mut rig = Rig::new(device, plan.shape)?;
    for _ in 0..2 {
        rig.step(Change::None)?;
    }
    let mark = device.trace_mark();
    rig.step(Change::None)?;
    let middle = device.trace_mark();
    rig.slower = plan.slower;
    let at = rig.step(plan.change)?;
    let end = device.trace_mark();
    device.synchronize()?;
    let trace = device.trace();
    Ok(Pair {
        number,
        before: profile(&trace, mark, middle),
        after: profile(&trace, middle, end),
        change: plan.change,
        slower: plan.slower,
        truth: truth(plan.change, at.unwrap_or(0)),
    })
}

/// The answer for `change`, whose call is `at`.
fn truth(change: Change, at: u64) -> Regression {
    match change {
        Change::Sync { .. } | Change::None => Regression::NewSync { seq: at },
        Change::CopyOnCompute | Change::CopyWaitsForCompute => Regression::LostOverlap { seq: at },
        Change::Split { layer, attention } => Regression::LaunchBound {
            range: format!(
                "layer.{layer}.{}",
                if attention { "attention" } else { "mlp" }
            ),
        },
        Change::Alloc { .. } => Regression::AllocationInLoop { seq: at },
    }
}

/// `trace` cut to the calls from `mark` to `end` and the ranges opened
/// among them, `blocking` cleared: what a profile shows.
fn profile(trace: &Trace, mark: u64, end: u64) -> Trace {
    let mut cut = trace.clone();
    cut.entries.retain(|e| (mark..end).contains(&e.seq));
    cut.ranges.retain(|r| (mark..end).contains(&r.first_seq));
    for entry in &mut cut.entries {
        entry.blocking = None;
    }
    cut
}
