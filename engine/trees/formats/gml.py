"""GML (``.gml``): ``graph [ node [ id 0 label "A" ] edge [ source 0 target 1 ] ]``.

Written the way networkx writes it: the vertex name is the node's ``label`` (so
``networkx.read_gml`` gives the same names), the vertex label goes in ``category``, the root's
name in the graph attribute ``root``. Reading takes the name from ``label``, else ``name``, else
``id``. Strings use HTML character references (``&quot;``, ``&#233;``), as in networkx. The
tokenizer is a regular expression and nesting is handled with a stack (no recursion).
"""

from __future__ import annotations

import html
import re

from engine.errors import TreeFormatError
from engine.trees.formats.common import where, refuse_unwritable
from engine.trees.model import Tree

__all__ = ["parse_gml", "format_gml"]

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<key>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<real>[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)|[+-]?(?:\d+\.\d*|\.\d+)|[+-]?(?:INF|NAN))
  | (?P<int>[+-]?\d+)
  | (?P<str>"[^"]*")
  | (?P<open>\[)
  | (?P<close>\])
  | (?P<bad>.)
""", re.VERBOSE | re.DOTALL)


def _parse_lists(text: str) -> list:
    """GML text -> nested lists of (key, value) pairs (values: int, float, str or list)."""
    top: list = []
    stack = [top]
    opened: list[int] = []
    key = None
    key_at = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("ws", "comment"):
            continue
        tok = m.group()
        if kind == "bad":
            raise TreeFormatError(f"unexpected character {tok!r} at {where(text, m.start())}")
        if key is None:
            if kind == "key":
                key, key_at = tok, m.start()
                continue
            if kind == "close":
                if len(stack) == 1:
                    raise TreeFormatError(f"unexpected ']' at {where(text, m.start())}")
                stack.pop()
                opened.pop()
                continue
            raise TreeFormatError(f"expected a key at {where(text, m.start())}, got {tok[:30]!r}")
        if kind == "open":
            lst: list = []
            stack[-1].append((key, lst))
            stack.append(lst)
            opened.append(m.start())
        elif kind == "int":
            stack[-1].append((key, int(tok)))
        elif kind == "real":
            stack[-1].append((key, float(tok)))
        elif kind == "str":
            stack[-1].append((key, _unescape(tok[1:-1])))
        else:
            raise TreeFormatError(f"key {key!r} at {where(text, key_at)} has no value")
        key = None
    if key is not None:
        raise TreeFormatError(f"key {key!r} at {where(text, key_at)} has no value")
    if len(stack) > 1:
        raise TreeFormatError(f"the '[' at {where(text, opened[-1])} is never closed")
    return top


# (possessive blanks: a run of 10^8 blank lines before 'graph' fails in one pass, not by backtracking)
_FLAT_HEAD = re.compile(r"\s*+(?:#[^\n]*+\s*+)*+graph\s*\[")
_FLAT_ITEM = re.compile(r"""\s*+(?:
    (?P<blk>node|edge)\s*\[(?P<body>[^\[\]"]*(?:"[^"]*"[^\[\]"]*)*)\]
  | (?P<key>[A-Za-z_]\w*)\s+(?P<val>"[^"]*"|[^\s\[\]"]+)(?=\s|\]|$)
  | \#[^\n]*
  | (?P<end>\])\s*$)""", re.VERBOSE)
_FLAT_ALL = re.compile(r"""(?:\s*+(?:
    (?:node|edge)\s*\[(?:\s*[A-Za-z_]\w*\s+(?:"[^"]*"|[^\s\[\]"]+))*\s*\]
  | [A-Za-z_]\w*\s+(?:"[^"]*"|[^\s\[\]"]+)(?=\s|\]|$)
  | \#[^\n]*))*\s*\]\s*""", re.VERBOSE)
_KV = re.compile(r'([A-Za-z_]\w*)\s+("[^"]*"|[^\s\[\]"]+)')


def _scalar(tok: str):
    if tok[0] == '"':
        return _unescape(tok[1:-1])
    try:
        return int(tok)
    except ValueError:
        return float(tok)


def _parse_flat(text: str) -> list | None:
    """Fast path for the common shape (one graph of flat node and edge blocks); None otherwise."""
    m = _FLAT_HEAD.match(text)
    if not m:
        return None
    pos = m.end()
    items: list = []
    try:
        while True:
            m = _FLAT_ITEM.match(text, pos)
            if m is None:
                return None
            pos = m.end()
            if m.group("end"):
                return [("graph", items)] if pos == len(text) else None
            if m.group("blk"):
                body = m.group("body")
                kv = _KV.findall(body)
                if _KV.sub("", body).strip():
                    return None
                items.append((m.group("blk"), [(k, _scalar(v)) for k, v in kv]))
            elif m.group("key"):
                items.append((m.group("key"), _scalar(m.group("val"))))
    except ValueError:
        return None


_NODE_SIMPLE = re.compile(r'node\s*\[\s*id\s+(-?\d+)\s+label\s+"([^"]*)"(?:\s+category\s+("[^"]*"|-?\d+))?\s*\]')
_EDGE_SIMPLE = re.compile(r"edge\s*\[\s*source\s+(-?\d+)\s+target\s+(-?\d+)\s*\]")
_NODE_ANY = re.compile(r"node\s*\[")
_EDGE_ANY = re.compile(r"edge\s*\[")
_ROOT = re.compile(r'^\s*root\s+("[^"]*"|\S+)', re.MULTILINE)
_ROOT_WORD = re.compile(r"\broot\b")


def _parse_simple(text: str) -> Tree | None:
    """Fastest path: nodes ``[ id N label "s" (category c) ]`` and edges ``[ source a target b ]`` only,
    as this module and networkx write them; None when anything else is in the file."""
    if _parse_flat_check(text) is None:
        return None
    nodes = _NODE_SIMPLE.findall(text)
    edges = _EDGE_SIMPLE.findall(text)
    if len(nodes) != len(_NODE_ANY.findall(text)) or len(edges) != len(_EDGE_ANY.findall(text)) or not nodes:
        return None
    import numpy as np

    ids = np.array([a for a, _, _ in nodes], dtype=np.int64)
    names = [_unescape(b) for _, b, _ in nodes]
    cats = [c for _, _, c in nodes]
    labels = None
    if any(cats):
        labels = [None if not c else _scalar(c) for c in cats]
    order = np.argsort(ids, kind="stable")
    sid = ids[order]
    if np.any(sid[1:] == sid[:-1]):
        return None  # duplicate ids: the general path names them
    e = np.array(edges, dtype=np.int64).reshape(-1, 2)
    pos = np.searchsorted(sid, e)
    pos_c = np.minimum(pos, len(sid) - 1)
    if e.size and not np.all(sid[pos_c] == e):
        return None  # an undeclared id: the general path names it
    ei = order[pos_c] if e.size else np.zeros((0, 2), np.int64)
    r = 0
    m = _ROOT.search(text)
    if len(_ROOT_WORD.findall(text)) != (1 if m else 0):
        return None  # 'root' elsewhere (not at a line start, or in a label): the general path reads it
    if m:
        rs = _scalar(m.group(1))
        rs = rs if isinstance(rs, str) else _num(rs)
        try:
            r = names.index(rs)
        except ValueError:
            return None
    return Tree.from_edges(ei, len(names), names=names, root=r, labels=labels)


def _parse_flat_check(text: str):
    m = _FLAT_HEAD.match(text)
    if not m:
        return None
    return _FLAT_ALL.fullmatch(text, m.end())


def parse_gml(text: str) -> Tree:
    fast = _parse_simple(text)
    if fast is not None:
        return fast
    top = _parse_flat(text)
    if top is None:
        top = _parse_lists(text)
    graphs = [v for k, v in top if k == "graph" and isinstance(v, list)]
    if not graphs:
        raise TreeFormatError("GML: no 'graph [ ... ]' block found")
    g = graphs[0]
    ids: list = []
    names: list[str] = []
    labels: list = []
    root = None
    edges: list[tuple] = []
    for k, v in g:
        if k == "node":
            if not isinstance(v, list):
                raise TreeFormatError("GML: a 'node' must be a [ ... ] block")
            d = dict(v)
            if "id" not in d:
                raise TreeFormatError(f"GML: node {len(ids)} has no 'id'")
            ids.append(d["id"])
            nm = d.get("label", d.get("name", d["id"]))
            names.append(nm if isinstance(nm, str) else _num(nm))
            labels.append(d.get("category"))
        elif k == "edge":
            if not isinstance(v, list):
                raise TreeFormatError("GML: an 'edge' must be a [ ... ] block")
            d = dict(v)
            if "source" not in d or "target" not in d:
                raise TreeFormatError(f"GML: edge {len(edges)} needs 'source' and 'target'")
            edges.append((d["source"], d["target"]))
        elif k == "root":
            root = v
        elif k == "directed" and v == 1:
            pass  # a rooted tree written with directed edges reads the same
    index: dict = {}
    for i, x in enumerate(ids):
        if x in index:
            raise TreeFormatError(f"GML: two nodes have id {x}")
        index[x] = i
    e = []
    for s, t in edges:
        for x in (s, t):
            if x not in index:
                raise TreeFormatError(f"GML: edge ({s}, {t}) refers to node id {x}, which is not declared")
        e.append((index[s], index[t]))
    if not ids:
        from engine.errors import EmptyTreeError

        raise EmptyTreeError("the tree is empty: the GML graph has no nodes")
    r = 0
    if root is not None:
        rs = root if isinstance(root, str) else _num(root)
        if rs not in names:
            raise TreeFormatError(f"GML: the graph's root {rs!r} is not a node label")
        r = names.index(rs)
    lab = labels if any(x is not None for x in labels) else None
    return Tree.from_edges(e, len(ids), names=names, root=r, labels=lab)


def _num(x) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _unescape(s: str) -> str:
    """GML strings: character references by code point (``&#133;`` is U+0085, not HTML's cp1252
    ellipsis), then named entities."""
    if "&" not in s:
        return s
    s = _NUMREF.sub(_numref, s)
    return html.unescape(s) if "&" in s else s


_NUMREF = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")


def _numref(m) -> str:
    cp = int(m.group(1), 16) if m.group(1) else int(m.group(2))
    if cp == 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        return m.group(0)
    return "&#38;" if cp == 0x26 else chr(cp)  # '&' itself stays escaped for the named pass


def _s(x) -> str:
    return '"' + html.escape(str(x), quote=True).encode("ascii", "xmlcharrefreplace").decode() + '"'


def _value(x) -> str:
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    return _s(x)


def format_gml(tree: Tree) -> str:
    refuse_unwritable(tree, "GML", labels=True)
    out = ["graph [", "  directed 0", f"  root {_s(tree.name(tree.root))}"]
    lab = tree.labels
    for i, s in enumerate(tree.names):
        extra = f" category {_value(lab[i])}" if lab and lab[i] is not None else ""
        out.append(f"  node [ id {i} label {_s(s)}{extra} ]")
    for u, v in tree.edges.tolist():
        out.append(f"  edge [ source {u} target {v} ]")
    out.append("]")
    return "\n".join(out) + "\n"
