"""networkx's node-link JSON (``node_link_data``): ``{"nodes": [{"id": ...}], "edges": [...]}``.

Node ``label`` fields are the vertex labels; the graph attribute ``root`` names the root.
Both the ``edges`` key (networkx >= 3.4) and the older ``links`` are read.
"""

from __future__ import annotations

import json

from engine.jsonio import loads

from engine.errors import EngineError, TreeFormatError
from engine.trees.formats.common import tree_from_names
from engine.trees.model import Tree

__all__ = ["parse_node_link", "format_node_link"]


def format_node_link(tree: Tree) -> str:
    lab = tree.labels
    nodes = [{"id": s} | ({"label": lab[i]} if lab and lab[i] is not None else {})
             for i, s in enumerate(tree.names)]
    links = [{"source": u, "target": v} for u, v in tree.named_edges()]
    return json.dumps({"directed": False, "multigraph": False, "graph": {"root": tree.name(tree.root)},
                       "nodes": nodes, "edges": links}, indent=1, ensure_ascii=False)


def parse_node_link(text: str) -> Tree:
    try:
        data = loads(text, where="node-link JSON")
    except EngineError as exc:
        raise TreeFormatError(str(exc)) from None
    return tree_from_node_link(data)


def tree_from_node_link(data) -> Tree:
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
        raise TreeFormatError("node-link JSON needs a 'nodes' list and an 'edges' (or 'links') list")
    links = data.get("edges", data.get("links", []))
    if not isinstance(links, list):
        raise TreeFormatError("node-link JSON: 'edges' must be a list")
    ids, labels, pairs = [], {}, []
    for i, nd in enumerate(data["nodes"]):
        if not isinstance(nd, dict) or "id" not in nd:
            raise TreeFormatError(f"node-link JSON: node {i} has no 'id'")
        s = str(nd["id"])
        ids.append(s)
        if nd.get("label") is not None:
            if isinstance(nd["label"], bool):
                raise TreeFormatError(f"node-link JSON: node {s[:40]!r} has the label {str(nd['label']).lower()}, a "
                                      "boolean; a label is an integer or a name")
            labels[s] = nd["label"]
    for i, e in enumerate(links):
        if not isinstance(e, dict) or "source" not in e or "target" not in e:
            raise TreeFormatError(f"node-link JSON: edge {i} needs 'source' and 'target'")
        pairs.append((str(e["source"]), str(e["target"])))
    known = set(ids)
    for u, v in pairs:
        for x in (u, v):
            if x not in known:
                raise TreeFormatError(f"node-link JSON: edge ({u}, {v}) names {x!r}, which is not in 'nodes'")
    root = (data.get("graph") or {}).get("root") if isinstance(data.get("graph"), dict) else None
    if len(set(ids)) != len(ids):
        from engine.trees.model import _check_unique_names

        _check_unique_names(ids)
    return tree_from_names(pairs, vertices=ids, root=root, labels=labels or None)
