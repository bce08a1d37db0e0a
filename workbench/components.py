"""Page pieces every page shares: a clickable tree, a pick-by-name box, and figures that cost
nothing to send again.

**Clickable figures.** :func:`clickable_chart` draws a Plotly figure whose points carry ids in
``customdata`` and turns each click into a call ``on_pick(id)`` that runs *before* the page (or its
fragment) reruns, so the figure is drawn with the new selection at once. Why this shape: Streamlit
names a chart after its whole figure, so a figure that changes with the selection (the ring moves)
is a new chart after every click; reading the click after drawing (the old way) saw the new,
empty chart and lost every second click. A callback reads the click of the chart that was clicked.
Every point trace keeps its colour and its names when Plotly marks a selection (no fading).

**The tree with its selection.** :func:`selected_vertex` / :func:`select_vertex` keep a page's
selected vertex (by name, so it survives reruns and falls back to a default on another tree);
:func:`tree_spec` draws a tree from a figure cached per (tree, height, title) with per-run
colours, an orange ring on the vertices with evidence and a red ring on the selected vertex;
:func:`vertex_box` is the "pick a vertex by name" box beside it (the keyboard route: type to
filter, Enter to pick).

**Figures as specs.** Building a ``plotly.graph_objects.Figure`` validates every array (tens of
ms for 1,000 points). A figure that is redrawn on every click is built once per (tree, settings),
kept as a plain dict in ``st.cache_resource`` (read-only, shared by every session), and each run
copies the few entries that change into a :class:`Spec`, which ``st.plotly_chart`` sends as is.

**Every figure exports.** :func:`chart` draws any figure with the session's Plotly config (the
camera button saves an SVG) and, under it, :func:`export_buttons`: "SVG" and "PDF" downloads
drawn on the server (``workbench.figures.export``) only when clicked, so a rerun costs two buttons,
not an export.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from engine.trees import Tree

__all__ = ["Spec", "as_shown", "as_spec", "keep_colours", "chart", "export_buttons", "bars", "clickable_chart",
           "selected_vertex",
           "select_vertex",
           "vertex_box", "tree_spec", "tree_base", "tree_chart", "ring_trace", "tree_hash", "RING",
           "EVIDENCE_RING", "PICK_LIMIT", "CLICK_CONFIG", "selection_key"]

RING = "#e63946"            # the selected vertex
EVIDENCE_RING = "#f4a261"   # vertices with evidence
PICK_LIMIT = 5000           # up to this many vertices the name box is a searchable list
#: Plotly config of a clickable chart: two clicks within Plotly's double-click delay (300 ms: two
#: vertices picked quickly) are a double click to Plotly, which clears the selection and resets the
#: axes, so the second click was lost; here every click is a click (the modebar's "reset axes"
#: button resets the view)
CLICK_CONFIG = {"doubleClick": False, "doubleClickDelay": 1}


def tree_hash(tree: Tree) -> str:
    """``hash_funcs`` entry for caches keyed by a tree: its content key."""
    return tree.content_key


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


def _first_id(key: str, decode: Callable):
    ev = st.session_state.get(key)
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
                    name: str | None = None, **chart_args) -> None:
    """Draw ``fig`` (a Figure or a :class:`Spec`) so that a click on a point calls
    ``on_pick(decode(customdata))`` before the rerun. Points without customdata (edges, rings)
    are not clickable; a click that deselects (the same point again) calls ``on_clear()`` if
    given, and changes nothing else. ``name``: the exported files' name (default ``key``)."""

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
    st.plotly_chart(fig, key=key, on_select=picked, selection_mode="points", config=cfg, **chart_args)
    export_buttons(fig, key=key, name=name)


# ------------------------------------------------------------------ any figure, with its exports
def chart(fig, *, key: str, name: str | None = None, config: dict | None = None, **chart_args) -> None:
    """``st.plotly_chart(fig)`` with the session's Plotly config (its camera button saves an SVG)
    and the SVG/PDF downloads of :func:`export_buttons` under it. ``name``: the files' name
    (default ``key``)."""
    from workbench.figures.style import current

    style = current()
    fig = as_shown(fig, style)
    cfg = style.plotly_config()
    cfg.update(config or {})
    st.plotly_chart(fig, key=key, config=cfg, **chart_args)
    export_buttons(fig, key=key, name=name)


def export_buttons(fig, *, key: str, name: str | None = None) -> None:
    """Two small download buttons, "SVG" and "PDF", for ``fig`` (a Figure or a :class:`Spec`),
    as it is shown (theme and presenter size). The file is drawn on the server when the button is
    clicked (``st.download_button`` with a callable), never during a rerun; a click does not rerun
    the page."""
    from workbench.figures.export import figure_pdf, figure_svg

    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name or key).strip("_.") or "figure"
    with st.container(horizontal=True, gap="small", key=f"{key}__exports"):
        for fmt, draw, mime in (("SVG", figure_svg, "image/svg+xml"), ("PDF", figure_pdf, "application/pdf")):
            st.download_button(fmt, data=lambda draw=draw: draw(fig), file_name=f"{stem}.{fmt.lower()}", mime=mime,
                               key=f"{key}__{fmt.lower()}", on_click="ignore", type="tertiary",
                               icon=":material/download:", help=f"Download this figure as {fmt}, as shown here")


# ------------------------------------------------------------------ bars without a chart
def bars(rows: Sequence[tuple], *, log: bool = False, legend: str | None = None) -> None:
    """Horizontal bars drawn as one small HTML element, for numbers that change on every click:
    a Plotly chart whose numbers change is built again from scratch in the browser (tens to
    hundreds of ms), these bars cost nothing. ``rows``: ``(label, value, colour, text)``, or
    ``(label, value, colour, text, ghost)`` with ``ghost`` a second, hatched value drawn thin
    under the bar (a prior, a baseline). Values on [0, 1] unless ``log`` (then on a log scale of
    the largest). Labels and texts are escaped."""
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
    out = [f'<div style="font-size:{font}px;line-height:1.3">']
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
    st.html("".join(out))


# ------------------------------------------------------------------ the selected vertex
def selection_key(key: str) -> str:
    """The session-state key under which the component ``key`` keeps the name of its selected vertex
    (a link's ``vertex=`` is put there, see ``workbench.links.vertex``)."""
    return f"{key}__vertex"


def selected_vertex(tree: Tree, key: str, default: int | None = None) -> int | None:
    """The vertex selected on the component ``key`` (``default`` when none is, or when its name is
    not a vertex of this tree)."""
    name = st.session_state.get(selection_key(key))
    v = tree.find(name) if name is not None else None
    return default if v is None else v


def select_vertex(tree: Tree, key: str, v: int | None) -> None:
    """Select vertex ``v`` (an index; ``None`` clears); the name box follows. Call it from a
    callback or before the box is drawn."""
    name = None if v is None else tree.name(int(v))
    st.session_state[selection_key(key)] = name
    st.session_state[f"{key}__box"] = name


def vertex_box(tree: Tree, key: str, *, label: str = "Pick a vertex by name", default: int | None = None,
               help: str | None = None, on_pick: Callable[[int], None] | None = None) -> None:
    """The keyboard route to the selection: a searchable list of the names (a text box above
    :data:`PICK_LIMIT` vertices). ``on_pick(v)`` is called after the selection changes."""
    box = f"{key}__box"
    current = selected_vertex(tree, key, default)
    if current is not None and st.session_state.get(box) != tree.name(current):
        st.session_state[box] = tree.name(current)
    help = help or "Type to search; the vertex you pick is selected in the drawing too."

    def changed():
        name = st.session_state.get(box)
        v = tree.find(name) if name else None
        if v is None:
            if name:
                st.session_state[f"{key}__box_error"] = f"no vertex is named {name}"
            return
        st.session_state[selection_key(key)] = tree.name(v)
        if on_pick is not None:
            on_pick(v)

    if tree.n <= PICK_LIMIT:
        st.selectbox(label, tree.names, key=box, on_change=changed, help=help)
    else:
        st.text_input(label, key=box, on_change=changed, help=help)
    err = st.session_state.pop(f"{key}__box_error", None)
    if err:
        st.error(err)


# ------------------------------------------------------------------ a tree drawn from a cached base
@st.cache_resource(max_entries=24, hash_funcs={Tree: tree_hash}, show_spinner=False)
def tree_base(tree: Tree, height: int, title: str | None, colour_scale: tuple | None = None,
              colour_title: str = "", hover_labels: bool = False, style=None) -> tuple[dict, np.ndarray, np.ndarray]:
    """The figure of a tree as a dict (tidy layout, edges, named vertices), shared read-only by
    every session. With ``colour_scale`` the vertices take per-run numbers on [0, 1] (a fixed
    scale, so that the same colour means the same number on every run); ``hover_labels`` adds
    each vertex's label to its hover text; ``style`` is the session's figure style (theme,
    presenter mode), part of the cache key. Returns the dict and
    the vertices' x and y (the dict holds them base64-encoded)."""
    from engine.trees.layout import tidy_layout
    from workbench.figures.tree_figure import tree_figure

    x, y = tidy_layout(tree)
    hover = None
    if hover_labels and tree.labels is not None and tree.n <= 20_000:
        hover = [f"label: {lab}" for lab in tree.labels]
    if colour_scale is None:
        fig = tree_figure(tree, layout=(x, y), title=title, height=height, hover=hover, style=style)
    else:
        fig = tree_figure(tree, layout=(x, y), color=np.zeros(tree.n), colorscale=[list(c) for c in colour_scale],
                          cmin=0.0, cmax=1.0, colorbar_title=colour_title or None, title=title, height=height,
                          hover=hover, style=style)
    spec = as_spec(fig)
    vt = spec["data"][_vertex_trace(spec)]
    ids_are_names = tree.names == tuple(map(str, range(tree.n)))
    if ids_are_names and hover is None and tree.n > 100:
        # the names are the ids: hover shows the id (and no list of names is sent)
        vt.pop("hovertext", None)
        vt.pop("hoverinfo", None)
        vt["hovertemplate"] = "<b>%{customdata}</b><extra></extra>"
    spec["data"].append(_pick_trace(vt))
    for k in ("hovertext", "hovertemplate"):
        vt.pop(k, None)
    vt["hoverinfo"] = "skip"   # the pick layer above answers hovers and clicks
    return spec, x, y


def _pick_trace(vt: dict) -> dict:
    """The clickable layer of a tree: one hollow red ring per vertex, on top of the vertices, with
    their ids and hover texts. Only selected rings are visible (base opacity 0), so Plotly draws the
    ring of a clicked vertex itself, in the browser, and the chart's spec does not change with a
    click (see :func:`tree_chart`)."""
    size = float(vt["marker"].get("size", 7))
    ring = {"type": vt.get("type", "scatter"), "name": "selected", "mode": "markers", "showlegend": False,
            "x": vt["x"], "y": vt["y"], "customdata": vt.get("customdata"),
            # the size of the vertices, so that a click picks the vertex under the mouse (Plotly
            # picks among the points within a marker's radius); a selected ring is drawn larger
            "marker": {"size": size, "symbol": "circle-open", "color": RING, "opacity": 0,
                       "line": {"width": 3.5, "color": RING}},
            "selected": {"marker": {"opacity": 1, "size": size + 10}}, "unselected": {"marker": {"opacity": 0}},
            "selectedpoints": []}
    for k in ("hovertext", "hoverinfo", "hovertemplate", "hoverlabel"):
        if k in vt:
            ring[k] = vt[k]
    return ring


def _vertex_trace(spec: dict) -> int:
    return next(i for i, t in enumerate(spec["data"]) if t.get("name") == "vertices")


def ring_trace(x, y, vertices: Sequence[int], *, size: float, colour: str, width: float, name: str) -> dict:
    """Rings (hollow markers, not clickable) around ``vertices``, as a trace dict."""
    idx = np.asarray(list(vertices), np.int64)
    keep = {"marker": {"opacity": 1}}   # not faded when a click selects a vertex
    return {"type": "scatter", "x": np.asarray(x)[idx].tolist(), "y": np.asarray(y)[idx].tolist(),
            "mode": "markers", "hoverinfo": "skip", "showlegend": False, "name": name,
            "marker": {"size": size, "color": "rgba(0,0,0,0)", "line": {"width": width, "color": colour}},
            "selected": keep, "unselected": keep}


def tree_spec(tree: Tree, *, height: int = 460, title: str | None = None, colour=None,
              colour_scale: Sequence | None = None, colour_title: str = "", rings: Sequence[int] = (),
              selected: int | None = None, hover_labels: bool = False) -> Spec:
    """The tree of :func:`tree_base` with this run's vertex colours (numbers on [0, 1]), orange
    rings on ``rings`` and a red ring on ``selected``. Costs a copy of two lists, not a figure."""
    from workbench.figures.style import colour_at, contrast_text, current

    scale = None if colour_scale is None else tuple(tuple(c) for c in colour_scale)
    args = (tree, height, title, scale, colour_title, hover_labels, current())
    base, x, y = tree_base(*args)
    data = list(base["data"])
    iv = _vertex_trace(base)
    vt = data[iv]
    if colour is not None:
        values = np.asarray(colour, float)
        vt = dict(vt)
        vt["marker"] = dict(vt["marker"], color=np.round(values, 4))
        if "text" in vt.get("mode", "") and isinstance(vt.get("textfont", {}).get("color"), (list, tuple)):
            # names drawn inside the vertices: each in the colour that reads on its new fill
            steps = [list(c) for c in scale]
            vt["textfont"] = dict(vt["textfont"], color=[contrast_text(colour_at(v, steps)) for v in values])
        data[iv] = vt
    size = float(vt["marker"].get("size", 7))
    pick = data.pop()   # the pick layer stays on top
    if rings:
        data.append(ring_trace(x, y, rings, size=size + 6, colour=EVIDENCE_RING, width=2.5, name="evidence"))
    data.append(dict(pick, selectedpoints=[] if selected is None else [int(selected)]))
    # what the drawing shows besides the selection (tree_chart keeps the chart when it is unchanged)
    fingerprint = (tree.content_key, *args[1:], None if colour is None else vt["marker"]["color"].tobytes(),
                   tuple(rings))
    return Spec({"data": data, "layout": base["layout"]}, fingerprint)


def tree_chart(tree: Tree, key: str, spec: Spec, *, default: int | None = None,
               on_pick: Callable[[int], None] | None = None, **chart_args) -> None:
    """A tree figure (from :func:`tree_spec`) whose clicks select a vertex (stored under ``key``;
    ``on_pick(v)`` after).

    A click costs the browser almost nothing: Streamlit names a chart after its whole spec, and a
    chart whose spec changes is built again from scratch in the browser (0.3-2 s for 1,000
    vertices on a loaded laptop). So the spec does not change with a click: Plotly rings the
    clicked vertex itself (the pick layer of :func:`tree_base`), and the spec sent keeps the
    selection it was drawn with. The spec takes the selection only when the browser does not
    already show it: a pick by name, new colours or rings, a click that deselected, a page
    opened again."""

    def pick(v):
        if 0 <= v < tree.n:
            select_vertex(tree, key, v)
            if on_pick is not None:
                on_pick(v)

    def cleared():   # the browser no longer shows a ring: draw the selection again
        st.session_state[f"{key}__cleared"] = True

    fingerprint = getattr(spec, "fingerprint", None)
    if fingerprint is not None:
        spec = _keep_drawn(tree, key, spec, fingerprint, default)
    clickable_chart(spec, key=key, on_pick=pick, on_clear=cleared, **chart_args)


def _keep_drawn(tree: Tree, key: str, spec: Spec, fingerprint, default) -> Spec:
    """``spec`` with the selection the chart now in the browser was drawn with, when the browser
    shows the current selection anyway (the spec, and so the chart, stay the same); else ``spec``
    with the current selection and a new revision (the chart is drawn again)."""
    sel = selected_vertex(tree, key, default)
    browser = _first_id(key, int)   # the vertex the user clicked on the chart now shown, if any
    cleared = st.session_state.pop(f"{key}__cleared", False)
    state = f"{key}__drawn"
    drawn = st.session_state.get(state)   # (fingerprint, selection in the spec, revision)
    if browser is not None:
        shows = browser == sel
    else:   # no click since the chart was drawn: it shows the selection of its spec
        shows = not cleared and drawn is not None and drawn[1] == sel
    if drawn is not None and drawn[0] == fingerprint and shows:
        selection, revision = drawn[1], drawn[2]
    else:
        selection, revision = sel, (drawn[2] + 1 if drawn is not None else 0)
    st.session_state[state] = (fingerprint, selection, revision)
    data = list(spec["data"])
    data[-1] = dict(data[-1], selectedpoints=[] if selection is None else [int(selection)], uid=f"pick-{revision}")
    return Spec({"data": data, "layout": spec["layout"]})
