"""XML documents (``.xml``) as trees: one vertex per element, its label the element's tag.

Parsed with defusedxml (entity declarations and external references are refused) through a
streaming target, so no element tree is built and deep nesting costs no recursion. Vertex names
are the tag for its first occurrence in document order, then ``tag[2]``, ``tag[3]``, ... (brackets
cannot occur in tags, so these never collide with one). A name or label that differs from that
is kept in the attributes ``tw:name`` / ``tw:label`` of the namespace :data:`NS` when written.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import quoteattr

import numpy as np

from engine.errors import EmptyTreeError, TreeFormatError
from engine.trees.formats.common import XML_ILLEGAL, refuse_unwritable
from engine.trees.formats.xmlsafe import feed_safely, local
from engine.trees.model import Tree

__all__ = ["parse_xml_document", "format_xml_document", "NS"]

#: namespace of the attributes that keep names and labels through a round trip
NS = "https://github.com/tree-inference-workbench/xml"
_NAME = f"{{{NS}}}name"
_LABEL = f"{{{NS}}}label"
_XML_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$", re.ASCII)


class _Builder:
    """ElementTree parser target: records parents and tags, no element objects."""

    def __init__(self):
        self.parent: list[int] = []
        self.tags: list[str] = []
        self.names: list[str | None] = []
        self.labels: list[str | None] = []
        self.stack: list[int] = []

    def start(self, tag, attrib):
        v = len(self.parent)
        if not self.stack and v:
            raise TreeFormatError("XML: more than one root element")
        self.parent.append(self.stack[-1] if self.stack else -1)
        self.tags.append(local(tag))
        self.names.append(attrib.get(_NAME))
        self.labels.append(attrib.get(_LABEL))
        self.stack.append(v)

    def end(self, tag):
        self.stack.pop()

    def data(self, data):
        pass

    def close(self):
        return self


def parse_xml_document(data: bytes) -> Tree:
    b = feed_safely(data, target=_Builder(), what="XML")
    n = len(b.parent)
    if n == 0:
        raise EmptyTreeError("the tree is empty: the XML document has no element")
    labels = [lab if lab is not None else t for lab, t in zip(b.labels, b.tags)]
    auto = _auto_names(b.tags)
    explicit = {s for s in b.names if s is not None}
    names = []
    for v in range(n):
        s = b.names[v]
        if s is None:
            s = auto[v]
            while s in explicit:
                s += "'"
            explicit.add(s)
        names.append(s)
    p = np.asarray(b.parent, np.int64)
    depth = np.zeros(n, np.int64)
    pl = b.parent
    for v in range(1, n):  # document order is a preorder: parents first
        depth[v] = depth[pl[v]] + 1
    from engine.trees.model import _check_unique_names

    _check_unique_names(names)
    return Tree(p, np.argsort(depth, kind="stable"), 0, names, labels)


def _auto_names(tags: list[str]) -> list[str]:
    count: dict[str, int] = {}
    out = []
    for t in tags:
        k = count.get(t, 0) + 1
        count[t] = k
        out.append(t if k == 1 else f"{t}[{k}]")
    return out


def format_xml_document(tree: Tree) -> str:
    """The tree as nested elements (children in stored order), tag = label where it is a valid name."""
    refuse_unwritable(tree, "an XML document (XML 1.0)", XML_ILLEGAL, labels=True)
    ptr, idx = tree.children_ptr, tree.children_idx
    lab = tree.labels
    names = tree.names
    # output order: preorder from the root
    pre = []
    stack = [tree.root]
    while stack:
        v = stack.pop()
        pre.append(v)
        stack.extend(idx[ptr[v]:ptr[v + 1]][::-1].tolist())
    tag = {}
    for v in pre:
        lv = None if lab is None else lab[v]
        tag[v] = str(lv) if lv is not None and _XML_NAME.match(str(lv)) and not str(lv).lower().startswith("xml") else "node"
    auto = _auto_names([tag[v] for v in pre])
    attrs = {}
    for k, v in enumerate(pre):
        a = ""
        if names[v] != auto[k]:
            a += f" tw:name={quoteattr(names[v])}"
        lv = None if lab is None else lab[v]
        if lv is not None and str(lv) != tag[v]:
            a += f" tw:label={quoteattr(str(lv))}"
        attrs[v] = a
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    pos = ptr[:-1].copy()
    stack = [tree.root]
    depth = 0
    first = True
    while stack:
        v = stack[-1]
        start, end = ptr[v], ptr[v + 1]
        if pos[v] == start:
            ns = f' xmlns:tw="{NS}"' if first and any(attrs.values()) else ""
            first = False
            ind = "  " * min(depth, 40)
            if start == end:
                out.append(f"{ind}<{tag[v]}{ns}{attrs[v]}/>\n")
                stack.pop()
                depth -= 1
                continue
            out.append(f"{ind}<{tag[v]}{ns}{attrs[v]}>\n")
        if pos[v] < end:
            stack.append(int(idx[pos[v]]))
            pos[v] += 1
            depth += 1
        else:
            out.append(f"{'  ' * min(depth, 40)}</{tag[v]}>\n")
            stack.pop()
            depth -= 1
    return "".join(out)
