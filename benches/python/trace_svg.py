"""Draws one step of a Chrome trace as an SVG timeline.

Reads a Chrome trace in PyTorch's export (``prof.export_chrome_trace``, as
``benches/python/profile_step.py`` writes it): its complete ("X") events,
each with a "cat": "user_annotation" (``record_function`` ranges),
"cuda_runtime" and "cuda_driver" (the CPU's CUDA API calls), "kernel",
"gpu_memcpy" and "gpu_memset" (the GPU's work, per stream), and others
("cpu_op", "gpu_user_annotation", ...) that it does not draw. It draws the
window of one step: by default the span of the last range named "step"
(``--range`` names another), or ``--window START END`` in the trace's
microseconds. Lanes, top to bottom: the ranges of each CPU thread, nested
by depth; the CPU's CUDA API calls; each GPU stream's kernels and copies
(kernels that overlap on one stream, as programmatic dependent launch lets
cuBLAS's do on Hopper, take a second row).
A time axis in µs from the window's start, a legend, and a tooltip
(``<title>``) on every box with its name and duration.

Only the standard library; the same trace gives the same SVG, byte for byte.

    python3 benches/python/trace_svg.py TRACE.json OUT.svg [--title T]
        [--range NAME | --window START END]
"""

import argparse
import json
import math
import re
import sys
from xml.sax.saxutils import escape

WIDTH, LEFT, RIGHT, TOP = 1200, 170, 20, 64
ROW, LANE_GAP, FONT = 18, 10, 10
CHAR = 6.0  # px per character at FONT, roughly
# Pastels for the ranges, apart from the saturated colors of the GPU and the API.
RANGE_COLORS = [
    "#d9d9d9", "#fdb462", "#8dd3c7", "#bebada", "#b3de69", "#fccde5",
    "#80b1d3", "#ffffb3", "#bc80bd", "#ccebc5", "#fb8072", "#ffed6f",
]
STYLE = {
    "kernel": ("#4e79a7", "kernel"),
    "gpu_memcpy": ("#f28e2b", "memcpy (GPU)"),
    "gpu_memset": ("#b07aa1", "memset (GPU)"),
    "launch": ("#59a14f", "API: launch"),
    "copy": ("#edc948", "API: copy"),
    "wait": ("#e15759", "API: synchronize"),
    "api": ("#bab0ac", "API: other"),
}
API = ("cuda_runtime", "cuda_driver")
GPU_WORK = ("kernel", "gpu_memcpy", "gpu_memset")


def load(path: str) -> list[dict]:
    """The complete events of the trace, with numeric times, in a fixed order."""
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    complete = []
    for e in events:
        if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
            continue
        complete.append({**e, "ts": float(e["ts"]), "dur": float(e["dur"]), "cat": e.get("cat", "")})
    return sorted(complete, key=lambda e: (e["ts"], -e["dur"], str(e.get("name", ""))))


def end(e: dict) -> float:
    return e["ts"] + e["dur"]


def window(events: list[dict], args) -> tuple[float, float, str]:
    """The drawn window (start, stop) and how it was chosen."""
    if args.window:
        start, stop = args.window
        return start, stop, "the window given"
    named = [e for e in events if e["cat"] == "user_annotation" and e.get("name") == args.range]
    if named:
        last = named[-1]
        return last["ts"], end(last), f'the last "{args.range}" range ({len(named)} in the trace)'
    drawn = [e for e in events if e["cat"] in API + GPU_WORK + ("user_annotation",)]
    if not drawn:
        raise SystemExit("error: the trace has no events to draw")
    print(f'note: no "{args.range}" range in the trace; drawing all of it', file=sys.stderr)
    return drawn[0]["ts"], max(end(e) for e in drawn), "the whole trace"


def nest(events: list[dict]) -> list[tuple[dict, int]]:
    """Each event with its depth: the number of earlier events still open at its start."""
    placed, open_ends = [], []
    for e in events:  # sorted by start, longest first
        while open_ends and open_ends[-1] <= e["ts"]:
            open_ends.pop()
        placed.append((e, len(open_ends)))
        open_ends.append(end(e))
        open_ends.sort(reverse=True)  # the one that ends first on top
    return placed


def api_kind(name: str) -> str:
    if "Synchronize" in name or "Wait" in name:
        return "wait"
    if "Memcpy" in name or "Memset" in name:
        return "copy"
    if "Launch" in name:
        return "launch"
    return "api"


def range_key(name: str) -> str:
    """`layer.3` and `layer.0` are both `layer.N`, `ProfilerStep#7` is `ProfilerStep#N`."""
    return re.sub(r"\d+", "N", name)


def range_colors(ranges: list[dict]) -> dict[str, str]:
    """A color per range key, in the order the keys first appear."""
    keys = list(dict.fromkeys(range_key(name(e)) for e in ranges))
    return {k: RANGE_COLORS[i % len(RANGE_COLORS)] for i, k in enumerate(keys)}


def name(e: dict) -> str:
    return str(e.get("name", ""))


def thread(e: dict) -> tuple[str, str]:
    return str(e.get("pid")), str(e.get("tid"))


def stream(e: dict) -> tuple[str, str]:
    """(device, stream) of a GPU event; PyTorch puts the stream in args and tid."""
    return str(e.get("pid")), str(e.get("args", {}).get("stream", e.get("tid")))


Lane = tuple[str, list[tuple[dict, int, str]]]  # label, [(event, depth, color)]


def lanes(events: list[dict], start: float, stop: float) -> tuple[list[Lane], dict[str, str]]:
    """The lanes of the events inside the window (ranges per CPU thread, the
    CPU's CUDA API calls, each GPU stream's work), and the ranges' colors."""
    inside = [e for e in events if e["ts"] < stop and end(e) > start]
    result = []
    ranges = [e for e in inside if e["cat"] == "user_annotation"]
    colors = range_colors(ranges)
    threads = sorted({thread(e) for e in ranges}, key=natural)
    for t in threads:
        mine = nest([e for e in ranges if thread(e) == t])
        label = "ranges" if len(threads) == 1 else f"ranges, thread {t[1]}"
        result.append((label, [(e, d, colors[range_key(name(e))]) for e, d in mine]))
    calls = nest([e for e in inside if e["cat"] in API])
    if calls:
        result.append(("CUDA API (CPU)", [(e, d, STYLE[api_kind(name(e))][0]) for e, d in calls]))
    gpu = [e for e in inside if e["cat"] in GPU_WORK]
    for device, s in sorted({stream(e) for e in gpu}, key=natural):
        work = nest([e for e in gpu if stream(e) == (device, s)])
        result.append((f"GPU {device}, stream {s}", [(e, d, STYLE[e["cat"]][0]) for e, d in work]))
    return result, colors


def natural(key: tuple[str, str]) -> tuple:
    """Sorts ("0", "7") before ("0", "13")."""
    return tuple((0, int(k), "") if k.lstrip("-").isdigit() else (1, 0, k) for k in key)


def tick_step(span: float) -> float:
    """1, 2 or 5 times a power of ten, about a tenth of `span`."""
    raw = span / 10
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def number(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step)))
    return f"{value:,.{decimals}f}"


def fit(label: str, px: float) -> str:
    """`label` cut to the width `px`, or nothing when not even three characters fit."""
    room = int((px - 4) / CHAR)
    if room < 3:
        return ""
    return label if len(label) <= room else label[: room - 1] + "…"


class Svg:
    """The drawing: a list of elements, a mapping from trace µs to x."""

    def __init__(self, start: float, stop: float) -> None:
        self.start, self.stop = start, stop
        self.scale = (WIDTH - LEFT - RIGHT) / (stop - start)
        self.parts: list[str] = []
        self.bottom = TOP

    def x(self, t: float) -> float:
        return LEFT + (min(max(t, self.start), self.stop) - self.start) * self.scale

    def text(self, x: float, y: float, s: str, anchor="start", size=FONT, weight="normal") -> None:
        self.parts.append(
            f'<text x="{x:.2f}" y="{y:.2f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{escape(s)}</text>'
        )

    def box(self, e: dict, y: float, color: str) -> None:
        x0, x1 = self.x(e["ts"]), self.x(end(e))
        w = max(x1 - x0, 0.5)
        full = name(e)
        tip = f"{full[:300]} — {e['dur']:,.2f} µs at +{e['ts'] - self.start:,.2f} µs"
        self.parts.append(
            f'<rect x="{x0:.2f}" y="{y:.2f}" width="{w:.2f}" height="{ROW - 2}" fill="{color}" '
            f'stroke="#333" stroke-width="0.3"><title>{escape(tip)}</title></rect>'
        )
        label = fit(full, w)
        if label:
            self.text(x0 + 2, y + ROW - 6, label)

    def axis(self, y: float, bottom: float) -> None:
        span = self.stop - self.start
        step = tick_step(span)
        self.parts.append(f'<line x1="{LEFT}" y1="{y:.2f}" x2="{WIDTH - RIGHT}" y2="{y:.2f}" stroke="#333"/>')
        k = 0
        while k * step <= span * (1 + 1e-9):
            x = LEFT + k * step * self.scale
            self.parts.append(
                f'<line x1="{x:.2f}" y1="{y - 4:.2f}" x2="{x:.2f}" y2="{bottom:.2f}" stroke="#ddd"/>'
            )
            self.text(x, y - 7, number(k * step, step), anchor="middle")
            k += 1
        self.text(WIDTH - RIGHT, y - 24, "µs from the window's start", anchor="end")

    def legend(self, y: float, ranges: dict[str, str]) -> None:
        items = [STYLE[k] for k in ("kernel", "gpu_memcpy", "gpu_memset", "launch", "copy", "wait", "api")]
        items += [(color, f"range: {key}") for key, color in ranges.items()]
        x = LEFT
        for color, label in items:
            width = 16 + len(label) * CHAR + 16
            if x + width > WIDTH - RIGHT:
                x, y = LEFT, y + ROW
            self.parts.append(
                f'<rect x="{x:.2f}" y="{y:.2f}" width="12" height="12" fill="{color}" '
                'stroke="#333" stroke-width="0.3"/>'
            )
            self.text(x + 16, y + 10, label)
            x += width
        self.bottom = y + ROW


def draw(events: list[dict], start: float, stop: float, title: str, subtitle: str):
    """The SVG text, and the number of lanes and boxes in it."""
    svg = Svg(start, stop)
    drawn, colors = lanes(events, start, stop)
    if not drawn:
        raise SystemExit("error: nothing to draw in the window")
    svg.text(LEFT, 22, title, size=14, weight="bold")
    svg.text(LEFT, 40, subtitle)
    tops, y = [], TOP + 4  # each lane's top, then the space below the lanes
    for _, boxes in drawn:
        tops.append(y)
        y += (1 + max(d for _, d, _ in boxes)) * ROW + LANE_GAP
    for top, (_, boxes) in zip(tops, drawn):  # backgrounds, under the grid
        height = (1 + max(d for _, d, _ in boxes)) * ROW + 2
        svg.parts.append(
            f'<rect x="{LEFT}" y="{top - 2:.2f}" width="{WIDTH - LEFT - RIGHT}" '
            f'height="{height}" fill="#f4f4f4"/>'
        )
    svg.axis(TOP - 4, y - LANE_GAP)
    for top, (label, boxes) in zip(tops, drawn):
        svg.text(LEFT - 8, top + ROW - 6, label, anchor="end", weight="bold")
        for e, d, color in boxes:
            svg.box(e, top + d * ROW, color)
    svg.legend(y + 8, colors)
    height = svg.bottom + 10
    body = "\n".join(svg.parts)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif">\n'
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="white"/>\n'
    )
    return head + body + "\n</svg>\n", len(drawn), sum(len(b) for _, b in drawn)


def arguments(argv: list[str]):
    parser = argparse.ArgumentParser(description="Draws one step of a Chrome trace as an SVG timeline.")
    parser.add_argument("trace", help="the Chrome trace (JSON), e.g. from prof.export_chrome_trace")
    parser.add_argument("out", help="the SVG file to write")
    parser.add_argument("--title", help="the title (default: the trace's file name)")
    parser.add_argument(
        "--range", default="step", help='the range whose last instance is drawn (default "step")'
    )
    parser.add_argument(
        "--window", nargs=2, type=float, metavar=("START", "END"), help="the window, in the trace's µs"
    )
    args = parser.parse_args(argv)
    if args.window and args.window[1] <= args.window[0]:
        parser.error("--window: END must be after START")
    return args


def main(argv: list[str]) -> int:
    args = arguments(argv)
    events = load(args.trace)
    start, stop, how = window(events, args)
    title = args.title or args.trace.replace("\\", "/").split("/")[-1]
    subtitle = f"{stop - start:,.1f} µs from ts {start:,.1f} µs: {how}"
    svg, lane_count, boxes = draw(events, start, stop, title, subtitle)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(svg)
    print(f"{args.out}: {subtitle}; {lane_count} lanes, {boxes} boxes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
