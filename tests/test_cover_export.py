"""Streamed cover JSON is exactly ``json.dumps(cover.to_dict())``; the npz form holds the same cover."""

import io
import json

import numpy as np
import pytest
from hypothesis import given, settings

from engine.cover import optimal_cover, rake_only_cover
from engine.cover.export import save_cover_npz, write_cover_json
from engine.trees.formats.edgelist import fast_edge_list
from engine.trees.generators import path_tree, random_tree
from engine.trees.model import Tree
from tests.conftest import engine_cli
from tests.tree_strategies import trees


def _streamed(cover, vertices=False):
    out = io.StringIO()
    write_cover_json(cover, out, vertices=vertices)
    return out.getvalue()


@settings(max_examples=60, deadline=None)
@given(t=trees())
def test_streamed_json_is_the_dict_dumped(t):
    if t.n < 2:
        return  # no cover (an error, tested with the cover)
    for build in (optimal_cover, rake_only_cover):
        c = build(t)
        for vertices in (False, True):
            assert _streamed(c, vertices) == json.dumps(c.to_dict(vertices=vertices)) + "\n"


@pytest.mark.parametrize("names", [["a\"b", "c\\d", "é", "x|y", "\u2603"], ["0", "1", "2", "3", "4"]])
def test_names_needing_escapes(names):
    t = Tree.from_parent([-1, 0, 1, 1, 3], names=names)
    c = optimal_cover(t)
    assert _streamed(c) == json.dumps(c.to_dict()) + "\n"


def test_chunks_and_array_names():
    t = random_tree(70_000, seed=3)  # more components than one chunk
    c = optimal_cover(t)
    assert _streamed(c) == json.dumps(c.to_dict()) + "\n"
    text = "".join(f"v{u},v{v}\n" for u, v in t.edges.tolist())
    ta = fast_edge_list(text.encode())
    ca = optimal_cover(ta)
    assert _streamed(ca) == json.dumps(ca.to_dict()) + "\n"


def test_npz_holds_the_cover(tmp_path):
    c = optimal_cover(path_tree(50), "49")
    with open(tmp_path / "c.npz", "wb") as fh:
        save_cover_npz(c, fh)
    z = np.load(tmp_path / "c.npz")
    assert z["names"].tolist() == list(c.tree.names)
    for key in ("parent", "round", "ends", "split_vertex", "boundary"):
        assert np.array_equal(z[key], getattr(c, key))
    assert np.array_equal(z["kind"], c.kind) and z["meta"].tolist() == [c.n, c.s, c.height, c.rounds, 0]


def _cli(*args):
    return engine_cli("cover", *args)


def test_cli_formats_and_output_file(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("a,b\nb,c\nc,d\n")
    r = _cli(str(src), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["n"] == 4
    r = _cli(str(src), "--format", "json", "-o", str(tmp_path / "c.json"))
    assert r.returncode == 0 and r.stdout == "" and json.loads((tmp_path / "c.json").read_text())["n"] == 4
    r = _cli(str(src), "--format", "npz", "-o", str(tmp_path / "c.npz"))
    assert r.returncode == 0 and np.load(tmp_path / "c.npz")["meta"][0] == 4
    assert not list(tmp_path.glob("*.part"))
    r = _cli(str(src), "--format", "npz")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "--output" in r.stderr
    r = _cli(str(src), "--json", "--format", "text")
    assert r.returncode == 2 and "disagree" in r.stderr
