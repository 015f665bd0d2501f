"""The caching allocator's reuse, and ``record_stream``, in PyTorch.

The PyTorch side of the allocator chapter's ``record_stream`` on the GPU (the
slow reader of ``benches/src/driver.rs``). A 1 MiB block is allocated on
stream A and filled with ones there; stream B waits for A, then runs a slow
reader: 20 ms of ``torch.cuda._sleep``, then a sum of the block. The CPU
drops the block at once, allocates 1 MiB on A again and fills it with 999.
Without ``record_stream`` the allocator hands A the same block, A's fill
lands before B reads it, and B's sum is wrong; with
``block.record_stream(B)`` the block waits for B, A gets other memory, and
B's sum is right. The case without ``record_stream`` runs twice: the first
is the process's first sum, whose kernel CUDA loads at its first launch
(the CPU time of that launch is shown in every case). Addresses come from
``data_ptr()``, the memory figures from ``torch.cuda.memory_allocated()``,
``memory_reserved()`` and ``memory_stats()``.

    python3 benches/python/record_stream.py > chapters/measurements/torch_record_stream.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import os
import sys
import time

import torch

from common import Spin, header, require_cuda

COMMAND = "python3 benches/python/record_stream.py"
N = 1 << 18  # float32 elements: 1 MiB
SLOW_MS = 20.0
MIB = 1 << 20
cuda = torch.device("cuda")


def mib(nbytes: int) -> str:
    return f"{nbytes / MIB:.2f} MiB"


def memory() -> str:
    """Allocated (live tensors), active (not yet reusable) and reserved (held from the driver)."""
    active = torch.cuda.memory_stats().get("active_bytes.all.current")
    return (
        f"allocated {mib(torch.cuda.memory_allocated())}, "
        f"active {'?' if active is None else mib(active)}, "
        f"reserved {mib(torch.cuda.memory_reserved())}"
    )


def device_allocs() -> int:
    return torch.cuda.memory_stats().get("num_device_alloc", -1)


def where(addr: int, old: int) -> str:
    return "the same block" if addr == old else f"{(addr - old) / MIB:+.2f} MiB from it"


def slow_reader(spin: Spin, a, b, record: bool) -> None:
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # each case starts from an empty cache
    with torch.cuda.stream(b):
        out = torch.zeros((), device=cuda)
    with torch.cuda.stream(a):
        block = torch.empty(N, device=cuda)
        block.fill_(1.0)
    old = block.data_ptr()
    b.wait_stream(a)  # B reads what A wrote
    with torch.cuda.stream(b):
        spin(SLOW_MS)  # the slow reader: 20 ms, then the sum
        start = time.perf_counter()
        torch.sum(block, 0, out=out)
        launch_ms = (time.perf_counter() - start) * 1e3
    if record:
        block.record_stream(b)  # B uses the block: its reuse waits for B
    print(f"  CPU time to launch the sum {launch_ms:.3f} ms")
    print(f"  before the free            {memory()}")
    del block  # the CPU is done with it; stream B is not
    print(f"  after the free             {memory()}")
    mallocs = device_allocs()
    with torch.cuda.stream(a):
        again = torch.empty(N, device=cuda)
        again.fill_(999.0)
    mallocs = "?" if mallocs < 0 else device_allocs() - mallocs
    print(f"  the block B reads          {old:#x}")
    print(
        f"  the next 1 MiB on A        {again.data_ptr():#x}  "
        f"({where(again.data_ptr(), old)}; cudaMalloc calls: {mallocs})"
    )
    torch.cuda.synchronize()
    print(f"  B's sum                    {out.item():,.0f} (expected {N:,})")
    if record:
        with torch.cuda.stream(a):
            later = torch.empty(N, device=cuda)
        print(
            f"  once B is done, 1 MiB on A {later.data_ptr():#x}  ({where(later.data_ptr(), old)})"
        )
        print(f"  then                       {memory()}")


def main() -> int:
    if not require_cuda():
        return 1
    spin = Spin()
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    print(header(COMMAND), end="")
    print(f"kernel:  {spin}")
    print(f"alloc:   PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')!r}")
    print(f"modules: CUDA_MODULE_LOADING={os.environ.get('CUDA_MODULE_LOADING', '')!r}")
    print(
        f"\nA block of {N:,} floats (1 MiB) filled with 1.0 on stream A; B waits for A, then sleeps"
        f"\n{SLOW_MS:.0f} ms and sums the block. The CPU frees the block at once, then allocates 1 MiB"
        "\non A and fills it with 999.0."
    )
    print("\nwithout record_stream, the first sum of this process")
    slow_reader(spin, a, b, record=False)
    print("\nwithout record_stream, again")
    slow_reader(spin, a, b, record=False)
    print("\nwith block.record_stream(B) before the free")
    slow_reader(spin, a, b, record=True)
    torch.cuda.synchronize()
    print("\nthe cache, every tensor freed")
    print(f"  before torch.cuda.empty_cache()  {memory()}")
    torch.cuda.empty_cache()
    print(f"  after it                         {memory()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
