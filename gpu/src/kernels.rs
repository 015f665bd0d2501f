//! The kernel library: what each kernel does, reads and writes.
//!
//! Each kernel exists twice: as CUDA C (`kernels/source.cu`, compiled once
//! per process by NVRTC on the CUDA backend) and as a CPU twin
//! (`kernels/cpu.rs`, run by the virtual GPU). The twins compute bit for bit
//! what the CUDA code computes: reductions follow the same order, and the CUDA
//! code is compiled with `--fmad=false` so that `a * b + c` rounds twice on
//! both sides. The tests in `tests/` compare them on a real GPU.
//!
//! A launch declares the memory it reads and writes ([`Kernel::accesses`]),
//! which is what the race checker follows.

pub(crate) mod cpu;

use crate::elem::{ElemKind, RawView, Scalar};
use crate::race::{Range, Ranges};

/// The CUDA C source of the kernel library.
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
pub(crate) const CUDA_SOURCE: &str = include_str!("kernels/source.cu");

/// Names of every `extern "C"` kernel of the CUDA source, also their names
/// in traces: [`Kernel::index`] is a position in this list.
pub(crate) const CUDA_KERNELS: [&str; 10] = [
    "spin",
    "fill_f32",
    "fill_i32",
    "fill_u32",
    "sum_f32",
    "argmax_rows_f32",
    "flag_eq_i32",
    "count_eq_i32",
    "affine_f32",
    "decode_step",
];

/// One kernel launch with its arguments.
///
/// The CUDA signatures (all sizes are `unsigned long long`, all pointers are
/// device addresses):
///
/// | variant | CUDA kernel | grid × block |
/// |---|---|---|
/// | `Spin` | `spin(ns)` | 1 × 1 |
/// | `Fill` | `fill_{f32,i32,u32}(T* dst, T value, n)` | ceil(n/256) × 256 |
/// | `Sum` | `sum_f32(const float* src, n, float* out, pad_ns, chunk, scratch)` | [`SumGrid::of`]`(n).blocks` × 256 |
/// | `ArgmaxRows` | `argmax_rows_f32(const float* src, rows, cols, int* out)` | ceil(rows/256) × 256 |
/// | `FlagEq` | `flag_eq_i32(const int* src, int value, int* flags, n)` | ceil(n/256) × 256 |
/// | `CountEq` | `count_eq_i32(const int* src, int value, int* out, n)` | ceil(n/256) × 256 |
/// | `Affine` | `affine_f32(const float* x, float a, float b, float* y, n)` | ceil(n/256) × 256 |
/// | `DecodeStep` | `decode_step(const int* tokens_in, const float* embedding, const float* weight, int* tokens_out, batch, hidden, vocab, pad_ns)` | batch × 256 |
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// Busy-waits `ns` nanoseconds on `%globaltimer`. Touches no memory.
    Spin { ns: u64 },
    /// `dst[i] = value` for every element.
    Fill { dst: RawView, value: Scalar },
    /// Waits `pad_ns`, then `out[0] = sum(src)` in the fixed order of
    /// [`SumGrid`]: block `b` reduces chunk `b` of the source to a partial
    /// sum, and the last block to finish reduces the partial sums the same
    /// way, in block order.
    Sum {
        src: RawView,
        out: RawView,
        pad_ns: u64,
    },
    /// `out[r] = argmax(src[r * cols .. (r + 1) * cols])`: a scan from element
    /// 0 that moves only to a strictly greater element, so the lowest index
    /// wins ties and a NaN wins only at index 0; `cols == 0` gives `-1`.
    ArgmaxRows {
        src: RawView,
        rows: usize,
        cols: usize,
        out: RawView,
    },
    /// `flags[i] |= (src[i] == value) as i32`: sticky done flags.
    FlagEq {
        src: RawView,
        value: i32,
        flags: RawView,
    },
    /// `out[0] += count of i with src[i] == value`: a counter that stays on
    /// the GPU (integer additions, so any order gives the same result).
    CountEq {
        src: RawView,
        value: i32,
        out: RawView,
    },
    /// `y[i] = a * x[i] + b`, rounded after the product and after the sum.
    Affine {
        x: RawView,
        a: f32,
        b: f32,
        y: RawView,
    },
    /// Waits `pad_ns`, then for each row `r < batch`: `h = embedding[tokens_in[r]]`
    /// (a row of `hidden`), `logits[v] = sum_k h[k] * weight[k * vocab + v]`
    /// (added in `k` order), `tokens_out[r] = argmax(logits)` (lowest index on
    /// ties; a number beats NaN). A token outside `0..vocab` gives `-1`.
    DecodeStep {
        tokens_in: RawView,
        embedding: RawView,
        weight: RawView,
        tokens_out: RawView,
        batch: usize,
        hidden: usize,
        vocab: usize,
        pad_ns: u64,
    },
}

/// Threads per block of `sum_f32` (and of every kernel but `spin`): the
/// width of its reductions.
pub(crate) const BLOCK: usize = 256;

/// The geometry of `sum_f32`, which fixes its order of additions: the CUDA
/// launch and the CPU twin both follow it.
///
/// The source is cut into `blocks` contiguous chunks of `chunk` elements
/// (the last one shorter, or empty when the source is). Block `b` reduces
/// chunk `b` with [`BLOCK`] lanes: lane `t` adds `chunk[t]`,
/// `chunk[t + 256]`, … in order to a float that starts at `0.0`, then a tree
/// over the lanes (stride 128, 64, …, 1: `p[t] += p[t + stride]`) leaves the
/// partial sum in lane 0. The partial sums, in block order, are then reduced
/// exactly like a chunk: that is `out[0]`.
///
/// A chunk is a whole number of tiles of [`SumGrid::TILE`] elements (16 per
/// thread), and there are at most [`SumGrid::MAX_BLOCKS`] blocks: up to
/// 4 Mi elements each block takes one tile, beyond that each takes more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SumGrid {
    /// Blocks in the grid, from 1 to [`SumGrid::MAX_BLOCKS`].
    pub(crate) blocks: usize,
    /// Elements per block, a multiple of [`SumGrid::TILE`].
    pub(crate) chunk: usize,
}

impl SumGrid {
    /// Elements of one tile: 16 per thread of a block.
    pub(crate) const TILE: usize = 16 * BLOCK;
    /// The most blocks: as many partial sums as the scratch of a stream
    /// holds, and fewer than an H200's 132 SMs, so that a model step
    /// (`sum_after`, whose every block waits out the step's time) holds at
    /// most one block of 256 threads per SM and leaves room for the kernels
    /// of other streams, such as the memset of a buffer a copy stream
    /// allocates. With 1024 blocks waiting, exercise 106's copies waited for
    /// every step on the H200 (2026-12-01).
    pub(crate) const MAX_BLOCKS: usize = 128;

    /// The geometry for `n` elements (`n == 0` gives one block and an empty
    /// chunk: the sum of nothing is `+0.0`).
    pub(crate) fn of(n: usize) -> Self {
        let tiles = n.div_ceil(Self::TILE).max(1);
        let tiles_per_block = tiles.div_ceil(Self::MAX_BLOCKS);
        Self {
            blocks: tiles.div_ceil(tiles_per_block),
            chunk: tiles_per_block * Self::TILE,
        }
    }
}

impl Kernel {
    /// The CUDA kernel's name, also the name in traces.
    #[inline]
    pub(crate) fn name(&self) -> &'static str {
        CUDA_KERNELS[self.index()]
    }

    /// The CUDA kernel's position in [`CUDA_KERNELS`] (the CUDA backend
    /// keeps the loaded kernels in that order).
    #[inline]
    pub(crate) fn index(&self) -> usize {
        match self {
            Self::Spin { .. } => 0,
            Self::Fill { dst, .. } => match dst.elem {
                ElemKind::F32 => 1,
                ElemKind::I32 => 2,
                ElemKind::U32 => 3,
            },
            Self::Sum { .. } => 4,
            Self::ArgmaxRows { .. } => 5,
            Self::FlagEq { .. } => 6,
            Self::CountEq { .. } => 7,
            Self::Affine { .. } => 8,
            Self::DecodeStep { .. } => 9,
        }
    }

    /// What the launch reads and writes, reads first: at most four byte
    /// ranges ([`Ranges::MAX`]), kept inline, built straight from the views.
    #[inline]
    pub(crate) fn accesses(&self) -> Ranges {
        let r = |view: RawView| Range {
            addr: view.addr,
            bytes: view.bytes(),
            write: false,
        };
        let w = |view: RawView| Range {
            write: true,
            ..r(view)
        };
        match *self {
            Self::Spin { .. } => Ranges::default(),
            Self::Fill { dst, .. } => Ranges::from([w(dst)]),
            Self::Sum { src, out, .. } => Ranges::from([r(src), w(out.first())]),
            Self::ArgmaxRows { src, out, rows, .. } => Ranges::from([r(src), w(out.prefix(rows))]),
            Self::FlagEq { src, flags, .. } => Ranges::from([r(src), r(flags), w(flags)]),
            Self::CountEq { src, out, .. } => {
                Ranges::from([r(src), r(out.first()), w(out.first())])
            }
            Self::Affine { x, y, .. } => Ranges::from([r(x), w(y)]),
            Self::DecodeStep {
                tokens_in,
                embedding,
                weight,
                tokens_out,
                batch,
                ..
            } => Ranges::from([
                r(tokens_in.prefix(batch)),
                r(embedding),
                r(weight),
                w(tokens_out.prefix(batch)),
            ]),
        }
    }

    /// Bytes of device memory the kernel moves (for the virtual GPU's cost model).
    pub(crate) fn bytes_touched(&self) -> u64 {
        self.accesses().iter().map(|r| r.bytes).sum()
    }

    /// Time the kernel spends waiting on purpose (`spin`, `pad_ns`).
    pub(crate) fn pad_ns(&self) -> u64 {
        match *self {
            Self::Spin { ns } => ns,
            Self::Sum { pad_ns, .. } | Self::DecodeStep { pad_ns, .. } => pad_ns,
            _ => 0,
        }
    }

    /// Multiply-adds the kernel performs (for the cost model).
    pub(crate) fn flops(&self) -> u64 {
        match *self {
            Self::DecodeStep {
                batch,
                hidden,
                vocab,
                ..
            } => 2 * (batch * hidden * vocab) as u64,
            _ => 0,
        }
    }
}

impl RawView {
    fn first(self) -> Self {
        self.prefix(1)
    }

    fn prefix(self, len: usize) -> Self {
        Self {
            len: len.min(self.len),
            ..self
        }
    }
}
