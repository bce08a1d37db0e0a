"""Page pieces every page shares: a vertex's selection, a pick-by-name box, and figures that cost
nothing to send again. (A tree itself is drawn by :mod:`workbench.treeview`, at any size.)

**Clickable figures.** :func:`clickable_chart` draws a Plotly figure whose points carry ids in
``customdata`` and turns each click into a call ``on_pick(id)`` that runs *before* the page (or its
fragment) reruns, so the figure is drawn with the new selection at once. Why this shape: Streamlit
names a chart after its whole figure, so a figure that changes with the selection (the ring moves)
is a new chart after every click; reading the click after drawing (the old way) saw the new,
empty chart and lost every second click. A callback reads the click of the chart that was clicked.
Every point trace keeps its colour and its names when Plotly marks a selection (no fading).

**The selected vertex.** :func:`selected_vertex` / :func:`select_vertex` keep a page's selected
vertex (by name, so it survives reruns and falls back to a default on another tree);
:func:`vertex_box` is a "pick a vertex by name" box (the keyboard route: type to filter, Enter to
pick).

**Figures as specs.** Building a ``plotly.graph_objects.Figure`` validates every array (tens of
ms for 1,000 points). A figure that is redrawn on every click is built once per (tree, settings),
kept as a plain dict in ``st.cache_resource`` (read-only, shared by every session), and each run
copies the few entries that change into a :class:`Spec`, which ``st.plotly_chart`` sends as is.

**Every figure exports.** :func:`chart` draws any figure with the session's Plotly config (the
camera button saves an SVG) and, under it, :func:`export_buttons`: "SVG" and "PDF" downloads
drawn on the server (``workbench.figures.export``) only when clicked, so a rerun costs two buttons,
not an export.

**Every figure can be read aloud** (docs/accessibility.md). :func:`chart` and :func:`clickable_chart`
draw their figure between the two halves of a :class:`FigureText`: before it, a small component
that gives the figure its generated description (:func:`workbench.figures.describe.describe_figure`)
as its accessible name and a "Skip past this figure" link for the keyboard; after it, beside "SVG"
and "PDF", a "CSV" download of the figure's data, and a "Describe" expander with the description
as text. The tree view names itself, draws the same link and its own "Describe" (its component's
DOM); :func:`bars` carry their name and their "Describe" in their own HTML (a ``<details>``, the
one Tab stop they hold: nothing to skip). An Online Marginals click sent 42 elements, 8 of them
the expanders and their text (with the views' notes and "Download", 30 now: a click's server CPU
0.76 of what it was, ``bench_app --compare``, 2 December 2026).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Hashable, Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from engine.trees import Tree
from workbench.figures.describe import describe_figure, figure_csv
from workbench.session import ElementState

_A11Y = st.components.v2.component(
    "tree_workbench.figure_a11y", html="",
    css=(Path(__file__).resolve().parent / "assets" / "figure_a11y.css").read_text(encoding="utf-8"),
    js=(Path(__file__).resolve().parent / "assets" / "figure_a11y.js").read_text(encoding="utf-8"))

__all__ = ["Spec", "as_shown", "FigureText", "recent", "as_spec", "spec_of", "keep_colours", "chart", "export_buttons",
           "show_downloads", "bars", "clickable_chart",
           "marginal_panel", "marginal_spec",
           "selected_vertex",
           "select_vertex",
           "vertex_box", "ring_trace", "tree_hash", "RING",
           "EVIDENCE_RING", "PICK_LIMIT", "CLICK_CONFIG", "selection_key", "page_cache", "array_key",
           "beside_buttons"]

RING = "#e63946"            # the selected vertex
EVIDENCE_RING = "#f4a261"   # vertices with evidence
PICK_LIMIT = 5000           # up to this many vertices the name box is a searchable list
#: Plotly config of a clickable chart: two clicks within Plotly's double-click delay (300 ms: two
#: vertices picked quickly) are a double click to Plotly, which clears the selection and resets the
#: axes, so the second click was lost; here every click is a click (the modebar's "reset axes"
#: button resets the view)
CLICK_CONFIG = {"doubleClick": False, "doubleClickDelay": 1}
_MD_SPECIAL = re.compile(r"[\\`*_{}\[\]<>()#+!|$~]")   # shown as they are in a description


def tree_hash(tree: Tree) -> str:
    """``hash_funcs`` entry for caches keyed by a tree: its content key."""
    return tree.content_key


def array_key(a: np.ndarray) -> str:
    """``hash_funcs`` entry for caches keyed by arrays: every cell counts. Streamlit's own hashing
    samples 100,000 cells of an array of 500,000 or more (an imported network's ψ, padded to its
    largest variable, can be that large) and could miss an edit of one table."""
    return f"{a.dtype}{a.shape}" + hashlib.blake2b(np.ascontiguousarray(a).tobytes(), digest_size=16).hexdigest()


def recent(key: Callable[..., Hashable], size: int) -> Callable:
    """In front of an ``st.cache_resource`` function called on every rerun: its answer for a key
    asked lately (``key(*args)``, a cheap tuple) without Streamlit's work per call (the function's
    signature read again, every argument hashed: 5 % of a click's server time on Online Marginals,
    py-spy --gil, bench_app, 2 December 2026). A key not seen lately goes to the cache underneath
    (and its spinner); alone, in front of a pure function (:func:`spec_of`). Keeps at most
    ``size`` answers (the objects returned)."""
    import functools
    from collections import OrderedDict

    def decorate(func: Callable) -> Callable:
        kept: OrderedDict = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(func)
        def call(*args, **kwargs):
            k = key(*args, **kwargs)
            with lock:
                if k in kept:
                    kept.move_to_end(k)
                    return kept[k]
            value = func(*args, **kwargs)
            with lock:
                kept[k] = value
                while len(kept) > size:
                    kept.popitem(last=False)
            return value

        call.recent = kept   # (the tests read it)
        return call

    return decorate


_PAGE_CACHES: dict[tuple, tuple] = {}


def page_cache(cache: Callable, **options) -> Callable:
    """``@cache(**options)`` (``st.cache_resource`` or ``st.cache_data``) for a function defined in a
    page's script, with the wrapper made once per process. A page's script runs anew on every
    rerun, so a plain decorator there makes Streamlit's wrapper anew too, which reads and tokenizes
    the function's source for the cache's name: about half a millisecond per function per run, 30
    times over when a class follows a step (docs/benchmarks.md). The wrapper is kept by the
    function's file, name and options, and used again while its code is the same (a changed file
    makes a new one); its values are cached, as before, by the function's source and arguments.
    On a miss it runs the function's code in the globals of the script run that calls it (the
    nearest caller in the page's file: the run itself, or a fragment of it), as an undecorated call
    would: another session's run may not have defined the helpers below the function yet."""
    import functools
    import sys
    import types

    def decorate(func: Callable) -> Callable:
        name = (func.__code__.co_filename, func.__qualname__, repr(sorted(options.items(), key=lambda kv: kv[0])))
        kept = _PAGE_CACHES.get(name)
        if kept is not None and kept[0] == func.__code__:
            kept[2][0] = func
            return kept[1]
        latest, code = [func], func.__code__

        @functools.wraps(func)
        def call(*args, **kwargs):
            fn, frame = latest[0], sys._getframe(1)
            while frame is not None and frame.f_code.co_filename != code.co_filename:
                frame = frame.f_back
            if frame is not None and frame.f_globals is not fn.__globals__:   # the caller's own run
                fn = types.FunctionType(code, frame.f_globals, fn.__name__, fn.__defaults__, fn.__closure__)
                fn.__kwdefaults__ = latest[0].__kwdefaults__
            return fn(*args, **kwargs)

        wrapper = cache(**options)(call)
        _PAGE_CACHES[name] = (func.__code__, wrapper, latest)
        return wrapper
    return decorate


class Spec(go.Figure):
    """A figure given as its finished dict (``fig.to_dict()`` form): ``st.plotly_chart`` takes it
    without validating it again. Only for dicts made from real figures (:func:`as_spec`).
    ``fingerprint``: what the drawing shows besides the selection (set by :func:`tree_spec`).

    Only ``to_dict()`` (what ``st.plotly_chart`` reads) and item access to the dict are meant to
    be used; ``Figure.__init__`` is not run (it builds a default template: a millisecond a run)."""

    def __init__(self, spec: dict, fingerprint=None):   # no super().__init__(): see above
        object.__setattr__(self, "_spec", spec)
        object.__setattr__(self, "fingerprint", fingerprint)

    def to_dict(self) -> dict:
        return self._spec

    def __getitem__(self, key):
        return self._spec[key]


def keep_colours(fig: go.Figure) -> go.Figure:
    """Selected and unselected points look the same (Plotly fades unselected points, colours and
    names, once a point is selected); the selection is shown by a ring instead."""
    for trace in fig.data:
        if trace.type in ("scatter", "scattergl") and "markers" in (trace.mode or "markers"):
            text = trace.textfont.color if trace.textfont is not None else None
            keep = dict(marker=dict(opacity=1.0))
            if isinstance(text, str):   # per-point label colours cannot be given here; the
                keep["textfont"] = dict(color=text)   # chart is redrawn, unselected, on a new pick
            trace.update(selected=keep, unselected=keep)
    return fig


_COMPACT_MIN = 64   # arrays shorter than this stay plain JSON


def _float32_array(v):
    """``v`` (a list, a numpy array or plotly's base64 form) as plotly's base64 float32 form, or
    ``None`` when it is not a numeric array worth packing. Screen coordinates need no more than
    float32; NaN (the gaps between edge segments) survives."""
    import base64

    if isinstance(v, dict) and "bdata" in v and v.get("dtype") in ("f8", "f4"):
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    elif isinstance(v, (list, tuple, np.ndarray)) and len(v) >= _COMPACT_MIN:
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        if a.ndim != 1:
            return None
    else:
        return None
    return {"dtype": "f4", "bdata": base64.b64encode(a.astype(np.float32).tobytes()).decode("ascii")}


def as_spec(fig: go.Figure) -> dict:
    """The dict of a figure, with unfading points (what :func:`Spec` takes) and its long
    coordinate arrays packed as float32 (a 1,000-vertex tree sends 3 times fewer bytes)."""
    spec = keep_colours(fig).to_dict()
    for trace in spec.get("data", ()):
        for axis in ("x", "y"):
            packed = _float32_array(trace.get(axis))
            if packed is not None:
                trace[axis] = packed
    return spec


@recent(lambda func, *args, **kwargs: (func.__code__.co_filename, func.__qualname__, args,
                                     tuple(sorted(kwargs.items()))), size=32)
def spec_of(func: Callable, *args, **kwargs) -> dict:
    """``as_spec(func(*args, **kwargs))``, kept in this process per function (its file and name: a
    page's script defines its functions anew on every run) and arguments (hashable, and what the
    figure depends on): the dict a page copies the changing entries of into a :class:`Spec` on
    every click. Read-only: every session shares it."""
    return as_spec(func(*args, **kwargs))


def _first_id(key: str, decode: Callable):
    ev = ElementState(key).value
    points = ev["selection"]["points"] if ev and "selection" in ev else []
    for p in points:
        cd = p.get("customdata")
        if isinstance(cd, (list, tuple)):
            cd = cd[0] if cd else None
        if cd is None:
            continue
        got = decode(cd)
        if got is not None:
            return got
    return None


def as_shown(fig, style=None):
    """``fig`` as the session shows it: in presenter mode :data:`~workbench.figures.style.PRESENTER_HEIGHT`
    times taller (a copy: figures and specs may be cached and shared by every session)."""
    from workbench.figures.style import PRESENTER_HEIGHT, current

    if not (style or current()).presenter:
        return fig
    if isinstance(fig, Spec):
        d = fig.to_dict()
        h = d.get("layout", {}).get("height")
        return Spec({**d, "layout": {**d["layout"], "height": round(h * PRESENTER_HEIGHT)}}) if h else fig
    h = fig.layout.height
    if not h:
        return fig
    fig = go.Figure(fig)
    fig.layout.height = round(h * PRESENTER_HEIGHT)
    return fig


def clickable_chart(fig, *, key: str, on_pick: Callable[[object], None], decode: Callable = int,
                    config: dict | None = None, on_clear: Callable[[], None] | None = None,
                    name: str | None = None, describe: str = "", **chart_args) -> None:
    """Draw ``fig`` (a Figure or a :class:`Spec`) so that a click on a point calls
    ``on_pick(decode(customdata))`` before the rerun. Points without customdata (edges, rings)
    are not clickable; a click that deselects (the same point again) calls ``on_clear()`` if
    given, and changes nothing else. ``name``: the exported files' name (default ``key``);
    ``describe``: the page's sentence that opens the figure's description (:class:`FigureText`)."""

    def picked():
        got = _first_id(key, decode)
        if got is not None:
            on_pick(got)
        elif on_clear is not None:
            on_clear()

    if not isinstance(fig, Spec):
        fig = keep_colours(fig)
    from workbench.figures.style import current

    style = current()
    fig = as_shown(fig, style)
    cfg = style.plotly_config()
    cfg.update(CLICK_CONFIG)
    cfg.update(config or {})
    text = FigureText.of(fig, key=key, describe=describe)
    text.before()
    st.plotly_chart(fig, key=key, on_select=picked, selection_mode="points", config=cfg, **chart_args)
    export_buttons(fig, key=key, name=name, csv=text.csv)
    text.after()


# ------------------------------------------------------------------ any figure, with its exports
def chart(fig, *, key: str, name: str | None = None, config: dict | None = None, describe: str = "",
          **chart_args) -> None:
    """``st.plotly_chart(fig)`` with the session's Plotly config (its camera button saves an SVG),
    the SVG/PDF/CSV downloads of :func:`export_buttons` under it and its description
    (:class:`FigureText`). ``name``: the files' name (default ``key``); ``describe``: the page's
    sentence that opens the description."""
    from workbench.figures.style import current

    style = current()
    fig = as_shown(fig, style)
    cfg = style.plotly_config()
    cfg.update(config or {})
    text = FigureText.of(fig, key=key, describe=describe)
    text.before()
    st.plotly_chart(fig, key=key, config=cfg, **chart_args)
    export_buttons(fig, key=key, name=name, csv=text.csv)
    text.after()


# ------------------------------------------------------------------ any figure, read aloud
@dataclass(frozen=True)
class FigureText:
    """What a figure says to someone who cannot see it: ``text`` (its description), ``csv`` (a
    maker of its data as CSV bytes, run only when "CSV" is clicked), ``key`` (the figure's)."""
    key: str
    text: str
    csv: Callable[[], bytes]
    kind: str = "chart"

    @classmethod
    def of(cls, fig, *, key: str, describe: str = "", kind: str = "chart") -> "FigureText":
        """The text of a Plotly figure (or :class:`Spec`), from its data; ``kind``: "chart" when
        the figure is drawn as a Plotly chart (:meth:`before` gives it the text as its accessible
        name), else what draws it ("bars": :func:`bars`, text already, named by their ``label``)."""
        return cls(key=key, text=describe_figure(fig, describe), csv=lambda: figure_csv(fig), kind=kind)

    @property
    def title(self) -> str:
        """The description's first sentence (at most 120 characters): what a skip link says."""
        return self.text.split(". ")[0][:120]

    def skip(self) -> dict:
        """What the "Skip past this figure" link of :meth:`before` says (``title``) and where it
        goes (``describe``: the key of the "Describe" expander that :meth:`after` draws). A tree
        view draws its own link, from :attr:`title`, to its own "Describe" (workbench/assets/treeview.js)."""
        return {"title": self.title, "describe": ElementState(self.key).key("describe")}

    def before(self) -> None:
        """Drawn just before the figure: its accessible name and the skip link."""
        _A11Y(key=ElementState(self.key).key("a11y"), data={"label": self.text, "kind": self.kind, **self.skip()},
              height="content")

    def details(self) -> str:
        """The "Describe" disclosure as HTML, for a figure drawn as HTML (:func:`bars`): the same
        text as :meth:`after`'s expander, in the figure's own element (no element of its own)."""
        import html

        return (f'<details class="fig-describe" data-figure="{html.escape(self.key)}"><summary>Describe</summary>'
                f"<p>{html.escape(self.text)}</p></details>")

    def after(self) -> None:
        """Drawn after the figure and its downloads: the "Describe" expander."""
        with st.expander("Describe", icon=":material/description:", key=ElementState(self.key).key("describe")):
            st.markdown(_MD_SPECIAL.sub(r"\\\g<0>", self.text))


def export_buttons(fig, *, key: str, name: str | None = None,
                   draw: tuple[Callable[[], bytes], Callable[[], bytes]] | None = None,
                   csv: Callable[[], bytes] | None = None) -> None:
    """A "Download" button for ``fig`` (a Figure or a :class:`Spec`) that shows, once pressed (and
    from then on in this session), two download buttons, "SVG" and "PDF", of the figure as it is
    shown (theme and presenter size), or of what ``draw`` (an SVG and a PDF maker) draws; and "CSV"
    (the figure's data) when ``csv`` (a maker of its bytes) is given.
    The file is drawn on the server when its button is clicked (``st.download_button`` with a
    callable), never during a rerun; a click on it does not rerun the page. The download buttons
    wait for the "Download" press because each one is registered with the server on every run: three
    per figure, every click of every student, were a tenth of a class's server time (a lock that all
    sessions' runs share: py-spy, bench_app --only-class, 2 December 2026)."""
    from workbench.figures.export import figure_pdf, figure_svg

    makers = draw or (lambda: figure_svg(fig), lambda: figure_pdf(fig))
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name or key).strip("_.") or "figure"
    element = ElementState(key)
    if not element.downloads:   # (one element, not a row of one: a message fewer on every run)
        st.button("Download", key=element.key("download"), type="tertiary", icon=":material/download:",
                  help="SVG or PDF of this figure, as shown here" + (", or its data as CSV" if csv else ""),
                  on_click=show_downloads, args=(key,))
        return
    with st.container(horizontal=True, gap="small", key=element.key("exports")):
        for fmt, make, mime in (("SVG", makers[0], "image/svg+xml"), ("PDF", makers[1], "application/pdf")):
            st.download_button(fmt, data=make, file_name=f"{stem}.{fmt.lower()}", mime=mime,
                               key=element.key(fmt.lower()), on_click="ignore", type="tertiary",
                               icon=":material/download:", help=f"Download this figure as {fmt}, as shown here")
        if csv is not None:
            st.download_button("CSV", data=csv, file_name=f"{stem}.csv", mime="text/csv", key=element.key("csv"),
                               on_click="ignore", type="tertiary", icon=":material/table:",
                               help="Download the data this figure shows, as a table (CSV)")


def show_downloads(key: str) -> None:
    """The figure ``key``'s "Download" pressed: its files are offered from now on in this session."""
    ElementState(key).downloads = True


# ------------------------------------------------------------------ bars without a chart
def bars(rows: Sequence[tuple], *, log: bool = False, legend: str | None = None,
         title: str | tuple[str, str] | None = None,
         label: str | None = None, described: FigureText | None = None) -> None:
    """Horizontal bars drawn as one small HTML element, for numbers that change on every click:
    a Plotly chart whose numbers change is built again from scratch in the browser (tens to
    hundreds of ms), these bars cost nothing. ``rows``: ``(label, value, colour, text)``, or
    ``(label, value, colour, text, ghost)`` with ``ghost`` a second, hatched value drawn thin
    under the bar (a prior, a baseline). Values on [0, 1] unless ``log`` (then on a log scale of
    the largest). ``title``: a bold line above them, in the same element (``(bold, plain)``: a line
    that starts in bold); ``label``: their
    accessible name (``role="figure"``); ``described``: their :class:`FigureText`, which names them
    (instead of ``label``) and gives the "Describe" under them (:meth:`FigureText.details`), in the
    same element. Labels and texts are escaped."""
    import html
    import math

    from workbench.figures.style import current

    s = current()
    font = s.font("text")
    top = max([float(r[1]) for r in rows] + [float(r[4]) for r in rows if len(r) > 4 and r[4] is not None] + [1e-300])

    def width(v: float) -> float:
        v = max(float(v), 0.0)
        if log:
            return 100.0 * math.log10(1.0 + v) / math.log10(1.0 + top) if top > 0 else 0.0
        return 100.0 * min(v, 1.0)

    hatch = f"repeating-linear-gradient(135deg,{s.muted} 0 2px,transparent 2px 5px)"
    label = described.text if described is not None else label
    named = f' role="figure" aria-label="{html.escape(label)}"' if label else ""
    out = [f'<div{named} style="font-size:{font}px;line-height:1.3">']
    if isinstance(title, tuple):   # (bold, plain): a line that starts in bold
        out.append(f'<div style="margin-bottom:6px"><b style="font-weight:600">{html.escape(title[0])}</b>'
                   f"{html.escape(title[1])}</div>")
    elif title:
        out.append(f'<div style="font-weight:600;margin-bottom:6px">{html.escape(title)}</div>')
    for row in rows:
        label, value, colour, text = row[:4]
        ghost = row[4] if len(row) > 4 else None
        under = (f'<div style="width:{width(ghost):.2f}%;height:5px;margin-top:2px;background:{hatch}"></div>'
                 if ghost is not None else "")
        out.append(
            '<div style="display:grid;grid-template-columns:minmax(5em,auto) 1fr 5.5em;gap:8px;'
            'align-items:center;margin:4px 0">'
            f"<span>{html.escape(str(label))}</span>"
            f'<div style="background:{s.grid};border-radius:3px;padding:2px 0">'
            f'<div style="width:{width(value):.2f}%;min-width:1px;height:12px;background:{colour};'
            f'border-radius:2px"></div>{under}</div>'
            f'<span style="text-align:right;font-variant-numeric:tabular-nums">{html.escape(str(text))}</span>'
            "</div>")
    if legend:
        out.append(f'<div style="color:{s.muted};font-size:{s.font("small")}px">{html.escape(legend)}</div>')
    out.append("</div>")
    if described is not None:   # after the figure (outside its role="figure"): what a reader opens
        out.append(described.details())
    st.html("".join(out))


# ------------------------------------------------------------------ numbers in a row
def beside_buttons(**row) -> tuple:
    """A row of two containers: text that takes the room left, and beside it buttons as wide as their
    labels (``row``: more options of the row's ``st.container``). Columns of fixed shares cut a
    label to "S.." where the row is narrow (a 1024 px projector with the sidebar open)."""
    line = st.container(**{"horizontal": True, "gap": "medium", **row})
    return line.container(), line.container(width="content")


def stats(items: Sequence[tuple], *, label: str | None = None) -> None:
    """A row of headline numbers, as :func:`streamlit.metric` draws them, in one HTML element:
    ``items`` are ``(label, value)`` or ``(label, value, note)``, the note a small line under the
    value (what :func:`streamlit.metric` puts in its delta or its help icon). A row of
    ``st.metric`` in a horizontal container is five messages on every rerun; this is one (the
    Online Marginals click: docs/benchmarks.md). A description list (``<dl>``: a screen reader
    reads each label with its value); ``label`` names it (``aria-label``). The row wraps on a
    narrow screen; labels, values and notes are escaped."""
    import html

    named = f' aria-label="{html.escape(label)}"' if label else ""
    out = [f'<dl class="wb-stats"{named}>']
    for item in items:
        name, value = item[:2]
        note = item[2] if len(item) > 2 else None
        out.append(f"<div><dt>{html.escape(str(name))}</dt><dd>{html.escape(str(value))}</dd>"
                   + (f'<dd class="wb-note">{html.escape(str(note))}</dd>' if note else "") + "</div>")
    out.append("</dl>")
    st.html("".join(out))


# ------------------------------------------------------------------ a marginal beside its prior
def _even_marginal(k: int, style):
    from workbench.figures.inference_figures import marginal_bars

    return marginal_bars(np.full(k, 1.0 / k), np.full(k, 1.0 / k), style=style)


def marginal_spec(post, prior, title: str, labels: Sequence[str] | None = None) -> Spec:
    """:func:`workbench.figures.inference_figures.marginal_bars` as a :class:`Spec`, from a dict
    cached per number of labels and theme (no figure is validated on a click)."""
    import html

    from workbench.figures.style import current, rich

    base = spec_of(_even_marginal, len(post), current())
    pr, po = (dict(t) for t in base["data"])
    pr["y"] = np.asarray(prior, float)
    po["y"] = np.asarray(post, float)
    po["text"] = [f"{p:.3f}" for p in post]
    if labels is not None:
        pr["x"] = po["x"] = [html.escape(str(a)) for a in labels]   # Plotly reads tick text as HTML
    return Spec({"data": [pr, po], "layout": dict(base["layout"], title=dict(base["layout"].get("title", {}),
                                                                            text=rich(title)))})


def marginal_panel(post, prior, *, key: str, name: str, title: str, labels: Sequence[str] | None = None,
                   describe: str = "", heading: tuple[str, str] | None = None) -> None:
    """A vertex's marginal beside its prior (no evidence), as light :func:`bars`: they change with
    every click, and a Plotly chart would be built again in the browser each time (a first one
    also loads Plotly's script, about 4.7 MB). Its Plotly figure (:func:`marginal_spec`) is drawn
    only for the SVG/PDF downloads; it gives the description (after ``describe``, the page's own
    first sentence) and the CSV too. ``heading``: a line above the bars, ``(bold, plain)``, in
    their element (a line of markdown of its own was one more message on every click)."""
    from workbench.figures.style import category_colour

    spec = marginal_spec(post, prior, title, labels)
    text = FigureText.of(spec, key=key, kind="bars", describe=describe)
    names = [f"label {a}" for a in range(len(post))] if labels is None else list(labels)
    bars([(names[a], p, category_colour(a), f"{p:.3f}", q) for a, (p, q) in enumerate(zip(post, prior))],
         legend="bar: posterior · hatched: prior (no evidence)", described=text, title=heading)
    export_buttons(spec, key=key, name=name, csv=text.csv)


# ------------------------------------------------------------------ the selected vertex
def selection_key(key: str) -> str:
    """The session-state key under which the component ``key`` keeps the name of its selected vertex
    (a link's ``vertex=`` is put there, see ``workbench.address_bar.vertex``)."""
    return ElementState(key).key("vertex")


def selected_vertex(tree: Tree, key: str, default: int | None = None) -> int | None:
    """The vertex selected on the component ``key`` (``default`` when none is, or when its name is
    not a vertex of this tree)."""
    name = ElementState(key).vertex
    v = tree.find(name) if name is not None else None
    return default if v is None else v


def select_vertex(tree: Tree, key: str, v: int | None) -> None:
    """Select vertex ``v`` (an index; ``None`` clears); the name box follows. Call it from a
    callback or before the box is drawn."""
    name = None if v is None else tree.name(int(v))
    element = ElementState(key)
    element.vertex = element.box = name


def vertex_box(tree: Tree, key: str, *, label: str = "Pick a vertex by name", default: int | None = None,
               help: str | None = None, on_pick: Callable[[int], None] | None = None) -> None:
    """The keyboard route to the selection: a searchable list of the names (a text box above
    :data:`PICK_LIMIT` vertices). ``on_pick(v)`` is called after the selection changes."""
    element = ElementState(key)
    current = selected_vertex(tree, key, default)
    set_now = current is not None and element.box != tree.name(current)
    if set_now:
        element.box = tree.name(current)
    help = help or "Type to search; the vertex you pick is selected in the drawing too."

    def changed():
        name = element.box
        v = tree.find(name) if name else None
        if v is None:
            if name:
                element.box_error = f"no vertex is named {name}"
            return
        element.vertex = tree.name(v)
        if on_pick is not None:
            on_pick(v)

    if tree.n <= PICK_LIMIT:
        # the list's own default is the selected vertex too (not the first name): a browser that
        # draws the box without the value set above (a run it never saw) shows, and would send
        # back, the selection instead of vertex 0. (Set in this very run, the value is sent with
        # the box, and a default beside it would only draw Streamlit's warning.)
        st.selectbox(label, tree.names, key=element.key("box"), on_change=changed, help=help,
                     index=0 if set_now or current is None else int(current))
    else:
        st.text_input(label, key=element.key("box"), on_change=changed, help=help)
    err = element.pop("box_error")
    if err:
        st.error(err)


# ------------------------------------------------------------------ rings on a Plotly tree
def ring_trace(x, y, vertices: Sequence[int], *, size: float, colour: str, width: float, name: str) -> dict:
    """Rings (hollow markers, not clickable) around ``vertices``, as a trace dict."""
    idx = np.asarray(list(vertices), np.int64)
    keep = {"marker": {"opacity": 1}}   # not faded when a click selects a vertex
    return {"type": "scatter", "x": np.asarray(x)[idx].tolist(), "y": np.asarray(y)[idx].tolist(),
            "mode": "markers", "hoverinfo": "skip", "showlegend": False, "name": name,
            "marker": {"size": size, "color": "rgba(0,0,0,0)", "line": {"width": width, "color": colour}},
            "selected": keep, "unselected": keep}
