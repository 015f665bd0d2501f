//! The suite's own tests: the solution passes every check under the
//! course's seed and many others, and so does another right reading; the
//! judge's ranges are traced as it opened them; every run holds every
//! situation the mistakes need to show; two seeds give different steps;
//! each known-wrong `attribute` of `wrong.rs` fails the check that names
//! its cause, with the message in a snapshot (`snapshots/NAME.snap`); a
//! table of answers made with the course's seed fails under another.

use super::readings::{
    self, Column, Mistake, explain, extent_ns, one_call_too_many, reading, sum_ns, work,
};
use super::runner::{Run, Traced, run};
use super::scenes::steps;
use super::verdict::{Attribute, answers, column, rows};
use super::wrong::*;
use crate::tests::StandIn;
use attribute_ranges::RangeTime;
use gpu::Backend;
use judge_harness::{COURSE_SEED, Ctx};
use std::cell::Cell;
use std::rc::Rc;

thread_local! {
    /// The `attribute` the checks ask instead of the solution's.
    static REPLACEMENT: Cell<Option<Attribute>> = const { Cell::new(None) };
}

/// What the suite's tests put in place of the solution's `attribute`.
static STAND_IN: StandIn<Attribute> = StandIn::new(120, &REPLACEMENT);

/// The `attribute` a test put in place of the solution's, if any.
pub(super) fn replacement() -> Option<Attribute> {
    STAND_IN.get()
}

fn run_of(seed: u64) -> Rc<Run> {
    run(&Ctx::new(Backend::Virtual).with_seed(Some(seed))).expect("the steps run")
}

const SEEDS: [u64; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, COURSE_SEED];
const COLUMNS: [Column; 3] = [Column::CpuSelf, Column::Gpu, Column::GpuSelf];

/// Whether `attribute` passes every check on `run`.
fn passes(run: &Run, attribute: Attribute) -> bool {
    let said = answers(run, attribute);
    rows(run, &said).is_ok() && COLUMNS.iter().all(|&c| column(run, &said, c).is_ok())
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(120);
}

#[test]
fn the_solution_and_another_right_reading_pass_under_many_seeds() {
    for seed in SEEDS {
        let run = run_of(seed);
        assert!(passes(&run, attribute_ranges::attribute), "seed {seed}");
        assert!(passes(&run, by_enclosure), "seed {seed}");
        for step in &run.steps {
            assert_eq!(step.trace.ranges.len(), step.nodes.len(), "seed {seed}");
        }
    }
}

#[test]
fn another_right_reading_passes_every_check_too() {
    STAND_IN.passes_every_check(by_enclosure);
}

/// Whether some range of `step` queued work that ran after it closed.
fn runs_after_close(step: &Traced) -> bool {
    (0..step.truth.len()).any(|i| {
        let end = step.trace.ranges[i].cpu_end_ns;
        work(step, i, false).iter().any(|s| s.start_ns > end)
    })
}

/// The rows of `step` whose range's name starts with `name`.
fn named<'s>(step: &'s Traced, name: &'s str) -> impl Iterator<Item = usize> + 's {
    (0..step.nodes.len()).filter(move |&i| step.nodes[i].name.starts_with(name))
}

/// Whether some row of `step` named `name` has `column` under mistake
/// `m` below its truth (`below`) or just unlike it.
fn differs(step: &Traced, name: &str, column: Column, m: Mistake, below: bool) -> bool {
    named(step, name).any(|i| {
        let (wrong, truth) = (
            reading(step, i, column, m),
            i128::from(column.of(&step.truth[i])),
        );
        if below { wrong < truth } else { wrong != truth }
    })
}

#[test]
fn every_step_holds_every_situation_the_mistakes_need() {
    use Mistake::*;
    for seed in SEEDS {
        for step in &run_of(seed).steps {
            let at = format!("seed {seed} step {}", step.number);
            let idle = named(step, "schedule").all(|i| work(step, i, false).is_empty());
            assert!(idle, "{at}: a range with no GPU work");
            let deep = named(step, "kv cache").any(|i| step.nodes[i].depth == 3);
            assert!(deep, "{at}: ranges three deep");
            let beside = differs(step, "embed", Column::GpuSelf, Summed, false);
            assert!(beside, "{at}: two streams at once in a range's own work");
            let prefetch = differs(step, "layer.", Column::GpuSelf, MinusChildren, true);
            assert!(prefetch, "{at}: a layer's own work beside its attention's");
            let stall = named(step, "mlp")
                .any(|i| extent_ns(&work(step, i, false)) >= step.truth[i].gpu_ns + 50_000);
            assert!(stall, "{at}: the GPU idle in an MLP");
            assert!(
                runs_after_close(step),
                "{at}: work that runs after its range closed"
            );
            let past = (0..step.truth.len())
                .any(|i| one_call_too_many(step, i, false) != step.truth[i].gpu_ns);
            assert!(past, "{at}: GPU work at a range's `end_seq`");
            assert!(
                differs(step, "", Column::Gpu, KernelsOnly, true),
                "{at}: copies"
            );
            assert!(
                differs(step, "step", Column::Gpu, OwnOnly, true),
                "{at}: nested work"
            );
            assert!(
                differs(step, "layer.", Column::CpuSelf, MinusDescendants, true),
                "{at}: grandchildren"
            );
            let late = (0..step.truth.len())
                .any(|i| readings::when_it_ran(step, i, false) != step.truth[i].gpu_ns);
            assert!(late, "{at}: work that ran outside its range");
            let sums =
                (0..step.truth.len()).any(|i| sum_ns(&work(step, i, false)) > step.truth[i].gpu_ns);
            assert!(sums, "{at}: overlap");
        }
    }
}

#[test]
fn two_seeds_give_different_steps_and_a_seed_the_same() {
    assert_eq!(steps(7), steps(7));
    assert_ne!(steps(7), steps(8));
    assert_ne!(steps(COURSE_SEED), steps(0x1234_5678));
}

#[test]
fn the_judges_ranges_are_traced_as_it_opened_them() {
    let run = run_of(COURSE_SEED);
    for step in &run.steps {
        for (r, n) in step.trace.ranges.iter().zip(&step.nodes) {
            assert_eq!((&r.name, r.depth), (&n.name, n.depth));
            assert_eq!(r.first_seq..r.end_seq, n.seqs);
        }
        let first = step.trace.entries.first().unwrap().seq;
        assert_eq!(
            step.trace.ranges[0].first_seq, first,
            "the step's first call opens it"
        );
    }
}

/// A known-wrong `attribute`, the check it fails, its snapshot and the
/// mistake the judge names (`None`: a row count or order).
type Wrong = (
    Attribute,
    &'static str,
    &'static str,
    Option<(Column, Mistake)>,
);

/// Every known-wrong `attribute` of `wrong.rs`.
fn wrongs() -> Vec<Wrong> {
    use Mistake::*;
    let cpu = "inclusive_cpu_time";
    let cpu_self = "exclusive_cpu_time";
    let gpu = "gpu_time_of_the_work_each_range_queued";
    let gpu_self = "exclusive_gpu_time";
    vec![
        (
            microseconds as Attribute,
            cpu,
            "microseconds",
            Some((Column::Cpu, Microseconds)),
        ),
        (skips_idle_ranges, cpu, "skips_idle_ranges", None),
        (close_order, cpu, "close_order", None),
        (by_name, cpu, "by_name", None),
        (
            cpu_self_inclusive,
            cpu_self,
            "cpu_self_inclusive",
            Some((Column::CpuSelf, NotSubtracted)),
        ),
        (
            cpu_self_less_descendants,
            cpu_self,
            "cpu_self_less_descendants",
            Some((Column::CpuSelf, MinusDescendants)),
        ),
        (summed, gpu, "summed", Some((Column::Gpu, Summed))),
        (extent, gpu, "extent", Some((Column::Gpu, Extent))),
        (
            when_it_ran,
            gpu,
            "when_it_ran",
            Some((Column::Gpu, WhenItRan)),
        ),
        (
            through_end_seq,
            gpu,
            "through_end_seq",
            Some((Column::Gpu, OneCallTooMany)),
        ),
        (
            kernels_only,
            gpu,
            "kernels_only",
            Some((Column::Gpu, KernelsOnly)),
        ),
        (
            summed,
            gpu_self,
            "summed_self",
            Some((Column::GpuSelf, Summed)),
        ),
        (
            extent,
            gpu_self,
            "extent_self",
            Some((Column::GpuSelf, Extent)),
        ),
        (
            when_it_ran,
            gpu_self,
            "when_it_ran_self",
            Some((Column::GpuSelf, WhenItRan)),
        ),
        (
            through_end_seq,
            gpu_self,
            "through_end_seq_self",
            Some((Column::GpuSelf, OneCallTooMany)),
        ),
        (
            kernels_only,
            gpu_self,
            "kernels_only_self",
            Some((Column::GpuSelf, KernelsOnly)),
        ),
        (
            gpu_self_inclusive,
            gpu_self,
            "gpu_self_inclusive",
            Some((Column::GpuSelf, NotSubtracted)),
        ),
        (
            gpu_self_less_children,
            gpu_self,
            "gpu_self_less_children",
            Some((Column::GpuSelf, MinusChildren)),
        ),
        (
            gpu_self_less_descendants,
            gpu_self,
            "gpu_self_less_descendants",
            Some((Column::GpuSelf, MinusDescendants)),
        ),
    ]
}

#[test]
fn each_mistake_fails_its_check_with_its_cause() {
    for (wrong, check, name, _) in wrongs() {
        STAND_IN.fails(wrong, check, name);
    }
}

#[test]
fn each_mistake_is_recognised_under_many_seeds() {
    for seed in SEEDS {
        let run = run_of(seed);
        for (wrong, _, name, mistake) in wrongs() {
            let Some((col, m)) = mistake else { continue };
            let said = answers(&run, wrong);
            let named: Vec<Option<Mistake>> = run
                .steps
                .iter()
                .zip(&said)
                .map(|(step, mine)| explain(step, mine, col))
                .collect();
            assert!(
                named.contains(&Some(m)),
                "seed {seed}: `{name}` named {named:?}"
            );
            assert!(
                named.iter().all(|n| n.is_none() || *n == Some(m)),
                "seed {seed}: `{name}` named {named:?}"
            );
        }
    }
}

#[test]
fn a_mistake_in_one_column_leaves_the_others_right() {
    for (wrong, others) in [
        (
            cpu_self_inclusive as Attribute,
            [Column::Gpu, Column::GpuSelf],
        ),
        (gpu_self_less_children, [Column::CpuSelf, Column::Gpu]),
        (gpu_self_inclusive, [Column::CpuSelf, Column::Gpu]),
    ] {
        let run = run_of(COURSE_SEED);
        let said = answers(&run, wrong);
        assert!(rows(&run, &said).is_ok());
        for c in others {
            assert!(column(&run, &said, c).is_ok(), "{c:?}");
        }
    }
}

/// The course seed's answers, as a table a learner could copy from
/// `judge run 120`.
fn table() -> Vec<Vec<RangeTime>> {
    answers(&run_of(COURSE_SEED), attribute_ranges::attribute)
}

#[test]
fn a_table_of_the_course_seeds_answers_fails_under_another_seed() {
    let course = table();
    let run = run_of(0x1234_5678);
    let mut said = course.clone();
    for (mine, step) in said.iter_mut().zip(&run.steps) {
        mine.resize(step.truth.len(), RangeTime::default());
    }
    assert!(rows(&run, &course).is_err());
    assert!(COLUMNS.iter().any(|&c| column(&run, &said, c).is_err()));
}

/// The checks that `wrong`, of `wrongs()`, fails on `run`.
fn failed_checks(run: &Run, wrong: Attribute) -> Vec<&'static str> {
    let said = answers(run, wrong);
    let mut failed = Vec::new();
    if rows(run, &said).is_err() {
        return vec!["inclusive_cpu_time"];
    }
    for (c, name) in [
        (Column::CpuSelf, "exclusive_cpu_time"),
        (Column::Gpu, "gpu_time_of_the_work_each_range_queued"),
        (Column::GpuSelf, "exclusive_gpu_time"),
    ] {
        if column(run, &said, c).is_err() {
            failed.push(name);
        }
    }
    failed
}

#[test]
#[ignore = "needs a CUDA device"]
fn on_the_gpu_the_solution_passes_and_each_mistake_fails_its_check() {
    for seed in [COURSE_SEED, 1, 2] {
        let run = run(&Ctx::new(Backend::Cuda).with_seed(Some(seed))).expect("the steps run");
        assert!(passes(&run, attribute_ranges::attribute), "seed {seed}");
        assert!(passes(&run, by_enclosure), "seed {seed}");
        for (wrong, check, name, mistake) in wrongs() {
            let failed = failed_checks(&run, wrong);
            assert!(
                failed.contains(&check),
                "seed {seed}: `{name}` failed {failed:?}"
            );
            let Some((col, m)) = mistake else { continue };
            let said = answers(&run, wrong);
            let named: Vec<Option<Mistake>> = run
                .steps
                .iter()
                .zip(&said)
                .map(|(step, mine)| explain(step, mine, col))
                .collect();
            println!("seed {seed}: `{name}` named {named:?} (wanted {m:?})");
        }
    }
}
