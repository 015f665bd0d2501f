//! Kernel arguments and launch geometry, one [`Kernel`] variant at a time.
//!
//! [`plan`] turns a kernel description into the exact argument list of its
//! CUDA signature (`unsigned long long` → `u64` for every pointer and size,
//! `int` → `i32`, `float` → `f32`, `unsigned` → `u32`) and its grid, as the
//! table in [`crate::kernels`] gives them. It is a pure function, so the
//! tests check it without a GPU. [`launch`] submits it with one
//! `cuLaunchKernel`, the arguments on the stack: a launch allocates nothing,
//! and the context is not bound again for each (the backend binds it once,
//! at open, on the device's one thread).

use super::drv;
use crate::elem::Scalar;
use crate::error::{GpuError, Result};
use crate::kernels::{Kernel, SumGrid};
use cudarc::driver::sys::{CUfunction, CUresult, CUstream};
use cudarc::driver::{CudaContext, DriverError, result};
use std::ffi::c_void;

/// Threads per block of every kernel except `spin`.
pub(super) const BLOCK: u32 = crate::kernels::BLOCK as u32;

/// The largest grid x-dimension CUDA accepts.
const MAX_GRID_X: u64 = (1 << 31) - 1;

/// One kernel argument, with the C type of its parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Arg {
    /// `unsigned long long`: device pointers, sizes, nanoseconds.
    U64(u64),
    /// `int`.
    I32(i32),
    /// `unsigned int`.
    U32(u32),
    /// `float`.
    F32(f32),
}

impl Arg {
    /// A pointer to the argument's value, as `cuLaunchKernel` takes it.
    fn as_param(&mut self) -> *mut c_void {
        match self {
            Self::U64(v) => (v as *mut u64).cast(),
            Self::I32(v) => (v as *mut i32).cast(),
            Self::U32(v) => (v as *mut u32).cast(),
            Self::F32(v) => (v as *mut f32).cast(),
        }
    }
}

/// The arguments of a launch, in signature order, kept inline: no kernel
/// of the library takes more than [`Args::MAX`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Args {
    len: usize,
    items: [Arg; Args::MAX],
}

impl Args {
    /// The most arguments a kernel of the library takes (`decode_step`'s).
    const MAX: usize = 8;

    /// `args`, in order.
    ///
    /// # Panics
    /// With more than [`Args::MAX`] of them.
    pub(super) fn from_slice(args: &[Arg]) -> Self {
        assert!(
            args.len() <= Self::MAX,
            "a kernel takes at most 8 arguments"
        );
        let mut items = [Arg::U64(0); Self::MAX];
        items[..args.len()].copy_from_slice(args);
        Self {
            len: args.len(),
            items,
        }
    }

    /// The arguments, in order.
    pub(super) fn as_slice(&self) -> &[Arg] {
        &self.items[..self.len]
    }
}

impl PartialEq for Args {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<const N: usize> From<[Arg; N]> for Args {
    fn from(args: [Arg; N]) -> Self {
        Self::from_slice(&args)
    }
}

/// A launch ready to submit: the kernel's name and index, its arguments in
/// signature order, and a one-dimensional geometry.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// The `extern "C"` name.
    pub(super) name: &'static str,
    /// Its position among the loaded kernels ([`Kernel::index`]).
    pub(super) index: usize,
    /// The arguments, in the order of the CUDA signature.
    pub(super) args: Args,
    /// Blocks in the grid (never 0).
    pub(super) grid: u32,
    /// Threads per block.
    pub(super) block: u32,
}

/// The launch for `kernel` on a stream whose `sum_f32` scratch slot is at
/// `sum_slot`, or `None` when its grid would be empty (no elements, no rows,
/// an empty batch): CUDA rejects a grid of zero blocks, and there is nothing
/// to do.
#[inline]
pub(super) fn plan(kernel: &Kernel, sum_slot: u64) -> Result<Option<Plan>> {
    use Arg::U64;
    let name = kernel.name();
    let (args, grid, block): (Args, _, _) = match *kernel {
        Kernel::Spin { ns } => ([U64(ns)].into(), 1, 1),
        Kernel::Fill { dst, value } => {
            let n = dst.len;
            let args = [U64(dst.addr), scalar(value), U64(n as u64)];
            (args.into(), blocks(name, n)?, BLOCK)
        }
        Kernel::Sum { src, out, pad_ns } => {
            let grid = SumGrid::of(src.len);
            let args = [
                U64(src.addr),
                U64(src.len as u64),
                U64(out.addr),
                U64(pad_ns),
                U64(grid.chunk as u64),
                U64(sum_slot),
            ];
            (args.into(), grid_x(name, grid.blocks as u64)?, BLOCK)
        }
        Kernel::ArgmaxRows {
            src,
            rows,
            cols,
            out,
        } => {
            let args = [
                U64(src.addr),
                U64(rows as u64),
                U64(cols as u64),
                U64(out.addr),
            ];
            (args.into(), blocks(name, rows)?, BLOCK)
        }
        Kernel::FlagEq { src, value, flags } => {
            let n = src.len.min(flags.len);
            let args = [
                U64(src.addr),
                Arg::I32(value),
                U64(flags.addr),
                U64(n as u64),
            ];
            (args.into(), blocks(name, n)?, BLOCK)
        }
        Kernel::CountEq { src, value, out } => {
            let n = src.len;
            let args = [U64(src.addr), Arg::I32(value), U64(out.addr), U64(n as u64)];
            (args.into(), blocks(name, n)?, BLOCK)
        }
        Kernel::Affine { x, a, b, y } => {
            let n = x.len.min(y.len);
            let args = [
                U64(x.addr),
                Arg::F32(a),
                Arg::F32(b),
                U64(y.addr),
                U64(n as u64),
            ];
            (args.into(), blocks(name, n)?, BLOCK)
        }
        Kernel::DecodeStep {
            tokens_in,
            embedding,
            weight,
            tokens_out,
            batch,
            hidden,
            vocab,
            pad_ns,
        } => {
            let args = [
                tokens_in.addr,
                embedding.addr,
                weight.addr,
                tokens_out.addr,
                batch as u64,
                hidden as u64,
                vocab as u64,
                pad_ns,
            ];
            (args.map(U64).into(), grid_x(name, batch as u64)?, BLOCK)
        }
    };
    Ok((grid > 0).then_some(Plan {
        name,
        index: kernel.index(),
        args,
        grid,
        block,
    }))
}

/// The argument for a fill value, typed like the buffer it fills.
fn scalar(value: Scalar) -> Arg {
    match value {
        Scalar::F32(v) => Arg::F32(v),
        Scalar::I32(v) => Arg::I32(v),
        Scalar::U32(v) => Arg::U32(v),
    }
}

/// `ceil(n / 256)` blocks: one thread per element.
fn blocks(name: &str, n: usize) -> Result<u32> {
    grid_x(name, (n as u64).div_ceil(u64::from(BLOCK)))
}

/// A grid size, checked against CUDA's limit.
fn grid_x(name: &str, blocks: u64) -> Result<u32> {
    if blocks > MAX_GRID_X {
        return Err(GpuError::Driver {
            call: "cuLaunchKernel",
            message: format!("`{name}` would need {blocks} blocks, more than CUDA's {MAX_GRID_X}"),
        });
    }
    Ok(blocks as u32)
}

/// Submits `plan` on `stream` (a stream of `ctx`, whose kernel `function`
/// is). Asynchronous: returns once the launch is queued.
///
/// The context is not bound first: the backend binds it at open on the
/// device's one thread, and nothing in the crate binds another. Should the
/// driver find no context current all the same, the launch binds it and
/// tries once more. An error that a drop parked in the context is not
/// looked for here (cudarc's own launches do, with an atomic swap on every
/// launch) but at the next wait for a stream or an event, and at every call
/// of cudarc that binds the context.
pub(super) fn launch(
    ctx: &CudaContext,
    stream: CUstream,
    function: CUfunction,
    plan: &mut Plan,
) -> Result<()> {
    match submit(stream, function, plan) {
        Err(DriverError(CUresult::CUDA_ERROR_INVALID_CONTEXT)) => {
            ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
            submit(stream, function, plan)
        }
        submitted => submitted,
    }
    .map_err(drv("cuLaunchKernel"))
}

/// One `cuLaunchKernel` of `plan`, its arguments pointed to where the plan
/// keeps them (mutably borrowed, as the driver's `void**` asks; not copied).
fn submit(
    stream: CUstream,
    function: CUfunction,
    plan: &mut Plan,
) -> std::result::Result<(), DriverError> {
    let (grid, block) = (plan.grid, plan.block);
    let args = &mut plan.args;
    let len = args.len;
    let mut params = [std::ptr::null_mut::<c_void>(); Args::MAX];
    for (param, arg) in params.iter_mut().zip(&mut args.items[..len]) {
        *param = arg.as_param();
    }
    // SAFETY: `params` holds one pointer per parameter of the kernel's CUDA
    // signature, in order, each to a value of its C size in `args` (checked
    // by the tests in `cuda/tests.rs`), alive until the call returns (the
    // driver copies the arguments at launch); `function` and `stream` belong
    // to the context, current on this thread (or the call fails with
    // `CUDA_ERROR_INVALID_CONTEXT` and launches nothing); every pointer
    // argument is a device address the front end has checked against a live
    // allocation, and every kernel bounds its indices by the sizes passed
    // with them.
    unsafe {
        result::launch_kernel(
            function,
            (grid, 1, 1),
            (block, 1, 1),
            0,
            stream,
            &mut params[..len],
        )
    }
}
