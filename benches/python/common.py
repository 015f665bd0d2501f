"""What the PyTorch scripts of this folder share: the header that says where
a measurement comes from, a kernel that keeps the GPU busy for a given time,
and the book's way of writing a duration.

Not a measurement itself: the scripts import it (``from common import ...``),
which works from any folder, because Python puts a script's own folder first
on its import path.
"""

import datetime
import os
import statistics
import subprocess
import sys

import torch


def _first_line(command: list[str], cwd: str | None = None) -> str | None:
    """The first line `command` prints, or None when it fails or is not there."""
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=30, cwd=cwd, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0].strip() if done.returncode == 0 and lines else None


def commit() -> str:
    """The workbook's commit: `WORKBOOK_COMMIT` when set (a copy of the
    scripts run outside the checkout), else `git rev-parse --short HEAD`."""
    here = os.path.dirname(os.path.abspath(__file__))
    return (
        os.environ.get("WORKBOOK_COMMIT")
        or _first_line(["git", "rev-parse", "--short", "HEAD"], cwd=here)
        or "unknown"
    )


def header(command: str) -> str:
    """The lines every measurement file starts with: command, device, driver, date, commit."""
    driver = _first_line(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"])
    now = datetime.datetime.now(datetime.timezone.utc)
    return (
        f"command: {command}\n"
        f"device:  {torch.cuda.get_device_name()} (torch {torch.__version__}, "
        f"CUDA {torch.version.cuda}, Python {sys.version.split()[0]})\n"
        f"driver:  {driver or 'unknown'}\n"
        f"date:    {now:%Y-%m-%d %H:%M} UTC\n"
        f"commit:  {commit()}\n"
    )


def require_cuda() -> bool:
    """Whether PyTorch sees a CUDA device; says so on stderr when it does not."""
    if torch.cuda.is_available():
        return True
    print("error: PyTorch sees no CUDA device; this script measures a GPU", file=sys.stderr)
    return False


class Spin:
    """A kernel that keeps the current stream busy for a given time.

    ``torch.cuda._sleep(cycles)`` spins one GPU thread for a number of clock
    cycles; timing it once with events turns milliseconds into cycles. It is
    the workbook's ``spin``: the gate that makes a hidden sync visible, and a
    stand-in for a kernel of known length.
    """

    def __init__(self, cycles_per_ms: float | None = None) -> None:
        torch.cuda._sleep(1_000)  # the kernel's first launch loads it
        torch.cuda.synchronize()
        self.cycles_per_ms = cycles_per_ms or self._calibrate()

    @staticmethod
    def _calibrate() -> float:
        cycles = 10_000_000
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        rates = []
        for _ in range(3):
            start.record()
            torch.cuda._sleep(cycles)
            end.record()
            end.synchronize()  # elapsed_time needs both events completed
            rates.append(cycles / start.elapsed_time(end))
        return statistics.median(rates)

    def __call__(self, ms: float) -> None:
        """Queues a kernel of `ms` milliseconds on the current stream."""
        torch.cuda._sleep(round(ms * self.cycles_per_ms))

    def __str__(self) -> str:
        return (
            f"torch.cuda._sleep, {self.cycles_per_ms / 1e3:,.0f} cycles a µs "
            "(timed with events)"
        )


def text(ns: float) -> str:
    """`ns` with three significant digits: `885 µs`, `3.23 µs`, `2.46 ms`."""
    if ns >= 1e6:
        value, unit = ns / 1e6, "ms"
    elif ns >= 1e3:
        value, unit = ns / 1e3, "µs"
    else:
        value, unit = ns, "ns"
    if value >= 100:
        return f"{value:.0f} {unit}"
    if value >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.2f} {unit}"


def spread(samples: list[float]) -> str:
    """`median (min–max)` of nanosecond samples."""
    return f"{text(statistics.median(samples))} ({text(min(samples))}–{text(max(samples))})"
