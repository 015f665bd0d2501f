//! The allocator chapter's figures, drawn from the allocator itself.
//!
//! Each figure runs a short script on the reference allocator over
//! [`SimDriver`] and draws [`CachingAllocator::snapshot`] after each step:
//! one row per step, each segment outlined, each block coloured by its state.
//! The `record_stream` figure's script is text ([`script`]), which the
//! chapter's live picture lets the reader edit.

use caching_allocator::{
    AllocError, Block, BlockState, CachingAllocator, SegmentInfo, SimDriver, StreamId,
};
use std::fmt::Write as _;

mod expandable;
pub mod script;

pub(super) use expandable::seams;

const MIB: usize = 1 << 20;
const S0: StreamId = StreamId(0);

/// One row of a figure: the layout after a step of the script.
struct Step {
    /// What the step did.
    label: String,
    /// A second line; `None` writes the allocated and reserved bytes.
    note: Option<String>,
    /// The layout after the step.
    segments: Vec<SegmentInfo>,
    /// Names of blocks, by address.
    names: Vec<(u64, String)>,
    /// A dashed outline `(addr, bytes)`: a request that does not fit.
    ghost: Option<(u64, usize)>,
}

/// Records steps of a script run on one allocator.
struct Script {
    alloc: CachingAllocator<SimDriver>,
    names: Vec<(u64, String)>,
    steps: Vec<Step>,
}

impl Script {
    fn new(capacity: usize) -> Self {
        Self {
            alloc: CachingAllocator::new(SimDriver::new(capacity)),
            names: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// `malloc`s a block and names it.
    fn malloc(&mut self, name: &str, bytes: usize, stream: StreamId) -> Block {
        self.try_malloc(name, bytes, stream)
            .expect("the script fits")
    }

    /// `malloc`s a block and names it, if the device can serve it.
    fn try_malloc(
        &mut self,
        name: &str,
        bytes: usize,
        stream: StreamId,
    ) -> Result<Block, AllocError> {
        let block = self.alloc.malloc(bytes, stream)?;
        self.names.retain(|(a, _)| *a != block.addr());
        self.names.push((block.addr(), name.to_string()));
        Ok(block)
    }

    fn free(&mut self, block: Block) {
        self.alloc
            .free(block)
            .expect("the script frees its own blocks");
    }

    fn step(&mut self, label: &str) -> &mut Step {
        self.steps.push(Step {
            label: label.to_string(),
            note: None,
            segments: self.alloc.snapshot(),
            names: self.names.clone(),
            ghost: None,
        });
        self.steps.last_mut().expect("just pushed")
    }
}

pub(super) fn split_and_merge() -> String {
    let mut s = Script::new(64 * MIB);
    let [x0, x1, x2, x3] = [0, 1, 2, 3].map(|i| s.malloc(&format!("x{i}"), 4 * MIB, S0));
    s.step("x0..x3 = malloc(4 MiB) × 4");
    s.free(x1);
    s.free(x2);
    s.step("free(x1); free(x2)");
    s.free(x0);
    s.step("free(x0)");
    s.free(x3);
    s.step("free(x3)").note = Some("one free block: the segment is whole again".into());
    draw(
        "Split and merge in one 20 MiB segment of the large pool",
        &s.steps,
        4 * MIB,
    )
}

pub(super) fn fragmentation() -> String {
    let mut s = Script::new(40 * MIB);
    let [a, _b, c, _d] = ["A", "B", "C", "D"].map(|n| s.malloc(n, 8 * MIB, S0));
    s.step("A, B, C, D = malloc(8 MiB) × 4");
    s.free(a);
    s.free(c);
    s.step("free(A); free(C)");
    let failed = s.alloc.malloc(12 * MIB, S0);
    assert!(failed.is_err(), "the 40 MiB device must refuse 12 MiB more");
    let step = s.step("malloc(12 MiB): out of memory");
    step.note = Some("24 MiB free, but in 8, 4, 8 and 4 MiB pieces".into());
    step.ghost = Some((16 * MIB as u64, 12 * MIB));
    draw(
        "The fragmentation OOM on a 40 MiB device (two 20 MiB segments)",
        &s.steps,
        4 * MIB,
    )
}

/// The `record_stream` figure: [`script::RECORD_STREAM`].
pub(super) fn record_stream() -> String {
    script::run(script::RECORD_STREAM, script::RECORD_STREAM_DEVICE_MIB)
        .expect("the figure's script runs")
        .svg
}

// ------------------------------------------------------------- drawing

const WIDTH: f64 = 760.0;
const CHART_X: f64 = 262.0;
const CHART_W: f64 = 480.0;
const TOP: f64 = 62.0;
const ROW_H: f64 = 50.0;
const BAR_H: f64 = 26.0;
const GAP: f64 = 8.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";

/// The figure: a title, an address axis with a tick every `tick` bytes, one
/// row per step, a legend.
fn draw(title: &str, steps: &[Step], tick: usize) -> String {
    let bases = segment_bases(steps);
    let end = steps
        .iter()
        .flat_map(|s| &s.segments)
        .map(|s| s.base + s.size as u64)
        .max()
        .unwrap_or(0);
    let gaps = bases.len().saturating_sub(1) as f64 * GAP;
    let scale = (CHART_W - gaps) / end.max(1) as f64;
    let x = |addr: u64| {
        let before = bases.iter().filter(|&&b| b > 0 && b <= addr).count() as f64;
        CHART_X + addr as f64 * scale + before * GAP
    };
    let height = TOP + steps.len() as f64 * ROW_H + 44.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="{FONT}" font-size="12" role="img" aria-label="{title}">
<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f6c177"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d08a1e" stroke-width="2.5"/></pattern></defs>
<rect width="{WIDTH}" height="{height}" rx="6" fill="#ffffff"/>
<text x="16" y="24" font-size="14" font-weight="600" fill="#1f2937">{title}</text>
"##
    );
    axis(&mut svg, end, tick, &x, height);
    for (i, step) in steps.iter().enumerate() {
        row(&mut svg, TOP + i as f64 * ROW_H, step, &x);
    }
    legend(&mut svg, height - 22.0);
    svg.push_str("</svg>\n");
    svg
}

/// The base of every segment in any step, sorted.
fn segment_bases(steps: &[Step]) -> Vec<u64> {
    let mut bases: Vec<u64> = steps
        .iter()
        .flat_map(|s| s.segments.iter().map(|g| g.base))
        .collect();
    bases.sort_unstable();
    bases.dedup();
    bases
}

fn axis(svg: &mut String, end: u64, tick: usize, x: &impl Fn(u64) -> f64, height: f64) {
    let _ = writeln!(
        svg,
        r##"<text x="{CHART_X}" y="42" fill="#6b7280" font-size="11">address (MiB)</text>"##
    );
    let bottom = height - 40.0;
    let mut addr = 0u64;
    while addr <= end {
        let (px, label) = (x(addr), mib_number(addr as usize));
        let _ = writeln!(
            svg,
            r##"<line x1="{px:.1}" y1="{TOP:.1}" x2="{px:.1}" y2="{bottom:.1}" stroke="#e5e7eb"/><text x="{px:.1}" y="{:.1}" text-anchor="middle" fill="#6b7280" font-size="11">{label}</text>"##,
            TOP - 4.0
        );
        addr += tick as u64;
    }
}

fn row(svg: &mut String, y: f64, step: &Step, x: &impl Fn(u64) -> f64) {
    let note = step.note.clone().unwrap_or_else(|| totals(&step.segments));
    let _ = writeln!(
        svg,
        r##"<text x="16" y="{:.1}" font-weight="600" fill="#1f2937">{}</text><text x="16" y="{:.1}" fill="#6b7280" font-size="11">{}</text>"##,
        y + 12.0,
        escape(&step.label),
        y + 27.0,
        escape(&note)
    );
    for segment in &step.segments {
        for block in &segment.blocks {
            let name = step
                .names
                .iter()
                .find(|(a, _)| *a == block.addr)
                .map(|(_, n)| n.as_str());
            let (x0, x1) = (x(block.addr), x(block.addr + block.size as u64));
            block_rect(svg, x0, x1, y, block.state, block.size, name);
        }
        let (x0, x1) = (x(segment.base), x(segment.base + segment.size as u64));
        let _ = writeln!(
            svg,
            r##"<rect x="{x0:.1}" y="{y:.1}" width="{:.1}" height="{BAR_H}" rx="2" fill="none" stroke="#1f2937" stroke-width="2"/>"##,
            x1 - x0
        );
    }
    if let Some((addr, bytes)) = step.ghost {
        let (x0, x1) = (x(addr), x(addr + bytes as u64));
        let _ = writeln!(
            svg,
            r##"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="3" fill="none" stroke="#dc2626" stroke-width="2" stroke-dasharray="5 3"/><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#dc2626" font-size="11" font-weight="600">{} wanted</text>"##,
            y - 4.0,
            x1 - x0,
            BAR_H + 8.0,
            (x0 + x1) / 2.0,
            y + BAR_H + 15.0,
            size_text(bytes)
        );
    }
}

fn block_rect(
    svg: &mut String,
    x0: f64,
    x1: f64,
    y: f64,
    state: BlockState,
    size: usize,
    name: Option<&str>,
) {
    let (fill, text, halo) = match state {
        BlockState::Allocated => ("#3b6fb6", "#ffffff", ""),
        BlockState::PendingFree => (
            "url(#hatch)",
            "#3b2a05",
            r##" stroke="#fff4de" stroke-width="3" paint-order="stroke""##,
        ),
        BlockState::Free => ("#eef1f5", "#374151", ""),
    };
    let _ = writeln!(
        svg,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="#9ca3af" stroke-width="0.8"/>"##,
        x0 + 0.5,
        y + 0.5,
        (x1 - x0 - 1.0).max(0.5),
        BAR_H - 1.0
    );
    let size = size_text(size);
    let full = match (state, name) {
        (BlockState::Free, _) | (_, None) => size.clone(),
        (BlockState::PendingFree, Some(n)) => format!("{n} pending"),
        (BlockState::Allocated, Some(n)) => format!("{n} {size}"),
    };
    let short = name.map_or(size, str::to_string);
    let fits = |t: &str| t.chars().count() as f64 * 6.8 + 6.0 <= x1 - x0;
    let label = [full, short].into_iter().find(|t| fits(t));
    if let Some(label) = label {
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{text}"{halo}>{}</text>"##,
            (x0 + x1) / 2.0,
            y + BAR_H / 2.0 + 4.0,
            escape(&label)
        );
    }
}

fn legend(svg: &mut String, y: f64) {
    let items = [
        ("#3b6fb6", "allocated"),
        ("url(#hatch)", "pending free (waits for an event)"),
        ("#eef1f5", "free, cached"),
    ];
    let mut lx = 16.0;
    for (fill, label) in items {
        let _ = writeln!(
            svg,
            r##"<rect x="{lx:.1}" y="{:.1}" width="14" height="14" fill="{fill}" stroke="#9ca3af"/><text x="{:.1}" y="{y:.1}" fill="#374151">{label}</text>"##,
            y - 11.0,
            lx + 20.0
        );
        lx += 28.0 + label.chars().count() as f64 * 6.6;
    }
    let _ = writeln!(
        svg,
        r##"<rect x="{lx:.1}" y="{:.1}" width="22" height="14" rx="2" fill="none" stroke="#1f2937" stroke-width="2"/><text x="{:.1}" y="{y:.1}" fill="#374151">a segment (one driver allocation)</text>"##,
        y - 11.0,
        lx + 28.0
    );
}

/// "allocated 16 MiB · reserved 40 MiB" for a layout.
fn totals(segments: &[SegmentInfo]) -> String {
    let reserved: usize = segments.iter().map(|s| s.size).sum();
    let allocated: usize = segments
        .iter()
        .flat_map(|s| &s.blocks)
        .filter(|b| b.state == BlockState::Allocated)
        .map(|b| b.size)
        .sum();
    format!(
        "allocated {} · reserved {}",
        size_text(allocated),
        size_text(reserved)
    )
}

/// `bytes` in MiB as an axis label: `0`, `0.5`, `12`.
fn mib_number(bytes: usize) -> String {
    if bytes.is_multiple_of(MIB) {
        (bytes / MIB).to_string()
    } else {
        format!("{:.1}", bytes as f64 / MIB as f64)
    }
}

/// `bytes` as `8 MiB`, `1.5 MiB`, `512 KiB`.
fn size_text(bytes: usize) -> String {
    if bytes >= MIB {
        format!("{} MiB", mib_number(bytes))
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_axis_labels_read_naturally() {
        assert_eq!(size_text(8 * MIB), "8 MiB");
        assert_eq!(size_text(3 * MIB / 2), "1.5 MiB");
        assert_eq!(size_text(512 << 10), "512 KiB");
        assert_eq!(mib_number(MIB / 2), "0.5");
    }
}
