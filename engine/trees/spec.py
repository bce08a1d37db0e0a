"""A tree given as a file path, a generator spec or inline edges (for configs and scenarios)."""

from __future__ import annotations

from pathlib import Path

from engine import limits
from engine.errors import EngineError, InvalidParameterError
from engine.files import ANY_PATH
from engine.trees.formats import read_tree
from engine.trees.generators import generate
from engine.trees.model import Tree

__all__ = ["check_tree_spec", "tree_from_spec"]

_GENERATOR_KEYS = {"n", "seed", "k", "m", "b", "spine", "legs"}
_INLINE_KEYS = {"edges", "vertices", "root"}


def tree_from_spec(spec, *, base: Path | None = None, paths=None) -> Tree:
    """Resolve ``"file.nwk"``, ``{"generate": "path", "n": 15, "seed": 0}`` or ``{"edges": [[u, v], ...]}``.

    Inline edges may come with ``"vertices": [...]`` (their order numbers the vertices; a
    one-vertex tree is ``{"vertices": ["a"]}``) and ``"root"``.

    A relative path is taken relative to ``base`` when given. ``paths`` (an
    :class:`engine.files.PathPolicy`) says which files may be named: any by default (the command
    line), only samples and the data folder for what comes from a browser. A generator spec without
    ``"seed"`` uses seed 0, so that a recorded config always rebuilds the same tree.
    """
    if isinstance(spec, Tree):
        return spec
    if isinstance(spec, (str, Path)):
        policy = ANY_PATH if paths is None else paths
        p = policy.resolve(spec, "tree", base)
        if policy.any_path:
            return read_tree(p)
        try:  # a message about a server file names it as the spec did, not by its full path
            return read_tree(p)
        except EngineError as exc:
            raise type(exc)(str(exc).replace(str(p), str(spec)).replace(p.name, str(spec))) from None
    if isinstance(spec, dict):
        if "generate" in spec:
            kind, n, opts = _spec_args(spec)
            return generate(kind, n, **opts)
        if "edges" in spec or "vertices" in spec:
            return _inline(spec)
    raise InvalidParameterError(
        f"a tree must be a file path, a generator spec or {{'edges': [...]}}, got {str(spec)[:60]}")


def _spec_args(spec: dict) -> tuple:
    """``(kind, n, options)`` of a generator spec, its keys checked (``seed`` 0 when not given)."""
    opts = {k: v for k, v in spec.items() if k != "generate"}
    if "n" not in opts:
        raise InvalidParameterError("a generator spec needs 'n', e.g. {\"generate\": \"path\", \"n\": 15}")
    unknown = sorted(set(opts) - _GENERATOR_KEYS, key=str)
    if unknown:
        raise InvalidParameterError(f"generator spec: unknown key {str(unknown[0])[:40]!r} (expected "
                                    f"{', '.join(sorted(_GENERATOR_KEYS))})")
    n = opts.pop("n")
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    opts.setdefault("seed", 0)  # a recorded config must rebuild the same tree
    return spec["generate"], n, opts


def check_tree_spec(spec) -> None:
    """Refuse a generator spec whose sizes are past their limits (or malformed) without building
    the tree, as a config's ``validate`` must; files and inline trees are checked when read.

    >>> check_tree_spec({"generate": "random", "n": 10**9})
    Traceback (most recent call last):
        ...
    engine.errors.LimitExceededError: n: 1000000000 exceeds the limit of 2,000,000 vertices of a tree a generator builds (generate, tree specs) (limit 'generate'); raise it with TREE_WORKBENCH_MAX_GENERATE=1000000000 or engine.limits.raised(generate=1000000000)
    """
    from engine.trees.generators import check_generator

    if isinstance(spec, dict) and "generate" in spec:
        kind, n, opts = _spec_args(spec)
        check_generator(kind, n, **opts)


def _inline(spec: dict) -> Tree:
    """``{"edges": [[u, v], ...], "vertices": [...], "root": r}``, each part checked before building."""
    unknown = sorted(set(spec) - _INLINE_KEYS, key=str)
    if unknown:
        raise InvalidParameterError(f"inline tree: unknown key {str(unknown[0])[:40]!r} (expected "
                                    f"{', '.join(sorted(_INLINE_KEYS))})")
    edges, vertices = spec.get("edges", []), spec.get("vertices")
    if not isinstance(edges, list):
        raise InvalidParameterError(f"inline tree: 'edges' must be a list of [u, v] pairs, got {str(edges)[:40]}")
    if vertices is not None and not isinstance(vertices, list):
        raise InvalidParameterError(f"inline tree: 'vertices' must be a list of names, got {str(vertices)[:40]}")
    limits.check("vertices", len(edges) + 1, "inline tree: edges + 1")
    limits.check("vertices", len(vertices or ()), "inline tree: 'vertices'")
    for i, e in enumerate(edges):
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            raise InvalidParameterError(f"inline tree: edge {i} must be a pair [u, v] of names, got {str(e)[:40]}")
        for x in e:
            _check_name(x, f"inline tree: edge {i}")
    for x in vertices or ():
        _check_name(x, "inline tree: 'vertices'")
    root = spec.get("root")
    if root is not None:
        _check_name(root, "inline tree: 'root'")
    return Tree.from_named_edges([tuple(e) for e in edges], vertices=vertices, root=root)


def _check_name(x, where: str) -> None:
    if isinstance(x, bool) or not isinstance(x, (str, int)):
        raise InvalidParameterError(f"{where}: a vertex name is a string or an integer, got {str(x)[:40]}")
