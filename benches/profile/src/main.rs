//! Where the CPU time of one launch goes, function by function: the `gpu`
//! crate's `spin(0)` launched in batches, sampled by a profiler in the
//! process (pprof-rs: a timer signal and an unwinder, no `perf` needed),
//! with the crate's trace and race checker on, then off.
//!
//! ```text
//! cargo run --release --manifest-path benches/profile/Cargo.toml
//! ```
//!
//! A crate of its own, outside the workspace (its manifest says why), built
//! with line tables, which name the functions the compiler inlined; without
//! them the samples fall on the few functions left standing. Each sample of a launch
//! (a stack holding `Stream::spin`) is counted for the path below `spin`
//! (the callees, three levels deep) and for the function it was in (the
//! leaf, the driver's code counted as one); a count becomes microseconds
//! per launch through the launches' measured mean time. `launch_overhead`
//! times the same launches against cudarc's raw ones.

use gpu::{Device, DeviceOptions, Stream};
use std::collections::BTreeMap;
use std::error::Error;
use std::time::{Duration, Instant};
use workbook_benches::header;
use workbook_commit::COMMIT;

/// Launches per batch (the stream is synchronized between batches, untimed).
const BATCH: usize = 200;
/// Batches per way.
const BATCHES: usize = 10_000;
/// Samples per second of CPU time.
const FREQUENCY: i32 = 4_999;
/// Levels of callees shown below `spin`.
const DEPTH: usize = 6;
/// Rows of the table of functions.
const ROWS: usize = 14;

fn main() -> Result<(), Box<dyn Error>> {
    let mut first = true;
    for checks in [true, false] {
        let device = Device::with_options(DeviceOptions {
            trace: checks,
            race_check: checks,
            quiet: true,
            ..DeviceOptions::default()
        })?;
        if first {
            print!("{}", header(&device, &profiled_command(), COMMIT));
            first = false;
        }
        let stream = device.new_stream()?;
        launches(&stream, BATCH * 10)?; // warm-up: the module, the trace's first pages
        let (elapsed, profile) = profiled(&stream)?;
        let per_launch = elapsed.as_secs_f64() * 1e6 / (BATCH * BATCHES) as f64;
        let way = if checks { "on" } else { "off" };
        println!(
            "\n## trace and race checker {way}: {per_launch:.2} µs per launch (mean of {} launches)",
            BATCH * BATCHES
        );
        print!("{}", profile.report(per_launch));
    }
    Ok(())
}

/// The command that runs this tool.
fn profiled_command() -> String {
    "cargo run --release --manifest-path benches/profile/Cargo.toml".into()
}

/// `n` launches of `spin(0)` on `stream`.
fn launches(stream: &Stream, n: usize) -> gpu::Result<()> {
    for _ in 0..n {
        stream.spin(Duration::ZERO)?;
    }
    stream.synchronize()
}

/// The time of the timed launches (not of the synchronizes between
/// batches) and the profile of the whole run.
fn profiled(stream: &Stream) -> Result<(Duration, Profile), Box<dyn Error>> {
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(FREQUENCY)
        .build()
        .map_err(|e| format!("cannot start the profiler: {e}"))?;
    let mut elapsed = Duration::ZERO;
    for _ in 0..BATCHES {
        let start = Instant::now();
        for _ in 0..BATCH {
            stream.spin(Duration::ZERO)?;
        }
        elapsed += start.elapsed();
        stream.synchronize()?;
    }
    let report = guard
        .report()
        .build()
        .map_err(|e| format!("cannot read the profile: {e}"))?;
    let stacks = report.data.iter().map(|(frames, &count)| {
        let names = frames
            .frames
            .iter()
            .flat_map(|frame| frame.iter().map(name))
            .collect();
        (names, count as usize)
    });
    Ok((elapsed, Profile::of(stacks)))
}

/// A frame's name: the function's (without its hash), and for a function
/// the compiler inlined, which the line tables name without its path, the
/// file it is in; `None` for code without line tables (the driver's
/// library, libc).
fn name(symbol: &pprof::Symbol) -> Option<String> {
    let file = symbol.filename.as_ref()?;
    let name = clean(&symbol.name());
    let head = name.split('<').next().unwrap_or(&name);
    if head.contains("::") {
        return Some(name);
    }
    let file = file.to_string_lossy();
    let tail = file.rsplit_once("/src/").map_or(&*file, |(_, tail)| tail);
    Some(format!("{head} ({tail})"))
}

/// A demangled name without its hash (`::h0123456789abcdef`).
fn clean(name: &str) -> String {
    match name.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head.to_string()
        }
        _ => name.to_string(),
    }
}

/// The samples of launches: by path below `spin`, and by the function each
/// was in.
#[derive(Default)]
struct Profile {
    /// Samples whose stack holds `Stream::spin`.
    launches: usize,
    /// Samples of the whole run (launches, synchronizes, the profiler's own).
    all: usize,
    /// Samples by the callees below `spin`, one to [`DEPTH`] levels.
    paths: BTreeMap<Vec<String>, usize>,
    /// Samples by the function they were in.
    leaves: BTreeMap<String, usize>,
}

impl Profile {
    /// The profile of `stacks` (names from the leaf to the root, and how
    /// many samples had that stack).
    fn of(stacks: impl Iterator<Item = (Vec<Option<String>>, usize)>) -> Self {
        let mut profile = Self::default();
        for (names, count) in stacks {
            profile.all += count;
            let Some(spin) = names
                .iter()
                .rposition(|n| n.as_deref().is_some_and(is_spin))
            else {
                continue;
            };
            profile.launches += count;
            // From `spin` towards the leaf: the callees, outermost first.
            let below: Vec<String> = names[..spin]
                .iter()
                .rev()
                .map(|n| shown(n.as_deref()))
                .collect();
            for depth in 1..=below.len().min(DEPTH) {
                *profile.paths.entry(below[..depth].to_vec()).or_default() += count;
            }
            *profile.leaves.entry(leaf(&names[..=spin])).or_default() += count;
        }
        profile
    }

    /// The two tables, in µs per launch of `per_launch` µs.
    fn report(&self, per_launch: f64) -> String {
        let us = |count: usize| count as f64 / self.launches.max(1) as f64 * per_launch;
        let mut out = format!(
            "{} samples, {} of them in a launch\n\nbelow `Stream::spin`, inclusive (µs per launch, share of a launch):\n",
            self.all, self.launches
        );
        for (path, &count) in &self.paths {
            if count * 100 < self.launches {
                continue; // under 1% of a launch
            }
            let indent = "  ".repeat(path.len());
            let name = &path[path.len() - 1];
            out += &format!(
                "{indent}{:<72} {:>5.2} µs {:>4.0}%\n",
                truncate(name, 72 - indent.len()),
                us(count),
                share(count, self.launches)
            );
        }
        out += "\nby the function the sample was in (self time), the largest:\n";
        let mut leaves: Vec<_> = self.leaves.iter().collect();
        leaves.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (name, &count) in leaves.into_iter().take(ROWS) {
            out += &format!(
                "  {:<74} {:>5.2} µs {:>4.0}%\n",
                truncate(name, 74),
                us(count),
                share(count, self.launches)
            );
        }
        out
    }
}

/// `count` in percent of `of`.
fn share(count: usize, of: usize) -> f64 {
    count as f64 * 100.0 / of.max(1) as f64
}

/// Whether `name` is the crate's `Stream::spin` (named by its path, or,
/// inlined, by its file).
fn is_spin(name: &str) -> bool {
    name == "spin (stream/launch.rs)"
        || name.starts_with("gpu::") && name.ends_with("Stream>::spin")
}

/// How a frame is shown: its name, or what code without line tables is.
fn shown(name: Option<&str>) -> String {
    name.map_or_else(|| NATIVE.to_string(), short)
}

/// Code without line tables: the driver's library, libc.
const NATIVE: &str = "native code (the driver's library, libc)";

/// The function a launch's sample was in: a Rust function by its name;
/// native code under cudarc as the driver's, else by the Rust function
/// that called it.
fn leaf(names: &[Option<String>]) -> String {
    let Some(caller) = names.iter().flatten().next() else {
        return NATIVE.into();
    };
    if names[0].is_some() {
        short(caller)
    } else if caller.contains("cudarc") {
        "the driver (cuLaunchKernel and what it calls)".into()
    } else {
        format!("native code called by {}", short(caller))
    }
}

/// `name` without the generic arguments' paths: `<impl gpu::stream::Stream>::spin`
/// stays, `core::ptr::drop_in_place<alloc::vec::Vec<u8>>` keeps its head.
fn short(name: &str) -> String {
    name.replace("alloc::vec::", "")
        .replace("core::", "")
        .replace("alloc::", "")
}

/// `text` cut to `width` characters.
fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(names: &[&str], count: usize) -> (Vec<Option<String>>, usize) {
        let name = |n: &&str| (!n.is_empty()).then(|| n.to_string());
        (names.iter().map(name).collect(), count)
    }

    #[test]
    fn samples_below_spin_are_counted_by_path_and_by_leaf() {
        let spin = "gpu::stream::<impl gpu::stream::Stream>::spin";
        let profile = Profile::of(
            [
                stack(
                    &[
                        "",
                        "cudarc::driver::result::launch_kernel",
                        "launch (cuda.rs)",
                        spin,
                        "main",
                    ],
                    3,
                ),
                stack(
                    &["gpu::trace::Trace::push", "spin (stream/launch.rs)", "main"],
                    1,
                ),
                stack(&["gpu::stream::Stream::synchronize", "main"], 5),
            ]
            .into_iter(),
        );
        assert_eq!((profile.launches, profile.all), (4, 9));
        assert_eq!(profile.paths[&vec!["launch (cuda.rs)".to_string()]], 3);
        assert_eq!(profile.leaves["gpu::trace::Trace::push"], 1);
        assert_eq!(
            profile.leaves["the driver (cuLaunchKernel and what it calls)"],
            3
        );
    }

    #[test]
    fn a_hash_is_cut_and_nothing_else() {
        assert_eq!(clean("gpu::a::b::h0123456789abcdef"), "gpu::a::b");
        assert_eq!(clean("gpu::a::hello"), "gpu::a::hello");
    }
}
