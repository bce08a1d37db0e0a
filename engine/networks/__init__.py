"""Tree-shaped networks lecturers already have: BIF, XMLBIF, UAI and Hugin ``.net`` files.

A Bayesian network in which every node has at most one parent, or a pairwise Markov network whose
pairwise factors form a tree, becomes a :class:`Network`: the tree, its node potentials φ and edge
potentials ψ in the conventions of :mod:`engine.inference.potentials` (one row per row of
``tree.edges``, rows indexing the parent's state), ready for belief propagation (the sum-product
lecture notes, section 8.2) or the online model of *Online Sum-Product Computation over Trees*
(Herbster, Pasteris & Vitale). Anything else is refused in one line naming the node or the cycle.

=========  ===========================  =========================================
format     extensions                   reader
=========  ===========================  =========================================
bif        .bif                         :func:`engine.networks.bif.parse_bif`
xmlbif     .xml .xmlbif                 :func:`engine.networks.xmlbif.parse_xmlbif`
uai        .uai                         :func:`engine.networks.uai.parse_uai`
hugin      .net                         :func:`engine.networks.hugin.parse_hugin`
=========  ===========================  =========================================

>>> net = read_sample_network("weather")
>>> net.tree.n, net.kind
(5, 'bayes')
>>> net.states[net.tree.index("Rain")]
('yes', 'no')

Their marginals: :func:`engine.inference.models.network_marginals`.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import NetworkFormatError
from engine.files import NETWORK_SAMPLES_DIR, decompress, read_input
from engine.networks.bif import parse_bif
from engine.networks.hugin import parse_hugin
from engine.networks.model import Network
from engine.networks.uai import parse_uai
from engine.networks.xmlbif import parse_xmlbif

__all__ = [
    "NETWORK_FORMATS",
    "NETWORK_SAMPLES_DIR",
    "Network",
    "network_sample_names",
    "read_network",
    "read_network_bytes",
    "read_sample_network",
]

#: extension -> format
NETWORK_FORMATS = {".bif": "bif", ".xml": "xmlbif", ".xmlbif": "xmlbif", ".uai": "uai", ".net": "hugin"}


def _sniff(data: bytes) -> str | None:
    head = data[:2048].lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"<"):
        return "xmlbif"
    word = head.split(None, 1)[0].lower() if head.split(None, 1) else b""
    if word in (b"markov", b"bayes"):
        return "uai"
    if word == b"network":
        return "bif"
    if word in (b"net", b"node", b"potential", b"discrete"):
        return "hugin"
    return None


def read_network_bytes(data: bytes, name: str = "network", fmt: str | None = None) -> Network:
    """Read the bytes of a network file called ``name`` (its extension, else its content, decides)."""
    label = Path(name).name or "network"
    data = decompress(data, label=label, error=NetworkFormatError)  # gzip by content, within the bytes limit
    suffix = Path(name[:-3] if name.lower().endswith(".gz") else name).suffix.lower()
    fmt = fmt or NETWORK_FORMATS.get(suffix) or _sniff(data)
    if fmt is None:
        raise NetworkFormatError(f"{label}: not a BIF, XMLBIF, UAI or Hugin .net network "
                                 f"(extensions: {', '.join(NETWORK_FORMATS)})")
    if fmt == "xmlbif":
        return parse_xmlbif(data, label)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise NetworkFormatError(f"{label}:{line}: not UTF-8 text (byte {data[exc.start]:#04x})") from None
    parse = {"bif": parse_bif, "uai": parse_uai, "hugin": parse_hugin}.get(fmt)
    if parse is None:
        raise NetworkFormatError(f"unknown network format {fmt!r}; expected bif, xmlbif, uai or hugin")
    return parse(text, label)


def read_network(path, fmt: str | None = None) -> Network:
    """Read a network file (see the table above; gzipped files too)."""
    path = Path(path)
    return read_network_bytes(read_input(path, label=path.name, error=NetworkFormatError), path.name, fmt)


def network_sample_names() -> list[str]:
    """File names of the sample networks, sorted."""
    d = NETWORK_SAMPLES_DIR
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if p.is_file() and p.suffix.lower() in NETWORK_FORMATS)


def read_sample_network(name: str) -> Network:
    """The sample network ``name`` (its file name, or its stem when unambiguous)."""
    names = network_sample_names()
    hits = [s for s in names if s == name] or [s for s in names if Path(s).stem == name]
    if len(hits) != 1:
        raise NetworkFormatError(
            f"sample network {name!r} is ambiguous: {', '.join(hits)}" if hits else
             f"no sample network is called {name!r}; samples: {', '.join(Path(s).stem for s in names) or '(none)'}")
    return read_network(NETWORK_SAMPLES_DIR / hits[0])
