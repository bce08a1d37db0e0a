"""Reading and writing tree files, chosen by extension (and by content where it says nothing).

Each format is one :class:`TreeFormat` record (name, extensions, how its content is recognised,
reader, writer, the limits its reader applies) in :data:`TREE_FORMATS`, the one list the functions
below read; adding a format is one record plus its reader and writer (``docs/contributing.md``).

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
unknown extension (or none), the content decides (each record's ``sniff``): ``<graphml`` -> GraphML,
other XML -> xml, ``{"children"`` -> jsonl, ``{`` -> node-link JSON, ``graph [`` -> GML, ``(`` ->
Newick, else an edge list. Every failure is a one-line :class:`~engine.errors.EngineError` whose message
starts with the file name.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from engine.errors import EngineError, LimitExceededError, TreeFormatError
from engine.files import decode_text, decompress, open_input
from engine.trees.formats.common import MAX_INPUT_BYTES
from engine.trees.formats.edgelist import fast_edge_list, format_edge_list, parse_edge_list
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
           "format_tree_text", "sniff_format", "format_of", "TreeFormat", "TREE_FORMATS", "FORMATS", "FORMAT_NAMES",
           "WRITE_EXTENSIONS", "MAX_INPUT_BYTES", "parse_newick_lengths", "format_newick", "format_tikz"]


@dataclass(frozen=True, eq=False)
class TreeFormat:
    """One tree file format: everything the dispatcher needs to know about it.

    name, description : its name (``--format``, ``fmt=``) and its menu entry.
    extensions : the file endings that name it (``.gz`` may follow); the first is its writer's.
    keeps : what a file of it keeps (for the docs).
    write : the text of a tree; ``variants``: another writer for some extensions (``.tsv``).
    read_text : ``read_text(text, index)`` -> the tree (``index``: which tree of a file holding
        several; the others ignore it); ``read_bytes(data)`` reads the bytes instead (XML, a fast path);
        ``read_stream(binary file, index)`` reads no further than the chosen tree.
    sniff : ``sniff(head, data)`` says whether a text is of this format (``head``: its first 4 KiB,
        byte-order mark and blanks stripped); the sniffs of two formats never both say yes. None:
        the format of last resort (an edge list).
    also : formats that a file named as this one may hold instead, recognised by content (an
        ``.xml`` file holding GraphML).
    limits : the named limits of :mod:`engine.limits` its reader applies.
    """

    name: str
    description: str
    extensions: tuple[str, ...]
    keeps: str
    write: Callable[[Tree], str]
    read_text: Callable[[str, int], Tree] | None = None
    read_bytes: Callable[[bytes], Tree] | None = None
    read_stream: Callable[[IO[bytes], int], Tree] | None = None
    sniff: Callable[[bytes, bytes], bool] | None = None
    also: tuple[str, ...] = ()
    variants: Mapping[str, Callable[[Tree], str]] = field(default_factory=dict)
    limits: tuple[str, ...] = ("bytes",)


def _one(parse: Callable[[str], Tree]) -> Callable[[str, int], Tree]:
    """The text reader of a format whose files hold one tree (``index`` is not theirs to use)."""
    return lambda text, index: parse(text)


def _edge_list_bytes(data: bytes) -> Tree:
    tree = fast_edge_list(data)  # None: not plain, the careful parser reads it (and names the line)
    return tree if tree is not None else parse_edge_list(decode_text(data, "", error=TreeFormatError))


def _xml_document(data: bytes) -> Tree:
    return parse_xml_document(data)


def _positional_head(head: bytes) -> bool:
    first = head.split(b"\n", 1)[0]
    return b'"children"' in first and b'"nodes"' not in first


_GML = re.compile(rb"(?:#[^\n]*\n\s*)*(?:[A-Za-z_]\w*\s+[^\n]*\n\s*)*graph\s*\[")
_ONE_VERTEX = re.compile(rb"[^,;\t\n()]*;\s*$")   # a Newick tree of one named vertex, 'A;'


def _is_xml(head: bytes, data: bytes) -> bool:
    return head.startswith(b"<")


def _graphml_root(data: bytes) -> bool:
    return root_tag(data.lstrip(b"\xef\xbb\xbf").lstrip()) == "graphml"


def _sniff_graphml(head: bytes, data: bytes) -> bool:
    return _is_xml(head, data) and _graphml_root(data)


def _sniff_xml(head: bytes, data: bytes) -> bool:
    return _is_xml(head, data) and not _graphml_root(data)


def _sniff_jsonl(head: bytes, data: bytes) -> bool:
    return head.startswith(b"{") and _positional_head(head)


def _sniff_json(head: bytes, data: bytes) -> bool:
    return head.startswith(b"{") and not _positional_head(head)


def _sniff_gml(head: bytes, data: bytes) -> bool:
    return not head.startswith((b"<", b"{", b"(")) and _GML.match(head) is not None


def _sniff_newick(head: bytes, data: bytes) -> bool:
    return head.startswith(b"(") or (not head.startswith((b"<", b"{")) and _ONE_VERTEX.match(head) is not None
                                     and _GML.match(head) is None)


#: The formats, in menu order; the dispatcher (every function below) reads this list.
TREE_FORMATS: tuple[TreeFormat, ...] = (
    TreeFormat("edgelist", "edge list (one u,v per line)", (".csv", ".tsv", ".txt"), "names",
               write=format_edge_list, read_text=_one(parse_edge_list), read_bytes=_edge_list_bytes,
               variants={".tsv": lambda tree: format_edge_list(tree, "\t")}, limits=("bytes", "vertices")),
    TreeFormat("json", "node-link JSON (networkx)", (".json",), "names, labels, root", write=format_node_link,
               read_text=_one(parse_node_link), sniff=_sniff_json, also=("jsonl",), limits=("bytes", "json_depth")),
    TreeFormat("gml", "GML", (".gml",), "names, labels (``category``), root", write=format_gml,
               read_text=_one(parse_gml), sniff=_sniff_gml),
    TreeFormat("graphml", "GraphML", (".graphml",), "names, labels (``label`` data), root", write=format_graphml,
               read_bytes=parse_graphml, sniff=_sniff_graphml),
    TreeFormat("newick", "Newick", (".nwk", ".newick", ".tre"), "names (internal ones too), root",
               write=format_newick, read_text=_one(parse_newick), sniff=_sniff_newick, limits=("bytes", "vertices")),
    TreeFormat("xml", "XML document (label = tag)", (".xml",), "names, labels (= tags), root",
               write=format_xml_document, read_bytes=_xml_document, sniff=_sniff_xml, also=("graphml",)),
    TreeFormat("jsonl", "positional-children JSON lines", (".jsonl",), "names, labels, slot positions, root",
               write=format_positional, read_text=parse_positional, read_stream=read_positional_stream,
               sniff=_sniff_jsonl, limits=("bytes", "json_depth")),
)

#: extension -> format name
FORMATS = {ext: f.name for f in TREE_FORMATS for ext in f.extensions}
#: format name -> a short description (for menus and the README)
FORMAT_NAMES = {f.name: f.description for f in TREE_FORMATS}
#: format name -> the extension its writer uses by default
WRITE_EXTENSIONS = {f.name: f.extensions[0] for f in TREE_FORMATS}


def _record(fmt: str) -> TreeFormat:
    for f in TREE_FORMATS:
        if f.name == fmt:
            return f
    raise _unknown(fmt)


def _unknown(fmt) -> TreeFormatError:
    return TreeFormatError(f"unknown tree format {fmt!r}; expected one of {', '.join(f.name for f in TREE_FORMATS)}")


def _split_ext(name: str) -> tuple[str, bool]:
    """(format extension, gzipped?) of a file name."""
    p = Path(name)
    if p.suffix.lower() == ".gz":
        return Path(p.stem).suffix.lower(), True
    return p.suffix.lower(), False


def format_of(name: str, fmt: str | None = None) -> str | None:
    """The format named by ``fmt`` or by the extension of ``name`` (None: decide by content)."""
    if fmt:
        return _record(fmt).name
    ext = _split_ext(name)[0]
    return next((f.name for f in TREE_FORMATS if ext in f.extensions), None)


def _writer_format(name: str, fmt: str | None) -> str:
    f = format_of(name, fmt)
    if f is None:
        ext = _split_ext(name)[0]
        known = sorted(e for f in TREE_FORMATS for e in f.extensions)
        raise TreeFormatError(f"{Path(name).name}: unknown tree format {ext or '(no extension)'}; expected "
                              f"one of {', '.join(known)} (optionally followed by .gz)")
    return f


def sniff_format(data: bytes | str) -> str:
    """Guess the format of a text from its first non-blank characters."""
    head = data[:4096] if isinstance(data, bytes) else data[:4096].encode("utf-8", "replace")
    head = head.lstrip(b"\xef\xbb\xbf").lstrip()
    full = data if isinstance(data, bytes) else data.encode("utf-8", "replace")
    found = [f for f in TREE_FORMATS if f.sniff is not None and f.sniff(head, full)]
    if found:
        return found[0].name
    return next(f.name for f in TREE_FORMATS if f.sniff is None)


def _parse_bytes(data: bytes, fmt: str, index: int) -> Tree:
    rec = _record(fmt)
    if rec.also:
        sniffed = sniff_format(data)
        if sniffed in rec.also:   # an .xml file holding GraphML, a .json file holding JSON lines
            rec = _record(sniffed)
    if rec.read_stream is not None:
        return rec.read_stream(io.BytesIO(data), index)
    if rec.read_bytes is not None:
        return rec.read_bytes(data)
    return rec.read_text(decode_text(data, "", error=TreeFormatError), index)


def read_tree_bytes(data: bytes, name: str = "", fmt: str | None = None, *, index: int = 0) -> Tree:
    """Parse the bytes of a tree file called ``name`` (uploads); errors start with ``name``.

    Gzipped bytes are decompressed within the ``bytes`` limit of :mod:`engine.limits`.
    """
    label = Path(name).name or "input"
    data = decompress(data, label=label, error=TreeFormatError)
    return _parse_labelled(data, label, name, fmt, index)


def _parse_labelled(data: bytes, label: str, name: str, fmt: str | None, index: int) -> Tree:
    try:
        return _parse_bytes(data, format_of(name, fmt) or sniff_format(data), index)
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
        stream = _record(f).read_stream if f is not None else None
        if stream is not None:  # read no further than the chosen tree
            try:
                return stream(fh, index)
            except LimitExceededError:
                raise
            except EngineError as exc:
                raise type(exc)(f"{path.name}: {exc}") from None
        data = fh.read()
    return _parse_labelled(data, path.name, path.name, fmt, index)


def parse_tree_text(text: str, fmt: str | None = None, *, index: int = 0) -> Tree:
    """Parse a tree given as text (pasted Newick, an edge list, ...); ``fmt=None`` sniffs it."""
    rec = _record(fmt or sniff_format(text))
    if rec.read_text is not None:
        return rec.read_text(text, index)
    return _parse_bytes(text.encode("utf-8"), rec.name, index)


def format_tree_text(tree: Tree, fmt: str) -> str:
    """The text of ``tree`` in format ``fmt`` (a name of :data:`FORMAT_NAMES`)."""
    return _record(fmt).write(tree)


def tree_to_bytes(tree: Tree, name: str, fmt: str | None = None) -> bytes:
    """The file contents for ``name`` (format by extension; gzipped when it ends in ``.gz``)."""
    rec = _record(_writer_format(name, fmt))
    ext, gzipped = _split_ext(name)
    data = rec.variants.get(ext, rec.write)(tree).encode("utf-8")
    if gzipped:
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
