//! The ranges' lanes of the SVG timeline, above the CPU's: one lane per
//! depth of nesting, each range drawn over the CPU time from its open to its
//! close, and under it, as a thin strip, where the GPU ran the work its calls
//! queued (from the first start to the last end, on any stream).

use super::{BOLD, CHAR_W, INSET, LABEL_W, LANE_H, PLAIN, Plot, Style, fit_label, lane_y, us};
use crate::profile::Range;
use crate::trace::Trace;
use std::fmt::Write as _;

/// A range's paint.
const RANGE: Style = Style(
    "#e4dcf3",
    "#7b61b3",
    "#2b1d52",
    "range (CPU time from open to close)",
);
/// The paint of a range's GPU side.
const RANGE_GPU: Style = Style(
    "#7b61b3",
    "#4b3785",
    "#fff",
    "its work on the GPU (any stream)",
);
/// Height of the strip that shows a range's GPU side.
const STRIP_H: f64 = 4.0;

/// How many lanes the ranges of `trace` take: one per depth of nesting.
pub(super) fn lanes(trace: &Trace) -> usize {
    trace
        .ranges
        .iter()
        .map(|r| r.depth as usize + 1)
        .max()
        .unwrap_or(0)
}

/// The lanes' names: "ranges", then the depth of each deeper level.
pub(super) fn names(lanes: usize) -> impl Iterator<Item = String> {
    (0..lanes).map(|depth| match depth {
        0 => "ranges".to_owned(),
        _ => format!("depth {depth}"),
    })
}

impl Plot {
    /// Every range of `trace` on its lane.
    pub(super) fn ranges(&mut self, trace: &Trace) {
        for range in &trace.ranges {
            self.range(trace, range);
        }
    }

    /// One range: its CPU bar, and its GPU strip along the lane's bottom.
    fn range(&mut self, trace: &Trace, range: &Range) {
        let (a, b) = (range.cpu_start_ns, range.cpu_end_ns);
        if a > self.frame.t1 || b < self.frame.t0 {
            return;
        }
        let lane = range.depth as usize;
        let x = self.frame.x(a);
        let w = (self.frame.x(b) - x).max(1.0);
        let (y, h) = (lane_y(lane) + INSET, LANE_H - 2.0 * INSET);
        let Style(fill, stroke, ink, _) = RANGE;
        let paint = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="0.8""#);
        let gpu = trace.range_gpu_span(range, None);
        self.rect((x, y, w, h), &paint, &tip(trace, range));
        if let Some(label) = fit_label(&range.name, w) {
            let attrs = format!(r#"font-size="11" fill="{ink}" pointer-events="none""#);
            self.text((x + 4.0, y + h / 2.0 + 3.0), &attrs, &label);
        }
        if let Some(span) = gpu.filter(|s| s.start_ns <= self.frame.t1 && s.end_ns >= self.frame.t0)
        {
            let gx = self.frame.x(span.start_ns);
            let gw = (self.frame.x(span.end_ns) - gx).max(1.0);
            let Style(fill, stroke, _, _) = RANGE_GPU;
            let paint = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="0.5""#);
            self.rect((gx, y + h - STRIP_H, gw, STRIP_H), &paint, "");
        }
    }

    /// The legend's row for ranges, at `y`; returns the next row's baseline.
    pub(super) fn range_legend(&mut self, y: f64) -> f64 {
        self.text((12.0, y), BOLD, "ranges");
        let mut x = LABEL_W;
        for &Style(fill, stroke, _, text) in [&RANGE, &RANGE_GPU] {
            let paint = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="0.8""#);
            self.rect((x, y - 10.0, 16.0, 11.0), &paint, "");
            self.text((x + 21.0, y), PLAIN, text);
            x += 36.0 + text.chars().count() as f64 * CHAR_W * 0.9;
        }
        y + 22.0
    }
}

/// A range's tooltip: its name, depth, site, CPU time and GPU side.
fn tip(trace: &Trace, range: &Range) -> String {
    let (a, b) = (range.cpu_start_ns, range.cpu_end_ns);
    let calls = range.end_seq - range.first_seq;
    let mut text = format!(
        "{} (range, depth {}, {calls} calls)\n{}\nCPU {} → {} ({})",
        range.name,
        range.depth,
        range.site,
        us(a),
        us(b),
        us(b.saturating_sub(a))
    );
    if let Some(g) = trace.range_gpu_span(range, None) {
        let d = us(g.end_ns.saturating_sub(g.start_ns));
        let _ = write!(text, "\nGPU {} → {} ({d})", us(g.start_ns), us(g.end_ns));
    }
    text
}
