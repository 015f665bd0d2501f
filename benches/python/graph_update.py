"""Instantiating a graph against updating one, by node count, with PyTorch's kernels.

The measurement behind the graphs chapter's "Updating a graph instead of
capturing again" and its note on what grows with a graph's size. PyTorch's
``CUDAGraph`` has no update, so the capture and the graph calls go through
``cudart.py``; the kernels are PyTorch's (``x.add_(1)``, N times in a row on
a side stream: a straight line of N kernel nodes). For N = 10, 100 and
1000, the CPU time of:

* the capture (``cudaStreamBeginCapture`` .. ``cudaStreamEndCapture``);
* ``cudaGraphInstantiate``;
* the first ``cudaGraphLaunch`` (which uploads the graph) and the median of
  20 later ones (each waited for, so the queue is empty at every launch);
* a second capture of the same N kernels on another buffer, then either
  ``cudaGraphInstantiate`` of it or ``cudaGraphExecUpdate`` of the first
  executable graph from it: the update is checked by launching it (the
  second buffer grows by N, the first does not);
* an update from a graph with one node more, which the runtime refuses,
  with the reason it gives.

    python3 benches/python/graph_update.py > chapters/measurements/torch_graph_update.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

import cudart
from common import header, require_cuda, text

COMMAND = "python3 benches/python/graph_update.py"
SIZES = [10, 100, 1000]
LAUNCHES = 20


def timed(call):
    """(the call's result, its CPU time in ns)."""
    t0 = time.perf_counter_ns()
    result = call()
    return result, time.perf_counter_ns() - t0


def capture(stream: torch.cuda.Stream, x: torch.Tensor, nodes: int) -> int:
    """A graph of `nodes` kernels `x.add_(1)`, captured on `stream`."""
    with torch.cuda.stream(stream):
        cudart.begin_capture(stream.cuda_stream)
        for _ in range(nodes):
            x.add_(1)
        return cudart.end_capture(stream.cuda_stream)


def launched(exec_: int, stream: torch.cuda.Stream) -> float:
    """CPU ns of one launch of an idle queue, waited for afterwards."""
    _, ns = timed(lambda: cudart.graph_launch(exec_, stream.cuda_stream))
    stream.synchronize()
    return ns


def measure(stream: torch.cuda.Stream, nodes: int) -> list[str]:
    x1 = torch.zeros(1024, device="cuda")
    x2 = torch.zeros(1024, device="cuda")
    torch.cuda.synchronize()
    g1, capture_ns = timed(lambda: capture(stream, x1, nodes))
    assert cudart.node_count(g1) == nodes, f"{cudart.node_count(g1)} nodes captured, {nodes} queued"
    e1, instantiate_ns = timed(lambda: cudart.instantiate(g1))
    first_ns = launched(e1, stream)
    later_ns = statistics.median(launched(e1, stream) for _ in range(LAUNCHES))
    g2 = capture(stream, x2, nodes)
    e2, instantiate2_ns = timed(lambda: cudart.instantiate(g2))
    result, update_ns = timed(lambda: cudart.exec_update(e1, g2))
    ran = x1[0].item(), x2[0].item()
    launched(e1, stream)  # e1 now writes x2
    after = x1[0].item(), x2[0].item()
    updated = after[0] == ran[0] and after[1] == ran[1] + nodes
    g3 = capture(stream, x2, nodes + 1)
    refused = cudart.exec_update(e1, g3)
    for graph, exec_ in ((g1, e1), (g2, e2), (g3, 0)):
        cudart.destroy(graph, exec_)
    return [
        f"N = {nodes}",
        f"  capture                            {text(capture_ns):>9}",
        f"  cudaGraphInstantiate               {text(instantiate_ns):>9} (of the second capture: {text(instantiate2_ns)})",
        f"  first cudaGraphLaunch (uploads)    {text(first_ns):>9}",
        f"  later cudaGraphLaunch, median      {text(later_ns):>9}",
        f"  cudaGraphExecUpdate (same N)       {text(update_ns):>9}: {result}; "
        f"the updated graph wrote the second buffer only: {'yes' if updated else 'NO'}",
        f"  cudaGraphExecUpdate (N + 1 nodes)  refused: {refused}",
    ]


def main() -> int:
    if not require_cuda():
        return 1
    print(header(COMMAND))
    stream = torch.cuda.Stream()
    warm = torch.zeros(1024, device="cuda")
    with torch.cuda.stream(stream):
        warm.add_(1)  # loads the kernel before any capture
    torch.cuda.synchronize()
    print(f"A straight line of N kernels x.add_(1) on 4 KiB; CPU times; later launches: median of {LAUNCHES}.")
    print()
    for nodes in SIZES:
        measure(stream, 1 if nodes == SIZES[0] else SIZES[0])  # a warm-up of the calls themselves
        print("\n".join(measure(stream, nodes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
