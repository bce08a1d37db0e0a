"""How every figure of the workbench looks, chosen in one place: colour-blind-safe palettes, font
and marker sizes, light and dark Plotly templates, and the presenter scale.

A figure function takes ``style: Style | None = None`` and, when it is ``None``, asks
:func:`current` for the style of the running session (the browser's light or dark theme, read from
``st.context.theme``, and the presenter switch in session state). A cached function that builds a
figure must take the style as an argument, so a dark session never receives a light figure.

- Categorical colours are Okabe and Ito's palette (distinguishable with every common colour-vision
  deficiency), each paired with a marker symbol, so no cue is carried by colour alone.
- Probabilities and other quantities use viridis, perceptually uniform from 0 to 1; the number is
  always on hover as well.
- Every text is at least :data:`FONT_MIN` px at the default size; the presenter scale enlarges
  fonts, markers and lines together.

>>> s = Style(theme="dark", presenter=True)
>>> s.font("tick") >= FONT_MIN and s.scale > 1
True
>>> sup("S", 4)
'S<sup>4</sup>'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

__all__ = [
    "CAPTION_OPACITY",
    "CATEGORICAL",
    "FONT_FAMILY",
    "FONT_MIN",
    "FONT_SIZES",
    "NEUTRAL",
    "OKABE_ITO",
    "PRESENTER_HEIGHT",
    "PRESENTER_SCALE",
    "PROBABILITY_SCALE",
    "RIGHT",
    "SELECT",
    "SEQUENTIAL_SCALE",
    "SYMBOLS",
    "THEMES",
    "VIRIDIS",
    "WRONG",
    "Style",
    "category_colour",
    "category_symbol",
    "colour_at",
    "colour_bytes",
    "contrast_ratio",
    "contrast_text",
    "current",
    "log_ticks",
    "page_css",
    "plain_text",
    "rgba",
    "rich",
    "sub",
    "sup",
    "text_width",
]

#: Okabe & Ito (2008), "Color Universal Design": eight colours told apart by everyone.
OKABE_ITO = {
    "blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermillion": "#D55E00",
    "sky": "#56B4E9", "purple": "#CC79A7", "yellow": "#F0E442", "black": "#000000",
}
#: the order categories take: the first four stay apart for protan, deutan and tritan readers alike
#: (green comes later: for a tritan reader it is close to the blue)
#: a neutral grey for "no category" (edge components, ties, baselines)
NEUTRAL = "#8C8C8C"
CATEGORICAL = [OKABE_ITO[k] for k in ("blue", "orange", "vermillion", "sky", "green", "purple", "yellow")] \
    + [NEUTRAL]
#: the marker symbol paired with each categorical colour (a second cue besides colour)
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "hexagon", "triangle-down", "star", "pentagon"]

#: viridis (van der Walt & Smith), perceptually uniform: 0.45 and 0.55 differ as much as 0.05 and 0.15
VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70",
           "#7ad151", "#bddf26", "#fde725"]
PROBABILITY_SCALE = [[i / (len(VIRIDIS) - 1), c] for i, c in enumerate(VIRIDIS)]
SEQUENTIAL_SCALE = PROBABILITY_SCALE

#: semantic colours: the selected vertex or component, a wrong prediction, a right one
SELECT = OKABE_ITO["vermillion"]
WRONG = OKABE_ITO["vermillion"]
RIGHT = OKABE_ITO["blue"]

FONT_MIN = 12
#: px at the default size, by role
FONT_SIZES = {"tick": 12, "small": 12, "label": 13, "legend": 13, "text": 14, "axis": 14, "title": 16}
#: fonts, markers and lines grow by this factor in presenter mode
PRESENTER_SCALE = 1.4
#: figures are drawn this much taller in presenter mode, so that the plot keeps its room beside the
#: larger text and markers (``workbench.components.chart``; an exported figure is the one shown)
PRESENTER_HEIGHT = 1.3
#: the app's font (shipped with Streamlit, served locally)
FONT_FAMILY = '"Source Sans", "Source Sans Pro", "Source Sans 3", sans-serif'

#: the colours of each theme; background and text match .streamlit/config.toml (a test checks it)
THEMES = {
    "light": {"background": "#ffffff", "text": "#2f2d2b", "muted": "#5c6370", "edge": "#7b8594",
              "grid": "#e6e9ef", "faint": "#d5dae1", "vertex": OKABE_ITO["blue"], "outline": "#2f2d2b",
              "label_bg": "rgba(255,255,255,0.85)", "hover_bg": "#ffffff"},
    "dark": {"background": "#171614", "text": "#edebe8", "muted": "#a3a8b4", "edge": "#8b95a5",
             "grid": "#2d2b27", "faint": "#45423d", "vertex": OKABE_ITO["sky"], "outline": "#edebe8",
             "label_bg": "rgba(23,22,20,0.85)", "hover_bg": "#2d2b27"},
}


def category_colour(i: int) -> str:
    """The colour of category ``i`` (0-based), cycling through :data:`CATEGORICAL`."""
    return CATEGORICAL[int(i) % len(CATEGORICAL)]


def category_symbol(i: int) -> str:
    """The marker symbol paired with category ``i``."""
    return SYMBOLS[int(i) % len(SYMBOLS)]


@lru_cache(maxsize=512)   # a tree view's colours, on every click: a third of colour_bytes was parsing
def _rgb(colour: str) -> tuple[float, float, float]:
    c = colour.strip()
    if c.startswith("#"):
        h = c[1:]
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    m = re.match(r"rgba?\(([^)]*)\)", c)
    if m:
        parts = [float(p) for p in m.group(1).split(",")[:3]]
        return tuple(p / 255 for p in parts)
    named = {"white": (1.0, 1.0, 1.0), "black": (0.0, 0.0, 0.0)}
    return named.get(c.lower(), (0.5, 0.5, 0.5))


def rgba(colour: str, alpha: float) -> str:
    """``colour`` (hex or rgb) with opacity ``alpha``."""
    r, g, b = (round(255 * v) for v in _rgb(colour))
    return f"rgba({r},{g},{b},{alpha:g})"


def _luminance(colour: str) -> float:
    def lin(v):
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two colours, from 1 (equal) to 21 (black on white); text
    needs 4.5 (3 when large), graphical marks that carry meaning 3.

    >>> round(contrast_ratio("#000000", "#ffffff"), 1), contrast_ratio("#0072B2", "#0072B2")
    (21.0, 1.0)
    """
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def contrast_text(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (WCAG contrast): the larger of the two
    ratios is never below 4.58 (the square root of 21), so a label on any fill reads at WCAG AA."""
    lum = _luminance(fill)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


#: Streamlit draws captions at opacity 0.6: 3.8:1 on the light theme's background, under WCAG
#: AA's 4.5:1 for text. At this opacity a caption (and the code inside it) reads at 4.5:1 or more in
#: both themes and still looks quieter than the body text (docs/accessibility.md).
CAPTION_OPACITY = 0.8


def page_css(style: "Style") -> str:
    """The style sheet every page carries for accessibility (docs/accessibility.md): captions
    at :data:`CAPTION_OPACITY`; on the dark theme, the text of the primary buttons and of a
    multiselect's chosen items in the background colour (Streamlit writes white, 2.3:1 on the dark
    theme's sky blue); the chosen option of a segmented control in the text colour (Streamlit writes the
    primary colour on its own 20 % tint, 3.8:1 on the light theme); the figures' skip links
    out of the page's flow until focused; the lesson panel's step title (an h2) at the size of a bold line;
    a row of tabs wider than its column wrapped, and so are the labels of buttons and widgets."""
    css = f"[data-testid='stCaptionContainer'] {{ opacity: {CAPTION_OPACITY}; }}"
    # a figure's skip link (workbench.components.FigureText) takes no room until it is focused; then it
    # is back in the flow, at its column's width, above its figure (out of the flow it sat at the top
    # of its column, over the widget there, as wide as the whole page: x = 1962 in a 1600 px window);
    # unfocused, its box is one pixel (as wide as the page, it made a phone's page scroll sideways)
    css += (" [data-testid='stElementContainer'][class*='-a11y '] { position: absolute; z-index: 5; width: 1px;"
            " height: 1px; overflow: hidden; }"
            " [data-testid='stElementContainer'][class*='-a11y ']:focus-within { position: static; width: auto;"
            " height: auto; overflow: visible; }")
    # a figure's "Describe" drawn in the figure's own HTML (workbench.components.FigureText.details):
    # a small disclosure under it, its text at the page's size
    css += (" .fig-describe { margin-top: 4px; font-size: 14px; } .fig-describe > summary { cursor: pointer;"
            " width: max-content; padding: 2px 4px; border-radius: 4px; }"
            " [data-testid='stHtml'] details.fig-describe > p { margin: 4px 0 0; font-size: 14px; line-height: 1.5;"
            " overflow-wrap: anywhere; }")
    # a row of headline numbers (workbench.components.stats), at st.metric's sizes (in rem: presenter
    # mode enlarges them with the rest): label 0.875 rem, value 2.25 rem; its notes in the caption's tone
    css += (" dl.wb-stats { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; margin: 0; padding: 0; }"
            " dl.wb-stats dt { font-size: 0.875rem; font-weight: 400; margin: 0; }"
            " dl.wb-stats dd { font-size: 2.25rem; line-height: 1.2; margin: 0; font-variant-numeric: tabular-nums; }"
            f" dl.wb-stats dd.wb-note {{ font-size: 0.875rem; line-height: 1.4; opacity: {CAPTION_OPACITY}; }}")
    # the sidebar's link to the view (workbench.address_bar.copy_link_button) in a caption's size and tone
    css += (f" p.tw-link-note {{ font-size: 0.875rem; line-height: 1.5; margin: 0.75rem 0 0; opacity: {CAPTION_OPACITY};"
            " overflow-wrap: anywhere; } p.tw-link-note code { font-size: 0.75rem; }")
    # the lesson panel's step title: an h2 in the document's outline, at the size of a bold line
    css += " .st-key-lesson_panel h2 { font-size: 1rem; font-weight: 600; padding: 0.25rem 0 0; }"
    # a row of tabs too wide for its column (Tree Studio's four loading tabs beside the drawing on a
    # 1024 px projector) wraps onto a second line, every label whole, instead of scrolling sideways
    # behind an arrow with "Paste" and "Generate" out of sight (the selected tab's underline is its own)
    css += " [data-testid='stTabs'] [role='tablist'][aria-orientation='horizontal'] { flex-wrap: wrap; row-gap: 0.25rem; }"
    # a button's or a widget's label in a column narrower than it (the settings beside a figure on a
    # 1024 px projector: "Run cross-validation" in 83 px) wraps onto a second line instead of being
    # cut to "Run cross-v…" (a word longer than the column breaks; a segmented control's options keep
    # one line, to keep its segments even)
    label = ("[data-testid='stMain'] :is(button:not([data-variant='segmented_control']), label)"
             " [data-testid='stMarkdownContainer']")
    css += f" {label}, {label} p {{ white-space: normal; overflow-wrap: break-word; }}"
    # the sidebar's page names wrap too ("Hidden Tree Markov M..." in presenter mode, 20 px text in
    # a 1024 px projector's sidebar); its icons keep their one line
    nav = "[data-testid='stSidebarNavLink'] [data-testid='stMarkdownContainer']"
    css += (f" {nav}, {nav} p, [data-testid='stSidebarNavLink'] span:has(> [data-testid='stMarkdownContainer'])"
            " { white-space: normal; overflow: visible; text-overflow: clip; }"
            " [data-testid='stSidebarNavLink'] { height: auto; }")
    # the chosen option stays marked by its tint and border (Tree Studio: the text to copy)
    css += (" button[data-variant='segmented_control'][aria-checked='true'] [data-testid='stMarkdownContainer'] p"
            f" {{ color: {style.text}; }}")
    if style.theme == "dark":
        css += f" [data-testid^='stBaseButton-primary'] {{ color: {style.background}; }}"
        # a multiselect's chosen items (Runs: the runs shown) are chips in the primary colour
        css += (f" [data-testid='stMultiSelect'] [data-tag], [data-testid='stMultiSelect'] [data-tag] * "
                f"{{ color: {style.background}; }}")
    return css


def colour_at(value: float, scale=PROBABILITY_SCALE) -> str:
    """The colour of ``value`` in [0, 1] on a colour scale (linear between its stops)."""
    v = 0.0 if value != value else min(max(float(value), 0.0), 1.0)  # NaN -> 0
    for (a, ca), (b, cb) in zip(scale, scale[1:]):
        if v <= b:
            t = 0.0 if b == a else (v - a) / (b - a)
            ra, rb = _rgb(ca), _rgb(cb)
            r, g, bl = (round(255 * (x + t * (y - x))) for x, y in zip(ra, rb))
            return f"#{r:02x}{g:02x}{bl:02x}"
    return scale[-1][1]


def colour_bytes(values, scale=PROBABILITY_SCALE, lo: float = 0.0, hi: float = 1.0, *,
                 missing: str = NEUTRAL) -> np.ndarray:
    """:func:`colour_at` of many values at once, as RGB bytes of shape (len(values), 3): each value
    taken between ``lo`` and ``hi`` on ``scale``; NaN in the ``missing`` colour.

    >>> colour_bytes([0.0, 1.0, float("nan")]).tolist()
    [[68, 1, 84], [253, 231, 37], [140, 140, 140]]
    """
    v = np.asarray(values, float)
    span = hi - lo if hi > lo else 1.0
    t = np.clip((v - lo) / span, 0.0, 1.0)
    stops = np.array([float(s) for s, _ in scale])
    rgb = np.array([_rgb(c) for _, c in scale]) * 255.0
    out = np.stack([np.interp(t, stops, rgb[:, j]) for j in range(3)], axis=-1)
    out[~np.isfinite(v)] = np.array(_rgb(missing)) * 255.0
    return np.round(out).astype(np.uint8)


_TAG = re.compile(r"<[^>]+>")
_NARROW = set("iljtfrI1!|.,:;'()[] ")
_WIDE = set("mwMWOQGDHNU@%&")


def plain_text(s: str) -> str:
    """``s`` without Plotly's HTML tags (``<b>``, ``<sup>``...)."""
    return _TAG.sub("", str(s))


def text_width(s: str, size: float) -> float:
    """Estimated width in px of ``s`` set at ``size`` px in the app's sans-serif font (slightly
    generous, so a label judged to fit does fit)."""
    w = 0.0
    for line in str(s).split("<br>"):
        lw = 0.0
        for ch in plain_text(line):
            lw += 0.32 if ch in _NARROW else 0.86 if ch in _WIDE else 0.66 if ch.isupper() else 0.56
        w = max(w, lw)
    return w * size


def sup(base, exp) -> str:
    """``base`` with a real superscript in Plotly text: ``S<sup>4</sup>``."""
    return f"{base}<sup>{exp}</sup>"


def sub(base, index) -> str:
    """``base`` with a real subscript in Plotly text: ``T<sub>1</sub>``."""
    return f"{base}<sub>{index}</sub>"


_SUBSUP = re.compile(r"(?<![<\w])([A-Za-z\u0370-\u03ff])([_^])(\{[^}]*\}|[A-Za-z0-9*]+)")


def rich(text):
    """Plain "T_1", "S^4" or "x_{ab}" written with real sub- and superscripts for Plotly
    (``T<sub>1</sub>``, ``S<sup>4</sup>``); other text is left alone.

    >>> rich("T_1 on the tree T, S^4")
    'T<sub>1</sub> on the tree T, S<sup>4</sup>'
    """
    if text is None:
        return None

    def one(m):
        arg = m.group(3).strip("{}")
        return sub(m.group(1), arg) if m.group(2) == "_" else sup(m.group(1), arg)

    return _SUBSUP.sub(one, str(text))


def log_ticks(lo: float, hi: float, *, at_least: int = 3) -> list[float]:
    """Tick values for a log axis over [lo, hi] (both > 0), from the coarsest of the series
    1-10-100, 1-2-5, 1-1.5-2-3-5-7 and 1...9 that puts at least ``at_least`` ticks in range
    (Plotly's own picks read "2, 4, 7" on a short range).

    >>> log_ticks(1.5, 8)
    [1.5, 2.0, 3.0, 5.0, 7.0]
    >>> log_ticks(0.5, 2000)
    [1.0, 10.0, 100.0, 1000.0]
    """
    import math

    if not (lo > 0 and hi > 0):
        return []
    lo, hi = min(lo, hi), max(lo, hi)
    ticks: list[float] = []
    for mantissas in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7), tuple(range(1, 10))):
        ticks = [float(f"{m * 10.0 ** e:.6g}") for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
                 for m in mantissas if lo <= m * 10.0 ** e <= hi]
        if len(ticks) >= at_least:
            return ticks
    return ticks or [lo, hi]


def _fill(obj, defaults: dict) -> None:
    """Set each property of the Plotly object ``obj`` that is still unset (what a template does,
    but written into the figure, where Streamlit's own chart theme does not override it)."""
    for key, val in defaults.items():
        try:
            cur = obj[key]
        except (KeyError, ValueError):
            continue
        if isinstance(val, dict):
            _fill(cur, val)
        elif cur is None:
            obj[key] = val


@dataclass(frozen=True)
class Style:
    """A theme (``"light"`` or ``"dark"``) and whether presenter mode is on. Frozen and hashable,
    so it can be an argument of a cached function."""

    theme: str = "light"
    presenter: bool = False

    def __post_init__(self):
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {sorted(THEMES)}, not {self.theme!r}")

    @property
    def scale(self) -> float:
        return PRESENTER_SCALE if self.presenter else 1.0

    @property
    def colours(self) -> dict:
        return THEMES[self.theme]

    def __getattr__(self, name):  # style.text, style.edge, style.background...
        try:
            return THEMES[object.__getattribute__(self, "theme")][name]
        except KeyError:
            raise AttributeError(name) from None

    def font(self, role: str = "text") -> int:
        """Font size in px for a role of :data:`FONT_SIZES`, presenter scale applied."""
        return round(FONT_SIZES[role] * self.scale)

    def line(self, width: float) -> float:
        return width * self.scale

    def marker(self, n: int) -> int:
        """Vertex marker diameter in px for a drawing of ``n`` points."""
        base = 26 if n <= 30 else 20 if n <= 60 else 9 if n <= 400 else 6 if n <= 2000 else 3
        return round(base * (self.scale if n <= 400 else 1.0))

    def template(self) -> go.layout.Template:
        return _template(self)

    def apply(self, fig: go.Figure, *, legend: bool | None = None) -> go.Figure:
        """Give ``fig`` this style: its template (for exports and ``theme=None``), and the same
        defaults written into the layout and every axis, where they survive Streamlit's chart
        theme. Properties the figure set itself are kept."""
        tl = self.template().layout
        fig.update_layout(template=self.template())
        _fill(fig.layout, {
            "font": {"family": FONT_FAMILY, "size": self.font("text"), "color": self.text},
            "paper_bgcolor": self.background, "plot_bgcolor": self.background,
            "title": {"font": {"size": self.font("title"), "color": self.text}},
            "legend": {"font": {"size": self.font("legend"), "color": self.text}},
            "hoverlabel": {"font": {"size": self.font("text")}},
        })
        axis = tl.xaxis.to_plotly_json()
        fig.for_each_xaxis(lambda ax: _fill(ax, axis))
        fig.for_each_yaxis(lambda ax: _fill(ax, axis))
        for ann in fig.layout.annotations:
            _fill(ann, {"font": {"size": self.font("text"), "color": self.text}})
        for tr in fig.data:
            mk = getattr(tr, "marker", None)
            if mk is not None and getattr(mk, "colorbar", None) is not None and (
                    mk.showscale or tr.type == "heatmap"):
                _fill(mk.colorbar, {"tickfont": {"size": self.font("tick"), "color": self.text},
                                    "title": {"font": {"size": self.font("text"), "color": self.text}}})
            if tr.type == "heatmap":
                _fill(tr, {"colorbar": {"tickfont": {"size": self.font("tick"), "color": self.text}},
                           "textfont": {"size": self.font("label")}})
        if legend is not None:
            fig.update_layout(showlegend=legend)
        return fig

    def plotly_config(self) -> dict:
        """``config=`` for ``st.plotly_chart``: the camera button downloads an SVG drawn by the
        browser itself (no server involved), at the figure's size."""
        return {"displaylogo": False, "scrollZoom": True,
                "toImageButtonOptions": {"format": "svg", "filename": "figure", "scale": 1}}


@lru_cache(maxsize=8)
def _template(style: Style) -> go.layout.Template:
    c = THEMES[style.theme]
    axis = dict(color=c["muted"], gridcolor=c["grid"], linecolor=c["faint"], zerolinecolor=c["faint"],
                tickfont=dict(size=style.font("tick"), color=c["muted"]),
                title=dict(font=dict(size=style.font("axis"), color=c["text"])), automargin=True)
    return go.layout.Template(
        layout=dict(
            font=dict(family=FONT_FAMILY, size=style.font("text"), color=c["text"]),
            paper_bgcolor=c["background"], plot_bgcolor=c["background"], colorway=CATEGORICAL,
            title=dict(font=dict(size=style.font("title"), color=c["text"]), x=0.01, xanchor="left"),
            legend=dict(font=dict(size=style.font("legend"), color=c["text"])),
            hoverlabel=dict(font=dict(size=style.font("text"), family=FONT_FAMILY), bgcolor=c["hover_bg"]),
            xaxis=axis, yaxis=axis,
            colorscale=dict(sequential=PROBABILITY_SCALE, sequentialminus=PROBABILITY_SCALE),
        ),
        data=dict(
            heatmap=[go.Heatmap(colorscale=SEQUENTIAL_SCALE)],
            bar=[go.Bar(textfont=dict(size=style.font("label")))],
        ),
    )


def current() -> Style:
    """The style of the running Streamlit session: the browser's theme and the presenter switch
    (:attr:`workbench.session.AppState.presenter`); the light default outside a session."""
    try:   # imported here: the figures are drawn without Streamlit too (the CLI's reports, the benchmarks)
        import streamlit as st
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        from workbench.session import AppState

        if get_script_run_ctx(suppress_warning=True) is None:
            return Style()
        theme = st.context.theme.type or "light"
        return Style(theme=theme if theme in THEMES else "light",
                     presenter=bool(AppState().presenter))
    except Exception:  # noqa: BLE001 - a figure is still drawn, in the default style
        return Style()
