"""A setting's widget, drawn from its spec: label, kind, range or options, default, help and key.

``widget("tree_hedge", "eta")`` draws the slider that :data:`workbench.declarations.page_table.PAGES` declares for
TREE-HEDGE's learning rate (``st.slider("Learning rate η", 0.05, 4.0, 1.0, 0.05,
key="hedge_eta")``), so a page never writes a setting's label, range or key again. What changes
from run to run is passed in: a range that depends on the tree (``hi=tree.n - 1``), options found
on this machine (``options=[...]``), extra options no link can name (``extra={"file": "My loss
file"}``), where to draw it (``where=column``) and any other argument of the Streamlit element
(``on_change=``, ``horizontal=``, ``disabled=``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from workbench.declarations.page_spec import PageSpec
from workbench.declarations.page_table import PAGES
from workbench.declarations.settings import CHECKBOX, NUMBER, RADIO, SELECT, SELECT_SLIDER, SLIDER, TABS, TOGGLE
from workbench.session import ElementState

__all__ = ["widget", "keep"]

_MISSING = object()


def widget(page: str | PageSpec, name: str, *, where: Any = None, lo: Any = None, hi: Any = None,
           value: Any = _MISSING, options: Sequence | None = None, extra: Mapping[Any, str] | None = None,
           **more):
    """Draw the widget of setting ``name`` of ``page`` and return what the Streamlit element returns.

    lo, hi : the range, when it is narrower than the link's (a tree's edges, a cover's rounds);
    value : the widget's start value (default: the setting's default);
    options : the widget's values, when found at run time (a select box of the data on this machine);
    extra : more widget values (value -> the text shown) that no link names;
    where : the container (default: ``st``); more : passed on to the Streamlit element.
    """
    spec = PAGES.page(page)
    s = spec.setting(name)
    if not s.widget:
        raise ValueError(f"setting {name} of /{spec.url_path} has no widget")
    where = st if where is None else where
    more.setdefault("key", spec.key(name))
    if s.tooltip is not None:
        more.setdefault("help", s.tooltip)
    start = (s.widget_value(s.default) if s.default is not None else None) if value is _MISSING else value
    if s.widget in (SLIDER, NUMBER):
        draw = where.slider if s.widget == SLIDER else where.number_input
        return draw(s.label, s.lo if lo is None else lo, s.hi if hi is None else hi, start, s.step, **more)
    if s.widget in (CHECKBOX, TOGGLE):
        return (where.checkbox if s.widget == CHECKBOX else where.toggle)(s.label, value=bool(start), **more)
    values = list(options) if options is not None else [s.widget_value(c) for c in s.choices]
    values += list(extra or {})
    shown = {**s.display, **(extra or {})}
    if s.widget == TABS:
        return where.tabs(values, **more)
    if shown:
        more.setdefault("format_func", lambda v: shown.get(v, v))
    if s.widget == SELECT_SLIDER:
        return where.select_slider(s.label, values, value=start, **more)
    if s.widget in (SELECT, RADIO):
        return (where.selectbox if s.widget == SELECT else where.radio)(s.label, values, **more)
    raise ValueError(f"setting {name}: widget {s.widget!r} is not drawn here")


def keep(page: str | PageSpec, *names: str) -> None:
    """Keep the values of the widgets of settings ``names`` through a run that does not draw them.

    A page computes only its open tab; Streamlit forgets the state of a widget a full run did not
    draw, so a slider of a closed tab would fall back to its default (and leave the page's link).
    Writing the value back as the run starts keeps it, as Streamlit's documentation advises.
    """
    spec = page if isinstance(page, PageSpec) else PAGES.page(page)
    for name in names:
        element = ElementState(spec.key(name))
        if element.has():
            element.value = element.value
