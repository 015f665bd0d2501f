//! Every prediction's answer, from the model, at every value of its
//! parameter; the feedback; and the static answers in the chapters.

use super::*;
use std::collections::BTreeSet;

/// The right answer of every prediction at every value of its parameter,
/// as the chapters teach it: `(id, value, the right option of each part)`.
const ANSWERS: &[(&str, &str, &[&str])] = &[
    ("cpu-gpu-bound", "0", &["launch"]),
    ("cpu-gpu-bound", "10", &["compute"]),
    ("cpu-gpu-bound", "20", &["compute"]),
    ("cpu-gpu-wall", "0", &["lt150"]),
    ("cpu-gpu-wall", "10", &["150-300"]),
    ("cpu-gpu-wall", "20", &["gt300"]),
    ("cpu-gpu-sync", "0", &["synchronize", "lt20"]),
    ("cpu-gpu-sync", "5", &["synchronize", "20-200"]),
    ("cpu-gpu-sync", "20", &["synchronize", "gt200"]),
    ("streams-overlap", "1", &["no"]),
    ("streams-overlap", "2", &["yes"]),
    ("streams-race", "2", &["no"]),
    ("streams-race", "1", &["yes"]),
    ("streams-pageable", "pinned", &["lt100us"]),
    ("streams-pageable", "pageable", &["gt1ms"]),
    ("hidden-syncs-item", "window", &["within"]),
    ("hidden-syncs-item", "item", &["over"]),
    ("hidden-syncs-waits", "pageable_inputs", &["no"]),
    ("hidden-syncs-waits", "read_done", &["yes"]),
    ("hidden-syncs-waits", "raw_scratch", &["yes"]),
    ("hidden-syncs-timer", "cpu_timer", &["less"]),
    ("hidden-syncs-timer", "cpu_timer+item", &["about"]),
    ("overlap-step", "naive", &["sum"]),
    ("overlap-step", "overlapped", &["max"]),
    ("overlap-wait", "naive", &["to_vec", "gt1ms"]),
    ("overlap-wait", "overlapped", &["event", "100us-1ms"]),
    ("overlap-bound", "1500", &["busy"]),
    ("overlap-bound", "3000", &["idles"]),
    ("allocator-rounding", "1 KiB", &["2mib"]),
    ("allocator-rounding", "3 MiB", &["20mib"]),
    ("allocator-rounding", "11 MiB", &["round2"]),
    ("allocator-stream", "s0", &["yes"]),
    ("allocator-stream", "s1", &["no"]),
    ("allocator-record", "record", &["pending"]),
    ("allocator-record", "none", &["free"]),
    ("graphs-submit", "eager", &["gt500"]),
    ("graphs-submit", "replay", &["lt50"]),
    ("graphs-idle", "0", &["yes"]),
    ("graphs-idle", "20", &["no"]),
    ("graphs-capture", "synchronize", &["error", "error"]),
    ("graphs-capture", "record_event", &["ok", "graph"]),
    ("profile-wait", "x10", &["read", "read"]),
    ("profile-wait", "div10", &["read", "launches"]),
    ("profile-layer", "x10", &["read", "longer"]),
    ("profile-layer", "div10", &["layer", "same"]),
    ("profile-parts", "x10", &["mlp"]),
    ("profile-parts", "div10", &["attention"]),
];

#[test]
fn every_answer_is_the_one_the_chapter_teaches() {
    let mut seen = BTreeSet::new();
    for &(id, value, right) in ANSWERS {
        let p = prediction(id).unwrap();
        assert_eq!(p.answer(value).unwrap(), right, "`{id}` with `{value}`");
        seen.insert((id, value));
    }
    for p in predictions() {
        for o in p.parameter.options {
            assert!(
                seen.contains(&(p.id, o.value)),
                "ANSWERS has no row for `{}` with `{}`",
                p.id,
                o.value
            );
        }
    }
}

#[test]
fn changing_the_parameter_changes_the_answer() {
    for p in predictions() {
        let default = p.answer(p.default_value()).unwrap();
        let changed = p.parameter.options[1..]
            .iter()
            .any(|o| p.answer(o.value).unwrap() != default);
        assert!(
            changed,
            "`{}`: no value of its parameter changes the answer",
            p.id
        );
    }
}

#[test]
fn a_right_answer_is_right_and_every_wrong_one_says_why() {
    for p in predictions() {
        let value = p.default_value();
        let right = p.answer(value).unwrap();
        let checked = p.check(value, &right).unwrap();
        assert!(checked.correct, "`{}`", p.id);
        assert!(!checked.view.svg.is_empty(), "`{}` draws its run", p.id);
        for (i, part) in p.parts.iter().enumerate() {
            assert!(
                checked.parts[i].feedback.starts_with("Right: "),
                "`{}`",
                p.id
            );
            let mut reasons = BTreeSet::new();
            for wrong in part.options.iter().filter(|o| o.value != right[i]) {
                let mut chosen = right.clone();
                chosen[i] = wrong.value;
                let checked = p.check(value, &chosen).unwrap();
                assert!(!checked.correct, "`{}`: `{}` is wrong", p.id, wrong.value);
                let said = &checked.parts[i];
                assert!(!said.correct && said.right == right[i], "`{}`", p.id);
                assert!(
                    said.feedback.starts_with(&format!("Not {}: ", wrong.label)),
                    "`{}`: {}",
                    p.id,
                    said.feedback
                );
                assert!(
                    said.feedback.len() > wrong.label.len() + 40,
                    "`{}`: a reason",
                    p.id
                );
                reasons.insert(said.feedback.clone());
                // The other parts are still judged right.
                for (j, other) in checked.parts.iter().enumerate() {
                    assert_eq!(other.correct, j != i, "`{}` part {j}", p.id);
                }
            }
        }
    }
}

#[test]
fn predictions_are_well_formed() {
    let ids: BTreeSet<&str> = predictions().map(|p| p.id).collect();
    assert_eq!(ids.len(), predictions().count(), "ids are unique");
    for p in predictions() {
        assert!(p.parameter.options.len() >= 2, "`{}`", p.id);
        for part in p.parts {
            let values: BTreeSet<&str> = part.options.iter().map(|o| o.value).collect();
            assert_eq!(values.len(), part.options.len(), "`{}`", p.id);
        }
        for o in p.parameter.options {
            let program = p.program(o.value);
            assert!(
                !program.lines().any(|l| l.trim().is_empty()),
                "`{}`: a blank line would end the chapter's HTML block",
                p.id
            );
        }
        assert!(
            spec_json(p.id)
                .unwrap()
                .contains(p.question.split('`').next().unwrap())
        );
    }
    assert!(check_json("cpu-gpu-bound", "3", "[]").is_err());
    assert!(check_json("nope", "2", "[]").is_err());
    assert!(check_json("cpu-gpu-bound", "0", "{}").is_err());
}

/// The chapters' folder.
fn chapters() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../chapters")
}

/// `chapters/generated/predictions/ID.html` is [`static_html`] of the
/// model now (`UPDATE_PREDICTIONS=1` writes them), and each chapter
/// includes its own, at least three.
#[test]
fn the_static_answers_are_the_models() {
    let dir = chapters().join("generated/predictions");
    let update = std::env::var_os("UPDATE_PREDICTIONS").is_some();
    for p in predictions() {
        let path = dir.join(format!("{}.html", p.id));
        let html = static_html(p).unwrap();
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &html).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == html,
            "`{}` is not what the model says now: run `UPDATE_PREDICTIONS=1 cargo test -p workbook-widgets --lib predict` and commit it",
            path.display()
        );
        let chapter =
            std::fs::read_to_string(chapters().join(format!("{}.md", p.chapter))).unwrap();
        let include = format!("{{{{#include generated/predictions/{}.html}}}}", p.id);
        assert_eq!(
            chapter.matches(&include).count(),
            1,
            "`{}.md` includes `{}` once",
            p.chapter,
            p.id
        );
    }
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        predictions().count(),
        "a file in `{}` per prediction, no other",
        dir.display()
    );
}

/// Every prediction is posed so that its answer is the same on every H200
/// host seen (`gpu/calibration/h200-hosts.json`): the CPU side of the table at
/// its fastest and at its slowest.
#[test]
fn every_answer_holds_on_every_host_seen() {
    use workbook_benches::figures::{On, run_on};
    use workbook_benches::hosts::{End, at};
    let mut flips = Vec::new();
    for p in predictions() {
        for value in p.parameter.options.iter().map(|o| o.value) {
            let model = p.answer(value).unwrap();
            for end in [End::Fast, End::Slow] {
                let on = On::Virtual(Some(Box::new(at(end))));
                let there = run_on(on, || p.answer(value)).unwrap();
                if there != model {
                    flips.push(format!("{} {value} {end:?}: {model:?} -> {there:?}", p.id));
                }
            }
        }
    }
    assert!(
        flips.is_empty(),
        "answers that change with the host: {flips:#?}"
    );
}
