"""The TikZ writer: a valid picture (balanced braces, one node per vertex, one draw per edge,
names escaped so they print as themselves), for every sample tree and for hostile names."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine.errors import TreeFormatError
from engine.trees import Tree, generate, read_tree
from engine.trees.formats import format_tikz
from engine.trees.formats.tikz import TIKZ_LIMIT, latex_escape
from tests.conftest import ROOT

NODE = re.compile(r"^  \\node\[vertex\] \(v(\d+)\) at \((-?\d+\.\d{3}), (-?\d+\.\d{3})\) \{(.*)\};$")
DRAW = re.compile(r"^  \\draw\[edge\] \(v(\d+)\) -- \(v(\d+)\);$")
_UNESCAPE = {r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^"}


def unescape(s: str) -> str:
    for k, v in _UNESCAPE.items():
        s = s.replace(k, v)
    return re.sub(r"\\([{}#$%&_])", r"\1", s)


def balanced(s: str) -> bool:
    depth = 0
    s = re.sub(r"\\[{}]", "", s)
    for ch in s:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return False
    return depth == 0


def check(tree: Tree, text: str) -> None:
    lines = text.splitlines()
    assert lines[1].startswith("\\begin{tikzpicture}[") and lines[-1] == "\\end{tikzpicture}"
    assert balanced(text)
    nodes = [NODE.match(ln) for ln in lines if ln.startswith("  \\node")]
    draws = [DRAW.match(ln) for ln in lines if ln.startswith("  \\draw")]
    assert all(nodes) and all(draws)
    assert [int(m.group(1)) for m in nodes] == list(range(tree.n))
    assert [unescape(m.group(4)) for m in nodes] == list(tree.names)
    for m in nodes:
        assert balanced(m.group(4)) and "\n" not in m.group(4)
    got = sorted((int(m.group(1)), int(m.group(2))) for m in draws)
    assert got == sorted(map(tuple, tree.edges.tolist()))


@pytest.mark.parametrize("sample", sorted(p.name for p in (ROOT / "sample_trees").iterdir() if p.is_file()))
def test_every_sample_tree_writes_valid_tikz(sample):
    tree = read_tree(ROOT / "sample_trees" / sample)
    check(tree, format_tikz(tree))


def test_hostile_names_print_as_themselves():
    names = ["a_b", "50%", "x^2", "{brace", "back\\slash", "#1", "$math$", "&amp", "~tilde", "ok", "é λ"]
    tree = Tree.from_edges([[0, i] for i in range(1, len(names))], len(names), names=names)
    text = format_tikz(tree)
    check(tree, text)
    assert latex_escape("a\x07b") == "a b"


def test_standalone_document_and_limit():
    tree = generate("random", 30, seed=1)
    doc = format_tikz(tree, standalone=True)
    assert doc.startswith("\\documentclass[tikz") and doc.rstrip().endswith("\\end{document}")
    assert "\\begin{document}" in doc and balanced(doc)
    with pytest.raises(TreeFormatError, match=f"{TIKZ_LIMIT:,}"):
        format_tikz(generate("path", TIKZ_LIMIT + 1, seed=0))


def test_positions_follow_the_layout():
    tree = read_tree(ROOT / "sample_trees" / "primates.nwk")
    x, y = np.arange(tree.n, dtype=float), -np.ones(tree.n)
    nodes = [NODE.match(ln) for ln in format_tikz(tree, layout=(x, y)).splitlines() if ln.startswith("  \\node")]
    assert [float(m.group(2)) for m in nodes] == list(x)
