"""The compiled Newick reader and writer (used for large texts) against the careful ones: the same
tree, numbering, names and branch lengths on random trees and on random, often malformed, token
strings; anything the fast reader does not take goes to the careful parser, which names the place."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import EngineError, TreeFormatError
from engine.trees.formats import format_tree_text, parse_tree_text, read_tree_bytes
from engine.trees.formats import newick
from engine.trees.generators import path_tree, random_tree
from engine.trees.model import Tree
from tests.tree_strategies import same_tree, trees


def _careful(text):
    try:
        return newick._careful_newick(text)
    except EngineError as exc:
        return exc


def _same_reading(a, b):
    (ta, la), (tb, lb) = a, b
    assert ta.names == tb.names
    assert np.array_equal(ta.parent, tb.parent) and np.array_equal(ta.order, tb.order) and ta.root == tb.root
    assert np.array_equal(la, lb, equal_nan=True)


@given(t=trees(), with_lengths=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_fast_writer_and_reader_agree_with_the_careful_ones(t, with_lengths, seed):
    rng = np.random.default_rng(seed)
    lengths = np.where(rng.random(t.n) < 0.7, rng.normal(size=t.n), np.nan) if with_lengths else None
    if t.n > 1:  # the writer's compiled walk writes the same text
        assert newick._fast_format(t, lengths) == newick.format_newick(t, lengths)
    text = newick.format_newick(t, lengths)
    fast = newick._fast_newick(text)
    careful = _careful(text)
    assert not isinstance(careful, EngineError)
    if fast is not None:
        _same_reading(fast, careful)
    elif text.isascii() and "'" not in text and t.n > 1:
        pytest.fail(f"a plain text went to the careful parser: {text[:80]!r}")


TOKENS = st.sampled_from(["(", ")", ",", ":", ";", "A", "B", "7", "0", " ", "\n", "1.5", "x y", "\t", "1e3", ")A",
                          "(,", ":2", "nan", "\x1f", "_"])


@given(st.lists(TOKENS, min_size=1, max_size=30))
def test_fast_reader_on_token_soup_is_the_careful_reader_or_declines(tokens):
    """Hostile and malformed texts: the fast reader returns the careful parser's tree or nothing
    (and then the careful parser's one-line message is what the user sees)."""
    text = "".join(tokens)
    fast = newick._fast_newick(text)
    careful = _careful(text)
    if fast is not None:
        assert not isinstance(careful, EngineError), (text, careful)
        _same_reading(fast, careful)


def test_plain_large_texts_take_the_fast_path_and_errors_keep_their_place(monkeypatch):
    calls = []
    real = newick._careful_newick
    monkeypatch.setattr(newick, "_careful_newick", lambda text: calls.append(1) or real(text))
    t = random_tree(30_000, seed=1)
    text = format_tree_text(t, "newick")
    assert len(text) >= newick.FAST_FROM
    same_tree(t, parse_tree_text(text, "newick"), labels=False)
    assert not calls
    bad = text[:-2] + ",);"  # a ',' after the root is closed
    with pytest.raises(EngineError, match=r"big\.nwk: unexpected ',' at line 1, column \d+: no '\(' is open"):
        read_tree_bytes(bad.encode(), "big.nwk")
    assert calls == [1]
    with pytest.raises(EngineError, match="two vertices are named"):
        parse_tree_text("(A," + text[:-2] + ",A);", "newick")


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
@pytest.mark.parametrize("make", [lambda: random_tree(200_000, seed=3), lambda: path_tree(200_000)])
def test_large_round_trip_with_lengths_and_deep_nesting(make):
    t = make()
    lengths = np.linspace(0.5, 2.0, t.n)
    back, got = newick.parse_newick_lengths(newick.format_newick(t, lengths))
    same_tree(t, back, labels=False)
    order = [back.index(s) for s in t.names]
    assert np.allclose(got[order], lengths, rtol=1e-5)  # written with %g: six digits


@given(t=trees(), edits=st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(["", "(", ")", ",", ":", ";", " ",
                                                                                  "A", ":1", "(A", ")B"])),
                                 min_size=1, max_size=3))
def test_fast_reader_on_edited_texts_is_the_careful_reader_or_declines(t, edits):
    """Valid texts with one to three characters deleted, replaced or inserted."""
    text = newick.format_newick(t, np.ones(t.n))
    for at, piece in edits:
        at %= len(text)
        text = text[:at] + piece + text[at + (len(piece) != 1):]
    fast = newick._fast_newick(text)
    careful = _careful(text)
    if fast is not None:
        assert not isinstance(careful, EngineError), (text, careful)
        _same_reading(fast, careful)


# ------------------------------------------------------------------------------- JSON lines

@given(t=trees(labels="any"), slots=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_fast_jsonl_writer_writes_the_careful_text(t, slots, seed):
    """Array-built children rows (and the object written key by key) give the careful writer's
    text, with and without slot positions (gaps included), labels and names."""
    from engine.trees.formats import positional
    from engine.trees.model import Tree

    if slots and t.n > 1:  # every child a distinct slot under its parent, with gaps
        rng = np.random.default_rng(seed)
        pos = np.zeros(t.n, np.int64)
        for v in range(t.n):
            kids = t.children(v)
            pos[kids] = rng.choice(np.arange(1, 2 * len(kids) + 2), size=len(kids), replace=False)
        t = Tree.from_parent(t.parent, names=list(t.names), labels=t.labels, positions=pos)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(positional, "FAST_FROM", 10**9)
        careful = positional.format_positional(t)
        m.setattr(positional, "FAST_FROM", 0)
        fast = positional.format_positional(t)
    assert fast == careful
    same_tree(t, parse_tree_text(fast, "jsonl"))


def test_fast_jsonl_writer_names_a_taken_slot(monkeypatch):
    from engine.errors import TreeFormatError
    from engine.trees.formats import positional
    from engine.trees.model import Tree

    t = Tree.from_parent([-1, 0, 0], names=["1", "2", "3"], positions=np.array([0, 1, 1]))
    monkeypatch.setattr(positional, "FAST_FROM", 0)
    with pytest.raises(TreeFormatError, match="vertex '3' has slot 1, which is not free under its parent"):
        positional.format_positional(t)


def test_large_jsonl_round_trip():
    t = random_tree(100_000, seed=5)
    same_tree(t, parse_tree_text(format_tree_text(t, "jsonl"), "jsonl"), labels=False)


def test_hostile_newick_is_refused_in_one_line():
    from engine import limits
    from engine.errors import LimitExceededError

    deep = "(" * 300_000 + "A" + ")" * 300_000 + ";"
    t = parse_tree_text(deep, "newick")  # 300,000 levels: one flat pass, no recursion
    assert t.n == 300_001 and int(t.depth.max()) == 300_000
    with pytest.raises(EngineError, match=r"^huge\.nwk: the '\(' at line 1, column 299999 is never closed$"):
        read_tree_bytes(deep[:-300_000].encode() + b";", "huge.nwk")  # one ')' only, then ';'
    with limits.raised(vertices=1000), pytest.raises(LimitExceededError, match="the Newick tree's vertices"):
        parse_tree_text("(" + "a," * 200_000 + "b);", "newick")


def test_jsonl_writer_refuses_a_text_beyond_the_reader_limit():
    from engine.errors import TreeFormatError
    from engine.trees.generators import star_tree

    with pytest.raises(TreeFormatError, match=r"^JSON lines would give every one of the 20,000 nodes 19,999 slots"):
        format_tree_text(star_tree(20_000), "jsonl")  # 1.2 GB of '-1,' (the careful loop would build it)


def _jsonl_reading(line, fast: bool):
    """The careful (``fast=False``) or the fast-first reading of one JSON line: a tree's parts, or
    the error's type and message."""
    from engine.trees.formats import positional

    with pytest.MonkeyPatch.context() as m:
        m.setattr(positional, "FAST_READ_FROM", 0 if fast else 10**12)
        try:
            t = positional.parse_positional_record(line, 3)
        except EngineError as exc:
            return type(exc).__name__, str(exc)
    return t.names, t.parent.tolist(), t.labels, None if t.positions is None else t.positions.tolist(), t.root


@given(t=trees(labels="any"), pad=st.booleans())
def test_fast_jsonl_reader_reads_what_the_careful_reader_reads(t, pad):
    """Written records (names, labels coded or not, spaces between tokens or not) read the same
    through the compiled scanner as through json.loads, and the scanner does not decline them."""
    from engine.trees.formats import positional

    line = positional.format_positional(t).rstrip("\n")
    if pad:
        line = " " + json.dumps(json.loads(line), separators=(" ,\t", " : "), ensure_ascii=False) + " \r"
    assert positional._fast_record(line, "line 3") is not None
    assert _jsonl_reading(line, True) == _jsonl_reading(line, False)


JSONL_TOKENS = st.sampled_from(['{', '}', '[', ']', ',', ':', '"children"', '"names"', '"labels"', '"y"', '"a"', '\ufeff',
                                '"label_names"', '-1', '2', '3', '1', '0', '01', '1.5', 'true', 'null', ' ', '"\\u0041"',
                                '"x\\"y"', '[[2],[-1]]', '[[2,3],[-1],[-1]]', '"ch\\ildren"', '-', '99999999999999999999',
                                '"é"', '\n', '["b","b","a","a"]', '["a",1]', '[""]', '["a\\u0041","x"]', '["a"]',
                                '3000000000', '-2147483649', '2147483647'])


@given(st.lists(JSONL_TOKENS, min_size=1, max_size=30), st.integers(0, 2))
def test_fast_jsonl_reader_on_token_soup_is_the_careful_reader(tokens, frame):
    """Hostile and malformed records: the fast-first reading is exactly the careful one (the same
    tree, or the same one-line error), whatever the scanner declines."""
    text = "".join(tokens)
    line = ('{"children":' + text + "}", '{"children":[[2],[-1]],' + text + "}", text)[frame]
    assert _jsonl_reading(line, True) == _jsonl_reading(line, False)


@given(t=trees(labels="any"))
def test_a_jsonl_line_reads_the_same_as_text_and_as_bytes(t):
    """The file reader hands the record over as its UTF-8 bytes (one copy of a long line), the
    text readers as a string: the same tree either way, names kept as one string array."""
    from engine.trees.formats import positional

    line = positional.format_positional(t).rstrip("\n")
    assert _jsonl_reading(line.encode("utf-8"), True) == _jsonl_reading(line, True) == _jsonl_reading(line, False)


def test_fast_jsonl_reader_keeps_the_depth_limit_and_refuses_an_inner_byte_order_mark():
    from engine import limits

    deep = "[" * limits.value("json_depth") + "]" * limits.value("json_depth")   # one level too deep in a record
    for line in ('{"labels": \ufeff[1, 2], "children": [[2], [-1]]}', '{"y": ' + deep + ', "children": [[2], [-1]]}'):
        careful = _jsonl_reading(line, False)
        assert careful[0] == "TreeFormatError"
        assert _jsonl_reading(line, True) == careful


def test_large_jsonl_records_take_the_fast_path_and_errors_keep_their_place(monkeypatch):
    from engine.trees.formats import positional

    t = random_tree(30_000, seed=2)
    line = positional.format_positional(t)
    assert len(line) >= positional.FAST_READ_FROM
    calls = []
    real = positional._fast_record
    monkeypatch.setattr(positional, "_fast_record", lambda *a: calls.append(real(*a)) or calls[-1])
    same_tree(t, parse_tree_text(line, "jsonl"), labels=False)
    assert calls[-1] is not None                                  # read by the scanner
    bad = line.replace("[-1", "[1.5", 1)                          # declined: json.loads names the place
    with pytest.raises(EngineError, match=r"^line 1: node \d+, slot 1: 1\.5 is not a node number"):
        parse_tree_text(bad, "jsonl")
    assert calls[-1] is None
    cut = line[: len(line) // 2]
    with pytest.raises(EngineError, match=r"^line 1: invalid JSON at line 1, column \d+"):
        parse_tree_text(cut, "jsonl")


def test_one_long_name_sends_the_fast_readers_to_the_careful_ones():
    """The fast readers keep names as a (vertices x longest name) matrix: one 100,000-character
    name among 20,000 short ones would make it 2 GB (and 8 GB as text). They decline instead, and
    the careful readers read the tree."""
    from engine.trees.formats import edgelist, newick, positional

    long = "x" * 100_000
    text = "(" + ",".join([long] + [f"a{i}" for i in range(20_000)]) + ");"
    assert newick._fast_newick(text) is None
    t = parse_tree_text(text, "newick")
    assert t.n == 20_002 and t.name(1) == long
    t = Tree.from_parent(np.arange(-1, 20_000), names=["r", long] + [f"a{i}" for i in range(19_999)])   # a path
    line = positional.format_positional(t)
    assert positional._fast_record(line, "line 1") is None
    assert positional.parse_positional_record(line).names == t.names
    data = edgelist.format_edge_list(t).encode()
    assert edgelist.fast_edge_list(data) is None
    assert parse_tree_text(data.decode(), "edgelist").names == t.names


def test_array_names_that_differ_in_the_middle_give_different_content_keys():
    """content_key indexes the figure caches: names kept as an array (the large-file readers) must
    count in full, not through the array's shortened repr."""
    names = np.array([f"v{i:05d}" for i in range(5000)])
    other = names.copy()
    other[2500] = "w02500"
    parent = np.r_[-1, np.zeros(4999, np.int64)]
    a = Tree(parent, np.arange(5000), 0, names)
    b = Tree(parent, np.arange(5000), 0, other)
    assert a.content_key != b.content_key
    assert a.content_key == Tree(parent, np.arange(5000), 0, names.copy()).content_key


@pytest.mark.parametrize("data, want", [(b'\x1c\n{"children":[[2],[-1]]}\n', 2), (b"\xef\xbb\xbf\n \t\x1f\n", None)])
def test_jsonl_blank_lines_are_the_text_readers_blank_lines(data, want):
    """Lines of white space (as str.isspace() has it, \\x1c-\\x1f included) are skipped in a file
    as in pasted text; a file of nothing else has no tree."""
    import io

    from engine.trees.formats import positional

    for read in (lambda: positional.read_positional_stream(io.BytesIO(data)),
                 lambda: positional.parse_positional(data.decode("utf-8-sig"))):
        if want is None:
            with pytest.raises(TreeFormatError, match="no tree found"):
                read()
        else:
            assert read().n == want


@st.composite
def _children_rows(draw):
    """'children' rows of a random tree (node 1 the root, the others numbered at random, empty
    slots -1 anywhere), or broken: one integer replaced, or a node in its own row."""
    n = draw(st.integers(1, 9))
    number = [1] + [x + 2 for x in draw(st.permutations(range(n - 1)))]
    rows = [[] for _ in range(n)]
    for v in range(1, n):
        rows[number.index(number[draw(st.integers(0, v - 1))])].append(number[v])
    rows = [draw(st.permutations(r + [-1] * draw(st.integers(0, 2)))) for r in rows]
    rows = [rows[number.index(i)] for i in range(1, n + 1)]     # row i - 1 is node i's
    broken = draw(st.sampled_from(["no", "an integer", "own row"]))
    if broken == "an integer" and any(rows):
        i = draw(st.sampled_from([i for i, r in enumerate(rows) if r]))
        rows[i][draw(st.integers(0, len(rows[i]) - 1))] = draw(st.integers(-3, n + 2))
    elif broken == "own row" and n > 1:      # a node moved from its parent's row into its own
        c = draw(st.integers(2, n))
        rows[next(i for i, r in enumerate(rows) if c in r)].remove(c)
        rows[c - 1].append(c)
    return rows


@given(_children_rows())
def test_the_compiled_slot_pass_accepts_what_the_numpy_checks_accept(rows):
    """One compiled pass decides the slots of a large record; on anything it refuses, the NumPy
    checks run and name the problem. They must agree: the same parents and slots, or both refuse."""
    from engine.trees.formats._kernels import child_slots
    from engine.trees.formats.positional import _slots

    widths = np.array([len(r) for r in rows], np.int64)
    a = np.array([x for r in rows for x in r], np.int32)
    ok, parent, slot = child_slots(widths, a)
    try:
        want = _slots(widths, a, where="line 1")
    except TreeFormatError:
        assert not ok
    else:
        assert ok and parent.tolist() == want[0].tolist() and slot.tolist() == want[1].tolist()
