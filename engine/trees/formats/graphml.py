"""GraphML (``.graphml``, or ``.xml`` whose root element is ``graphml``), parsed safely.

Vertex names are node ids; the vertex label is the node data whose key has ``attr.name="label"``
(as networkx writes a node attribute ``label``); the root's name is the graph data ``root``.
Typed keys (``int``, ``long``, ``double``, ``boolean``) are converted.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from engine.errors import EmptyTreeError, TreeFormatError
from engine.trees.formats.xmlsafe import feed_safely, local
from engine.trees.formats.common import tree_from_names
from engine.trees.model import Tree

__all__ = ["parse_graphml", "format_graphml"]

_TYPES = {"int": int, "long": int, "float": float, "double": float, "string": str,
          "boolean": lambda s: s.strip().lower() in ("true", "1")}


def parse_graphml(data: bytes) -> Tree:
    root = feed_safely(data, what="GraphML")
    if local(root.tag) != "graphml":
        raise TreeFormatError(f"GraphML: the root element is <{local(root.tag)}>, expected <graphml>")
    keys: dict[str, tuple[str, object, str]] = {}
    graph = None
    for el in root:
        t = local(el.tag)
        if t == "key":
            keys[el.get("id", "")] = (el.get("attr.name", el.get("id", "")),
                                      _TYPES.get(el.get("attr.type", "string"), str), el.get("for", "all"))
        elif t == "graph" and graph is None:
            graph = el
    if graph is None:
        raise TreeFormatError("GraphML: no <graph> element")
    ids: list[str] = []
    labels: dict[str, object] = {}
    pairs: list[tuple[str, str]] = []
    root_name = None
    for el in graph:
        t = local(el.tag)
        if t == "node":
            nid = el.get("id")
            if nid is None:
                raise TreeFormatError(f"GraphML: node {len(ids)} has no 'id'")
            ids.append(nid)
            for d in el:
                if local(d.tag) == "data":
                    name, conv, _ = keys.get(d.get("key", ""), (d.get("key", ""), str, "node"))
                    if name == "label" and d.text is not None:
                        labels[nid] = _convert(conv, d.text, f"label of node {nid!r}")
        elif t == "edge":
            s, g = el.get("source"), el.get("target")
            if s is None or g is None:
                raise TreeFormatError(f"GraphML: edge {len(pairs)} needs 'source' and 'target'")
            pairs.append((s, g))
        elif t == "data":
            name, conv, _ = keys.get(el.get("key", ""), (el.get("key", ""), str, "graph"))
            if name == "root":
                root_name = el.text
        elif t in ("hyperedge", "graph"):
            raise TreeFormatError(f"GraphML: <{t}> elements are not supported in a tree")
    if not ids:
        raise EmptyTreeError("the tree is empty: the GraphML graph has no nodes")
    known = set(ids)
    if len(known) != len(ids):
        from engine.trees.model import _check_unique_names

        _check_unique_names(ids)
    for s, g in pairs:
        for x in (s, g):
            if x not in known:
                raise TreeFormatError(f"GraphML: edge ({s}, {g}) refers to node {x!r}, which is not declared")
    if root_name is not None and root_name not in known:
        raise TreeFormatError(f"GraphML: the graph's root {root_name!r} is not a node")
    return tree_from_names(pairs, vertices=ids, root=root_name, labels=labels or None)


def _convert(conv, text: str, what: str):
    try:
        return conv(text)
    except ValueError:
        raise TreeFormatError(f"GraphML: {what} {text[:30]!r} does not have its declared type") from None


def format_graphml(tree: Tree) -> str:
    lab = tree.labels
    has_lab = bool(lab) and any(x is not None for x in lab)
    kind = "string"
    if has_lab:
        vals = [x for x in lab if x is not None]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in vals):
            kind = "long"
        elif all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            kind = "double"
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
           'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
           '  <key id="root" for="graph" attr.name="root" attr.type="string"/>']
    if has_lab:
        out.append(f'  <key id="label" for="node" attr.name="label" attr.type="{kind}"/>')
    out.append('  <graph edgedefault="undirected">')
    out.append(f'    <data key="root">{escape(tree.name(tree.root))}</data>')
    for i, s in enumerate(tree.names):
        if has_lab and lab[i] is not None:
            out.append(f'    <node id={quoteattr(s)}><data key="label">{escape(str(lab[i]))}</data></node>')
        else:
            out.append(f'    <node id={quoteattr(s)}/>')
    names = tree.names
    for u, v in tree.edges.tolist():
        out.append(f'    <edge source={quoteattr(names[u])} target={quoteattr(names[v])}/>')
    out += ["  </graph>", "</graphml>"]
    return "\n".join(out) + "\n"
