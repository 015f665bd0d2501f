//! What the judge's side believes of a call from a learner's process:
//! nothing. Every value a [`What`] carries was written by that process,
//! which may be anything (a forged frame, a soundness hole), so before a
//! call reaches a device it is held to what the real call would accept
//! ([`check`]), to the memory the submission may hold, and to the number
//! of calls one check may trace ([`Limits`]). What is refused ends the
//! check as the learner's error at the learner's line ([`Refusal`]); an
//! allocation past the memory is the learner's out-of-memory error, as
//! the driver returns one; a panic of the judge's own code while serving
//! is the judge's failure ([`Stop::Fault`]), never the learner's.
//!
//! All of it is the judge's side alone: a program that measures the
//! runtime on a GPU never runs this module (the book's measurements do not
//! depend on it), and a learner's process that bypasses its own proxies
//! meets it all the same.

use super::call::What;
use crate::decoder::DecoderConfig;
use crate::elem::RawView;
use crate::race::HOST_BASE;
use crate::trace::CallSite;
use std::cell::Cell;
use std::time::Duration;

/// The longest duration one call may ask for (`host_work`, `spin`,
/// `sum_after`, a decoder's step): ten minutes, more than the time limit of
/// any exercise (the longest is three minutes). A real driver would take a
/// kernel that spins for a year; a model must not: the virtual GPU's clocks
/// are counts of nanoseconds, and a duration that wrapped one would move
/// it backwards (they saturate too, in every build).
pub const LONGEST_CALL: Duration = Duration::from_secs(600);

/// The most entries one check's device may trace: about a million calls,
/// more than any check of the course makes (`judge verify` passes with
/// the bound in force), few enough that a full trace stays a small part of
/// a submission's memory limit.
pub const TRACE_ENTRIES: u64 = 1 << 20;

/// What one submission may make the judge hold or do for its calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes the process that serves the calls may hold in all (the
    /// submission's memory limit): its heap, where it counts it
    /// ([`live_bytes`](super::live_bytes)), and the pinned memory it allocated.
    pub memory: u64,
    /// Entries one device's trace may hold ([`TRACE_ENTRIES`]).
    pub trace_entries: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            memory: u64::MAX,
            trace_entries: TRACE_ENTRIES,
        }
    }
}

thread_local! {
    static LIMITS: Cell<Limits> = Cell::new(Limits::default());
}

/// Sets the limits the calls served on this thread are held to.
pub fn set_limits(limits: Limits) {
    LIMITS.with(|l| l.set(limits));
}

/// The limits of this thread's calls.
pub fn limits() -> Limits {
    LIMITS.with(Cell::get)
}

/// Whether this process may hold `bytes` more on its heap under this
/// thread's memory limit (always, where the heap is not counted). The
/// virtual GPU asks before it allocates device or pinned memory, so that
/// no path to an allocation, a callback of the judge's code included,
/// holds more than the submission may.
pub fn heap_fits(bytes: u64) -> bool {
    let held = super::counted::live_bytes().unwrap_or(0);
    held.saturating_add(bytes) <= limits().memory
}

/// A call the judge would not make: the learner's error, at its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What was wrong, and what to do, for the learner.
    pub message: String,
    /// The learner's call.
    pub site: CallSite,
}

/// Why a call got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The call was refused: it ends the check as the learner's error.
    Refused(Refusal),
    /// The judge's own code failed while making it (a panic, with its
    /// message and backtrace): it ends the check as the judge's failure.
    Fault(String),
}

impl From<Refusal> for Stop {
    fn from(refusal: Refusal) -> Self {
        Self::Refused(refusal)
    }
}

/// What the checks of this module return.
type Checked<T = ()> = std::result::Result<T, Refusal>;

/// The refusal of `op` at `site`, for `detail`.
fn refuse(op: &str, site: CallSite, detail: String) -> Refusal {
    Refusal {
        message: format!("`{op}` at {site}: {detail}"),
        site,
    }
}

/// `ns` as it came over the link, when it is at most [`LONGEST_CALL`].
fn checked_ns(op: &str, ns: u64, site: CallSite) -> Checked<u64> {
    let asked = Duration::from_nanos(ns);
    if asked <= LONGEST_CALL {
        return Ok(ns);
    }
    Err(refuse(
        op,
        site,
        format!(
            "a duration of {asked:?} is longer than any call may take ({} s, more than any exercise's whole time limit); pass the time the work really takes",
            LONGEST_CALL.as_secs()
        ),
    ))
}

/// `len` elements of `size` bytes from `addr`, when neither the bytes nor
/// the end address overflow: the bytes.
fn span_bytes(op: &str, addr: u64, len: usize, size: usize, site: CallSite) -> Checked<u64> {
    let bytes = (len as u64).checked_mul(size as u64);
    match bytes.filter(|b| addr.checked_add(*b).is_some()) {
        Some(bytes) => Ok(bytes),
        None => Err(refuse(
            op,
            site,
            format!(
                "{len} elements of {size} bytes from address {addr:#x} run past the end of the address space; pass the length of a buffer you allocated"
            ),
        )),
    }
}

/// Bytes a decoder of `config` holds, on the device and again on the
/// host: two `vocab × hidden` matrices of `f32`, each twice.
fn decoder_bytes(config: &DecoderConfig) -> Option<u64> {
    (config.vocab as u64)
        .checked_mul(config.hidden as u64)?
        .checked_mul(4 * 4)
}

/// Whether a real call could take `config`: its matrices fit in the
/// address space, and its step time is a duration a call may take.
fn check_decoder(config: &DecoderConfig, site: CallSite) -> Checked {
    let ns = u64::try_from(config.step_time.as_nanos()).unwrap_or(u64::MAX);
    checked_ns("Decoder::new", ns, site)?;
    match decoder_bytes(config) {
        Some(_) => Ok(()),
        None => Err(refuse(
            "Decoder::new",
            site,
            format!(
                "a vocabulary of {} tokens by {} wide does not fit in memory; pass the sizes of a model that fits on the device",
                config.vocab, config.hidden
            ),
        )),
    }
}

/// Whether the real call could take `what`'s arguments: durations a call
/// may take, sizes whose bytes fit in the address space, views that do
/// not wrap. Handles are checked where they are looked up (an unknown one
/// is the learner's `ForeignHandle` error), and views against the live
/// allocations by the device itself, as in one process.
pub(super) fn check(what: &What, site: CallSite) -> Checked {
    let views = |op, views: &[&RawView]| views.iter().try_for_each(|v| device_view(op, v, site));
    match what {
        What::HostWork { ns } => checked_ns("host_work", *ns, site).map(drop),
        What::Spin { ns, .. } => checked_ns("spin", *ns, site).map(drop),
        What::Sum {
            delay_ns, src, out, ..
        } => {
            checked_ns("sum_after", *delay_ns, site)?;
            views("sum", &[src, out])
        }
        What::AllocPinned { elem, len } => {
            span_bytes("alloc_pinned", 0, *len, elem.size(), site).map(drop)
        }
        What::AllocZeros { elem, len, .. } => {
            span_bytes("alloc_zeros", 0, *len, elem.size(), site).map(drop)
        }
        What::CheckView { elem, addr, len } => {
            let view = RawView {
                addr: *addr,
                len: *len,
                elem: *elem,
            };
            device_view("view", &view, site)
        }
        What::CopyFromHost { dst, .. } => views("copy_from_host", &[dst]),
        What::CopyToHost { src, .. } => views("copy_to_host", &[src]),
        What::CopyFromPinned { dst, .. } => views("copy_from_pinned", &[dst]),
        What::CopyToPinned { src, .. } => views("copy_to_pinned", &[src]),
        What::Copy { src, dst, .. } => views("copy", &[src, dst]),
        What::Fill { dst, .. } => views("fill", &[dst]),
        What::ArgmaxRows {
            src,
            rows,
            cols,
            out,
            ..
        } => {
            span_bytes("argmax_rows", 0, *rows, *cols, site)?;
            views("argmax_rows", &[src, out])
        }
        What::FlagEq { src, flags, .. } => views("flag_eq", &[src, flags]),
        What::CountEq { src, out, .. } => views("count_eq", &[src, out]),
        What::Affine { x, y, .. } => views("affine", &[x, y]),
        What::DecodeStep {
            tokens_in,
            tokens_out,
            ..
        } => views("decode_step", &[tokens_in, tokens_out]),
        What::NewDecoder { config, .. } => check_decoder(config, site),
        _ => Ok(()),
    }
}

/// Whether `view` lies in the device's address space: its bytes do not
/// overflow, and it ends below the addresses the race checker gives host
/// memory ([`HOST_BASE`]), where no device allocation ever is (a view
/// there would be taken for pinned memory, which the device's checks of
/// live allocations do not cover).
fn device_view(op: &str, view: &RawView, site: CallSite) -> Checked {
    let bytes = span_bytes(op, view.addr, view.len, view.elem.size(), site)?;
    if view.addr.saturating_add(bytes) > HOST_BASE {
        return Err(refuse(
            op,
            site,
            format!(
                "the device memory [{:#x}, +{bytes}) is not inside any allocation the device could make; pass a view of a buffer you allocated",
                view.addr
            ),
        ));
    }
    Ok(())
}

/// The bytes `what` asks the judge's process to hold for it, beyond what
/// every call costs: what an allocation or a read back makes.
pub(super) fn bytes_asked(what: &What) -> u64 {
    let elems = |len: usize, size: usize| (len as u64).saturating_mul(size as u64);
    match what {
        What::AllocSegment { bytes } => *bytes as u64,
        What::AllocPinned { elem, len } | What::AllocZeros { elem, len, .. } => {
            elems(*len, elem.size())
        }
        What::CopyToHost { src, .. } => elems(src.len, src.elem.size()).saturating_mul(2),
        // The bytes came with the call; the copy holds them twice more (as
        // elements, and staged until the copy lands).
        What::CopyFromHost { src: data, .. } | What::WritePinned { data, .. } => {
            (data.len() as u64).saturating_mul(2)
        }
        What::ReadPinned { .. } => 0,
        What::NewDecoder { config, .. } => decoder_bytes(config).unwrap_or(u64::MAX),
        _ => 0,
    }
}

/// The name of `what`'s call, for a message.
pub(super) fn op(what: &What) -> &'static str {
    match what {
        What::AllocSegment { .. } => "alloc_segment",
        What::AllocPinned { .. } => "alloc_pinned",
        What::AllocZeros { .. } => "alloc_zeros",
        What::CopyToHost { .. } => "to_vec",
        What::NewDecoder { .. } => "Decoder::new",
        _ => "a device call",
    }
}

/// Bytes as a person reads them.
pub(super) fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

#[cfg(test)]
mod tests;
