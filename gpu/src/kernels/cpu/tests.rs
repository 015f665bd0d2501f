//! Unit tests of `cpu`.
//!
//! A little over 400 lines: one test per kernel twin and per edge of
//! `sum_f32`'s documented order (with the order written out once, here, to
//! test against), each short; split by kernel they would share the same
//! fixtures and helpers through a third module.
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

#[test]
fn sum_adds_each_chunk_in_its_own_block() {
    // 1e8 at the start of the first chunk of 4096 elements, 4.0 twice in
    // lane 0 of the second. One block would add 1e8 + 4 + 4 in lane 0 and
    // lose both fours (each a tie to even at a spacing of 8); the second
    // block's partial sum is 8, which the pass over the partial sums keeps.
    let mut values = vec![0.0f32; 8192];
    values[0] = 1e8;
    values[4096] = 4.0;
    values[4096 + 256] = 4.0;
    assert_eq!(sum_of(&values), 100_000_008.0);
}

/// `sum_f32`'s order written out from its documentation, index by index:
/// chunks of 4096 elements (whole multiples of 4096 once there would be more
/// than 128 blocks), 256 lanes and a tree per chunk, then the same over the
/// partial sums.
fn sum_as_documented(values: &[f32]) -> f32 {
    fn block(xs: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 256];
        for (t, lane) in lanes.iter_mut().enumerate() {
            for i in (t..xs.len()).step_by(256) {
                *lane += xs[i];
            }
        }
        for stride in [128, 64, 32, 16, 8, 4, 2, 1] {
            for t in 0..stride {
                lanes[t] += lanes[t + stride];
            }
        }
        lanes[0]
    }
    let n = values.len();
    let tiles = n.div_ceil(4096).max(1);
    let chunk = tiles.div_ceil(128) * 4096;
    let blocks = n.div_ceil(chunk).max(1);
    let partials: Vec<f32> = (0..blocks)
        .map(|b| block(&values[(b * chunk).min(n)..((b + 1) * chunk).min(n)]))
        .collect();
    block(&partials)
}

/// `n` floats of both signs over 40 binades, so that every change in the
/// order of the additions shows in the bits of the sum.
fn awkward_floats(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n)
        .map(|_| (rng.f32() - 0.5) * 2f32.powi(rng.i32(-20..20)))
        .collect()
}

#[test]
fn the_twin_of_sum_follows_the_documented_order_bit_for_bit() {
    let lengths = [
        0,
        1,
        255,
        257,
        4095,
        4097,
        4 << 20,
        (4 << 20) + 1,
        5_000_003,
    ];
    for (seed, n) in lengths.into_iter().enumerate() {
        let values = awkward_floats(n, seed as u64);
        let (twin, documented) = (sum_of(&values), sum_as_documented(&values));
        assert_eq!(twin.to_bits(), documented.to_bits(), "{n} elements");
    }
    // The inputs do tell orders apart: from left to right, 4 Mi of them
    // add up to other bits.
    let values = awkward_floats(4 << 20, 6);
    let left_to_right = values.iter().fold(0.0f32, |acc, &x| acc + x);
    assert_ne!(left_to_right.to_bits(), sum_of(&values).to_bits());
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
fn count_eq_adds_the_matches_to_the_counter() {
    let mut mem = Mem::default();
    let src = mem.put(&[5, 1, 5, 5, 0]);
    let out = mem.put(&[10i32, 77]);
    let count = |value, mem: &mut Mem| {
        run(&Kernel::CountEq { src, value, out }, mem);
    };
    count(5, &mut mem);
    assert_eq!(
        mem.get::<i32>(out),
        [13, 77],
        "3 matches added, the rest untouched"
    );
    count(0, &mut mem);
    count(9, &mut mem);
    assert_eq!(mem.get::<i32>(out), [14, 77]);
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
