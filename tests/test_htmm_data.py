"""Positional tree batches: the JSON-lines and XML readers, their errors, the generator."""

import gzip
import json

import numpy as np
import pytest

from engine.errors import DataFormatError
from engine.htmm.data import from_lists, read_jsonl_trees, read_trees, read_xml_trees, synthetic_trees

TREE = {"y": 2, "labels": [2, 1, 3, 1], "children": [[-1, 2, 3], [-1, -1, -1], [4, -1, -1], [-1, -1, -1]]}


def write_jsonl(path, rows, gz=False):
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    if gz:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_jsonl_round_trip(tmp_path, gz):
    p = write_jsonl(tmp_path / ("t.jsonl.gz" if gz else "t.jsonl"), [TREE, TREE], gz)
    d = read_trees(p)
    assert (d.n_trees, d.n_nodes, d.max_children, d.n_labels) == (2, 8, 3, 3)
    assert d.labels.tolist() == [1, 0, 2, 0] * 2
    assert d.children[4].tolist() == [-1, 5, 6]  # second tree offset by 4
    assert d.parent.tolist() == [-1, 0, 0, 2, -1, 4, 4, 6]
    assert d.position.tolist() == [0, 1, 2, 0, 0, 1, 2, 0]
    assert [lv.tolist() for lv in d.levels] == [[0, 4], [1, 2, 5, 6], [3, 7]]
    assert d.y.tolist() == [2, 2]
    assert d.is_leaf.tolist() == [False, True, False, True] * 2


def test_jsonl_nodes_in_any_order(tmp_path):
    # root's children listed out of number order, as in inex05
    t = {"y": 1, "labels": [1, 2, 3], "children": [[3, 2], [-1, -1], [-1, -1]]}
    d = read_trees(write_jsonl(tmp_path / "a.jsonl", [t]))
    assert d.position.tolist() == [0, 1, 0]
    tree = d.to_tree(0)
    assert tree.labels == (1, 2, 3)
    assert tree.positions.tolist() == [0, 2, 1]
    assert [tree.name(c) for c in tree.children(0)] == ["3", "2"]


@pytest.mark.parametrize("line,msg", [
    ("{not json", "invalid JSON"),
    ('{"labels": [1]}', "missing key 'children'"),
    ('{"labels": [1, 2], "children": [[-1]]}', "2 labels but 1 children lists"),
    ('{"labels": [0], "children": [[-1]]}', "labels are 1..M"),
    ('{"labels": [1, 1], "children": [[2, -1], [-1]]}', "different lengths"),
    ('{"labels": [1, 1], "children": [[5], [-1]]}', "node 1, slot 1: child 5 is not a node 1..2 or -1"),
    ('{"labels": [1, 1], "children": [[-1], [-1]]}', "node 2 is no node's child"),
    ('{"labels": [1, 1, 1], "children": [[2, 2], [-1, -1], [-1, -1]]}', "node 2 is the child of two slots: node 1, slot 1 and node 1, slot 2"),
    ('{"labels": [1, 1], "children": [[2], [1]]}', "node 2, slot 1: node 1 is the root and cannot be a child"),
    ('{"labels": [1, 1, 1], "children": [[2], [3], [2]]}', "node 2 is the child of two slots"),
    ('{"labels": [1, 1, 1, 1], "children": [[2], [-1], [4], [3]]}', "cannot be reached"),
    ('{"labels": [1, 1], "children": [[2], "x"]}', "children of node 2 must be a list of slots"),
    ('{"labels": [1, 1], "children": [[2], [2]]}', "node 2, slot 1: node 2 is its own child"),
    ('{"labels": [1, 1], "children": [[true], [-1]]}', "True is not a node number"),
    ('{"y": "a", "labels": [1], "children": [[-1]]}', "class y must be an integer"),
    ('[1, 2]', "expected an object"),
    ('{"labels": [1.5, 2], "children": [[2], [-1]]}', "labels must be integers"),
    ('{"labels": [1, 2], "children": [[2.0], [-1]]}', "node 1, slot 1: 2.0 is not a node number"),
    ('{"labels": [1, 2000000], "children": [[2], [-1]]}', "exceeds the limit of 100,000 distinct node labels"),
])
def test_jsonl_errors_name_file_and_line(tmp_path, line, msg):
    p = write_jsonl(tmp_path / "bad.jsonl", [TREE, line])
    with pytest.raises(DataFormatError) as e:
        read_jsonl_trees(p)
    text = str(e.value)
    assert text.startswith(f"{p}:2: ") and msg in text and "\n" not in text


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        read_trees(tmp_path / "nope.jsonl")
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(DataFormatError, match="no trees"):
        read_trees(tmp_path / "e.jsonl")
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(DataFormatError, match="bad.gz: not a valid gzip stream"):
        read_trees(tmp_path / "bad.gz")


def test_xml_documents(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "d1.xml").write_text("<article><title/><body><p/><p><b/></p></body></article>")
    (tmp_path / "b" / "d2.xml").write_text("<article><body/></article>")
    d = read_xml_trees(tmp_path)
    assert d.label_names == ("article", "b", "body", "p", "title")
    assert d.n_trees == 2 and d.max_children == 2 and d.y.tolist() == [1, 2]
    names = [d.label_names[v] for v in d.labels[:6]]
    assert names == ["article", "title", "body", "p", "p", "b"]
    assert d.children[0].tolist() == [1, 2] and d.children[2].tolist() == [3, 4]
    assert d.children[4].tolist() == [5, -1]
    assert d.to_tree(0).labels[:3] == ("article", "title", "body")


def test_xml_errors(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text("<a>\n<b></a>")
    with pytest.raises(DataFormatError, match=r"bad\.xml is not well-formed: mismatched tag at line 2, column 6"):
        read_trees(p)
    p.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>')
    with pytest.raises(DataFormatError, match="refused"):
        read_trees(p)


def test_synthetic_generator():
    d = synthetic_trees(30, seed=0)
    assert d.n_trees == 90 and d.max_children == 3 and d.n_labels == 4
    n_children = (d.children >= 0).sum(axis=1)
    assert np.array_equal(d.labels, n_children)  # label = number of children (+1 in the file)
    sizes = np.diff(d.tree_ptr)
    assert sizes.min() >= 20 and sizes.max() <= 100
    for y, side in ((1, 0), (3, 2)):  # asymmetric classes put most children on their side
        nodes = np.isin(d.tree, np.flatnonzero(d.y == y))
        per_slot = (d.children[nodes] >= 0).sum(axis=0)
        assert per_slot.argmax() == side
    again = synthetic_trees(30, seed=0)
    assert np.array_equal(again.children, d.children)


def test_subset_and_slots():
    d = from_lists([TREE, {"y": 1, "labels": [1], "children": [[-1, -1, -1]]}, TREE])
    s = d.subset(d.y == 2)
    assert s.n_trees == 2 and s.children[4].tolist() == [-1, 5, 6]
    w = d.with_slots(5)
    assert w.max_children == 5 and (w.children[:, 3:] == -1).all()


def test_batch_loader_agrees_with_the_single_tree_reader(data_dir):
    from engine.trees import read_tree

    path = data_dir / "trees" / "inex05.test.jsonl.gz"
    batch = read_trees(path)
    for t in (0, 7, 250):
        one = read_tree(path, index=t)
        mine = batch.to_tree(t)
        assert one.names == mine.names and one.labels == mine.labels
        assert one.parent.tolist() == mine.parent.tolist()
        assert one.positions.tolist() == mine.positions.tolist()


def test_xml_train_and_test_share_tags(tmp_path):
    from engine.htmm.data import shared_vocabulary

    (tmp_path / "tr").mkdir()
    (tmp_path / "te").mkdir()
    (tmp_path / "tr" / "a.xml").write_text("<doc><sec/><sec/></doc>")
    (tmp_path / "te" / "b.xml").write_text("<doc><fig/><sec/></doc>")
    tr, te = shared_vocabulary(read_trees(tmp_path / "tr"), read_trees(tmp_path / "te"))
    assert tr.label_names == te.label_names == ("doc", "sec", "fig")
    assert [te.label_names[v] for v in te.labels] == ["doc", "fig", "sec"]
    assert [tr.label_names[v] for v in tr.labels] == ["doc", "sec", "sec"]
    assert tr.n_labels == te.n_labels == 3
