"""The sample trees shipped in ``sample_trees/``, found by name (for configs, lessons and the app).

A sample is named by its file name (``lecture_5_vertices.csv``) or, when that is unambiguous, by its
stem (``lecture_5_vertices``).

>>> from engine.trees.samples import read_sample
>>> read_sample("lecture_5_vertices").n
5
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import TreeFormatError
from engine.files import SAMPLES_DIR
from engine.trees.formats import read_tree
from engine.trees.model import Tree

__all__ = ["SAMPLES_DIR", "read_sample", "sample_names", "sample_path"]



def sample_names(folder: Path | None = None) -> list[str]:
    """File names of the samples, sorted (hidden files excluded)."""
    d = SAMPLES_DIR if folder is None else Path(folder)
    if not d.is_dir():
        return []
    return sorted(p.name for p in d.iterdir() if p.is_file() and not p.name.startswith("."))


def _stem(name: str) -> str:
    return name.split(".", 1)[0]


def sample_path(name: str, folder: Path | None = None) -> Path:
    """The file of sample ``name`` (file name or unambiguous stem); refuses paths and unknown names."""
    d = SAMPLES_DIR if folder is None else Path(folder)
    names = sample_names(d)
    if name in names:
        return d / name
    hits = [s for s in names if _stem(s) == name]
    if len(hits) == 1:
        return d / hits[0]
    if len(hits) > 1:
        raise TreeFormatError(f"sample {name!r} is ambiguous: {', '.join(hits)}")
    raise TreeFormatError(f"no sample tree is called {name!r}; samples: "
                          f"{', '.join(_stem(s) for s in names) or '(none)'}")


def read_sample(name: str, folder: Path | None = None) -> Tree:
    """Read sample ``name`` (see :func:`sample_path`)."""
    return read_tree(sample_path(name, folder))
