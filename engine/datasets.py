"""Where the benchmark data lives, found by one function (like scikit-learn's ``get_data_home``).

The public benchmark sets are not shipped with the project: they live in the folder named by the
environment variable ``TREE_WORKBENCH_DATA`` or, when it is unset, in ``../shared/data`` beside the
project's root. Three collections are known, each a sub-folder:

- ``density``: binary density-estimation benchmarks (``NAME.ts.data.gz``, ``NAME.valid.data.gz``,
  ``NAME.test.data.gz``), used by "Online Forest Density Estimation" (Koriche);
- ``multilabel``: Mulan multilabel benchmarks (``NAME.arff.gz``), used by "Multilabel Structured
  Output Learning with Random Spanning Trees of Max-Margin Markov Networks" (Marchand, Su, Morvant,
  Rousu & Shawe-Taylor);
- ``trees``: positional labelled trees (``NAME.train.jsonl.gz``, ``NAME.test.jsonl.gz``), used by
  "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu).

>>> data_home("trees").name
'trees'
>>> sorted(available("trees")) in ([], ["inex05", "symm"])  # empty where the data are absent
True
"""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import InvalidParameterError

__all__ = ["ENV_VAR", "COLLECTIONS", "data_home", "available"]

#: The environment variable that names the data folder.
ENV_VAR = "TREE_WORKBENCH_DATA"

#: Collection -> the file names of one data set, ``{name}`` standing for its name. A data set is
#: available when every one of its files is present; the first pattern is the one searched for.
COLLECTIONS: dict[str, tuple[str, ...]] = {
    "density": ("{name}.ts.data.gz", "{name}.valid.data.gz", "{name}.test.data.gz"),
    "multilabel": ("{name}.arff.gz",),
    "trees": ("{name}.train.jsonl.gz", "{name}.test.jsonl.gz"),
}


def data_home(collection: str | None = None) -> Path:
    """The benchmark data folder: ``$TREE_WORKBENCH_DATA`` or ``../shared/data`` beside the project.

    With ``collection`` (one of :data:`COLLECTIONS`), its sub-folder. The folder need not exist.
    """
    base = os.environ.get(ENV_VAR)
    root = Path(base) if base else Path(__file__).resolve().parents[2] / "shared" / "data"
    if collection is None:
        return root
    _check_collection(collection)
    return root / collection


def available(collection: str) -> dict[str, tuple[Path, ...]]:
    """The complete data sets of ``collection`` present on this machine, by name (sorted).

    Each value holds the set's files in the order of ``COLLECTIONS[collection]``; for ``density``
    that is (train, valid, test), for ``trees`` (train, test). Empty when the folder is absent.
    """
    folder = data_home(collection)
    if not folder.is_dir():
        return {}
    patterns = COLLECTIONS[collection]
    head, tail = patterns[0].split("{name}")
    found: dict[str, tuple[Path, ...]] = {}
    for first in sorted(folder.glob(f"{head}*{tail}")):
        name = first.name[len(head):len(first.name) - len(tail)]
        files = tuple(folder / p.format(name=name) for p in patterns)
        if name and all(f.is_file() for f in files):
            found[name] = files
    return found


def _check_collection(collection: str) -> None:
    if collection not in COLLECTIONS:
        raise InvalidParameterError(f"unknown data collection {collection!r}; expected one of "
                                    f"{', '.join(COLLECTIONS)}")
