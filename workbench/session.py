"""Session state, one way: a small typed class declares each key once, and nothing else spells one.

What outlives a rerun (a widget's value, the run a page shows, a pending link value, a flash
message) lives in ``st.session_state``. A module that keeps some declares it once, as a subclass:

- a page, as a :class:`PageState` naming its spec (:mod:`workbench.declarations.page_table`): every
  setting with a widget is an attribute under the widget's key (``hedge_eta``), and every annotated
  attribute is one more key, ``PREFIX_NAME`` (the spec's prefix), so the widgets, the buttons and
  the page's own state share one naming rule;
- a module that is no page (the class room, the lesson panel, the current tree...), as a
  :class:`SessionState` with its ``prefix=`` (``prefix=""``: the attribute's name is the key);
- the state kept beside one element (a figure's view, its selected vertex, the error of its
  search box), as a :class:`ElementState` bound to the element's key: ``ElementState(key).shown``
  is ``KEY__shown``.

>>> class HedgeState(PageState, page="tree_hedge"):
...     run: tuple | None = None          # the run shown
...     trial_link: int | None = None     # a link's trial, waiting for the run
...     heat: None = None                 # the heat map (an element: its key is declared here)
>>> HedgeState.key("run"), HedgeState.key("eta"), HedgeState.key("heat")
('hedge_run', 'hedge_eta', 'hedge_heat')

``S = HedgeState()``; then ``S.run`` reads (the declared default when unset; a setting's default
for a widget not drawn yet), ``S.run = x`` writes, ``del S.run`` forgets, ``S.pop("trial_link")``
reads and forgets, and ``S.key("run")`` is the key itself (for a widget's ``key=``). An attribute
annotated ``Family[T]`` stands for a family of keys, one per part: ``S.soft[2]`` is ``PREFIX_soft_2``,
``S.soft.key(2)`` its key.

Every key is declared by one attribute of one class: a second declaration of a key raises
``TypeError`` naming both. A declaration lives in the module that keeps the state; state that
modules which cannot import each other read is declared here, at the end (the presenter switch, the
open lesson, Practice's score: a page script cannot be imported). This is the one module that
touches ``st.session_state``; ``tests/test_session_state.py`` finds no key spelled anywhere else.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

import streamlit as st

from workbench.declarations.page_table import PAGES

if TYPE_CHECKING:
    from engine.practice import Score

__all__ = ["SessionState", "PageState", "ElementState", "Family", "Members", "AppState",
           "LessonState", "PracticeState"]

_MISSING = object()
T = TypeVar("T")

#: every declared key -> the attribute declaring it ("Class.name")
_DECLARED: dict[str, str] = {}


class Family(Generic[T]):
    """The annotation of an attribute that stands for a family of keys ``KEY_PART`` (see :class:`Members`)."""


class _Slot:
    """One attribute of a :class:`SessionState`: the session-state key it stands for."""

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


class Members:
    """The keys of a :class:`Family` attribute, one per part: ``m[part]`` reads (the declared default
    when unset), ``m[part] = x`` writes, ``m.pop(part)`` reads and forgets, ``m.key(part)`` is the key."""

    def __init__(self, key: str, default: Any):
        self._key, self._default = key, default

    def key(self, *parts: object) -> str:
        """The key of the member named by ``parts`` (joined by ``_``)."""
        if not parts:
            raise TypeError(f"a member of {self._key} needs a part")
        return "_".join((self._key, *map(str, parts)))

    def __getitem__(self, part):
        return st.session_state.get(self.key(*_parts(part)), self._default)

    def __setitem__(self, part, value) -> None:
        st.session_state[self.key(*_parts(part))] = value

    def pop(self, part, default: Any = _MISSING):
        return st.session_state.pop(self.key(*_parts(part)), self._default if default is _MISSING else default)

    def setdefault(self, part, value):
        return st.session_state.setdefault(self.key(*_parts(part)), value)

    def keep(self, *parts) -> None:
        """Keep the widgets of the members ``parts`` (those set) through a run that does not draw
        them: their values written back (:meth:`SessionState.keep`)."""
        _keep(self.key(*_parts(p)) for p in parts)


def _keep(keys) -> None:
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _parts(part) -> tuple:
    return part if isinstance(part, tuple) else (part,)


class _FamilySlot(_Slot):
    def __get__(self, obj, owner=None):
        return self if obj is None else Members(self.key, self.default)

    def __set__(self, obj, value) -> None:
        raise AttributeError(f"{self.key} is a family of keys: set a member, [part] = value")

    def __delete__(self, obj) -> None:
        raise AttributeError(f"{self.key} is a family of keys: pop a member")


def _declare(cls: type, key: str, name: str) -> None:
    where = f"{cls.__name__}.{name}"
    other = _DECLARED.setdefault(key, where)
    # a page script runs again on every rerun (under whichever module name runs it) and declares its class
    # again: that is the same declaration
    if other != where:
        raise TypeError(f"{where}: the session key {key!r} is declared by {other} already")


@contextlib.contextmanager
def _all_or_none():
    """A class's keys are declared all or none: one that clashes forgets those declared before it
    (a refused declaration left them taken, and the page that owns them could not run again)."""
    before = set(_DECLARED)
    try:
        yield
    except BaseException:
        for key in set(_DECLARED) - before:
            _DECLARED.pop(key, None)
        raise


def _annotated(cls: type) -> dict[str, str]:
    """The annotated attributes of ``cls`` itself, each with its annotation as written."""
    out = {name: kind if isinstance(kind, str) else repr(kind).removeprefix(f"{__name__}.")
           for name, kind in cls.__dict__.get("__annotations__", {}).items()
           if not name.startswith("_") and "ClassVar" not in str(kind)}
    for name in out.keys() & {"key", "pop", "setdefault", "has", "update", "prefix"}:
        raise TypeError(f"{cls.__name__}.{name}: the name of a method of every state, choose another")
    return out


class SessionState:
    """Base of a module's session state; subclass with ``prefix=`` and annotated attributes (each one
    key, ``PREFIX_NAME``; the name alone when the prefix is empty)."""

    prefix: ClassVar[str] = ""

    def __init_subclass__(cls, *, prefix: str, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.prefix = prefix
        with _all_or_none():
            for name, kind in _annotated(cls).items():
                key = f"{prefix}_{name}" if prefix else name
                _declare(cls, key, name)
                slot = _FamilySlot if kind.startswith("Family[") else _Slot
                setattr(cls, name, slot(key, cls.__dict__.get(name)))

    @classmethod
    def key(cls, name: str, *parts: object) -> str:
        """The session-state key of attribute ``name`` (of its member ``parts`` for a family)."""
        slot = cls.__dict__.get(name)
        if not isinstance(slot, _Slot):
            raise AttributeError(f"{cls.__name__} declares no {name!r}")
        if isinstance(slot, _FamilySlot):
            return Members(slot.key, slot.default).key(*parts)
        if parts:
            raise TypeError(f"{cls.__name__}.{name} is one key, not a family")
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

    def keep(self, *names: str) -> None:
        """Keep the widgets of ``names`` (those set) through a run that does not draw them (a closed
        tab's): Streamlit forgets a widget a run does not draw, unless its value is written back."""
        _keep(type(self).key(name) for name in names)

    def update(self, **values: Any) -> None:
        """Set several attributes at once (each a declared one)."""
        for name, value in values.items():
            st.session_state[type(self).key(name)] = value


class PageState(SessionState, prefix=""):
    """Base of a page's session state; subclass with ``page=`` (its spec's url_path) and annotated
    attributes for the state that is no setting's widget (the page's buttons and figures included)."""

    def __init_subclass__(cls, *, page: str, **kwargs):
        spec = PAGES[page]
        with _all_or_none():
            for setting in spec.settings:
                if setting.widget:
                    if setting.name in _annotated(cls):
                        raise TypeError(f"{cls.__name__}.{setting.name}: the setting {setting.name} of /{page} "
                                        "has this name already")
                    start = setting.widget_value(setting.default) if setting.default is not None else None
                    _declare(cls, spec.key(setting.name), setting.name)
                    setattr(cls, setting.name, _Slot(spec.key(setting.name), start))
            super().__init_subclass__(prefix=spec.prefix, **kwargs)


class _ElementSlot:
    def __init__(self, suffix: str, default: Any):
        self.suffix, self.default = suffix, default

    def __get__(self, obj, owner=None):
        return self if obj is None else st.session_state.get(obj.key(self.suffix), self.default)

    def __set__(self, obj, value) -> None:
        st.session_state[obj.key(self.suffix)] = value

    def __delete__(self, obj) -> None:
        st.session_state.pop(obj.key(self.suffix), None)


class ElementState:
    """The state kept beside one element (a clickable tree, a chart), under ``KEY__NAME`` for the
    element's key ``KEY`` (itself declared by its page or module, or by a page's spec for a setting's
    widget); :attr:`value` is the element's own value (what Streamlit keeps under ``KEY``: a widget's
    value, a chart's selection, a component's last event)."""

    view: Any = None         # the tree view's zoom and layout (workbench.treeview.ViewState)
    shown: Any = None        # what the tree view drew last: a click on a collapsed mark refers to it
    error: str | None = None  # the tree view's search: a name that is no vertex, shown once
    vertex: str | None = None  # the name of the selected vertex (a link's vertex= is put there)
    box: str | None = None   # the "find a vertex" box's text
    box_error: str | None = None  # ... a name that is no vertex, shown once
    seen: Any = None         # the signature of the last event acted upon (a rerun does not act twice)
    geo: Any = None          # the tree view's geometry this session's browser was sent last (its id)
    exports: None = None     # a figure's companions: its row of download buttons
    downloads: bool = False  # ... shown once asked for (its "Download" button, below; a tree view's own)
    download: None = None    # ... the "Download" button that shows them (a tree view draws its own)
    svg: None = None         # ... the SVG download
    pdf: None = None         # ... the PDF download
    csv: None = None         # ... the CSV download (its data)
    describe: None = None    # ... the "Describe" expander (its text description; a tree view and bars draw their own)
    a11y: None = None        # ... its accessible name's component, KEY-a11y (the browser tests' name)

    _JOIN: ClassVar[dict[str, str]] = {"a11y": "-"}   # a companion joined otherwise than by "__"

    def __init__(self, key: str):
        if not isinstance(key, str) or not key:
            raise TypeError(f"an element's key must be a non-empty string, not {key!r}")
        self._key = key

    def key(self, name: str | None = None) -> str:
        """The element's key (``name`` None), else the key of its state ``name``."""
        if name is None:
            return self._key
        if not isinstance(type(self).__dict__.get(name), _ElementSlot):
            raise AttributeError(f"ElementState declares no {name!r}")
        return f"{self._key}{self._JOIN.get(name, '__')}{name}"

    @property
    def value(self):
        """The element's own value in this session (None when it has none yet)."""
        return st.session_state.get(self._key)

    @value.setter
    def value(self, value) -> None:
        st.session_state[self._key] = value

    def has(self, name: str | None = None) -> bool:
        """Whether the element (``name`` None), or its state ``name``, is set in this session."""
        return self.key(name) in st.session_state

    def pop(self, name: str | None = None, default: Any = None):
        """The value of the element (``name`` None), or of its state ``name`` (``default`` when unset),
        now forgotten."""
        return st.session_state.pop(self.key(name), default)


for _name, _default in list(vars(ElementState).items()):
    if _name in _annotated(ElementState):
        setattr(ElementState, _name, _ElementSlot(_name, _default))


# ---------------------------------------------------------------- the state more than one module reads


class AppState(SessionState, prefix=""):
    """The app's own switches, read by every page (its keys are the switches' names)."""

    presenter: bool = False   # the sidebar's presenter toggle: larger text, markers and lines (figures.style)


class LessonState(SessionState, prefix="lesson"):
    """The open lesson and its panel (workbench.lesson_panel), the lesson cards of the Lessons page; the
    address bar reads the open lesson for the page's link."""

    open: tuple | None = None         # (lesson id, step number) of the open lesson
    answers: dict | None = None       # (lesson id, step) -> "right" | "wrong" | "empty" | "revealed"
    panel: None = None                # the panel beside the page
    show: bool = False                # its buttons: show this step
    prev: bool = False                # ... the previous step
    next: bool = False                # ... the next step
    close: bool = False               # ... close the lesson
    check: bool = False               # ... check the answer
    reveal: bool = False              # ... reveal it
    q: Family[object] = None          # the answer to the question of a step: lesson id, step
    card: Family[None] = None         # the Lessons page: a lesson's card, by lesson id
    start: Family[bool] = False       # ... its Start button
    lead: Family[bool] = False        # ... its "Lead a class" button


class PracticeState(PageState, page="practice"):
    """The Practice page's state: here, not in its page script, because the lesson panel reads the score."""

    score: Score | None = None        # every checked attempt of this session
    message: str | None = None        # a typed answer that could not be read, shown once
    tree: None = None                 # the exercise's tree (an element)
    answer: Family[str] = ""          # the answer box of an exercise: its family and seed
    form: Family[None] = None         # ... and its form
