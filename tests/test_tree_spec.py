"""Trees given in configs and scenarios: a path, a generator spec, or inline edges/vertices."""

import pytest

from engine.errors import EmptyTreeError, InvalidParameterError, UnknownVertexError
from engine.trees.spec import tree_from_spec
from tests.conftest import ROOT


def test_inline_edges_with_root_and_vertex_order():
    t = tree_from_spec({"vertices": ["c"], "edges": [["a", "b"], ["b", "c"]], "root": "b"})
    assert t.names == ("c", "a", "b") and t.name(t.root) == "b" and t.n == 3


def test_one_vertex_tree_inline():
    t = tree_from_spec({"vertices": ["solo"]})
    assert t.n == 1 and t.names == ("solo",)


def test_generator_spec_and_path():
    assert tree_from_spec({"generate": "path", "n": 15}).n == 15
    assert tree_from_spec("lecture_5_vertices.csv", base=ROOT / "sample_trees").n == 5


@pytest.mark.parametrize("spec, error", [
    ({"edges": []}, EmptyTreeError),
    ({"generate": "path"}, InvalidParameterError),
    ({"edges": [["a", "b"]], "root": "z"}, UnknownVertexError),
    (42, InvalidParameterError),
])
def test_bad_specs_name_the_problem(spec, error):
    with pytest.raises(error):
        tree_from_spec(spec)
