//! Kernel arguments and launch geometry, one [`Kernel`] variant at a time.
//!
//! [`plan`] turns a kernel description into the exact argument list of its
//! CUDA signature (`unsigned long long` → `u64` for every pointer and size,
//! `int` → `i32`, `float` → `f32`, `unsigned` → `u32`) and its grid, as the
//! table in [`crate::kernels`] gives them. It is a pure function, so the
//! tests check it without a GPU. [`launch`] pushes the arguments and submits.

use super::drv;
use crate::elem::Scalar;
use crate::error::{GpuError, Result};
use crate::kernels::{Kernel, SumGrid};
use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig, PushKernelArg};

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

/// A launch ready to submit: the kernel's name, its arguments in signature
/// order, and a one-dimensional geometry.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// The `extern "C"` name (a key of the loaded kernels).
    pub(super) name: &'static str,
    /// The arguments, in the order of the CUDA signature.
    pub(super) args: Vec<Arg>,
    /// Blocks in the grid (never 0).
    pub(super) grid: u32,
    /// Threads per block.
    pub(super) block: u32,
}

/// The launch for `kernel` on a stream whose `sum_f32` scratch slot is at
/// `sum_slot`, or `None` when its grid would be empty (no elements, no rows,
/// an empty batch): CUDA rejects a grid of zero blocks, and there is nothing
/// to do.
pub(super) fn plan(kernel: &Kernel, sum_slot: u64) -> Result<Option<Plan>> {
    use Arg::U64;
    let name = kernel.name();
    let (args, grid, block) = match *kernel {
        Kernel::Spin { ns } => (vec![U64(ns)], 1, 1),
        Kernel::Fill { dst, value } => {
            let n = dst.len;
            let args = vec![U64(dst.addr), scalar(value), U64(n as u64)];
            (args, blocks(name, n)?, BLOCK)
        }
        Kernel::Sum { src, out, pad_ns } => {
            let grid = SumGrid::of(src.len);
            let args = vec![
                U64(src.addr),
                U64(src.len as u64),
                U64(out.addr),
                U64(pad_ns),
                U64(grid.chunk as u64),
                U64(sum_slot),
            ];
            (args, grid_x(name, grid.blocks as u64)?, BLOCK)
        }
        Kernel::ArgmaxRows {
            src,
            rows,
            cols,
            out,
        } => {
            let args = vec![
                U64(src.addr),
                U64(rows as u64),
                U64(cols as u64),
                U64(out.addr),
            ];
            (args, blocks(name, rows)?, BLOCK)
        }
        Kernel::FlagEq { src, value, flags } => {
            let n = src.len.min(flags.len);
            let args = vec![
                U64(src.addr),
                Arg::I32(value),
                U64(flags.addr),
                U64(n as u64),
            ];
            (args, blocks(name, n)?, BLOCK)
        }
        Kernel::CountEq { src, value, out } => {
            let n = src.len;
            let args = vec![U64(src.addr), Arg::I32(value), U64(out.addr), U64(n as u64)];
            (args, blocks(name, n)?, BLOCK)
        }
        Kernel::Affine { x, a, b, y } => {
            let n = x.len.min(y.len);
            let args = vec![
                U64(x.addr),
                Arg::F32(a),
                Arg::F32(b),
                U64(y.addr),
                U64(n as u64),
            ];
            (args, blocks(name, n)?, BLOCK)
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
            (args.map(U64).to_vec(), grid_x(name, batch as u64)?, BLOCK)
        }
    };
    Ok((grid > 0).then_some(Plan {
        name,
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

/// Submits `plan` on `stream`. Asynchronous: returns once the launch is queued.
pub(super) fn launch(stream: &CudaStream, function: &CudaFunction, plan: &Plan) -> Result<()> {
    // `plan.args` outlives the builder, so every pointer the builder keeps
    // to an argument stays valid until `launch` has copied them.
    let mut builder = stream.launch_builder(function);
    for arg in &plan.args {
        match arg {
            Arg::U64(v) => builder.arg(v),
            Arg::I32(v) => builder.arg(v),
            Arg::U32(v) => builder.arg(v),
            Arg::F32(v) => builder.arg(v),
        };
    }
    let config = LaunchConfig {
        grid_dim: (plan.grid, 1, 1),
        block_dim: (plan.block, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `plan` pushes exactly the parameters of the kernel's CUDA
    // signature, in order and with their C sizes (checked by the tests in
    // `cuda/tests.rs`); every pointer is a device address the front end has
    // checked against a live allocation, and every kernel bounds its indices
    // by the sizes passed with them.
    unsafe { builder.launch(config) }.map_err(drv("cuLaunchKernel"))?;
    Ok(())
}
