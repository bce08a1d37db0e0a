"""Online Forest Density Estimation (Koriche, Algorithm 1, sections 4-5).

:class:`OFDE` is an online learner with river's verbs: ``learn_one(x)`` plays a forest
``f^t = SWAP_1(p^t)`` (line 4), receives ``x`` (line 5), updates the Jeffreys counts (lines 6-7),
adds ``phi^t(x^t)`` to the cumulative structure losses and asks Follow the Perturbed Leader for
``f^{t+1/2}`` (lines 8-10), mixes ``p^{t+1/2} = alpha_t p^t + (1 - alpha_t) f^{t+1/2}`` (line 11)
and keeps at most ``k`` components with ``SWAP_k`` (line 12). ``predict_one(x)`` is the
log-likelihood of ``x`` under the current mixture.

Choices where the paper leaves room (all documented parameters):

* ``phi^t`` uses the paper's Jeffreys node and pair tables ``theta^t`` (before seeing ``x^t``), so
  ``-W`` is the log Bayes factor of dependence (:func:`~engine.forests.estimators.log_bayes_factor`).
* Probabilities (played loss, :meth:`OFDE.predict_one`, :meth:`OFDE.score`) use normalised
  tables: pair tables with pseudo-count ``prior`` per cell, node tables their marginals
  (:func:`~engine.forests.estimators.consistent_tables`). With the paper's node tables,
  equation (1) does not sum to one.
* ``p^1 = 0``: round 1 plays the empty forest (for trees any tree scores the same under uniform
  tables) and the first leader enters the mixture with weight 1.
* The mixture's likelihood is the arithmetic mixture ``sum_c w_c P_{f_c}(x)`` of its normalised
  components; ``SWAP_k`` merges the two lightest components.
* ``k = max(1, round(ln n))``.

With the paper's ``alpha_t`` the newest leader holds ``1 - alpha_t`` of the mixture, so the
mixture's test log-likelihood is, to about ``alpha_t`` nats, that of the round-t perturbed leader;
its gap to Chow-Liu is the perturbation's (``n sqrt(t/2)`` on cumulative losses, i.e.
``n / sqrt(2t)`` in mutual-information units), not a loss of this implementation (README,
"Is the gap the paper's or this implementation's?").
"""

from __future__ import annotations

import math

import numpy as np

from engine.errors import InvalidParameterError
from engine.forests.estimators import PairCounts, Tables, consistent_tables, forest_loglik, pair_id, pairs
from engine.forests.fpl import PerturbedLeader, paper_alpha, paper_beta
from engine.forests.structure import _check_model, kernels
from engine.limits import check_seed

__all__ = ["OFDE", "default_mixture_size"]


def default_mixture_size(n: int) -> int:
    """The paper's ``k = ln n``, rounded (at least 1)."""
    return max(1, int(round(math.log(max(n, 1)))))


class OFDE:
    """Online forest (or tree) density estimator.

    Parameters
    ----------
    n_vars, m : number of variables and alphabet size.
    model : ``"trees"`` (class T_{m,n}) or ``"forests"`` (F_{m,n}).
    mixture_size : ``k``, the most components kept (default ``round(ln n)``).
    perturbation_scale : multiplies the paper's perturbation range ``1/beta_t``; 1 is the paper,
        smaller converges faster to the leader (the Chow-Liu tree) with a weaker regret bound.
    prior : Dirichlet hyperparameter of the estimators (1/2: Jeffreys).
    seed : int or ``numpy.random.Generator``.

    Learned state: ``t_`` (rounds), ``counts_`` (:class:`PairCounts`), ``leader_`` (the FPL),
    ``components_`` (list of spanning trees of K_V as ``(V-1, 2)`` arrays; ``V = n + 1`` for
    forests, the extra vertex ``n``), ``weights_``, ``online_loss_`` (cumulative log-loss of the
    played forests, nats).

    Examples
    --------
    Three binary variables, the second a noisy copy of the first:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x0 = rng.integers(0, 2, 500)
    >>> X = np.column_stack([x0, x0 ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)])
    >>> learner = OFDE(3, seed=0)
    >>> for x in X:
    ...     learner.learn_one(x)
    >>> learner.t_, [0, 1] in learner.current_forest().tolist()
    (500, True)
    """

    def __init__(self, n_vars: int, m: int = 2, *, model: str = "trees", mixture_size: int | None = None,
                 perturbation_scale: float = 1.0, prior: float = 0.5, seed=None):
        self.forest = _check_model(model)
        if n_vars < 2:
            raise InvalidParameterError(f"OFDE needs at least 2 variables, got {n_vars}")
        if not 2 <= m <= 64:
            raise InvalidParameterError(f"alphabet size must be in 2..64, got {m}")
        if mixture_size is not None:
            from engine import limits

            mixture_size = limits.check_count("mixture", mixture_size, "mixture size k", minimum=1)
        if not prior > 0:
            raise InvalidParameterError(f"prior (Dirichlet pseudo-count) must be positive, got {prior}")
        self.n, self.m, self.model = int(n_vars), int(m), model
        self.k = default_mixture_size(self.n) if mixture_size is None else int(mixture_size)
        self.perturbation_scale = float(perturbation_scale)
        self.prior = float(prior)
        self.rng = np.random.default_rng(check_seed(seed))
        self.V = self.n + 1 if self.forest else self.n
        self.iu, self.ju = pairs(self.n)
        self.counts_ = PairCounts(self.n, self.m)
        self.leader_ = PerturbedLeader(self.n, model, self.perturbation_scale)
        self.components_: list = []
        self.weights_: list = []
        self.t_ = 0
        self.online_loss_ = 0.0
        self._K = kernels()
        self._logc = np.log(np.arange(1024) + self.prior)  # log(c + a) for integer counts c

    # ------------------------------------------------------------------ helpers
    def _log_count(self, c: np.ndarray) -> np.ndarray:
        if c.size and c.max() >= len(self._logc):
            self._logc = np.log(np.arange(2 * (int(c.max()) + 1)) + self.prior)
        return self._logc[c]

    def _check_x(self, x) -> np.ndarray:
        x = np.asarray(x)
        if x.shape != (self.n,):
            raise InvalidParameterError(f"a sample must have {self.n} values, got shape {x.shape}")
        xi = x.astype(np.int64)
        if not np.array_equal(xi, x) or xi.min() < 0 or xi.max() >= self.m:
            bad = int(np.flatnonzero((xi != x) | (xi < 0) | (xi >= self.m))[0])
            raise InvalidParameterError(f"value {x[bad]!r} of variable {bad} is not a code 0..{self.m - 1}")
        return xi

    def _to_forest(self, ids: np.ndarray) -> np.ndarray:
        if self.forest:
            return self._K.extend_forest(ids, self.iu, self.ju, self.n)
        return np.stack([self.iu[ids], self.ju[ids]], axis=1)

    def _swap1(self) -> np.ndarray:
        t, w = self.components_[0], self.weights_[0]
        for tc, wc in zip(self.components_[1:], self.weights_[1:]):
            t, _ = self._K.merge_bases(t, tc, w / (w + wc), self.rng.random(self.V), self.V)
            w += wc
        return t

    def _real(self, tree: np.ndarray) -> np.ndarray:
        return tree[tree[:, 1] < self.n] if self.forest else tree

    # ------------------------------------------------------------------ river verbs
    def learn_one(self, x) -> None:
        """One round of Algorithm 1 on sample ``x`` (``n`` codes in ``0..m-1``)."""
        x = self._check_x(x)
        self._learn(x)

    def _learn(self, x: np.ndarray) -> None:
        t = self.t_ + 1
        m, a, cnt = self.m, self.prior, self.counts_
        s = cnt.total  # = t - 1
        codes = cnt.codes(x)
        c_pair = cnt.pair.reshape(-1)[codes]
        c_node = cnt.node[np.arange(self.n), x]
        # line 4: play f^t = SWAP_1(p^t) and suffer its (normalised) log-loss
        node_norm = np.log(c_node + m * a) - math.log(s + m * m * a)
        loss = -node_norm.sum()
        if self.components_:
            played = self._real(self._swap1())
            if len(played):
                e = pair_id(played[:, 0], played[:, 1], self.n)
                loss -= (self._log_count(c_pair[e]) - math.log(s + m * m * a)
                         - node_norm[played[:, 0]] - node_norm[played[:, 1]]).sum()
        self.online_loss_ += float(loss)
        # lines 6-7 and phi^t(x^t) = ln theta_i + ln theta_j - ln theta_ij (tables theta^t)
        ln_node = np.log(c_node + a) - math.log(s + m * a)
        ln_pair = self._log_count(c_pair) - math.log(s + m * m * a)
        self.leader_.add(ln_node[self.iu] + ln_node[self.ju] - ln_pair)
        cnt.add(x, codes)
        # lines 8-12
        ids = self.leader_.leader(paper_beta(t, self.n), self.rng)
        new = self._to_forest(ids)
        if self.components_:
            alpha = paper_alpha(t, self.n)
            self.weights_ = [alpha * w for w in self.weights_] + [1.0 - alpha]
            self.components_.append(new)
            self._swap_k()
        else:
            self.components_, self.weights_ = [new], [1.0]
        self.t_ = t

    def _swap_k(self) -> None:
        comps, ws = self.components_, self.weights_
        while len(comps) > self.k:
            order = np.argsort(ws, kind="stable")
            i, j = sorted(order[:2].tolist())
            merged, _ = self._K.merge_bases(comps[i], comps[j], ws[i] / (ws[i] + ws[j]),
                                            self.rng.random(self.V), self.V)
            comps[i], ws[i] = merged, ws[i] + ws[j]
            del comps[j], ws[j]
        total = sum(ws)
        self.weights_ = [w / total for w in ws]

    def learn_many(self, X: np.ndarray) -> None:
        """``learn_one`` on every row of ``X`` (validated once)."""
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n:
            raise InvalidParameterError(f"samples must have shape (N, {self.n}), got {X.shape}")
        if X.size and (X.min() < 0 or X.max() >= self.m):
            raise InvalidParameterError(f"sample values must be codes 0..{self.m - 1}")
        for row in X.astype(np.int64):
            self._learn(row)

    # ------------------------------------------------------------------ predictions
    def tables(self) -> Tables:
        """The normalised tables of the current counts."""
        return consistent_tables(self.counts_, self.prior)

    def forests(self) -> list:
        """The mixture's component forests of K_n, ``(k_c, 2)`` vertex pairs each."""
        return [self._real(c) for c in self.components_]

    def current_forest(self) -> np.ndarray:
        """The heaviest component's forest (``(k, 2)`` pairs; the empty forest before round 1)."""
        if not self.components_:
            return np.zeros((0, 2), dtype=np.int64)
        return self._real(self.components_[int(np.argmax(self.weights_))])

    def sample_forest(self) -> np.ndarray:
        """A forest drawn by ``SWAP_1`` from the current mixture (what the next round plays)."""
        if not self.components_:
            return np.zeros((0, 2), dtype=np.int64)
        return self._real(self._swap1())

    def loglik(self, X: np.ndarray) -> np.ndarray:
        """``log P(x)`` (nats) of each row of ``X`` under the arithmetic mixture of the components."""
        X = np.atleast_2d(np.asarray(X))
        tab = self.tables()
        if not self.components_:
            return forest_loglik(X, np.zeros((0, 2), dtype=np.int64), tab)
        ll = np.stack([forest_loglik(X, f, tab) for f in self.forests()])
        lw = np.log(np.asarray(self.weights_))[:, None]
        top = (ll + lw).max(axis=0)
        return top + np.log(np.exp(ll + lw - top).sum(axis=0))

    def predict_one(self, x) -> float:
        """Log-likelihood (nats) of one sample under the current mixture."""
        return float(self.loglik(self._check_x(x)[None, :])[0])

    def score(self, X: np.ndarray) -> float:
        """Average log-likelihood (nats) of the rows of ``X``."""
        return float(self.loglik(X).mean())
