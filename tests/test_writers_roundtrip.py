"""Every tree writer round-trips a name or refuses it in one line (issue 17, item 4).

Names are drawn with control characters, every line separator ``str.splitlines`` knows, quotes,
separators, empty strings, a byte-order mark and non-BMP characters.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import TreeFormatError
from engine.trees.formats import WRITE_EXTENSIONS, read_tree_bytes, tree_to_bytes
from engine.trees.model import Tree

TRICKY = ["", "\x00", "\x01", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x7f", "\x85", "\u2028",
          "\u2029", "\ufeff", "\ufffe", '"', "'", ",", ";", " ", "#", "(", ")", ":", "[", "]", "&", "<", ">",
          "\\", "\U0001F600", "\U00010000", "é", "source"]
names = st.lists(st.sampled_from(TRICKY), max_size=4).map("".join) | st.text(max_size=6)

EXPECTED_REFUSALS = {"\x00"}  # no text format holds NUL; the JSON formats escape it


@pytest.mark.parametrize("fmt", sorted(WRITE_EXTENSIONS))
@settings(max_examples=150, deadline=None)
@given(a=names, b=names, c=names)
def test_every_writer_round_trips_or_refuses(fmt, a, b, c):
    if len({a, b, c}) < 3:
        return
    tree = Tree.from_named_edges([(a, b), (b, c)], root=c)
    name = "t" + WRITE_EXTENSIONS[fmt]
    try:
        data = tree_to_bytes(tree, name)
    except TreeFormatError as exc:
        msg = str(exc)
        assert "\n" not in msg and "cannot hold the character" in msg
        assert fmt not in ("json", "jsonl"), f"{fmt} refused {msg}"
        return
    back = read_tree_bytes(data, name)
    assert sorted(map(sorted, back.named_edges())) == sorted(map(sorted, tree.named_edges()))
    assert back.name(back.root) == c


@pytest.mark.parametrize("fmt", sorted(WRITE_EXTENSIONS))
def test_empty_and_non_bmp_names_round_trip_everywhere(fmt):
    tree = Tree.from_named_edges([("", "\U0001F600"), ("\U0001F600", 'q"u,o;t e')], root="")
    name = "t" + WRITE_EXTENSIONS[fmt]
    back = read_tree_bytes(tree_to_bytes(tree, name), name)
    assert sorted(back.names) == sorted(tree.names) and back.name(back.root) == ""


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_formats_hold_every_character(fmt):
    weird = ["\x00", "\x01\n", "\u2028\x85", "\ufffe"]
    tree = Tree.from_named_edges([(weird[0], weird[1]), (weird[1], weird[2]), (weird[2], weird[3])])
    name = "t" + WRITE_EXTENSIONS[fmt]
    back = read_tree_bytes(tree_to_bytes(tree, name), name)
    assert sorted(back.names) == sorted(weird)
