"""Scenario files: an online sum-product lesson as JSON, and its replay.

A scenario is::

    {"tree": PATH or {"edges": [[NAME, NAME], ...]}, "states": k,
     "edge_potential": kxk, "edge_potentials": {"u|v": kxk}, "node_data": {NAME: [k numbers]},
     "cover": "optimal" | "rake-only", "root": NAME, "ops": [...]}

with ops ``{"marginal": NAME}``, ``{"update": NAME, "data": [k]}``,
``{"set_edge": [NAME, NAME], "potential": kxk}`` and ``{"log_partition": true}``. ``root`` is the
leaf the cover is rooted at. Replaying prints one JSON line per query:
``{"op": i, "vertex": NAME, "marginal": [k]}`` or ``{"op": i, "log_partition": x}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import limits
from engine.errors import DataFormatError, InconsistentEvidenceError, InvalidParameterError, UnknownVertexError
from engine.errors import need as _need
from engine.files import read_input
from engine.inference.potentials import check_matrix, check_states, check_vector, edge_potential_table
from engine.jsonio import loads
from engine.trees.model import Tree

__all__ = ["Scenario", "load_scenario", "parse_scenario", "build_model", "replay", "scenario_to_dict",
           "apply_op"]


@dataclass(frozen=True)
class Scenario:
    """A parsed scenario. ``ops`` keep their JSON form (validated); ``tree_spec`` is what to save."""

    tree: Tree
    k: int
    edge_potential: np.ndarray
    edge_potentials: dict = field(default_factory=dict)   # (u, v) names -> kxk, rows index u
    node_data: dict = field(default_factory=dict)         # name -> k-vector
    cover: str = "optimal"
    root: str | None = None
    ops: tuple = ()
    tree_spec: object = None


def load_scenario(path) -> Scenario:
    """Read and validate a scenario file (a relative tree path is taken beside the file)."""
    p = Path(path)
    obj = loads(read_input(p, error=DataFormatError), where=str(p))
    return parse_scenario(obj, base=p.parent)


def parse_scenario(obj, *, base: Path | None = None, paths=None) -> Scenario:
    """Validate a scenario object; every message names the offending key or op.

    ``paths`` (an :class:`engine.files.PathPolicy`) limits the tree files a scenario may name: any
    by default; ``engine.files.browser_paths()`` for a scenario uploaded to the app.
    """
    from engine.trees.spec import tree_from_spec

    _need(isinstance(obj, dict), "a scenario must be a JSON object")
    known = {"tree", "states", "edge_potential", "edge_potentials", "node_data", "cover", "root", "ops"}
    extra = sorted(set(obj) - known)
    if extra:
        raise InvalidParameterError(f"scenario: unknown key {extra[0]!r} (expected "
                                    f"{', '.join(sorted(known))})")
    _need("tree" in obj, "scenario: 'tree' is missing")
    spec = obj["tree"]
    _need(isinstance(spec, (str, dict)), "scenario: 'tree' must be a path or {\"edges\": [...]}")
    tree = tree_from_spec(spec, base=base, paths=paths)
    _need("states" in obj, "scenario: 'states' (the number of labels k) is missing")
    k = check_states(obj["states"])
    limits.check("table_cells", max(tree.n - 1, 1) * k * k, f"scenario: {tree.n - 1} edges x {k} x {k} states")
    ep = obj.get("edge_potential")
    if ep is None:
        ep = np.ones((k, k))
    ep = check_matrix(ep, k, "scenario: 'edge_potential'")
    overrides = {}
    eps = obj.get("edge_potentials") or {}
    _need(isinstance(eps, dict), "scenario: 'edge_potentials' must map \"u|v\" to a matrix")
    for key, m in eps.items():
        parts = str(key).split("|")
        _need(len(parts) == 2, f"scenario: edge key {key!r} must be \"u|v\"")
        try:
            u, v = (tree.name(tree.index(x)) for x in parts)
        except UnknownVertexError as exc:
            raise UnknownVertexError(f"scenario: edge key {key!r}: {exc}") from None
        overrides[(u, v)] = check_matrix(m, k, f"scenario: potential for edge {key!r}")
    try:
        edge_potential_table(tree, ep, overrides)  # checks that each key is an edge
    except UnknownVertexError as exc:
        raise UnknownVertexError(f"scenario: 'edge_potentials': {exc}") from None
    nd = obj.get("node_data") or {}
    _need(isinstance(nd, dict), "scenario: 'node_data' must map vertex names to k numbers")
    try:
        data = {tree.name(tree.index(name)): check_vector(vec, k, f"scenario: node_data of {name}")
                for name, vec in nd.items()}
    except UnknownVertexError as exc:
        raise UnknownVertexError(f"scenario: 'node_data': {exc}") from None
    cover = obj.get("cover", "optimal")
    _need(cover in ("optimal", "rake-only"), f"scenario: 'cover' must be \"optimal\" or \"rake-only\", got {cover!r}")
    root = obj.get("root")
    if root is not None:
        try:
            root = _vertex(tree, root, "scenario: 'root'")
        except UnknownVertexError as exc:
            raise UnknownVertexError(f"scenario: 'root': {exc}") from None
    ops = obj.get("ops", [])
    _need(isinstance(ops, list), "scenario: 'ops' must be a list")
    ops = [_check_op(tree, k, i, op) for i, op in enumerate(ops)]
    return Scenario(tree, k, ep, overrides, data, cover, root, tuple(ops), spec)


def _vertex(tree, x, where) -> str:
    """The name of the vertex called ``x``. A scenario names vertices (a JSON number 3 means the
    vertex named "3", never the vertex at index 3)."""
    _need(isinstance(x, (str, int)) and not isinstance(x, bool),
          f"{where}: a vertex name must be a string, got {json.dumps(x)[:40]}")
    return tree.name(tree.index(str(x)))


def _check_op(tree, k, i, op) -> dict:
    """The op, validated, with its vertices as names."""
    where = f"scenario: ops[{i}]"
    try:
        return _check_op_fields(tree, k, where, op)
    except UnknownVertexError as exc:
        raise UnknownVertexError(f"{where}: {exc}") from None


def _check_op_fields(tree, k, where, op):
    _need(isinstance(op, dict) and len(op) >= 1, f"{where} must be an object such as {{\"marginal\": NAME}}")
    if "marginal" in op:
        _need(set(op) == {"marginal"}, f"{where}: a marginal op has only the key 'marginal'")
        return {"marginal": _vertex(tree, op["marginal"], where)}
    elif "update" in op:
        _need(set(op) == {"update", "data"}, f"{where}: an update op needs exactly 'update' and 'data'")
        v = _vertex(tree, op["update"], where)
        check_vector(op["data"], k, f"{where}: data for vertex {v}")
        return {"update": v, "data": op["data"]}
    elif "set_edge" in op:
        _need(set(op) == {"set_edge", "potential"}, f"{where}: a set_edge op needs 'set_edge' and 'potential'")
        e = op["set_edge"]
        _need(isinstance(e, list) and len(e) == 2, f"{where}: 'set_edge' must be [NAME, NAME]")
        u, v = tree.index(_vertex(tree, e[0], where)), tree.index(_vertex(tree, e[1], where))
        _need(tree.parent[u] == v or tree.parent[v] == u,
              f"{where}: ({tree.name(u)}, {tree.name(v)}) is not an edge of the tree")
        check_matrix(op["potential"], k, f"{where}: potential")
        return {"set_edge": [tree.name(u), tree.name(v)], "potential": op["potential"]}
    elif "log_partition" in op:
        _need(set(op) == {"log_partition"} and op["log_partition"] is True,
              f"{where}: a log-partition query is {{\"log_partition\": true}}")
        return op
    else:
        raise InvalidParameterError(f"{where}: unknown op {json.dumps(op)[:60]} (expected marginal, "
                                    "update, set_edge or log_partition)")


def build_model(sc: Scenario, *, backend: str = "numba"):
    """The online model a scenario starts from."""
    from engine.inference.online import OnlineModel

    tree, k = sc.tree, sc.k
    E = edge_potential_table(tree, sc.edge_potential, sc.edge_potentials)
    D = np.ones((tree.n, k))
    for name, vec in sc.node_data.items():
        D[tree.index(name)] = vec
    try:
        return OnlineModel(tree, k, E, D, cover=sc.cover, root=sc.root, backend=backend)
    except InconsistentEvidenceError as exc:
        raise InconsistentEvidenceError(f"scenario: the initial node_data and edge potentials: {exc}") from None


def apply_op(model, i: int, op: dict):
    """Apply one op; returns the output line (dict) for a query, None for an update."""
    tree = model.tree
    if "marginal" in op:
        v = tree.index(op["marginal"])
        return {"op": i, "vertex": tree.name(v), "marginal": model.marginal(v).tolist()}
    if "update" in op:
        model.update(op["update"], op["data"])
        return None
    if "set_edge" in op:
        u, v = op["set_edge"]
        model.set_edge_potential(u, v, op["potential"])
        return None
    return {"op": i, "log_partition": model.log_partition()}


def replay(sc: Scenario, *, backend: str = "numba"):
    """Yield the output line of every query, in order (updates print nothing)."""
    model = build_model(sc, backend=backend)
    for i, op in enumerate(sc.ops):
        try:
            line = apply_op(model, i, op)
        except InconsistentEvidenceError as exc:
            raise InconsistentEvidenceError(f"scenario: ops[{i}]: {exc}") from None
        if line is not None:
            yield line


def scenario_to_dict(tree_spec, k, edge_potential, *, edge_potentials=None, node_data=None,
                     cover="optimal", root=None, ops=()) -> dict:
    """The JSON object of a scenario (for saving from the app)."""
    out = {"tree": tree_spec, "states": int(k),
           "edge_potential": np.asarray(edge_potential, float).tolist()}
    if edge_potentials:
        out["edge_potentials"] = {f"{u}|{v}": np.asarray(m, float).tolist()
                                  for (u, v), m in edge_potentials.items()}
    if node_data:
        out["node_data"] = {str(n): np.asarray(d, float).tolist() for n, d in node_data.items()}
    out["cover"] = cover
    if root is not None:
        out["root"] = root
    out["ops"] = list(ops)
    return out
