//! The checks: each of the learner's functions on the judge's table,
//! against the judge's rule. A wrong answer names the size, the learner's
//! answer and the rule's, the likely cause and the section.

use super::mistakes::{Mistake, POOLS, ROUNDING, SEGMENTS, diagnose};
use super::rules::{bytes, pool_for, requests, round_size, rounded_requests, segment_size};
use judge_harness::{Ctx, Failure};
use rounding_and_pools::Pool;

/// What a check asks: a function of the learner's and the judge's rule.
pub(crate) struct Question<T: 'static> {
    /// The function, as the learner writes it: `round_size`.
    pub(crate) name: &'static str,
    /// What its argument is, in the table's words.
    pub(crate) argument: &'static str,
    /// The rule in words, and its section.
    pub(crate) rule: &'static str,
    pub(crate) section: &'static str,
    /// The judge's answer.
    pub(crate) right: fn(usize) -> T,
    /// The known wrong rules.
    pub(crate) mistakes: &'static [Mistake<T>],
    /// An answer in words.
    pub(crate) show: fn(&T) -> String,
}

/// The question `round_size` answers.
pub(crate) const ROUND: Question<usize> = Question {
    name: "round_size",
    argument: "request",
    rule: "round up to a multiple of 512 bytes, to at least 512",
    section: "allocator.md#rounding-and-pools",
    right: round_size,
    mistakes: ROUNDING,
    show: |n| bytes(*n),
};

/// The question `pool_for` answers.
pub(crate) const POOL: Question<Pool> = Question {
    name: "pool_for",
    argument: "rounded request",
    rule: "`Pool::Small` up to and including 1 MiB (`SMALL_SIZE`), `Pool::Large` above",
    section: "allocator.md#rounding-and-pools",
    right: pool_for,
    mistakes: POOLS,
    show: |p| format!("`{p:?}`"),
};

/// The question `segment_size` answers.
pub(crate) const SEGMENT: Question<usize> = Question {
    name: "segment_size",
    argument: "rounded request",
    rule: "2 MiB up to 1 MiB; 20 MiB over 1 MiB and under 10 MiB; from 10 MiB, the request rounded up to a multiple of 2 MiB",
    section: "allocator.md#segments",
    right: segment_size,
    mistakes: SEGMENTS,
    show: |n| bytes(*n),
};

/// How many wrong answers a failure lists.
const LISTED: usize = 8;

/// Grades `learner`'s answers to `question` on the sizes of `table`.
pub(crate) fn grade<T: PartialEq + Copy>(
    question: &Question<T>,
    table: &[usize],
    learner: &mut dyn FnMut(usize) -> T,
) -> Result<(), Failure> {
    let answers: Vec<(usize, T, T)> = table
        .iter()
        .map(|&size| (size, learner(size), (question.right)(size)))
        .collect();
    let wrong: Vec<&(usize, T, T)> = answers.iter().filter(|a| a.1 != a.2).collect();
    let Some(&&(size, said, right)) = wrong.first() else {
        return Ok(());
    };
    let show = question.show;
    let cause = diagnose(question.mistakes, &answers).map_or_else(
        || "no known mistake explains these answers; compare each with the rule".to_string(),
        |cause| format!("the likely cause: {cause}"),
    );
    let mut listing = format!(
        "your wrong answers ({}: yours, the rule's):\n",
        question.argument
    );
    for &&(size, said, right) in wrong.iter().take(LISTED) {
        listing += &format!("  {}: {}, {}\n", bytes(size), show(&said), show(&right));
    }
    if wrong.len() > LISTED {
        listing += &format!("  … and {} more\n", wrong.len() - LISTED);
    }
    Err(Failure::new(
        format!(
            "the rule's answer for each of the {} sizes of the judge's table",
            answers.len()
        ),
        format!(
            "{} wrong; the first: `{}({size})` returned {}, but the rule says {}",
            wrong.len(),
            question.name,
            show(&said),
            show(&right)
        ),
    )
    .detail(format!(
        "{cause}\nthe rule: {}; see {}\n{listing}",
        question.rule, question.section
    )))
}

/// `round_size` on every request of the table.
pub(super) fn requests_round_up_to_a_multiple_of_512(_: &Ctx) -> Result<(), Failure> {
    grade(&ROUND, &requests(), &mut rounding_and_pools::round_size)
}

/// `pool_for` on every rounded request of the table.
pub(super) fn up_to_one_mib_is_the_small_pool(_: &Ctx) -> Result<(), Failure> {
    grade(
        &POOL,
        &rounded_requests(),
        &mut rounding_and_pools::pool_for,
    )
}

/// `segment_size` on every rounded request of the table.
pub(super) fn a_new_segment_follows_the_pool_and_the_size(_: &Ctx) -> Result<(), Failure> {
    grade(
        &SEGMENT,
        &rounded_requests(),
        &mut rounding_and_pools::segment_size,
    )
}
