"""Loss environments for multi-task allocation on a tree of tasks
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5).

Each environment is a :class:`LossStream`: the task ``v^t`` and the loss vector ``y^t`` in
[0, 1]^k of every trial, plus (for the synthetic ones) each task's true best action, so that a
plot can show what a learner should find. All synthetic environments draw the task of each trial
uniformly at random and losses as Bernoulli draws: mean ``low`` for the task's best action and
``high`` for the others.

* :func:`piecewise_environment`: best actions constant on the pieces left by cutting ``switches``
  random edges of the tree (each cut changes the action across it): the setting TREE-HEDGE is for.
* :func:`iid_environment`: every task's best action drawn independently, ignoring the tree.
* :func:`switching_environment`: piecewise, then halfway through the run one subtree (the largest
  with at most half the tasks) switches to another best action -- an adversary for any learner
  that compares with a fixed labelling.
* :func:`read_loss_file`: user data, rows ``(task, y_1, ..., y_k)`` (CSV/TSV) or JSON lines
  ``{"task": NAME, "loss": [...]}``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import limits
from engine.errors import DataFormatError, InvalidParameterError
from engine.files import read_text, text_lines
from engine.hedge.potentials import check_states
from engine.jsonio import loads
from engine.limits import check_seed
from engine.params import Param
from engine.trees import Tree
from engine.shapes import dimension

__all__ = ["ENVIRONMENTS", "LossStream", "piecewise_environment", "iid_environment",
           "switching_environment", "read_loss_file", "make_environment", "piecewise_labels", "check_stream_size",
           "TRIALS", "LOW", "HIGH"]

ENVIRONMENTS = ("piecewise", "iid", "switching")
#: The length of a loss stream (the run's T).
TRIALS = Param(int, 2000, "the number of trials T", lo=1)
#: The Bernoulli mean loss of each task's best action, and of the other actions (low < high).
LOW = Param(float, 0.2, "the mean loss of the best action", lo=0, hi=1)
HIGH = Param(float, 0.6, "the mean loss of the other actions", lo=0, hi=1)


@dataclass(frozen=True)
class LossStream:
    """A sequence of trials.

    vertices : ndarray of int64, shape (T,)
        The task of each trial.
    losses : ndarray of float64, shape (T, k)
        The loss vector of each trial, in [0, 1].
    best : ndarray of int64, shape (P, n), or None
        The true best action of every task in each of P phases (None for user data).
    phase_start : ndarray of int64, shape (P,), or None
        The first trial (0-based) of each phase; ``phase_start[0] == 0``.
    name : str
        The environment's name.
    """

    vertices: np.ndarray
    losses: np.ndarray
    best: np.ndarray | None = None
    phase_start: np.ndarray | None = None
    name: str = ""

    trials = dimension("vertices", 0, "Number of trials T.")
    k = dimension("losses", 1, "Number of actions k.")

    def best_at(self, t: int) -> np.ndarray | None:
        """The true best action of every task during trial ``t`` (0-based), or None."""
        if self.best is None:
            return None
        return self.best[int(np.searchsorted(self.phase_start, t, side="right")) - 1]

    def prefix(self, t: int) -> "LossStream":
        """The first ``t`` trials."""
        return LossStream(self.vertices[:t], self.losses[:t], self.best, self.phase_start, self.name)


def _rng(seed):
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))


def check_stream_size(trials: int, k: int) -> None:
    """Refuse ``trials`` trials of ``k`` actions past the ``trials`` and ``data_cells`` limits (the
    loss table is trials x k), before anything is drawn."""
    limits.check("trials", trials, "the number of trials")
    limits.check("data_cells", trials * k, f"{trials} trials x {k} actions; losses")


def _check_common(k, trials, low, high):
    k = check_states(k)
    trials = TRIALS.check(trials, "trials")
    check_stream_size(trials, k)
    if not LOW.check(low, "low") < HIGH.check(high, "high"):
        raise InvalidParameterError(
            f"the best action's mean loss low={low!r} must be below the others' high={high!r}")
    return k, trials


def piecewise_labels(tree: Tree, k: int, switches: int, rng) -> np.ndarray:
    """Best actions constant on the pieces left by cutting ``switches`` distinct random edges.

    The root's action is uniform; across a cut edge the child's action is uniform among the k - 1
    others, so there are exactly ``switches`` edges whose ends differ.
    """
    m = tree.n - 1
    if isinstance(switches, bool) or not isinstance(switches, (int, np.integer)) or not 0 <= switches <= m:
        raise InvalidParameterError(
            f"the number of switches must be an integer in 0..{m} (the tree's edges), got {switches!r}")
    shift = np.zeros(tree.n, np.int64)
    if switches:
        cut = rng.choice(m, size=int(switches), replace=False)
        children = tree.edges[cut, 1]
        shift[children] = rng.integers(1, k, size=len(children))
    label = np.empty(tree.n, np.int64)
    label[tree.root] = rng.integers(k)
    parent = tree.parent
    for v in tree.order[1:]:
        label[v] = (label[parent[v]] + shift[v]) % k
    return label


def _bernoulli_losses(vertices, best_per_trial, k, low, high, rng):
    T = len(vertices)
    means = np.full((T, k), float(high))
    means[np.arange(T), best_per_trial] = low
    return (rng.random((T, k)) < means).astype(np.float64)


def piecewise_environment(tree: Tree, k: int, trials: int, *, switches: int = 2, low: float = 0.2,
                          high: float = 0.6, seed=None) -> LossStream:
    """Piecewise-constant best actions over the tree, uniform task arrival, Bernoulli losses."""
    k, trials = _check_common(k, trials, low, high)
    rng = _rng(seed)
    best = piecewise_labels(tree, k, switches, rng)
    v = rng.integers(tree.n, size=trials)
    y = _bernoulli_losses(v, best[v], k, low, high, rng)
    return LossStream(v, y, best[None, :], np.zeros(1, np.int64), "piecewise")


def iid_environment(tree: Tree, k: int, trials: int, *, low: float = 0.2, high: float = 0.6,
                    seed=None) -> LossStream:
    """Each task's best action drawn i.i.d. uniformly (the tree carries no information)."""
    k, trials = _check_common(k, trials, low, high)
    rng = _rng(seed)
    best = rng.integers(k, size=tree.n)
    v = rng.integers(tree.n, size=trials)
    y = _bernoulli_losses(v, best[v], k, low, high, rng)
    return LossStream(v, y, best[None, :], np.zeros(1, np.int64), "iid")


def _subtree_sizes(tree: Tree) -> np.ndarray:
    size = np.ones(tree.n, np.int64)
    for v in tree.order[:0:-1]:
        size[tree.parent[v]] += size[v]
    return size


def switching_environment(tree: Tree, k: int, trials: int, *, switches: int = 2, low: float = 0.2,
                          high: float = 0.6, seed=None) -> LossStream:
    """Piecewise, then at trial ``trials // 2`` one subtree's best actions all shift to other actions.

    The subtree is the largest one (below a non-root vertex) holding at most half of the tasks, ties
    broken at random; each of its tasks moves from action a to (a + s) mod k for one random s != 0.
    """
    k, trials = _check_common(k, trials, low, high)
    if tree.n < 2:
        raise InvalidParameterError("the switching environment needs a tree with at least 2 vertices")
    rng = _rng(seed)
    before = piecewise_labels(tree, k, switches, rng)
    size = _subtree_sizes(tree)
    size[tree.root] = 0
    ok = size <= tree.n // 2
    target = size[ok].max() if ok.any() else 1
    cands = np.flatnonzero((size == target) & ok) if ok.any() else np.flatnonzero(size == 1)
    u = int(rng.choice(cands))
    inside = np.zeros(tree.n, bool)
    inside[u] = True
    for v in tree.order:
        if tree.parent[v] >= 0 and inside[tree.parent[v]]:
            inside[v] = True
    after = before.copy()
    after[inside] = (before[inside] + rng.integers(1, k)) % k
    half = trials // 2
    v = rng.integers(tree.n, size=trials)
    b = np.where(np.arange(trials) < half, before[v], after[v])
    y = _bernoulli_losses(v, b, k, low, high, rng)
    return LossStream(v, y, np.stack([before, after]), np.array([0, half], np.int64), "switching")


def make_environment(kind: str, tree: Tree, k: int, trials: int, *, switches: int = 2,
                     low: float = 0.2, high: float = 0.6, seed=None) -> LossStream:
    """The synthetic environment ``kind`` (one of :data:`ENVIRONMENTS`)."""
    if kind == "piecewise":
        return piecewise_environment(tree, k, trials, switches=switches, low=low, high=high, seed=seed)
    if kind == "iid":
        return iid_environment(tree, k, trials, low=low, high=high, seed=seed)
    if kind == "switching":
        return switching_environment(tree, k, trials, switches=switches, low=low, high=high, seed=seed)
    raise InvalidParameterError(f"unknown environment {kind!r}; expected one of {', '.join(ENVIRONMENTS)} or a loss file")


def _parse_loss(text: str, where: str) -> float:
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise DataFormatError(f"{where}: {str(text)[:40]!r} is not a number") from None
    if not 0.0 <= x <= 1.0:  # also rejects nan
        raise DataFormatError(f"{where}: loss {text} is outside [0, 1]")
    return x


def _loss_rows(path: Path) -> list[tuple[int, str, list]]:
    """The raw rows ``(line number, task, [loss texts])`` of a loss file (a BOM is ignored)."""
    rows: list[tuple[int, str, list]] = []
    text = read_text(path, label=path.name, error=DataFormatError)  # regular files, byte cap, BOM
    numbered = text_lines(text)   # non-blank lines, numbered as an editor shows them (blank runs skipped in C)
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        for i, line in numbered:
            where = f"{path.name} line {i}"
            obj = loads(line, where=where)
            if not isinstance(obj, dict) or "task" not in obj or "loss" not in obj:
                raise DataFormatError(f'{where}: expected {{"task": NAME, "loss": [numbers]}}')
            if not isinstance(obj["loss"], list):
                raise DataFormatError(f"{where}: 'loss' must be a list of numbers")
            rows.append((i, str(obj["task"]), obj["loss"]))
    else:
        at = [0]

        def lines():
            for at[0], line in numbered:
                yield line

        reader = csv.reader(lines(), delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
        for cells in reader:
            i = at[0]
            if not cells or not "".join(cells).strip() or cells[0].lstrip().startswith("#"):
                continue
            if not rows and cells[0].strip().lower() == "task":
                continue
            rows.append((i, cells[0].strip(), [c.strip() for c in cells[1:]]))
    return rows


def read_loss_file(path, tree: Tree, k: int | None = None) -> LossStream:
    """Read trials ``(task, loss vector)`` from a file, checked against the tree.

    ``.jsonl``/``.json``: one object per line, ``{"task": NAME, "loss": [y_1, ..., y_k]}``.
    Anything else: CSV (TSV for ``.tsv``) rows ``NAME, y_1, ..., y_k``; blank lines and lines
    starting with ``#`` are skipped, and so is a first row whose first cell is ``task``. Tasks are
    vertex names of the tree; losses lie in [0, 1]; every row has the same k (= ``k`` if given).
    """
    path = Path(path)
    try:
        rows = _loss_rows(path)
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path.name}: not UTF-8 text (byte {exc.start})") from None
    except csv.Error as exc:
        raise DataFormatError(f"{path.name}: not a CSV file ({exc})") from None
    except OSError as exc:
        raise DataFormatError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    if not rows:
        raise DataFormatError(f"{path.name}: no trials found (expected rows: task, loss_1, ..., loss_k)")
    kk = len(rows[0][2]) if k is None else check_states(k)
    if kk < 2:
        raise DataFormatError(f"{path.name} line {rows[0][0]}: expected at least 2 losses after the task, got {kk}")
    vertices = np.empty(len(rows), np.int64)
    losses = np.empty((len(rows), kk))
    index = {name: i for i, name in enumerate(tree.names)}
    for r, (i, task, ys) in enumerate(rows):
        where = f"{path.name} line {i}"
        if len(ys) != kk:
            raise DataFormatError(f"{where}: expected {kk} losses after the task, got {len(ys)}")
        v = index.get(task)
        if v is None:
            raise DataFormatError(f"{where}: task {task!r} is not a vertex of the tree")
        vertices[r] = v
        for j, y in enumerate(ys):
            losses[r, j] = _parse_loss(y, f"{where}, loss {j + 1}")
    return LossStream(vertices, losses, None, None, path.stem)
