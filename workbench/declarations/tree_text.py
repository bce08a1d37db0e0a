"""A tree as the text of a link's ``tree=`` value: a sample, a generator spec, ``figure1`` or Newick.

:func:`tree_from_link` reads the value (``random:1000:7``, ``primates``, ``((4,5)2,3)1;``);
:func:`tree_to_link` and :func:`generator_link` write it. A link opened by a class of 30 must not
cost the server more than a moment each, so the sizes a link may ask for are named limits of
:mod:`engine.limits`: ``link_vertices`` (a tree it generates) and ``link_chars`` (a Newick text:
browsers and proxies keep URLs to a few kilobytes).
"""

from __future__ import annotations

from pathlib import Path

from engine import limits
from engine.errors import EngineError, InvalidParameterError
from engine.trees.formats.newick import format_newick, parse_newick
from engine.trees.generators import GENERATORS, generate
from engine.trees.model import Tree
from engine.trees.samples import read_sample, sample_names

__all__ = ["PRESETS", "generator_link", "tree_from_link", "tree_to_link"]

#: Named trees a link may give besides samples and generator specs.
PRESETS = ("figure1",)
_GEN_OPTIONS = ("k", "m", "b", "spine", "legs")


def tree_from_link(value: str, *, samples: Path | None = None) -> Tree:
    """The tree a ``?tree=`` value names (already URL-decoded), with one-line errors.

    - a sample: ``lecture_5_vertices`` (its stem) or ``sample:lecture_5_vertices.csv``;
    - a generator spec ``KIND:N[:SEED][:OPTION=VALUE...]``, e.g. ``random:1000:7`` or
      ``star-of-paths:49:0:k=8:m=6`` (kinds of :data:`engine.trees.generators.GENERATORS`,
      options ``k``, ``m``, ``b``, ``spine``, ``legs``; seed 0 when omitted), within the limit
      ``link_vertices`` of :mod:`engine.limits`;
    - ``figure1``: the example tree of Figure 1 of *Online Sum-Product Computation over Trees*;
    - a Newick text (it contains ``(`` or ends with ``;``), within the limit ``link_chars``.

    >>> tree_from_link("random:1000:7").n
    1000
    >>> sorted(tree_from_link("((4,5)2,3)1;").named_edges())
    [('1', '2'), ('1', '3'), ('2', '4'), ('2', '5')]
    """
    if not isinstance(value, str):
        raise InvalidParameterError(f"a tree in a link must be text, got {type(value).__name__}")
    text = value.strip()
    if not text:
        raise InvalidParameterError("the tree of the link is empty")
    if "(" in text or text.endswith(";"):
        limits.check("link_chars", len(text), "the Newick tree of the link (give a sample name or a "
                     "generator spec such as random:1000:7 for a large tree)")
        try:
            return parse_newick(text)
        except EngineError as exc:
            raise type(exc)(f"the Newick tree of the link: {exc}") from None
    if text == "figure1":
        # start-up: importing engine.cover loads numba (a second); only this link needs it
        from engine.cover.examples import figure1_tree

        return figure1_tree()
    if text.startswith("sample:"):
        return read_sample(text.removeprefix("sample:"), samples)
    head, _, rest = text.partition(":")
    kind = head.replace("_", "-").lower()
    if rest and kind in GENERATORS:
        return generate(kind, **_generator_args(text, rest, kind))
    names = sample_names(samples)
    if text in names or any(s.split(".", 1)[0] == text for s in names):
        return read_sample(text, samples)
    raise InvalidParameterError(
        f"tree {text[:60]!r} is not a sample, a generator spec (e.g. random:1000:7 with kinds "
        f"{', '.join(GENERATORS)}), {' or '.join(PRESETS)}, or a Newick text")


def _generator_args(text: str, rest: str, kind: str) -> dict:
    parts = rest.split(":")
    out: dict = {}

    def integer(s: str, what: str) -> int:
        try:
            return int(s)
        except ValueError:
            raise InvalidParameterError(f"tree {text!r}: {what} must be an integer, got {s!r}") from None

    positional = [p for p in parts if "=" not in p]
    if len(positional) > 2 or any("=" not in p for p in parts[len(positional):]):
        raise InvalidParameterError(f"tree {text!r}: expected KIND:N[:SEED][:OPTION=VALUE...]")
    out["n"] = integer(positional[0], "the number of vertices")
    out["seed"] = integer(positional[1], "the seed") if len(positional) > 1 else 0
    for p in parts[len(positional):]:
        key, _, val = p.partition("=")
        if key not in _GEN_OPTIONS:
            raise InvalidParameterError(f"tree {text!r}: unknown option {key!r}; options: {', '.join(_GEN_OPTIONS)}")
        out[key] = integer(val, key)
    size = out["n"]
    if kind == "star-of-paths" and ("k" in out or "m" in out):   # k paths of m edges (one from n if not given)
        k = out.get("k") or max(1, (size - 1) // max(out["m"], 1))
        m = out.get("m") or max(1, (size - 1) // max(k, 1))
        size = k * m + 1
    if size < 1 or out["seed"] < 0:
        raise InvalidParameterError(f"tree {text!r}: a link generates at least one vertex with a seed >= 0 "
                                    f"(got {size:,} vertices, seed {out['seed']})")
    limits.check("link_vertices", size, f"tree {text!r}: vertices")
    return out


def tree_to_link(tree: Tree) -> str | None:
    """The Newick text that brings ``tree`` back through a link (names and root kept), or None
    when it is longer than the limit ``link_chars`` (then link to a sample or a generator spec).

    >>> from engine.trees.samples import read_sample
    >>> tree_to_link(read_sample("lecture_5_vertices"))
    '((4,5)2,3)1;'
    """
    top = limits.value("link_chars")
    if tree.n > top:
        return None
    text = format_newick(tree).strip()
    return text if len(text) <= top else None


def generator_link(kind: str, n: int, seed: int = 0, **options) -> str | None:
    """The ``?tree=`` text of a generated tree (``KIND:N:SEED[:OPTION=VALUE...]``, options left
    out when None), or None when the link may not generate that many vertices (``link_vertices``).

    >>> generator_link("star-of-paths", 26, 3, k=5, m=5, b=None)
    'star-of-paths:26:3:k=5:m=5'
    >>> tree_from_link(generator_link("random", 50, 2)) == tree_from_link("random:50:2")
    True
    """
    if n > limits.value("link_vertices"):
        return None
    opts = "".join(f":{k}={int(v)}" for k, v in options.items() if v is not None and k in _GEN_OPTIONS)
    return f"{kind}:{int(n)}:{int(seed)}{opts}"
