"""What a host callback costs the stream, in PyTorch and ``cudaLaunchHostFunc``.

The measurement behind the streams chapter's "Host callbacks, and why
engines avoid them". PyTorch has no wrapper for ``cudaLaunchHostFunc``, so
the callback is queued through ``cudart.py``; the callback is a C function
that does nothing (libc's ``free`` of a null pointer), so what is measured
is the mechanism alone: the stream stops, a driver thread wakes and runs
the function, and the stream goes on.

A 20 ms ``torch.cuda._sleep`` first holds the GPU while the CPU queues
everything: 200 steps of a small kernel (``x.add_(1)`` on 4 Ki floats),
either alone or each followed by a host callback. Timing events after the
gate and at the end give the GPU time per step; the difference is what one
callback stalls the stream. The CPU's cost to queue one callback through
``ctypes`` is shown too (it includes ``ctypes``' own call overhead).

    python3 benches/python/host_func.py > chapters/measurements/torch_host_func.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

import cudart
from common import Spin, header, require_cuda, text

COMMAND = "python3 benches/python/host_func.py"
STEPS = 200
RUNS = 5
GATE_MS = 20.0


def per_step(spin: Spin, x: torch.Tensor, callbacks: bool) -> tuple[float, float]:
    """GPU ns per step, and CPU ns to queue one callback (0 without)."""
    stream = torch.cuda.current_stream().cuda_stream
    torch.cuda.synchronize()
    after_gate = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    spin(GATE_MS)
    after_gate.record()
    queue_ns = 0
    for _ in range(STEPS):
        x.add_(1)
        if callbacks:
            t0 = time.perf_counter_ns()
            cudart.launch_host_func(stream)
            queue_ns += time.perf_counter_ns() - t0
    end.record()
    end.synchronize()
    assert int(x[0].item()) % STEPS == 0, "every step ran"
    return after_gate.elapsed_time(end) * 1e6 / STEPS, queue_ns / STEPS


def main() -> int:
    if not require_cuda():
        return 1
    print(header(COMMAND))
    spin = Spin()
    x = torch.zeros(4096, device="cuda")
    x.add_(1)  # loads the kernel
    x.zero_()
    rows = {False: [], True: []}
    queue = []
    for _ in range(RUNS):
        for callbacks in (False, True):
            step_ns, queue_ns = per_step(spin, x, callbacks)
            rows[callbacks].append(step_ns)
            if callbacks:
                queue.append(queue_ns)
    alone, with_cb = statistics.median(rows[False]), statistics.median(rows[True])
    print(f"Behind a {GATE_MS:.0f} ms gate, {STEPS} steps queued before the GPU starts; {RUNS} runs, median (least–most).")
    print(f"GPU helper: {spin}")
    print()
    print(f"a step: x.add_(1) alone                   {text(alone):>9} a step ({text(min(rows[False]))}–{text(max(rows[False]))})")
    print(
        f"a step: x.add_(1), then a host callback   {text(with_cb):>9} a step ({text(min(rows[True]))}–{text(max(rows[True]))})"
    )
    print(f"the stream stalled per callback           {text(with_cb - alone):>9}")
    print(f"CPU time to queue a callback (ctypes)     {text(statistics.median(queue)):>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
