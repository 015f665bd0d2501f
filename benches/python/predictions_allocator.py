"""The allocator chapter's three predictions, posed to PyTorch's caching allocator.

The page answers them with exercise 101's reference allocator over its
simulated driver; here the same programs run on a real GPU through the
allocator that reference is modelled on. Each case runs in a fresh process,
so that every ``malloc`` meets a fresh allocator:

* **allocator-rounding**: one ``malloc`` of 1 KiB, 3 MiB or 11 MiB; what
  ``torch.cuda.memory_reserved()`` grew by, as the prediction's options name
  it (``exact``, ``2mib``, ``20mib``, ``round2``);
* **allocator-stream**: ``x = malloc(1 MiB, s0)``, ``free(x)``, then
  ``y = malloc(1 MiB)`` on s1 or on s0; whether ``y.data_ptr()`` is ``x``'s;
* **allocator-record**: ``x = malloc(1 MiB, s0)``; s1 waits for s0 and runs a
  200 ms reader of ``x`` (``torch.cuda._sleep``, then a sum; its kernels
  loaded before, as a first launch takes milliseconds); with
  ``x.record_stream(s1)`` or without; ``free(x)``, then at once
  ``malloc(1 MiB, s0)``: ``x``'s block again (``free``) or other memory
  (``pending``).

    python3 benches/python/predictions_allocator.py > chapters/measurements/torch_predictions_allocator.txt

Each answer should be the page's. Needs PyTorch with CUDA and a GPU; the
header says what it ran on.
"""

import subprocess
import sys

COMMAND = "python3 benches/python/predictions_allocator.py"
KIB = 1 << 10
MIB = 1 << 20
CASES = [
    ("allocator-rounding", "1 KiB", "reserved"),
    ("allocator-rounding", "3 MiB", "reserved"),
    ("allocator-rounding", "11 MiB", "reserved"),
    ("allocator-stream", "s1", "reuse"),
    ("allocator-stream", "s0", "reuse"),
    ("allocator-record", "record", "free"),
    ("allocator-record", "none", "free"),
]


def rounding(value: str) -> tuple[str, str]:
    import torch

    number, unit = value.split()
    size = int(number) * (KIB if unit == "KiB" else MIB)
    torch.cuda.init()
    before = torch.cuda.memory_reserved()
    x = torch.empty(size, dtype=torch.uint8, device="cuda")
    reserved = torch.cuda.memory_reserved() - before
    del x
    if reserved == 2 * MIB and size <= MIB:
        answer = "2mib"
    elif reserved == 20 * MIB and size < 10 * MIB:
        answer = "20mib"
    elif reserved == -(-size // (2 * MIB)) * 2 * MIB and size >= 10 * MIB:
        answer = "round2"
    else:
        answer = "exact"
    return answer, f"{reserved / MIB:g} MiB reserved"


def stream(value: str) -> tuple[str, str]:
    import torch

    s0 = torch.cuda.Stream()
    s1 = torch.cuda.Stream()
    with torch.cuda.stream(s0):
        x = torch.empty(MIB, dtype=torch.uint8, device="cuda")
        address = x.data_ptr()
        del x
    with torch.cuda.stream(s1 if value == "s1" else s0):
        y = torch.empty(MIB, dtype=torch.uint8, device="cuda")
    same = y.data_ptr() == address
    segments = torch.cuda.memory_stats()["segment.all.current"]
    return ("yes" if same else "no"), f"{segments} segment(s)"


def record(value: str) -> tuple[str, str]:
    import torch

    from common import Spin

    spin = Spin()
    s0 = torch.cuda.Stream()
    s1 = torch.cuda.Stream()
    torch.ones(4, device="cuda").sum()  # loads the kernels, whose first launch takes milliseconds
    torch.cuda.synchronize()
    with torch.cuda.stream(s0):
        x = torch.ones(MIB // 4, device="cuda")
        address = x.data_ptr()
    s1.wait_stream(s0)
    with torch.cuda.stream(s1):
        spin(200.0)  # s1 reads x in a long kernel, still running at the free
        total = x.sum()
    if value == "record":
        x.record_stream(s1)
    del x
    with torch.cuda.stream(s0):
        y = torch.empty(MIB // 4, device="cuda")
    running = not s1.query()
    same = y.data_ptr() == address
    torch.cuda.synchronize()
    del total
    return ("free" if same else "pending"), f"s1 still running at the next malloc: {running}"


def child(prediction: str, value: str) -> None:
    answer, why = {"allocator-rounding": rounding, "allocator-stream": stream, "allocator-record": record}[prediction](
        value
    )
    print(f"{answer}\t{why}")


def main() -> int:
    from common import header, require_cuda

    if not require_cuda():
        return 1
    print(header(COMMAND))
    print("Each program in a fresh process, on PyTorch's caching allocator.")
    print()
    print(f"{'prediction':<22}  {'value':<10}  {'part':<8}  {'PyTorch':<8}  what it saw")
    for prediction, value, part in CASES:
        done = subprocess.run(
            [sys.executable, __file__, "--child", prediction, value], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            print(f"error: {prediction} {value}: {done.stderr.strip()[-400:]}", file=sys.stderr)
            return 1
        answer, why = done.stdout.strip().split("\t")
        print(f"{prediction:<22}  {value:<10}  {part:<8}  {answer:<8}  {why}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
