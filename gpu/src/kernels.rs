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
/// | `Sum` | `sum_f32(const float* src, n, float* out, pad_ns)` | 1 × 256 |
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
    /// Waits `pad_ns`, then `out[0] = sum(src)`: 256 threads, thread `t` adds
    /// `src[t], src[t + 256], …` in order, then a tree over the 256 partial
    /// sums (stride 128, 64, …, 1: `p[t] += p[t + stride]`).
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

/// One memory range a launch reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub(crate) view: RawView,
    pub(crate) write: bool,
}

impl Kernel {
    /// The CUDA kernel's name, also the name in traces.
    pub(crate) fn name(&self) -> &'static str {
        CUDA_KERNELS[self.index()]
    }

    /// The CUDA kernel's position in [`CUDA_KERNELS`] (the CUDA backend
    /// keeps the loaded kernels in that order).
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

    /// What the launch reads and writes, reads first: at most four ranges
    /// ([`crate::race::Ranges::MAX`]), kept inline (`None` after the last).
    pub(crate) fn accesses(&self) -> [Option<Access>; 4] {
        let r = |view| Access { view, write: false };
        let w = |view| Access { view, write: true };
        match *self {
            Self::Spin { .. } => few([]),
            Self::Fill { dst, .. } => few([w(dst)]),
            Self::Sum { src, out, .. } => few([r(src), w(out.first())]),
            Self::ArgmaxRows { src, out, rows, .. } => few([r(src), w(out.prefix(rows))]),
            Self::FlagEq { src, flags, .. } => few([r(src), r(flags), w(flags)]),
            Self::CountEq { src, out, .. } => few([r(src), r(out.first()), w(out.first())]),
            Self::Affine { x, y, .. } => few([r(x), w(y)]),
            Self::DecodeStep {
                tokens_in,
                embedding,
                weight,
                tokens_out,
                batch,
                ..
            } => few([
                r(tokens_in.prefix(batch)),
                r(embedding),
                r(weight),
                w(tokens_out.prefix(batch)),
            ]),
        }
    }

    /// Bytes of device memory the kernel moves (for the virtual GPU's cost model).
    pub(crate) fn bytes_touched(&self) -> u64 {
        self.accesses()
            .iter()
            .flatten()
            .map(|a| a.view.bytes())
            .sum()
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

/// Up to four accesses, padded with `None`.
fn few<const N: usize>(accesses: [Access; N]) -> [Option<Access>; 4] {
    std::array::from_fn(|i| accesses.get(i).copied())
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
