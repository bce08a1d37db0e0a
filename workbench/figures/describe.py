"""Every figure in words and as a table: what a screen reader says and what "CSV" downloads.

A figure is described from its own data (the dict Plotly draws), one function per kind of trace,
so every figure the workbench draws has a description without a line per figure: curves (their
names, x range, smallest, largest and last values), bars (the bars, or the highest and lowest of
many), heat maps (size and range, the largest cell), a tree's vertices (how many, the colour's
range), an icicle's boxes. A page may put a sentence of its own first (``lead``: the selected
vertex and its marginal, the step shown). The same data becomes a long-format CSV: one row per
point (``trace, x, y, text``), or per cell of a heat map.

No maths happens here: the numbers are read off the figure and formatted.

>>> import plotly.graph_objects as go
>>> fig = go.Figure(go.Scatter(x=[1, 2, 3], y=[0.5, 0.25, 0.125], mode="lines", name="error"))
>>> describe_figure(fig)
'Line chart. error: 3 points, x from 1 to 3, y from 0.125 to 0.5, last 0.125 at x = 3.'
"""

from __future__ import annotations

import base64
import csv
import html
import io
import math
import re

import numpy as np

from workbench.figures.style import plain_text

__all__ = ["describe_figure", "figure_rows", "figure_csv", "tree_rows", "rows_csv", "number", "MAX_LISTED"]

MAX_LISTED = 8   # bars (or vertices) listed one by one up to this many; beyond, the extremes
_SUB = re.compile(r"<sub>(.*?)</sub>")
_SUP = re.compile(r"<sup>(.*?)</sup>")


def number(v) -> str:
    """``v`` in a few significant digits (thousands separated), as a description says it."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not math.isfinite(f):
        return "missing" if math.isnan(f) else ("infinity" if f > 0 else "minus infinity")
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    a = abs(f)
    return f"{f:.3e}" if a < 1e-3 or a >= 1e6 else f"{f:,.4g}"


def _plain(text) -> str:
    """Plotly's HTML-ish text as plain text (``log<sub>2</sub> n`` → ``log_2 n``)."""
    if text is None:
        return ""
    if isinstance(text, dict):
        text = text.get("text")
    s = _SUP.sub(r"^\1", _SUB.sub(r"_\1", str(text or "")))
    return " ".join(html.unescape(plain_text(s.replace("<br>", " · "))).split())


_DTYPES = {"f8": np.float64, "f4": np.float32, "i1": np.int8, "u1": np.uint8, "i2": np.int16, "u2": np.uint16,
           "i4": np.int32, "u4": np.uint32, "i8": np.int64, "u8": np.uint64}


def _array(v) -> np.ndarray | None:
    """A trace's array as numpy: a list, an array, or Plotly's base64 form (``{"dtype", "bdata"}``)."""
    if v is None:
        return None
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=_DTYPES[v.get("dtype", "f8")])
        shape = v.get("shape")
        if shape:
            a = a.reshape([int(s) for s in str(shape).split(",")])
        return a
    if isinstance(v, (list, tuple, np.ndarray)):
        return np.asarray(v, dtype=object if _mixed(v) else None)
    return None


def _mixed(v) -> bool:
    return isinstance(v, (list, tuple)) and any(isinstance(x, (list, tuple, dict)) for x in v[:5])


def _numeric(a) -> np.ndarray | None:
    if a is None:
        return None
    try:
        return np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        return None


def _as_dict(fig) -> dict:
    return fig if isinstance(fig, dict) else fig.to_dict()


def _axis_title(layout: dict, axis: str) -> str:
    return _plain((layout.get(axis) or {}).get("title"))


def _is_aid(trace: dict) -> bool:
    """Edges, rings and marks drawn only to help the eye (no hover, no legend)."""
    return trace.get("hoverinfo") == "skip"


def _curve(t: dict, name: str) -> str:
    x, y = _array(t.get("x")), _numeric(_array(t.get("y")))
    if y is None or y.size == 0:
        return ""
    if x is None:
        x = np.arange(len(y))
    ok = np.isfinite(y)
    if not ok.any():
        return f"{name}: {len(y):,} points, no values."
    yy, xx = y[ok], np.asarray(x)[ok] if len(x) == len(y) else np.arange(len(y))[ok]
    lo, hi = int(np.argmin(yy)), int(np.argmax(yy))
    s = f"{name}: {len(yy):,} point{'s' if len(yy) != 1 else ''}"
    if len(yy) == 1:
        return s + f", {number(yy[0])} at x = {number(xx[0])}."
    s += f", x from {number(xx[0])} to {number(xx[-1])}, y from {number(yy[lo])} to {number(yy[hi])}"
    return s + f", last {number(yy[-1])} at x = {number(xx[-1])}."


def _vertices(t: dict, name: str) -> str:
    text = _array(t.get("text"))
    if text is None:
        text = _array(t.get("hovertext"))
    marker = t.get("marker") or {}
    n = len(_array(t.get("x")) if t.get("x") is not None else [])
    s = f"{n:,} {name}"
    colour = _numeric(_array(marker.get("color"))) if not isinstance(marker.get("color"), str) else None
    if colour is not None and colour.size and np.isfinite(colour).any():
        title = _plain(((marker.get("colorbar") or {}).get("title")))
        c = colour[np.isfinite(colour)]
        s += f"; colour{' (' + title + ')' if title else ''} from {number(c.min())} to {number(c.max())}"
        if text is not None and len(text) == len(colour) and n <= MAX_LISTED:
            s += ": " + ", ".join(f"{_plain(a)} = {number(b)}" for a, b in zip(text, colour))
    elif text is not None and n <= MAX_LISTED:
        s += ": " + ", ".join(_plain(a) for a in text)
    return s + "."


def _bars(t: dict, name: str) -> str:
    horizontal = t.get("orientation") == "h"
    cats, vals = (_array(t.get("y")), _numeric(_array(t.get("x")))) if horizontal else \
        (_array(t.get("x")), _numeric(_array(t.get("y"))))
    if vals is None or vals.size == 0:
        return ""
    if cats is None or len(cats) != len(vals):
        cats = np.arange(1, len(vals) + 1)
    lead = f"{name}: " if name else ""
    if len(vals) <= MAX_LISTED:
        return lead + f"{len(vals)} bar{'s' if len(vals) != 1 else ''}: " + \
            ", ".join(f"{_plain(c)} = {number(v)}" for c, v in zip(cats, vals)) + "."
    ok = np.flatnonzero(np.isfinite(vals))
    hi, lo = ok[np.argmax(vals[ok])], ok[np.argmin(vals[ok])]
    return lead + (f"{len(vals):,} bars, highest {_plain(cats[hi])} = {number(vals[hi])}, "
                   f"lowest {_plain(cats[lo])} = {number(vals[lo])}.")


def _heatmap(t: dict, name: str) -> str:
    z = _numeric(_array(t.get("z")))
    if z is None or z.ndim != 2 or z.size == 0:
        return ""
    x, y = _array(t.get("x")), _array(t.get("y"))
    ok = np.isfinite(z)
    s = f"{name + ': ' if name else ''}{z.shape[0]} × {z.shape[1]} grid"
    if not ok.any():
        return s + ", no values."
    i, j = np.unravel_index(np.nanargmax(np.where(ok, z, -np.inf)), z.shape)
    title = _plain(((t.get("colorbar") or {}).get("title")))
    where = f"row {_plain(y[i]) if y is not None and len(y) > i else i + 1}, " \
            f"column {_plain(x[j]) if x is not None and len(x) > j else j + 1}"
    return s + (f"{' of ' + title if title else ''}, values from {number(z[ok].min())} to {number(z[ok].max())}; "
                f"largest at {where}.")


def _icicle(t: dict, name: str) -> str:
    labels = _array(t.get("labels"))
    n = 0 if labels is None else len(labels)
    root = _plain(labels[0]) if n else ""
    return f"{n:,} nested boxes" + (f", the outermost {root}" if root else "") + "."


def _kind(t: dict) -> str:
    typ = t.get("type", "scatter")
    if typ in ("scatter", "scattergl"):
        mode = t.get("mode") or "markers"
        return "vertices" if t.get("customdata") is not None and "lines" not in mode else "curve"
    return typ


_DESCRIBE = {"curve": _curve, "vertices": _vertices, "bar": _bars, "heatmap": _heatmap, "icicle": _icicle}
_KIND_NAME = {"curve": "Line chart", "vertices": "Tree drawing", "bar": "Bar chart", "heatmap": "Heat map",
              "icicle": "Icicle chart"}


def describe_figure(fig, lead: str = "") -> str:
    """``fig`` (a Plotly figure, a :class:`workbench.components.Spec` or a figure dict) in words:
    its kind, title, axes, and each trace's key numbers; ``lead`` (the page's own sentence) first."""
    d = _as_dict(fig)
    layout = d.get("layout") or {}
    traces = [t for t in d.get("data") or () if not _is_aid(t)] or list(d.get("data") or ())
    kinds = [_kind(t) for t in traces]
    first = _KIND_NAME.get(kinds[0], "Chart") if kinds else "Empty chart"
    title = _plain(layout.get("title"))
    parts = [lead.strip()] if lead and lead.strip() else []
    parts.append(first + (f": {title}." if title else "."))
    axes = [f"{a} axis {t}" for a, t in (("x", _axis_title(layout, "xaxis")), ("y", _axis_title(layout, "yaxis")))
            if t and "vertices" not in kinds]
    if axes:
        said = "; ".join(axes)
        parts.append(said[0].upper() + said[1:] + ".")
    for i, (t, kind) in enumerate(zip(traces, kinds)):
        fn = _DESCRIBE.get(kind)
        name = _plain(t.get("name")) or ("vertices" if kind == "vertices" else f"series {i + 1}")
        said = fn(t, name) if fn else f"{name}: a {t.get('type')} trace."
        if said:
            parts.append(said)
    return " ".join(parts)


# ------------------------------------------------------------------ the figure as a table
def figure_rows(fig) -> tuple[list[str], list[list]]:
    """``(header, rows)``: the figure's data in long form, one row per point (per cell of a heat
    map, per box of an icicle); helper traces (edges, rings) are left out."""
    d = _as_dict(fig)
    traces = [t for t in d.get("data") or () if not _is_aid(t)] or list(d.get("data") or ())
    header = ["trace", "x", "y", "value", "text"]
    rows: list[list] = []
    for i, t in enumerate(traces):
        name = _plain(t.get("name")) or f"series {i + 1}"
        kind = _kind(t)
        if kind == "heatmap":
            z = _numeric(_array(t.get("z")))
            if z is None or z.ndim != 2:
                continue
            x, y = _array(t.get("x")), _array(t.get("y"))
            for r in range(z.shape[0]):
                for c in range(z.shape[1]):
                    rows.append([name, _cell(x, c), _cell(y, r), _val(z[r, c]), ""])
        elif kind == "icicle":
            labels, parents, values = (_array(t.get(k)) for k in ("labels", "parents", "values"))
            for j in range(0 if labels is None else len(labels)):
                rows.append([name, _plain(labels[j]), _cell(parents, j, ""), _cell(values, j, ""), ""])
        else:
            x, y = _array(t.get("x")), _array(t.get("y"))
            n = max(len(x) if x is not None else 0, len(y) if y is not None else 0)
            text = _array(t.get("text")) if t.get("text") is not None else _array(t.get("hovertext"))
            colour = (t.get("marker") or {}).get("color")
            value = _numeric(_array(colour)) if not isinstance(colour, str) else None
            for j in range(n):
                rows.append([name, _cell(x, j), _cell(y, j),
                             _val(value[j]) if value is not None and value.ndim == 1 and len(value) == n else "",
                             _plain(text[j]) if text is not None and text.ndim == 1 and len(text) == n else ""])
    return header, rows


def _cell(a, i, default=None):
    if a is None or i >= len(a):
        return i if default is None else default
    v = a[i]
    return _val(v) if isinstance(v, (int, float, np.number)) else _plain(v)


def _val(v):
    f = float(v)
    return "" if math.isnan(f) else int(f) if f.is_integer() else f


def rows_csv(header, rows) -> bytes:
    """Rows as CSV bytes (UTF-8, with a header line)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue().encode("utf-8")


def figure_csv(fig) -> bytes:
    """The figure's data (:func:`figure_rows`) as CSV bytes."""
    return rows_csv(*figure_rows(fig))


def tree_rows(tree, *, values=None, value_title: str = "value", categories=None, rings=(),
              selected: int | None = None) -> tuple[list[str], list[list]]:
    """``(header, rows)`` of a tree view: one row per vertex: name, parent's name, depth, the
    page's value (or category), whether it is ringed (evidence) and selected."""
    names = tree.name_array()
    parent = np.asarray(tree.parent)
    depth = tree.depth
    header = ["vertex", "parent", "depth"]
    cols = []
    if values is not None:
        header.append(value_title or "value")
        cols.append([_val(v) for v in np.asarray(values, float)])
    elif categories is not None:
        header.append("category")
        cols.append([int(c) for c in np.asarray(categories[0])])
    ring = np.zeros(tree.n, bool)
    ring[np.asarray(list(rings), np.int64)] = True
    header += ["ringed", "selected"]
    rows = []
    for v in range(tree.n):
        p = int(parent[v])
        rows.append([str(names[v]), str(names[p]) if 0 <= p != v else "", int(depth[v])]
                    + [c[v] for c in cols] + [int(ring[v]), int(selected is not None and v == int(selected))])
    return header, rows
