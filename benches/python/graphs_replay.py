"""A decode step captured as CUDA graphs and replayed, in PyTorch.

The PyTorch side of ``cargo run --release -p workbook-benches --example
graphs_replay``. First 200 empty kernels (``torch.cuda._sleep(0)``), launched
one by one and replayed as one ``torch.cuda.CUDAGraph``. Then the decode step
of exercise 103: 64 tiny layers ``y = a * x + b`` over rows of 256 floats,
one kernel each (``torch.add(b, x, alpha=a, out=...)``), batches cycling
between 1 and 16 rows. Run eagerly, a step is 64 launches. Replayed, it is
a copy into the static input, a fill of the padding rows, one
``graph.replay()`` of the smallest bucket (1, 2, 4, 8, 16 rows) that holds
the batch, and a copy out of the static output; the graphs are captured
after a warm-up on a side stream, largest first, sharing one memory pool.

For each: the CPU's submit time and the time until the stream is idle, from
an idle stream (median and range of 20, after one more); the GPU time of a
step measured with events while a 5 ms kernel holds the stream; the time per
step of 200 steps back to back. Then a ``synchronize`` inside a capture.

    python3 benches/python/graphs_replay.py > chapters/measurements/torch_graphs_replay.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

from common import Spin, header, require_cuda, spread, text

COMMAND = "python3 benches/python/graphs_replay.py"
EMPTY = 200
LAYERS, WIDTH = 64, 256
BUCKETS = (1, 2, 4, 8, 16)
MAX_ROWS = BUCKETS[-1]
SIZES = (1, 3, 16, 6, 2, 11, 8, 5)  # the batch sizes the steps cycle through
REPS, LOOP_STEPS = 20, 200
GATE_MS = 5.0
cuda = torch.device("cuda")


class Model:
    """Exercise 103's model: layer `i` is `y = a_i * x + b_i`, one kernel."""

    def __init__(self) -> None:
        self.a = [0.75 + (i % 16) / 64 for i in range(LAYERS)]
        # Each b a 0-dim tensor on the device: `b + a * x` is then one kernel.
        self.b = [torch.tensor(((i * 7) % 33) / 64 - 0.25, device=cuda) for i in range(LAYERS)]

    def forward(self, x, y, scratch) -> None:
        """`y = layers(x)`, ping-ponging between the scratch tensors; allocates nothing."""
        for i in range(LAYERS):
            src = x if i == 0 else scratch[(i + 1) % 2]
            dst = y if i == LAYERS - 1 else scratch[i % 2]
            torch.add(self.b[i], src, alpha=self.a[i], out=dst)


def buffers():
    """An input, an output and two scratch tensors of `MAX_ROWS` rows."""
    n = MAX_ROWS * WIDTH
    return [torch.zeros(n, device=cuda) for _ in range(4)]


def views(tensors, rows: int):
    """The first `rows` rows of an (input, output, scratch, scratch) set."""
    x, y, s0, s1 = (t[: rows * WIDTH] for t in tensors)
    return x, y, (s0, s1)


class Runner:
    """Static buffers and one graph per bucket; `decode` replays one."""

    def __init__(self, model: Model, stream) -> None:
        self.static = buffers()  # the graphs read and write these addresses
        # Warm up on a side stream (PyTorch's recipe): first-run work
        # happens here, and none of it is captured.
        side = torch.cuda.Stream()
        side.wait_stream(stream)  # after whatever filled the buffers
        with torch.cuda.stream(side):
            for _ in range(3):
                model.forward(*views(self.static, MAX_ROWS))
        stream.wait_stream(side)  # captures and replays after the warm-up's writes
        self.graphs, pool = {}, None
        for bucket in reversed(BUCKETS):  # largest first; the others share its pool
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, pool=pool):
                model.forward(*views(self.static, bucket))
            self.graphs[bucket], pool = graph, graph.pool()

    def decode(self, x, y) -> None:
        """One step for the batch `x` (1 to 16 rows) into `y`; nothing waits."""
        rows = x.numel() // WIDTH
        bucket = next(b for b in BUCKETS if b >= rows)
        real, padded = rows * WIDTH, bucket * WIDTH
        static_in, static_out = self.static[0], self.static[1]
        static_in[:real].copy_(x)  # the graph reads the static input
        if padded > real:
            static_in[real:padded].zero_()  # padding rows hold defined values
        self.graphs[bucket].replay()
        y.copy_(static_out[:real])  # before the next replay overwrites it


def timed(stream, submit) -> tuple[list[float], list[float]]:
    """CPU ns of `submit(rep)`, and ns until the stream is idle, from an idle
    stream; `REPS` times after one more."""
    cpu, total = [], []
    for rep in range(REPS + 1):
        stream.synchronize()
        start = time.perf_counter_ns()
        submit(rep)
        queued = time.perf_counter_ns()
        stream.synchronize()
        if rep > 0:
            cpu.append(queued - start)
            total.append(time.perf_counter_ns() - start)
    return cpu, total


def gpu_time(spin: Spin, step) -> list[float]:
    """GPU ns of `step(rep)`, events around it while a 5 ms kernel holds the stream."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    samples = []
    for rep in range(REPS + 1):
        spin(GATE_MS)
        start.record()
        step(rep)
        end.record()
        end.synchronize()
        if rep > 0:
            samples.append(start.elapsed_time(end) * 1e6)
    return samples


def back_to_back(stream, step) -> float:
    """ns per step of `LOOP_STEPS` steps queued back to back."""
    stream.synchronize()
    start = time.perf_counter_ns()
    for k in range(LOOP_STEPS):
        step(k)
    stream.synchronize()
    return (time.perf_counter_ns() - start) / LOOP_STEPS


def empty_kernels(stream):
    kernels = lambda: [torch.cuda._sleep(0) for _ in range(EMPTY)]  # noqa: E731
    eager = timed(stream, lambda _: kernels())
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernels()
    return eager, timed(stream, lambda _: graph.replay())


def sync_in_capture() -> tuple[str, str]:
    """What `torch.cuda.synchronize()` inside a capture raises, and what ending the capture raises then."""
    first_line = lambda e: f"{type(e).__name__}: {str(e).strip().splitlines()[0]}"  # noqa: E731
    graph, side = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    with torch.cuda.stream(side):
        graph.capture_begin()
        torch.cuda._sleep(0)
        try:
            torch.cuda.synchronize()
            sync = "accepted"
        except Exception as e:  # noqa: BLE001 (a RuntimeError or its subclass)
            sync = first_line(e)
        try:
            graph.capture_end()
            end = "a graph"
        except Exception as e:  # noqa: BLE001 (a RuntimeError or its subclass)
            end = first_line(e)
    return sync, end


def line(what: str, cpu: list[float], total: list[float]) -> str:
    return f"  {what:<22} submit {spread(cpu)}, total {spread(total)}"


def main() -> int:
    if not require_cuda():
        return 1
    spin = Spin()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        (e_cpu, e_total), (g_cpu, g_total) = empty_kernels(stream)
        model, step = Model(), buffers()
        step[0].fill_(0.5)
        stream.synchronize()
        start = time.perf_counter_ns()
        runner = Runner(model, stream)
        stream.synchronize()
        setup = time.perf_counter_ns() - start
        rows = lambda k: SIZES[k % len(SIZES)]  # noqa: E731
        eager = lambda k: model.forward(*views(step, rows(k)))  # noqa: E731
        replayed = lambda k: runner.decode(*views(step, rows(k))[:2])  # noqa: E731
        eager(1)  # 3 rows, eagerly...
        expected = step[1][: 3 * WIDTH].clone()
        step[1].zero_()
        replayed(1)  # ...and replayed from the 4-row graph
        difference = (expected - step[1][: 3 * WIDTH]).abs().max().item()
        s_cpu, s_total = timed(stream, eager)
        r_cpu, r_total = timed(stream, replayed)
        gpu_eager, gpu_replayed = gpu_time(spin, eager), gpu_time(spin, replayed)
        loop_eager, loop_replayed = back_to_back(stream, eager), back_to_back(stream, replayed)

    ratio = lambda a, b: f"{statistics.median(a) / statistics.median(b):.1f}x"  # noqa: E731
    print(header(COMMAND), end="")
    print(f"kernel:  {spin}")
    print(f"\nmedian (min–max) of {REPS} repetitions")
    print(f"\n{EMPTY} empty kernels (torch.cuda._sleep(0))")
    print(line(f"eager, {EMPTY} launches:", e_cpu, e_total))
    print(line("one graph replay:", g_cpu, g_total))
    print(f"  submit eager / graph:  {ratio(e_cpu, g_cpu)}")
    print(f"\ndecode step of exercise 103 ({LAYERS} layers, batches of 1 to {MAX_ROWS} rows of {WIDTH})")
    print(f"  setup (buffers, 3 warm-up steps on a side stream, {len(BUCKETS)} captures):  {text(setup)}")
    print(f"  largest difference between the replayed rows and the eager ones: {difference:g}")
    print(line(f"eager, {LAYERS} launches:", s_cpu, s_total))
    print(line("replayed (3–4 calls):", r_cpu, r_total))
    print(f"  submit eager / replay: {ratio(s_cpu, r_cpu)}")
    print(
        f"  GPU time behind a gate (events): eager {spread(gpu_eager)}, replayed {spread(gpu_replayed)}"
    )
    print(f"  {LOOP_STEPS} steps back to back, per step: eager {text(loop_eager)}, replayed {text(loop_replayed)}")
    print("\na synchronize inside a capture", flush=True)
    sync, end = sync_in_capture()  # last: it leaves a capture that failed
    print(f"  torch.cuda.synchronize(): {sync}")
    print(f"  capture_end():            {end}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
