"""The limits of timing with events, in PyTorch.

The measurement behind the cpu-and-gpu chapter's three things about event
timing that are easy to get wrong:

* **resolution**: 250 pairs of timing events recorded back to back on a
  stream kept busy before them by a 200 ms kernel, far longer than the CPU
  takes to record them all (so the GPU, not the CPU, paces every pair; each
  event is created, at its first record, before the kernel). 500 records
  fit in the stream's queue behind the kernel; 2000 did not (on an H100 the
  CPU's records then blocked until the kernel ended, and the last ones
  reached a GPU that was draining the queue);
  the smallest, median and largest reading of ``elapsed_time``, and every
  distinct reading with how many pairs gave it (a histogram);
* **what the pair times**: a 1 ms kernel between two events, alone and with
  another stream's 2 ms kernel waited for inside the pair
  (``wait_stream``), and with a 2 ms kernel of the same stream queued
  between the first event and the 1 ms kernel;
* **reading the time too early**: ``elapsed_time`` while the end event is
  still pending, and what PyTorch says.

    python3 benches/python/event_timing.py > chapters/measurements/torch_event_timing.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import collections
import statistics
import sys
import time

import torch

from common import Spin, header, require_cuda

COMMAND = "python3 benches/python/event_timing.py"
PAIRS = 250  # 500 records: they fit in the stream's queue behind the kernel
BUSY_MS = 200.0  # far longer than the CPU takes to record every pair


def pair() -> tuple[torch.cuda.Event, torch.cuda.Event]:
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def resolution(spin: Spin) -> list[str]:
    pairs = [pair() for _ in range(PAIRS)]
    for start, end in pairs:  # PyTorch creates a CUDA event at its first record
        start.record()
        end.record()
    torch.cuda.synchronize()
    busy = pair()
    busy[0].record()
    spin(BUSY_MS)  # the GPU is busy while the CPU records every pair again
    busy[1].record()
    began = time.perf_counter()
    for start, end in pairs:
        start.record()
        end.record()
    recorded_ms = (time.perf_counter() - began) * 1e3
    torch.cuda.synchronize()
    busy_ms = busy[0].elapsed_time(busy[1])
    readings = sorted(round(s.elapsed_time(e) * 1e3, 3) for s, e in pairs)
    counts = collections.Counter(readings)
    steps = sorted({round(b - a, 3) for a, b in zip(sorted(counts), sorted(counts)[1:])})
    lines = [
        f"the CPU recorded the {PAIRS} pairs in {recorded_ms:.1f} ms, behind a kernel of {busy_ms:.1f} ms",
        f"{PAIRS} back-to-back pairs on a busy stream: min {readings[0]:g} µs, "
        f"median {statistics.median(readings):g} µs, max {readings[-1]:g} µs; "
        f"{len(counts)} distinct readings, {steps[0] if steps else 0:g} µs apart at the least",
        "  every reading, with how many pairs read it:",
    ]
    widest = max(counts.values())
    for us, n in sorted(counts.items()):
        lines.append(f"  {us:>9.3f} µs  {n:>4}  {'#' * max(1, round(40 * n / widest))}")
    return lines


def what_is_timed(spin: Spin) -> list[str]:
    other = torch.cuda.Stream()
    rows = []
    for label in ("a 1 ms kernel alone", "another stream's 2 ms waited for inside", "the stream's own 2 ms queued inside"):
        torch.cuda.synchronize()
        start, end = pair()
        start.record()
        if label.startswith("another"):
            with torch.cuda.stream(other):
                spin(2.0)
            torch.cuda.current_stream().wait_stream(other)
        elif label.startswith("the stream's"):
            spin(2.0)
        spin(1.0)
        end.record()
        end.synchronize()
        rows.append(f"  {label:<42} {start.elapsed_time(end):6.3f} ms")
    return ["the pair around a 1 ms kernel:"] + rows


def too_early(spin: Spin) -> list[str]:
    torch.cuda.synchronize()
    start, end = pair()
    start.record()
    spin(10.0)
    end.record()
    try:
        ms = start.elapsed_time(end)
        said = f"returned {ms:.3f} ms"
    except RuntimeError as error:
        said = f"raised RuntimeError: {str(error).splitlines()[0]}"
    torch.cuda.synchronize()
    return [f"elapsed_time with the end event pending: {said}"]


def main() -> int:
    if not require_cuda():
        return 1
    print(header(COMMAND))
    spin = Spin()
    print(f"GPU helper: {spin}")
    print()
    for lines in (resolution(spin), what_is_timed(spin), too_early(spin)):
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
