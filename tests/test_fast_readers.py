"""Array-based readers give exactly the tree of the careful parsers, and step aside otherwise."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.errors import (
    CycleError,
    DisconnectedError,
    DuplicateEdgeError,
    SelfLoopError,
    TreeFormatError,
)
from engine.trees.formats import read_tree_bytes
from engine.trees.formats.edgelist import _HEADER_WORDS, fast_edge_list, format_edge_list, parse_edge_list
from engine.trees.model import Tree
from tests.tree_strategies import parent_arrays

PLAIN = st.from_regex(r"[A-Za-z0-9_.:+\-]{1,12}", fullmatch=True)


def _same(a: Tree, b: Tree) -> None:
    assert a.n == b.n and a.root == b.root
    assert a.names == b.names
    assert np.array_equal(a.parent, b.parent) and np.array_equal(a.order, b.order)


@settings(max_examples=150, deadline=None)
@given(p=parent_arrays(max_n=60), data=st.data())
def test_plain_edge_lists_parse_as_the_careful_parser_does(p, data):
    n = len(p)
    names = data.draw(st.lists(PLAIN, min_size=n, max_size=n, unique=True))
    sep = data.draw(st.sampled_from([",", "\t", ";", " "]))
    eol = data.draw(st.sampled_from(["\n", "\r\n"]))
    header = data.draw(st.sampled_from(["", f"u{sep}v", f"Source{sep}Target"]))
    child = np.flatnonzero(p >= 0)
    lines = [f"{names[p[c]]}{sep}{names[c]}" for c in child]
    if data.draw(st.booleans()):
        lines.insert(data.draw(st.integers(0, len(lines))), "")  # a blank line
    text = eol.join(([header] if header and lines else []) + lines) + data.draw(st.sampled_from(["", eol]))
    # a first edge 'u,v' (or 'source,target', ...) is a header by the format's rule: both parsers drop it
    assume(header or not child.size or names[p[child[0]]].lower() not in _HEADER_WORDS)
    if not child.size:
        assert fast_edge_list(text.encode()) is None  # a lone vertex: the careful parser's business
        return
    fast = fast_edge_list(text.encode())
    assert fast is not None
    _same(fast, parse_edge_list(text))


@settings(max_examples=60, deadline=None)
@given(p=parent_arrays(max_n=40))
def test_written_edge_lists_read_back_through_the_fast_path(p):
    t = Tree.from_parent(p)
    text = format_edge_list(t)
    fast = fast_edge_list(text.encode())
    if t.n > 1:
        _same(fast, parse_edge_list(text))
        assert set(map(tuple, fast.named_edges())) == set(map(tuple, t.named_edges()))


@pytest.mark.parametrize("text", [
    "a,b\nc\n",            # a lone name: an isolated vertex
    "a,b,c\n",             # three names
    "a,b\n# comment\nb,c\n",
    '"a,1",b\n',           # quoted
    "a, b\n",              # blank around the separator
    "a,\n",                # empty name
    ",b\n",
    "a,b\rb,c\n",          # a lone carriage return ends a line for the careful parser
    "a\tb c\n",
    "é,b\n",               # not ASCII
    "\n\n",
])
def test_irregular_input_goes_to_the_careful_parser(text):
    assert fast_edge_list(text.encode()) is None


@pytest.mark.parametrize("text, error", [
    ("a,b\nb,c\nc,a\n", CycleError),
    ("a,b\nc,d\n", DisconnectedError),
    ("a,b\nb,a\n", DuplicateEdgeError),
    ("a,a\n", SelfLoopError),
    ("a,b\nb,c,d\n", TreeFormatError),
])
def test_errors_are_those_of_the_careful_parser(text, error):
    with pytest.raises(error) as fast:
        read_tree_bytes(text.encode(), "t.csv")
    with pytest.raises(error) as careful:
        parse_edge_list(text)
    assert str(fast.value) == f"t.csv: {careful.value}"


def test_names_are_one_string_array():
    t = fast_edge_list(b"root,a\nroot,b\na,c\n")
    assert isinstance(t.name_array(), np.ndarray) and t.name_array().dtype.kind == "U"
    assert t.names == ("root", "a", "b", "c") and t.name(3) == "c" and t.index("c") == 3
    r = t.rerooted("c")
    assert r.root == 3 and r.names == t.names and r.parent[0] == 1


def test_forests_single_digit_block_agrees_with_the_general_parser():
    from engine.forests import data as fd

    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(50, 7))
    text = "\n".join(",".join(map(str, r)) for r in X) + "\n"
    assert fd._single_digit_block(text.splitlines(), 7) is not None
    assert np.array_equal(fd.parse_data(text).X, X)
    for odd in ("1,2\n3,45\n", "1, 2\n3,4\n", "1,2\n3;4\n", "a,b\n1,x\n"):
        assert fd._single_digit_block([ln for ln in odd.splitlines() if ln.strip()], 2) is None


@pytest.mark.parametrize("rows, expect", [
    (["1.5,a,0", "2,b,1"], [[1.5, 0, 0], [2, 1, 1]]),
    (["1.5, a, 0", " 2,b,1 "], [[1.5, 0, 0], [2, 1, 1]]),
    (["1,a,0", "2,c,1"], None),       # undeclared value
    (["1,a,0", "2,b"], None),         # a short row
    (["1,a,0,9", "2,b"], None),       # a long row and a short one
    (["1,a,0", "?,b,1"], None),       # missing value
    (["1,'a',0", "2,b,1"], None),     # quoted
    (["{0 1}", "2,b,1"], None),       # sparse
    (["x,a,0"], None),                # not a number
])
def test_arff_dense_block_is_exact_or_declines(rows, expect):
    from engine.multilabel.data import _dense_block

    got = _dense_block(rows, 3, {1: {"a": 0, "b": 1}, 2: {"0": 0, "1": 1}})
    if expect is None:
        assert got is None
    else:
        assert np.array_equal(got, np.array(expect, float))


@pytest.mark.parametrize("read", [parse_edge_list, lambda text: fast_edge_list(text.encode())])
def test_a_first_edge_from_a_vertex_called_u_is_an_edge(read):
    """Only a pair of column names is a header ('u,v', 'Source,Target', ...): a first line from a
    vertex named 'U' to '0' is an edge (it used to be dropped as a header, losing the edge)."""
    t = read("U,0\n0000,4\n4,U\n0,000\n")
    assert sorted(t.names) == ["0", "000", "0000", "4", "U"]
    assert read("Source,Target\nU,0\n").names == ("U", "0")
    assert read("u;v\nu;0\n").names == ("u", "0")
    # a first column name that names no vertex is a header whatever the second: 'source,dest'
    assert read("source,dest\na,b\nb,c\n").names == ("a", "b", "c")
    assert read("parent,a\nparent,b\n").names == ("parent", "a", "b")   # 'parent' is a vertex

