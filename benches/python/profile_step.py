"""Profiling an engine-like decode step with torch.profiler, in PyTorch.

The PyTorch side of the chapter "Profiling a step". The step is a small
decoder run eagerly, as an engine without CUDA graphs runs it: an embedding
lookup of the batch's last tokens; per layer an attention-like block (layer
norm, qkv matmul, this token's key and value written into a fixed slot of a
KV cache, scores matmul against the cache, softmax, context matmul, output
matmul, residual add) and an MLP (layer norm, up matmul, GELU, down matmul,
residual add); the final norm and the logits matmul; a top-k sample on the
GPU; then the engine's habitual hidden sync: the sampled token ids read back
with ``.tolist()``, a copy into pageable memory for which the CPU waits for
the whole step. The cache does not grow, so every step does the same work.

Every part is a range under both ``torch.profiler.record_function`` and
``torch.cuda.nvtx.range_push``/``range_pop`` (Nsight Systems sees the same
ranges): "step", "embed", "layer.{i}", "attention", "mlp", "logits",
"sample", "read tokens".

After 5 warm-up steps, ``torch.profiler`` (CPU and CUDA activities, no
shapes, no stacks) records 3 steps behind a schedule (1 step skipped, 1 of
profiler warm-up), exports the Chrome trace to the path given as the first
argument (default ``torch_profile_step.json``) and prints what the profile
shows: per range, the count and CPU and device times from
``prof.key_averages()``; per step, from the trace, the kernels (events with
"cat" == "kernel"), their summed time, the GPU's busy time (the union of the
kernel intervals, overlap counted once), the step's wall time and the GPU's
idle fraction (1 - busy / wall); the longest CUDA API calls of the last step
on the CPU side and what the GPU did meanwhile; the launch gap (median time
from the end of a kernel to the start of the next on the same stream); and
the profiler's own cost: the step's wall time (``synchronize``, then
``perf_counter_ns`` around the step) over 20 steps without the profiler
against the 3 with it. ``benches/python/trace_svg.py`` draws one step of the
trace as an SVG timeline.

When Nsight Systems is on the PATH the script prints its version, and with
``PROFILE_NSYS=1`` it also runs itself under ``nsys profile -t cuda,nvtx``
(``--inner``: warm-up and 3 steps, no torch.profiler) and prints the tables
of ``nsys stats`` (NVTX ranges, CUDA API calls, GPU kernels).

    WORKBOOK_COMMIT=$(git rev-parse --short HEAD) python3 benches/python/profile_step.py chapters/profiles/torch_step.json > chapters/measurements/torch_profile_step.txt

Needs PyTorch 2.x with CUDA and a GPU; the header says what it ran on.
"""

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

from common import header, require_cuda, spread, text

SCRIPT = "benches/python/profile_step.py"
DEFAULT_TRACE = "torch_profile_step.json"
INNER = "--inner"

LAYERS, HIDDEN, HEADS, CONTEXT = 4, 1024, 8, 512
VOCAB, BATCH, TOP_K, TEMPERATURE = 32_000, 8, 50, 0.8
DTYPE = torch.bfloat16
WARMUP, SKIPPED, PROFILER_WARMUP, PROFILED, UNPROFILED = 5, 1, 1, 3, 20
RANGES = ["step", "embed"] + [f"layer.{i}" for i in range(LAYERS)]
RANGES += ["attention", "mlp", "logits", "sample", "read tokens"]
API = ("cuda_runtime", "cuda_driver")
cuda = torch.device("cuda")


@contextlib.contextmanager
def mark(name: str):
    """A range seen by torch.profiler (record_function) and by Nsight Systems (NVTX)."""
    torch.cuda.nvtx.range_push(name)
    try:
        with record_function(name):
            yield
    finally:
        torch.cuda.nvtx.range_pop()


class Decoder:
    """The weights, the KV cache and the sampler's generator of a small decoder."""

    def __init__(self) -> None:
        g = torch.Generator(device=cuda).manual_seed(7)

        def weight(*shape: int) -> torch.Tensor:
            scale = shape[0] ** -0.5
            return (torch.randn(*shape, device=cuda, generator=g) * scale).to(DTYPE)

        self.embedding = weight(VOCAB, HIDDEN)
        self.layers = [
            {
                "qkv": weight(HIDDEN, 3 * HIDDEN),
                "out": weight(HIDDEN, HIDDEN),
                "up": weight(HIDDEN, 4 * HIDDEN),
                "down": weight(4 * HIDDEN, HIDDEN),
                "k": weight(BATCH, HEADS, CONTEXT, HIDDEN // HEADS),
                "v": weight(BATCH, HEADS, CONTEXT, HIDDEN // HEADS),
            }
            for _ in range(LAYERS)
        ]
        self.norm = torch.ones(HIDDEN, device=cuda, dtype=DTYPE)
        self.lm_head = weight(HIDDEN, VOCAB)
        self.sampler = torch.Generator(device=cuda).manual_seed(11)

    def parameters(self) -> int:
        per_layer = sum(w.numel() for k, w in self.layers[0].items() if k not in ("k", "v"))
        return self.embedding.numel() + LAYERS * per_layer + self.norm.numel() + self.lm_head.numel()

    def attention(self, x: torch.Tensor, w: dict) -> torch.Tensor:
        h = F.layer_norm(x, (HIDDEN,), self.norm)
        q, k, v = (h @ w["qkv"]).view(BATCH, 3, HEADS, HIDDEN // HEADS).unbind(1)
        w["k"][:, :, -1].copy_(k)  # this token's key and value into the cache
        w["v"][:, :, -1].copy_(v)
        scores = q.unsqueeze(2) @ w["k"].transpose(2, 3)  # (batch, heads, 1, context)
        probs = torch.softmax(scores * (HIDDEN // HEADS) ** -0.5, dim=-1)
        context = (probs @ w["v"]).reshape(BATCH, HIDDEN)
        return x + context @ w["out"]

    def mlp(self, x: torch.Tensor, w: dict) -> torch.Tensor:
        h = F.layer_norm(x, (HIDDEN,), self.norm)
        return x + F.gelu(h @ w["up"], approximate="tanh") @ w["down"]

    def sample(self, logits: torch.Tensor) -> torch.Tensor:
        """Top-k sampling on the GPU: probabilities over exponential noise, the
        largest wins (no multinomial, no sync)."""
        values, indices = torch.topk(logits.float(), TOP_K, dim=-1)
        probs = torch.softmax(values / TEMPERATURE, dim=-1)
        noise = torch.empty_like(probs).exponential_(generator=self.sampler)
        choice = torch.argmax(probs / noise, dim=-1, keepdim=True)
        return indices.gather(-1, choice).squeeze(-1)

    def step(self, tokens: torch.Tensor) -> tuple[torch.Tensor, list[int], int]:
        """One decode step: the next tokens on the device, their ids on the
        host, and the CPU's clock (ns) when it started reading them."""
        with mark("step"):
            with mark("embed"):
                x = self.embedding[tokens]
            for i, w in enumerate(self.layers):
                with mark(f"layer.{i}"):
                    with mark("attention"):
                        x = self.attention(x, w)
                    with mark("mlp"):
                        x = self.mlp(x, w)
            with mark("logits"):
                logits = F.layer_norm(x, (HIDDEN,), self.norm) @ self.lm_head
            with mark("sample"):
                tokens = self.sample(logits)
            reading = time.perf_counter_ns()
            with mark("read tokens"):
                ids = tokens.tolist()  # pageable memory: the CPU waits for the step
        return tokens, ids, reading


class Timed:
    """Runs steps, each from an idle GPU, and keeps each one's wall time and
    enqueue time (start to the reading of the tokens), in ns."""

    def __init__(self, decoder: Decoder) -> None:
        self.decoder = decoder
        self.tokens = torch.arange(BATCH, device=cuda) * 997 % VOCAB
        self.wall, self.enqueue = [], []

    def __call__(self) -> None:
        torch.cuda.synchronize()
        start = time.perf_counter_ns()
        self.tokens, _, reading = self.decoder.step(self.tokens)
        self.wall.append(time.perf_counter_ns() - start)
        self.enqueue.append(reading - start)

    def reset(self) -> None:
        self.wall, self.enqueue = [], []


def device_time(avg) -> float:
    """The device time of a key_averages row, µs: `device_time_total` (PyTorch
    2.4 and later), else `cuda_time_total`."""
    value = getattr(avg, "device_time_total", None)
    if value is None:
        value = getattr(avg, "cuda_time_total", 0.0)
    return float(value)


def on_cpu(avg) -> bool:
    """Whether a key_averages row is the CPU-side range (not its GPU-side twin,
    the gpu_user_annotation, that some versions list under the same name)."""
    kind = getattr(avg, "device_type", None)
    return kind is None or str(kind).endswith("CPU")


def range_rows(averages) -> list[tuple[str, int, float, float]]:
    """Per range: name, count, CPU total µs, device total µs (the kernels and
    copies launched inside it)."""
    rows = []
    for name in RANGES:
        cpu = [a for a in averages if a.key == name and on_cpu(a)]
        if cpu:
            rows.append((name, cpu[0].count, cpu[0].cpu_time_total, device_time(cpu[0])))
    return rows


def profile_steps(timed: Timed, path: str):
    """Profiles `PROFILED` steps; exports the Chrome trace to `path` and
    returns the key_averages."""
    kept = {}

    def ready(prof) -> None:
        prof.export_chrome_trace(path)
        kept["averages"] = prof.key_averages()

    steps = SKIPPED + PROFILER_WARMUP + PROFILED
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    plan = schedule(wait=SKIPPED, warmup=PROFILER_WARMUP, active=PROFILED, repeat=1)
    with warnings.catch_warnings():
        # PyTorch 2.4 and later warn that a cycle's end clears its events: one cycle here.
        warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
        with profile(
            activities=activities,
            schedule=plan,
            on_trace_ready=ready,
            record_shapes=False,
            with_stack=False,
        ) as prof:
            for i in range(steps):
                if i == SKIPPED + PROFILER_WARMUP:
                    timed.reset()  # keeps the profiled steps' times only
                timed()
                prof.step()
    return kept["averages"]


# --- the Chrome trace -------------------------------------------------------


def trace_events(path: str) -> list[dict]:
    """The complete ("X") events of a Chrome trace, sorted by start."""
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    complete = [
        e for e in events if e.get("ph") == "X" and "ts" in e and "dur" in e and "cat" in e
    ]
    for e in complete:
        e["ts"], e["dur"] = float(e["ts"]), float(e["dur"])
    return sorted(complete, key=lambda e: (e["ts"], -e["dur"]))


def end(e: dict) -> float:
    return e["ts"] + e["dur"]


def union(intervals: list[tuple[float, float]]) -> float:
    """The length covered by `intervals` (start, end), overlap counted once."""
    covered, reach = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > reach:
            covered += stop - max(start, reach)
            reach = stop
    return covered


def clipped(events: list[dict], start: float, stop: float) -> list[tuple[float, float]]:
    """The parts of `events` inside [start, stop]."""
    parts = [(max(e["ts"], start), min(end(e), stop)) for e in events]
    return [(a, b) for a, b in parts if b > a]


def overlapping(events: list[dict], start: float, stop: float, cats) -> list[dict]:
    return [e for e in events if e["cat"] in cats and e["ts"] < stop and end(e) > start]


def stream(e: dict):
    return e.get("args", {}).get("stream", e.get("tid"))


class Step:
    """One step of the trace: its CPU range, and the GPU work and API calls in it."""

    def __init__(self, events: list[dict], span: dict) -> None:
        self.start, self.stop, self.wall = span["ts"], end(span), span["dur"]
        self.kernels = overlapping(events, self.start, self.stop, ("kernel",))
        self.copies = overlapping(events, self.start, self.stop, ("gpu_memcpy", "gpu_memset"))
        self.calls = overlapping(events, self.start, self.stop, API)
        reads = [
            e for e in overlapping(events, self.start, self.stop, ("user_annotation",))
            if e["name"] == "read tokens"
        ]
        self.enqueue = (reads[0]["ts"] - self.start) if reads else None
        self.kernel_time = sum(e["dur"] for e in self.kernels)
        self.busy = union(clipped(self.kernels, self.start, self.stop))

    def idle(self) -> float:
        return 1 - self.busy / self.wall

    def gaps(self) -> list[float]:
        """From the end of each kernel to the start of the next, per stream, µs."""
        gaps = []
        for s in sorted({str(stream(k)) for k in self.kernels}):
            on_s = [k for k in self.kernels if str(stream(k)) == s]
            gaps += [max(0.0, b["ts"] - end(a)) for a, b in zip(on_s, on_s[1:])]
        return gaps

    def meanwhile(self, call: dict) -> tuple[int, float, list[str]]:
        """What the GPU did during `call`: kernels overlapping it, busy µs, copies."""
        start, stop = call["ts"], end(call)
        kernels = overlapping(self.kernels, start, stop, ("kernel",))
        copies = overlapping(self.copies, start, stop, ("gpu_memcpy", "gpu_memset"))
        busy = union(clipped(kernels + copies, start, stop))
        kinds = {}  # name: (count, µs), in the order they ran
        for c in copies:
            count, total = kinds.get(c["name"], (0, 0.0))
            kinds[c["name"]] = (count + 1, total + c["dur"])
        return len(kernels), busy, [
            f"{name}{f' ×{n}' if n > 1 else ''} {us(total)}" for name, (n, total) in kinds.items()
        ]


def trace_steps(path: str) -> list[Step]:
    events = trace_events(path)
    spans = [e for e in events if e["cat"] == "user_annotation" and e["name"] == "step"]
    return [Step(events, span) for span in spans]


# --- printing ---------------------------------------------------------------


def us(value: float) -> str:
    """µs (the trace's and key_averages' unit) as the book writes a duration."""
    return "0" if value == 0 else text(value * 1e3)


def median_us(values: list[float]) -> str:
    return us(statistics.median(values)) if values else "–"


def print_model(decoder: Decoder) -> None:
    print(
        f"model:   {LAYERS} layers, hidden {HIDDEN}, {HEADS} heads, KV cache of {CONTEXT} tokens, "
        f"vocabulary {VOCAB:,}, batch {BATCH}, {str(DTYPE).removeprefix('torch.')}, "
        f"{decoder.parameters() / 1e6:.1f} M parameters"
    )
    print(
        "step:    embed; per layer attention (norm, qkv, cache write, scores, softmax, "
        "context, out, add) and mlp (norm, up, gelu, down, add);"
    )
    print(f"         logits (final norm, matmul); sample (top-{TOP_K}); read tokens (.tolist())")
    print(
        f"profiler: torch.profiler, CPU and CUDA activities, record_shapes=False, with_stack=False; "
        f"{WARMUP} warm-up steps, then schedule(wait={SKIPPED}, warmup={PROFILER_WARMUP}, "
        f"active={PROFILED})"
    )


def print_ranges(averages) -> None:
    print(f"\nranges (prof.key_averages(), {PROFILED} steps; µs)")
    print(
        f"  {'range':<12} {'count':>5} {'CPU total':>10} {'CPU/call':>9} "
        f"{'device total':>13} {'device/call':>12}"
    )
    for name, count, cpu, device in range_rows(averages):
        print(
            f"  {name:<12} {count:>5} {cpu:>10.1f} {cpu / count:>9.1f} "
            f"{device:>13.1f} {device / count:>12.1f}"
        )
    print("  (device: the kernels and copies launched inside the range, on the GPU's clock)")


def print_steps(steps: list[Step]) -> None:
    print('\nsteps (the Chrome trace: "step" ranges; kernels are events with "cat" == "kernel")')
    print(
        f"  {'step':<6} {'wall':>9} {'enqueue':>9} {'kernels':>7} {'kernel time':>11} "
        f"{'GPU busy':>9} {'GPU idle':>8} {'memcpy/set':>10}"
    )
    for i, s in enumerate(steps, 1):
        enqueue = "–" if s.enqueue is None else us(s.enqueue)
        print(
            f"  {i:<6} {us(s.wall):>9} {enqueue:>9} {len(s.kernels):>7} {us(s.kernel_time):>11} "
            f"{us(s.busy):>9} {s.idle():>8.1%} {len(s.copies):>10}"
        )
    enqueues = [s.enqueue for s in steps if s.enqueue is not None]
    print(f"kernels per step:        {statistics.median([len(s.kernels) for s in steps]):.0f}")
    print(f"kernel time per step:    {median_us([s.kernel_time for s in steps])}")
    print(f"GPU busy per step:       {median_us([s.busy for s in steps])} (union of the kernels)")
    print(f"step wall time:          {median_us([s.wall for s in steps])} (the CPU's step range)")
    print(f"enqueue time:            {median_us(enqueues)} (step start to \"read tokens\")")
    per_kernel = [s.enqueue / len(s.kernels) for s in steps if s.enqueue is not None and s.kernels]
    print(f"enqueue per kernel:      {median_us(per_kernel)} (enqueue time / kernels)")
    print(f"GPU idle in the step:    {statistics.median([s.idle() for s in steps]):.1%} (1 - busy / wall)")


def print_longest_calls(step: Step, shown: int = 3) -> None:
    print("\nlongest CUDA API calls of the last step (CPU side), and the GPU meanwhile")
    print(f"  {'call':<28} {'duration':>9} {'kernels':>7} {'GPU busy':>9}       memcpy/memset meanwhile")
    calls = sorted(step.calls, key=lambda e: (-e["dur"], e["ts"]))[:shown]
    for call in calls:
        kernels, busy, copies = step.meanwhile(call)
        share = f"{busy / call['dur']:.0%}" if call["dur"] > 0 else "–"
        print(
            f"  {call['name']:<28} {us(call['dur']):>9} {kernels:>7} {us(busy):>9} {share:>4}  "
            f"{'; '.join(copies) or '–'}"
        )
    if calls:
        longest = calls[0]
        kernels, busy, copies = step.meanwhile(longest)
        share = busy / longest["dur"] if longest["dur"] > 0 else 0.0
        print(f"longest API call:        {longest['name']}, {us(longest['dur'])}")
        print(
            f"GPU meanwhile:           {kernels} kernels; {'; '.join(copies) or 'no memcpy/memset'}; "
            f"busy {us(busy)} of it ({share:.0%}), idle the rest"
        )


def print_launches(steps: list[Step]) -> None:
    gaps = [g for s in steps for g in s.gaps()]
    kernels = [k["dur"] for s in steps for k in s.kernels]
    launches = [c["dur"] for s in steps for c in s.calls if "LaunchKernel" in c["name"]]
    print(f"\nkernels on the GPU, {len(steps)} steps")
    print(
        f"launch gap:              {median_us(gaps)} median of {len(gaps)}, "
        "end of a kernel to the start of the next on its stream"
    )
    if gaps:
        print(f"launch gaps:             {spread([g * 1e3 for g in gaps])}")
    print(f"kernel duration:         {median_us(kernels)} median of {len(kernels)}")
    print(
        f"launch call (CPU):       {median_us(launches)} median of {len(launches)} "
        "(cudaLaunchKernel*, cuLaunchKernel*)"
    )


def print_overhead(without: Timed, within: Timed, steps: list[Step]) -> None:
    print("\nthe profiler's cost: step wall time, synchronize then perf_counter_ns around the step")
    for what, timed in (("without the profiler:", without), ("with the profiler:", within)):
        print(
            f"  {what:<22} wall {spread(timed.wall)}, enqueue {spread(timed.enqueue)} "
            f"({len(timed.wall)} steps)"
        )
    ratio = statistics.median(within.wall) / statistics.median(without.wall)
    enqueue = statistics.median(within.enqueue) / statistics.median(without.enqueue)
    print(f"profiler overhead:       {ratio:.2f}x the wall time, {enqueue:.2f}x the enqueue time")
    busy = statistics.median([s.busy for s in steps]) * 1e3
    print(
        f"GPU idle without it:     {1 - busy / statistics.median(without.wall):.1%} "
        "(estimate: the profiled busy time over the unprofiled wall time)"
    )


# --- Nsight Systems ---------------------------------------------------------


def run(command: list[str], timeout: int = 600) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def failure(done: subprocess.CompletedProcess | None) -> str:
    if done is None:
        return "did not run"
    last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
    return f"exit {done.returncode}: {last}"


def nsys_stats(nsys: str, report: str) -> subprocess.CompletedProcess | None:
    """The three summaries, by their names since 2023; older nsys names them without '_'."""
    for reports in ("nvtx_sum,cuda_api_sum,cuda_gpu_kern_sum", "nvtxsum,cudaapisum,gpukernsum"):
        done = run([nsys, "stats", "--report", reports, report])
        if done is not None and done.returncode == 0:
            return done
    return done


def print_nsys() -> None:
    nsys = shutil.which("nsys")
    if nsys is None:
        print("\nnsys: not installed on this machine")
        return
    done = run([nsys, "--version"], timeout=60)
    version = done.stdout.strip().splitlines()[0] if done and done.stdout.strip() else "unknown version"
    print(f"\nnsys: {version}")
    if os.environ.get("PROFILE_NSYS") != "1":
        print("  (PROFILE_NSYS=1 runs the step under nsys profile -t cuda,nvtx)")
        return
    folder = tempfile.mkdtemp(prefix="profile_step_")
    output = os.path.join(folder, "step")
    command = [
        nsys, "profile", "-t", "cuda,nvtx", "-o", output, "--force-overwrite", "true",
        sys.executable, os.path.abspath(__file__), INNER,
    ]
    print(f"  {' '.join(command[:8])} python3 {SCRIPT} {INNER}")
    done = run(command)
    if done is None or done.returncode != 0:
        print(f"  nsys profile failed ({failure(done)})")
        return
    report = output + ".nsys-rep"
    if not os.path.exists(report):
        report = output + ".qdrep"  # nsys before 2021.4
    print(f"  report: {report}")
    done = nsys_stats(nsys, report)
    if done is None or done.returncode != 0:
        print(f"  nsys stats failed ({failure(done)})")
        return
    for line in done.stdout.rstrip().splitlines():
        print(f"  {line}".rstrip())


def inner() -> int:
    """Under nsys: warm-up, then the profiled number of steps, no torch.profiler."""
    with torch.inference_mode():
        timed = Timed(Decoder())
        for _ in range(WARMUP + PROFILED):
            timed()
    torch.cuda.synchronize()
    return 0


def main() -> int:
    if not require_cuda():
        return 1
    if INNER in sys.argv[1:]:
        return inner()
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_TRACE
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with torch.inference_mode():
        decoder = Decoder()
        without = Timed(decoder)
        for _ in range(WARMUP):
            without()
        without.reset()
        for _ in range(UNPROFILED):
            without()
        within = Timed(decoder)
        within.tokens = without.tokens
        averages = profile_steps(within, path)
    steps = trace_steps(path)

    print(header(f"python3 {SCRIPT} {path}" if len(sys.argv) > 1 else f"python3 {SCRIPT}"), end="")
    print_model(decoder)
    print(f"trace:   {path} ({os.path.getsize(path):,} bytes)")
    print_ranges(averages)
    if not steps:
        print('\nno "step" range in the trace: nothing more to read from it')
        return 1
    print_steps(steps)
    print_longest_calls(steps[-1])
    print_launches(steps)
    print_overhead(without, within, steps)
    print_nsys()
    return 0


if __name__ == "__main__":
    sys.exit(main())
