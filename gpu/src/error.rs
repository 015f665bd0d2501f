//! The crate's error type.
//!
//! Errors are what went wrong with a call (bad input, a missing driver, an
//! illegal call inside a capture); they are never used for the results a
//! lesson observes (a race, a slow step), which are data in the trace and the
//! race reports.

use crate::trace::CallSite;
use serde::{Deserialize, Serialize};

/// Every way a call into this crate can fail. Errors cross processes (a
/// device of the judge's answers learner code with them), so they serialize.
#[derive(Debug, thiserror::Error, Serialize)]
#[non_exhaustive]
pub enum GpuError {
    /// `Backend::Cuda` was asked for where no CUDA driver or device exists.
    #[error(
        "no CUDA device is available: {reason}; use `Backend::Virtual` (or `GPU_BACKEND=virtual`) to run on the virtual GPU"
    )]
    NoCudaDevice {
        /// Why the CUDA backend could not start.
        reason: String,
    },
    /// `GPU_BACKEND` holds a value this crate does not know.
    #[error("`GPU_BACKEND={value}` is not a backend; use `cuda`, `virtual` or `auto`")]
    BadBackendVariable {
        /// The value found in the environment.
        value: String,
    },
    /// The CUDA driver returned an error.
    #[error("CUDA driver call `{call}` failed: {message}")]
    Driver {
        /// The driver API that failed.
        call: &'static str,
        /// The driver's name and description of the error.
        message: String,
    },
    /// NVRTC failed to compile the kernel library.
    #[error("NVRTC could not compile the kernel library: {log}")]
    Compile {
        /// The compiler log.
        log: String,
    },
    /// Two sides of a copy, or a kernel's arguments, have incompatible lengths.
    #[error("length mismatch in `{op}` at {site}: {detail}")]
    Length {
        /// The operation.
        op: &'static str,
        /// What was wrong with the lengths.
        detail: String,
        /// The caller's location.
        site: CallSite,
    },
    /// A view points outside every live allocation (freed, or never allocated).
    #[error(
        "`{op}` at {site} uses device memory [{addr:#x}, +{bytes}) that is not inside a live allocation; was its buffer freed or dropped?"
    )]
    InvalidView {
        /// The operation.
        op: &'static str,
        /// First byte of the view.
        addr: u64,
        /// Length of the view in bytes.
        bytes: u64,
        /// The caller's location.
        site: CallSite,
    },
    /// The device has no memory left for the request.
    #[error(
        "out of device memory: `{op}` at {site} asked for {requested} bytes of a {capacity}-byte device; drop the buffers and free the segments you no longer need, then try again"
    )]
    OutOfMemory {
        /// The operation.
        op: &'static str,
        /// Bytes asked for.
        requested: u64,
        /// Device capacity in bytes.
        capacity: u64,
        /// The caller's location.
        site: CallSite,
    },
    /// A call that is illegal while a stream is being captured into a graph.
    /// The capture is invalidated, as CUDA does: `end_capture` reports it too.
    #[error(
        "`{op}` at {site} is not allowed while stream {stream} is capturing a graph ({why}); the capture is now invalidated"
    )]
    IllegalInCapture {
        /// The operation.
        op: &'static str,
        /// The capturing stream.
        stream: u32,
        /// Why it cannot be captured.
        why: &'static str,
        /// The caller's location.
        site: CallSite,
    },
    /// `end_capture` on a capture that an illegal call invalidated.
    #[error(
        "the capture on stream {stream} was invalidated by `{op}` at {site}; nothing was captured, begin a new capture without that call"
    )]
    CaptureInvalidated {
        /// The capturing stream.
        stream: u32,
        /// The call that invalidated it.
        op: &'static str,
        /// Where that call was made.
        site: CallSite,
    },
    /// `end_capture` on a capture that forked onto a stream which was not
    /// joined back: CUDA's `CUDA_ERROR_STREAM_CAPTURE_UNJOINED`. The capture
    /// has ended and nothing was captured.
    #[error(
        "`end_capture` at {site}: stream {joined} joined the capture of stream {stream} at {joined_at} and was not joined back; record an event on stream {joined} after its last work and make stream {stream} wait for it before `end_capture`"
    )]
    CaptureUnjoined {
        /// The capturing stream (the one that began the capture).
        stream: u32,
        /// The stream that joined and was not joined back.
        joined: u32,
        /// Where it joined (its `wait_event`).
        joined_at: CallSite,
        /// Where `end_capture` was called.
        site: CallSite,
    },
    /// Capture calls used out of order (end without begin, begin twice, and so on).
    #[error("`{op}` at {site}: {detail}")]
    CaptureState {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        detail: String,
        /// The caller's location.
        site: CallSite,
    },
    /// Sync debug mode is `Error` and the call would block the CPU.
    #[error(
        "`{op}` at {site} would block the CPU ({reason}) and sync debug mode is `Error`; use pinned memory and events instead, or `SyncDebug::Warn` to let it through"
    )]
    SyncDisallowed {
        /// The operation.
        op: &'static str,
        /// Why it blocks.
        reason: String,
        /// The caller's location.
        site: CallSite,
    },
    /// `elapsed_ms` on events that were not both recorded.
    #[error("`{op}` at {site}: {detail}")]
    Event {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        detail: String,
        /// The caller's location.
        site: CallSite,
    },
    /// A handle from one device was used with another.
    #[error(
        "`{op}` at {site} mixes handles of two different devices; use streams, events and buffers of the device they were made with"
    )]
    ForeignHandle {
        /// The operation.
        op: &'static str,
        /// The caller's location.
        site: CallSite,
    },
    /// Reading or writing a calibration file failed.
    #[error("calibration file `{path}`: {detail}")]
    Calibration {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },
}

impl GpuError {
    /// The same error, for an allocation by `op` at `site` on a device of
    /// `capacity` bytes: the virtual GPU's and the driver's out-of-memory
    /// become one [`GpuError::OutOfMemory`] naming the caller.
    pub(crate) fn in_allocation(
        self,
        op: &'static str,
        requested: u64,
        capacity: u64,
        site: CallSite,
    ) -> Self {
        match self {
            Self::OutOfMemory { .. } => Self::OutOfMemory {
                op,
                requested,
                capacity,
                site,
            },
            Self::Driver { message, .. } if message.contains("CUDA_ERROR_OUT_OF_MEMORY") => {
                Self::OutOfMemory {
                    op,
                    requested,
                    capacity,
                    site,
                }
            }
            other => other,
        }
    }
}

/// Read back as `Wire`, whose names are owned, then interned: a derived
/// `Deserialize` would borrow the `&'static str` fields from the input.
impl<'de> Deserialize<'de> for GpuError {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Wire::deserialize(d).map(GpuError::from)
    }
}

/// [`GpuError`] with owned names: the same variants and fields, in the same
/// order (the test below round-trips every one).
#[derive(Deserialize)]
enum Wire {
    NoCudaDevice {
        reason: String,
    },
    BadBackendVariable {
        value: String,
    },
    Driver {
        call: String,
        message: String,
    },
    Compile {
        log: String,
    },
    Length {
        op: String,
        detail: String,
        site: CallSite,
    },
    InvalidView {
        op: String,
        addr: u64,
        bytes: u64,
        site: CallSite,
    },
    OutOfMemory {
        op: String,
        requested: u64,
        capacity: u64,
        site: CallSite,
    },
    IllegalInCapture {
        op: String,
        stream: u32,
        why: String,
        site: CallSite,
    },
    CaptureInvalidated {
        stream: u32,
        op: String,
        site: CallSite,
    },
    CaptureUnjoined {
        stream: u32,
        joined: u32,
        joined_at: CallSite,
        site: CallSite,
    },
    CaptureState {
        op: String,
        detail: String,
        site: CallSite,
    },
    SyncDisallowed {
        op: String,
        reason: String,
        site: CallSite,
    },
    Event {
        op: String,
        detail: String,
        site: CallSite,
    },
    ForeignHandle {
        op: String,
        site: CallSite,
    },
    Calibration {
        path: String,
        detail: String,
    },
}

impl From<Wire> for GpuError {
    fn from(wire: Wire) -> Self {
        use crate::trace::intern;
        match wire {
            Wire::NoCudaDevice { reason } => Self::NoCudaDevice { reason },
            Wire::BadBackendVariable { value } => Self::BadBackendVariable { value },
            Wire::Driver { call, message } => Self::Driver {
                call: intern(call),
                message,
            },
            Wire::Compile { log } => Self::Compile { log },
            Wire::Length { op, detail, site } => Self::Length {
                op: intern(op),
                detail,
                site,
            },
            Wire::InvalidView {
                op,
                addr,
                bytes,
                site,
            } => Self::InvalidView {
                op: intern(op),
                addr,
                bytes,
                site,
            },
            Wire::OutOfMemory {
                op,
                requested,
                capacity,
                site,
            } => Self::OutOfMemory {
                op: intern(op),
                requested,
                capacity,
                site,
            },
            Wire::IllegalInCapture {
                op,
                stream,
                why,
                site,
            } => Self::IllegalInCapture {
                op: intern(op),
                stream,
                why: intern(why),
                site,
            },
            Wire::CaptureInvalidated { stream, op, site } => Self::CaptureInvalidated {
                stream,
                op: intern(op),
                site,
            },
            Wire::CaptureUnjoined {
                stream,
                joined,
                joined_at,
                site,
            } => Self::CaptureUnjoined {
                stream,
                joined,
                joined_at,
                site,
            },
            Wire::CaptureState { op, detail, site } => Self::CaptureState {
                op: intern(op),
                detail,
                site,
            },
            Wire::SyncDisallowed { op, reason, site } => Self::SyncDisallowed {
                op: intern(op),
                reason,
                site,
            },
            Wire::Event { op, detail, site } => Self::Event {
                op: intern(op),
                detail,
                site,
            },
            Wire::ForeignHandle { op, site } => Self::ForeignHandle {
                op: intern(op),
                site,
            },
            Wire::Calibration { path, detail } => Self::Calibration { path, detail },
        }
    }
}

/// The crate's result type.
pub type Result<T, E = GpuError> = std::result::Result<T, E>;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// One error of each kind, each field set.
    fn every_kind() -> Vec<GpuError> {
        let site = CallSite {
            file: "src/lib.rs",
            line: 7,
            column: 9,
        };
        let joined_at = CallSite { line: 3, ..site };
        vec![
            GpuError::NoCudaDevice { reason: "r".into() },
            GpuError::BadBackendVariable { value: "v".into() },
            GpuError::Driver {
                call: "cuInit",
                message: "m".into(),
            },
            GpuError::Compile { log: "l".into() },
            GpuError::Length {
                op: "copy",
                detail: "d".into(),
                site,
            },
            GpuError::InvalidView {
                op: "fill",
                addr: 4096,
                bytes: 64,
                site,
            },
            GpuError::OutOfMemory {
                op: "alloc_zeros",
                requested: 1,
                capacity: 2,
                site,
            },
            GpuError::IllegalInCapture {
                op: "synchronize",
                stream: 1,
                why: "w",
                site,
            },
            GpuError::CaptureInvalidated {
                stream: 1,
                op: "query",
                site,
            },
            GpuError::CaptureUnjoined {
                stream: 1,
                joined: 2,
                joined_at,
                site,
            },
            GpuError::CaptureState {
                op: "end_capture",
                detail: "d".into(),
                site,
            },
            GpuError::SyncDisallowed {
                op: "to_vec",
                reason: "r".into(),
                site,
            },
            GpuError::Event {
                op: "elapsed_ms",
                detail: "d".into(),
                site,
            },
            GpuError::ForeignHandle { op: "record", site },
            GpuError::Calibration {
                path: "p".into(),
                detail: "d".into(),
            },
        ]
    }

    #[test]
    fn every_error_crosses_a_process_unchanged() {
        for error in every_kind() {
            let bytes = postcard::to_stdvec(&error).unwrap();
            let back: GpuError = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back.to_string(), error.to_string());
            assert_eq!(format!("{back:?}"), format!("{error:?}"));
        }
    }
}
