"""A page of the app declared once (:class:`PageSpec`), the table of pages, and links to them.

A link is relative to the app's root: ``/online_marginals?tree=random:200:3&k=3&vertex=17``. It
names a page of a :class:`PageTable` and gives values to the page's settings (each a
:class:`~workbench.declarations.settings.Setting`) and to the settings every page has
(:data:`GLOBAL_SETTINGS`: ``tree``, see :func:`workbench.declarations.tree_text.tree_from_link`, and
``lesson`` / ``step``, the lesson panel). The app's own table is :data:`workbench.declarations.page_table.PAGES`;
a test builds small tables of its own.

>>> from workbench.declarations.page_table import PAGES
>>> link = PAGES.parse_link("/cover_inspector?tree=figure1&root=1&t=2")
>>> link.page.title, link.values["t"]
('Cover Inspector', 2)
>>> PAGES.build_link("cover_inspector", {"tree": "figure1", "t": 2})
'/cover_inspector?tree=figure1&t=2'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from engine.errors import EngineError, InvalidParameterError
from engine.inference.evidence import evidence_vectors, vertex_index
from engine.networks import read_sample_network
from engine.params import declared
from engine.trees.model import Tree
from workbench.declarations.settings import EVIDENCE, INT, TEXT, TREE, VERTEX, Setting, format_value
from workbench.declarations.tree_text import tree_from_link

__all__ = ["GLOBAL_SETTINGS", "MAX_LINK_CHARS", "Link", "PageSpec", "PageTable", "check_link", "link_tree"]

#: Longest link read (a Newick tree inside it has its own limit, ``link_chars``).
MAX_LINK_CHARS = 8_000

GLOBAL_SETTINGS: tuple[Setting, ...] = (
    Setting("tree", TREE, "the tree the page works on"),
    Setting("lesson", TEXT, "the lesson open in the lesson panel (its file name without .md)"),
    Setting("step", INT, "the step of the open lesson (1 = the first)", lo=1, hi=200),
)


@dataclass(frozen=True, eq=False)
class PageSpec:
    """One page of the app: everything the navigation, the address bar, the widgets, the lesson
    checker and the run configuration need to know about it.

    url_path : its address (``/`` + url_path); its script is ``workbench/pages/<url_path>.py``.
    title, section, icon : its entry in the menu (``icon``: a Material Symbols name, ``:material/...:``).
    settings : its own settings (the :data:`GLOBAL_SETTINGS` come on top), in the order links write them.
    prefix : the session-state prefix of its widgets (a setting's key is ``prefix_name`` unless it
        names its own).
    tree_sizes : (min, max) vertices of a tree the page shows; a link outside is refused.
    uses_tree : whether the page shows the current tree (its links then carry ``tree=``).
    tree_check : ``tree_check(values, tree)`` raises an :class:`~engine.errors.EngineError` when a
        link's values do not fit its tree in a way no single setting says (a round beyond the
        cover's last); ``values`` are the link's own (no defaults added).
    build : ``build(fields, values, tree)`` -> the page's run configuration, ``fields`` being what
        the settings with a ``field`` give (:meth:`run_config`).
    config : the class of that run configuration; a setting whose ``field`` it declares
        (:func:`engine.params.declared`) takes from the declaration what the page leaves out
        (:meth:`~workbench.declarations.settings.Setting.declared_by`).
    """

    url_path: str
    title: str
    section: str
    icon: str
    settings: tuple[Setting, ...] = ()
    prefix: str = ""
    tree_sizes: tuple[int, int] = (1, 10**9)
    uses_tree: bool = True
    tree_check: Callable[[dict, Tree], None] | None = None
    build: Callable[[dict, dict, Tree | None], Any] | None = None
    config: type | None = None

    def __post_init__(self):
        names = [s.name for s in GLOBAL_SETTINGS + self.settings]
        if len(names) != len(set(names)):
            raise ValueError(f"page {self.url_path}: a setting is declared twice")
        params = declared(self.config) if self.config is not None else {}
        object.__setattr__(self, "settings", tuple(
            s.declared_by(params[s.field], f"{self.config.__name__}.{s.field}") if s.field in params else s
            for s in self.settings))
        for s in self.settings:
            if not s.kind:
                raise ValueError(f"setting {s.name}: give its kind (no declaration of field {s.field!r} on "
                                 f"{getattr(self.config, '__name__', 'a page without config')})")
        # made once: every bound widget looks its setting up on every run of the page
        object.__setattr__(self, "_all", {s.name: s for s in GLOBAL_SETTINGS + self.settings})

    @property
    def all_settings(self) -> Mapping[str, Setting]:
        """Every setting of the page, the global ones first, by name (shared: not to be changed)."""
        return self._all

    def setting(self, name: str) -> Setting:
        got = self.all_settings.get(name)
        if got is None:
            raise InvalidParameterError(
                f"page /{self.url_path} has no parameter {name!r}; it reads {', '.join(self.all_settings)}")
        return got

    def key(self, name: str) -> str:
        """The session-state key of the widget of setting ``name``."""
        s = self.setting(name)
        return s.key or f"{self.prefix}_{name}"

    def defaults(self) -> dict[str, Any]:
        """The value of every setting when a link gives none."""
        return {s.name: s.default for s in GLOBAL_SETTINGS + self.settings}

    def with_defaults(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` completed with the page's defaults."""
        out = self.defaults()
        out.update({k: v for k, v in values.items() if v is not None})
        return out

    def parse_query(self, query: Mapping[str, Any], *, strict: bool = True):
        """Typed values of the page's query parameters.

        ``query`` maps names to strings (or lists of strings: the last one counts, as in
        ``st.query_params``). With ``strict``, the first bad or unknown parameter raises
        :class:`~engine.errors.InvalidParameterError`; otherwise ``(values, errors)`` is returned
        with every bad parameter left out of ``values`` and described in ``errors`` (one line
        each), so a page can open with its defaults and say what it ignored.
        """
        known = self.all_settings
        values: dict[str, Any] = {}
        errors: list[str] = []
        for name, raw in query.items():
            if isinstance(raw, (list, tuple)):
                raw = raw[-1] if raw else ""
            try:
                p = known.get(name)
                if p is None:
                    raise InvalidParameterError(
                        f"page /{self.url_path} has no parameter {name!r}; it reads {', '.join(known)}")
                values[name] = p.parse(raw)
            except EngineError as exc:  # a bad value, or one beyond a named limit
                if strict:
                    raise
                errors.append(str(exc))
        return values if strict else (values, errors)

    def run_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` without the settings of what is only shown (:attr:`Setting.view`): the
        settings whose change makes the results on the page those of other settings."""
        return {k: v for k, v in values.items() if not self.setting(k).view}

    def run_config(self, values: Mapping[str, Any], tree: Tree | None = None):
        """The run configuration of the page for ``values`` (a link's, or its widgets'; missing
        ones take the defaults) on ``tree``: every setting with a ``field`` gives that field,
        :attr:`build` the rest. None for a page without one."""
        if self.build is None:
            return None
        v = self.with_defaults(values)
        fields = {s.field: s.config_value(v[s.name]) for s in self.settings
                  if s.field and v.get(s.name) is not None}
        return self.build(fields, v, tree)


@dataclass(frozen=True)
class Link:
    """A parsed link: its page, the typed values it gives, the raw strings, and its canonical text."""

    page: PageSpec
    values: dict[str, Any]
    raw: dict[str, str] = field(default_factory=dict)
    url: str = ""


class PageTable(Mapping[str, PageSpec]):
    """The pages of an app in menu order, by ``url_path``; ``default`` is served at ``/``."""

    def __init__(self, pages: Iterable[PageSpec], *, default: str):
        self._pages = {p.url_path: p for p in pages}
        if default not in self._pages:
            raise ValueError(f"the default page {default!r} is not in the table")
        self.default = default

    def __getitem__(self, name: str) -> PageSpec:
        return self._pages[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pages)

    def __len__(self) -> int:
        return len(self._pages)

    @contextmanager
    def including(self, *pages: PageSpec):
        """This table with ``pages`` added (or, for an ``url_path`` it has, put in place of its own)
        while the ``with`` block runs: a temporary registry, for a test of a new page or setting."""
        saved = dict(self._pages)
        self._pages.update({p.url_path: p for p in pages})
        try:
            yield self
        finally:
            self._pages.clear()
            self._pages.update(saved)

    def page(self, path: PageSpec | str) -> PageSpec:
        """The page at ``path`` (``/ofde``, ``ofde``, or ``/`` for the default page)."""
        if isinstance(path, PageSpec):
            return path
        key = str(path).strip().strip("/") or self.default
        got = self._pages.get(key)
        if got is None:
            raise InvalidParameterError(f"unknown page /{key}; pages: " + ", ".join("/" + p for p in self._pages))
        return got

    def address(self, page: PageSpec | str) -> str:
        """The path of ``page`` in the app: ``/`` for the default page, else ``/url_path``."""
        spec = self.page(page)
        return "/" if spec.url_path == self.default else "/" + spec.url_path

    def parse_link(self, link: str) -> Link:
        """Parse and validate a link relative to the app root: ``/PAGE?NAME=VALUE&...``.

        Only the path and the query count; a scheme, host or fragment is refused, so a lesson
        cannot send a class elsewhere.
        """
        if not isinstance(link, str) or not link.strip():
            raise InvalidParameterError("a link must be a path such as /cover_inspector?tree=figure1")
        text = link.strip()
        if len(text) > MAX_LINK_CHARS:
            raise InvalidParameterError(f"the link has {len(text):,} characters; at most {MAX_LINK_CHARS:,} are read")
        parts = urlsplit(text)
        if parts.scheme or parts.netloc or parts.fragment or not text.startswith("/"):
            raise InvalidParameterError(f"link {text[:60]!r} must start with / and stay inside the app "
                                        "(a page path and its query, e.g. /ofde?vars=12)")
        spec = self.page(parts.path)
        raw: dict[str, str] = {}
        for k, v in parse_qsl(parts.query, keep_blank_values=True, strict_parsing=False):
            if k in raw:
                raise InvalidParameterError(f"parameter {k} is given twice in {text[:80]!r}")
            raw[k] = v
        values = spec.parse_query(raw)
        return Link(spec, values, raw, self.build_link(spec, values))

    def build_link(self, page: PageSpec | str, values: Mapping[str, Any], *, drop_defaults: bool = False) -> str:
        """The link to ``page`` with ``values`` (None values left out), settings in table order.

        Every value is checked by parsing its text back, so a link this builds always opens.
        ``drop_defaults`` leaves out values equal to the setting's default.
        """
        spec = self.page(page)
        for name in values:
            spec.setting(name)  # unknown names raise
        parts = []
        for name, p in spec.all_settings.items():
            v = values.get(name)
            if v is None or (drop_defaults and v == p.default):
                continue
            text = format_value(p, v)
            p.parse(text)
            parts.append(f"{name}={quote(text, safe='(),:/=')}")
        return self.address(spec) + ("?" + "&".join(parts) if parts else "")

    def markdown(self) -> str:
        """The pages and their settings as Markdown (the reference in ``docs/lessons.md``)."""
        def esc(x: str) -> str:
            return x.replace("|", "\\|")

        def rows(settings) -> list[str]:
            out = ["| parameter | values | default | what it sets |", "|---|---|---|---|"]
            for p in settings:
                d = "" if p.default is None else f"`{esc(format_value(p, p.default))}`"
                out.append(f"| `{p.name}` | {esc(p.describe())} | {d} | {esc(p.help)} |")
            return out

        lines = ["Every page:", ""] + rows(GLOBAL_SETTINGS)
        for page in self.values():
            lines += ["", f"### {page.title}: `{self.address(page)}`", ""]
            lines += rows(page.settings) if page.settings else ["No parameters of its own."]
        return "\n".join(lines) + "\n"


def link_tree(values: Mapping[str, Any], default: Tree | None = None):
    """``(tree, network)`` a link opens on: its network's tree, its ``tree``, else ``default``."""
    if values.get("network"):
        net = read_sample_network(values["network"])
        return net.tree, net
    if values.get("tree"):
        return tree_from_link(values["tree"]), None
    return default, None


def check_link(link: Link, tree: Tree | None = None) -> None:
    """Check a parsed link's values against the tree it opens on (names, sizes, ranges that depend
    on the tree). ``tree`` is the link's own tree when it gives one; pass the tree the page will
    show otherwise. Raises :class:`~engine.errors.EngineError` naming the parameter at fault.
    """
    v = link.values
    spec = link.page
    network = None
    if "network" in v:
        tree, network = link_tree(v)
        if "tree" in v:
            raise InvalidParameterError("give either tree or network: a network brings its own tree")
    elif "tree" in v:
        tree, _ = link_tree(v)
    needs_tree = [p.name for p in spec.settings if p.kind in (VERTEX, EVIDENCE) and p.name in v]
    if tree is None:
        if needs_tree:
            raise InvalidParameterError(f"{', '.join(needs_tree)} name vertices: the link must give tree=")
        return
    lo, hi = spec.tree_sizes
    if not lo <= tree.n <= hi:
        raise InvalidParameterError(f"page /{spec.url_path} shows trees of {lo}.."
                                    f"{hi if hi < 10**9 else 'any number of'} vertices; this one has {tree.n:,}")
    for p in spec.settings:
        if p.kind == VERTEX and p.name in v:
            i = vertex_index(tree, v[p.name], f"parameter {p.name}={v[p.name]}")
            if p.leaf and not tree.is_leaf(i):
                raise InvalidParameterError(f"parameter {p.name}={v[p.name]}: not a leaf of the tree")
    k = network.k if network is not None else v.get("k", spec.all_settings["k"].default
                                                    if "k" in spec.all_settings else None)
    if "evidence" in v:
        evidence_vectors(v["evidence"], tree, k, network.states if network is not None else None)
    if "psi" in v and len(v["psi"]) != k:
        raise InvalidParameterError(f"parameter psi is {len(v['psi'])} x {len(v['psi'])}; k = {k}")
    if spec.tree_check is not None:
        spec.tree_check(v, tree)
