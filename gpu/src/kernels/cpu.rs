//! The CPU twins of the CUDA kernels in `source.cu`.
//!
//! The virtual GPU has no GPU: when a launch "runs" on it, the twin of the
//! kernel does the work on the CPU, against the virtual device's memory. A
//! twin computes bit for bit what the CUDA kernel computes, so a program
//! gives the same numbers on either backend:
//!
//! - floats are added in the order the CUDA code adds them (`sum_f32`'s 256
//!   lanes and tree, `decode_step`'s `k` order), never in a "nicer" order;
//! - `a * b + c` rounds twice, as the CUDA code does with `--fmad=false`
//!   (Rust never fuses a multiply and an add on its own);
//! - argmax ties and NaNs go where the CUDA comparisons send them.
//!
//! Time is not the twins' business: `spin` and `pad_ns` are the virtual GPU's
//! clock to model, so here they do nothing.

use super::Kernel;
use crate::elem::{RawView, Scalar};
use bytemuck::Pod;

/// Device memory as the twins see it: addresses are device addresses.
pub(crate) trait KernelMemory {
    /// The `bytes` bytes at device address `addr`.
    fn read(&self, addr: u64, bytes: usize) -> Vec<u8>;
    /// Writes `data` at device address `addr`.
    fn write(&mut self, addr: u64, data: &[u8]);
}

/// Threads per block in `sum_f32` and `decode_step`: the width of their
/// reductions.
const BLOCK: usize = 256;

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

/// `sum_f32`: 256 lanes, lane `t` adding `src[t], src[t + 256], …` in order
/// from `0.0`, then a tree over the lanes (stride 128, 64, …, 1).
fn sum(mem: &mut dyn KernelMemory, src: RawView, out: RawView) {
    let values: Vec<f32> = read(mem, src.addr, src.len);
    let mut lanes = [0.0f32; BLOCK];
    for (i, &x) in values.iter().enumerate() {
        lanes[i % BLOCK] += x;
    }
    let mut stride = BLOCK / 2;
    while stride > 0 {
        for t in 0..stride {
            lanes[t] += lanes[t + stride];
        }
        stride /= 2;
    }
    write(mem, out.addr, &lanes[..1]);
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
mod tests {
    use super::*;
    use crate::elem::{Elem, ElemKind};

    /// Device address of the first byte of [`Mem`].
    const BASE: u64 = 0x1_0000;

    /// Flat test memory from [`BASE`], allocated by bumping; unwritten bytes
    /// hold `0xAB` so that stray writes and reads show.
    #[derive(Default)]
    struct Mem {
        bytes: Vec<u8>,
    }

    impl KernelMemory for Mem {
        fn read(&self, addr: u64, bytes: usize) -> Vec<u8> {
            let start = (addr - BASE) as usize;
            self.bytes[start..start + bytes].to_vec()
        }

        fn write(&mut self, addr: u64, data: &[u8]) {
            let start = (addr - BASE) as usize;
            self.bytes[start..start + data.len()].copy_from_slice(data);
        }
    }

    impl Mem {
        /// A new view holding `data`.
        fn put<T: Elem>(&mut self, data: &[T]) -> RawView {
            let addr = BASE + self.bytes.len() as u64;
            self.bytes.extend_from_slice(bytemuck::cast_slice(data));
            RawView {
                addr,
                len: data.len(),
                elem: T::KIND,
            }
        }

        /// A new view of `len` elements of unwritten memory.
        fn alloc(&mut self, len: usize, elem: ElemKind) -> RawView {
            let addr = BASE + self.bytes.len() as u64;
            self.bytes
                .resize(self.bytes.len() + len * elem.size(), 0xAB);
            RawView { addr, len, elem }
        }

        /// The elements of `view`.
        fn get<T: Elem>(&self, view: RawView) -> Vec<T> {
            read(self, view.addr, view.len)
        }
    }

    /// Memory that fails the test on any access.
    struct Untouchable;

    impl KernelMemory for Untouchable {
        fn read(&self, _: u64, _: usize) -> Vec<u8> {
            panic!("read")
        }

        fn write(&mut self, _: u64, _: &[u8]) {
            panic!("write")
        }
    }

    /// The bits `0xAB` fill unwritten memory with.
    const UNWRITTEN: u32 = 0xABAB_ABAB;

    /// `view` without its last element.
    fn shorter(view: RawView) -> RawView {
        RawView {
            len: view.len - 1,
            ..view
        }
    }

    #[test]
    fn spin_touches_no_memory() {
        run(&Kernel::Spin { ns: 1_000_000 }, &mut Untouchable);
    }

    #[test]
    fn fill_writes_each_element_type_and_stops_at_the_end() {
        let mut mem = Mem::default();
        let f = mem.alloc(4, ElemKind::F32);
        let i = mem.alloc(4, ElemKind::I32);
        let u = mem.alloc(4, ElemKind::U32);
        let nan = f32::from_bits(0x7FC0_1234);
        let fills = [
            (f, Scalar::F32(nan)),
            (i, Scalar::I32(-7)),
            (u, Scalar::U32(0xDEAD_BEEF)),
        ];
        for (view, value) in fills {
            run(
                &Kernel::Fill {
                    dst: shorter(view),
                    value,
                },
                &mut mem,
            );
        }
        let f_bits: Vec<u32> = mem.get::<f32>(f).iter().map(|x| x.to_bits()).collect();
        assert_eq!(f_bits, [0x7FC0_1234, 0x7FC0_1234, 0x7FC0_1234, UNWRITTEN]);
        assert_eq!(mem.get::<i32>(i), [-7, -7, -7, UNWRITTEN as i32]);
        assert_eq!(
            mem.get::<u32>(u),
            [0xDEAD_BEEF, 0xDEAD_BEEF, 0xDEAD_BEEF, UNWRITTEN]
        );
    }

    /// Runs `sum_f32` on `values` and returns `out[0]`.
    fn sum_of(values: &[f32]) -> f32 {
        let mut mem = Mem::default();
        let src = mem.put(values);
        let out = mem.alloc(2, ElemKind::F32);
        run(
            &Kernel::Sum {
                src,
                out,
                pad_ns: 5,
            },
            &mut mem,
        );
        let result = mem.get::<f32>(out);
        assert_eq!(result[1].to_bits(), UNWRITTEN, "sum wrote past out[0]");
        result[0]
    }

    #[test]
    fn sum_follows_the_lanes_and_the_tree() {
        // 1e8 in lane 0, 1.0 in lanes 1..=255. From left to right every 1.0
        // is lost (f32 spacing at 1e8 is 8). In the tree, lane 0 meets
        // partial sums 1, 2, 4 (lost; 4 is a tie to even), then 8, 16, 32,
        // 64, 128 (kept): 1e8 + 248.
        let mut values = vec![1.0f32; 256];
        values[0] = 1e8;
        let left_to_right = values.iter().fold(0.0f32, |acc, &x| acc + x);
        assert_eq!(left_to_right, 1e8);
        assert_eq!(sum_of(&values), 100_000_248.0);
    }

    #[test]
    fn sum_adds_each_lane_in_index_order() {
        // Lane 0 holds 1, 1e8, -1e8: in order (1 + 1e8) - 1e8 = 0; the other
        // way round it would be 1.
        let mut values = vec![0.0f32; 513];
        values[0] = 1.0;
        values[256] = 1e8;
        values[512] = -1e8;
        assert_eq!(sum_of(&values), 0.0);
    }

    #[test]
    fn sum_of_nothing_or_negative_zeros_is_positive_zero() {
        assert_eq!(sum_of(&[]).to_bits(), 0.0f32.to_bits());
        assert_eq!(sum_of(&[-0.0; 300]).to_bits(), 0.0f32.to_bits());
        assert_eq!(sum_of(&[1.5, -4.0, 0.25]), -2.25);
    }

    /// Runs `argmax_rows_f32` on `rows × cols` values and returns `out`.
    fn argmax_of(values: &[f32], rows: usize, cols: usize) -> Vec<i32> {
        let mut mem = Mem::default();
        let src = mem.put(values);
        let out = mem.alloc(rows + 1, ElemKind::I32);
        run(
            &Kernel::ArgmaxRows {
                src,
                rows,
                cols,
                out,
            },
            &mut mem,
        );
        let mut result = mem.get::<i32>(out);
        assert_eq!(
            result.pop(),
            Some(UNWRITTEN as i32),
            "argmax wrote past row {rows}"
        );
        result
    }

    #[test]
    fn argmax_keeps_the_lowest_index_of_ties_and_skips_nan() {
        let nan = f32::NAN;
        #[rustfmt::skip]
        let values = [
            1.0, 3.0, 3.0, 2.0,
            nan, 5.0, 9.0, 1.0,
            1.0, nan, 2.0, nan,
            -0.0, 0.0, -1.0, -0.0,
            f32::NEG_INFINITY, f32::NEG_INFINITY, nan, f32::NEG_INFINITY,
        ];
        assert_eq!(argmax_of(&values, 5, 4), [1, 0, 2, 0, 0]);
    }

    #[test]
    fn argmax_of_empty_rows_is_minus_one() {
        assert_eq!(argmax_of(&[], 3, 0), [-1, -1, -1]);
        assert_eq!(argmax_of(&[], 0, 5), Vec::<i32>::new());
    }

    #[test]
    fn flag_eq_sets_flags_and_never_clears_them() {
        let mut mem = Mem::default();
        let src = mem.put(&[5, 5, 3, 3, 5]);
        let flags = mem.put(&[0, 1, 0, 1, 2]);
        run(
            &Kernel::FlagEq {
                src,
                value: 5,
                flags,
            },
            &mut mem,
        );
        assert_eq!(mem.get::<i32>(flags), [1, 1, 0, 1, 3]);
        run(
            &Kernel::FlagEq {
                src,
                value: 7,
                flags,
            },
            &mut mem,
        );
        assert_eq!(mem.get::<i32>(flags), [1, 1, 0, 1, 3]);
        run(
            &Kernel::FlagEq {
                src,
                value: 3,
                flags,
            },
            &mut mem,
        );
        assert_eq!(mem.get::<i32>(flags), [1, 1, 1, 1, 3]);
    }

    #[test]
    fn affine_rounds_the_product_before_the_sum() {
        // a * x = 1 + 2^-11 + 2^-24 exactly, which rounds (a tie, to even) to
        // 1 + 2^-11; adding b gives 0. A fused multiply-add gives 2^-24.
        let a = 1.0 + 2f32.powi(-12);
        let b = -(1.0 + 2f32.powi(-11));
        let x_values = [a, 2.0, -3.0];
        assert_eq!(a.mul_add(a, b), 2f32.powi(-24));
        let mut mem = Mem::default();
        let x = mem.put(&x_values);
        let y = mem.alloc(3, ElemKind::F32);
        run(&Kernel::Affine { x, a, b, y }, &mut mem);
        let expected = [0.0, 2.0 * a + b, -3.0 * a + b];
        assert_eq!(mem.get::<f32>(y), expected);
    }

    /// Runs `decode_step` on a `vocab × hidden` embedding and a
    /// `hidden × vocab` weight, returning `tokens_out`.
    fn decode(tokens: &[i32], embedding: &[f32], weight: &[f32], hidden: usize) -> Vec<i32> {
        let vocab = weight.len() / hidden;
        let mut mem = Mem::default();
        let tokens_in = mem.put(tokens);
        let embedding = mem.put(embedding);
        let weight = mem.put(weight);
        let tokens_out = mem.alloc(tokens.len() + 1, ElemKind::I32);
        let kernel = Kernel::DecodeStep {
            tokens_in,
            embedding,
            weight,
            tokens_out,
            batch: tokens.len(),
            hidden,
            vocab,
            pad_ns: 10,
        };
        run(&kernel, &mut mem);
        let mut result = mem.get::<i32>(tokens_out);
        assert_eq!(
            result.pop(),
            Some(UNWRITTEN as i32),
            "decode wrote past the batch"
        );
        result
    }

    #[test]
    fn decode_step_takes_the_lowest_index_of_ties_and_rejects_bad_tokens() {
        // hidden 2, vocab 3. Rows of the embedding: [1, 0], [0, 0], [-1, 3].
        // Logits: token 0 → [2, 3, 3] (a tie: 1); token 2 → [-2, -3, 0]
        // (2); token 1 → [0, 0, 0] (0).
        let embedding = [1.0, 0.0, 0.0, 0.0, -1.0, 3.0];
        let weight = [2.0, 3.0, 3.0, 0.0, 0.0, 1.0];
        let tokens = [0, 3, 2, -1, 1, i32::MIN];
        assert_eq!(
            decode(&tokens, &embedding, &weight, 2),
            [1, -1, 2, -1, 0, -1]
        );
    }

    #[test]
    fn decode_step_adds_the_logit_in_k_order() {
        // hidden 3, vocab 2, embedding row [1, 1, 1]. Logit 0 is
        // (1 + 1e8) - 1e8 = 0 in k order (1 the other way round); logit 1 is
        // 0.5, so token 1 wins only in k order.
        let embedding = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
        let weight = [1.0, 0.0, 1e8, 0.0, -1e8, 0.5];
        assert_eq!(decode(&[0], &embedding, &weight, 3), [1]);
    }

    #[test]
    fn decode_step_rounds_each_product_before_adding_it() {
        // Token 0's row is [-1, a] with a = 1 + 2^-12. Logit 0 is
        // -(1 + 2^-11) + a * a: the product rounds to 1 + 2^-11, giving 0
        // (a fused multiply-add would give 2^-24). Logit 1 is a * 2^-25 > 0,
        // so token 1 wins only with two roundings.
        let a = 1.0 + 2f32.powi(-12);
        let embedding = [-1.0, a, 0.0, 0.0];
        let weight = [1.0 + 2f32.powi(-11), 0.0, a, 2f32.powi(-25)];
        assert_eq!(decode(&[0], &embedding, &weight, 2), [1]);
    }

    #[test]
    fn decode_step_never_picks_a_nan_logit_unless_all_are() {
        let nan = f32::NAN;
        let embedding = [1.0, 1.0, 1.0, 1.0];
        assert_eq!(decode(&[0], &embedding, &[nan, -5.0, nan, -5.0], 1), [1]);
        assert_eq!(decode(&[3], &embedding, &[nan, nan, nan, 2.0], 1), [3]);
        assert_eq!(decode(&[1], &embedding, &[nan; 4], 1), [0]);
        assert_eq!(decode(&[1], &embedding, &[-0.0, 0.0, nan, 0.0], 1), [0]);
    }

    #[test]
    fn decode_step_scans_past_one_block_of_logits() {
        // vocab 600 > 256: candidates 299 and 555 share the maximum.
        let mut weight = vec![0.0f32; 600];
        weight[299] = 4.0;
        weight[555] = 4.0;
        weight[100] = 3.0;
        assert_eq!(decode(&[7, 600], &vec![2.0; 600], &weight, 1), [299, -1]);
    }
}
