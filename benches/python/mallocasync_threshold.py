"""CUDA's stream-ordered pool with and without a release threshold, in PyTorch.

The measurement behind the allocator chapter's ``cudaMallocAsync`` section
and the hidden-syncs chapter's allocation row. The script runs PyTorch with
``PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync`` (set before PyTorch is
imported), so ``torch.empty`` is a ``cudaMallocAsync`` from the device's
default pool and dropping the tensor a ``cudaFreeAsync``. PyTorch raises
that pool's release threshold to the largest value there is; through
``cudart.py`` the script reads it, then sets it back to CUDA's default of 0
for the second half, the pool as the workbook's ``gpu`` crate leaves it.

Each of 30 rounds: ``torch.cuda.synchronize()``, then the CPU time of
``torch.empty`` of 64 MiB, then the tensor dropped. Shown per threshold:
the median, least and most CPU time of the allocation, and the memory the
pool holds from the driver after a synchronize (its reserved bytes).

    python3 benches/python/mallocasync_threshold.py > chapters/measurements/torch_mallocasync_threshold.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "backend:cudaMallocAsync"

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import torch  # noqa: E402

import cudart  # noqa: E402
from common import header, require_cuda, text  # noqa: E402

COMMAND = "python3 benches/python/mallocasync_threshold.py"
ROUNDS = 30
MIB = 1 << 20
NBYTES = 64 * MIB


def rounds(pool: int) -> tuple[list[float], int]:
    """CPU ns of each allocation after a synchronize, and the pool's reserved bytes at the end."""
    samples = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        block = torch.empty(NBYTES, dtype=torch.uint8, device="cuda")
        samples.append(time.perf_counter_ns() - t0)
        del block
    torch.cuda.synchronize()
    return samples, cudart.pool_get(pool, cudart.POOL_RESERVED_MEM_CURRENT)


def main() -> int:
    if not require_cuda():
        return 1
    print(header(f"{COMMAND}  (PYTORCH_CUDA_ALLOC_CONF={os.environ['PYTORCH_CUDA_ALLOC_CONF']})"))
    backend = torch.cuda.get_allocator_backend()
    torch.empty(1, device="cuda")  # PyTorch sets up the pool at its first allocation
    pool = cudart.default_pool()
    pytorch_threshold = cudart.pool_get(pool, cudart.POOL_RELEASE_THRESHOLD)
    print(f"allocator backend: {backend}; 30 rounds of synchronize, torch.empty of 64 MiB, drop")
    print()
    for label, threshold in (("PyTorch's threshold", pytorch_threshold), ("CUDA's default, 0", 0)):
        cudart.pool_set(pool, cudart.POOL_RELEASE_THRESHOLD, threshold)
        samples, reserved = rounds(pool)
        print(
            f"release threshold {threshold:>20} ({label}): allocation {text(statistics.median(samples)):>9} "
            f"({text(min(samples))}–{text(max(samples))}); the pool holds {reserved / MIB:.0f} MiB after a synchronize"
        )
    cudart.pool_set(pool, cudart.POOL_RELEASE_THRESHOLD, pytorch_threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
