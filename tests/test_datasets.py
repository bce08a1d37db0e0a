"""engine.datasets: the one place that knows where the benchmark data lives."""

from pathlib import Path

import pytest

from engine import datasets
from engine.errors import InvalidParameterError


def test_environment_variable_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(tmp_path))
    assert datasets.data_home() == tmp_path
    assert datasets.data_home("multilabel") == tmp_path / "multilabel"


def test_default_is_shared_data_beside_the_project(monkeypatch):
    monkeypatch.delenv("TREE_WORKBENCH_DATA", raising=False)
    root = Path(datasets.__file__).resolve().parents[1]
    assert datasets.data_home() == root.parent / "shared" / "data"


def test_available_lists_only_complete_sets(tmp_path, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(tmp_path))
    assert datasets.available("density") == {}  # no folder at all
    d = tmp_path / "density"
    d.mkdir()
    for split in ("ts", "valid", "test"):
        (d / f"nltcs.{split}.data.gz").write_bytes(b"")
    (d / "kdd.ts.data.gz").write_bytes(b"")  # no valid / test: not available
    (d / "notes.txt").write_text("x")
    found = datasets.available("density")
    assert list(found) == ["nltcs"]
    assert found["nltcs"] == (d / "nltcs.ts.data.gz", d / "nltcs.valid.data.gz", d / "nltcs.test.data.gz")


def test_available_trees_and_multilabel(tmp_path, monkeypatch):
    monkeypatch.setenv("TREE_WORKBENCH_DATA", str(tmp_path))
    (tmp_path / "trees").mkdir()
    (tmp_path / "trees" / "symm.train.jsonl.gz").write_bytes(b"")
    (tmp_path / "trees" / "symm.test.jsonl.gz").write_bytes(b"")
    (tmp_path / "multilabel").mkdir()
    (tmp_path / "multilabel" / "yeast.arff.gz").write_bytes(b"")
    (tmp_path / "multilabel" / "emotions.arff.gz").write_bytes(b"")
    assert list(datasets.available("trees")) == ["symm"]
    assert list(datasets.available("multilabel")) == ["emotions", "yeast"]

    from engine.multilabel.data import benchmark_files
    assert benchmark_files() == {"emotions": tmp_path / "multilabel" / "emotions.arff.gz",
                                 "yeast": tmp_path / "multilabel" / "yeast.arff.gz"}


def test_unknown_collection_is_one_line():
    with pytest.raises(InvalidParameterError, match="unknown data collection 'nope'"):
        datasets.available("nope")


@pytest.mark.data
def test_the_shared_data_is_found(data_dir):
    assert set(datasets.available("density")) == {"nltcs", "msnbc", "kdd", "plants"}
    assert set(datasets.available("multilabel")) == {"emotions", "yeast", "scene"}
    assert set(datasets.available("trees")) == {"symm", "inex05"}
