//! The chapters' predictions in headless Chromium, from the built book on a
//! local server ([`book_check::predictions`]).
//!
//! `every_prediction_is_answered_in_the_browser` answers every prediction
//! of every chapter three times: right at the default parameter, wrong in
//! every part, then with the parameter changed and the default's right
//! answer, which the model must now call wrong in some part. Each time it
//! requires the feedback in the page to be the native model's, sentence for
//! sentence, the timeline drawn, the program the one for the parameter, and
//! the progress box and localStorage to count what was answered. It prints
//! how long a run took in the page (the widgets' redraw budget, 50 ms, is
//! checked the same way, by hand: `WIDGET_BUDGETS=enforce`).
//! `without_javascript_the_predictions_show_their_answers` loads the same
//! pages with no script running and requires each prediction's question and
//! its folded answer there.
//!
//! Without Chromium or mdBook these tests say so loudly and pass, except
//! under CI (`CI` set), where they fail.

mod support;

use book_check::browser::Server;
use book_check::predictions::{DRIVER, PageRun, predictions_in};
use book_check::widgets::{median, run_script, without_javascript};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use support::{build_book, chromium, mdbook};
use workbook_widgets::predict::{self, Prediction};

/// Held while a test runs Chromium.
static BROWSER: Mutex<()> = Mutex::new(());

/// Pages, each with the ids of its predictions.
type Pages = Vec<(String, Vec<String>)>;

/// Chromium, the book built into `name` and served, and its pages with
/// predictions; `None` without the tools.
fn site(name: &str) -> Option<(PathBuf, Server, Pages)> {
    let (Some(chromium), Some(mdbook)) = (chromium(), mdbook()) else {
        return None;
    };
    let (site, pages, _) = build_book(&mdbook, name);
    let pages = pages
        .into_iter()
        .filter_map(|page| {
            let html = std::fs::read_to_string(site.join(&page)).ok()?;
            let ids = predictions_in(&html);
            (!ids.is_empty()).then_some((page, ids))
        })
        .collect();
    Some((chromium, Server::start(&site).expect("a local port"), pages))
}

/// The three rounds of `p`: right at the default, wrong in every part,
/// and the default's right answer at a value of the parameter where it is
/// not right; with that value.
fn rounds(p: &Prediction) -> (serde_json::Value, &'static str) {
    let default = p.default_value();
    let right = p.answer(default).unwrap();
    let wrong: Vec<&str> = p
        .parts
        .iter()
        .zip(&right)
        .map(|(part, r)| part.options.iter().find(|o| o.value != *r).unwrap().value)
        .collect();
    let other = p
        .parameter
        .options
        .iter()
        .map(|o| o.value)
        .find(|v| p.answer(v).unwrap() != right)
        .expect("a value of the parameter that changes the answer");
    let plan = serde_json::json!([
        { "value": default, "answers": right },
        { "value": default, "answers": wrong },
        { "value": other, "answers": right },
    ]);
    (plan, other)
}

#[test]
fn every_prediction_is_answered_in_the_browser() {
    let _turn = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let Some((chromium, server, pages)) = site("predictions") else {
        return;
    };
    let mut per_chapter: BTreeMap<&str, usize> = BTreeMap::new();
    let mut times = Vec::new();
    for (page, ids) in &pages {
        let mut plan = serde_json::Map::new();
        let mut others = BTreeMap::new();
        for id in ids {
            let p = predict::prediction(id).expect("a prediction of the model");
            let (rounds, other) = rounds(p);
            plan.insert(id.clone(), rounds);
            others.insert(id.clone(), other);
        }
        let script = DRIVER.replace("__PLAN__", &serde_json::Value::Object(plan).to_string());
        let report = run_script(&chromium, &server, page, &script).expect("chromium runs");
        let run: PageRun = serde_json::from_str(&report).expect("the driver's report");
        assert_eq!(run.state, "ready", "`{page}`: the WebAssembly did not load");
        assert!(run.problems.is_empty(), "`{page}`: {:?}", run.problems);
        let played: Vec<&str> = run.predictions.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(played, *ids, "`{page}`: every prediction was played");
        let total = ids.len();
        for (n, played) in run.predictions.iter().enumerate() {
            let p = predict::prediction(&played.id).unwrap();
            *per_chapter.entry(p.chapter).or_default() += 1;
            assert!(played.live, "`{}` did not go live", p.id);
            let default = p.default_value();
            let right = p.answer(default).unwrap();
            let [first, second, third] = &played.rounds[..] else {
                panic!("`{}`: three rounds", p.id)
            };
            // Right, at the default.
            assert_page_is_model(p, first, default, &right);
            assert!(
                first.says.iter().all(|s| s.correct),
                "`{}`: right is right",
                p.id
            );
            assert_eq!(first.verdict, "Your prediction is right.", "`{}`", p.id);
            assert_eq!(
                first.progress,
                format!(
                    "Predictions in this chapter: {} of {total} answered, 1 right",
                    n + 1
                ),
                "`{}`: the progress box after a right answer (the ones before ended wrong)",
                p.id
            );
            // Wrong in every part.
            assert!(
                second.says.iter().all(|s| !s.correct),
                "`{}`: wrong is wrong",
                p.id
            );
            assert_eq!(second.verdict, "Your prediction is not what the GPU does:");
            let chosen: Vec<&str> = p
                .parts
                .iter()
                .zip(&right)
                .map(|(part, r)| part.options.iter().find(|o| o.value != *r).unwrap().value)
                .collect();
            assert_page_is_model(p, second, default, &chosen);
            // The parameter changed: the default's right answer is wrong now.
            let other = others[p.id];
            assert_eq!(third.value, other);
            assert_ne!(
                third.program, first.program,
                "`{}`: the program follows the parameter",
                p.id
            );
            assert_page_is_model(p, third, other, &right);
            let now: Vec<&str> = third.says.iter().map(|s| s.right.as_str()).collect();
            assert_ne!(
                now, right,
                "`{}`: the right answer changed with the parameter",
                p.id
            );
            assert!(third.says.iter().any(|s| !s.correct), "`{}`", p.id);
            assert!(
                third
                    .progress
                    .ends_with(&format!("{} of {total} answered, 0 right", n + 1)),
                "`{}`: the progress box counts the latest answer: {}",
                p.id,
                third.progress
            );
            times.extend(played.rounds.iter().map(|r| r.ms));
        }
        let stored: BTreeMap<String, serde_json::Value> =
            serde_json::from_str(&run.stored).expect("the progress in localStorage");
        for id in ids {
            assert_eq!(
                stored[id],
                serde_json::json!({"right": false}),
                "`{id}` in localStorage"
            );
        }
    }
    let chapters = [
        "cpu-and-gpu",
        "streams-and-events",
        "hidden-syncs",
        "sampling-overlap",
        "allocator",
        "cuda-graphs",
        "profiling",
    ];
    for chapter in chapters {
        let n = per_chapter.get(chapter).copied().unwrap_or(0);
        assert!(
            n >= 3,
            "`{chapter}` has {n} predictions in the page, fewer than three"
        );
    }
    assert_eq!(
        per_chapter.values().sum::<usize>(),
        predict::predictions().count(),
        "every prediction of the model is in a page"
    );
    let max = times.iter().copied().fold(0.0, f64::max);
    let _ = writeln!(
        std::io::stderr(),
        "\npredictions: {} runs in headless Chromium, median {:.1} ms, max {max:.1} ms from the button to the timeline laid out\n",
        times.len(),
        median(&times)
    );
}

/// What the page showed for `chosen` at `value` is what the model says.
fn assert_page_is_model(
    p: &Prediction,
    round: &book_check::predictions::Round,
    value: &str,
    chosen: &[&str],
) {
    let native = p.check(value, chosen).unwrap();
    assert_eq!(round.value, value);
    assert_eq!(
        round.program,
        p.program(value),
        "`{}`: the program shown",
        p.id
    );
    assert!(
        round.shown && round.svg > 0,
        "`{}`: the run's timeline shows",
        p.id
    );
    assert_eq!(round.says.len(), native.parts.len(), "`{}`", p.id);
    assert_eq!(
        round.report, native.view.report,
        "`{}`: the run's report",
        p.id
    );
    let numbers: Vec<(String, String)> = native
        .view
        .numbers
        .iter()
        .map(|n| (n.label.clone(), n.value.clone()))
        .collect();
    assert_eq!(round.numbers, numbers, "`{}`: the run's numbers", p.id);
    for (page, model) in round.says.iter().zip(&native.parts) {
        assert_eq!(page.part, model.name);
        assert_eq!(
            page.correct, model.correct,
            "`{}` part `{}`",
            p.id, model.name
        );
        assert_eq!(page.right, model.right, "`{}` part `{}`", p.id, model.name);
        assert_eq!(
            page.text,
            predict::shown(&model.feedback),
            "`{}` part `{}`: the feedback",
            p.id,
            model.name
        );
    }
}

#[test]
fn without_javascript_the_predictions_show_their_answers() {
    let _turn = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let Some((chromium, server, pages)) = site("predictions-no-javascript") else {
        return;
    };
    for (page, ids) in pages {
        let dom = without_javascript(&chromium, &server, &page).expect("chromium runs");
        assert!(
            !dom.contains("gpu-prediction--live"),
            "`{page}`: live without JavaScript"
        );
        for id in ids {
            let p = predict::prediction(&id).unwrap();
            let at = dom
                .find(&format!("data-prediction=\"{id}\""))
                .unwrap_or_else(|| panic!("`{page}`: no `{id}`"));
            let block = &dom[at..];
            let block = &block[..block.find("</details>").expect("its answer, folded")];
            assert!(
                block.contains("<details class=\"gpu-prediction-answer\">"),
                "`{id}`"
            );
            for (part, right) in p.parts.iter().zip(p.answer(p.default_value()).unwrap()) {
                let label = part
                    .options
                    .iter()
                    .find(|o| o.value == right)
                    .unwrap()
                    .label;
                let label = predict::shown(label)
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;");
                let text = block.replace("<code>", "").replace("</code>", "");
                assert!(
                    text.contains(&format!("The model says: {label}.")),
                    "`{page}`: `{id}` without JavaScript does not answer `{label}`"
                );
            }
        }
    }
}
