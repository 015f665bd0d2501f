"""Every implicit sync point of the hidden-syncs chapter, and its fix, in PyTorch.

The PyTorch side of ``cargo run --release -p workbook-benches --example
hidden_syncs_implicit``. A 20 ms kernel (the gate) is queued on two streams,
then one call is timed on the CPU's clock: a call that waits for the GPU
takes the rest of the gate, a call that only queues work takes
microseconds. Each call runs once untimed, then five times behind a fresh
gate (fastest and slowest shown). Then sync debug mode ("warn") is asked
about the same calls, and 32 launches of a 100 µs kernel are timed normally
and in a child process with ``CUDA_LAUNCH_BLOCKING=1``.

    python3 benches/python/hidden_syncs.py > chapters/measurements/torch_hidden_syncs.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import os
import subprocess
import sys
import time
import warnings

import torch

from common import Spin, header, require_cuda

COMMAND = "python3 benches/python/hidden_syncs.py"
GATE_MS = 20.0
REPS = 5
CHILD = "--launch-blocking-child"
cuda = torch.device("cuda")


class Bench:
    """The main stream `s`, where every call runs, a `copy` stream, and the gate."""

    def __init__(self, spin: Spin) -> None:
        self.spin = spin
        self.s = torch.cuda.Stream()
        self.copy = torch.cuda.Stream()

    def behind_gate(self, call) -> float:
        """Milliseconds the CPU spends in `call()`, run on stream `s` right
        after a gate on both streams; the device is idle before the gate."""
        torch.cuda.synchronize()
        with torch.cuda.stream(self.copy):
            self.spin(GATE_MS)
        with torch.cuda.stream(self.s):
            self.spin(GATE_MS)
            start = time.perf_counter()
            call()
            ms = (time.perf_counter() - start) * 1e3
        torch.cuda.synchronize()
        return ms

    def row(self, what: str, call) -> None:
        """One untimed run of `call`, then the fastest and slowest of `REPS`."""
        self.behind_gate(call)
        print_row(what, [self.behind_gate(call) for _ in range(REPS)])

    def on_copy(self, call):
        """`call`, run with the copy stream as the current stream."""

        def on_copy_stream():
            with torch.cuda.stream(self.copy):
                call()

        return on_copy_stream


def print_row(what: str, ms: list[float]) -> None:
    print(f"  {what:<54} {min(ms):>7.3f} – {max(ms):.3f} ms")


def reading_values(b: Bench) -> None:
    print("\nreading values")
    x = torch.zeros(1, device=cuda)
    pinned = torch.empty(1, pin_memory=True)
    ready = torch.cuda.Event()

    def pinned_copy():
        pinned.copy_(x, non_blocking=True)  # queued: the value lands later
        ready.record()  # ready.synchronize() where the value is needed

    b.row("x.item()", lambda: x.item())
    b.row("x.tolist()", lambda: x.tolist())
    b.row("pinned.copy_(x, non_blocking=True) + record an event", pinned_copy)


def pageable_copies(b: Bench) -> None:
    print("\ncopies (on the copy stream)")
    small, large = 1 << 10, 1 << 20  # float32 elements: 4 KiB, 4 MiB
    small_host, large_host = torch.zeros(small), torch.zeros(large)  # pageable
    large_pinned = torch.zeros(large).pin_memory()
    with torch.cuda.stream(b.copy):
        small_dev = torch.zeros(small, device=cuda)
        large_dev = torch.zeros(large, device=cuda)
    b.row('host.to("cuda"), 4 KiB pageable', b.on_copy(lambda: small_host.to(cuda)))
    b.row(
        "dev.copy_(host, non_blocking=True), 4 KiB pageable",
        b.on_copy(lambda: small_dev.copy_(small_host, non_blocking=True)),
    )
    b.row(
        "dev.copy_(host, non_blocking=True), 4 MiB pageable",
        b.on_copy(lambda: large_dev.copy_(large_host, non_blocking=True)),
    )
    b.row(
        "dev.copy_(host, non_blocking=True), 4 MiB pinned",
        b.on_copy(lambda: large_dev.copy_(large_pinned, non_blocking=True)),
    )
    b.row(
        'host.to("cuda", non_blocking=True), 4 MiB pinned',
        b.on_copy(lambda: large_pinned.to(cuda, non_blocking=True)),
    )
    b.row("dev.cpu(), 4 KiB into pageable memory", b.on_copy(lambda: small_dev.cpu()))


def pinned_memory(b: Bench) -> None:
    print("\npinning host memory")
    host = torch.zeros(1 << 20)  # 4 MiB, pageable
    kept = []
    b.row("host.pin_memory(), 4 MiB, every copy kept", lambda: kept.append(host.pin_memory()))
    kept.clear()
    b.row("host.pin_memory(), 4 MiB, each copy dropped", lambda: host.pin_memory())


def data_dependent(b: Bench) -> None:
    print("\ndata-dependent shapes and control flow")
    n = 4096
    done = torch.zeros(n, dtype=torch.int32, device=cuda)
    x = torch.zeros(n, device=cuda)

    def branch():
        if (done == 1).any():  # `if` needs a Python bool: the CPU waits for it
            x.zero_()

    b.row("torch.nonzero(done == 0)", lambda: torch.nonzero(done == 0))
    b.row("x[done == 0] (a boolean mask)", lambda: x[done == 0])
    b.row("torch.where(done == 0, x, 0.0) (the fixed shape)", lambda: torch.where(done == 0, x, 0.0))
    b.row("if (done == 1).any(): ...", branch)


def device_calls(key: str) -> int | None:
    """A counter of the caching allocator's driver calls, when this PyTorch has it."""
    return torch.cuda.memory_stats().get(key)


def calls_between(before: int | None, key: str) -> str:
    after = device_calls(key)
    return "?" if before is None or after is None else str(after - before)


def allocation(b: Bench) -> None:
    print("\nallocation and free, 64 MiB (the caching allocator)")
    elements = 16 << 20  # float32: 64 MiB
    held = {}

    def allocate():
        held["t"] = torch.empty(elements, device=cuda)  # the cache is empty: cudaMalloc

    def release():
        del held["t"]  # back into the cache: no driver call
        torch.cuda.empty_cache()  # the cache back to the driver: cudaFree

    misses, frees = [], []
    mallocs, cuda_frees = device_calls("num_device_alloc"), device_calls("num_device_free")
    for _ in range(REPS):
        torch.cuda.empty_cache()
        misses.append(b.behind_gate(allocate))
        frees.append(b.behind_gate(release))
    mallocs = calls_between(mallocs, "num_device_alloc")
    cuda_frees = calls_between(cuda_frees, "num_device_free")
    print_row(f"torch.empty, the cache empty ({mallocs} cudaMalloc in {REPS})", misses)
    print_row(f"del + torch.cuda.empty_cache() ({cuda_frees} cudaFree in {REPS})", frees)
    torch.empty(elements, device=cuda)  # leaves the block in the cache
    mallocs = device_calls("num_device_alloc")
    b.row("torch.empty + del, from the cache", lambda: torch.empty(elements, device=cuda))
    print(f"    (cudaMalloc during the cached pairs: {calls_between(mallocs, 'num_device_alloc')})")


def cpu_and_gpu_waits(b: Bench) -> None:
    print("\nCPU waits and GPU waits")
    with torch.cuda.stream(b.copy):
        x = torch.zeros(1024, device=cuda)
    y = torch.zeros((), device=cuda)

    def cpu_wait():
        with torch.cuda.stream(b.copy):
            x.fill_(1.0)  # stands for a copy on the copy stream
        b.copy.synchronize()  # the CPU waits for the copy stream
        torch.sum(x, 0, out=y)

    def gpu_wait():
        with torch.cuda.stream(b.copy):
            x.fill_(1.0)
        b.s.wait_stream(b.copy)  # the main stream waits, on the GPU
        torch.sum(x, 0, out=y)

    b.row("copy stream, then copy.synchronize()", cpu_wait)
    b.row("copy stream, then s.wait_stream(copy)", gpu_wait)
    b.row("torch.cuda.synchronize()", torch.cuda.synchronize)


def warnings_during(call) -> list[str]:
    """The warnings (first lines) raised while `call()` runs in sync debug mode "warn"."""
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            call()
        finally:
            torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    return [str(w.message).strip().splitlines()[0] for w in caught]


def sync_debug(b: Bench) -> None:
    print('\nsync debug mode: torch.cuda.set_sync_debug_mode("warn"), each call once')
    # Turning the mode on warns once by itself; that warning is not a call's.
    notices = warnings_during(lambda: None)
    for notice in notices:
        print(f"  turning it on: {notice}")
    x = torch.zeros(1, device=cuda)
    pinned = torch.empty(1, pin_memory=True)
    done = torch.zeros(4096, dtype=torch.int32, device=cuda)
    v = torch.zeros(4096, device=cuda)
    small_host, large_host = torch.zeros(1 << 10), torch.zeros(1 << 20)
    large_dev = torch.zeros(1 << 20, device=cuda)
    calls = [
        ("x.item()", lambda: x.item()),
        ("x.tolist()", lambda: x.tolist()),
        ("v.cpu()", lambda: v.cpu()),
        ("pinned.copy_(x, non_blocking=True)", lambda: pinned.copy_(x, non_blocking=True)),
        ("torch.nonzero(done == 0)", lambda: torch.nonzero(done == 0)),
        ("v[done == 0]", lambda: v[done == 0]),
        ("torch.where(done == 0, v, 0.0)", lambda: torch.where(done == 0, v, 0.0)),
        ("bool((done == 1).any())", lambda: bool((done == 1).any())),
        ('host.to("cuda"), 4 KiB pageable', lambda: small_host.to(cuda)),
        (
            "dev.copy_(host, non_blocking=True), 4 MiB pageable",
            lambda: large_dev.copy_(large_host, non_blocking=True),
        ),
        ("host.pin_memory()", lambda: small_host.pin_memory()),
        ("copy.synchronize()", b.copy.synchronize),
        ("torch.cuda.synchronize()", torch.cuda.synchronize),
    ]
    seen = []
    for what, call in calls:
        caught = [w for w in warnings_during(call) if w not in notices]
        print(f"  {what:<54} {'warns' if caught else 'silent'}")
        seen += [w for w in caught if w not in seen]
    for warning in seen:
        print(f"  the warning: {warning}")


def launches(spin: Spin) -> float:
    """CPU milliseconds to submit 32 launches of a 100 µs kernel, from an idle GPU."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(32):
        spin(0.1)
    ms = (time.perf_counter() - start) * 1e3
    torch.cuda.synchronize()
    return ms


def launch_blocking(spin: Spin) -> None:
    launches(spin)  # warm-up
    normal = launches(spin)
    # CUDA reads the variable when it starts: a child process gets it.
    child = subprocess.run(
        [sys.executable, os.path.abspath(__file__), CHILD, repr(spin.cycles_per_ms)],
        env={**os.environ, "CUDA_LAUNCH_BLOCKING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if child.returncode == 0:
        blocking = child.stdout.strip()
    else:
        last = (child.stderr.strip().splitlines() or ["no output"])[-1]
        blocking = f"the child failed ({last})"
    print("\ndebug settings: 32 launches of a 100 µs kernel, CPU time to submit them")
    print(f"  normally:                   {normal:.3f} ms")
    print(f"  CUDA_LAUNCH_BLOCKING=1:     {blocking}")


def child(cycles_per_ms: float) -> int:
    """Runs in a process whose environment has CUDA_LAUNCH_BLOCKING=1."""
    spin = Spin(cycles_per_ms)
    launches(spin)  # warm-up
    print(f"{launches(spin):.3f} ms")
    return 0


def main() -> int:
    if not require_cuda():
        return 1
    if CHILD in sys.argv:
        return child(float(sys.argv[-1]))
    spin = Spin()
    b = Bench(spin)
    print(header(COMMAND), end="")
    print(f"gate:    {spin}")
    print(
        f"\nBehind a {GATE_MS:.0f} ms gate on both streams, the CPU time until the calls return"
        f"\n(fastest – slowest of {REPS}, after one untimed run):"
    )
    with torch.cuda.stream(b.s):
        reading_values(b)
        pageable_copies(b)
        pinned_memory(b)
        data_dependent(b)
        allocation(b)
        cpu_and_gpu_waits(b)
        sync_debug(b)
    launch_blocking(spin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
