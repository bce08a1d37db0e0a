"""A page setting, declared once: its value in a link, its widget and the run-config field it feeds.

A :class:`Setting` says everything about one setting of a page of the app: its name in a link
(``?eta=0.5``) and the kind, range or choices and default of its value; the widget that shows it
(label, kind, step, the value the widget holds for each token); and the field of the page's run
configuration it feeds. The link codec (:meth:`Setting.parse`, :func:`format_value`), the widgets
(``workbench.widgets``), the address bar (``workbench.address_bar``), the lesson checker and the run
configuration are all derived from it (the scikit-learn way: a parameter declared once, in
``_parameter_constraints``, checked everywhere).

>>> eta = Setting("eta", FLOAT, "the learning rate η", 1.0, lo=0.05, hi=4.0, label="Learning rate η",
...               widget=SLIDER, step=0.05, field="eta")
>>> eta.parse("0.5"), format_value(eta, 0.5), eta.describe()
(0.5, '0.5', 'a number in 0.05..4')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
import dataclasses
from dataclasses import dataclass
from typing import Any

from engine import limits
from engine.errors import InvalidParameterError
from engine.params import Param
from workbench.declarations.value_formats import (format_evidence, format_matrix, format_region, number_text,
                                                   parse_evidence, parse_matrix, parse_region)

__all__ = [
    "BOOL", "CHOICE", "EVIDENCE", "FLOAT", "INT", "KINDS", "MATRIX", "MAX_VALUE_CHARS", "REGION", "TEXT", "TREE",
    "VERTEX",
    "CHECKBOX", "NUMBER", "RADIO", "SELECT", "SELECT_SLIDER", "SLIDER", "TABS", "TOGGLE", "WIDGETS",
    "Setting", "format_value",
]

# the kinds of value
INT, FLOAT, CHOICE, BOOL, TEXT, VERTEX, TREE, EVIDENCE, MATRIX, REGION = (
    "int", "float", "choice", "bool", "text", "vertex", "tree", "evidence", "matrix", "region")
KINDS = (INT, FLOAT, CHOICE, BOOL, TEXT, VERTEX, TREE, EVIDENCE, MATRIX, REGION)
# the kinds of widget (workbench.widgets draws each with its Streamlit element)
SLIDER, NUMBER, SELECT, RADIO, SELECT_SLIDER, TOGGLE, CHECKBOX, TABS = (
    "slider", "number", "select", "radio", "select_slider", "toggle", "checkbox", "tabs")
WIDGETS = (SLIDER, NUMBER, SELECT, RADIO, SELECT_SLIDER, TOGGLE, CHECKBOX, TABS)
# the kind of value of a declared parameter's type (a str parameter: CHOICE with choices, else TEXT)
_KIND_OF = {int: INT, float: FLOAT, bool: BOOL}
#: Longest value any setting takes in a link (a Newick tree has its own, larger limit).
MAX_VALUE_CHARS = 400
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True, eq=False)
class Setting:
    """One setting of a page.

    The value (what a link carries):

    name : its name in the link (``?k=3``).
    kind : ``int``, ``float``, ``choice``, ``bool``, ``text``, ``vertex`` (a vertex name of the
        page's tree), ``tree`` (see :func:`workbench.declarations.tree_text.tree_from_link`), ``evidence`` (see
        :func:`workbench.declarations.value_formats.parse_evidence`), ``matrix`` (see
        :func:`workbench.declarations.value_formats.parse_matrix`) or ``region`` (a view of a tree's drawing, see
        :func:`workbench.declarations.value_formats.parse_region`).
    help : one line a user reads (the reference table in ``docs/lessons.md``, error messages).
    default : the page's value when the link does not give one (None: nothing chosen).
    lo, hi : the inclusive range of an ``int`` or ``float``.
    choices : the tokens of a ``choice``.
    leaf : a ``vertex`` that must be a leaf of the tree.

    A setting whose ``field`` the page's run configuration declares (:mod:`engine.params`) leaves
    out what the declaration says: its kind, help, default, the ends of its range and its choices
    come from there (:meth:`declared_by`, which the page's spec calls). The page writes only what is
    its own: a narrower range (a slider's ends, what a class can run in seconds), another first
    value, fewer choices -- each inside what the algorithm accepts, as ``tests/test_parameters.py``
    checks -- and the presentation below.

    Its widget (none when ``widget`` is empty: state the page keeps itself, see ``workbench.address_bar.Bind``):

    label : the widget's label; widget : one of :data:`WIDGETS`; step : its step;
    options : token -> the value the widget holds (default: the token itself), e.g. ``"3000"`` -> 3000;
    display : the widget's value -> the text it shows, when that is not the value itself;
    tooltip : the widget's help (Markdown); key : its session-state key (default: the page's prefix,
        ``_`` and ``name``).

    What it feeds:

    field : the field of the page's run configuration (``engine.hedge.run.HedgeConfig.eta``);
    to_config : token -> the field's value (default: the widget's value of the token);
    view : a setting of what is shown (a tab, a selection, a trial to scrub to, ``run=1``), not of
        what is computed: changing it does not make the results on the page stale.
    """

    name: str
    kind: str = ""
    help: str = ""
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    leaf: bool = False
    label: str = ""
    widget: str = ""
    step: float | None = None
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    display: Mapping[Any, str] = dataclasses.field(default_factory=dict)
    tooltip: str | None = None
    key: str = ""
    field: str = ""
    to_config: Callable[[Any], Any] | None = None
    view: bool = False
    #: the attributes :meth:`declared_by` took from the field's declaration (the rest are the page's)
    derived: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.kind and self.field:
            return   # kind, help, range and default come from the field's declaration (declared_by)
        if self.kind not in KINDS:
            raise ValueError(f"setting {self.name}: unknown kind {self.kind!r}")
        if self.kind == CHOICE and not self.choices:
            raise ValueError(f"setting {self.name}: a choice needs choices")
        if self.widget and self.widget not in WIDGETS:
            raise ValueError(f"setting {self.name}: unknown widget {self.widget!r}")
        if self.widget and not self.label:
            raise ValueError(f"setting {self.name}: a widget needs a label")
        unknown = set(self.options) - set(self.choices)
        if unknown:
            raise ValueError(f"setting {self.name}: options for {', '.join(sorted(unknown))}, not choices")

    def declared_by(self, param: Param, where: str) -> "Setting":
        """This setting completed by ``param``, the declaration of its :attr:`field` (``where``
        names it, e.g. ``HedgeConfig.eta``): what the page left out is taken from there.

        A setting whose tokens stand for other values (``options``, ``to_config``) takes only the
        help. A range end the page leaves out must be a closed, finite end of the declaration.
        """
        if self.options or self.to_config is not None:
            return dataclasses.replace(self, help=self.help or param.doc,
                                       derived=self.derived if self.help else ("help",))
        kind = _KIND_OF.get(param.kind) or (CHOICE if param.choices else TEXT)
        if self.kind and self.kind != kind:
            raise ValueError(f"setting {self.name}: kind {self.kind}, but {where} is declared {kind}")
        default = self.default
        if default is None and param.default is not None:
            default = float(param.default) if kind == FLOAT else param.default
        more = {"kind": kind, "help": self.help or param.doc, "default": default}
        if kind in (INT, FLOAT):
            closed = {"lo": param.closed in ("both", "left"), "hi": param.closed in ("both", "right")}
            for end in ("lo", "hi"):
                if getattr(self, end) is None:
                    value = getattr(param, end)
                    if value is None or not closed[end]:
                        raise ValueError(f"setting {self.name}: {where} accepts {param.describe()}; "
                                         f"a link's range is closed, so give {end}=")
                    more[end] = float(value) if kind == FLOAT else int(value)
        if kind == CHOICE and not self.choices:
            more["choices"] = param.choices
        derived = self.derived + tuple(k for k in ("kind", "help", "default", "lo", "hi", "choices")
                                       if k in more and getattr(self, k) in (None, "", ()))
        return dataclasses.replace(self, **more, derived=derived)

    # ------------------------------------------------------------------ the value in a link
    def describe(self) -> str:
        """The accepted values in a few words (for error messages and the docs)."""
        if self.kind == INT:
            return f"an integer in {self.lo:g}..{self.hi:g}"
        if self.kind == FLOAT:
            return f"a number in {self.lo:g}..{self.hi:g}"
        if self.kind == CHOICE:
            return "one of " + ", ".join(self.choices)
        if self.kind == BOOL:
            return "1 or 0"
        if self.kind == VERTEX:
            return "the name of a " + ("leaf" if self.leaf else "vertex") + " of the tree"
        if self.kind == TREE:
            return "a sample, a generator spec such as random:1000:7, figure1, or a Newick text"
        if self.kind == EVIDENCE:
            return "evidence such as 4=1,5=0.2/0.8 (vertex=label or vertex=soft weights)"
        if self.kind == MATRIX:
            return "a square matrix such as 2,1;1,2 (rows separated by ;)"
        if self.kind == REGION:
            return "a region of the drawing such as radial:-0.5,0.5,-0.2,0.3 (layout:x0,x1,y0,y1)"
        return "text"

    def parse(self, raw: str) -> Any:
        """The typed value of ``raw`` (a decoded query value); a one-line error names the setting."""
        if not isinstance(raw, str):
            raise self._bad(raw)
        if self.kind == TREE:
            limits.check("link_chars", len(raw.strip()), "parameter tree: characters")
            if not raw.strip():
                raise self._bad(raw)
            return raw.strip()
        if len(raw) > MAX_VALUE_CHARS:
            raise InvalidParameterError(f"parameter {self.name} has {len(raw):,} characters; at most "
                                        f"{MAX_VALUE_CHARS} are read")
        s = raw.strip()
        if self.kind in (INT, FLOAT):
            try:
                v = int(s) if self.kind == INT else float(s)
            except ValueError:
                raise self._bad(raw) from None
            if not math.isfinite(v) or not self.lo <= v <= self.hi:
                raise self._bad(raw)
            return v
        if self.kind == CHOICE:
            if s not in self.choices:
                raise self._bad(raw)
            return s
        if self.kind == BOOL:
            if s.lower() in _TRUE:
                return True
            if s.lower() in _FALSE:
                return False
            raise self._bad(raw)
        if self.kind == EVIDENCE:
            return parse_evidence(s, what=f"parameter {self.name}")
        if self.kind == MATRIX:
            return parse_matrix(s, what=f"parameter {self.name}")
        if self.kind == REGION:
            return parse_region(s, what=f"parameter {self.name}")
        if not s:
            raise self._bad(raw)
        return s

    def _bad(self, raw) -> InvalidParameterError:
        shown = raw if isinstance(raw, str) and len(raw) <= 60 else (str(raw)[:57] + "...")
        return InvalidParameterError(f"parameter {self.name}={shown!r}: expected {self.describe()}")

    # ------------------------------------------------------------------ the widget and the config
    def widget_value(self, token):
        """The value the widget holds for a link's ``token`` (KeyError: the widget has none)."""
        return self.options[token] if self.options else token

    def token_of(self, widget_value):
        """The link's token of a widget's value (None: the widget holds something a link cannot say)."""
        if not self.options:
            return None if self.kind == CHOICE and widget_value not in self.choices else widget_value
        return next((t for t, w in self.options.items() if w == widget_value), None)

    def config_value(self, token):
        """The value the run configuration's :attr:`field` takes for ``token``."""
        if self.to_config is not None:
            return self.to_config(token)
        return self.options.get(token, token) if self.options else token


def format_value(p: Setting, value: Any) -> str:
    """The text of ``value`` in a link (the inverse of :meth:`Setting.parse`)."""
    if p.kind == BOOL:
        return "1" if value else "0"
    if p.kind == FLOAT:
        return number_text(value)
    if p.kind == EVIDENCE:
        return value if isinstance(value, str) else format_evidence(value)
    if p.kind == MATRIX:
        return value if isinstance(value, str) else format_matrix(value)
    if p.kind == REGION:
        return value if isinstance(value, str) else format_region(value)
    return str(value)
