"""Data for forest density estimation (Koriche, "Online Forest Density Estimation", section 6).

* :func:`read_data` reads the ``.data`` / ``.data.gz`` CSV files of the density-estimation
  benchmarks (Lowd & Davis 2010: one sample per line, comma-separated 0/1, no header) and any CSV
  of small non-negative integer codes a user uploads (an optional header line of names is
  recognised). A bad file gives one :class:`~engine.errors.DataFormatError` naming the file, line
  and column.
* :func:`random_markov_tree` and :func:`sample_markov_tree` make the embedded synthetic source: a
  random (Prüfer) tree with random conditional tables, sampled ancestrally.

A data set is a :class:`Dataset`: an ``(N, n)`` ``int8`` array ``X`` of codes ``0 .. m-1`` and the
alphabet size ``m`` shared by all variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import limits
from engine.errors import DataFormatError, InvalidParameterError
from engine.files import read_text, text_rows
from engine.limits import check_seed
from engine.shapes import dimension

__all__ = ["Dataset", "MarkovTreeSource", "read_data", "parse_data", "random_markov_tree",
           "sample_markov_tree", "synthetic_split", "check_synthetic_sizes", "benchmark_paths", "MAX_ALPHABET"]

#: Largest alphabet accepted from a CSV (codes 0 .. MAX_ALPHABET-1): pairwise tables are m x m.
MAX_ALPHABET = 16


@dataclass(frozen=True)
class Dataset:
    """Samples of ``n`` discrete variables.

    X : (N, n) int8 array of codes in ``0 .. m-1``.
    m : alphabet size (at least 2).
    names : the ``n`` variable names.
    source : where it came from (a path or a description).
    """

    X: np.ndarray
    m: int
    names: tuple
    source: str = ""

    n_samples = dimension("X", 0, "Number of samples (rows of X).")
    n_vars = dimension("X", 1, "Number of variables (columns of X).")

    def head(self, rows: int) -> "Dataset":
        """The first ``rows`` samples (a small slice for tests and previews)."""
        return Dataset(self.X[:rows], self.m, self.names, f"{self.source}[:{rows}]")

    def with_alphabet(self, m: int) -> "Dataset":
        """The same samples declared over a larger alphabet (to align train and test)."""
        if m < self.m:
            raise InvalidParameterError(f"{self.source}: alphabet {m} is smaller than the codes present (up to {self.m - 1})")
        return Dataset(self.X, int(m), self.names, self.source)


def read_data(path, *, m: int | None = None) -> Dataset:
    """Read a benchmark ``.data``/``.data.gz`` file or a user CSV of small integer codes.

    m : the alphabet size; by default the largest code plus one (at least 2).
    """
    path = Path(path)
    text = read_text(path, error=DataFormatError)  # regular files, gzip by content, byte cap, BOM
    return parse_data(text, source=str(path), m=m)


def _is_int(tok: str) -> bool:
    t = tok.strip()
    return t.isascii() and t.isdigit()  # not '²' or other Unicode digits int() refuses


def parse_data(text: str, *, source: str = "<data>", m: int | None = None) -> Dataset:
    """Parse CSV text (see :func:`read_data`); ``source`` names it in error messages."""
    lines, numbers = text_rows(text)   # the non-blank lines and the line numbers a user sees
    if not lines:
        raise DataFormatError(f"{source}: no samples (the file is empty)")
    head = [t.strip() for t in lines[0].split(",")]
    head_line = numbers[0]
    names = None
    start = 0
    if not all(_is_int(t) for t in head):
        if any(_is_int(t) for t in head) or any(t == "" for t in head):
            pass  # a data line with a bad value: reported below with its column
        else:
            names = tuple(head)
            start = 1
    rows = lines[start:]
    numbers = numbers[start:]
    width = len(head)
    limits.check("columns", width, f"{source}: columns")
    limits.check("data_cells", len(rows) * width, f"{source}: {len(rows)} rows x {width} columns =")
    X = _single_digit_block(rows, width)
    if X is None and all(ln.count(",") == width - 1 for ln in rows):
        try:  # fast path: the whole block at once (codes are small: int8 after the checks below)
            X = np.array(",".join(rows).replace(" ", "").split(","), dtype=np.int64).reshape(len(rows), width)
        except (ValueError, OverflowError):
            X = None
    if X is None:
        X = _slow_parse(rows, numbers, len(head), source)
    if X.shape[0] == 0:
        raise DataFormatError(f"{source}: no samples after the header line")
    if X.shape[1] < 1:
        raise DataFormatError(f"{source}: no columns")
    neg = np.argwhere(X < 0)
    if neg.size:
        r, c = neg[0]
        raise DataFormatError(f"{source}: line {numbers[r]}, column {c + 1}: "
                              f"value {X[r, c]} is negative; expected a code 0..{MAX_ALPHABET - 1}")
    top = int(X.max())
    if top >= MAX_ALPHABET:
        r, c = np.argwhere(X == top)[0]
        raise DataFormatError(f"{source}: line {numbers[r]}, column {c + 1}: value {top} "
                              f"exceeds the largest accepted code {MAX_ALPHABET - 1} (small alphabets only)")
    mm = max(2, top + 1) if m is None else int(m)
    if mm <= top:
        r, c = np.argwhere(X == top)[0]
        raise DataFormatError(f"{source}: line {numbers[r]}, column {c + 1}: value {top} "
                              f"is outside the alphabet 0..{mm - 1}")
    pairs = width * (width - 1) // 2
    limits.check("table_cells", pairs * mm * mm, f"{source}: {pairs} pairs x {mm}^2 codes =")
    if names is None:
        names = tuple(f"X{i}" for i in range(X.shape[1]))
    elif len(set(names)) != len(names):
        dup = next(nm for nm in names if names.count(nm) > 1)
        raise DataFormatError(f"{source}: line {head_line}: column name {dup!r} appears twice")
    return Dataset(X.astype(np.int8), mm, names, source)


def _single_digit_block(rows: list[str], width: int):
    """The codes of rows that are exactly ``d,d,...,d`` (one digit each, the benchmark files), read
    as one byte array; None for anything else (the general parser reads it)."""
    if not rows or width < 1:
        return None
    body = "\n".join(rows) + "\n"
    if len(body) != len(rows) * 2 * width or not body.isascii():
        return None
    a = np.frombuffer(body.encode("ascii"), np.uint8).reshape(len(rows), 2 * width)
    digits = a[:, 0::2]
    if (a[:, 1:-1:2] != ord(",")).any() or (a[:, -1] != ord("\n")).any() or (digits < 48).any() or (digits > 57).any():
        return None
    return (digits - 48).astype(np.int64)


def _slow_parse(rows, numbers, width, source) -> np.ndarray:
    out = []
    for ln, i in zip(rows, numbers):
        toks = ln.split(",")
        if len(toks) != width:
            raise DataFormatError(f"{source}: line {i}: {len(toks)} values, expected {width} "
                                  f"(as on line {numbers[0]})")
        row = []
        for c, t in enumerate(toks):
            t = t.strip()
            if not (_is_int(t) or (t.startswith("-") and _is_int(t[1:]))) or len(t) > 18:
                raise DataFormatError(f"{source}: line {i}, column {c + 1}: {t[:20]!r} is not an "
                                      f"integer code 0..{MAX_ALPHABET - 1}")
            row.append(int(t))
        out.append(row)
    return np.array(out, dtype=np.int64).reshape(len(out), width)


# ----------------------------------------------------------------------------------- synthetic

@dataclass(frozen=True)
class MarkovTreeSource:
    """A Markov tree over ``n`` variables with alphabet ``m``.

    parent : (n,) int64, ``-1`` at the root, in BFS order ``order``.
    root_table : (m,) distribution of the root.
    cond : (n, m, m) with ``cond[v, a, b] = P(X_v = b | X_parent(v) = a)`` (unused at the root).
    """

    parent: np.ndarray
    order: np.ndarray
    root_table: np.ndarray
    cond: np.ndarray

    n = dimension("parent", 0, "Number of variables.")
    m = dimension("root_table", 0, "Alphabet size.")

    @property
    def edges(self) -> np.ndarray:
        """(n-1, 2) edges as ``(min, max)`` vertex pairs, sorted."""
        v = np.flatnonzero(self.parent >= 0)
        e = np.sort(np.stack([self.parent[v], v], axis=1), axis=1)
        return e[np.lexsort((e[:, 1], e[:, 0]))]


def random_markov_tree(n: int, *, m: int = 2, strength: float = 0.85, seed=None) -> MarkovTreeSource:
    """A random spanning tree (uniform, Prüfer) with random conditional tables.

    Each row of a conditional table puts on average ``strength`` of its mass on copying the
    parent's value (drawn from a Beta around it), the rest spread by a Dirichlet(1) draw, so edges
    carry clearly different amounts of mutual information.
    """
    if n < 2:
        raise InvalidParameterError(f"a synthetic Markov tree needs at least 2 variables, got {n}")
    if not 2 <= m <= MAX_ALPHABET:
        raise InvalidParameterError(f"alphabet size must be in 2..{MAX_ALPHABET}, got {m}")
    if not 0.0 <= strength < 1.0:
        raise InvalidParameterError(f"strength must be in [0, 1), got {strength}")
    from engine.trees.generators import random_tree

    rng = np.random.default_rng(check_seed(seed))
    tree = random_tree(n, seed=rng)
    cond = np.empty((n, m, m))
    for v in range(n):
        s = rng.beta(8 * strength + 0.5, 8 * (1 - strength) + 0.5)  # per-edge copy strength
        s = s * rng.uniform(0.3, 1.0)
        rest = rng.dirichlet(np.ones(m), size=m)
        cond[v] = (1 - s) * rest + s * np.eye(m)
    root_table = rng.dirichlet(np.full(m, 4.0))
    return MarkovTreeSource(np.asarray(tree.parent, dtype=np.int64), np.asarray(tree.order, dtype=np.int64),
                            root_table, cond)


def sample_markov_tree(source: MarkovTreeSource, size: int, *, seed=None) -> np.ndarray:
    """``size`` ancestral samples, an ``(size, n)`` int8 array."""
    rng = np.random.default_rng(check_seed(seed))
    n, m = source.n, source.m
    X = np.empty((size, n), dtype=np.int8)
    u = rng.random((size, n))
    for v in source.order:
        p = source.parent[v]
        if p < 0:
            cdf = np.cumsum(source.root_table)
            X[:, v] = np.minimum(np.searchsorted(cdf, u[:, v], side="right"), m - 1)
        else:
            cdf = np.cumsum(source.cond[v], axis=1)[X[:, p]]
            X[:, v] = np.minimum((u[:, v, None] >= cdf).sum(axis=1), m - 1)
    return X


def check_synthetic_sizes(n_vars: int, n_train: int, n_test: int, n_valid: int, *, m: int = 2) -> None:
    """Refuse a synthetic source past its limits before anything is drawn: ``n_vars`` within
    ``columns``, each part's samples x variables within ``data_cells``, the Markov tree's tables
    (variables x m^2) within ``table_cells``."""
    limits.check("columns", n_vars, "n_vars")
    for name, n in (("n_train", n_train), ("n_test", n_test), ("n_valid", n_valid)):
        limits.check("data_cells", n * n_vars, f"{name}: {n} samples x {n_vars} variables =")
    limits.check("table_cells", n_vars * m * m, f"a Markov tree of {n_vars} variables x {m}^2 codes =")


def synthetic_split(n_vars: int = 16, n_train: int = 5000, n_test: int = 2000, n_valid: int = 1000, *,
                    m: int = 2, seed=0):
    """Train, validation and test :class:`Dataset` from one random Markov tree, and the tree."""
    for name, v in (("n_train", n_train), ("n_test", n_test)):
        if v < 1:
            raise InvalidParameterError(f"{name} must be at least 1, got {v}")
    if n_valid < 0:
        raise InvalidParameterError(f"n_valid must be non-negative, got {n_valid}")
    check_synthetic_sizes(n_vars, n_train, n_test, n_valid, m=m)
    rng = np.random.default_rng(check_seed(seed))
    src = random_markov_tree(n_vars, m=m, seed=rng)
    names = tuple(f"X{i}" for i in range(n_vars))
    desc = f"synthetic Markov tree (n={n_vars}, m={m}, seed={seed})"
    parts = [Dataset(sample_markov_tree(src, k, seed=rng), m, names, f"{desc} {what}")
             for k, what in ((n_train, "train"), (n_valid, "valid"), (n_test, "test"))]
    return parts[0], parts[1], parts[2], src


def benchmark_paths(directory, name: str) -> dict:
    """``{"train", "valid", "test"}`` paths of benchmark ``name`` in ``directory`` (the density folder)."""
    d = Path(directory)
    paths = {"train": d / f"{name}.ts.data.gz", "valid": d / f"{name}.valid.data.gz",
             "test": d / f"{name}.test.data.gz"}
    for k, p in paths.items():
        if not p.is_file():
            raise DataFormatError(f"{p}: benchmark {name!r} has no {k} file here")
    return {k: str(p) for k, p in paths.items()}
