"""SVG and PDF of any figure of the workbench, drawn on the server without a browser.

Plotly's own static export (kaleido) drives a Chrome, which the classroom container does not have;
the browser's camera button (``Style.plotly_config``) gives an SVG on the client only, and no PDF.
So the figure object itself is redrawn here with matplotlib (vector back ends, fonts shipped with
it, so a PDF embeds them and works offline): scatter traces (lines with dashes and steps, markers
with their symbols, colour scales and colour bars, text at its position), bars (grouped, with
patterns and text), heat maps, icicles, annotations (arrows and leader lines), line shapes,
category/linear/log axes with their ranges and ticks, subplots, secondary axes and legends. That
is every trace type the workbench's figures use; another type raises ``ValueError`` naming it.

>>> import plotly.graph_objects as go
>>> svg = figure_svg(go.Figure(go.Scatter(x=[0, 1], y=[1, 0], mode="lines+markers", name="a")))
>>> svg.startswith(b"<?xml") and b"<svg" in svg
True
>>> figure_pdf(go.Figure(go.Bar(x=["a", "b"], y=[1, 2])))[:5]
b'%PDF-'
"""

from __future__ import annotations

import base64
import io
import re
import threading
from html import unescape

import numpy as np

__all__ = ["SUPPORTED_TRACES", "as_figure", "figure_pdf", "figure_svg", "render", "to_mathtext"]

SUPPORTED_TRACES = ("scatter", "scattergl", "bar", "heatmap", "icicle")
DEFAULT_WIDTH = 900
DEFAULT_HEIGHT = 450

# Plotly symbol -> (matplotlib marker, filled)
_MARKERS = {"circle": "o", "square": "s", "diamond": "D", "triangle-up": "^", "triangle-down": "v",
            "hexagon": "h", "pentagon": "p", "star": "*", "x": "X", "cross": "P", "x-thin": "x",
            "cross-thin": "+", "triangle-left": "<", "triangle-right": ">"}
_DASHES = {"solid": "-", "dash": (0, (5, 3)), "dot": (0, (1.5, 2.5)), "dashdot": (0, (5, 2.5, 1.5, 2.5)),
           "longdash": (0, (9, 3)), "longdashdot": (0, (9, 3, 1.5, 3))}
_HATCHES = {"": None, "/": "//", "\\": "\\\\", "x": "xx", "-": "--", "|": "||", "+": "++", ".": ".."}


# ------------------------------------------------------------------------------------ helpers
def _colour(c, default="#444444"):
    """A matplotlib colour from a Plotly one (hex, rgb(), rgba(), a name)."""
    if c is None:
        return default
    if isinstance(c, (tuple, list)) and len(c) in (3, 4) and all(isinstance(v, (int, float)) for v in c):
        return tuple(c)
    s = str(c).strip()
    m = re.match(r"rgba?\(([^)]*)\)", s)
    if m:
        parts = [float(p) for p in m.group(1).split(",")]
        rgb = tuple(min(max(p / 255, 0.0), 1.0) for p in parts[:3])
        return rgb + ((min(max(parts[3], 0.0), 1.0),) if len(parts) > 3 else ())
    return s


def _colourmap(scale):
    from matplotlib.colors import LinearSegmentedColormap

    if isinstance(scale, str):
        import plotly.colors as pc

        scale = pc.get_colorscale(scale)
    stops = [(float(v), _colour(c)) for v, c in scale]
    return LinearSegmentedColormap.from_list("plotly", stops)


_TAG = re.compile(r"<(/?)(b|i|sup|sub|br|span|em|strong)\b[^>]*>", re.IGNORECASE)


def to_mathtext(text) -> str:
    """Plotly's HTML-like text as matplotlib text: ``<sup>``/``<sub>`` as mathtext, ``<br>`` as a
    new line, other tags dropped, a literal ``$`` escaped.

    >>> to_mathtext("S<sup>4</sup> and T<sub>1</sub><br>next")
    'S$^{4}$ and T$_{1}$\\nnext'
    """
    if text is None:
        return ""
    s = unescape(str(text)).replace("$", r"\$")
    out, pos, mode = [], 0, None
    for m in _TAG.finditer(s):
        out.append(s[pos:m.start()] if mode is None else _math_escape(s[pos:m.start()]))
        closing, tag = m.group(1) == "/", m.group(2).lower()
        if tag == "br":
            out.append("\n")
        elif tag in ("sup", "sub"):
            if not closing and mode is None:
                out.append("$^{" if tag == "sup" else "$_{")
                mode = tag
            elif closing and mode == tag:
                out.append("}$")
                mode = None
        pos = m.end()
    out.append(s[pos:] if mode is None else _math_escape(s[pos:]) + "}$")
    return "".join(out)


def _math_escape(s: str) -> str:
    return "".join("\\" + ch if ch in "{}#%&_" else (r"\ " if ch == " " else ch) for ch in s)


def _arr(v, n=None):
    if v is None:
        return None
    a = np.asarray(v, dtype=object)
    if a.ndim == 0 and n is not None:
        return np.array([v] * n, dtype=object)
    return a


def _numeric(a) -> bool:
    try:
        np.asarray(a, dtype=float)
        return True
    except (TypeError, ValueError):
        return False


class _Axis:
    """One Plotly axis and the categories met on it (Plotly places categories at 0, 1, 2...)."""

    def __init__(self, spec):
        self.spec = spec
        self.type = spec.type if spec is not None else None
        self.categories: list = list(spec.categoryarray) if spec is not None and spec.categoryarray is not None else []

    def values(self, v):
        if v is None:
            return None
        a = np.asarray(v, dtype=object).ravel()
        if self.type == "category" or (self.type in (None, "-") and not _numeric([x for x in a if x is not None])):
            self.type = "category"
            out = np.full(a.size, np.nan)
            for i, x in enumerate(a):
                if x is None:
                    continue
                key = str(x)
                if key not in self.categories:
                    self.categories.append(key)
                out[i] = self.categories.index(key)
            return out
        return np.array([np.nan if x is None else float(x) for x in a], dtype=float)


# ------------------------------------------------------------------------------------ the renderer
class _Renderer:
    def __init__(self, fig, width, height):
        from matplotlib.figure import Figure

        self.pf = fig
        lay = fig.layout
        self.W = float(width or lay.width or DEFAULT_WIDTH)
        self.H = float(height or lay.height or DEFAULT_HEIGHT)
        self.bg = _colour(lay.paper_bgcolor, "#ffffff")
        self.ink = _colour(lay.font.color if lay.font else None, "#2f2d2b")
        self.font = float(lay.font.size or 12) if lay.font else 12.0
        self.mf = Figure(figsize=(self.W / 72, self.H / 72), dpi=72, facecolor=self.bg)
        m = lay.margin
        self.ml = float(m.l if m.l is not None else 80)
        self.mr = float(m.r if m.r is not None else 80)
        self.mt = float(m.t if m.t is not None else 100)
        self.mb = float(m.b if m.b is not None else 80)
        self.axes: dict = {}
        self.axis_specs: dict = {}
        self.legend_items: list = []
        self.bars: dict = {}

    # plot-area fractions of the figure
    def _paper(self, px, py):
        x0, x1 = self.ml / self.W, 1 - self.mr / self.W
        y0, y1 = self.mb / self.H, 1 - self.mt / self.H
        return x0 + px * (x1 - x0), y0 + py * (y1 - y0)

    def _axis_spec(self, name):
        key = name[0] + "axis" + name[1:]
        return self.pf.layout[key] if key in self.pf.layout else None

    def ax(self, xname="x", yname="y"):
        """The matplotlib axes of a Plotly (x axis, y axis) pair (made on first use)."""
        key = (xname, yname)
        if key in self.axes:
            return self.axes[key]
        xs, ys = self._axis_spec(xname), self._axis_spec(yname)
        over = ys.overlaying if ys is not None else None
        if over and over != "free":
            base = self.ax(xname, over)
            a = base.twinx()
        else:
            xd = list(xs.domain) if xs is not None and xs.domain is not None else [0, 1]
            yd = list(ys.domain) if ys is not None and ys.domain is not None else [0, 1]
            (x0, y0), (x1, y1) = self._paper(xd[0], yd[0]), self._paper(xd[1], yd[1])
            a = self.mf.add_axes((x0, y0, max(x1 - x0, 1e-3), max(y1 - y0, 1e-3)))
            a.set_facecolor(_colour(self.pf.layout.plot_bgcolor, self.bg))
        a._wb_x, a._wb_y = self.axis_specs.setdefault(xname, _Axis(xs)), self.axis_specs.setdefault(yname, _Axis(ys))
        self.axes[key] = a
        return a

    # ------------------------------------------------------------------ traces
    def trace(self, tr):
        kind = tr.type
        if kind not in SUPPORTED_TRACES:
            raise ValueError(f"cannot export a {kind} trace (exported: {', '.join(SUPPORTED_TRACES)})")
        if kind == "icicle":
            return self.icicle(tr)
        a = self.ax(tr.xaxis or "x", tr.yaxis or "y")
        getattr(self, "bar" if kind == "bar" else "heatmap" if kind == "heatmap" else "scatter")(a, tr)

    def _legend(self, tr, handle):
        if tr.showlegend is False or not tr.name:
            return
        self.legend_items.append((tr.legendrank if tr.legendrank is not None else 1000, to_mathtext(tr.name), handle))

    def scatter(self, a, tr):
        from matplotlib.lines import Line2D

        mode = tr.mode or "lines+markers"
        xs = a._wb_x.values(tr.x)
        ys = a._wb_y.values(tr.y)
        if xs is None or ys is None:
            xs = ys = np.array([])
        n = xs.size
        line = tr.line
        lc = _colour(line.color if line else None, self.ink)
        lw = float(line.width) if line and line.width is not None else 2.0
        ls = _DASHES.get(line.dash if line and line.dash else "solid", "-")
        handle_kw = {"color": lc if "lines" in mode else "none", "lw": lw, "ls": ls}
        if "lines" in mode and n:
            a.plot(xs, ys, color=lc, lw=lw, ls=ls, solid_capstyle="butt", zorder=2,
                   drawstyle="steps-post" if line and line.shape == "hv" else "default",
                   alpha=tr.opacity if tr.opacity is not None else 1.0)
        mk = tr.marker
        if "markers" in mode:
            sym = mk.symbol if mk and mk.symbol is not None else "circle"
            size = mk.size if mk and mk.size is not None else 6
            sizes = np.broadcast_to(np.asarray(size, dtype=float), (n,)) if n else np.array([])
            cols = self._marker_colours(mk, n)
            edge = _colour(mk.line.color if mk and mk.line else None, "none")
            ew = float(mk.line.width) if mk and mk.line and mk.line.width is not None else 0.0
            syms = np.broadcast_to(np.asarray(sym, dtype=object), (n,)) if n else np.array([], dtype=object)
            for s_ in sorted(set(syms.tolist())) if n else []:
                idx = np.flatnonzero(syms == s_)
                base = str(s_).replace("-open", "")
                marker = _MARKERS.get(base, "o")
                faces = [cols[i] for i in idx]
                if str(s_).endswith("-open"):
                    edges_ = faces
                    faces = "none"
                else:
                    edges_ = edge
                a.scatter(xs[idx], ys[idx], s=sizes[idx] ** 2 * (0.8 if marker in "sD^vhp" else 1.0), marker=marker,
                          c=faces if isinstance(faces, str) else None, color=None if isinstance(faces, str) else faces,
                          edgecolors=edges_, linewidths=max(ew, 1.5) if isinstance(faces, str) else ew,
                          zorder=3)
            first = syms[0] if n else sym if isinstance(sym, str) else "circle"
            handle_kw.update(marker=_MARKERS.get(str(first).replace("-open", ""), "o"),
                             markersize=float(np.asarray(size, float).ravel()[0]) * 0.8 if np.size(size) else 8,
                             markerfacecolor=cols[0] if n else _colour(mk.color if mk else None, self.ink),
                             markeredgecolor=edge, markeredgewidth=ew)
            if mk is not None and mk.showscale and mk.colorscale is not None and n:
                self._colourbar(a, mk.colorscale, mk.cmin, mk.cmax, mk.colorbar, mk.color)
        if "text" in mode and tr.text is not None and n:
            self._texts(a, tr, xs, ys)
        if tr.x is not None and n == 0 or tr.showlegend or ("lines" in mode or "markers" in mode):
            self._legend(tr, Line2D([], [], **handle_kw))

    def _marker_colours(self, mk, n):
        col = mk.color if mk is not None else None
        if col is None:
            return [self.ink] * n
        arr = np.asarray(col, dtype=object).ravel()
        if arr.size == 1 and n != 1:
            arr = np.array([arr[0]] * n, dtype=object)
        if arr.size and _numeric(arr) and not isinstance(arr[0], str):
            vals = np.asarray(arr, float)
            lo = mk.cmin if mk.cmin is not None else np.nanmin(vals)
            hi = mk.cmax if mk.cmax is not None else np.nanmax(vals)
            cmap = _colourmap(mk.colorscale or "Viridis")
            span = (hi - lo) or 1.0
            return [cmap(float(np.clip((v - lo) / span, 0, 1))) if np.isfinite(v) else "none" for v in vals]
        return [_colour(c) for c in arr]

    def _colourbar(self, a, scale, lo, hi, spec, values):
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        vals = np.asarray(values, float) if values is not None else np.array([0.0, 1.0])
        lo = float(np.nanmin(vals)) if lo is None else lo
        hi = float(np.nanmax(vals)) if hi is None else hi
        sm = ScalarMappable(norm=Normalize(lo, hi), cmap=_colourmap(scale))
        cb = self.mf.colorbar(sm, ax=a, fraction=0.035, pad=0.02)
        title = spec.title.text if spec is not None and spec.title is not None else None
        if title:
            cb.set_label(to_mathtext(title), color=self.ink, fontsize=self.font)
        cb.ax.tick_params(colors=self.ink, labelsize=max(self.font - 2, 12))
        cb.outline.set_edgecolor(self.ink)

    def _texts(self, a, tr, xs, ys):
        n = xs.size
        texts = _arr(tr.text, n)
        pos = _arr(tr.textposition or "middle center", n)
        tf = tr.textfont
        sizes = _arr(tf.size if tf and tf.size is not None else self.font, n)
        cols = _arr(tf.color if tf and tf.color is not None else self.ink, n)
        msize = tr.marker.size if tr.marker and tr.marker.size is not None and "markers" in (tr.mode or "") else 0
        msz = np.broadcast_to(np.asarray(msize, float), (n,))
        for i in range(n):
            if texts[i] is None or str(texts[i]) == "" or not (np.isfinite(xs[i]) and np.isfinite(ys[i])):
                continue
            p = str(pos[i])
            r = msz[i] / 2 + 2 if p != "middle center" else 0
            dx = r if "right" in p else -r if "left" in p else 0
            dy = r if "top" in p else -r if "bottom" in p else 0
            ha = "left" if "right" in p else "right" if "left" in p else "center"
            va = "bottom" if "top" in p else "top" if "bottom" in p else "center"
            a.annotate(to_mathtext(texts[i]), (xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points",
                       ha=ha, va=va, fontsize=float(sizes[i]), color=_colour(cols[i], self.ink), zorder=4,
                       annotation_clip=False)

    def bar(self, a, tr):
        from matplotlib.patches import Patch

        horiz = tr.orientation == "h"
        cat = a._wb_y if horiz else a._wb_x
        val = a._wb_x if horiz else a._wb_y
        pos = cat.values(tr.y if horiz else tr.x)
        height = val.values(tr.x if horiz else tr.y)
        n = pos.size
        group = self.bars.setdefault(id(a), {"count": sum(1 for t in self.pf.data if t.type == "bar"
                                                          and (t.xaxis or "x", t.yaxis or "y") == (tr.xaxis or "x", tr.yaxis or "y")),
                                             "i": 0})
        k, i = group["count"], group["i"]
        group["i"] += 1
        mode = self.pf.layout.barmode or "group"
        width = 0.8 / k if mode == "group" and k > 1 else 0.8
        off = (i - (k - 1) / 2) * width if mode == "group" and k > 1 else 0.0
        mk = tr.marker
        cols = self._marker_colours(mk, n)
        pat = mk.pattern.shape if mk is not None and mk.pattern is not None else None
        pats = _arr(pat if pat is not None else "", n)
        edge = _colour(mk.pattern.fgcolor, self.ink) if pat else "none"
        for j in range(n):
            kw = dict(color=cols[j], hatch=_HATCHES.get(str(pats[j]), None), edgecolor=edge if pats[j] else "none",
                      linewidth=0, zorder=2)
            if horiz:
                a.barh(pos[j] + off, height[j], height=width, **kw)
            else:
                a.bar(pos[j] + off, height[j], width=width, **kw)
        if tr.text is not None:
            texts = _arr(tr.text, n)
            size = tr.textfont.size if tr.textfont and tr.textfont.size else self.font
            for j in range(n):
                if texts[j] in (None, ""):
                    continue
                if horiz:
                    a.annotate(to_mathtext(texts[j]), (height[j], pos[j] + off), xytext=(3, 0), textcoords="offset points",
                               ha="left", va="center", fontsize=size, color=self.ink, annotation_clip=False)
                else:
                    a.annotate(to_mathtext(texts[j]), (pos[j] + off, height[j]), xytext=(0, 3), textcoords="offset points",
                               ha="center", va="bottom", fontsize=size, color=self.ink, annotation_clip=False)
        self._legend(tr, Patch(facecolor=cols[0] if n else self.ink, hatch=_HATCHES.get(str(pats[0]) if n else "", None),
                               edgecolor=edge))

    def heatmap(self, a, tr):
        z = np.asarray(tr.z, float)
        ny, nx = z.shape
        xs = a._wb_x.values(tr.x) if tr.x is not None else np.arange(nx, dtype=float)
        ys = a._wb_y.values(tr.y) if tr.y is not None else np.arange(ny, dtype=float)

        def edges(c):
            c = np.asarray(c, float)
            if c.size == 1:
                return np.array([c[0] - 0.5, c[0] + 0.5])
            mid = (c[1:] + c[:-1]) / 2
            return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])

        lo = tr.zmin if tr.zmin is not None else np.nanmin(z)
        hi = tr.zmax if tr.zmax is not None else np.nanmax(z)
        cmap = _colourmap(tr.colorscale or "Viridis")
        a.pcolormesh(edges(xs), edges(ys), z, cmap=cmap, vmin=lo, vmax=hi, shading="flat",
                     edgecolors=self.bg if tr.xgap else "none", linewidth=float(tr.xgap or 0))
        if tr.text is not None and tr.texttemplate:
            txt = np.asarray(tr.text, dtype=object)
            size = tr.textfont.size if tr.textfont and tr.textfont.size else self.font
            for r in range(ny):
                for c in range(nx):
                    lum = np.dot(cmap(float(np.clip((z[r, c] - lo) / ((hi - lo) or 1), 0, 1)))[:3], [0.299, 0.587, 0.114])
                    a.text(xs[c], ys[r], to_mathtext(txt[r, c]), ha="center", va="center", fontsize=size,
                           color="black" if lum > 0.5 else "white")
        if tr.showscale is not False:
            self._colourbar(a, tr.colorscale or "Viridis", lo, hi, tr.colorbar, z)

    def icicle(self, tr):
        ids = [str(i) for i in tr.ids]
        parents = [str(p) for p in tr.parents]
        values = dict(zip(ids, np.asarray(tr.values, float)))
        labels = dict(zip(ids, [str(v) for v in tr.labels]))
        colours = dict(zip(ids, [_colour(c) for c in (tr.marker.colors or [])]))
        kids: dict = {}
        for i, p in zip(ids, parents):
            kids.setdefault(p, []).append(i)
        maxdepth = tr.maxdepth if tr.maxdepth not in (None, -1) else 10 ** 6
        roots = kids.get("", [])
        depth_of = {}

        def depth(i, d=0):
            depth_of[i] = d
            for c in kids.get(i, []):
                depth(c, d + 1)

        for r in roots:
            depth(r)
        levels = min(max(depth_of.values(), default=0) + 1, maxdepth)
        a = self.mf.add_axes((*self._paper(0, 0), 1 - (self.ml + self.mr) / self.W, 1 - (self.mt + self.mb) / self.H))
        a.set_axis_off()
        a.set_xlim(0, 1)
        a.set_ylim(0, 1)
        h = 1.0 / max(levels, 1)
        size = tr.textfont.size if tr.textfont and tr.textfont.size else self.font
        total = sum(values[r] for r in roots) or 1.0

        def draw(i, x0, w, d):
            if d >= levels:
                return
            y1 = 1 - d * h
            col = colours.get(i, "#cccccc")
            from matplotlib.patches import Rectangle

            a.add_patch(Rectangle((x0, y1 - h), w, h, facecolor=col, edgecolor=self.bg, linewidth=1))
            rgb = np.asarray(__import__("matplotlib.colors", fromlist=["to_rgb"]).to_rgb(col))
            txtc = "black" if np.dot(rgb, [0.299, 0.587, 0.114]) > 0.55 else "white"
            if w * (self.W - self.ml - self.mr) > 24:
                a.text(x0 + 0.004, y1 - 0.01, to_mathtext(labels[i]), ha="left", va="top", fontsize=size, color=txtc,
                       clip_on=True)
            cx = x0
            for c in kids.get(i, []):
                cw = w * values[c] / (values[i] or 1.0)
                draw(c, cx, cw, d + 1)
                cx += cw

        x = 0.0
        for r in roots:
            draw(r, x, values[r] / total, 0)
            x += values[r] / total

    # ------------------------------------------------------------------ layout
    def finish_axes(self):
        import matplotlib.ticker as mticker

        lay = self.pf.layout
        for (xname, yname), a in self.axes.items():
            for which, spec_axis, _name in (("x", a._wb_x, xname), ("y", a._wb_y, yname)):
                spec = spec_axis.spec
                twin = which == "y" and spec is not None and spec.overlaying not in (None, "free")
                setlim, setscale = (a.set_xlim, a.set_xscale) if which == "x" else (a.set_ylim, a.set_yscale)
                axis = a.xaxis if which == "x" else a.yaxis
                log = spec is not None and spec.type == "log"
                if log:
                    setscale("log")
                rng = list(spec.range) if spec is not None and spec.range is not None else None
                if rng is not None and None not in rng:
                    setlim(*(10 ** np.asarray(rng, float) if log else rng))
                elif spec_axis.type == "category" and spec_axis.categories:
                    setlim(-0.5, len(spec_axis.categories) - 0.5)
                if spec is not None and spec.autorange == "reversed":
                    (a.invert_xaxis if which == "x" else a.invert_yaxis)()
                visible = spec is None or spec.visible is not False
                if not visible:
                    axis.set_visible(False)
                    for side in (("bottom", "top") if which == "x" else ("left", "right")):
                        a.spines[side].set_visible(False)
                    continue
                if spec_axis.type == "category":
                    axis.set_major_locator(mticker.FixedLocator(range(len(spec_axis.categories))))
                    axis.set_major_formatter(mticker.FixedFormatter([to_mathtext(c) for c in spec_axis.categories]))
                if spec is not None and spec.dtick is not None and not log and spec_axis.type != "category":
                    try:
                        axis.set_major_locator(mticker.MultipleLocator(float(spec.dtick)))
                    except (TypeError, ValueError):
                        pass
                if spec is not None and spec.tickvals is not None:
                    axis.set_major_locator(mticker.FixedLocator(list(spec.tickvals)))
                    if spec.ticktext is not None:
                        axis.set_major_formatter(mticker.FixedFormatter([to_mathtext(t) for t in spec.ticktext]))
                    axis.set_minor_locator(mticker.NullLocator())
                if spec is not None and spec.showticklabels is False:
                    axis.set_ticklabels([])
                tick = spec.tickfont.size if spec is not None and spec.tickfont and spec.tickfont.size else 12
                tcol = _colour(spec.tickfont.color if spec is not None and spec.tickfont else None, self.ink)
                a.tick_params(axis=which, labelsize=max(tick, 12), colors=tcol, which="both")
                title = spec.title.text if spec is not None and spec.title is not None else None
                if title:
                    size = spec.title.font.size if spec.title.font and spec.title.font.size else self.font
                    (a.set_xlabel if which == "x" else a.set_ylabel)(to_mathtext(title), fontsize=size, color=self.ink)
                if twin:
                    a.yaxis.set_label_position("right")
                grid = spec is None or spec.showgrid is not False
                if grid and not twin:
                    a.grid(True, axis=which, color=_colour(spec.gridcolor if spec is not None else None, "#e6e9ef"),
                           lw=0.8, zorder=0)
            a.set_axisbelow(True)
            for side, sp in a.spines.items():
                sp.set_color(_colour(lay.xaxis.linecolor if lay.xaxis else None, "#d5dae1"))
                if side in ("top", "right") and not (side == "right" and any(
                        v is not a and getattr(v, "_wb_y", None) is not None and v._wb_y.spec is not None
                        and v._wb_y.spec.overlaying not in (None, "free") for v in self.axes.values())):
                    sp.set_visible(False)

    def annotations(self):
        from matplotlib.transforms import blended_transform_factory

        base = self.axes.get(("x", "y"))
        for an in self.pf.layout.annotations:
            xref, yref = an.xref or "x", an.yref or "y"
            size = an.font.size if an.font and an.font.size else self.font
            col = _colour(an.font.color if an.font else None, self.ink)
            text = to_mathtext(an.text) if an.text else ""
            bbox = None
            if an.bgcolor or an.bordercolor:
                bbox = dict(boxstyle=f"square,pad={0.2 + (an.borderpad or 1) / max(size, 1):.2f}",
                            facecolor=_colour(an.bgcolor, "none"), edgecolor=_colour(an.bordercolor, "none"),
                            linewidth=an.borderwidth or 1)
            ha = {"left": "left", "right": "right"}.get(an.xanchor, "center")
            va = {"top": "top", "bottom": "bottom"}.get(an.yanchor, "center")
            if xref == "paper" and yref == "paper":
                px, py = self._paper(float(an.x), float(an.y))
                self.mf.text(px, py, text, ha=ha, va=va, fontsize=size, color=col, bbox=bbox)
                continue
            a = self.axes.get((xref.split(" ")[0], yref.split(" ")[0]), base)
            if a is None:
                continue
            tx = a.transAxes if xref.endswith("domain") or xref == "paper" else a.transData
            ty = a.transAxes if yref.endswith("domain") or yref == "paper" else a.transData
            trans = blended_transform_factory(tx, ty)
            xy = (float(an.x), float(an.y))
            if an.showarrow is False:
                a.annotate(text, xy, xycoords=trans, xytext=(an.xshift or 0, an.yshift or 0),
                           textcoords="offset points", ha=ha, va=va, fontsize=size, color=col, bbox=bbox,
                           annotation_clip=False, zorder=5)
                continue
            acol = _colour(an.arrowcolor, self.ink)
            aw = float(an.arrowwidth or 1)
            head = an.arrowhead if an.arrowhead is not None else 1
            style = "-" if head == 0 else "-|>"
            props = dict(arrowstyle=style, color=acol, lw=aw, shrinkA=0, shrinkB=float(an.standoff or 0),
                         mutation_scale=6 + 3 * aw)
            if an.axref and an.axref != "pixel":
                a.annotate(text, xy, xycoords=trans, xytext=(float(an.ax), float(an.ay)), textcoords=trans,
                           arrowprops=props, ha="center", va="center", fontsize=size, color=col, bbox=bbox,
                           annotation_clip=False, zorder=5)
            else:
                dx = float(an.ax if an.ax is not None else -10)
                dy = -float(an.ay if an.ay is not None else -30)
                a.annotate(text, xy, xycoords=trans, xytext=(dx, dy), textcoords="offset points", arrowprops=props,
                           ha="center", va="center", fontsize=size, color=col, bbox=bbox, annotation_clip=False,
                           zorder=5)

    def shapes(self):
        from matplotlib.lines import Line2D
        from matplotlib.transforms import blended_transform_factory

        base = self.axes.get(("x", "y"))
        for sh in self.pf.layout.shapes:
            if sh.type not in ("line", None) or base is None:
                continue
            xref, yref = sh.xref or "x", sh.yref or "y"
            a = self.axes.get((xref.split(" ")[0] if xref != "paper" else "x", yref.split(" ")[0] if yref != "paper" else "y"), base)
            tx = a.transAxes if xref.endswith("domain") or xref == "paper" else a.transData
            ty = a.transAxes if yref.endswith("domain") or yref == "paper" else a.transData
            ln = sh.line
            a.add_line(Line2D([float(sh.x0), float(sh.x1)], [float(sh.y0), float(sh.y1)],
                              transform=blended_transform_factory(tx, ty), zorder=1.5,
                              color=_colour(ln.color if ln else None, self.ink), lw=float(ln.width or 1) if ln else 1,
                              ls=_DASHES.get(ln.dash if ln and ln.dash else "solid", "-")))

    def legend(self):
        lay = self.pf.layout
        items = [it for it in self.legend_items]
        named = [it for it in items if it[1]]
        show = lay.showlegend
        if show is False or not named or (show is None and len(self.pf.data) < 2):
            return
        named.sort(key=lambda it: it[0])
        lg = lay.legend
        size = lg.font.size if lg and lg.font and lg.font.size else self.font
        horiz = lg is not None and lg.orientation == "h"
        above = horiz and lg.y is not None and lg.y >= 0.5
        kw = dict(frameon=False, fontsize=size, labelcolor=self.ink, handlelength=2.2)
        if horiz:
            x0, y0 = self._paper(0, 1 if above else 0)
            self.mf.legend([h for _, _, h in named], [t for _, t, _ in named], loc="lower left" if above else "upper left",
                           bbox_to_anchor=(x0, y0 + (0.01 if above else -0.09)), ncol=min(len(named), 4), **kw)
        else:
            x1, y1 = self._paper(1, 1)
            self.mf.legend([h for _, _, h in named], [t for _, t, _ in named], loc="upper left",
                           bbox_to_anchor=(x1 + 0.01, y1), **kw)

    def title(self):
        t = self.pf.layout.title
        if t is None or not t.text:
            return
        size = t.font.size if t.font and t.font.size else self.font * 1.2
        self.mf.text(self.ml / self.W, 1 - 8 / self.H, to_mathtext(t.text), ha="left", va="top", fontsize=size,
                     color=_colour(t.font.color if t.font else None, self.ink))

    def run(self):
        for tr in self.pf.data:
            self.trace(tr)
        self.finish_axes()
        self.shapes()
        self.annotations()
        self.legend()
        self.title()
        return self.mf


def _decoded(obj):
    """``obj`` (a figure's dict) with Plotly's packed arrays (``{"dtype": "f4", "bdata": ...}``)
    as numpy arrays; new containers, the input is left untouched (it may be a shared cache entry)."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            a = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            shape = obj.get("shape")
            if shape:
                dims = [int(d) for d in (shape.split(",") if isinstance(shape, str) else shape)]
                a = a.reshape(dims)
            return a
        return {k: _decoded(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_decoded(v) for v in obj]
    return obj


def as_figure(fig):
    """A ``plotly.graph_objects.Figure`` for ``fig``: a Figure, a figure's dict, or any figure
    whose ``to_dict()`` is its finished spec (``workbench.components.Spec``, packed arrays and all).

    >>> import plotly.graph_objects as go
    >>> as_figure({"data": [{"type": "bar", "y": [1, 2]}]}).data[0].type
    'bar'
    """
    import plotly.graph_objects as go

    if type(fig) is go.Figure:
        return fig
    spec = fig if isinstance(fig, dict) else fig.to_dict()
    return go.Figure(_decoded(spec))


def render(fig, *, width: int | None = None, height: int | None = None):
    """``fig`` (a Plotly figure, or what :func:`as_figure` takes) redrawn as a matplotlib
    ``Figure`` of ``width`` x ``height`` px (default: the figure's own size, else 900 x 450)."""
    import matplotlib

    with _LOCK, matplotlib.rc_context(_RC):
        return _Renderer(as_figure(fig), width, height).run()


_RC = {"font.family": "DejaVu Sans", "svg.fonttype": "none", "pdf.fonttype": 42, "axes.unicode_minus": True,
       "mathtext.default": "regular", "hatch.linewidth": 1.0}


#: matplotlib's settings are global: one export at a time (downloads run on the server's threads)
_LOCK = threading.Lock()


def _save(fig, fmt: str, width, height) -> bytes:
    import matplotlib

    fig = as_figure(fig)
    with _LOCK, matplotlib.rc_context(_RC):
        mf = _Renderer(fig, width, height).run()
        buf = io.BytesIO()
        mf.savefig(buf, format=fmt, facecolor=mf.get_facecolor(), bbox_inches="tight", pad_inches=0.15,
                   metadata={"Creator": "Tree Inference Workbench"})
        return buf.getvalue()


def figure_svg(fig, *, width: int | None = None, height: int | None = None) -> bytes:
    """``fig`` as an SVG document (text kept as text, so it stays editable)."""
    return _save(fig, "svg", width, height)


def figure_pdf(fig, *, width: int | None = None, height: int | None = None) -> bytes:
    """``fig`` as a one-page vector PDF with its fonts embedded."""
    return _save(fig, "pdf", width, height)

