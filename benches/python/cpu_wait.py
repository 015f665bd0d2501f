"""How the CPU waits for the GPU, and what the waiting costs, in PyTorch.

The measurement behind the cpu-and-gpu chapter's "How the CPU waits". Each
schedule runs in a process of its own, because the schedule is a flag of
the context and must be set before the context exists
(``cudaSetDeviceFlags``, through ``cudart.py``): ``auto`` (CUDA's default,
which PyTorch keeps), ``spin``, ``yield`` and ``blocking``, each waiting
with ``torch.cuda.synchronize()``; and, in a default context, a
``torch.cuda.Event(blocking=True)`` waited for with ``Event.synchronize()``.

Each of 30 trials queues a 10 ms ``torch.cuda._sleep`` between two timing
events and waits. Two figures per schedule:

* **late**: how long after the GPU's 10 ms the wait returned, counted from
  the CPU's first call (so the launch's own latency is in every row alike,
  and the difference between rows is the wake-up);
* **CPU busy**: the waiting thread's CPU time (``time.thread_time_ns``)
  over the wall time of the wait: 100% is a core spent polling.

    python3 benches/python/cpu_wait.py > chapters/measurements/torch_cpu_wait.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import subprocess
import sys
import time

COMMAND = "python3 benches/python/cpu_wait.py"
MODES = ["auto", "spin", "yield", "blocking", "event-blocking"]
TRIALS = 30
GATE_MS = 10.0


def child(mode: str) -> None:
    """One schedule's trials, in a fresh process; prints one row."""
    import cudart  # before torch creates the context

    if mode in cudart.SCHEDULE:
        cudart.set_device_flags(mode)
    import torch

    from common import Spin, text

    spin = Spin()  # creates the context, with the flags set above
    flags = cudart.device_flags()
    late, busy = [], []
    for _ in range(TRIALS):
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True, blocking=mode == "event-blocking")
        wall0, cpu0 = time.perf_counter_ns(), time.thread_time_ns()
        start.record()
        spin(GATE_MS)
        end.record()
        if mode == "event-blocking":
            end.synchronize()
        else:
            torch.cuda.synchronize()
        wall1, cpu1 = time.perf_counter_ns(), time.thread_time_ns()
        gpu_ns = start.elapsed_time(end) * 1e6
        late.append(wall1 - wall0 - gpu_ns)
        busy.append((cpu1 - cpu0) / (wall1 - wall0))
    wait = "Event(blocking=True).synchronize()" if mode == "event-blocking" else "torch.cuda.synchronize()"
    print(
        f"{mode:<15} {wait:<36} flags {flags:#06x}  "
        f"late {text(statistics.median(late)):>9} (min {text(min(late))}, max {text(max(late))})  "
        f"CPU busy {100 * statistics.median(busy):3.0f}%"
    )


def main() -> int:
    from common import header, require_cuda

    if not require_cuda():
        return 1
    print(header(COMMAND))
    print(f"Each row: {TRIALS} trials of a {GATE_MS:.0f} ms torch.cuda._sleep between two timing events,")
    print("then the wait; median, least and most of how late the wait returned after the GPU's")
    print("10 ms (from the first call, so the launch is in every row), and the waiting thread's")
    print("CPU time over the wall time of the wait. Each schedule in a fresh process.")
    print()
    print(f"{'schedule':<15} {'the wait':<36} {'context':<13} {'':<41}")
    for mode in MODES:
        done = subprocess.run([sys.executable, __file__, "--child", mode], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"error: the {mode} child failed: {done.stderr.strip()[-400:]}", file=sys.stderr)
            return 1
        print(done.stdout.strip())
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        sys.exit(main())
