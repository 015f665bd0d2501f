"""Sampling on the GPU, and overlap scheduling, in PyTorch.

The PyTorch side of ``cargo run --release -p workbook-benches --example
sampling_where`` and ``... --example sampling_overlap``.

Where to sample: a 2 ms forward pass (``torch.cuda._sleep``, then a copy of
fixed logits) leaves 64 rows of 32,000 logits; the step samples greedily
either on the CPU (``logits.cpu()``, ``argmax`` there, the tokens copied
back) or on the GPU (``torch.argmax``, only the tokens copied, into pinned
memory, then an event). Median step time of 10 after 2 untimed.

Overlap scheduling: 8 requests of 24 tokens, a decoder step of a given GPU
time (a ``torch.cuda._sleep``, then an embedding lookup, a matmul and an
argmax) and a given CPU time of scheduler work per step (a busy loop). The
naive loop reads each step's tokens with ``.tolist()``; the overlapped loop
copies them into pinned memory with ``non_blocking=True``, records an event,
launches the next step and only then waits for the event. Step time: the
median gap between two launches in the steady state.

    python3 benches/python/sampling_overlap.py > chapters/measurements/torch_sampling_overlap.txt

Needs PyTorch with CUDA and a GPU; the header says what it ran on.
"""

import statistics
import sys
import time

import torch

from common import Spin, header, require_cuda, text

COMMAND = "python3 benches/python/sampling_overlap.py"
ROWS, COLS, FORWARD_MS = 64, 32_000, 2.0
REQUESTS, TOKENS = 8, 24
VOCAB, HIDDEN = 512, 64
EOS = VOCAB  # outside the vocabulary: no request stops early
cuda = torch.device("cuda")


def where_to_sample(spin: Spin, steps: int) -> tuple[float, float, bool]:
    """Median step time (ns) sampling on the CPU and on the GPU, and whether
    both picked the same tokens in every step."""
    generator = torch.Generator(device=cuda).manual_seed(1)
    source = torch.rand(ROWS, COLS, device=cuda, generator=generator) * 2 - 1
    logits = torch.empty_like(source)
    tokens = torch.zeros(ROWS, dtype=torch.int64, device=cuda)
    pinned = torch.empty(ROWS, dtype=torch.int64, pin_memory=True)
    ready = torch.cuda.Event()
    on_cpu, on_gpu, same = [], [], True
    for _ in range(steps):
        start = time.perf_counter_ns()
        spin(FORWARD_MS)  # the forward pass, then its logits
        logits.copy_(source)
        host = logits.cpu()  # waits for the forward pass, then copies 8 MB
        a = host.argmax(dim=1)
        tokens.copy_(a)  # back to the GPU for the next step
        on_cpu.append(time.perf_counter_ns() - start)

        start = time.perf_counter_ns()
        spin(FORWARD_MS)
        logits.copy_(source)
        chosen = torch.argmax(logits, dim=1)  # the logits stay where they are
        pinned.copy_(chosen, non_blocking=True)  # only the tokens travel
        ready.record()
        ready.synchronize()
        b = pinned.clone()
        on_gpu.append(time.perf_counter_ns() - start)
        same &= torch.equal(a, b)
    return statistics.median(on_cpu), statistics.median(on_gpu), same


class Decoder:
    """A tiny decoder: the next token of each request, greedy, after `gpu_ms` of work."""

    def __init__(self, spin: Spin, gpu_ms: float) -> None:
        generator = torch.Generator(device=cuda).manual_seed(102)
        self.embedding = torch.randn(VOCAB, HIDDEN, device=cuda, generator=generator)
        self.weight = torch.randn(HIDDEN, VOCAB, device=cuda, generator=generator)
        self.spin, self.gpu_ms = spin, gpu_ms
        self.launches = []  # the CPU's clock at each step's launch, ns

    def step(self, tokens: torch.Tensor) -> torch.Tensor:
        self.launches.append(time.perf_counter_ns())
        self.spin(self.gpu_ms)
        return torch.argmax(torch.index_select(self.embedding, 0, tokens) @ self.weight, dim=1)


def host_work(ms: float) -> None:
    """The scheduler's work for a step: the CPU busy for `ms`."""
    end = time.perf_counter_ns() + ms * 1e6
    while time.perf_counter_ns() < end:
        pass


def prompts() -> torch.Tensor:
    return torch.tensor([7 + 61 * i for i in range(REQUESTS)], device=cuda)


def take_tokens(outputs, finished, tokens: list[int]) -> None:
    for i, token in enumerate(tokens):
        if not finished[i]:
            outputs[i].append(token)
            finished[i] = token == EOS or len(outputs[i]) >= TOKENS


def naive_generate(decoder: Decoder, cpu_ms: float) -> list[list[int]]:
    """Launch a step, read its tokens with `.tolist()` (the CPU waits), repeat."""
    tokens = prompts()
    outputs, finished = [[] for _ in range(REQUESTS)], [False] * REQUESTS
    while not all(finished):
        host_work(cpu_ms)
        tokens = decoder.step(tokens)
        take_tokens(outputs, finished, tokens.tolist())  # waits for the step
    return outputs


class Sampler:
    """Step N's tokens go into pinned slot N % 2, with an event after the copy."""

    def __init__(self, decoder: Decoder) -> None:
        self.decoder, self.tokens = decoder, prompts()
        self.slots = [torch.empty(REQUESTS, dtype=torch.int64, pin_memory=True) for _ in range(2)]
        self.copied = [torch.cuda.Event(), torch.cuda.Event()]
        self.submitted = self.processed = 0
        self.outputs = [[] for _ in range(REQUESTS)]
        self.finished = [False] * REQUESTS

    def submit(self) -> None:
        """Queues the next step; returns without waiting for it."""
        if self.submitted == TOKENS:
            return  # every request has all its tokens launched
        slot = self.submitted % 2
        self.tokens = self.decoder.step(self.tokens)  # from the last step's tokens, on the GPU
        self.slots[slot].copy_(self.tokens, non_blocking=True)
        self.copied[slot].record()
        self.submitted += 1

    def process(self) -> None:
        """Waits for the oldest step not processed yet, and records its tokens."""
        slot = self.processed % 2
        self.copied[slot].synchronize()
        take_tokens(self.outputs, self.finished, self.slots[slot].tolist())
        self.processed += 1


def overlapped_generate(decoder: Decoder, cpu_ms: float) -> list[list[int]]:
    sampler = Sampler(decoder)
    sampler.submit()  # step 0
    while not all(sampler.finished):
        host_work(cpu_ms)  # schedule step N+1
        sampler.submit()  # step N+1 decodes from step N's tokens, on the GPU
        sampler.process()  # only now wait for step N's results
    return sampler.outputs


def steady_step_ns(launches: list[int]) -> float:
    """The median gap between launches, without the first two steps and the last."""
    gaps = [b - a for a, b in zip(launches, launches[1:])][2:-1]
    return statistics.median(gaps)


def run(spin: Spin, generate, gpu_ms: float, cpu_ms: float):
    decoder = Decoder(spin, gpu_ms)
    torch.cuda.synchronize()
    outputs = generate(decoder, cpu_ms)
    torch.cuda.synchronize()
    return steady_step_ns(decoder.launches), outputs


def main() -> int:
    if not require_cuda():
        return 1
    spin = Spin()
    where_to_sample(spin, 2)  # warm-up
    cpu_step, gpu_step, same = where_to_sample(spin, 10)
    run(spin, overlapped_generate, 0.1, 0.1)  # warm-up
    run(spin, naive_generate, 0.1, 0.1)
    rows = []
    for gpu_ms, cpu_ms in [(2.0, 1.5), (1.0, 1.5), (2.0, 0.2)]:
        naive, a = run(spin, naive_generate, gpu_ms, cpu_ms)
        over, b = run(spin, overlapped_generate, gpu_ms, cpu_ms)
        rows.append((gpu_ms * 1e6, cpu_ms * 1e6, naive, over, a == b))

    print(header(COMMAND), end="")
    print(f"kernel:  {spin}")
    print(
        f"\n{ROWS} requests × {COLS:,} tokens of logits ({ROWS * COLS * 4 / 1e6:.1f} MB a step) "
        f"after a {text(FORWARD_MS * 1e6)} forward pass (median of 10 steps):"
    )
    print(f"  step, sampling on the CPU   {text(cpu_step)}")
    print(f"  step, sampling on the GPU   {text(gpu_step)}")
    print(f"  the same tokens both ways: {same}")
    print(f"\n{REQUESTS} requests, {TOKENS} tokens each; steady-state step time:")
    print(
        f"{'GPU':>8} {'CPU':>8}  {'GPU+CPU':>9} {'max':>9}  {'naive':>9} {'overlap':>9}"
        "  efficiency naive / overlapped  same tokens"
    )
    for g, c, naive, over, same_tokens in rows:
        best = max(g, c)
        print(
            f"{text(g):>8} {text(c):>8}  {text(g + c):>9} {text(best):>9}  "
            f"{text(naive):>9} {text(over):>9}  {best / naive:.2f} / {best / over:.2f}"
            f"                   {same_tokens}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
