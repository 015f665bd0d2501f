//! The suite's own tests: the solution passes every check; the judge's
//! rules agree with the solution's; the tables hold every boundary; every
//! known mistake is diagnosed as itself and fails its check; and the
//! messages, one per function, are snapshots.

use super::mistakes::{Mistake, diagnose};
use super::rules::{MIB, requests, rounded_requests};
use super::verdict::{POOL, Question, ROUND, SEGMENT, grade};

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(109);
}

#[test]
fn the_judge_s_rules_agree_with_the_solution_s() {
    for size in requests() {
        assert_eq!((ROUND.right)(size), rounding_and_pools::round_size(size));
    }
    for rounded in rounded_requests() {
        assert_eq!((POOL.right)(rounded), rounding_and_pools::pool_for(rounded));
        assert_eq!(
            (SEGMENT.right)(rounded),
            rounding_and_pools::segment_size(rounded)
        );
    }
}

#[test]
fn the_tables_hold_every_boundary() {
    let requests = requests();
    for size in [0, 511, 512, 513, 1025, MIB, MIB + 1, 10 * MIB - 1, 10 * MIB] {
        assert!(requests.contains(&size), "{size}");
    }
    let rounded = rounded_requests();
    for size in [MIB, MIB + 512, 10 * MIB - 512, 10 * MIB, 12 * MIB + 512] {
        assert!(rounded.contains(&size), "{size}");
    }
    assert!(rounded.iter().all(|r| r % 512 == 0), "only rounded sizes");
}

/// Fails unless every mistake of `question` fails its check and is
/// diagnosed as itself (or as a mistake of the same answers on the table).
fn each_mistake_is_named<T: PartialEq + Copy + std::fmt::Debug>(
    question: &Question<T>,
    table: &[usize],
) {
    for Mistake { cause, answer } in question.mistakes {
        let failure =
            grade(question, table, &mut |s| answer(s)).expect_err(&format!("`{cause}` fails"));
        let answers: Vec<_> = table
            .iter()
            .map(|&s| (s, answer(s), (question.right)(s)))
            .collect();
        let named = diagnose(question.mistakes, &answers).expect("a diagnosis");
        assert!(named.contains(cause), "`{cause}` is not in `{named}`");
        let detail = failure.detail.unwrap_or_default();
        assert!(detail.contains(cause), "{detail}");
        assert!(detail.contains(question.section), "{detail}");
    }
}

#[test]
fn every_rounding_mistake_fails_and_is_named() {
    each_mistake_is_named(&ROUND, &requests());
}

#[test]
fn every_pool_mistake_fails_and_is_named() {
    each_mistake_is_named(&POOL, &rounded_requests());
}

#[test]
fn every_segment_mistake_fails_and_is_named() {
    each_mistake_is_named(&SEGMENT, &rounded_requests());
}

#[test]
fn an_unknown_mistake_is_said_to_be_unknown() {
    let failure = grade(&ROUND, &requests(), &mut |s| {
        rounding_and_pools::round_size(s) + usize::from(s == 4096) * 7
    })
    .unwrap_err();
    assert!(
        failure
            .detail
            .unwrap_or_default()
            .contains("no known mistake")
    );
}

/// The message of the first mistake of `question`, as the learner reads it.
fn message<T: PartialEq + Copy>(question: &Question<T>, table: &[usize], pick: usize) -> String {
    let answer = question.mistakes[pick].answer;
    let failure = grade(question, table, &mut |s| answer(s)).unwrap_err();
    format!(
        "expected: {}\nactual: {}\n{}",
        failure.expected,
        failure.actual,
        failure.detail.unwrap_or_default()
    )
}

#[test]
fn the_messages_name_the_size_the_answers_the_cause_and_the_section() {
    crate::tests::snapshots(109).bind(|| {
        insta::assert_snapshot!(
            "rounding_to_a_power_of_two",
            message(&ROUND, &requests(), 1)
        );
        insta::assert_snapshot!(
            "exactly_one_mib_is_large",
            message(&POOL, &rounded_requests(), 0)
        );
        insta::assert_snapshot!(
            "own_segment_not_rounded",
            message(&SEGMENT, &rounded_requests(), 3)
        );
    });
}

#[test]
fn answers_two_mistakes_give_alike_name_both() {
    let threshold = SEGMENT
        .mistakes
        .iter()
        .position(|m| {
            m.cause
                .starts_with("the shared segment is used up to 20 MiB")
        })
        .expect("the threshold slip");
    crate::tests::snapshots(109).bind(|| {
        insta::assert_snapshot!(
            "threshold_or_max",
            message(&SEGMENT, &rounded_requests(), threshold)
        );
    });
}
