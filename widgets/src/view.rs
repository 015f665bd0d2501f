//! What a widget shows ([`View`]), and what goes wrong ([`Error`]).

use crate::controls::Values;
use serde::Serialize;
use std::fmt;

/// What a widget draws for one set of values.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct View {
    /// The timeline (or the allocator's picture), as SVG text.
    pub svg: String,
    /// The numbers of the lesson, in order.
    pub numbers: Vec<Number>,
    /// A report as plain text: the sync report, the race checker's
    /// findings, what the script did; empty when there is nothing to say.
    pub report: String,
}

/// One headline number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Number {
    /// What it is.
    pub label: String,
    /// Its value, as the page shows it.
    pub value: String,
}

impl View {
    /// A view of `svg` with no numbers and no report yet.
    pub(crate) fn new(svg: String) -> Self {
        Self {
            svg,
            numbers: Vec::new(),
            report: String::new(),
        }
    }

    /// Adds a number.
    pub(crate) fn number(mut self, label: &str, value: impl Into<String>) -> Self {
        self.numbers.push(Number {
            label: label.to_string(),
            value: value.into(),
        });
        self
    }

    /// Sets the report.
    pub(crate) fn report(mut self, report: impl Into<String>) -> Self {
        self.report = report.into();
        self
    }

    /// The view as JSON, with the `values` it was drawn with.
    pub fn to_json(&self, values: &Values) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            view: &'a View,
            values: &'a Values,
        }
        serde_json::to_string(&Out { view: self, values }).expect("a view serializes")
    }
}

/// Why a widget could not draw: a value it cannot take, or a scenario that
/// failed (a script's error, say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    /// An error saying `message`.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<gpu::GpuError> for Error {
    fn from(e: gpu::GpuError) -> Self {
        Self(e.to_string())
    }
}

impl From<Box<dyn std::error::Error>> for Error {
    fn from(e: Box<dyn std::error::Error>) -> Self {
        Self(e.to_string())
    }
}

/// `ns` as `38.2 ns`, `291 µs` or `4.95 ms`.
pub(crate) fn time(ns: f64) -> String {
    workbook_benches::duration_text(ns)
}

/// `part` of `whole` as a percentage, `0 %` when `whole` is zero.
pub(crate) fn percent(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.0} %", 100.0 * part / whole)
    } else {
        "0 %".into()
    }
}
