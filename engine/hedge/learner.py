"""TREE-HEDGE ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale,
section 5, Figure 3): Hedge over the labellings of a tree of tasks.

The learner keeps the data matrix D of the tree model (T, Theta, D) of section 4. On a trial at
task v it predicts the marginal p(v -> . | Theta, D) and, after the loss vector y arrives, multiplies
the data row of v by exp(-eta y):  D(v) <- D(v) * exp(-eta y). This is exactly Hedge over all
k^n labellings with prior weights p(mu | Theta, D^1) (each labelling mu suffers y(mu(v))), which is
what Theorem 9 bounds. (Figure 3 prints the new row as p_hat(a) e^{-eta y(a)}, which would fold the
other tasks' evidence, already in p_hat, into D(v) a second time: against an adaptive adversary
that update loses up to 10 times its bound; see ``docs/online-sum-product.md``.)

The marginals come from a *backend* (see :data:`BACKENDS`): the online sum-product model of
section 4 (O(cover height) per trial), a full belief-propagation recomputation (O(n) per trial),
or enumeration (tiny trees, for tests). Rows of D are rescaled to a largest entry of 1 after each
update (the log of the factor is carried in :attr:`TreeHedge.log_scale`), which leaves every
marginal unchanged and keeps long runs from underflowing.
"""

from __future__ import annotations

import numpy as np

from engine.errors import InvalidParameterError
from engine.hedge import _inference
from engine.hedge.potentials import check_eta, check_states, edge_potentials, favourite_actions, initial_data
from engine.trees import Tree

__all__ = ["TreeHedge", "BACKENDS", "DEFAULT_BACKEND", "WEIGHT_FLOOR"]

#: How marginals are computed: the online model (O(cover height) per trial), a full belief-
#: propagation pass after each update (O(n)), or enumeration of all labellings (tiny trees).
BACKENDS = ("online", "bp", "brute")
#: The backend TREE-HEDGE uses unless told otherwise.
DEFAULT_BACKEND = "online"
#: A weight of D below this fraction of its row's largest (e^-708, the smallest normal double) is
#: stored as 0: D is a matrix of doubles, and the inference code refuses subnormal entries (they
#: have lost digits). ``TreeHedge._log_data`` keeps the exact logarithm of every weight.
WEIGHT_FLOOR = float(np.finfo(np.float64).tiny)


class TreeHedge:
    """TREE-HEDGE with river verbs ``predict_one(v) -> p`` and ``learn_one(v, y)``.

    Parameters
    ----------
    tree : Tree
        The tasks and their relations.
    k : int
        The number of actions (>= 2).
    eta : float
        The learning rate (> 0).
    coupling : float, optional
        Potts edge potentials: ``coupling`` on the diagonal, ``(1 - coupling)/(k - 1)`` elsewhere
        (default 0.9; ``1/k`` means unrelated tasks). Give this or ``theta``.
    theta : array, optional
        Edge potentials, ``(k, k)`` for every edge or ``(n - 1, k, k)`` aligned with ``tree.edges``.
    data : array, optional
        Initial data D^1 of shape ``(n, k)`` (default ones: a uniform prior at every task).
    backend : str
        One of :data:`BACKENDS`.

    A vertex is given by index (``int``) or name (``str``).

    Examples
    --------
    >>> import numpy as np
    >>> from engine.trees import Tree
    >>> t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
    >>> hedge = TreeHedge(t, 2, eta=1.0, coupling=0.9)
    >>> hedge.predict_one(t.index("5")).tolist()
    [0.5, 0.5]
    >>> hedge.learn_one(t.index("4"), np.array([1.0, 0.0]))  # action 0 lost at the neighbouring task
    >>> hedge.predict_one(t.index("5")).round(4).tolist()  # so task 5 now leans to action 1
    [0.3521, 0.6479]
    """

    def __init__(self, tree: Tree, k: int, *, eta: float, coupling: float | None = None, theta=None,
                 data=None, backend: str = DEFAULT_BACKEND):
        if backend not in BACKENDS:
            raise InvalidParameterError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
        self.tree = tree
        self.k = check_states(k)
        self.eta = check_eta(eta)
        self.coupling = coupling
        self.backend = backend
        self.theta = edge_potentials(tree, self.k, theta, coupling)
        d = initial_data(tree, self.k, data)
        scale = d.max(axis=1)
        self._data = d / scale[:, None]
        with np.errstate(divide="ignore"):
            self._log_data = np.log(self._data)
        self.log_scale = np.log(scale)
        _inference.check_consistent(tree, self.theta, self._data)
        self._model = _inference.make_model(backend, tree, self.theta, self._data)

    # ------------------------------------------------------------------ river verbs
    def _vertex(self, v) -> int:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < self.tree.n:
            return int(v)
        return self.tree.index(v)

    def predict_one(self, v) -> np.ndarray:
        """The allocation at task v: the marginal p(v -> a | Theta, D), shape (k,)."""
        return self._model.marginal(self._vertex(v))

    def learn_one(self, v, y) -> None:
        """Receive the loss vector y in [0, 1]^k of task v: D(v) <- D(v) * exp(-eta y)."""
        v = self._vertex(v)
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (self.k,):
            raise InvalidParameterError(f"a loss vector must have {self.k} entries, got shape {y.shape}")
        if not np.all((y >= 0) & (y <= 1)):
            raise InvalidParameterError(f"losses must lie in [0, 1], got {y.tolist()} at task {self.tree.name(v)}")
        self._learn(v, y)

    def _learn(self, v: int, y: np.ndarray) -> None:
        """The update without checks (the caller validated the stream once)."""
        lr = self._log_data[v] - self.eta * y  # in logs: zeros stay zeros (-inf), nothing underflows
        m = lr.max()  # finite: the row has a positive entry
        lr -= m
        self._log_data[v] = lr
        row = np.exp(lr)
        row[row < WEIGHT_FLOOR] = 0.0   # not subnormal: the inference code refuses those
        self._data[v] = row
        self.log_scale[v] += m
        self._model.update(v, row)

    # ------------------------------------------------------------------ views
    @property
    def cover_height(self) -> int | None:
        """Height of the hierarchical cover the online backend walks (None for other backends)."""
        h = getattr(self._model, "height", None)
        return None if h is None else int(h)

    @property
    def data(self) -> np.ndarray:
        """The current data matrix D, rows rescaled to a largest entry of 1, shape (n, k) (a copy)."""
        return self._data.copy()

    def marginals(self) -> np.ndarray:
        """All marginals, shape (n, k), by one full belief-propagation pass on the current D."""
        return _inference.marginals(self.tree, self.theta, self._data)

    def favourites(self) -> np.ndarray:
        """The action of largest marginal at every task, -1 where tied, shape (n,)."""
        return favourite_actions(self.marginals())
