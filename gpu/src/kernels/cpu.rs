//! The CPU twins of the CUDA kernels in `source.cu`.
//!
//! The virtual GPU has no GPU: when a launch "runs" on it, the twin of the
//! kernel does the work on the CPU, against the virtual device's memory. A
//! twin computes bit for bit what the CUDA kernel computes, so a program
//! gives the same numbers on either backend:
//!
//! - floats are added in the order the CUDA code adds them (`sum_f32`'s
//!   chunks, lanes and trees, `decode_step`'s `k` order), never in a
//!   "nicer" order;
//! - `a * b + c` rounds twice, as the CUDA code does with `--fmad=false`
//!   (Rust never fuses a multiply and an add on its own);
//! - argmax ties and NaNs go where the CUDA comparisons send them.
//!
//! Time is not the twins' business: `spin` and `pad_ns` are the virtual GPU's
//! clock to model, so here they do nothing.

use super::{BLOCK, Kernel, SumGrid};
use crate::elem::{RawView, Scalar};
use bytemuck::Pod;

/// Device memory as the twins see it: addresses are device addresses.
pub(crate) trait KernelMemory {
    /// The `bytes` bytes at device address `addr`.
    fn read(&self, addr: u64, bytes: usize) -> Vec<u8>;
    /// Writes `data` at device address `addr`.
    fn write(&mut self, addr: u64, data: &[u8]);
    /// Calls `f` with the `bytes` bytes at device address `addr`: what
    /// [`KernelMemory::read`] returns, without a copy where the memory can
    /// lend them (the virtual GPU's does).
    fn with_bytes(&self, addr: u64, bytes: usize, f: &mut dyn FnMut(&[u8])) {
        f(&self.read(addr, bytes));
    }
}

/// Runs `kernel` on `mem`, computing bit for bit what the CUDA code computes.
pub(crate) fn run(kernel: &Kernel, mem: &mut dyn KernelMemory) {
    match *kernel {
        Kernel::Spin { .. } => {}
        Kernel::Fill { dst, value } => fill(mem, dst, value),
        Kernel::Sum { src, out, .. } => sum(mem, src, out),
        Kernel::ArgmaxRows {
            src,
            rows,
            cols,
            out,
        } => argmax_rows(mem, src, rows, cols, out),
        Kernel::FlagEq { src, value, flags } => flag_eq(mem, src, value, flags),
        Kernel::CountEq { src, value, out } => count_eq(mem, src, value, out),
        Kernel::Affine { x, a, b, y } => affine(mem, x, a, b, y),
        Kernel::DecodeStep {
            tokens_in,
            embedding,
            weight,
            tokens_out,
            batch,
            hidden,
            vocab,
            ..
        } => {
            let model = Model {
                embedding,
                weight: read(mem, weight.addr, hidden * vocab),
                hidden,
                vocab,
            };
            decode_step(mem, &model, tokens_in, tokens_out, batch);
        }
    }
}

/// Reads `len` elements of type `T` at device address `addr`.
fn read<T: Pod>(mem: &dyn KernelMemory, addr: u64, len: usize) -> Vec<T> {
    let bytes = mem.read(addr, len * size_of::<T>());
    bytes
        .chunks_exact(size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// Writes `data` at device address `addr`.
fn write<T: Pod>(mem: &mut dyn KernelMemory, addr: u64, data: &[T]) {
    mem.write(addr, bytemuck::cast_slice(data));
}

/// `fill_{f32,i32,u32}`: every element of `dst` gets `value`'s bits.
fn fill(mem: &mut dyn KernelMemory, dst: RawView, value: Scalar) {
    write(mem, dst.addr, &vec![value.bits(); dst.len]);
}

/// `sum_f32`, in the order of [`SumGrid`]: each chunk of the source reduced
/// by [`block_sum`] to a partial sum, then the partial sums, in block order,
/// reduced the same way.
fn sum(mem: &mut dyn KernelMemory, src: RawView, out: RawView) {
    let grid = SumGrid::of(src.len);
    let mut partials = Vec::with_capacity(grid.blocks);
    mem.with_bytes(src.addr, src.len * size_of::<f32>(), &mut |bytes| {
        // In place when the bytes are aligned for `f32` (the virtual GPU's
        // always are), else through a copy.
        let copied: Vec<f32>;
        let values = match bytemuck::try_cast_slice::<u8, f32>(bytes) {
            Ok(values) => values,
            Err(_) => {
                copied = bytemuck::pod_collect_to_vec(bytes);
                &copied
            }
        };
        partials.extend(values.chunks(grid.chunk).map(block_sum));
    });
    // An empty source has no chunk, but the grid still has its one block,
    // whose partial sum is 0.0.
    partials.resize(grid.blocks, 0.0);
    write(mem, out.addr, &[block_sum(&partials)]);
}

/// What one block of `sum_f32` makes of `chunk`: [`BLOCK`] lanes, lane `t`
/// adding elements `t, t + 256, …` in order from `0.0`, then a tree over the
/// lanes (stride 128, 64, …, 1).
fn block_sum(chunk: &[f32]) -> f32 {
    let mut lanes = [0.0f32; BLOCK];
    // Element `i` goes to lane `i % BLOCK`, in order: one row of 256
    // elements at a time, lane by lane.
    for row in chunk.chunks(BLOCK) {
        for (lane, &x) in lanes.iter_mut().zip(row) {
            *lane += x;
        }
    }
    let mut stride = BLOCK / 2;
    while stride > 0 {
        for t in 0..stride {
            lanes[t] += lanes[t + stride];
        }
        stride /= 2;
    }
    lanes[0]
}

/// `argmax_rows_f32`: `out[r]` is the argmax of row `r` (see [`argmax_row`]).
fn argmax_rows(mem: &mut dyn KernelMemory, src: RawView, rows: usize, cols: usize, out: RawView) {
    let values: Vec<f32> = read(mem, src.addr, rows * cols);
    let result: Vec<i32> = if cols == 0 {
        vec![-1; rows]
    } else {
        values.chunks_exact(cols).map(argmax_row).collect()
    };
    write(mem, out.addr, &result);
}

/// `count_eq_i32`: `out[0] += #{i : src[i] == value}`, wrapping like the
/// CUDA `atomicAdd` on an `int`.
fn count_eq(mem: &mut dyn KernelMemory, src: RawView, value: i32, out: RawView) {
    let src: Vec<i32> = read(mem, src.addr, src.len);
    let matches = src.iter().filter(|&&s| s == value).count() as i32;
    let before: Vec<i32> = read(mem, out.addr, 1);
    write(mem, out.addr, &[before[0].wrapping_add(matches)]);
}

/// The CUDA scan of one non-empty row: the best starts as `row[0]` and a
/// later `x` replaces it only if `x > best`. Ties keep the lowest index, a
/// NaN after index 0 never wins, and a NaN at index 0 is never beaten.
fn argmax_row(row: &[f32]) -> i32 {
    let mut best = row[0];
    let mut best_j = 0;
    for (j, &x) in row.iter().enumerate().skip(1) {
        if x > best {
            best = x;
            best_j = j;
        }
    }
    best_j as i32
}

/// `flag_eq_i32`: `flags[i] |= (src[i] == value) as i32`.
fn flag_eq(mem: &mut dyn KernelMemory, src: RawView, value: i32, flags: RawView) {
    let mut out: Vec<i32> = read(mem, flags.addr, src.len);
    let src: Vec<i32> = read(mem, src.addr, src.len);
    for (flag, &s) in out.iter_mut().zip(&src) {
        *flag |= i32::from(s == value);
    }
    write(mem, flags.addr, &out);
}

/// `affine_f32`: `y[i] = a * x[i] + b`, rounded after the product and after
/// the sum.
fn affine(mem: &mut dyn KernelMemory, x: RawView, a: f32, b: f32, y: RawView) {
    let x: Vec<f32> = read(mem, x.addr, x.len);
    let out: Vec<f32> = x.iter().map(|&v| a * v + b).collect();
    write(mem, y.addr, &out);
}

/// `decode_step`: `tokens_out[r]` is the model's next token after
/// `tokens_in[r]`, for every row `r < batch`.
fn decode_step(
    mem: &mut dyn KernelMemory,
    model: &Model,
    tokens_in: RawView,
    tokens_out: RawView,
    batch: usize,
) {
    let tokens: Vec<i32> = read(mem, tokens_in.addr, batch);
    let next: Vec<i32> = tokens
        .iter()
        .map(|&tok| model.next_token(mem, tok))
        .collect();
    write(mem, tokens_out.addr, &next);
}

/// What `decode_step` reads besides the tokens.
struct Model {
    /// The `vocab × hidden` embedding table, row-major, left in device memory
    /// (a step reads only the rows of its tokens).
    embedding: RawView,
    /// The `hidden × vocab` projection, row-major: `weight[k * vocab + v]`.
    weight: Vec<f32>,
    /// Width of an embedding row.
    hidden: usize,
    /// Number of tokens.
    vocab: usize,
}

impl Model {
    /// The token after `tok`: the argmax of its logits, or `-1` when `tok`
    /// lies outside `0..vocab`.
    fn next_token(&self, mem: &dyn KernelMemory, tok: i32) -> i32 {
        let Some(tok) = usize::try_from(tok).ok().filter(|&t| t < self.vocab) else {
            return -1;
        };
        let offset = (tok * self.hidden * size_of::<f32>()) as u64;
        let h: Vec<f32> = read(mem, self.embedding.addr + offset, self.hidden);
        let mut best: Option<(f32, usize)> = None;
        for v in 0..self.vocab {
            let logit = self.logit(&h, v);
            if best.is_none_or(|(value, _)| beats(logit, value)) {
                best = Some((logit, v));
            }
        }
        best.map_or(-1, |(_, v)| v as i32)
    }

    /// Logit `v` of embedding row `h`: `0.0`, then `+ h[k] * weight[k][v]`
    /// for `k` in order, each product and each sum rounded.
    fn logit(&self, h: &[f32], v: usize) -> f32 {
        h.iter().enumerate().fold(0.0, |logit, (k, &hk)| {
            logit + hk * self.weight[k * self.vocab + v]
        })
    }
}

/// True when a logit at a higher index than `best`'s beats it: only a larger
/// number, or any number over NaN. This is the CUDA kernel's total order
/// (numbers over NaN, larger first, lower index first) seen from a scan in
/// index order, so the scan finds the same winner as the CUDA tree: the
/// lowest index of the largest non-NaN logit, or 0 when all are NaN.
fn beats(logit: f32, best: f32) -> bool {
    logit > best || (best.is_nan() && !logit.is_nan())
}

#[cfg(test)]
mod tests;
