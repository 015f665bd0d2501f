"""What a pair of PyTorch's caching allocator costs the CPU, seen from Python.

Times ``torch.empty`` of 64 MiB on the GPU followed by ``del`` of the
tensor, the pair the allocator chapter's benchmark times in Rust, after a
warm-up that puts the block in the cache. Each of several runs times many
pairs with the CPU's clock; the report gives the median pair and the range
over the runs, and counts the device allocations PyTorch made during the
timed pairs (none when every pair is served from the cache).

    python3 benches/python/alloc_pair.py > chapters/measurements/torch_alloc_pair.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

from common import header, require_cuda

COMMAND = "python3 benches/python/alloc_pair.py"
BYTES = 64 << 20
PAIRS = 100_000
RUNS = 7
WARMUP = 1_000


def time_pairs(count: int) -> float:
    """The CPU time of one `torch.empty` + `del` pair, in ns, over `count` pairs."""
    start = time.perf_counter_ns()
    for _ in range(count):
        x = torch.empty(BYTES, dtype=torch.uint8, device="cuda")
        del x
    return (time.perf_counter_ns() - start) / count


def device_allocs() -> int:
    """How many times the caching allocator has asked the driver for memory."""
    return torch.cuda.memory_stats().get("num_device_alloc", -1)


def text(ns: float) -> str:
    """`ns` as `1.93 µs` or `850 ns`."""
    return f"{ns / 1e3:.2f} µs" if ns >= 1e3 else f"{ns:.0f} ns"


def main() -> int:
    if not require_cuda():
        return 1
    time_pairs(WARMUP)  # the first pair asks the driver; the rest hit the cache
    torch.cuda.synchronize()
    before = device_allocs()
    runs = [time_pairs(PAIRS) for _ in range(RUNS)]
    after = device_allocs()

    print(header(COMMAND))
    print(f'torch.empty({BYTES >> 20} MiB, device="cuda") then del, from Python; CPU time of one pair')
    print(
        f"  median of {RUNS} runs of {PAIRS:,} pairs   {text(statistics.median(runs))}"
        f"   (runs from {text(min(runs))} to {text(max(runs))})"
    )
    allocs = "unknown" if before < 0 else str(after - before)
    print(f"  device allocations during the timed pairs: {allocs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
