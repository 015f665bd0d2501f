//! Which processor sets the pace, asked about profiles the judge wrote:
//! each far from a tie, so the answer does not depend on a measurement.

use super::support::{SECTION, us};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};
use launch_bound::{Bound, Profile};

/// A profile the judge asks about, what it stands for, and its answer.
struct Case {
    cpu_us: f64,
    gpu_us: f64,
    what: &'static str,
    bound: Bound,
}

/// The profiles `bound` is asked about: the H200's launch against its
/// shortest kernel and a 12 µs one, PyTorch's decoder step (measured in
/// the chapter), a long kernel behind a slow launch, and a launch cheaper
/// than the shortest kernel a plain launch can run.
const CASES: [Case; 5] = [
    Case {
        cpu_us: 4.6,
        gpu_us: 1.3,
        what: "an empty kernel on the H200",
        bound: Bound::Launch,
    },
    Case {
        cpu_us: 4.6,
        gpu_us: 13.4,
        what: "a 12 µs kernel on the H200",
        bound: Bound::Compute,
    },
    Case {
        cpu_us: 78.5,
        gpu_us: 29.0,
        what: "PyTorch's decoder step on the H200",
        bound: Bound::Launch,
    },
    Case {
        cpu_us: 40.0,
        gpu_us: 400.0,
        what: "a 400 µs kernel behind a slow launch",
        bound: Bound::Compute,
    },
    Case {
        cpu_us: 0.7,
        gpu_us: 1.3,
        what: "an empty kernel launched as a graph node",
        bound: Bound::Compute,
    },
];

/// The learner's `Profile::bound`, unless a test of the suite put another
/// in its place.
fn bound(profile: &Profile) -> Bound {
    #[cfg(test)]
    if let Some(other) = super::tests::bound_replacement() {
        return other(profile);
    }
    profile.bound()
}

/// The learner's `crossover`, unless a test put another in its place.
fn crossover(profiles: &[Profile]) -> Option<usize> {
    #[cfg(test)]
    if let Some(other) = super::tests::crossover_replacement() {
        return other(profiles);
    }
    launch_bound::crossover(profiles)
}

fn profile(case: &Case) -> Profile {
    Profile {
        cpu_us: case.cpu_us,
        gpu_us: case.gpu_us,
    }
}

pub(super) fn each_profile_is_classified(_: &Ctx) -> Result<(), Failure> {
    let answers: Vec<Bound> = CASES.iter().map(|c| bound(&profile(c))).collect();
    let wrong: Vec<usize> = (0..CASES.len())
        .filter(|&i| answers[i] != CASES[i].bound)
        .collect();
    let Some(&first) = wrong.first() else {
        return Ok(());
    };
    let case = &CASES[first];
    let expected = format!(
        "{}: a launch costs the CPU {}, the kernel costs the GPU {}: {:?}",
        case.what,
        us(case.cpu_us),
        us(case.gpu_us),
        case.bound
    );
    let why = if wrong.len() == CASES.len() {
        "every answer is the other one: the comparison is inverted; a loop is launch-bound when a launch costs the CPU more than its kernel costs the GPU (the GPU then idles between kernels), compute-bound when the kernel costs more".to_string()
    } else {
        let rule = "the answer follows from the two times alone: launch-bound when the CPU's time of a launch is the larger, compute-bound when the GPU's time of a kernel is, whatever their size";
        let named: Vec<&str> = wrong.iter().map(|&i| CASES[i].what).collect();
        format!("wrong for {}; {rule}", named.join(", "))
    };
    Err(Failure::new(expected, format!("{:?}", answers[first])).detail(format!("{why}; {SECTION}")))
}

/// A launch-bound profile and a compute-bound one, for the lists.
const L: Profile = Profile {
    cpu_us: 4.6,
    gpu_us: 1.3,
};
const C: Profile = Profile {
    cpu_us: 4.6,
    gpu_us: 13.4,
};

/// The lists `crossover` is asked about, and the answers.
fn lists() -> Vec<(Vec<Profile>, Option<usize>)> {
    vec![
        (vec![L, L, C, C, C], Some(2)),
        (vec![L, C], Some(1)),
        (vec![C, C, C], Some(0)),
        (vec![L, L, L], None),
        (vec![L, C, L, C], Some(1)),
        (Vec::new(), None),
    ]
}

/// A list of profiles in words: `launch, launch, compute`.
fn words(profiles: &[Profile]) -> String {
    if profiles.is_empty() {
        return "no size".into();
    }
    let each: Vec<&str> = profiles
        .iter()
        .map(|p| match p.gpu_us > p.cpu_us {
            true => "compute",
            false => "launch",
        })
        .collect();
    format!("[{}]-bound", each.join(", "))
}

pub(super) fn the_crossover_is_the_first_compute_bound_size(_: &Ctx) -> Result<(), Failure> {
    for (profiles, answer) in lists() {
        let asked = format!("the crossover of {}: {answer:?}", words(&profiles));
        let got = unless_it_panics(|| crossover(&profiles)).map_err(|panic| {
            let why = match profiles.is_empty() {
                true => "a list may be empty (no size measured), and then there is no crossover: `None`",
                false => "the crossover is the index of the first compute-bound profile, `None` when there is none",
            };
            Failure::new(asked.clone(), format!("it panicked: {panic}"))
                .detail(format!("{why}; {SECTION}"))
        })?;
        if got != answer {
            let why = match after_the_last_launch_bound_everywhere() {
                true => AFTER_THE_LAST_LAUNCH_BOUND.to_string(),
                false => why(&profiles, answer, got),
            };
            return Err(Failure::new(asked, format!("{got:?}")).detail(format!("{why}; {SECTION}")));
        }
    }
    Ok(())
}

/// Why every answer is wrong when each is the index after the last
/// launch-bound size.
const AFTER_THE_LAST_LAUNCH_BOUND: &str = "for every list, the answer is the index after the last launch-bound size, which is the first compute-bound size only when the sizes switch once, from launch-bound to compute-bound: with no launch-bound size it is `None` (the crossover is then 0), with no compute-bound size it is one past the end (there is no crossover: `None`), and a list that switches back and forth gets a later size. The crossover is the index of the first compute-bound size: `profiles.iter().position(|p| p.bound() == Bound::Compute)`";

/// Whether `crossover` answers, for every list of at least one size, the
/// index after the last launch-bound size (`None` when there is none).
fn after_the_last_launch_bound_everywhere() -> bool {
    lists()
        .into_iter()
        .filter(|(profiles, _)| !profiles.is_empty())
        .all(|(profiles, _)| {
            let rule = profiles
                .iter()
                .rposition(|p| p.cpu_us > p.gpu_us)
                .map(|last| last + 1);
            unless_it_panics(|| crossover(&profiles)).is_ok_and(|got| got == rule)
        })
}

/// Why `got` is not `answer`, the crossover of `profiles`.
fn why(profiles: &[Profile], answer: Option<usize>, got: Option<usize>) -> String {
    let first = "the crossover is the index of the first compute-bound size";
    match (answer, got) {
        (Some(a), Some(g)) if g + 1 == a => format!(
            "{g} is the last launch-bound size before it, one too early: {first}, where the GPU starts to set the pace"
        ),
        (Some(a), Some(g)) if g == a + 1 => format!(
            "{g} is the size after the first compute-bound one, one too late: {first} itself, index {a}"
        ),
        (Some(a), Some(g)) if g > a => format!(
            "{g} follows the last launch-bound size, but a size before it is compute-bound already (a measured list need not switch once): {first}"
        ),
        (None, Some(g)) if g == profiles.len() => format!(
            "{g} is one past the last size: when every size is launch-bound there is no crossover, `None`"
        ),
        (Some(0), None) => format!(
            "every size is compute-bound, so the first one is the crossover, `Some(0)`, not `None`: {first}"
        ),
        _ => format!("{first}, `None` when there is none"),
    }
}
