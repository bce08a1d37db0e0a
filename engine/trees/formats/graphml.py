"""GraphML (``.graphml``, or ``.xml`` whose root element is ``graphml``), parsed safely.

Vertex names are node ids; the vertex label is the node data whose key has ``attr.name="label"``
(as networkx writes a node attribute ``label``); the root's name is the graph data ``root``.
Typed keys (``int``, ``long``, ``double``, ``boolean``) are converted.
"""

from __future__ import annotations

from xml.sax.saxutils import escape as _escape, quoteattr

from engine.errors import EmptyTreeError, TreeFormatError
from engine.trees.formats.common import XML_ILLEGAL, refuse_unwritable, tree_from_names
from engine.trees.formats.xmlsafe import feed_safely, local
from engine.trees.model import Tree


def _escape_text(s: str) -> str:
    """Element text escaped so that it reads back exactly (a CR would be read as a line feed)."""
    return _escape(s, {"\r": "&#13;"})

__all__ = ["parse_graphml", "format_graphml"]

_TYPES = {"int": int, "long": int, "float": float, "double": float, "string": str,
          "boolean": lambda s: s.strip().lower() in ("true", "1")}


class _Collector:
    """Parser target: collects keys, nodes, edges and their data without building elements."""

    def __init__(self):
        self.depth = 0
        self.root_tag = None
        self.keys: dict[str, tuple[str, object]] = {}
        self.ids: list[str] = []
        self.pairs: list[tuple[str, str]] = []
        self.node_data: list[tuple[str, str, str]] = []  # (node id, key, text)
        self.graph_data: list[tuple[str, str]] = []
        self.graphs = 0
        self.in_graph = False
        self.node = None
        self.data_key = None
        self.text: list[str] = []

    def start(self, tag, attrib):
        self.depth += 1
        t = local(tag)
        if self.depth == 1:
            self.root_tag = t
            if t != "graphml":
                raise TreeFormatError(f"GraphML: the root element is <{t}>, expected <graphml>")
            return
        if t == "key" and self.depth == 2:
            self.keys[attrib.get("id", "")] = (attrib.get("attr.name", attrib.get("id", "")),
                                               _TYPES.get(attrib.get("attr.type", "string"), str))
        elif t == "graph":
            self.graphs += 1
            if self.graphs > 1 and self.depth > 2:
                raise TreeFormatError("GraphML: nested <graph> elements are not supported in a tree")
            self.in_graph = self.graphs == 1 and self.depth == 2
        elif not self.in_graph:
            return
        elif t == "node" and self.depth == 3:
            nid = attrib.get("id")
            if nid is None:
                raise TreeFormatError(f"GraphML: node {len(self.ids)} has no 'id'")
            self.ids.append(nid)
            self.node = nid
        elif t == "edge" and self.depth == 3:
            s, g = attrib.get("source"), attrib.get("target")
            if s is None or g is None:
                raise TreeFormatError(f"GraphML: edge {len(self.pairs)} needs 'source' and 'target'")
            self.pairs.append((s, g))
        elif t == "hyperedge":
            raise TreeFormatError("GraphML: <hyperedge> elements are not supported in a tree")
        elif t == "data" and (self.depth == 3 or (self.depth == 4 and self.node is not None)):
            self.data_key = attrib.get("key", "")
            self.text = []

    def data(self, text):
        if self.data_key is not None:
            self.text.append(text)

    def end(self, tag):
        t = local(tag)
        if t == "data" and self.data_key is not None:
            txt = "".join(self.text)
            if self.depth == 3:
                self.graph_data.append((self.data_key, txt))
            else:
                self.node_data.append((self.node, self.data_key, txt))
            self.data_key = None
        elif t == "node" and self.depth == 3:
            self.node = None
        elif t == "graph" and self.depth == 2:
            self.in_graph = False
        self.depth -= 1

    def close(self):
        return self


def parse_graphml(data: bytes) -> Tree:
    c = feed_safely(data, target=_Collector(), what="GraphML")
    if c.root_tag is None:
        raise TreeFormatError("GraphML: no <graphml> element")
    if c.graphs == 0:
        raise TreeFormatError("GraphML: no <graph> element")
    ids, pairs = c.ids, c.pairs
    labels: dict[str, object] = {}
    for nid, key, text in c.node_data:
        name, conv = c.keys.get(key, (key, str))
        if name == "label":
            labels[nid] = _convert(conv, text, f"label of node {nid!r}")
    root_name = None
    for key, text in c.graph_data:
        if c.keys.get(key, (key, str))[0] == "root":
            root_name = text
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
    refuse_unwritable(tree, "GraphML (XML 1.0)", XML_ILLEGAL, labels=True)
    escape = _escape_text
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
