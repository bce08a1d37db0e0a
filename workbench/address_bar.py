"""A page's settings in its address: read on arrival, written back after every change.

Every page opens with :func:`page_head` (its title and caption, then :func:`sync_query`). Its
settings are those of its spec (:mod:`workbench.declarations.page_table`): a setting with a widget is bound to that
widget's session state (its key, and the widget's value of each token, come from the spec); a
page binds the rest -- state that is no single widget, such as the selected vertex, the evidence or
``run=1`` -- with a :class:`Bind` of its own. A value that arrives in the address -- a link sent to
a student, a reload (F5), a step of a lesson -- is put into its widget's session state before the
widget is drawn; the widgets' values are then written back into the address (values equal to the
spec's defaults left out), so the address bar always holds the exact view and
:func:`copy_link_button` copies it. A bad value is said in one line (``st.warning``) and the page
opens with its default. The link's tree (``?tree=``) becomes the current tree
(:func:`tree_from_query`, before every page).

Why not Streamlit's ``bind="query-params"``: a bound widget takes the parameter's name as its key
(``k``, ``seed``, ``vertex`` are on several pages, and the pages, their callbacks and their tests
address widgets by page-prefixed keys); it is seeded from the address only on its first draw or
on history navigation (Streamlit 1.67, ``SessionState._handle_query_param_binding``), so a
lesson's next step on the same page would not move it; choice widgets put their displayed label
in the address instead of the spec's token; an invalid value is dropped without a word; and half
of the parameters are no widget at all (the selected vertex, evidence, the open tab). One
mechanism serves them all here.

Seeding rule: a parameter whose text in the address differs from what this page last read or
wrote is put into its widget; a parameter missing from the address keeps the page's current
value, except right after a lesson moved the page (:func:`reset_next`), when it takes its default.
A fragment that changes a bound widget calls :func:`write_query` so the address follows at once.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from engine import limits
from engine.errors import EngineError
from workbench.declarations.page_spec import PageSpec
from workbench.declarations.page_table import PAGES
from workbench.declarations.settings import FLOAT, VERTEX, Setting, format_value
from workbench.session import ElementState, Family, LessonState, SessionState
from workbench.state import TreeState, current_tree, link_tree, set_tree, tree_link, tree_source

__all__ = ["Bind", "arrived", "choice", "vertex", "run_bind", "run_once", "page_head", "sync_query", "values",
           "write_query", "view_query", "address_link", "reset_next", "copy_link_button", "app_root",
           "tree_from_query", "setting_bind"]



class LinkState(SessionState, prefix="_links"):
    """What the address bar keeps between runs."""

    seen: dict | None = None       # page -> {name: text} the address held after this page's last write
    binds: dict | None = None      # page -> {name: Bind} (for write_query inside fragments)
    reset: str | None = None       # a page whose next run takes every bound value from the address
    run: Family[bool] = False      # a page whose link said run=1 (see run_once)
    runs: set | None = None        # (page, config) the links started once in this session


S = LinkState()


def _same(x):
    return x


@dataclass(frozen=True)
class Bind:
    """How a parameter drives a widget: its session-state ``key``, the widget's value of a
    parameter value (``to_widget``), and the parameter value of a widget's value (``from_widget``;
    None means "not set").

    State that is no single widget gives ``seed(value)`` (put a link's value, or None for the
    default, into the page's state) and ``read()`` (the value now, None for "not set") instead.
    """

    key: str = ""
    to_widget: Callable[[Any], Any] = _same
    from_widget: Callable[[Any], Any] = _same
    seed: Callable[[Any], None] | None = None
    read: Callable[[], Any] | None = None


def choice(key: str, labels: Mapping[str, Any]) -> Bind:
    """A widget that shows labels (a radio, a select box, tabs) for the table's tokens."""
    back = {v: k for k, v in labels.items()}
    return Bind(key, lambda token: labels[token], lambda label: back.get(label))


def vertex(key: str, tree: Callable[[], Any] | None = None) -> Bind:
    """The selected vertex of a clickable tree (``workbench.components`` keeps its name under
    ``key``); a name that is not a vertex of ``tree()`` (default: the current tree) is left out."""
    def named(name):
        t = (tree or current_tree)()
        return name if name is not None and t is not None and t.find(name) is not None else None

    return Bind(key, _same, named)


def run_bind(page: str, shown: Callable[[], bool]) -> Bind:
    """``run=1``: a link asks the page to start its run (see :func:`run_once`); the page's own link
    says ``run=1`` while ``shown()`` (the results on the page are those of its settings)."""
    def seed(v) -> None:
        S.run[page] = bool(v)

    return Bind(seed=seed, read=lambda: True if shown() else None)


def run_once(page: str, config) -> bool:
    """Whether the page should start ``config`` now because a link said ``run=1``: once per session
    and configuration (a reload or another student's session starts its own)."""
    if not S.run.pop(page):
        return False
    done = S.setdefault("runs", set())
    key = (page, config.to_json())
    if key in done:
        return False
    done.add(key)
    return True


def setting_bind(page: PageSpec, setting: Setting) -> Bind:
    """The bind of a setting with a widget, from its spec: its key and the widget's value of each token."""
    return Bind(page.key(setting.name), setting.widget_value, setting.token_of)


def _bind(b: str | Bind) -> Bind:
    return b if isinstance(b, Bind) else Bind(b)


def _binds(spec: PageSpec, binds: Mapping[str, str | Bind] | None) -> dict[str, Bind]:
    """Every setting with a widget bound by its spec, and the page's own binds (which win)."""
    out = {s.name: setting_bind(spec, s) for s in spec.settings if s.widget}
    for name, b in (binds or {}).items():
        spec.setting(name)  # an unknown name is a bug of the page
        out[name] = _bind(b)
    return out


def _address() -> dict[str, str]:
    """The address's query, one text per name (the last one when repeated)."""
    out = {}
    for name in st.query_params.keys():
        vals = st.query_params.get_all(name)
        out[name] = vals[-1] if vals else ""
    return out


def arrived(page: str, name: str) -> str | None:
    """The address's text for ``name`` when it is new to ``page`` (not what the page last read or
    wrote: a link opened, a reload, a lesson's step), else None. State changed by a click since
    the last write is newer than the address, so it is not overwritten by a stale address."""
    raw = st.query_params.get(name)
    if raw is None:
        return None
    seen = (S.seen or {}).get(PAGES.page(page).url_path)
    return raw if seen is None or seen.get(name) != raw else None


def reset_next(page: str) -> None:
    """The next run of ``page`` takes every bound value from the address (missing: its default);
    the lesson panel calls this before it moves the page to a step."""
    S.reset = PAGES.page(page).url_path


def page_head(page: str, title: str, caption: str | None = None,
              binds: Mapping[str, str | Bind] | None = None) -> dict[str, Any]:
    """How every page opens: its title, a caption naming the paper or notes it shows and what to
    do, then its settings read from the address (:func:`sync_query`, whose result it returns)."""
    st.title(title)
    if caption:
        st.caption(caption)
    return sync_query(page, binds)


def sync_query(page: str, binds: Mapping[str, str | Bind] | None = None) -> dict[str, Any]:
    """Read the page's parameters from the address into their widgets, write the widgets back.

    ``binds`` maps setting names to widget keys (or :class:`Bind`) for the settings whose state
    is not the widget the spec declares. Returns the typed values the address gives (every
    setting of the page, bound or not: ``run``, ``network``, ...).
    """
    schema = PAGES.page(page)
    bound = _binds(schema, binds)
    S.setdefault("binds", {})[schema.url_path] = bound
    raw = _address()
    seen = S.setdefault("seen", {}).get(schema.url_path)
    reset = S.reset == schema.url_path
    if reset:
        del S.reset
    query = {k: v for k, v in raw.items() if k != "tree"}   # the tree is read by tree_from_query
    values, errors = schema.parse_query(query, strict=False)
    if raw != seen or reset:
        for err in errors:
            st.warning(f"The link's {err} (ignored).", icon=":material/link_off:")
        if reset:  # defaults first: two parameters may share a widget (a selection of either kind)
            for name, b in bound.items():
                if name not in values:
                    _seed(schema, name, b, schema.setting(name).default)
        for name, b in bound.items():
            if name in values and (reset or seen is None or raw.get(name) != seen.get(name)):
                _seed(schema, name, b, values[name])
    write_query(schema.url_path)
    return values


def _seed(schema: PageSpec, name: str, b: Bind, value) -> None:
    if b.seed is not None:
        try:
            b.seed(value)
        except (KeyError, ValueError, EngineError) as exc:
            st.warning(f"The link's {name}={value!r} cannot be used: {exc} (ignored).", icon=":material/link_off:")
        return
    if value is None:
        ElementState(b.key).pop()
        return
    try:
        widget = b.to_widget(value)
        if b.from_widget(widget) is None:
            raise ValueError("not a vertex of the tree" if schema.setting(name).kind == VERTEX
                             else "not available here")
    except (KeyError, ValueError, EngineError) as exc:
        st.warning(f"The link's {name}={value!r} is {exc} (ignored).", icon=":material/link_off:")
        return
    ElementState(b.key).value = widget


def values(page: str | PageSpec) -> dict[str, Any]:
    """The typed values of the page's bound settings now (what its widgets and state say), the
    settings not set left out: what :meth:`~workbench.declarations.page_spec.PageSpec.run_config` takes."""
    schema = PAGES.page(page)
    bound = (S.binds or {}).get(schema.url_path, {})
    out: dict[str, Any] = {}
    for name, b in bound.items():
        if b.read is None and not ElementState(b.key).has():
            continue
        try:
            v = b.read() if b.read is not None else b.from_widget(ElementState(b.key).value)
        except (KeyError, ValueError, TypeError, EngineError):
            continue
        if v is not None:
            out[name] = v
    return out


def view_query(page: str) -> dict[str, str]:
    """The query of the exact view of ``page`` now: the current tree (on pages that show one),
    the open lesson and step, and every bound widget's value that is not the spec's default."""
    schema = PAGES.page(page)
    got: dict[str, Any] = {}
    if schema.uses_tree:
        got["tree"] = tree_link()
    lesson = LessonState().open
    if lesson:
        got["lesson"], got["step"] = lesson
    got.update(values(schema))
    if got.get("network") is not None:
        got.pop("tree", None)   # a network brings its own tree
    out: dict[str, str] = {}
    for name, p in schema.all_settings.items():   # the spec's order
        v = got.get(name)
        if v is None:
            continue
        if p.kind == FLOAT:
            v = float(f"{float(v):.10g}")   # 0.8, not the slider's 0.8000000000000002
        if name not in ("tree", "lesson", "step") and v == p.default:
            continue
        try:
            text = format_value(p, v)
            p.parse(text)
        except (EngineError, ValueError, TypeError):
            continue  # a value the table cannot carry (a vertex name with a comma, ...)
        out[name] = text
    return out


def write_query(page: str) -> None:
    """Put the exact view of ``page`` into the address (only when it changed)."""
    schema = PAGES.page(page)
    want = view_query(schema.url_path)
    if want != _address():
        st.query_params.from_dict(want)
    S.setdefault("seen", {})[schema.url_path] = want


def address_link(page: str) -> str:
    """The link (relative to the app's root) the address bar holds now for ``page``."""
    q = _address()
    return PAGES.address(page) + ("?" + urlencode(q, safe="(),:/=;") if q else "")


def app_root(page: str) -> str:
    """The app's address in the user's browser without the page ``page`` (``http://host:8501``)."""
    url = (st.context.url or "").rstrip("/")
    path = PAGES.page(page).url_path
    if url.endswith("/" + path):
        url = url[: -len(path) - 1]
    return url


# a chain link (Material Symbols "link", drawn inline: no icon font or outside request needed)
_LINK_ICON = ('<svg width="16" height="16" viewBox="0 0 24 24" fill="currentColor" style="vertical-align:-3px">'
              '<path d="M3.9 12c0-1.71 1.39-3.1 3.1-3.1h4V7H7c-2.76 0-5 2.24-5 5s2.24 5 5 5h4v-1.9H7c-1.71 '
              '0-3.1-1.39-3.1-3.1zM8 13h8v-2H8v2zm9-6h-4v1.9h4c1.71 0 3.1 1.39 3.1 3.1s-1.39 3.1-3.1 3.1h-4V17h4'
              'c2.76 0 5-2.24 5-5s-2.24-5-5-5z"/></svg>')


def copy_link_button(page: str, where=None) -> None:
    """A "Copy link" button for the exact view of ``page`` (the address, kept current by
    :func:`write_query`), with the link shown for copying by hand; says so when the current
    tree is too large to travel in a link. One HTML element (in ``where``, an ``st.empty``, or
    here): the app draws it twice a run, and each full rerun sends it."""
    schema = PAGES.page(page)
    link = address_link(schema.url_path)
    full = json.dumps(app_root(schema.url_path) + link).replace("<", "\\u003c")   # a JS string, inert in HTML
    shown = html.escape(link if len(link) <= 160 else link[:157] + "…")
    note = ""
    if schema.uses_tree and tree_link() is None:
        tree = current_tree()
        note = (f'<p class="tw-link-note">The current tree ({tree.n:,} vertices, {html.escape(tree_source())}) '
                "is too large to travel in a link: the link opens on the class tree. Give a sample name or a "
                "generator spec (e.g. tree=random:1000:7) instead.</p>")
    # copies the address bar (always the exact view, also after a fragment changed it); the
    # text below it is the fallback for a browser that refuses the clipboard (plain http); its
    # notes in a caption's size and tone (workbench.figures.style.page_css: .tw-link-note)
    (where or st).html(f"""
<button class="tw-copy-link" title="Copy the link to this exact view"
  style="width:100%;padding:0.4rem 0.6rem;border-radius:0.5rem;border:1px solid rgba(49,51,63,0.3);
         background:transparent;color:inherit;font:inherit;cursor:pointer">{_LINK_ICON} Copy link</button>
<p class="tw-link-note">Link to this view: <code>{shown}</code></p>{note}
<script>
(() => {{
  const root = document.currentScript.parentElement;
  const b = root.querySelector("button.tw-copy-link");
  b.addEventListener("click", () => {{
    const url = window.location.href || {full};
    const label = b.innerHTML;
    const done = () => {{ b.textContent = "\\u2713 Link copied"; setTimeout(() => b.innerHTML = label, 1500); }};
    if (navigator.clipboard && window.isSecureContext) {{
      navigator.clipboard.writeText(url).then(done);
    }} else {{
      const t = document.createElement("textarea"); t.value = url; document.body.appendChild(t);
      t.select(); document.execCommand("copy"); t.remove(); done();
    }}
  }});
  // the text below follows the address: a fragment's rerun (a click in a tree view) changes the
  // address without drawing the sidebar again; one timer per page, replaced on each rerun
  clearInterval(window.__twLinkSync);
  window.__twLinkSync = setInterval(() => {{
    const code = document.querySelector('[data-testid="stSidebar"] p.tw-link-note code');
    if (!code) return;
    let want = "/" + window.location.pathname.split("/").pop() + window.location.search;
    try {{ want = decodeURIComponent(want); }} catch (e) {{}}
    if (want.length > 160) want = want.slice(0, 157) + "\u2026";
    if (code.textContent !== want) code.textContent = want;
  }}, 500);
}})();
</script>""", unsafe_allow_javascript=True)


def tree_from_query(page: str) -> None:
    """Make the tree of a link (``?tree=``) just opened on ``page`` the current tree, unless it
    already is. A tree that cannot be read is said in one line, and the current tree stays."""
    raw = arrived(page, "tree")
    if raw is None:
        return
    current_tree()
    text = raw.strip()
    if text == TreeState().tree_link or not text:
        return
    try:
        limits.check("link_chars", len(text), "the tree of the link: characters")
        tree = link_tree(text)
    except EngineError as exc:
        st.warning(f"The link's tree is not usable: {exc}. Showing {tree_source()}.", icon=":material/link_off:")
        return
    shown = text if len(text) <= 40 else text[:37] + "..."
    set_tree(tree, f"link tree={shown}", link=text)
