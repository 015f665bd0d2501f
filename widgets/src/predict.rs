//! Predictions checked in the page: the reader sees a short program (a
//! scenario of the chapter's widget at given parameters), predicts what the
//! GPU will do, and the virtual GPU runs the program and says which part of
//! the prediction was wrong, and why.
//!
//! A [`Prediction`] is a question of one or more [`Part`]s, each with a
//! small closed answer (a choice, or a band of numbers), and one
//! [`Parameter`] the reader may change (pinned or pageable, 2 or 20 µs
//! kernels). Its right answer is never written down: [`Prediction::check`] runs the
//! scenario on a fresh virtual GPU and derives each part's answer from its
//! trace or its result, with a sentence for every option that says why it is
//! right or what it got wrong, with the numbers of this run.
//!
//! The page (`widgets/web/widgets.js`) calls [`spec_json`] and [`check_json`]
//! through WebAssembly (`prediction_spec`, `prediction_check`). Without
//! JavaScript, the chapter shows [`static_html`]: the program, the question
//! and the options, with the answer at the default parameter folded in a
//! `<details>`; the files under `chapters/generated/predictions/` are that
//! HTML, and a test fails when one of them is not what the model says now.

mod allocator;
mod cpu_gpu;
mod graphs;
mod hidden_syncs;
mod overlap;
mod profile;
mod streams;

use crate::view::{Error, Number, View};
use serde::Serialize;

/// One prediction.
pub struct Prediction {
    /// Its name, unique in the book (`data-prediction` in the chapter).
    pub id: &'static str,
    /// The chapter (its file under `chapters/`, without `.md`).
    pub chapter: &'static str,
    /// The question, about the program shown.
    pub question: &'static str,
    /// The parameter the reader may change.
    pub parameter: Parameter,
    /// The parts of the answer, each asked on its own.
    pub parts: &'static [Part],
    /// The program shown for a value of the parameter.
    program: fn(&str) -> String,
    /// Runs the program for a value of the parameter, and judges.
    run: fn(&str) -> Result<Outcome, Error>,
}

/// The parameter of a prediction: a few values, the first the default.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Parameter {
    /// What the page writes next to it.
    pub label: &'static str,
    /// Its values.
    pub options: &'static [Opt],
}

/// One option: of a parameter or of a part's answer.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Opt {
    /// The value the model and the page exchange.
    pub value: &'static str,
    /// What the page shows.
    pub label: &'static str,
}

/// One part of the answer.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Part {
    /// Its name, unique in the prediction.
    pub name: &'static str,
    /// The question this part answers.
    pub question: &'static str,
    /// Its options.
    pub options: &'static [Opt],
}

/// A scenario run and judged: what it drew, and the right answer of each
/// part with a sentence for each of its options.
pub(crate) struct Outcome {
    view: View,
    parts: Vec<Judged>,
}

/// The right option of a part, and for every option of it (in order), the
/// sentence the reader sees when they chose it.
pub(crate) struct Judged {
    right: &'static str,
    says: Vec<String>,
}

impl Outcome {
    /// An outcome with the timeline `view` and no part judged yet.
    pub(crate) fn new(view: View) -> Self {
        Self {
            view,
            parts: Vec::new(),
        }
    }

    /// Judges the next part: its right option, and the sentence for each
    /// option (in the part's order).
    pub(crate) fn part(mut self, right: &'static str, says: Vec<String>) -> Self {
        self.parts.push(Judged { right, says });
        self
    }
}

/// Every prediction, in chapter order.
pub fn predictions() -> impl Iterator<Item = &'static Prediction> {
    [
        cpu_gpu::PREDICTIONS,
        streams::PREDICTIONS,
        hidden_syncs::PREDICTIONS,
        overlap::PREDICTIONS,
        allocator::PREDICTIONS,
        graphs::PREDICTIONS,
        profile::PREDICTIONS,
    ]
    .into_iter()
    .flatten()
}

/// The prediction `id`.
pub fn prediction(id: &str) -> Result<&'static Prediction, Error> {
    predictions()
        .find(|p| p.id == id)
        .ok_or_else(|| Error::new(format!("no prediction `{id}`")))
}

/// The page's view of a prediction ([`spec_json`]).
#[derive(Serialize)]
struct SpecOut<'a> {
    id: &'a str,
    chapter: &'a str,
    question: &'a str,
    parameter: &'a Parameter,
    /// The program for each value of the parameter, in its order.
    programs: Vec<String>,
    parts: &'a [Part],
}

/// Prediction `id` as JSON: its question, parameter, programs and parts.
pub fn spec_json(id: &str) -> Result<String, Error> {
    let p = prediction(id)?;
    let out = SpecOut {
        id: p.id,
        chapter: p.chapter,
        question: p.question,
        parameter: &p.parameter,
        programs: p
            .parameter
            .options
            .iter()
            .map(|o| p.program(o.value))
            .collect(),
        parts: p.parts,
    };
    Ok(serde_json::to_string(&out).expect("a spec serializes"))
}

/// One part of a checked answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartResult {
    /// The part's name.
    pub name: String,
    /// The option the reader chose (empty when none).
    pub chosen: String,
    /// The option the model says.
    pub right: String,
    /// Whether they are the same.
    pub correct: bool,
    /// What the page says about this part: the right answer, and why the
    /// choice was wrong (or why it is right).
    pub feedback: String,
}

/// A prediction checked against a run of its program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Checked {
    /// The prediction.
    pub id: String,
    /// The parameter's value it ran with.
    pub parameter: String,
    /// Whether every part was right.
    pub correct: bool,
    /// Each part, in order.
    pub parts: Vec<PartResult>,
    /// The run's timeline (or picture), its numbers and report.
    pub view: View,
}

impl Prediction {
    /// The program shown for `value` of the parameter.
    pub fn program(&self, value: &str) -> String {
        (self.program)(value)
    }

    /// The parameter's default value.
    pub fn default_value(&self) -> &'static str {
        self.parameter.options[0].value
    }

    /// Runs the program with `value` of the parameter, and judges `chosen`
    /// (an option of each part, in order; a missing one is wrong).
    pub fn check(&self, value: &str, chosen: &[&str]) -> Result<Checked, Error> {
        if !self.parameter.options.iter().any(|o| o.value == value) {
            return Err(Error::new(format!(
                "prediction `{}` has no parameter value `{value}`",
                self.id
            )));
        }
        let outcome = (self.run)(value)?;
        assert_eq!(
            outcome.parts.len(),
            self.parts.len(),
            "`{}`: every part judged",
            self.id
        );
        let parts = self
            .parts
            .iter()
            .zip(&outcome.parts)
            .enumerate()
            .map(|(i, (part, judged))| judge(part, judged, chosen.get(i).copied().unwrap_or("")))
            .collect::<Vec<_>>();
        Ok(Checked {
            id: self.id.to_string(),
            parameter: value.to_string(),
            correct: parts.iter().all(|p| p.correct),
            parts,
            view: outcome.view,
        })
    }

    /// The right option of each part for `value` of the parameter.
    pub fn answer(&self, value: &str) -> Result<Vec<&'static str>, Error> {
        Ok((self.run)(value)?.parts.iter().map(|j| j.right).collect())
    }
}

/// The label of `value` among `options`.
fn label(options: &[Opt], value: &str) -> &'static str {
    options
        .iter()
        .find(|o| o.value == value)
        .map_or("", |o| o.label)
}

/// One part judged: the right answer, and the sentence for the choice.
fn judge(part: &Part, judged: &Judged, chosen: &str) -> PartResult {
    let at = |v: &str| part.options.iter().position(|o| o.value == v);
    let right = judged.right;
    let says = |v: &str| at(v).map_or("", |i| judged.says[i].as_str());
    let feedback = match (chosen == right, at(chosen)) {
        (true, _) => format!("Right: {}. {}", label(part.options, right), says(right)),
        (false, Some(_)) => format!(
            "Not {}: {} The model says: {}.",
            label(part.options, chosen),
            says(chosen),
            label(part.options, right)
        ),
        (false, None) => format!(
            "No answer chosen. The model says: {}. {}",
            label(part.options, right),
            says(right)
        ),
    };
    PartResult {
        name: part.name.to_string(),
        chosen: chosen.to_string(),
        right: right.to_string(),
        correct: chosen == right,
        feedback,
    }
}

/// [`Prediction::check`] with JSON: `chosen` is an array of option values;
/// the answer is [`Checked`] as JSON.
pub fn check_json(id: &str, value: &str, chosen: &str) -> Result<String, Error> {
    let chosen: Vec<String> = serde_json::from_str(chosen)
        .map_err(|e| Error::new(format!("the answers are not a JSON array of strings: {e}")))?;
    let chosen: Vec<&str> = chosen.iter().map(String::as_str).collect();
    let checked = prediction(id)?.check(value, &chosen)?;
    Ok(serde_json::to_string(&checked).expect("a check serializes"))
}

/// `s` with `&`, `<`, `>` and `"` escaped for HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `s` escaped for HTML, each `quoted` run as `<code>` (as the page shows
/// the model's sentences).
fn inline(s: &str) -> String {
    s.split('`')
        .enumerate()
        .map(|(i, piece)| match i % 2 {
            0 => escape(piece),
            _ => format!("<code>{}</code>", escape(piece)),
        })
        .collect()
}

/// `s` as the page's text shows it: each `quoted` run without its backticks.
pub fn shown(s: &str) -> String {
    s.replace('`', "")
}

/// The prediction as the page shows it without JavaScript: the program at
/// the default parameter, the question, the options of each part, and the
/// model's answer folded in a `<details>`. This is the HTML of
/// `chapters/generated/predictions/ID.html`.
pub fn static_html(p: &Prediction) -> Result<String, Error> {
    let value = p.default_value();
    let checked = p.check(value, &[])?;
    let mut html = format!(
        "<div class=\"gpu-prediction\" data-prediction=\"{id}\" id=\"predict-{id}\">\n<p class=\"gpu-prediction-head\"><strong>Predict.</strong> {question} <span class=\"gpu-prediction-param\">({param}: {value})</span></p>\n<pre class=\"gpu-prediction-program\"><code class=\"language-rust\">{program}</code></pre>\n<ol class=\"gpu-prediction-parts\">\n",
        id = p.id,
        question = inline(p.question),
        param = escape(p.parameter.label),
        value = inline(label(p.parameter.options, value)),
        program = escape(&p.program(value)),
    );
    for part in p.parts {
        let options: Vec<String> = part.options.iter().map(|o| inline(o.label)).collect();
        html += &format!(
            "<li>{}<br><em>{}</em></li>\n",
            inline(part.question),
            options.join(" · ")
        );
    }
    html += "</ol>\n<details class=\"gpu-prediction-answer\"><summary>The answer (what the virtual GPU does)</summary>\n";
    for (part, result) in p.parts.iter().zip(&checked.parts) {
        let i = part.options.iter().position(|o| o.value == result.right);
        let why = i.map_or("", |_| {
            result.feedback.trim_start_matches("No answer chosen. ")
        });
        html += &format!("<p>{}</p>\n", inline(why));
    }
    html += "</details>\n</div>\n";
    Ok(html)
}

/// The view of a run: `svg` with `numbers` and a report.
pub(crate) fn view(svg: String, numbers: &[(&str, String)], report: &str) -> View {
    let mut view = View::new(svg).report(report);
    view.numbers = numbers
        .iter()
        .map(|(label, value)| Number {
            label: (*label).to_string(),
            value: value.clone(),
        })
        .collect();
    view
}

/// The option among `bands` (`(upper bound, option)`, in increasing order;
/// the last one takes everything above) that `x` falls in.
pub(crate) fn band(x: f64, bands: &[(f64, &'static str)]) -> &'static str {
    bands
        .iter()
        .find(|(upper, _)| x < *upper)
        .or(bands.last())
        .map(|(_, o)| *o)
        .expect("at least one band")
}

/// A part answered by a band: the band `x` falls in (see [`band`]), and
/// the sentences: `why` for the right band, `low` before it for a band
/// below, `high` before it for a band above.
pub(crate) fn banded(
    x: f64,
    bands: &[(f64, &'static str)],
    why: &str,
    low: &str,
    high: &str,
) -> (&'static str, Vec<String>) {
    let right = band(x, bands);
    let at = bands.iter().position(|b| b.1 == right).expect("a band");
    let says = (0..bands.len())
        .map(|i| match i.cmp(&at) {
            std::cmp::Ordering::Equal => why.to_string(),
            std::cmp::Ordering::Less => format!("{low} {why}"),
            std::cmp::Ordering::Greater => format!("{high} {why}"),
        })
        .collect();
    (right, says)
}

#[cfg(test)]
mod tests;
