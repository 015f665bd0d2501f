//! Scripts for the allocator's figures: a few lines, one row of the figure
//! each, that drive the reference allocator over its simulated driver. The
//! `record_stream` figure is [`RECORD_STREAM`]; the chapter's live picture
//! runs whatever the reader writes.
//!
//! ```text
//! x = malloc(1 MiB, s0)       # a comment is the row's note
//! record_stream(x, s1)
//! free(x); finish(s1)         # several statements: one row
//! ```
//!
//! The statements: `NAME = malloc(SIZE)` or `NAME = malloc(SIZE, sN)` (on
//! stream `sN`, `s0` when left out), `free(NAME)`, `record_stream(NAME, sN)`,
//! `finish(sN)` (the work queued on stream `sN` so far is done) and
//! `empty_cache()`. A size is a number and `B`, `KiB`, `MiB` or `GiB`. A
//! row without a comment notes the allocated and reserved bytes after it; a
//! `malloc` the device cannot serve notes that it ran out of memory.

use super::{MIB, Script, draw};
use caching_allocator::{Block, BlockState, StreamId};

/// The `record_stream` figure's script, on a 64 MiB device.
pub const RECORD_STREAM: &str = "\
x = malloc(1 MiB, s0)
record_stream(x, s1)  # s1 uses x too: freeing x will wait for s1
free(x)  # an event on s1; x is pending
y = malloc(1 MiB, s0)  # x is pending: y gets new memory
finish(s1); z = malloc(1 MiB, s0)  # the event is done: z reuses x's memory
";

/// The device of the `record_stream` figure, MiB.
pub const RECORD_STREAM_DEVICE_MIB: usize = 64;

/// Rows a script may have.
const MAX_ROWS: usize = 12;

/// A script's picture and where the allocator ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scripted {
    /// The figure: one row per line of the script.
    pub svg: String,
    /// Bytes in allocated blocks at the end.
    pub allocated: usize,
    /// Bytes in segments held from the driver at the end.
    pub reserved: usize,
    /// Segments held at the end.
    pub segments: usize,
    /// Blocks freed but waiting for another stream at the end.
    pub pending: usize,
    /// The rows whose `malloc` ran out of memory, as `line N: …`.
    pub out_of_memory: Vec<String>,
}

/// The named blocks a script holds.
type Names = Vec<(String, Block)>;

/// Runs `text` on a fresh allocator over a device of `device_mib` MiB and
/// draws it; a line it cannot run is an error naming the line.
pub fn run(text: &str, device_mib: usize) -> Result<Scripted, String> {
    let rows: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .collect();
    if rows.is_empty() || rows.len() > MAX_ROWS {
        return Err(format!("a script has 1 to {MAX_ROWS} lines of statements"));
    }
    let mut s = Script::new(device_mib * MIB);
    let (mut names, mut out_of_memory) = (Names::new(), Vec::new());
    for (n, line) in rows {
        let (code, note) = line.split_once('#').unwrap_or((line, ""));
        let mut oom = None;
        for statement in code.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let failed = statement_of(&mut s, &mut names, statement)
                .map_err(|e| format!("line {}: `{statement}`: {e}", n + 1))?;
            if let Some(failed) = failed {
                out_of_memory.push(format!("line {}: {failed}", n + 1));
                oom = Some(failed);
            }
        }
        let step = s.step(code.trim());
        step.note = Some(note.trim().to_string())
            .filter(|n| !n.is_empty())
            .or(oom);
    }
    Ok(finish(s, text, device_mib, out_of_memory))
}

/// The picture and the figures of the allocator after the last row.
fn finish(s: Script, text: &str, device_mib: usize, out_of_memory: Vec<String>) -> Scripted {
    let title = if text == RECORD_STREAM && device_mib == RECORD_STREAM_DEVICE_MIB {
        "record_stream: a block used by stream s1 waits for it (a 2 MiB small-pool segment)"
            .to_string()
    } else {
        format!("Your script on the reference allocator (a {device_mib} MiB device)")
    };
    let end = s.alloc.snapshot();
    let extent = s
        .steps
        .iter()
        .flat_map(|step| &step.segments)
        .map(|g| g.base as usize + g.size)
        .max()
        .unwrap_or(MIB);
    Scripted {
        svg: draw(&title, &s.steps, tick(extent)),
        allocated: s.alloc.memory_allocated(),
        reserved: s.alloc.memory_reserved(),
        segments: end.len(),
        pending: end
            .iter()
            .flat_map(|g| &g.blocks)
            .filter(|b| b.state == BlockState::PendingFree)
            .count(),
        out_of_memory,
    }
}

/// The address axis' step for addresses up to `extent`: half a MiB times a
/// power of two, ten ticks at most.
fn tick(extent: usize) -> usize {
    let mut tick = MIB / 2;
    while extent / tick > 10 {
        tick *= 2;
    }
    tick
}

/// Runs one statement; `Ok(Some(why))` when a `malloc` ran out of memory.
fn statement_of(
    s: &mut Script,
    names: &mut Names,
    statement: &str,
) -> Result<Option<String>, String> {
    if let Some((name, call)) = statement.split_once('=') {
        return malloc(s, names, name.trim(), call.trim());
    }
    let (function, args) = call_of(statement)?;
    match (function, args.as_slice()) {
        ("free", [name]) => {
            let at = position(names, name)?;
            s.free(names.remove(at).1);
        }
        ("record_stream", [name, stream]) => {
            let stream = stream_of(stream)?;
            let at = position(names, name)?;
            s.alloc.record_stream(&names[at].1, stream);
        }
        ("finish", [stream]) => s.alloc.driver_mut().finish(stream_of(stream)?),
        ("empty_cache", []) => s.alloc.empty_cache(),
        _ => return Err(UNKNOWN.into()),
    }
    Ok(None)
}

/// What a statement can be.
const UNKNOWN: &str = "not a statement: use `x = malloc(1 MiB, s0)`, `free(x)`, \
     `record_stream(x, s1)`, `finish(s1)` or `empty_cache()`";

/// `name = malloc(SIZE[, sN])`.
fn malloc(
    s: &mut Script,
    names: &mut Names,
    name: &str,
    call: &str,
) -> Result<Option<String>, String> {
    let (function, args) = call_of(call)?;
    let (size, stream) = match (function, args.as_slice()) {
        ("malloc", [size]) => (*size, "s0"),
        ("malloc", [size, stream]) => (*size, *stream),
        _ => return Err(UNKNOWN.into()),
    };
    let ok_name = !name.is_empty()
        && name.len() <= 8
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok_name {
        return Err("a block's name is a word of at most 8 letters or digits".into());
    }
    if names.iter().any(|(n, _)| n == name) {
        return Err(format!("`{name}` is allocated already: free it first"));
    }
    let (bytes, stream) = (size_of(size)?, stream_of(stream)?);
    match s.try_malloc(name, bytes, stream) {
        Ok(block) => {
            names.push((name.to_string(), block));
            Ok(None)
        }
        Err(_) => Ok(Some(format!("malloc({size}): out of memory"))),
    }
}

/// `f(a, b)` as `("f", ["a", "b"])`.
fn call_of(text: &str) -> Result<(&str, Vec<&str>), String> {
    let (function, rest) = text.split_once('(').ok_or(UNKNOWN)?;
    let args = rest.trim().strip_suffix(')').ok_or(UNKNOWN)?;
    let args = args.split(',').map(str::trim).filter(|a| !a.is_empty());
    Ok((function.trim(), args.collect()))
}

/// The index of the live block `name`.
fn position(names: &Names, name: &str) -> Result<usize, String> {
    names
        .iter()
        .position(|(n, _)| n == name)
        .ok_or_else(|| format!("no block `{name}` is allocated"))
}

/// `s0` … `s7`.
fn stream_of(text: &str) -> Result<StreamId, String> {
    text.strip_prefix('s')
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n < 8)
        .map(StreamId)
        .ok_or_else(|| format!("`{text}` is not a stream: use s0 to s7"))
}

/// `1 MiB`, `1.5MiB`, `512 KiB`, `4096 B`.
fn size_of(text: &str) -> Result<usize, String> {
    let digits = text
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .trim();
    let unit = match text[digits.len()..].trim() {
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => MIB as f64,
        "GiB" => (1u64 << 30) as f64,
        _ => return Err(format!("`{text}` is not a size: write `1 MiB`, `512 KiB`…")),
    };
    let value: f64 = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size"))?;
    let bytes = value * unit;
    if !(1.0..=(64u64 << 30) as f64).contains(&bytes) {
        return Err(format!("`{text}`: a size from 1 B to 64 GiB"));
    }
    Ok(bytes as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_runs_line_by_line_and_says_where_it_is_wrong() {
        let done = run("x = malloc(4 MiB)\nfree(x)", 64).unwrap();
        assert_eq!(
            (done.allocated, done.reserved, done.segments),
            (0, 20 * MIB, 1)
        );
        let oom = run("a = malloc(30 MiB)\nb = malloc(30 MiB)", 40).unwrap();
        assert_eq!(oom.out_of_memory, ["line 2: malloc(30 MiB): out of memory"]);
        assert_eq!(
            run("free(y)", 64).unwrap_err(),
            "line 1: `free(y)`: no block `y` is allocated"
        );
        assert!(
            run("x = malloc(1 parsec)", 64)
                .unwrap_err()
                .contains("not a size")
        );
        assert!(run("launch()", 64).unwrap_err().contains("not a statement"));
        assert_eq!(size_of("1.5MiB"), Ok(3 * MIB / 2));
        assert_eq!(tick(2 * MIB), MIB / 2);
        assert_eq!(tick(40 * MIB), 4 * MIB);
    }
}
