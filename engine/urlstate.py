"""The app's state in links: every page, the query parameters it reads, and their codecs.

One declarative table, :data:`PAGES`, says which pages exist (their address in the app), which
query parameters each understands, of what type, in what range, with what default. The lesson
checker validates a lesson's links against it, and each page of the app reads and writes its
settings through it, so a link sent to a student or a reload (F5) brings back the exact view.

A link is relative to the app's root: ``/online_marginals?tree=random:200:3&k=3&vertex=17``.
Parameters every page accepts (:data:`GLOBAL_PARAMS`): ``tree`` (a sample, a generator spec, the
Figure 1 tree or a Newick text, see :func:`engine.trees.spec.tree_from_link`), and ``lesson`` /
``step`` (the lesson panel).

>>> link = parse_link("/cover_inspector?tree=figure1&root=1&t=2")
>>> link.page.title, link.values["t"]
('Cover Inspector', 2)
>>> build_link("cover_inspector", {"tree": "figure1", "t": 2})
'/cover_inspector?tree=figure1&t=2'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from engine.errors import EngineError, InvalidParameterError
from engine.reproduce import PAPERS as REPRODUCIBLE

__all__ = [
    "DEFAULT_PAGE",
    "GLOBAL_PARAMS",
    "PAGES",
    "Link",
    "PageSchema",
    "Param",
    "address",
    "build_link",
    "check_link",
    "evidence_vectors",
    "format_evidence",
    "format_matrix",
    "format_value",
    "page_schema",
    "parse_evidence",
    "parse_link",
    "parse_matrix",
    "parse_query",
]

# parameter kinds
INT, FLOAT, CHOICE, BOOL, TEXT, VERTEX, TREE, EVIDENCE, MATRIX = (
    "int", "float", "choice", "bool", "text", "vertex", "tree", "evidence", "matrix")
_KINDS = (INT, FLOAT, CHOICE, BOOL, TEXT, VERTEX, TREE, EVIDENCE, MATRIX)
#: Longest value any parameter takes (a Newick tree has its own, larger limit).
MAX_VALUE_CHARS = 400
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


@dataclass(frozen=True)
class Param:
    """One query parameter.

    name : its name in the link (``?k=3``); in the app, also the key of the widget it drives.
    kind : ``int``, ``float``, ``choice``, ``bool``, ``text``, ``vertex`` (a vertex name of the
        page's tree), ``tree`` (see :func:`engine.trees.spec.tree_from_link`), ``evidence`` (see
        :func:`parse_evidence`) or ``matrix`` (see :func:`parse_matrix`).
    help : one line a user reads.
    default : the page's value when the link does not give one (None: nothing chosen).
    lo, hi : the inclusive range of an ``int`` or ``float``.
    choices : the values of a ``choice`` (tokens, not labels).
    leaf : a ``vertex`` that must be a leaf of the tree.
    """

    name: str
    kind: str
    help: str
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    leaf: bool = False

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"parameter {self.name}: unknown kind {self.kind!r}")
        if self.kind == CHOICE and not self.choices:
            raise ValueError(f"parameter {self.name}: a choice needs choices")

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
        return "text"

    def parse(self, raw: str) -> Any:
        """The typed value of ``raw`` (a decoded query value); a one-line error names the parameter."""
        if not isinstance(raw, str):
            raise self._bad(raw)
        if self.kind == TREE:
            from engine import limits

            limits.check("link_chars", len(raw.strip()), "parameter tree: characters")
            if not raw.strip():
                raise self._bad(raw)
            return raw.strip()
        if len(raw) > MAX_VALUE_CHARS:
            raise InvalidParameterError(f"parameter {self.name} has {len(raw):,} characters; at most "
                                        f"{MAX_VALUE_CHARS} are read")
        s = raw.strip()
        if self.kind == INT:
            try:
                v = int(s)
            except ValueError:
                raise self._bad(raw) from None
            if not self.lo <= v <= self.hi:
                raise self._bad(raw)
            return v
        if self.kind == FLOAT:
            try:
                v = float(s)
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
        if not s:
            raise self._bad(raw)
        return s

    def _bad(self, raw) -> InvalidParameterError:
        shown = raw if isinstance(raw, str) and len(raw) <= 60 else (str(raw)[:57] + "...")
        return InvalidParameterError(f"parameter {self.name}={shown!r}: expected {self.describe()}")


@dataclass(frozen=True)
class PageSchema:
    """One page of the app and the query parameters it reads.

    url_path : its address (``/`` + url_path), also the stem of its script.
    script : the Streamlit script, relative to the repository root.
    title : the menu title.
    params : its own parameters (the :data:`GLOBAL_PARAMS` come on top).
    tree_sizes : (min, max) vertices of a tree the page shows; a link outside is refused.
    uses_tree : whether the page shows the current tree (its links then carry ``tree=``).
    """

    url_path: str
    script: str
    title: str
    params: tuple[Param, ...] = ()
    tree_sizes: tuple[int, int] = (1, 10**9)
    uses_tree: bool = True

    @property
    def all_params(self) -> dict[str, Param]:
        return {p.name: p for p in GLOBAL_PARAMS + self.params}

    def param(self, name: str) -> Param:
        got = self.all_params.get(name)
        if got is None:
            raise InvalidParameterError(
                f"page /{self.url_path} has no parameter {name!r}; it reads "
                f"{', '.join(self.all_params)}")
        return got

    def defaults(self) -> dict[str, Any]:
        """The value of every parameter when a link gives none."""
        return {p.name: p.default for p in GLOBAL_PARAMS + self.params}


GLOBAL_PARAMS: tuple[Param, ...] = (
    Param("tree", TREE, "the tree the page works on"),
    Param("lesson", TEXT, "the lesson open in the lesson panel (its file name without .md)"),
    Param("step", INT, "the step of the open lesson (1 = the first)", lo=1, hi=200),
)

_SEED = {"lo": 0, "hi": 10**6, "default": 0}

PAGES: dict[str, PageSchema] = {p.url_path: p for p in (
    PageSchema("lessons", "workbench/pages/lessons.py", "Lessons", uses_tree=False),
    PageSchema("tree_studio", "workbench/pages/tree_studio.py", "Tree Studio", (
        Param("vertex", VERTEX, "the selected vertex"),
        Param("source", CHOICE, "the open loading tab", "samples",
              choices=("samples", "upload", "paste", "generate")),
    )),
    PageSchema("cover_inspector", "workbench/pages/cover_inspector.py", "Cover Inspector", (
        Param("root", VERTEX, "the leaf s the cover is rooted at", leaf=True),
        Param("cover", CHOICE, "the optimal (2,s)-cover of Figure 1 or the rake-only cover",
              "optimal", choices=("optimal", "rake")),
        Param("t", INT, "the round t: the contracted tree T_t and its mergeable vertices", 0,
              lo=0, hi=10_000),
        Param("vertex", VERTEX, "the inspected vertex (its chain of ancestors in D)"),
        Param("node", TEXT, "the inspected component of D, by name (its splitting vertex, or "
              "parent|child for an edge)"),
        Param("tab", CHOICE, "the open tab", "rounds",
              choices=("rounds", "components", "optimality", "icicle", "growth")),
    ), tree_sizes=(2, 10**9)),
    PageSchema("online_marginals", "workbench/pages/online_marginals.py", "Online Marginals", (
        Param("k", INT, "the number of labels", 2, lo=2, hi=5),
        Param("coupling", FLOAT, "the Potts coupling of every edge (diagonal e^coupling)", 1.0,
              lo=-3.0, hi=3.0),
        Param("psi", MATRIX, "one k x k edge potential for every edge (rows: the parent's label); "
              "replaces the coupling"),
        Param("cover", CHOICE, "the cover the model walks", "optimal", choices=("optimal", "rake")),
        Param("network", TEXT, "a sample network (sample_networks/) with its own potentials; "
              "replaces the tree, k and the edge potential"),
        Param("evidence", EVIDENCE, "evidence set when the page opens"),
        Param("vertex", VERTEX, "the selected vertex (its marginal is shown)"),
    ), tree_sizes=(3, 10**9)),
    PageSchema("belief_propagation", "workbench/pages/belief_propagation.py", "Belief Propagation", (
        Param("k", INT, "the number of labels", 2, lo=2, hi=4),
        Param("coupling", FLOAT, "the Potts coupling of every edge", 0.8, lo=-2.0, hi=2.0),
        Param("psi", MATRIX, "one k x k edge potential ψ for every edge (rows: the parent's label); "
              "replaces the coupling"),
        Param("seed", INT, "the seed of the random node potentials φ", **_SEED),
        Param("phi", EVIDENCE, "node potentials φ replacing the seeded ones at some vertices "
              "(vertex=w0/w1/...)"),
        Param("network", TEXT, "a sample network (sample_networks/) with its own φ and ψ; replaces "
              "the tree, k, the coupling and the seed"),
        Param("evidence", EVIDENCE, "hard or soft evidence multiplying φ"),
        Param("vertex", VERTEX, "the selected vertex"),
        Param("messages", INT, "messages sent so far in the sequential schedule", 0, lo=0, hi=10_000),
        Param("tab", CHOICE, "the open tab", "sequential", choices=("sequential", "parallel", "elimination", "tables")),
        Param("iteration", INT, "the iteration t of the parallel schedule", 1, lo=0, hi=10_000),
        Param("speed", FLOAT, "messages per second when playing the schedule", 1.0, lo=0.25, hi=10.0),
        Param("star", INT, "leaves of the star in the elimination tab", 6, lo=3, hi=12),
        Param("elim_k", INT, "labels |X| in the elimination tab", 2, lo=2, hi=4),
    ), tree_sizes=(2, 40)),
    PageSchema("tree_hedge", "workbench/pages/tree_hedge.py", "TREE-HEDGE", (
        Param("k", INT, "the number of actions", 3, lo=2, hi=5),
        Param("trials", INT, "the number of trials T", 2000, lo=10, hi=200_000),
        Param("eta", FLOAT, "the learning rate η", 1.0, lo=0.05, hi=4.0),
        Param("coupling", FLOAT, "the Potts coupling P (P on the diagonal)", 0.9, lo=0.0, hi=1.0),
        Param("env", CHOICE, "the environment", "piecewise", choices=("piecewise", "iid", "switching")),
        Param("switches", INT, "edges where the best action changes", 3, lo=0, hi=10**6),
        Param("seed", INT, "the seed of the environment", **_SEED),
        Param("run", BOOL, "start the run when the page opens", False),
        Param("trial", INT, "the trial the maps show (the last snapshot at or before it)", lo=0, hi=200_000),
        Param("learner", CHOICE, "the learner of the maps", "tree_hedge",
              choices=("tree_hedge", "independent_hedge", "shared_hedge")),
        Param("view", CHOICE, "the loss curves: above the best comparator, or cumulative", "excess",
              choices=("excess", "cumulative")),
        Param("task", VERTEX, "a task (vertex) to point out in the maps"),
    ), tree_sizes=(2, 10**9)),
    PageSchema("ofde", "workbench/pages/ofde.py", "OFDE vs Chow-Liu", (
        Param("data", CHOICE, "the data: a synthetic Markov tree or a benchmark", "synthetic",
              choices=("synthetic", "benchmark")),
        Param("vars", INT, "variables of the synthetic Markov tree", 12, lo=4, hi=40),
        Param("train", CHOICE, "training samples of the synthetic source", "3000",
              choices=("500", "1000", "2000", "3000", "5000", "10000", "20000")),
        Param("data_seed", INT, "the seed of the synthetic data", **_SEED),
        Param("benchmark", CHOICE, "the benchmark", "nltcs", choices=("nltcs", "msnbc", "kdd", "plants")),
        Param("experts", CHOICE, "Markov trees or Markov forests", "trees", choices=("trees", "forests")),
        Param("mixture", INT, "the mixture size k (0 = ln n)", 0, lo=0, hi=20),
        Param("scale", CHOICE, "the perturbation scale (1 = the paper's)", "1",
              choices=("0.01", "0.03", "0.1", "0.3", "1")),
        Param("rounds", INT, "rounds (0 = one pass over the training set)", 0, lo=0, hi=10**7),
        Param("seed", INT, "the seed of the learner", **_SEED),
        Param("run", BOOL, "start the run when the page opens", False),
        Param("tab", CHOICE, "the open tab", "curve", choices=("curve", "structure", "time", "tradeoff")),
    ), uses_tree=False),
    PageSchema("rta", "workbench/pages/rta.py", "RTA Multilabel", (
        Param("data", TEXT, "synthetic, or the name of a Mulan benchmark in the data folder", "synthetic"),
        Param("examples", INT, "examples of the synthetic data", 300, lo=60, hi=3000),
        Param("labels", INT, "labels of the synthetic data", 6, lo=2, hi=14),
        Param("trees", INT, "random spanning trees", 10, lo=1, hi=40),
        Param("max_k", CHOICE, "the largest K of the K-best lists", "32",
              choices=("2", "4", "8", "16", "32", "64")),
        Param("c", CHOICE, "the margin slack C, or inner validation", "inner",
              choices=("inner", "0.01", "0.1", "0.5", "1", "10", "50", "100")),
        Param("folds", INT, "cross-validation folds", 3, lo=2, hi=10),
        Param("passes", INT, "passes over the training set", 15, lo=1, hi=200),
        Param("baseline", BOOL, "the LinearSVC baseline on the same folds", True),
        Param("seed", INT, "the seed", **_SEED),
        Param("run", BOOL, "start the run when the page opens", False),
    ), uses_tree=False),
    PageSchema("bhtmm", "workbench/pages/bhtmm.py", "Hidden Tree Markov Models", (
        Param("source", CHOICE, "the data", "synthetic", choices=("synthetic", "symm", "inex05")),
        Param("task", CHOICE, "node labelling or tree classification", "label", choices=("label", "classify")),
        Param("model", CHOICE, "TF-BHTMM or SP-BHTMM", "tf", choices=("tf", "sp")),
        Param("states", INT, "hidden states C", 10, lo=2, hi=12),
        Param("iterations", INT, "training iterations", 30, lo=1, hi=200),
        Param("synthetic", INT, "synthetic training trees per class", 40, lo=5, hi=200),
        Param("lmin", INT, "first important child position L_min (TF)", 1, lo=0, hi=8),
        Param("lmax", INT, "last important child position L_max (TF)", 3, lo=0, hi=8),
        Param("phi", FLOAT, "the size prior φ (TF)", 2.0, lo=0.0, hi=10.0),
        Param("sampler", CHOICE, "the hidden-state sampler (TF)", "exact", choices=("exact", "prior")),
        Param("init", CHOICE, "the start of TF-BHTMM", "sp", choices=("sp", "prior")),
        Param("sp", CHOICE, "the SP-BHTMM implementation", "exact", choices=("exact", "paper", "authors")),
        Param("seed", INT, "the seed", **_SEED),
        Param("run", BOOL, "start training when the page opens", False),
        Param("test_tree", INT, "the test tree shown (1 = the first)", 1, lo=1, hi=100_000),
    ), uses_tree=False),
    PageSchema("runs", "workbench/pages/runs.py", "Runs", (
        Param("record", TEXT, "the recorded run to open, by id"),
    ), uses_tree=False),
    PageSchema("reproduce", "workbench/pages/reproduce.py", "Reproduce", (
        Param("paper", CHOICE, "the paper whose protocol runs", "cover", choices=tuple(REPRODUCIBLE)),
        Param("quick", BOOL, "the quick (reduced) protocol", True),
        Param("report", TEXT, "the report shown: a reproduction's run id in the run history"),
        Param("run", BOOL, "start the reproduction when the page opens", False),
    ), uses_tree=False),
)}


#: The page the app opens at ``/``: the lessons, where a class starts (its own address also works).
DEFAULT_PAGE = "lessons"


def address(page: PageSchema | str) -> str:
    """The path of ``page`` in the app: ``/`` for :data:`DEFAULT_PAGE`, else ``/url_path``."""
    schema = page if isinstance(page, PageSchema) else page_schema(page)
    return "/" if schema.url_path == DEFAULT_PAGE else "/" + schema.url_path


def page_schema(path: str) -> PageSchema:
    """The page at ``path`` (``/ofde``, ``ofde``, or ``/`` for :data:`DEFAULT_PAGE`)."""
    key = str(path).strip().strip("/")
    if key == "":
        key = DEFAULT_PAGE
    got = PAGES.get(key)
    if got is None:
        raise InvalidParameterError(f"unknown page /{key}; pages: "
                                    + ", ".join("/" + p for p in PAGES))
    return got


@dataclass(frozen=True)
class Link:
    """A parsed link: its page, the typed values it gives, and the raw strings."""

    page: PageSchema
    values: dict[str, Any]
    raw: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return build_link(self.page.url_path, self.values)


def parse_query(page: PageSchema | str, query: Mapping[str, Any], *, strict: bool = True):
    """Typed values of a page's query parameters.

    ``query`` maps names to strings (or lists of strings: the last one counts, as in
    ``st.query_params``). With ``strict``, the first bad or unknown parameter raises
    :class:`~engine.errors.InvalidParameterError`; otherwise ``(values, errors)`` is returned with
    every bad parameter left out of ``values`` and described in ``errors`` (one line each), so a
    page can open with its defaults and say what it ignored.
    """
    schema = page if isinstance(page, PageSchema) else page_schema(page)
    known = schema.all_params
    values: dict[str, Any] = {}
    errors: list[str] = []
    for name, raw in query.items():
        if isinstance(raw, (list, tuple)):
            raw = raw[-1] if raw else ""
        try:
            p = known.get(name)
            if p is None:
                raise InvalidParameterError(
                    f"page /{schema.url_path} has no parameter {name!r}; it reads {', '.join(known)}")
            values[name] = p.parse(raw)
        except EngineError as exc:  # a bad value, or one beyond a named limit
            if strict:
                raise
            errors.append(str(exc))
    return values if strict else (values, errors)


def parse_link(link: str) -> Link:
    """Parse and validate a link relative to the app root: ``/PAGE?NAME=VALUE&...``.

    Only the path and the query count; a scheme, host or fragment is refused, so a lesson cannot
    send a class elsewhere.
    """
    if not isinstance(link, str) or not link.strip():
        raise InvalidParameterError("a link must be a path such as /cover_inspector?tree=figure1")
    text = link.strip()
    if len(text) > 8_000:
        raise InvalidParameterError(f"the link has {len(text):,} characters; at most 8,000 are read")
    parts = urlsplit(text)
    if parts.scheme or parts.netloc or parts.fragment or not text.startswith("/"):
        raise InvalidParameterError(f"link {text[:60]!r} must start with / and stay inside the app "
                                    "(a page path and its query, e.g. /ofde?vars=12)")
    schema = page_schema(parts.path)
    pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=False)
    seen: set[str] = set()
    raw: dict[str, str] = {}
    for k, v in pairs:
        if k in seen:
            raise InvalidParameterError(f"parameter {k} is given twice in {text[:80]!r}")
        seen.add(k)
        raw[k] = v
    return Link(schema, parse_query(schema, raw), raw)


def format_value(p: Param, value: Any) -> str:
    """The text of ``value`` in a link (the inverse of :meth:`Param.parse`)."""
    if p.kind == BOOL:
        return "1" if value else "0"
    if p.kind == FLOAT:
        return _num(value)
    if p.kind == EVIDENCE:
        return value if isinstance(value, str) else format_evidence(value)
    if p.kind == MATRIX:
        return value if isinstance(value, str) else format_matrix(value)
    return str(value)


def build_link(page: PageSchema | str, values: Mapping[str, Any], *, drop_defaults: bool = False) -> str:
    """The link to ``page`` with ``values`` (None values left out), parameters in table order.

    Every value is checked by parsing its text back, so a link this builds always opens.
    ``drop_defaults`` leaves out values equal to the parameter's default.
    """
    schema = page if isinstance(page, PageSchema) else page_schema(page)
    known = schema.all_params
    for name in values:
        schema.param(name)  # unknown names raise
    parts = []
    for name, p in known.items():
        v = values.get(name)
        if v is None or (drop_defaults and v == p.default):
            continue
        text = format_value(p, v)
        p.parse(text)
        parts.append(f"{name}={quote(text, safe='(),:/=')}")
    return address(schema) + ("?" + "&".join(parts) if parts else "")


# ---------------------------------------------------------------------- evidence and matrices

def parse_evidence(text: str, *, what: str = "evidence") -> dict[str, Any]:
    """``"4=1,5=0.2/0.8,Smoker=yes"`` -> ``{"4": 1, "5": (0.2, 0.8), "Smoker": "yes"}``.

    Items are separated by commas; each is ``VERTEX=LABEL`` (an integer label, or a state name of a
    network's variable) or ``VERTEX=W0/W1/...`` (soft evidence: one non-negative weight per label).
    The vertex name is everything before the last ``=``.

    >>> parse_evidence("4=1,5=0.2/0.8")
    {'4': 1, '5': (0.2, 0.8)}
    """
    out: dict[str, Any] = {}
    if not text.strip():
        return out
    for item in text.split(","):
        name, eq, val = item.strip().rpartition("=")
        name, val = name.strip(), val.strip()
        if not eq or not name or not val:
            raise InvalidParameterError(f"{what}: {item.strip()!r} is not VERTEX=LABEL or VERTEX=W0/W1/...")
        if name in out:
            raise InvalidParameterError(f"{what}: vertex {name} is given twice")
        if "/" in val:
            try:
                w = tuple(float(x) for x in val.split("/"))
            except ValueError:
                raise InvalidParameterError(f"{what}: soft evidence {val!r} at {name} must be numbers "
                                            "separated by /") from None
            if not all(math.isfinite(x) and x >= 0 for x in w) or not any(w):
                raise InvalidParameterError(f"{what}: soft evidence at {name} must be finite weights >= 0, "
                                            f"not all zero, got {val}")
            out[name] = w
        elif re.fullmatch(r"[0-9]+", val):
            out[name] = int(val)
        else:
            out[name] = val
    return out


def format_evidence(evidence: Mapping[str, Any]) -> str:
    """The inverse of :func:`parse_evidence`; a vertex name with ``,`` cannot go into a link."""
    items = []
    for name, val in evidence.items():
        name = str(name)
        if "," in name or not name.strip() or name != name.strip():
            raise InvalidParameterError(f"vertex {name!r} cannot be named in evidence of a link "
                                        "(a comma or surrounding blanks in its name)")
        if isinstance(val, (tuple, list)):
            items.append(f"{name}=" + "/".join(_num(x) for x in val))
        else:
            items.append(f"{name}={val}")
    return ",".join(items)


def evidence_vectors(evidence: Mapping[str, Any], tree, k: int, states=None) -> dict[int, list[float]]:
    """Evidence by vertex index as length-``k`` weight vectors (hard evidence is one-hot).

    ``states`` (per vertex, the state names of a network's variables) lets labels be state names.
    Raises :class:`~engine.errors.InvalidParameterError` naming the vertex at fault.
    """
    out: dict[int, list[float]] = {}
    for name, val in evidence.items():
        v = _vertex(tree, name, f"evidence {name}={val if not isinstance(val, tuple) else '/'.join(map(str, val))}")
        card = len(states[v]) if states is not None else k  # a network's variable may have fewer states
        if isinstance(val, tuple):
            if len(val) != card:
                raise InvalidParameterError(f"soft evidence at {name} has {len(val)} weights; {name} has "
                                            f"{card} {'states' if states is not None else 'labels'}")
            out[v] = [float(x) for x in val] + [0.0] * (k - card)
            continue
        label = val
        if isinstance(val, str):
            names = list(states[v]) if states is not None else []
            if val not in names:
                raise InvalidParameterError(f"evidence {name}={val}: {name} has no state {val!r}"
                                            + (f"; states: {', '.join(names)}" if names else ""))
            label = names.index(val)
        if not 0 <= label < card:
            raise InvalidParameterError(f"evidence {name}={val}: labels are 0..{card - 1}")
        out[v] = [1.0 if a == label else 0.0 for a in range(k)]
    return out


def _vertex(tree, name, what: str) -> int:
    from engine.errors import UnknownVertexError

    try:
        return tree.index(name)
    except UnknownVertexError:
        raise UnknownVertexError(f"{what}: the tree has no vertex named {name}") from None


def parse_matrix(text: str, *, what: str = "matrix") -> tuple[tuple[float, ...], ...]:
    """``"2,1;1,2"`` -> ``((2.0, 1.0), (1.0, 2.0))``: a square matrix of finite numbers >= 0."""
    try:
        rows = tuple(tuple(float(x) for x in r.split(",")) for r in text.split(";"))
    except ValueError:
        raise InvalidParameterError(f"{what}: {text[:60]!r} is not numbers separated by , and ;") from None
    k = len(rows)
    if k < 2 or any(len(r) != k for r in rows):
        raise InvalidParameterError(f"{what}: expected a square matrix of at least 2 x 2, rows separated by ;")
    if not all(math.isfinite(x) and x >= 0 for r in rows for x in r):
        raise InvalidParameterError(f"{what}: entries must be finite and >= 0")
    return rows


def format_matrix(m) -> str:
    return ";".join(",".join(_num(x) for x in r) for r in m)


def _num(x) -> str:
    """The shortest text that reads back as exactly the same double (``2`` rather than ``2.0``)."""
    v = float(x)
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def pages_markdown() -> str:
    """The table of pages and parameters as Markdown (the reference in ``docs/lessons.md``)."""
    def esc(x: str) -> str:
        return x.replace("|", "\\|")

    def rows(params) -> list[str]:
        out = ["| parameter | values | default | what it sets |", "|---|---|---|---|"]
        for p in params:
            d = "" if p.default is None else f"`{esc(format_value(p, p.default))}`"
            out.append(f"| `{p.name}` | {esc(p.describe())} | {d} | {esc(p.help)} |")
        return out

    lines = ["Every page:", ""] + rows(GLOBAL_PARAMS)
    for page in PAGES.values():
        lines += ["", f"### {page.title}: `{address(page)}`", ""]
        lines += rows(page.params) if page.params else ["No parameters of its own."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- checks against the tree

def check_link(link: Link, tree=None) -> None:
    """Check a parsed link's values against the tree it opens on (names, sizes, ranges that depend
    on the tree). ``tree`` is the link's own tree when it gives one; pass the tree the page will
    show otherwise. Raises :class:`~engine.errors.EngineError` naming the parameter at fault.
    """
    from engine.trees.spec import tree_from_link

    v = link.values
    schema = link.page
    network = None
    if "network" in v:
        from engine.networks import read_sample_network

        network = read_sample_network(v["network"])
        if "tree" in v:
            raise InvalidParameterError("give either tree or network: a network brings its own tree")
        tree = network.tree
    elif "tree" in v:
        tree = tree_from_link(v["tree"])
    needs_tree = [p.name for p in schema.params if p.kind in (VERTEX, EVIDENCE) and p.name in v]
    if tree is None:
        if needs_tree:
            raise InvalidParameterError(f"{', '.join(needs_tree)} name vertices: the link must give tree=")
        return
    lo, hi = schema.tree_sizes
    if not lo <= tree.n <= hi:
        raise InvalidParameterError(f"page /{schema.url_path} shows trees of {lo}.."
                                    f"{hi if hi < 10**9 else 'any number of'} vertices; this one has {tree.n:,}")
    for p in schema.params:
        if p.kind == VERTEX and p.name in v:
            i = _vertex(tree, v[p.name], f"parameter {p.name}={v[p.name]}")
            if p.leaf and not tree.is_leaf(i):
                raise InvalidParameterError(f"parameter {p.name}={v[p.name]}: not a leaf of the tree")
    k = network.k if network is not None else v.get("k", schema.all_params["k"].default
                                                    if "k" in schema.all_params else None)
    if "evidence" in v:
        evidence_vectors(v["evidence"], tree, k, network.states if network is not None else None)
    if "psi" in v and len(v["psi"]) != k:
        raise InvalidParameterError(f"parameter psi is {len(v['psi'])} x {len(v['psi'])}; k = {k}")
    check = _PAGE_CHECKS.get(schema.url_path)
    if check is not None:
        check(v, tree)


def _check_cover(v, tree) -> None:
    if not {"t", "node", "root"} & set(v):
        return
    from engine.cover import optimal_cover, rake_only_cover

    make = rake_only_cover if v.get("cover") == "rake" else optimal_cover
    cover = make(tree, tree.index(v["root"]) if "root" in v else None)
    if v.get("t", 0) > cover.rounds:
        raise InvalidParameterError(f"parameter t={v['t']}: this cover has rounds 0..{cover.rounds}")
    if "node" in v and v["node"] not in cover.node_names():
        raise InvalidParameterError(f"parameter node={v['node']}: not a component of D "
                                    "(components are named by their splitting vertex, edges parent|child)")


def _check_bp(v, tree) -> None:
    if v.get("messages", 0) > 2 * (tree.n - 1):
        raise InvalidParameterError(f"parameter messages={v['messages']}: this tree sends "
                                    f"2(n-1) = {2 * (tree.n - 1)} messages")


def _check_hedge(v, tree) -> None:
    if v.get("switches", 0) > tree.n - 1:
        raise InvalidParameterError(f"parameter switches={v['switches']}: the tree has {tree.n - 1} edges")
    if v.get("trial", 0) > v.get("trials", 2000):
        raise InvalidParameterError(f"parameter trial={v['trial']}: the run has {v.get('trials', 2000)} trials")


_PAGE_CHECKS = {"cover_inspector": _check_cover, "belief_propagation": _check_bp, "tree_hedge": _check_hedge}
