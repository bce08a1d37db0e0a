"""Reading and writing tree files, chosen by extension (and by content where it says nothing).

Supported so far: node-link JSON (networkx's ``node_link_data``) and edge lists
(``.csv``/``.tsv``/``.txt``, one ``u,v`` per line, optional header).
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import EngineError, TreeFormatError
from engine.trees.model import Tree

__all__ = ["read_tree", "write_tree", "parse_tree_text", "format_tree_text", "FORMATS"]

#: extension -> format name
FORMATS = {".json": "json", ".csv": "edgelist", ".tsv": "edgelist", ".txt": "edgelist"}


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt:
        return fmt
    ext = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    try:
        return FORMATS[ext.lower()]
    except KeyError:
        raise TreeFormatError(
            f"{path.name}: unknown tree format {ext or '(no extension)'}; expected one of "
            f"{', '.join(sorted(FORMATS))}") from None


def read_tree(path, fmt: str | None = None) -> Tree:
    """Read a tree file; the format comes from ``fmt`` or the file's extension."""
    path = Path(path)
    f = _format_of(path, fmt)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TreeFormatError(f"{path.name}: cannot be read ({exc})") from None
    try:
        return parse_tree_text(text, f)
    except EngineError as exc:
        raise type(exc)(f"{path.name}: {exc}") from None


def write_tree(tree: Tree, path, fmt: str | None = None) -> None:
    path = Path(path)
    path.write_text(format_tree_text(tree, _format_of(path, fmt)), encoding="utf-8")


def parse_tree_text(text: str, fmt: str) -> Tree:
    if fmt == "json":
        return _parse_node_link(text)
    if fmt == "edgelist":
        return _parse_edge_list(text)
    raise TreeFormatError(f"unknown tree format {fmt!r}")


def format_tree_text(tree: Tree, fmt: str) -> str:
    if fmt == "json":
        nodes = [{"id": s} | ({"label": tree.labels[i]} if tree.labels and tree.labels[i] is not None else {})
                 for i, s in enumerate(tree.names)]
        links = [{"source": u, "target": v} for u, v in tree.named_edges()]
        return json.dumps({"directed": False, "multigraph": False, "graph": {"root": tree.name(tree.root)},
                           "nodes": nodes, "edges": links}, indent=1)
    if fmt == "edgelist":
        if tree.n == 1:
            return f"{tree.name(0)}\n"
        return "".join(f"{u},{v}\n" for u, v in tree.named_edges())
    raise TreeFormatError(f"unknown tree format {fmt!r}")


def _parse_node_link(text: str) -> Tree:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TreeFormatError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if not isinstance(data, dict) or "nodes" not in data:
        raise TreeFormatError("node-link JSON needs a 'nodes' list and an 'edges' (or 'links') list")
    links = data.get("edges", data.get("links", []))
    try:
        ids = [str(nd["id"]) for nd in data["nodes"]]
        labels = {str(nd["id"]): nd.get("label") for nd in data["nodes"]}
        pairs = [(str(e["source"]), str(e["target"])) for e in links]
    except (KeyError, TypeError) as exc:
        raise TreeFormatError(f"node-link JSON: a node or edge lacks the field {exc}") from None
    root = (data.get("graph") or {}).get("root")
    return Tree.from_named_edges(pairs, vertices=ids, root=root,
                                 labels=labels if any(v is not None for v in labels.values()) else None)


def _parse_edge_list(text: str) -> Tree:
    pairs, single = [], []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.replace("\t", ",").replace(";", ",").split(",")]
        if len(parts) == 1 and " " in parts[0]:
            parts = parts[0].split()
        if len(parts) == 1 and parts[0]:
            single.append(parts[0])
            continue
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise TreeFormatError(f"line {lineno}: expected 'u,v', got {raw.strip()[:60]!r}")
        if not pairs and lineno == _first_data_line(text) and parts[0].lower() in {"u", "source", "from", "parent"}:
            continue  # header
        pairs.append((parts[0], parts[1]))
    return Tree.from_named_edges(pairs, vertices=single)


def _first_data_line(text: str) -> int:
    for lineno, raw in enumerate(text.splitlines(), 1):
        if raw.strip() and not raw.strip().startswith("#"):
            return lineno
    return 0
