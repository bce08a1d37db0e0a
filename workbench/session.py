"""A page's session state as a small typed object, its keys declared once.

Each page keeps what outlives a rerun (its widgets' values, the run it shows, a pending link
value, a flash message) in ``st.session_state``. Instead of string keys spelled across the page, a
page declares its state once, as a :class:`PageState` subclass naming its spec
(:mod:`workbench.declarations.page_table`): every setting with a widget is an attribute under the widget's key
(``hedge_eta``), and every annotated attribute of the subclass is one more key, ``PREFIX_NAME``
(the spec's prefix), so the widgets and the page's own state share one naming rule.

>>> class HedgeState(PageState, page="tree_hedge"):
...     run: tuple | None = None          # the run shown
...     trial_link: int | None = None     # a link's trial, waiting for the run
>>> HedgeState.key("run"), HedgeState.key("eta")
('hedge_run', 'hedge_eta')

``S = HedgeState()``; then ``S.run`` reads (the declared default when unset; a setting's default
for a widget not drawn yet), ``S.run = x`` writes, ``del S.run`` forgets, ``S.pop("trial_link")``
reads and forgets, and ``S.key("run")`` is the key itself (for a widget's ``key=``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import streamlit as st

from workbench.declarations.page_table import PAGES

__all__ = ["PageState"]

_MISSING = object()


class _Slot:
    """One attribute of a :class:`PageState`: the session-state key it stands for."""

    def __init__(self, key: str, default: Any):
        self.key, self.default = key, default

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return st.session_state.get(self.key, self.default)

    def __set__(self, obj, value) -> None:
        st.session_state[self.key] = value

    def __delete__(self, obj) -> None:
        st.session_state.pop(self.key, None)


class PageState:
    """Base of a page's session state; subclass with ``page=`` (its spec's url_path) and annotated
    attributes for the state that is no setting's widget."""

    prefix: ClassVar[str] = ""

    def __init_subclass__(cls, *, page: str, **kwargs):
        super().__init_subclass__(**kwargs)
        spec = PAGES[page]
        cls.prefix = spec.prefix
        for setting in spec.settings:
            if setting.widget:
                start = setting.widget_value(setting.default) if setting.default is not None else None
                setattr(cls, setting.name, _Slot(spec.key(setting.name), start))
        for name in cls.__dict__.get("__annotations__", {}):
            if name.startswith("_") or name == "prefix":
                continue
            if any(s.name == name and s.widget for s in spec.settings):
                raise TypeError(f"{cls.__name__}.{name}: the setting {name} of /{page} has this name already")
            setattr(cls, name, _Slot(f"{spec.prefix}_{name}", cls.__dict__.get(name)))

    @classmethod
    def key(cls, name: str) -> str:
        """The session-state key of attribute ``name``."""
        slot = cls.__dict__.get(name)
        if not isinstance(slot, _Slot):
            raise AttributeError(f"{cls.__name__} declares no {name!r}")
        return slot.key

    def pop(self, name: str, default: Any = _MISSING):
        """The value of ``name`` (``default``, else the declared default, when unset), now forgotten."""
        slot = type(self).__dict__[name]
        return st.session_state.pop(slot.key, slot.default if default is _MISSING else default)

    def setdefault(self, name: str, value: Any):
        """The value of ``name``, set to ``value`` first when unset."""
        return st.session_state.setdefault(type(self).key(name), value)

    def has(self, name: str) -> bool:
        """Whether ``name`` is set in this session."""
        return type(self).key(name) in st.session_state
