//! SVG timeline export, written by hand (no SVG crate).
//!
//! The picture has a title, a time axis with round ticks (1, 2 or 5 × 10^k ns,
//! labelled in µs or ms), one lane for the CPU and one per stream. The CPU lane
//! shows every call for the time the CPU spent inside it: API calls grey,
//! simulated CPU work (`host_work`) amber, calls that can block hatched red.
//! Stream lanes show when the GPU ran each operation, coloured by kind. Every
//! rectangle carries a `<title>` tooltip; a legend at the bottom explains the
//! colours. Numbers are printed with fixed precision, so the same trace and
//! options always give the same bytes. A trace with ranges gets their lanes
//! above the CPU's ([`ranges`]); one without is drawn as before ranges existed.
//! (Just over 400 lines: the layout's constants and the `Plot` that uses
//! them stay together; the ranges' lanes are already a module of their own.)

use super::{OpKind, StreamId, Trace, TraceEntry};
use std::fmt::Write as _;

/// How [`Trace::to_svg`](super::Trace::to_svg) draws a timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// Width of the whole image in pixels, lane labels included (at least 300 is used).
    pub width: u32,
    /// The heading; `None` uses "GPU timeline".
    pub title: Option<String>,
    /// The part of the trace to draw, as `(start_ns, end_ns)` on the trace's clock;
    /// `None` draws everything. Work crossing an edge is clipped to it.
    pub window_ns: Option<(u64, u64)>,
}

impl Default for SvgOptions {
    fn default() -> Self {
        Self {
            width: 1000,
            title: None,
            window_ns: None,
        }
    }
}

/// Width of the lane-label column.
const LABEL_W: f64 = 90.0;
/// Space right of the plot (room for the last tick label).
const RIGHT_PAD: f64 = 30.0;
/// Top of the first lane.
const TOP: f64 = 76.0;
/// Height of one lane.
const LANE_H: f64 = 32.0;
/// Vertical inset of a rectangle inside its lane.
const INSET: f64 = 6.0;
/// Estimated width of one character of 11 px text, to decide whether a label fits.
const CHAR_W: f64 = 6.6;
/// Text attributes: lane and legend group labels.
const BOLD: &str = r##"font-size="12" font-weight="bold" fill="#333""##;
/// Text attributes: legend lines.
const PLAIN: &str = r##"font-size="11" fill="#333""##;
/// Text attributes: tick labels.
const TICK: &str = r##"font-size="11" fill="#444" text-anchor="middle""##;
/// Extra text attributes: a white halo that keeps a label legible over the hatch.
const HALO: &str = r##"stroke="#fff" stroke-width="3" paint-order="stroke" "##;

/// How a kind of rectangle is painted: fill, outline, text colour, legend text.
#[derive(Debug, PartialEq, Eq)]
struct Style(&'static str, &'static str, &'static str, &'static str);

const API: Style = Style("#d9d9d9", "#8c8c8c", "#222", "API call (time spent in it)");
const HOST_WORK: Style = Style("#f1ce63", "#b8962e", "#222", "CPU work (host_work)");
const BLOCKING: Style = Style(
    "url(#blocked)",
    "#b30000",
    "#000",
    "call that can block: waits for the GPU",
);
const KERNEL: Style = Style("#4e79a7", "#2f4f73", "#fff", "kernel");
const H2D: Style = Style("#59a14f", "#3a6e33", "#fff", "copy host → device");
const D2H: Style = Style("#f28e2b", "#b0620f", "#222", "copy device → host");
const D2D: Style = Style("#b07aa1", "#7a4f70", "#fff", "copy device → device, memset");
const GRAPH: Style = Style("#76b7b2", "#4a8a85", "#222", "graph launch");
const OTHER: Style = Style("#bab0ac", "#857a76", "#222", "other GPU work");

/// The style of an entry on the CPU lane.
fn cpu_style(entry: &TraceEntry) -> &'static Style {
    match (entry.blocking, entry.op) {
        (Some(_), _) => &BLOCKING,
        (None, OpKind::HostWork) => &HOST_WORK,
        (None, _) => &API,
    }
}

/// The style of a GPU span.
fn gpu_style(op: OpKind) -> &'static Style {
    match op {
        OpKind::Launch => &KERNEL,
        OpKind::CopyHostToDevice => &H2D,
        OpKind::CopyDeviceToHost => &D2H,
        OpKind::CopyDeviceToDevice | OpKind::Memset => &D2D,
        OpKind::GraphLaunch => &GRAPH,
        _ => &OTHER,
    }
}

/// The time window and the plot area it maps onto.
struct Frame {
    t0: u64,
    t1: u64,
    x0: f64,
    x1: f64,
}

impl Frame {
    fn new(trace: &Trace, options: &SvgOptions) -> Self {
        let (t0, t1) = options.window_ns.unwrap_or_else(|| extent(trace));
        let width = f64::from(options.width.max(300));
        Self {
            t0,
            t1: t1.max(t0 + 1),
            x0: LABEL_W,
            x1: width - RIGHT_PAD,
        }
    }

    /// The x of time `t`, clamped to the plot.
    fn x(&self, t: u64) -> f64 {
        let t = t.clamp(self.t0, self.t1) - self.t0;
        self.x0 + t as f64 / (self.t1 - self.t0) as f64 * (self.x1 - self.x0)
    }
}

/// The earliest and latest time anything in the trace happened.
fn extent(trace: &Trace) -> (u64, u64) {
    let spans = trace.entries.iter().flat_map(|e| {
        let gpu = e.gpu.map(|g| (g.start_ns, g.end_ns));
        std::iter::once((e.cpu_start_ns, e.cpu_end_ns)).chain(gpu)
    });
    let ranges = trace.ranges.iter().map(|r| (r.cpu_start_ns, r.cpu_end_ns));
    let spans = spans.chain(ranges);
    let (lo, hi) = spans.fold((u64::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
    if lo > hi { (0, 1) } else { (lo, hi) }
}

/// The GPU lanes: streams in creation order, then streams seen only in entries
/// (`None`: GPU work that names no stream, not expected but kept visible).
fn gpu_lanes(trace: &Trace) -> Vec<Option<StreamId>> {
    let mut lanes: Vec<_> = trace.streams.iter().copied().map(Some).collect();
    for entry in trace.entries.iter().filter(|e| e.gpu.is_some()) {
        if !lanes.contains(&entry.stream) {
            lanes.push(entry.stream);
        }
    }
    lanes
}

/// Escapes the XML special characters (`&` first, so entities stay intact).
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// A round tick step (1, 2 or 5 × 10^k ns) giving about `target` ticks over `span_ns`.
fn nice_step(span_ns: u64, target: u64) -> u64 {
    let raw = (span_ns / target.max(1)).max(1);
    let magnitude = 10u64.pow(raw.ilog10());
    let steps = [1, 2, 5, 10].map(|m| m * magnitude);
    steps.into_iter().find(|&s| s >= raw).unwrap_or(raw)
}

/// The unit for labels over a window `span_ns` long: ms from 2 ms on, else µs.
fn unit(span_ns: u64) -> (u64, &'static str) {
    match span_ns {
        2_000_000.. => (1_000_000, "ms"),
        _ => (1_000, "µs"),
    }
}

/// A tick label in the window's unit, with the decimals `step` needs.
fn tick_label(t: u64, step: u64, span_ns: u64) -> String {
    let (unit, name) = unit(span_ns);
    let (mut decimals, mut resolution) = (0, unit);
    while !step.is_multiple_of(resolution) && resolution > 1 {
        (decimals, resolution) = (decimals + 1, resolution / 10);
    }
    format!("{:.*} {name}", decimals, t as f64 / unit as f64)
}

/// An instant or a duration in µs, for tooltips.
fn us(ns: u64) -> String {
    format!("{:.3} µs", ns as f64 / 1000.0)
}

/// The tooltip of an entry drawn over `span` on the CPU (`gpu == false`) or GPU.
fn tooltip(entry: &TraceEntry, (a, b): (u64, u64), gpu: bool) -> String {
    let (name, seq, op, site) = (&entry.name, entry.seq, entry.op, entry.site);
    let lane = if gpu { "GPU" } else { "CPU" };
    let (a, b, d) = (us(a), us(b), us(b.saturating_sub(a)));
    let mut text = format!("{name} (#{seq} {op:?})\n{site}\n{lane} {a} → {b} ({d})");
    if let Some(reason) = entry.blocking.filter(|_| !gpu) {
        let _ = write!(text, "\ncan block: {reason}");
    }
    text
}

/// The label drawn inside a rectangle `width` px wide, shortened with "…" or dropped.
fn fit_label(text: &str, width: f64) -> Option<String> {
    let room = ((width - 8.0) / CHAR_W).floor().max(0.0) as usize;
    match room {
        _ if text.chars().count() <= room => Some(text.to_owned()),
        0..4 => None,
        _ => Some(text.chars().take(room - 1).chain(['…']).collect()),
    }
}

/// The SVG body being written, and where time falls on it.
/// (Writing to a `String` cannot fail, so `write!` results are ignored.)
struct Plot {
    svg: String,
    frame: Frame,
    /// Whether some span used [`OTHER`], which then gets a legend line.
    other_used: bool,
}

impl Plot {
    /// A `<rect>` with optional extra attributes and a tooltip (none when `tip` is empty).
    fn rect(&mut self, (x, y, w, h): (f64, f64, f64, f64), attrs: &str, tip: &str) {
        let _ = write!(
            self.svg,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" {attrs}"#
        );
        let _ = match tip {
            "" => writeln!(self.svg, "/>"),
            tip => writeln!(self.svg, "><title>{}</title></rect>", esc(tip)),
        };
    }

    /// A `<text>` at `(x, y)`; `attrs` sets size, colour, weight.
    fn text(&mut self, (x, y): (f64, f64), attrs: &str, content: &str) {
        let content = esc(content);
        let _ = writeln!(
            self.svg,
            r#"<text x="{x:.2}" y="{y:.2}" {attrs}>{content}</text>"#
        );
    }

    /// A `<line>`.
    fn line(&mut self, (x1, y1, x2, y2): (f64, f64, f64, f64), attrs: &str) {
        let coords = format!(r#"x1="{x1:.2}" y1="{y1:.2}" x2="{x2:.2}" y2="{y2:.2}""#);
        let _ = writeln!(self.svg, "<line {coords} {attrs}/>");
    }

    /// Lane backgrounds (alternating) and their labels on the left.
    fn lanes(&mut self, names: &[String], width: f64) {
        for (i, name) in names.iter().enumerate() {
            let y = lane_y(i);
            let fill = if i % 2 == 0 { "#f3f4f6" } else { "#ffffff" };
            self.rect((0.0, y, width, LANE_H), &format!(r#"fill="{fill}""#), "");
            self.text((12.0, y + LANE_H / 2.0 + 4.0), BOLD, name);
        }
    }

    /// The time axis above the lanes, with grid lines down through them.
    fn axis(&mut self, bottom: f64) {
        let Frame { t0, t1, x0, x1 } = self.frame;
        let step = nice_step(t1 - t0, ((x1 - x0) / 90.0).max(2.0) as u64);
        self.text((12.0, TOP - 10.0), PLAIN, "time");
        let first = t0.div_ceil(step) * step;
        for t in (first..=t1).step_by(usize::try_from(step).unwrap_or(usize::MAX)) {
            let x = self.frame.x(t);
            let grid = r##"stroke="#ccc" stroke-dasharray="2,3""##;
            self.line((x, TOP - 4.0, x, bottom), grid);
            self.text((x, TOP - 10.0), TICK, &tick_label(t, step, t1 - t0));
        }
        self.line((x0, TOP, x0, bottom), r##"stroke="#999""##);
    }

    /// An entry's rectangle on the CPU lane (`gpu == false`) or on GPU lane `lane`.
    fn bar(&mut self, lane: usize, entry: &TraceEntry, gpu: bool) {
        let (span, style) = match entry.gpu.filter(|_| gpu) {
            Some(g) => ((g.start_ns, g.end_ns), gpu_style(entry.op)),
            None => ((entry.cpu_start_ns, entry.cpu_end_ns), cpu_style(entry)),
        };
        if span.0 > self.frame.t1 || span.1 < self.frame.t0 {
            return;
        }
        self.other_used |= style == &OTHER;
        let Style(fill, stroke, ink, _) = *style;
        let x = self.frame.x(span.0);
        let w = (self.frame.x(span.1) - x).max(1.0);
        let (y, h) = (lane_y(lane) + INSET, LANE_H - 2.0 * INSET);
        let paint = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="0.8""#);
        self.rect((x, y, w, h), &paint, &tooltip(entry, span, gpu));
        let label = Some("CPU work").filter(|_| style == &HOST_WORK);
        if let Some(label) = fit_label(label.unwrap_or(&entry.name), w) {
            let halo = if style == &BLOCKING { HALO } else { "" };
            let attrs = format!(r#"font-size="11" fill="{ink}" {halo}pointer-events="none""#);
            self.text((x + 4.0, y + h / 2.0 + 4.0), &attrs, &label);
        }
    }

    /// The legend from `top`: one row for the CPU lane's colours, one for the
    /// streams', each wrapped to the image width; returns the last baseline.
    fn legend(&mut self, top: f64, width: f64) -> f64 {
        let mut gpu = vec![&KERNEL, &H2D, &D2H, &D2D, &GRAPH];
        gpu.extend(self.other_used.then_some(&OTHER));
        let mut y = top;
        for (group, styles) in [("CPU", vec![&API, &HOST_WORK, &BLOCKING]), ("GPU", gpu)] {
            self.text((12.0, y), BOLD, group);
            let mut x = LABEL_W;
            for &Style(fill, stroke, _, text) in styles {
                let item_w = 36.0 + text.chars().count() as f64 * CHAR_W * 0.9;
                if x + item_w > width && x > LABEL_W {
                    (x, y) = (LABEL_W, y + 20.0);
                }
                let paint = format!(r#"fill="{fill}" stroke="{stroke}" stroke-width="0.8""#);
                self.rect((x, y - 10.0, 16.0, 11.0), &paint, "");
                self.text((x + 21.0, y), PLAIN, text);
                x += item_w;
            }
            y += 22.0;
        }
        y - 22.0
    }
}

/// The top of lane `lane` (from 0, the first lane under the axis).
fn lane_y(lane: usize) -> f64 {
    TOP + lane as f64 * LANE_H
}

/// The subtitle: device, backend and the window shown.
fn subtitle(trace: &Trace, frame: &Frame) -> String {
    let (unit, name) = unit(frame.t1 - frame.t0);
    let [t0, t1] = [frame.t0, frame.t1].map(|t| t as f64 / unit as f64);
    format!(
        "{} · {} backend · {t0:.3} to {t1:.3} {name}",
        trace.device, trace.backend
    )
}

/// The document's opening, the hatch for blocking calls, the title and the subtitle.
fn header(title: &str, subtitle: &str, (width, height): (f64, f64)) -> String {
    let (title, subtitle) = (esc(title), esc(subtitle));
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<defs>
<pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
<rect width="6" height="6" fill="#f6b3b3"/>
<line x1="0" y1="0" x2="0" y2="6" stroke="#d62728" stroke-width="3"/>
</pattern>
</defs>
<rect width="{width:.0}" height="{height:.0}" fill="#fff"/>
<text x="12" y="26" font-size="17" font-weight="bold" fill="#222">{title}</text>
<text x="12" y="45" font-size="11" fill="#666">{subtitle}</text>
"##
    )
}

/// The lane labels: the ranges' `range_lanes`, "CPU", then one per GPU lane.
fn lane_names(range_lanes: usize, streams: &[Option<StreamId>]) -> Vec<String> {
    let name = |s: &Option<StreamId>| s.map_or("GPU (no stream)".into(), |s| format!("stream {s}"));
    ranges::names(range_lanes)
        .chain(std::iter::once("CPU".into()))
        .chain(streams.iter().map(name))
        .collect()
}

/// Renders `trace` as an SVG timeline.
pub(super) fn render(trace: &Trace, options: &SvgOptions) -> String {
    let frame = Frame::new(trace, options);
    let width = frame.x1 + RIGHT_PAD;
    let streams = gpu_lanes(trace);
    let cpu = ranges::lanes(trace);
    let names = lane_names(cpu, &streams);
    let bottom = lane_y(names.len());
    let mut plot = Plot {
        svg: String::new(),
        frame,
        other_used: false,
    };
    plot.lanes(&names, width);
    plot.axis(bottom);
    plot.ranges(trace);
    for entry in &trace.entries {
        plot.bar(cpu, entry, false);
        if entry.gpu.is_some() {
            let lane = streams.iter().position(|s| *s == entry.stream).unwrap_or(0);
            plot.bar(cpu + 1 + lane, entry, true);
        }
    }
    let mut legend = bottom + 28.0;
    if cpu > 0 {
        legend = plot.range_legend(legend);
    }
    let height = plot.legend(legend, width) + 14.0;
    let title = options.title.as_deref().unwrap_or("GPU timeline");
    let mut out = header(title, &subtitle(trace, &plot.frame), (width, height));
    out.push_str(&plot.svg);
    out.push_str("</svg>\n");
    out
}

mod ranges;
#[cfg(test)]
mod tests;
