"""A tree given as a file path, a generator spec or inline edges (for configs and scenarios)."""

from __future__ import annotations

from pathlib import Path

from engine.errors import InvalidParameterError
from engine.trees.model import Tree

__all__ = ["tree_from_spec"]


def tree_from_spec(spec, *, base: Path | None = None) -> Tree:
    """Resolve ``"file.nwk"``, ``{"generate": "path", "n": 15, "seed": 0}`` or ``{"edges": [[u, v], ...]}``.

    Inline edges may come with ``"vertices": [...]`` (their order numbers the vertices; a
    one-vertex tree is ``{"vertices": ["a"]}``) and ``"root"``.

    A relative path is taken relative to ``base`` when given. A generator spec without ``"seed"``
    uses seed 0, so that a recorded config always rebuilds the same tree.
    """
    from engine.trees.formats import read_tree
    from engine.trees.generators import generate

    if isinstance(spec, Tree):
        return spec
    if isinstance(spec, (str, Path)):
        p = Path(spec)
        if base is not None and not p.is_absolute():
            p = base / p
        return read_tree(p)
    if isinstance(spec, dict):
        if "generate" in spec:
            opts = {k: v for k, v in spec.items() if k != "generate"}
            if "n" not in opts:
                raise InvalidParameterError("a generator spec needs 'n', e.g. {\"generate\": \"path\", \"n\": 15}")
            n = opts.pop("n")
            opts.setdefault("seed", 0)  # a recorded config must rebuild the same tree
            return generate(spec["generate"], int(n), **opts)
        if "edges" in spec or "vertices" in spec:
            return Tree.from_named_edges([tuple(e) for e in spec.get("edges", ())],
                                         vertices=spec.get("vertices"), root=spec.get("root"))
    raise InvalidParameterError(
        f"a tree must be a file path, a generator spec or {{'edges': [...]}}, got {str(spec)[:60]}")
