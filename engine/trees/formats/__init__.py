"""Reading and writing tree files, chosen by extension (and by content where it says nothing).

=============  =============================  ==========================================
format         extensions                     names / labels kept
=============  =============================  ==========================================
edgelist       .csv .tsv .txt                 names
json           .json (networkx node-link)     names, labels, root
gml            .gml                           names, labels (``category``), root
graphml        .graphml (.xml by content)     names, labels (``label`` data), root
newick         .nwk .newick .tre              names (internal ones too), root
xml            .xml (XML document)            names, labels (= tags), root
jsonl          .jsonl .jsonl.gz               names, labels, slot positions, root
=============  =============================  ==========================================

Any of them may be gzipped (``.gz`` added); files are opened by :mod:`engine.files` (regular files
only; decompression stops at the ``bytes`` limit of :mod:`engine.limits`, 256 MiB by default). With an
unknown extension (or none), the content decides: ``<graphml`` -> GraphML, other XML -> xml,
``{"children"`` -> jsonl, ``{`` -> node-link JSON, ``graph [`` -> GML, ``(`` -> Newick,
else an edge list. Every failure is a one-line :class:`~engine.errors.EngineError` whose message
starts with the file name.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from engine.errors import EngineError, LimitExceededError, TreeFormatError
from engine.files import decode_text, decompress, open_input
from engine.trees.formats.common import MAX_INPUT_BYTES
from engine.trees.formats.edgelist import HEAD_BYTES, check_head, fast_edge_list, format_edge_list, parse_edge_list
from engine.trees.formats.gml import format_gml, parse_gml
from engine.trees.formats.graphml import format_graphml, parse_graphml
from engine.trees.formats.newick import format_newick, parse_newick, parse_newick_lengths
from engine.trees.formats.nodelink import format_node_link, parse_node_link
from engine.trees.formats.positional import format_positional, parse_positional, read_positional_stream
from engine.trees.formats.tikz import format_tikz
from engine.trees.formats.xmldoc import format_xml_document, parse_xml_document
from engine.trees.formats.xmlsafe import root_tag
from engine.trees.model import Tree

__all__ = ["read_tree", "write_tree", "read_tree_bytes", "tree_to_bytes", "parse_tree_text",
           "format_tree_text", "sniff_format", "format_of", "FORMATS", "FORMAT_NAMES",
           "WRITE_EXTENSIONS", "MAX_INPUT_BYTES", "parse_newick_lengths", "format_newick", "format_tikz"]

#: extension -> format name
FORMATS = {".json": "json", ".csv": "edgelist", ".tsv": "edgelist", ".txt": "edgelist",
           ".gml": "gml", ".graphml": "graphml", ".nwk": "newick", ".newick": "newick",
           ".tre": "newick", ".xml": "xml", ".jsonl": "jsonl"}

#: format name -> a short description (for menus and the README)
FORMAT_NAMES = {
    "edgelist": "edge list (one u,v per line)",
    "json": "node-link JSON (networkx)",
    "gml": "GML",
    "graphml": "GraphML",
    "newick": "Newick",
    "xml": "XML document (label = tag)",
    "jsonl": "positional-children JSON lines",
}

#: format name -> the extension its writer uses by default
WRITE_EXTENSIONS = {"edgelist": ".csv", "json": ".json", "gml": ".gml", "graphml": ".graphml",
                    "newick": ".nwk", "xml": ".xml", "jsonl": ".jsonl"}

def _split_ext(name: str) -> tuple[str, bool]:
    """(format extension, gzipped?) of a file name."""
    p = Path(name)
    if p.suffix.lower() == ".gz":
        return Path(p.stem).suffix.lower(), True
    return p.suffix.lower(), False


def format_of(name: str, fmt: str | None = None) -> str | None:
    """The format named by ``fmt`` or by the extension of ``name`` (None: decide by content)."""
    if fmt:
        if fmt not in FORMAT_NAMES:
            raise TreeFormatError(f"unknown tree format {fmt!r}; expected one of {', '.join(FORMAT_NAMES)}")
        return fmt
    return FORMATS.get(_split_ext(name)[0])


def _writer_format(name: str, fmt: str | None) -> str:
    f = format_of(name, fmt)
    if f is None:
        ext = _split_ext(name)[0]
        raise TreeFormatError(f"{Path(name).name}: unknown tree format {ext or '(no extension)'}; expected "
                              f"one of {', '.join(sorted(FORMATS))} (optionally followed by .gz)")
    return f


def sniff_format(data: bytes | str) -> str:
    """Guess the format of a text from its first non-blank characters."""
    head = data[:4096] if isinstance(data, bytes) else data[:4096].encode("utf-8", "replace")
    head = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"<"):
        full = data if isinstance(data, bytes) else data.encode("utf-8", "replace")
        return "graphml" if root_tag(full.lstrip(b"\xef\xbb\xbf").lstrip()) == "graphml" else "xml"
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        return "jsonl" if b'"children"' in first and b'"nodes"' not in first else "json"
    if head.startswith(b"("):
        return "newick"
    import re

    if re.match(rb"(?:#[^\n]*\n\s*)*(?:[A-Za-z_]\w*\s+[^\n]*\n\s*)*graph\s*\[", head):
        return "gml"
    if re.match(rb"[^,;\t\n()]*;\s*$", head):
        return "newick"  # a single named vertex, 'A;'
    return "edgelist"


def _parse_bytes(data: bytes, fmt: str, index: int) -> Tree:
    if data.isspace():
        data = b""   # blanks only (10^8 blank lines, say): every format says it is empty, at once
    if fmt == "xml" and root_tag(data.lstrip()) == "graphml":  # the whole prolog: comments may be long
        fmt = "graphml"
    if fmt == "graphml":
        return parse_graphml(data)
    if fmt == "xml":
        return parse_xml_document(data)
    if fmt == "jsonl":
        return read_positional_stream(io.BytesIO(data), index)
    if fmt == "edgelist":
        check_head(data[:HEAD_BYTES])   # a fatal problem in the first lines: refused at once
        tree = fast_edge_list(data)  # None: not plain, the careful parser reads it (and names the line)
        if tree is not None:
            return tree
    text = decode_text(data, "", error=TreeFormatError)
    return parse_tree_text(text, fmt, index=index)


def read_tree_bytes(data: bytes, name: str = "", fmt: str | None = None, *, index: int = 0) -> Tree:
    """Parse the bytes of a tree file called ``name`` (uploads); errors start with ``name``.

    Gzipped bytes are decompressed within the ``bytes`` limit of :mod:`engine.limits`.
    """
    label = Path(name).name or "input"
    data = decompress(data, label=label, error=TreeFormatError)
    return _parse_labelled(data, label, name, fmt, index)


def _parse_labelled(data: bytes, label: str, name: str, fmt: str | None, index: int) -> Tree:
    try:
        f = format_of(name, fmt) or sniff_format(data)
        if f == "json" and sniff_format(data) == "jsonl":
            f = "jsonl"
        return _parse_bytes(data, f, index)
    except LimitExceededError:
        raise
    except EngineError as exc:
        raise type(exc)(f"{label}: {exc}") from None


def read_tree(path, fmt: str | None = None, *, index: int = 0) -> Tree:
    """Read a tree file; the format comes from ``fmt``, the extension, or the content.

    Only a regular file is read (see :mod:`engine.files`): gzip is recognised by content and
    decompressed within the ``bytes`` limit. ``index`` chooses the tree of a JSON-lines file
    (0 = the first); only lines up to it are read.

    >>> from engine.trees import read_tree
    >>> read_tree("sample_trees/path_5.csv").n  # doctest: +SKIP
    5
    """
    path = Path(path)
    f = format_of(path.name, fmt)
    with open_input(path, label=path.name, error=TreeFormatError) as fh:
        if f == "jsonl":  # stream: read no further than the chosen tree
            try:
                return read_positional_stream(fh, index)
            except LimitExceededError:
                raise
            except EngineError as exc:
                raise type(exc)(f"{path.name}: {exc}") from None
        head = fh.peek(HEAD_BYTES)[:HEAD_BYTES]   # an edge list's first lines, checked before the rest is read
        if (f or sniff_format(head)) == "edgelist":
            try:
                check_head(head)
            except EngineError as exc:
                raise type(exc)(f"{path.name}: {exc}") from None
        data = fh.read()
    return _parse_labelled(data, path.name, path.name, fmt, index)


#: Format name -> the parser of its text (XML formats go through their bytes; JSON lines take an index).
_TEXT_PARSERS = {"json": parse_node_link, "edgelist": parse_edge_list, "newick": parse_newick, "gml": parse_gml}
#: Format name -> the writer of its text.
_WRITERS = {"json": format_node_link, "edgelist": format_edge_list, "tsv": lambda t: format_edge_list(t, "\t"),
            "newick": format_newick, "gml": format_gml, "graphml": format_graphml, "xml": format_xml_document,
            "jsonl": format_positional}


def _unknown(fmt) -> TreeFormatError:
    return TreeFormatError(f"unknown tree format {fmt!r}; expected one of {', '.join(FORMAT_NAMES)}")


def parse_tree_text(text: str, fmt: str | None = None, *, index: int = 0) -> Tree:
    """Parse a tree given as text (pasted Newick, an edge list, ...); ``fmt=None`` sniffs it."""
    fmt = fmt or sniff_format(text)
    if fmt in _TEXT_PARSERS:
        return _TEXT_PARSERS[fmt](text)
    if fmt == "jsonl":
        return parse_positional(text, index)
    if fmt in ("graphml", "xml"):
        return _parse_bytes(text.encode("utf-8"), fmt, index)
    raise _unknown(fmt)


def format_tree_text(tree: Tree, fmt: str) -> str:
    """The text of ``tree`` in format ``fmt`` (a name of :data:`FORMAT_NAMES`)."""
    if fmt not in _WRITERS:
        raise _unknown(fmt)
    return _WRITERS[fmt](tree)


def tree_to_bytes(tree: Tree, name: str, fmt: str | None = None) -> bytes:
    """The file contents for ``name`` (format by extension; gzipped when it ends in ``.gz``)."""
    f = _writer_format(name, fmt)
    if f == "edgelist" and _split_ext(name)[0] == ".tsv":
        f = "tsv"
    data = format_tree_text(tree, f).encode("utf-8")
    if _split_ext(name)[1]:
        data = gzip.compress(data, compresslevel=6, mtime=0)
    return data


def write_tree(tree: Tree, path, fmt: str | None = None) -> None:
    """Write ``tree`` to ``path``; the format comes from ``fmt`` or the extension."""
    path = Path(path)
    data = tree_to_bytes(tree, path.name, fmt)
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise TreeFormatError(f"{path}: cannot be written ({exc.strerror or exc})") from None
