"""Multilabel data: ARFF files of Mulan and MEKA, and an embedded synthetic source.

The benchmark sets of "Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014, section 5) come from Mulan: an ARFF file (dense,
or sparse ``{index value, ...}`` rows; plain or gzipped) whose LAST attributes are the labels, with
an XML file naming them. MEKA writes the label count into the relation name, ``-C n``: the FIRST n
attributes are the labels (``-C -n``: the last n). Every reading error is one line naming the file
and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import limits
from engine.errors import DataFormatError, InvalidParameterError
from engine.files import read_input, read_text, text_rows
from engine.limits import check_seed

__all__ = ["MultilabelData", "read_arff", "read_mulan_xml", "synthetic_multilabel", "check_synthetic", "SYNTHETIC_KEYS",
           "load_multilabel",
           "benchmark_files"]


@dataclass(frozen=True)
class MultilabelData:
    """Inputs ``X`` float64 (m, d), labels ``Y`` uint8 (m, l) in {0, 1}, names and a title."""

    X: np.ndarray
    Y: np.ndarray
    feature_names: tuple
    label_names: tuple
    name: str

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    def summary(self) -> dict:
        return {"name": self.name, "examples": int(self.X.shape[0]), "features": int(self.X.shape[1]),
                "labels": self.n_labels, "label_cardinality": float(self.Y.sum(1).mean()) if self.Y.size else 0.0,
                "distinct_labelsets": int(len({r.tobytes() for r in self.Y}))}


def _open_text(path: Path):
    """The non-blank lines of a text file and their line numbers (``engine.files.text_rows``).
    ARFF files from old Weka versions are Latin-1: accepted when the text is not UTF-8."""
    return text_rows(read_text(path, error=DataFormatError, fallback="latin-1"))


def read_mulan_xml(path) -> list[str]:
    """The label names of a Mulan XML label file, in order (nested hierarchies are flattened)."""
    from engine.trees.formats.xmlsafe import feed_safely

    path = Path(path)
    root = feed_safely(read_input(path, error=DataFormatError), what=f"{path}: Mulan label XML",
                       error=DataFormatError)
    names = [el.get("name") for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "label"]
    if not names or any(n is None for n in names):
        raise DataFormatError(f"{path}: no <label name=...> elements found")
    return names


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


_ATTR = re.compile(r"""@attribute\s+('(?:[^'\\]++|\\.)*+'|"(?:[^"\\]++|\\.)*+"|\S+)\s+(.*)$""", re.IGNORECASE)


def read_arff(path, labels=None, *, xml=None) -> MultilabelData:
    """Read a multilabel ARFF file (dense or sparse, plain or gzipped).

    labels : int, the number of label attributes, LAST in the file (Mulan); or None to take the
        names from ``xml`` (a Mulan XML file; by default ``<stem>.xml`` beside the data file when
        present; the label columns then follow the XML's order, which for yeast is not the file's)
        or else from a MEKA ``-C n`` relation name (n > 0: the first n attributes).
    """
    path = Path(path)
    lines, numbers = _open_text(path)
    relation = path.name
    attrs: list[tuple[str, object]] = []  # (name, None for numeric | list of nominal values)
    data_at = None
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        low = s.lower()
        if low.startswith("@relation"):
            relation = _unquote(s[9:])
        elif low.startswith("@attribute"):
            m = _ATTR.match(s)
            if not m:
                raise DataFormatError(f"{path}, line {numbers[i]}: cannot parse the attribute declaration {s[:60]!r}")
            name, typ = _unquote(m.group(1)), m.group(2).strip()
            tl = typ.lower()
            if tl in ("numeric", "real", "integer"):
                attrs.append((name, None))
            elif typ.startswith("{"):
                vals = [_unquote(v) for v in typ.strip("{}").split(",")]
                attrs.append((name, vals))
            else:
                raise DataFormatError(f"{path}, line {numbers[i]}: attribute {name!r} has type {typ!r}; "
                                      "only numeric and nominal attributes are supported")
        elif low.startswith("@data"):
            data_at = i + 1
            break
        else:
            raise DataFormatError(f"{path}, line {numbers[i]}: expected @relation, @attribute or @data, got {s[:60]!r}")
    if data_at is None:
        raise DataFormatError(f"{path}: no @data section")
    if not attrs:
        raise DataFormatError(f"{path}: no @attribute declarations")
    names = [a[0] for a in attrs]
    na = len(attrs)
    limits.check("attributes", na, f"{path}: attributes")
    limits.check("data_cells", (len(lines) - data_at) * na, f"{path}: up to {len(lines) - data_at} rows x {na} "
                 "attributes =")  # before a row is allocated

    # which attributes are labels
    label_idx = None
    if labels is not None:
        if int(labels) != labels or not 1 <= labels < na:
            raise InvalidParameterError(f"{path}: the label count must be between 1 and {na - 1}, got {labels}")
        label_idx = list(range(na - int(labels), na))
    else:
        xml_path = Path(xml) if xml is not None else None
        if xml_path is None:
            stem = path.name[:-3] if path.name.endswith(".gz") else path.name
            cand = path.with_name(stem.rsplit(".", 1)[0] + ".xml")
            xml_path = cand if cand.is_file() else None
        if xml_path is not None:
            lab_names = read_mulan_xml(xml_path)
            pos = {n: j for j, n in enumerate(names)}
            missing = [n for n in lab_names if n not in pos]
            if missing:
                raise DataFormatError(f"{xml_path}: label {missing[0]!r} is not an attribute of {path.name}")
            label_idx = [pos[n] for n in lab_names]
        else:
            mc = re.search(r"-C\s+(-?\d+)", relation)
            if mc:
                c = int(mc.group(1))
                if c == 0 or abs(c) >= na:
                    raise DataFormatError(f"{path}: MEKA header says -C {c}, but the file has {na} attributes")
                label_idx = list(range(c)) if c > 0 else list(range(na + c, na))
            else:
                raise InvalidParameterError(
                    f"{path}: the number of labels is unknown; give it (labels=L / --labels L), "
                    "a Mulan XML file, or a MEKA '-C n' relation name")
    for j in label_idx:
        vals = attrs[j][1]
        if vals is not None and len(vals) != 2:
            raise DataFormatError(f"{path}: label attribute {names[j]!r} has {len(vals)} values; expected 2")

    limits.check("labels", len(label_idx), f"{path}: labels")

    # the data rows
    rows = []
    nominal = {j: {v: k for k, v in enumerate(a[1])} for j, a in enumerate(attrs) if a[1] is not None}
    A = _dense_block(lines[data_at:], na, nominal)
    for i in range(data_at, len(lines) if A is None else data_at):
        s = lines[i].strip()
        if not s or s.startswith("%"):
            continue
        row = np.zeros(na)
        if s.startswith("{"):
            if not s.endswith("}"):
                raise DataFormatError(f"{path}, line {numbers[i]}: a sparse row must end with '}}'")
            body = s[1:-1].strip()
            items = [t for t in body.split(",") if t.strip()] if body else []
            for it in items:
                parts = it.split(None, 1)
                if len(parts) != 2:
                    raise DataFormatError(f"{path}, line {numbers[i]}: sparse entry {it.strip()!r} is not 'index value'")
                try:
                    j = int(parts[0])
                except ValueError:
                    raise DataFormatError(f"{path}, line {numbers[i]}: sparse index {parts[0]!r} is not an integer") from None
                if not 0 <= j < na:
                    raise DataFormatError(f"{path}, line {numbers[i]}: sparse index {j} is outside 0..{na - 1}")
                row[j] = _value(parts[1], j, nominal, path, numbers[i], names)
        else:
            toks = s.split(",")
            if len(toks) != na:
                raise DataFormatError(f"{path}, line {numbers[i]}: {len(toks)} values; expected {na}")
            try:
                if nominal:
                    raise ValueError
                row = np.array(toks, dtype=np.float64)
            except ValueError:
                for j, tok in enumerate(toks):
                    row[j] = _value(tok, j, nominal, path, numbers[i], names)
        rows.append(row)
    if A is None:
        if not rows:
            raise DataFormatError(f"{path}: the @data section is empty")
        A = np.vstack(rows)
    feat_idx = [j for j in range(na) if j not in set(label_idx)]
    Y = A[:, label_idx]
    if not np.all((Y == 0) | (Y == 1)):
        r, c = np.argwhere((Y != 0) & (Y != 1))[0]
        raise DataFormatError(f"{path}: label {names[label_idx[c]]!r} of example {r + 1} is {Y[r, c]}; expected 0 or 1")
    bad = ~np.isfinite(A[:, feat_idx])
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise DataFormatError(f"{path}: attribute {names[feat_idx[c]]!r} of example {r + 1} is {A[r, feat_idx[c]]}; "
                              "expected a finite number")
    title = re.sub(r"\s*:?\s*-C\s+-?\d+.*$", "", relation) or path.name
    return MultilabelData(np.ascontiguousarray(A[:, feat_idx]), Y.astype(np.uint8),
                          tuple(names[j] for j in feat_idx), tuple(names[j] for j in label_idx), title)


def _dense_block(lines: list[str], na: int, nominal: dict):
    """All dense data rows at once, read by pandas' C parser, each nominal column mapped through its
    distinct values once; None when the block is not plain (sparse rows, comments, quotes, missing
    values, a wrong count or value), for the line-by-line reader and its messages, and None when
    pandas is not installed (it is the app's extra; that reader gives the same numbers, slower)."""
    rows = [s for s in (ln.strip() for ln in lines) if s]
    if not rows or any(s[0] in "{%" for s in rows):
        return None
    body = "\n".join(rows)
    if "'" in body or '"' in body or "?" in body or body.count(",") != len(rows) * (na - 1):
        return None
    import io

    try:
        import pandas as pd   # optional (the app's extra) and slow to import (0.3-0.8 s): here only
    except ImportError:
        return None
    try:
        df = pd.read_csv(io.StringIO(body), header=None, names=range(na), dtype={j: str for j in nominal},
                         na_filter=False, skipinitialspace=True, engine="c")
        numeric = [j for j in range(na) if j not in nominal]
        A = np.empty((len(rows), na))
        if numeric:
            A[:, numeric] = df[numeric].to_numpy(np.float64)
    except (ValueError, pd.errors.ParserError):
        return None
    if len(df) != len(rows):
        return None
    for j, codes in nominal.items():
        col, uniq = pd.factorize(df[j].to_numpy(str))
        try:
            A[:, j] = np.array([codes[u.strip()] for u in uniq.tolist()], np.float64)[col]
        except KeyError:
            return None
    return A


def _value(tok, j, nominal, path, lineno, names):
    tok = _unquote(tok)
    if tok == "?":
        raise DataFormatError(f"{path}, line {lineno}: missing value '?' for attribute {names[j]!r}")
    if j in nominal:
        try:
            return float(nominal[j][tok])
        except KeyError:
            raise DataFormatError(f"{path}, line {lineno}: value {tok!r} is not declared for attribute {names[j]!r}") from None
    try:
        return float(tok)
    except ValueError:
        raise DataFormatError(f"{path}, line {lineno}: value {tok!r} of attribute {names[j]!r} is not a number") from None


#: the settings of :func:`synthetic_multilabel` (a ``{"synthetic": {...}}`` data spec holds some of them)
SYNTHETIC_KEYS = ("n_examples", "n_features", "n_labels", "noise", "coupling", "seed")


def check_synthetic(n_examples=400, n_features=20, n_labels=6, **_) -> None:
    """Refuse the sizes of a :func:`synthetic_multilabel` source in one line before anything is drawn:
    whole numbers (>= 2 examples, >= 1 feature, >= 2 labels) within the ``labels`` and ``data_cells``
    limits (examples x features, examples x labels)."""
    for name, x, lo in (("n_examples", n_examples, 2), ("n_features", n_features, 1), ("n_labels", n_labels, 2)):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < lo:
            raise InvalidParameterError(f"the synthetic source needs >= 2 examples, >= 1 feature and >= 2 labels; "
                                        f"{name} is {str(x)[:40]}")
    limits.check("labels", n_labels, "the synthetic source's labels")
    limits.check("data_cells", n_examples * n_features, f"{n_examples} synthetic examples x {n_features} features =")
    limits.check("data_cells", n_examples * n_labels, f"{n_examples} synthetic examples x {n_labels} labels =")


def synthetic_multilabel(n_examples: int = 400, n_features: int = 20, n_labels: int = 6, *, noise: float = 0.5,
                         coupling: float = 1.5, seed=0) -> MultilabelData:
    """A synthetic multilabel source with correlated labels (the app's embedded default).

    A hidden random tree links the labels; labels are drawn parent first, label j being on when
    ``a_j . x + b_j + coupling * (2 y_parent - 1) + noise * N(0, 1) > 0`` for Gaussian inputs x.
    The label correlations are what a joint (RTA) model can exploit and independent SVMs cannot.
    """
    from engine.multilabel.spanning_trees import random_spanning_trees

    check_synthetic(n_examples, n_features, n_labels)
    rng = np.random.default_rng(check_seed(seed))
    tree = random_spanning_trees(n_labels, 1, seed=rng)
    X = rng.normal(size=(n_examples, n_features))
    A = rng.normal(size=(n_labels, n_features)) / np.sqrt(n_features) * 2.0
    b = rng.normal(scale=0.5, size=n_labels) - 0.3
    Y = np.zeros((n_examples, n_labels), np.uint8)
    parent = tree.parent[0]
    for v in tree.post[0][::-1]:  # parents before children
        z = X @ A[v] + b[v] + noise * rng.normal(size=n_examples)
        if parent[v] >= 0:
            z = z + coupling * (2.0 * Y[:, parent[v]] - 1.0)
        Y[:, v] = z > 0
    return MultilabelData(X, Y, tuple(f"x{j}" for j in range(n_features)),
                          tuple(f"label {j}" for j in range(n_labels)), "synthetic")


def load_multilabel(spec, labels=None) -> MultilabelData:
    """A data set from a spec: a path to an ARFF file, or ``{"synthetic": {...}}`` keyword arguments
    for :func:`synthetic_multilabel` (``"synthetic"`` alone for the defaults, with ``labels`` labels
    when that is given as a count)."""
    if spec is None or spec == "synthetic":
        if isinstance(labels, str) and labels.strip().lstrip("-").isdigit():
            labels = int(labels)
        if labels is None:
            return synthetic_multilabel()
        if not isinstance(labels, int) or isinstance(labels, bool):
            raise InvalidParameterError(f"the synthetic source takes a label count, not {labels!r}")
        return synthetic_multilabel(n_labels=labels)  # it checks labels >= 2
    if isinstance(spec, dict):
        if set(spec) != {"synthetic"}:
            raise InvalidParameterError(f"a data spec dict must be {{'synthetic': {{...}}}}, got keys {sorted(spec)}")
        try:
            return synthetic_multilabel(**(spec["synthetic"] or {}))
        except TypeError as exc:
            raise InvalidParameterError(f"bad synthetic data settings: {exc}") from None
    if isinstance(labels, str) and labels.strip().lstrip("-").isdigit():
        labels = int(labels)
    if isinstance(labels, (str, Path)):
        return read_arff(spec, xml=labels)
    return read_arff(spec, labels)


def benchmark_files() -> dict:
    """The Mulan benchmark files present on this machine, by name (``engine.datasets.data_home()``,
    sub-folder ``multilabel``; empty when absent)."""
    from engine.datasets import available

    return {name: files[0] for name, files in available("multilabel").items()}
