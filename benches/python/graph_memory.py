"""What captured graphs keep of device memory, with and without one shared pool.

The measurement behind the graphs chapter's "Graphs and the allocator". A
decode-like step (``relu(x @ w1) @ w2``, hidden size 4096, an inner size
of 16384, bf16) allocates its intermediate and its output during capture.
It is captured for the batch sizes 256, 128, 64, 32, 16, 8, 4, 2 and 1 (the
largest first, as engines do), each from a static input of its own, after a
warm-up on the stream the captures then run on (cuBLAS keeps a workspace per
handle and stream: warmed up on another stream, the first capture would
allocate the capture stream's workspace into its private pool), in two ways:

* **a pool per graph**: ``torch.cuda.graph(g)``, each capture with the
  private pool PyTorch gives it;
* **one shared pool**: ``torch.cuda.graph(g, pool=first.pool())``, every
  capture after the first in the pool of the first (the largest).

For each: how much more the caching allocator holds from the driver
(``torch.cuda.memory_reserved()``) once the graphs exist, against the
same before the captures, the static inputs and weights already allocated;
and the largest bucket's graph alone. Each way runs in a fresh process.
A replay of every graph checks its output against the step run eagerly.

    python3 benches/python/graph_memory.py > chapters/measurements/torch_graph_memory.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import subprocess
import sys

HIDDEN = 4096
INNER = 16384
BUCKETS = [256, 128, 64, 32, 16, 8, 4, 2, 1]
MIB = 1 << 20


def child(way: str) -> None:
    import torch

    torch.manual_seed(0)
    kind = dict(device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(HIDDEN, INNER, **kind) / 64
    w2 = torch.randn(INNER, HIDDEN, **kind) / 128
    buckets = BUCKETS[:1] if way == "largest" else BUCKETS
    inputs = {b: torch.randn(b, HIDDEN, **kind) for b in buckets}

    def step(x):
        return torch.relu(x @ w1) @ w2

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for b in buckets:
            step(inputs[b])  # the warm-up: cuBLAS's kernels, and its workspace for this stream
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    before = torch.cuda.memory_reserved()
    graphs, outputs, pool = {}, {}, None
    for b in buckets:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool if way == "shared" else None, stream=side):
            outputs[b] = step(inputs[b])
        if way == "shared" and pool is None:
            pool = g.pool()
        graphs[b] = g
    torch.cuda.synchronize()
    grown = torch.cuda.memory_reserved() - before
    worst = 0.0
    for b in buckets:
        graphs[b].replay()
        torch.cuda.synchronize()
        expect = step(inputs[b])
        worst = max(worst, (outputs[b].float() - expect.float()).abs().max().item())
    print(f"{way} {grown} {len(buckets)} {worst}")


def main() -> int:
    from common import header, require_cuda

    if not require_cuda():
        return 1
    print(header("python3 benches/python/graph_memory.py"))
    print(f"relu(x @ w1) @ w2, bf16, hidden {HIDDEN}, inner {INNER}; buckets {', '.join(map(str, BUCKETS))}.")
    print("Growth of torch.cuda.memory_reserved() over the captures; each way in a fresh process;")
    print("the replays' outputs against the eager step (largest absolute difference).")
    print()
    labels = {
        "largest": "the largest bucket's graph alone",
        "private": "a pool per graph (every bucket)",
        "shared": "one shared pool (every bucket)",
    }
    for way, label in labels.items():
        done = subprocess.run([sys.executable, __file__, "--child", way], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"error: the {way} child failed: {done.stderr.strip()[-400:]}", file=sys.stderr)
            return 1
        _, grown, graphs, worst = done.stdout.split()
        print(f"{label:<36} {int(grown) / MIB:8.1f} MiB for {graphs} graph(s); replay vs eager: {float(worst):.3g}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        sys.exit(main())
