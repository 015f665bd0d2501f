"""What a stream priority buys a short kernel behind long ones, in PyTorch.

The measurement behind the streams chapter's "Stream priorities". A
low-priority stream is given 12 long kernels that fill the GPU; 3 ms later,
when the GPU is well into them, a short kernel (``y.add_(1)`` on 64 Ki
floats) is queued on another stream, between two timing events, and the
time from the first event to the second is its latency: how long the short
kernel waited for SMs, plus its own run. The other stream has either the
same priority (``torch.cuda.Stream(priority=0)``) or the highest
(``priority=-1`` and below, ``torch.cuda.Stream.priority_range()``, which
is PyTorch's own clamp to the levels it keeps; the device's range,
``cudaDeviceGetStreamPriorityRange``, is printed beside it). Two
kinds of long kernel: an elementwise multiply of 1 GiB (many short
thread blocks, which free SMs all the time) and a bf16 matrix product of
8192 x 8192 (cuBLAS's tiles, which hold their SMs longer). The short
kernel alone on an idle GPU is the baseline.

    python3 benches/python/priorities.py > chapters/measurements/torch_priorities.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import ctypes
import statistics
import sys
import time

import torch

import cudart
from common import header, require_cuda, text

COMMAND = "python3 benches/python/priorities.py"
TRIALS = 20
LONG_KERNELS = 12
HEAD_START_S = 0.003


def device_priority_range() -> tuple[int, int]:
    """The device's own stream priorities (``cudaDeviceGetStreamPriorityRange``): least, greatest."""
    least, greatest = ctypes.c_int(), ctypes.c_int()
    result = cudart._lib.cudaDeviceGetStreamPriorityRange(ctypes.byref(least), ctypes.byref(greatest))
    cudart.check(result, "cudaDeviceGetStreamPriorityRange")
    return least.value, greatest.value


def latency_ns(short: torch.cuda.Stream, long_work, y: torch.Tensor, low: torch.cuda.Stream | None) -> float:
    """The short kernel's latency from the event before it to the event after it."""
    torch.cuda.synchronize()
    if low is not None:
        with torch.cuda.stream(low):
            for _ in range(LONG_KERNELS):
                long_work()
        time.sleep(HEAD_START_S)
    before = torch.cuda.Event(enable_timing=True)
    after = torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(short):
        before.record()
        y.add_(1)
        after.record()
    torch.cuda.synchronize()
    return before.elapsed_time(after) * 1e6


def row(name: str, samples: list[float]) -> str:
    return f"{name:<44} {text(statistics.median(samples)):>9} ({text(min(samples))}–{text(max(samples))})"


def main() -> int:
    if not require_cuda():
        return 1
    print(header(COMMAND))
    least, greatest = torch.cuda.Stream.priority_range()
    low = torch.cuda.Stream(priority=0)
    same = torch.cuda.Stream(priority=0)
    high = torch.cuda.Stream(priority=greatest)
    y = torch.zeros(1 << 16, device="cuda")
    big = torch.ones(1 << 28, device="cuda")  # 1 GiB of float32
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device="cuda", dtype=torch.bfloat16)
    kinds = {
        "elementwise (1 GiB multiply)": lambda: big.mul_(1.0),
        "matrix product (bf16 8192^3)": lambda: torch.mm(a, b, out=c),
    }
    for work in kinds.values():  # loads every kernel once
        work()
    y.add_(1)
    torch.cuda.synchronize()
    device_least, device_greatest = device_priority_range()
    print(
        f"Priorities PyTorch offers (torch.cuda.Stream.priority_range): {least} (lowest) to {greatest} (highest); the long work at 0."
    )
    print(
        f"Priorities of the device (cudaDeviceGetStreamPriorityRange): {device_least} (lowest) to {device_greatest} (highest)."
    )
    print(f"{TRIALS} trials each; the short kernel's latency, median (least–most).")
    for name, work in kinds.items():
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        work()
        end.record()
        end.synchronize()
        print(f"one long kernel, {name}: {text(start.elapsed_time(end) * 1e6)}")
    print()
    print(row("the short kernel on an idle GPU", [latency_ns(same, None, y, None) for _ in range(TRIALS)]))
    for name, work in kinds.items():
        for label, stream in (("same priority", same), (f"priority {greatest}", high)):
            samples = [latency_ns(stream, work, y, low) for _ in range(TRIALS)]
            print(row(f"behind {name}, {label}", samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
