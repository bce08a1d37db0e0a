"""A tiny dependency-free SVG line plot, for benchmark growth curves and the figures of the
reproduction reports (``python -m engine reproduce``).

Benchmarks print tables; the documentation shows the same numbers as plots. This module writes
a standalone SVG (no Plotly, no Matplotlib, no NumPy) so that any benchmark or report can draw its
curves with the interpreter alone:

>>> svg = line_plot({"build": ([1e5, 1e6], [0.01, 0.1])}, title="cover", xlabel="n",
...                 ylabel="seconds", logx=True, logy=True)
>>> svg.startswith("<svg") and "build" in svg
True

Series are drawn in the Okabe-Ito colour-blind-safe palette, with markers when they have at most
40 points; log axes get ticks at the powers of ten (and 2x, 5x when fewer than three decades are
shown); text is 13 px or more.
Non-positive values on a log axis, NaN and infinity are skipped (a gap in the line), never clamped.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

__all__ = ["PALETTE", "line_plot", "write_svg"]

#: Okabe-Ito colours (colour-blind safe), in the order series are drawn.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
_MARKERS = ("circle", "square", "diamond", "triangle")
_MAX_MARKED = 40  # a series of more points is a curve: drawn without markers


def _usable(v: float, log: bool) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v) and (v > 0 or not log)


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        mults = (1,) if b - a >= 3 else (1, 2, 5)
        return [m * 10.0 ** e for e in range(a, b + 1) for m in mults if lo * 0.999 <= m * 10.0 ** e <= hi * 1.001]
    span = hi - lo
    raw = span / 5 if span > 0 else 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 5, 10) if m * mag >= raw), default=10 * mag)
    start = math.ceil(lo / step - 1e-9) * step
    out, v = [], start
    while v <= hi + 1e-9 * step and len(out) < 12:
        out.append(0.0 if abs(v) < 1e-12 * step else v)
        v += step
    return out


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    e = math.floor(math.log10(abs(v)))
    if -3 <= e <= 4:
        s = f"{v:.{max(0, -e)}f}"
        return s.rstrip("0").rstrip(".") if "." in s else s
    m = v / 10.0 ** e
    return f"10^{e}" if abs(m - 1) < 1e-9 else f"{m:g}e{e}"


def _range(vals: list[float], log: bool) -> tuple[float, float]:
    lo, hi = min(vals), max(vals)
    if log:
        if hi / lo < 10:  # show at least one decade
            mid = math.sqrt(lo * hi)
            lo, hi = min(lo, mid / math.sqrt(10)), max(hi, mid * math.sqrt(10))
        return 10.0 ** math.floor(math.log10(lo) + 1e-9), 10.0 ** math.ceil(math.log10(hi) - 1e-9)
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    pad = 0.05 * (hi - lo)
    return (0.0 if lo >= 0 and lo - pad < 0 else lo - pad), hi + pad


def _marker(shape: str, x: float, y: float, color: str) -> str:
    r = 4.0
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{color}"/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" fill="{color}"/>'
    if shape == "diamond":
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y:.1f}"
    else:
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y + r:.1f} {x - r - 1:.1f},{y + r:.1f}"
    return f'<polygon points="{pts}" fill="{color}"/>'


def line_plot(series: dict, *, title: str = "", xlabel: str = "", ylabel: str = "", logx: bool = False,
              logy: bool = False, width: int = 640, height: int = 400, dashed=()) -> str:
    """An SVG document of one line per entry of ``series`` (name -> (xs, ys)).

    ``logx``/``logy`` use log10 axes; names in ``dashed`` are drawn dashed (e.g. a reference slope).
    Raises ValueError when no series has a drawable point."""
    pts = {name: [(float(x), float(y)) for x, y in zip(xs, ys) if _usable(x, logx) and _usable(y, logy)]
           for name, (xs, ys) in series.items()}
    xs_all = [x for p in pts.values() for x, _ in p]
    ys_all = [y for p in pts.values() for _, y in p]
    if not xs_all:
        raise ValueError(f"nothing to plot: no series of {title or 'the plot'!r} has a drawable point")
    x0, x1 = _range(xs_all, logx)
    y0, y1 = _range(ys_all, logy)
    # the legend's column: a 24 px line sample, then the name (about 7.5 px a character at 13 px)
    left, right, top, bottom = 78, 44 + 8 * min(max((len(n) for n in pts), default=0), 40), 40 if title else 16, 56
    pw, ph = max(width - left - right, 60), max(height - top - bottom, 60)
    width = left + pw + right

    def tx(x):
        f = (math.log10(x) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) if logx else (x - x0) / (x1 - x0)
        return left + f * pw

    def ty(y):
        f = (math.log10(y) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) if logy else (y - y0) / (y1 - y0)
        return top + ph - f * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="{left + pw / 2:.1f}" y="24" text-anchor="middle" font-size="15" '
                   f'font-weight="bold">{escape(title)}</text>')
    for v in _ticks(x0, x1, logx):
        x = tx(v)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{escape(_fmt(v))}</text>')
    for v in _ticks(y0, y1, logy):
        y = ty(v)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(_fmt(v))}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 12}" text-anchor="middle">{escape(xlabel)}</text>')
    out.append(f'<text x="16" y="{top + ph / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {top + ph / 2:.1f})">{escape(ylabel)}</text>')
    for i, (name, p) in enumerate(pts.items()):
        color = PALETTE[i % len(PALETTE)]
        dash = ' stroke-dasharray="6 4"' if name in dashed else ""
        if len(p) > 1:
            path = " ".join(f"{tx(x):.1f},{ty(y):.1f}" for x, y in p)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        if name not in dashed and len(p) <= _MAX_MARKED:
            out.extend(_marker(_MARKERS[i % len(_MARKERS)], tx(x), ty(y), color) for x, y in p)
        ly = top + 12 + 20 * i
        lx = left + pw + 12
        out.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 18}" y2="{ly - 4}" stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{lx + 24}" y="{ly}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(path, svg: str) -> Path:
    """Write ``svg`` to ``path`` (parent folders created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(svg, encoding="utf-8")
    return path
