//! The book's live timelines: each chapter's key scenario, run by the
//! virtual GPU in the reader's browser as they move its controls.
//!
//! A widget is a scenario of `workbook-benches` (the very function that
//! draws the chapter's static figure and produces its measurements) with a
//! few of its parameters turned into controls. [`render`] runs it on a fresh
//! virtual GPU with the H200 calibration and returns a [`View`]: the
//! timeline SVG (the same `Trace::to_svg` call as the static figure, so at
//! the defaults it is the figure, byte for byte), the headline numbers of
//! the lesson, and a report as text (the sync report, the race checker's
//! findings, what the script did).
//!
//! | widget | chapter | scenario |
//! |---|---|---|
//! | `cpu-gpu` | CPU and GPU | `cpu_gpu::pipeline` |
//! | `streams` | Streams and events | `streams::schedule` |
//! | `hidden-syncs` | Hidden sync points | `sync_loop::run_with` |
//! | `overlap` | Sampling and overlap | `sampling::run` |
//! | `allocator` | The caching allocator | `figures::allocator::script::run` |
//! | `graphs` | CUDA graphs | `graphs::kernel_step` |
//!
//! Compiled to `wasm32-unknown-unknown` (`widgets/build`), the crate exports
//! two functions to JavaScript, each with JSON in and out: `widget_spec(name)`
//! ([`spec_json`]: the controls, their ranges and defaults) and
//! `widget_render(name, params)` ([`render_json`]). `widgets/web/widgets.js`
//! builds each widget's controls from its spec and redraws on every change.
//! Natively, the same two functions are what the book's browser test compares
//! the page with.
//!
//! The chapters' predictions ([`predict`]) run the same scenarios: the
//! reader predicts what the GPU will do, and `prediction_check(id, value,
//! answers)` ([`predict::check_json`]) runs the program and judges each part
//! of the answer from the run's trace; `prediction_spec(id)`
//! ([`predict::spec_json`]) gives the question, its parameter and its parts.

mod allocator;
mod controls;
mod cpu_gpu;
mod graphs;
mod hidden_syncs;
mod overlap;
pub mod predict;
mod streams;
mod timeline;
mod view;
#[cfg(target_arch = "wasm32")]
mod wasm;

pub use controls::{Choice, Control, Kind, Spec, Value, Values};
pub use view::{Error, Number, View};
#[cfg(target_arch = "wasm32")]
pub use wasm::{prediction_check, prediction_spec, widget_render, widget_spec};

/// One widget: its name, its controls, and how it draws.
struct Widget {
    /// The name `data-widget` gives in the chapter.
    name: &'static str,
    /// Its controls.
    spec: fn() -> Spec,
    /// Runs its scenario with checked values.
    render: fn(&Values) -> Result<View, Error>,
}

/// Every widget, in chapter order.
const WIDGETS: &[Widget] = &[
    Widget {
        name: "cpu-gpu",
        spec: cpu_gpu::spec,
        render: cpu_gpu::render,
    },
    Widget {
        name: "streams",
        spec: streams::spec,
        render: streams::render,
    },
    Widget {
        name: "hidden-syncs",
        spec: hidden_syncs::spec,
        render: hidden_syncs::render,
    },
    Widget {
        name: "overlap",
        spec: overlap::spec,
        render: overlap::render,
    },
    Widget {
        name: "allocator",
        spec: allocator::spec,
        render: allocator::render,
    },
    Widget {
        name: "graphs",
        spec: graphs::spec,
        render: graphs::render,
    },
];

/// The names of every widget, in chapter order.
pub fn names() -> impl Iterator<Item = &'static str> {
    WIDGETS.iter().map(|w| w.name)
}

fn widget(name: &str) -> Result<&'static Widget, Error> {
    WIDGETS.iter().find(|w| w.name == name).ok_or_else(|| {
        let known: Vec<&str> = names().collect();
        Error::new(format!("no widget `{name}` (known: {})", known.join(", ")))
    })
}

/// The controls of widget `name`.
pub fn spec(name: &str) -> Result<Spec, Error> {
    Ok((widget(name)?.spec)())
}

/// Runs widget `name` with `values` (checked against its spec).
pub fn render(name: &str, values: &Values) -> Result<View, Error> {
    let widget = widget(name)?;
    (widget.spec)().check(values)?;
    (widget.render)(values)
}

/// [`spec`] as JSON.
pub fn spec_json(name: &str) -> Result<String, Error> {
    Ok(serde_json::to_string(&spec(name)?).expect("a spec serializes"))
}

/// [`render`] with the values as a JSON object (a control left out takes
/// its default); the [`View`] as JSON, with the values it ran with.
pub fn render_json(name: &str, params: &str) -> Result<String, Error> {
    let spec = spec(name)?;
    let values = spec.values(params)?;
    let view = render(name, &values)?;
    Ok(view.to_json(&values))
}

#[cfg(test)]
mod tests;
