"""Timing GPU work from PyTorch: the CPU's clock against events.

The PyTorch side of ``cargo run --release -p workbook-benches --example
cpu_gpu_timing`` and ``... --example cpu_gpu_matmul``. First the CPU time of
the first four launches of a kernel the process has not run before; then
ten 2 ms kernels timed three ways (a CPU clock around the launches, a CPU
clock between two synchronizes, ``torch.cuda.Event(enable_timing=True)``);
then the classic benchmark of the decoder step (an embedding lookup, a
[64 × 256] by [256 × 4096] matmul in float32, an argmax per row): three
warm-up steps, then ten steps timed with one event pair around all of them
(a mean) and with a pair per step (a median), once straight after their
launches and once queued behind a 5 ms kernel.

    python3 benches/python/cpu_gpu_timing.py > chapters/measurements/torch_cpu_gpu_timing.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

from common import Spin, header, require_cuda, text

COMMAND = "python3 benches/python/cpu_gpu_timing.py"
KERNEL_MS, KERNELS = 2.0, 10
SHAPE = (64, 256, 4096)  # rows, width of an embedding, vocabulary
WARMUP, REPS = 3, 10
GATE_MS = 5.0
cuda = torch.device("cuda")


def first_launches() -> list[float]:
    """CPU nanoseconds of four launches of `mul_`, which this process has not run yet."""
    x = torch.ones(1024, device=cuda)
    torch.cuda.synchronize()
    times = []
    for _ in range(4):
        start = time.perf_counter_ns()
        x.mul_(2.0)
        times.append(time.perf_counter_ns() - start)
    torch.cuda.synchronize()
    return times


def timing(spin: Spin) -> tuple[float, float, float]:
    """Ten 2 ms kernels timed three ways, in nanoseconds."""

    def work():
        for _ in range(KERNELS):
            spin(KERNEL_MS)

    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    work()  # wrong: only measures the submission
    cpu_launches = time.perf_counter_ns() - start

    torch.cuda.synchronize()  # start from an idle GPU
    start = time.perf_counter_ns()
    work()
    torch.cuda.synchronize()  # right, if coarse: includes the wake-up
    cpu_synced = time.perf_counter_ns() - start

    begin = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    begin.record()  # the GPU writes a timestamp when it gets here
    work()
    end.record()
    end.synchronize()  # elapsed_time raises unless both events have completed
    return cpu_launches, cpu_synced, begin.elapsed_time(end) * 1e6


def decoder_step(embedding, weight, tokens):
    """The next token of each row: embedding lookup, matmul, argmax."""
    return torch.argmax(torch.index_select(embedding, 0, tokens) @ weight, dim=1)


def event_pair():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def matmul(spin: Spin, step, gated: bool) -> tuple[float, list[float], float]:
    """The mean of one pair around `REPS` steps, each step's time from a pair
    per step (ns), and the CPU's time to queue a step (ns). When `gated`, a
    5 ms kernel is queued first: the GPU reaches the steps only once all of
    them are queued, so the events time the GPU alone."""
    begin, end = event_pair()
    torch.cuda.synchronize()
    if gated:
        spin(GATE_MS)
    begin.record()
    queued = time.perf_counter_ns()
    for _ in range(REPS):
        step()
    queue_ns = (time.perf_counter_ns() - queued) / REPS
    end.record()
    end.synchronize()
    mean_ns = begin.elapsed_time(end) * 1e6 / REPS

    pairs = [event_pair() for _ in range(REPS)]
    torch.cuda.synchronize()
    if gated:
        spin(GATE_MS)
    for begin, end in pairs:
        begin.record()
        step()
        end.record()
    torch.cuda.synchronize()  # one wait, after everything is queued
    return mean_ns, [b.elapsed_time(e) * 1e6 for b, e in pairs], queue_ns


def print_matmul(flops: float, mean_ns: float, per_step: list[float]) -> None:
    rate = lambda ns: f"{flops / ns:,.1f} GFLOP/s"  # noqa: E731
    median = statistics.median(per_step)
    print(f"    one event pair around all {REPS} (a mean)   {text(mean_ns):>9} a step   {rate(mean_ns)}")
    print(f"    one event pair per step (the median)    {text(median):>9} a step   {rate(median)}")
    print(f"    one event pair per step (min – max)     {text(min(per_step)):>9} – {text(max(per_step))}")


def main() -> int:
    if not require_cuda():
        return 1
    spin = Spin()
    first = first_launches()
    cpu_launches, cpu_synced, events = timing(spin)
    print(header(COMMAND), end="")
    print(f"kernel:  {spin}")
    print(f"\n{KERNELS} kernels of {KERNEL_MS:.0f} ms ({text(KERNELS * KERNEL_MS * 1e6)} of GPU work):")
    print(f"  CPU timer around the launches    {text(cpu_launches)}")
    print(f"  CPU timer, synchronize both ends {text(cpu_synced)}")
    print(f"  events                           {text(events)}")
    print(
        "\nCPU time of the first four launches of a kernel never run before (x.mul_(2.0)): "
        + ", ".join(text(ns) for ns in first)
    )

    batch, hidden, vocab = SHAPE
    generator = torch.Generator(device=cuda).manual_seed(1)
    embedding = torch.randn(vocab, hidden, device=cuda, generator=generator)
    weight = torch.randn(hidden, vocab, device=cuda, generator=generator)
    tokens = torch.randint(0, vocab, (batch,), device=cuda, generator=generator)
    step = lambda: decoder_step(embedding, weight, tokens)  # noqa: E731
    for _ in range(WARMUP):
        step()  # first-use costs (cuBLAS, the allocator) land here, untimed
    flops = 2.0 * batch * hidden * vocab
    print(
        f"\nthe decoder step as a matmul: [{batch} × {hidden}] · [{hidden} × {vocab}], then an argmax per row"
        "\n  (torch.index_select, @, torch.argmax; float32 at PyTorch's default matmul precision)"
    )
    print(
        f"  {flops / 1e6:.1f} MFLOP a step (2 · {batch} · {hidden} · {vocab}); "
        f"{WARMUP} warm-up steps, then {REPS} timed ones"
    )
    mean_ns, per_step, _ = matmul(spin, step, gated=False)
    print("  straight after their launches:")
    print_matmul(flops, mean_ns, per_step)
    mean_ns, per_step, queue_ns = matmul(spin, step, gated=True)
    print(f"  queued behind a {GATE_MS:.0f} ms kernel (the GPU never waits for a launch):")
    print_matmul(flops, mean_ns, per_step)
    print(f"  CPU time to queue one step: {text(queue_ns)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
