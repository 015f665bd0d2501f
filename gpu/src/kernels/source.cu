// The kernel library, as CUDA C.
//
// Compiled once per process by NVRTC with `--fmad=false` for compute_90. NVRTC
// has no standard headers, so nothing is included. Every kernel is
// `extern "C"` so that its name is not mangled; the names and signatures are
// the ones documented on `Kernel` in kernels.rs.
//
// Each kernel has a CPU twin in kernels/cpu.rs that computes the same bits.
// To keep them identical:
// - float arithmetic is written with `__fmul_rn` / `__fadd_rn`, which are
//   never contracted into a fused multiply-add, so `a * b + c` rounds twice
//   even if `--fmad=false` were dropped;
// - reductions add in exactly the order the twins follow (documented on each
//   kernel);
// - comparisons are plain IEEE comparisons, false whenever a NaN is involved.
//
// Launch geometry (grid x block) is in the table on `Kernel`. Elementwise
// kernels use blocks of 256 threads and guard their index; `sum_f32` and
// `decode_step` need exactly 256 threads per block (their shared arrays and
// reduction trees are sized for it).

// Threads per block of every kernel but `spin`.
#define BLOCK 256

// Nanoseconds from the GPU's global timer.
__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Busy-waits `ns` nanoseconds of wall-clock time (independent of SM clocks).
__device__ void spin_for(unsigned long long ns)
{
    if (ns == 0) {
        return;
    }
    unsigned long long t0 = global_ns();
    while (global_ns() - t0 < ns) {
    }
}

// The global index of this thread in a 1-D launch, without 32-bit overflow.
__device__ __forceinline__ unsigned long long global_index()
{
    return (unsigned long long)blockIdx.x * (unsigned long long)blockDim.x
        + (unsigned long long)threadIdx.x;
}

// spin(ns): 1 x 1. Waits `ns` nanoseconds, touches no memory.
extern "C" __global__ void spin(unsigned long long ns)
{
    spin_for(ns);
}

// fill_f32(dst, value, n): ceil(n/256) x 256. dst[i] = value.
extern "C" __global__ void fill_f32(float* dst, float value, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n) {
        dst[i] = value;
    }
}

// fill_i32(dst, value, n): ceil(n/256) x 256. dst[i] = value.
extern "C" __global__ void fill_i32(int* dst, int value, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n) {
        dst[i] = value;
    }
}

// fill_u32(dst, value, n): ceil(n/256) x 256. dst[i] = value.
extern "C" __global__ void fill_u32(unsigned* dst, unsigned value, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n) {
        dst[i] = value;
    }
}

// sum_f32(src, n, out, pad_ns): 1 x 256.
//
// Every thread waits `pad_ns`, then the block synchronises. Thread t adds
// src[t], src[t + 256], ... in that order into a float that starts at 0.0f.
// The 256 partial sums then go through a tree: for stride = 128, 64, ..., 1,
// p[t] = p[t] + p[t + stride] for t < stride, with a barrier between levels.
// Thread 0 writes out[0] = p[0]. n == 0 gives +0.0f.
extern "C" __global__ void sum_f32(
    const float* src, unsigned long long n, float* out, unsigned long long pad_ns)
{
    __shared__ float p[BLOCK];
    unsigned int t = threadIdx.x;

    spin_for(pad_ns);
    __syncthreads();

    float acc = 0.0f;
    for (unsigned long long i = t; i < n; i += BLOCK) {
        acc = __fadd_rn(acc, src[i]);
    }
    p[t] = acc;
    __syncthreads();

    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            p[t] = __fadd_rn(p[t], p[t + stride]);
        }
        __syncthreads();
    }
    if (t == 0) {
        out[0] = p[0];
    }
}

// argmax_rows_f32(src, rows, cols, out): ceil(rows/256) x 256, one thread per
// row.
//
// A sequential scan of row r: best starts at row[0] with index 0, and x at
// index j > 0 replaces it only if x > best (strictly). So ties keep the lowest
// index and a NaN at j > 0 never wins; but a NaN at index 0 is never beaten
// (x > NaN is false), so such a row gives 0. cols == 0 gives -1.
extern "C" __global__ void argmax_rows_f32(
    const float* src, unsigned long long rows, unsigned long long cols, int* out)
{
    unsigned long long r = global_index();
    if (r >= rows) {
        return;
    }
    if (cols == 0) {
        out[r] = -1;
        return;
    }
    const float* row = src + r * cols;
    float best = row[0];
    unsigned long long best_j = 0;
    for (unsigned long long j = 1; j < cols; ++j) {
        float x = row[j];
        if (x > best) {
            best = x;
            best_j = j;
        }
    }
    out[r] = (int)best_j;
}

// flag_eq_i32(src, value, flags, n): ceil(n/256) x 256.
// flags[i] = flags[i] | (src[i] == value ? 1 : 0): a set flag stays set.
extern "C" __global__ void flag_eq_i32(
    const int* src, int value, int* flags, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n) {
        flags[i] = flags[i] | (src[i] == value ? 1 : 0);
    }
}

// count_eq_i32(src, value, out, n): ceil(n/256) x 256.
// out[0] = out[0] + (number of i < n with src[i] == value). Each matching
// thread adds 1 atomically: integer additions commute, so the result does
// not depend on their order.
extern "C" __global__ void count_eq_i32(
    const int* src, int value, int* out, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n && src[i] == value) {
        atomicAdd(out, 1);
    }
}

// affine_f32(x, a, b, y, n): ceil(n/256) x 256.
// y[i] = a * x[i] + b, rounded after the product and after the sum.
extern "C" __global__ void affine_f32(
    const float* x, float a, float b, float* y, unsigned long long n)
{
    unsigned long long i = global_index();
    if (i < n) {
        y[i] = __fadd_rn(__fmul_rn(a, x[i]), b);
    }
}

// True when candidate (value a, index ia) beats (value b, index ib) in
// decode_step's order. Index -1 marks an empty slot, which never beats
// anything and is beaten by any candidate. Among candidates: any number beats
// NaN; a larger number wins; equal numbers (0.0 == -0.0) go to the lower
// index; between two NaNs the lower index wins. Indices are distinct, so this
// is a strict total order and any reduction tree finds the same winner as a
// sequential scan: the lowest index of the largest non-NaN logit, or 0 if all
// logits are NaN.
__device__ __forceinline__ bool beats(float a, long long ia, float b, long long ib)
{
    if (ia < 0) {
        return false;
    }
    if (ib < 0) {
        return true;
    }
    bool a_nan = a != a;
    bool b_nan = b != b;
    if (a_nan || b_nan) {
        return !a_nan || (b_nan && ia < ib);
    }
    return a > b || (a == b && ia < ib);
}

// decode_step(tokens_in, embedding, weight, tokens_out, batch, hidden, vocab,
// pad_ns): batch x 256, one block per row r.
//
// Every thread waits `pad_ns`, then the block synchronises. tok =
// tokens_in[r]; a token outside 0..vocab makes thread 0 write -1. Otherwise
// thread t computes the logits of v = t, t + 256, ... < vocab:
// logit = 0.0f, then logit = logit + embedding[tok * hidden + k] *
// weight[k * vocab + v] for k = 0, 1, ... (two roundings per step), and keeps
// its best candidate by `beats`. A tree over the 256 slots (stride 128, ...,
// 1) with the same order leaves the winner in slot 0, which thread 0 writes.
extern "C" __global__ void decode_step(
    const int* tokens_in,
    const float* embedding,
    const float* weight,
    int* tokens_out,
    unsigned long long batch,
    unsigned long long hidden,
    unsigned long long vocab,
    unsigned long long pad_ns)
{
    __shared__ float best_value[BLOCK];
    __shared__ long long best_index[BLOCK];
    unsigned long long r = blockIdx.x;
    unsigned int t = threadIdx.x;

    spin_for(pad_ns);
    __syncthreads();

    // Both exits below are taken by the whole block or not at all, so no
    // thread misses a barrier.
    if (r >= batch) {
        return;
    }
    int tok = tokens_in[r];
    if (tok < 0 || (unsigned long long)tok >= vocab) {
        if (t == 0) {
            tokens_out[r] = -1;
        }
        return;
    }

    const float* h = embedding + (unsigned long long)tok * hidden;
    float value = 0.0f;
    long long index = -1;
    for (unsigned long long v = t; v < vocab; v += BLOCK) {
        float logit = 0.0f;
        for (unsigned long long k = 0; k < hidden; ++k) {
            logit = __fadd_rn(logit, __fmul_rn(h[k], weight[k * vocab + v]));
        }
        if (beats(logit, (long long)v, value, index)) {
            value = logit;
            index = (long long)v;
        }
    }
    best_value[t] = value;
    best_index[t] = index;
    __syncthreads();

    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride
            && beats(best_value[t + stride], best_index[t + stride], best_value[t], best_index[t])) {
            best_value[t] = best_value[t + stride];
            best_index[t] = best_index[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        tokens_out[r] = (int)best_index[0];
    }
}
