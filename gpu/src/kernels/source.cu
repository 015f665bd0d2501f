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

// The most blocks of `sum_f32` (`SumGrid::MAX_BLOCKS` in kernels.rs).
#define SUM_MAX_BLOCKS 128

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

// Busy-waits until the global timer reads `deadline` or later.
__device__ void spin_until(unsigned long long deadline)
{
    while (global_ns() < deadline) {
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

// The scratch memory of `sum_f32`: one per stream, allocated and zeroed by
// the CUDA backend (cuda/scratch.rs, whose `SCRATCH_BYTES` is its size), and
// left zeroed by every launch that uses it. Launches on one stream run one
// after the other, so a launch has its stream's scratch to itself.
struct SumScratch {
    // Global timer when the first block of the launch started its wait; 0
    // between launches.
    unsigned long long t0;
    // Blocks that have written their partial sum; 0 between launches.
    unsigned int done;
    unsigned int unused;
    // The partial sum of each block.
    float partials[SUM_MAX_BLOCKS];
};

// The tree over the 256 lane sums in `p`, stride 128, 64, ..., 1:
// p[t] = p[t] + p[t + stride] for t < stride, with a barrier between levels
// (and one before the first). Leaves the block's sum in p[0]; every thread
// of the block must call it.
__device__ void lane_tree(float* p)
{
    unsigned int t = threadIdx.x;
    __syncthreads();
    for (unsigned int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            p[t] = __fadd_rn(p[t], p[t + stride]);
        }
        __syncthreads();
    }
}

// sum_f32(src, n, out, pad_ns, chunk, scratch): blocks x 256, where `blocks`
// and `chunk` are those of `SumGrid::of(n)` (kernels.rs), the geometry that
// fixes the order of the additions.
//
// With pad_ns > 0, each block first waits until pad_ns after the first
// block of the launch began (its start time, in scratch->t0), then the block
// synchronises: every read of `src` comes after the wait, however many
// blocks run at once. Block b reduces src[b * chunk, min(n, (b + 1) * chunk)):
// thread t adds the chunk's elements t, t + 256, ... in that order into a
// float that starts at 0.0f, and `lane_tree` adds up the 256 lanes. Thread 0
// stores the partial sum in scratch->partials[b] and counts the block done;
// the block that counts last reduces partials[0 .. blocks) in exactly the
// same way (lane t adds partials[t], partials[t + 256], ...; then the tree),
// writes out[0], and zeroes the counter and t0 for the stream's next launch.
// n == 0 gives +0.0f.
extern "C" __global__ void sum_f32(
    const float* src,
    unsigned long long n,
    float* out,
    unsigned long long pad_ns,
    unsigned long long chunk,
    SumScratch* scratch)
{
    __shared__ float p[BLOCK];
    __shared__ bool last;
    unsigned int t = threadIdx.x;
    unsigned int b = blockIdx.x;

    if (pad_ns > 0 && t == 0) {
        unsigned long long now = global_ns();
        unsigned long long first = atomicCAS(&scratch->t0, 0ULL, now);
        spin_until((first == 0 ? now : first) + pad_ns);
    }
    __syncthreads();

    unsigned long long begin = (unsigned long long)b * chunk;
    unsigned long long len = begin < n ? min(chunk, n - begin) : 0;
    const float* x = src + begin;
    float acc = 0.0f;
    unsigned long long i = t;
    // Eight loads in flight, then their eight additions in order: the same
    // sums as one element at a time, without waiting on memory for each.
    for (; i + 7 * BLOCK < len; i += 8 * BLOCK) {
        float v[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            v[k] = x[i + k * BLOCK];
        }
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            acc = __fadd_rn(acc, v[k]);
        }
    }
    for (; i < len; i += BLOCK) {
        acc = __fadd_rn(acc, x[i]);
    }
    p[t] = acc;
    lane_tree(p);

    if (t == 0) {
        scratch->partials[b] = p[0];
        // The partial sum is visible to every block before the count is.
        __threadfence();
        last = atomicAdd(&scratch->done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) {
        return;
    }

    // Every other block's partial sum is visible once its count is: read
    // them from L2 (`__ldcg`), past this SM's L1.
    __threadfence();
    acc = 0.0f;
    for (unsigned int j = t; j < gridDim.x; j += BLOCK) {
        acc = __fadd_rn(acc, __ldcg(&scratch->partials[j]));
    }
    p[t] = acc;
    lane_tree(p);
    if (t == 0) {
        out[0] = p[0];
        scratch->done = 0;
        scratch->t0 = 0;
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
