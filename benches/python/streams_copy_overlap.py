"""Copies that overlap compute, in PyTorch: pinned memory and a side stream.

The PyTorch side of ``cargo run --release -p workbook-benches --example
streams_copy_overlap``. Eight chunks of 16 MiB are copied to the device and
summed, each sum behind 300 µs of compute (``torch.cuda._sleep``): on one
stream from pinned memory; on a copy stream and a compute stream from pinned
memory, with two device slots (``compute.wait_stream(copy)`` orders each sum
after its copy, an event orders each copy after the sum that last read its
slot); and the same two-stream schedule from pageable memory. Each schedule
is timed on the CPU's clock from its first copy call until the sums are on
the host, five times after a warm-up. Then events around each copy and each
compute of one more two-stream run say what each took on the GPU.

    python3 benches/python/streams_copy_overlap.py > chapters/measurements/torch_streams_copy_overlap.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

from common import Spin, header, require_cuda, spread, text

COMMAND = "python3 benches/python/streams_copy_overlap.py"
CHUNK = 4 << 20  # float32 elements: 16 MiB
CHUNKS = 8
COMPUTE_MS = 0.3
RUNS = 5
cuda = torch.device("cuda")


def compute(spin: Spin, slot: torch.Tensor, out: torch.Tensor) -> None:
    """The work on one chunk, on the current stream: 300 µs, then its sum."""
    spin(COMPUTE_MS)
    torch.sum(slot, 0, out=out)


def one_stream(spin: Spin, source: torch.Tensor, chunks: int) -> tuple[float, list[float]]:
    """Copy, compute, copy, compute... on one stream: ns from the first copy
    to the sums on the host, and the sums."""
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        slot = torch.empty(CHUNK, device=cuda)
        sums = torch.zeros(chunks, device=cuda)
        torch.cuda.synchronize()
        start = time.perf_counter_ns()
        for i in range(chunks):
            slot.copy_(source, non_blocking=True)
            compute(spin, slot, sums[i])
        result = sums.tolist()  # waits for the last sum
        return time.perf_counter_ns() - start, result


def two_streams(spin: Spin, source: torch.Tensor, chunks: int, ops=None):
    """Chunk `i` copied into slot `i % 2` on the copy stream and summed on the
    compute stream: ns from the first copy to the sums on the host, ns the
    CPU spent inside the copy calls, and the sums. With `ops` (a list), an
    event pair around each copy and each compute is appended to it."""
    copy, work = torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(copy):
        slots = [torch.empty(CHUNK, device=cuda) for _ in range(2)]
    with torch.cuda.stream(work):
        sums = torch.zeros(chunks, device=cuda)
    consumed = [torch.cuda.Event(), torch.cuda.Event()]
    torch.cuda.synchronize()
    start, copy_ns = time.perf_counter_ns(), 0
    for i in range(chunks):
        slot = slots[i % 2]
        with torch.cuda.stream(copy):
            copy.wait_event(consumed[i % 2])  # chunk i - 2 is summed: reuse its slot
            pair = event_pair() if ops is not None else None
            t = time.perf_counter_ns()
            if pair:
                pair[0].record()
            slot.copy_(source, non_blocking=True)
            if pair:
                pair[1].record()
                ops.append(("copy", pair))
            copy_ns += time.perf_counter_ns() - t
        work.wait_stream(copy)  # chunk i has arrived: a wait on the GPU, the CPU goes on
        with torch.cuda.stream(work):
            pair = event_pair() if ops is not None else None
            if pair:
                pair[0].record()
            compute(spin, slot, sums[i])
            if pair:
                pair[1].record()
                ops.append(("compute", pair))
            consumed[i % 2].record()
    with torch.cuda.stream(work):
        result = sums.tolist()  # waits for the last sum
    loop_ns = time.perf_counter_ns() - start
    torch.cuda.synchronize()  # both streams idle before the slots are freed
    return loop_ns, copy_ns, result


def event_pair():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def main() -> int:
    if not require_cuda():
        return 1
    spin = Spin()
    pinned = torch.ones(CHUNK).pin_memory()
    pageable = torch.ones(CHUNK)
    one_stream(spin, pinned, 2)  # warm-up
    two_streams(spin, pinned, 2)
    two_streams(spin, pageable, 2)
    serial, overlapped, staged, staged_copy = [], [], [], []
    correct = True
    for _ in range(RUNS):
        ns, sums = one_stream(spin, pinned, CHUNKS)
        serial.append(ns)
        correct &= sums == [float(CHUNK)] * CHUNKS
        ns, _, sums = two_streams(spin, pinned, CHUNKS)
        overlapped.append(ns)
        correct &= sums == [float(CHUNK)] * CHUNKS
        ns, copy_ns, sums = two_streams(spin, pageable, CHUNKS)
        staged.append(ns)
        staged_copy.append(copy_ns)
        correct &= sums == [float(CHUNK)] * CHUNKS
    ops = []
    two_streams(spin, pinned, CHUNKS, ops)
    gpu = {
        kind: statistics.median(b.elapsed_time(e) * 1e6 for k, (b, e) in ops if k == kind)
        for kind in ("copy", "compute")
    }

    print(header(COMMAND), end="")
    print(f"kernel:  {spin}")
    print(
        f"\n{CHUNKS} chunks of {CHUNK * 4 >> 20} MiB, each copied to the device and summed "
        f"({text(COMPUTE_MS * 1e6)} of compute each);"
        f"\nfrom the first copy call until the sums are on the host, median (min–max) of {RUNS} runs:"
    )
    print(f"  one stream, pinned source           {spread(serial)}")
    print(f"  copy + compute streams, pinned      {spread(overlapped)}")
    print(
        f"  copy + compute streams, pageable    {spread(staged)}"
        f"  (CPU blocked {text(statistics.median(staged_copy))} inside the copy calls)"
    )
    print(f"  sums correct: {correct}")
    print(f"\nOn the GPU, copy + compute streams, pinned (an event pair around each; medians of {CHUNKS}):")
    print(f"  a copy of a chunk to the device     {text(gpu['copy'])}")
    print(f"  a compute on a chunk (sleep + sum)  {text(gpu['compute'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
