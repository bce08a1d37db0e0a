"""Online Forest Density Estimation (Koriche, Algorithm 1, sections 4-5).

:class:`OFDE` is an online learner with river's verbs (and a scikit-learn density estimator whose
``fit(X)`` plays one round per row): ``learn_one(x)`` plays a forest
``f^t = SWAP_1(p^t)`` (line 4), receives ``x`` (line 5), updates the Jeffreys counts (lines 6-7),
adds ``phi^t(x^t)`` to the cumulative structure losses and asks Follow the Perturbed Leader for
``f^{t+1/2}`` (lines 8-10), mixes ``p^{t+1/2} = alpha_t p^t + (1 - alpha_t) f^{t+1/2}`` (line 11)
and keeps at most ``k`` components with ``SWAP_k`` (line 12). ``predict_one(x)`` is the
log-likelihood of ``x`` under the current mixture.

Choices where the paper leaves room (all documented parameters):

* ``phi^t`` uses the paper's Jeffreys node and pair tables ``theta^t`` (before seeing ``x^t``), so
  ``-W`` is the log Bayes factor of dependence (:func:`~engine.forests.estimators.log_bayes_factor`).
* Probabilities (played loss, :meth:`OFDE.predict_one`, :meth:`OFDE.score_samples`) use normalised
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
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from engine import limits
from engine.errors import InvalidParameterError
from engine.forests.estimators import PSEUDOCOUNT, PairCounts, Tables, consistent_tables, forest_loglik, pair_id, pairs
from engine.forests.fpl import PerturbedLeader, paper_alpha, paper_beta
from engine.forests.structure import _check_model, kernels
from engine.forests.validation import CodesDensity, as_codes, check_alphabet, check_codes
from engine.limits import check_seed

__all__ = ["OFDE", "default_mixture_size"]


def default_mixture_size(n: int) -> int:
    """The paper's ``k = ln n``, rounded (at least 1)."""
    return max(1, int(round(math.log(max(n, 1)))))


class OFDE(CodesDensity, BaseEstimator):
    """Online forest (or tree) density estimator: river's verbs and a scikit-learn density estimator.

    Parameters
    ----------
    n_vars : number of variables, or None (the width of the first data).
    m : alphabet size (samples are codes ``0..m-1``), or None: inferred from the first data, the
        largest code plus one (at least 2) of the batch given to ``fit``/``partial_fit`` or of the
        first sample given to ``learn_one`` (give ``m`` when a later sample may use a larger code).
    model : ``"trees"`` (class T_{m,n}) or ``"forests"`` (F_{m,n}).
    mixture_size : ``k``, the most components kept (default ``round(ln n)``).
    perturbation_scale : multiplies the paper's perturbation range ``1/beta_t``; 1 is the paper,
        smaller converges faster to the leader (the Chow-Liu tree) with a weaker regret bound.
    prior : Dirichlet hyperparameter of the estimators (1/2: Jeffreys).
    seed : int or ``numpy.random.Generator``.

    River's verbs: ``learn_one(x)`` is one round of Algorithm 1, ``predict_one(x)`` the
    log-likelihood of ``x`` under the current mixture (``-n log m`` before any data), ``learn_many(X)``
    a round per row. scikit-learn's: ``fit(X)`` starts afresh and plays one round per row of ``X``
    (the same rounds as ``learn_one`` on each row), ``partial_fit(X)`` goes on from the current state,
    ``score_samples(X)`` is ``log P(x)`` (nats) per row and ``score(X)`` their mean per sample (as
    ``GaussianMixture.score``).

    Learned state: ``n_features_in_`` (n), ``m_``, ``k_`` (the mixture size in use), ``t_`` (rounds),
    ``counts_`` (:class:`PairCounts`), ``leader_`` (the FPL), ``components_`` (list of spanning trees
    of K_V as ``(V-1, 2)`` arrays; ``V = n + 1`` for forests, the extra vertex ``n``), ``weights_``,
    ``online_loss_`` (cumulative log-loss of the played forests, nats).

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

    ``fit`` plays the same rounds:

    >>> batch = OFDE(seed=0).fit(X)
    >>> bool(np.allclose(batch.score_samples(X), learner.score_samples(X), rtol=1e-12)), round(batch.score(X), 3)
    (True, -1.648)
    """

    def __init__(self, n_vars: int | None = None, m: int | None = None, *, model: str = "trees",
                 mixture_size: int | None = None, perturbation_scale: float = 1.0, prior: float = 0.5,
                 seed=None):
        self.n_vars = n_vars
        self.m = m
        self.model = model
        self.mixture_size = mixture_size
        self.perturbation_scale = perturbation_scale
        self.prior = prior
        self.seed = seed

    # ------------------------------------------------------------------ set-up
    def _started(self) -> bool:
        return hasattr(self, "t_")

    def _start(self, n: int, m: int) -> None:
        """Check the parameters against the data's width ``n`` and alphabet ``m``; start from round 0."""
        forest = _check_model(self.model)
        if self.n_vars is not None and (isinstance(self.n_vars, bool) or self.n_vars != n):
            raise InvalidParameterError(f"OFDE was given n_vars={self.n_vars!r}, but the samples have {n} values")
        if n < 2:
            raise InvalidParameterError(f"OFDE needs at least 2 variables, got {n}")
        m = check_alphabet(m, "OFDE")
        if self.mixture_size is None:
            k = default_mixture_size(n)
        else:
            k = limits.check_count("mixture", self.mixture_size, "mixture size k", minimum=1)
        prior = PSEUDOCOUNT.check(self.prior, "prior")
        leader = PerturbedLeader(n, self.model, self.perturbation_scale)
        self._rng = np.random.default_rng(check_seed(self.seed))
        self._forest, self._prior = forest, prior
        self._n, self._V = n, n + 1 if forest else n
        self._iu, self._ju = pairs(n)
        self._logc = np.log(np.arange(1024) + self._prior)  # log(c + a) for integer counts c
        self.n_features_in_, self.m_, self.k_ = n, m, int(k)
        self.counts_ = PairCounts(n, m)
        self.leader_ = leader
        self.components_: list = []
        self.weights_: list = []
        self.t_ = 0
        self.online_loss_ = 0.0

    def _prepare(self, X) -> np.ndarray:
        """The ``(N, n)`` codes ``X`` as ``int64`` rows to learn from (validated once), the learner
        started on them if it has seen no data yet."""
        X = np.asarray(X)
        width = self._n if self._started() else self.n_vars
        if X.ndim != 2 or (width is not None and X.shape[1] != width):
            shown = "n" if width is None else width
            raise InvalidParameterError(f"samples must have shape (N, {shown}), got {X.shape}")
        X, m = as_codes(X, self.m_ if self._started() else self.m, who="OFDE")
        if not self._started():
            self._start(X.shape[1], m)
        return X.astype(np.int64)

    # ------------------------------------------------------------------ helpers
    @property
    def _K(self):
        """The compiled kernels (a module: looked up, not stored, so that a learner pickles)."""
        return kernels()

    def _log_count(self, c: np.ndarray) -> np.ndarray:
        if c.size and c.max() >= len(self._logc):
            self._logc = np.log(np.arange(2 * (int(c.max()) + 1)) + self._prior)
        return self._logc[c]

    def _check_first(self, x) -> tuple[np.ndarray, int]:
        """The first sample (nothing learned yet): its codes and the alphabet (``m``, or inferred)."""
        x = np.asarray(x)
        if x.ndim != 1 or (self.n_vars is not None and x.shape != (self.n_vars,)):
            raise InvalidParameterError(f"a sample must have {self.n_vars or 'n'} values, got shape {x.shape}")
        return as_codes(x, self.m, who="OFDE")

    def _check_x(self, x) -> np.ndarray:
        x = np.asarray(x)
        if x.shape != (self._n,):
            raise InvalidParameterError(f"a sample must have {self._n} values, got shape {x.shape}")
        xi = x.astype(np.int64)
        if not np.array_equal(xi, x) or xi.min() < 0 or xi.max() >= self.m_:
            bad = int(np.flatnonzero((xi != x) | (xi < 0) | (xi >= self.m_))[0])
            raise InvalidParameterError(f"value {x[bad].item()!r} of variable {bad} is not a code 0..{self.m_ - 1}"
                                        + (" (m was inferred from the first data: give OFDE(m=...))"
                                           if self.m is None else ""))
        return xi

    def _to_forest(self, ids: np.ndarray) -> np.ndarray:
        if self._forest:
            return self._K.extend_forest(ids, self._iu, self._ju, self._n)
        return np.stack([self._iu[ids], self._ju[ids]], axis=1)

    def _swap1(self) -> np.ndarray:
        t, w = self.components_[0], self.weights_[0]
        for tc, wc in zip(self.components_[1:], self.weights_[1:]):
            t, _ = self._K.merge_bases(t, tc, w / (w + wc), self._rng.random(self._V), self._V)
            w += wc
        return t

    def _real(self, tree: np.ndarray) -> np.ndarray:
        return tree[tree[:, 1] < self._n] if self._forest else tree

    # ------------------------------------------------------------------ river verbs
    def learn_one(self, x) -> None:
        """One round of Algorithm 1 on sample ``x`` (``n`` codes in ``0..m-1``)."""
        if not self._started():
            x, m = self._check_first(x)
            self._start(len(x), m)
        self._learn(self._check_x(x))

    def _learn(self, x: np.ndarray) -> None:
        t = self.t_ + 1
        m, a, cnt = self.m_, self._prior, self.counts_
        s = cnt.total  # = t - 1
        codes = cnt.codes(x)
        c_pair = cnt.pair.reshape(-1)[codes]
        c_node = cnt.node[np.arange(self._n), x]
        # line 4: play f^t = SWAP_1(p^t) and suffer its (normalised) log-loss
        node_norm = np.log(c_node + m * a) - math.log(s + m * m * a)
        loss = -node_norm.sum()
        if self.components_:
            played = self._real(self._swap1())
            if len(played):
                e = pair_id(played[:, 0], played[:, 1], self._n)
                loss -= (self._log_count(c_pair[e]) - math.log(s + m * m * a)
                         - node_norm[played[:, 0]] - node_norm[played[:, 1]]).sum()
        self.online_loss_ += float(loss)
        # lines 6-7 and phi^t(x^t) = ln theta_i + ln theta_j - ln theta_ij (tables theta^t)
        ln_node = np.log(c_node + a) - math.log(s + m * a)
        ln_pair = self._log_count(c_pair) - math.log(s + m * m * a)
        self.leader_.add(ln_node[self._iu] + ln_node[self._ju] - ln_pair)
        cnt.add(x, codes)
        # lines 8-12
        ids = self.leader_.leader(paper_beta(t, self._n), self._rng)
        new = self._to_forest(ids)
        if self.components_:
            alpha = paper_alpha(t, self._n)
            self.weights_ = [alpha * w for w in self.weights_] + [1.0 - alpha]
            self.components_.append(new)
            self._swap_k()
        else:
            self.components_, self.weights_ = [new], [1.0]
        self.t_ = t

    def _swap_k(self) -> None:
        comps, ws = self.components_, self.weights_
        while len(comps) > self.k_:
            order = np.argsort(ws, kind="stable")
            i, j = sorted(order[:2].tolist())
            merged, _ = self._K.merge_bases(comps[i], comps[j], ws[i] / (ws[i] + ws[j]),
                                            self._rng.random(self._V), self._V)
            comps[i], ws[i] = merged, ws[i] + ws[j]
            del comps[j], ws[j]
        total = sum(ws)
        self.weights_ = [w / total for w in ws]

    def learn_many(self, X) -> None:
        """``learn_one`` on every row of ``X`` (validated once)."""
        for row in self._prepare(X):
            self._learn(row)

    # ------------------------------------------------------------------ scikit-learn's verbs
    def fit(self, X, y=None) -> "OFDE":
        """Start afresh and play one round per row of the ``(N, n)`` codes ``X`` (``y`` is ignored)."""
        X, _ = check_codes(self, X, reset=True, m=self.m)
        self.__dict__.pop("t_", None)   # forget the previous stream: _prepare starts afresh
        for row in self._prepare(X):
            self._learn(row)
        return self

    def partial_fit(self, X, y=None) -> "OFDE":
        """One round per row of ``X``, going on from the current state (the first call starts it)."""
        X, _ = check_codes(self, X, reset=not self._started(), m=self.m_ if self._started() else self.m)
        self.learn_many(X)
        return self

    # ------------------------------------------------------------------ predictions
    def tables(self) -> Tables:
        """The normalised tables of the current counts."""
        return consistent_tables(self.counts_, self._prior)

    def forests(self) -> list:
        """The mixture's component forests of K_n, ``(k_c, 2)`` vertex pairs each."""
        return [self._real(c) for c in self.components_]

    def current_forest(self) -> np.ndarray:
        """The heaviest component's forest (``(k, 2)`` pairs; the empty forest before round 1)."""
        if not getattr(self, "components_", None):
            return np.zeros((0, 2), dtype=np.int64)
        return self._real(self.components_[int(np.argmax(self.weights_))])

    def sample_forest(self) -> np.ndarray:
        """A forest drawn by ``SWAP_1`` from the current mixture (what the next round plays)."""
        if not getattr(self, "components_", None):
            return np.zeros((0, 2), dtype=np.int64)
        return self._real(self._swap1())

    def _loglik(self, X: np.ndarray) -> np.ndarray:
        tab = self.tables()
        if not self.components_:
            return forest_loglik(X, np.zeros((0, 2), dtype=np.int64), tab)
        ll = np.stack([forest_loglik(X, f, tab) for f in self.forests()])
        lw = np.log(np.asarray(self.weights_))[:, None]
        top = (ll + lw).max(axis=0)
        return top + np.log(np.exp(ll + lw - top).sum(axis=0))

    def score_samples(self, X) -> np.ndarray:
        """``log P(x)`` (nats) of each row of ``X`` under the arithmetic mixture of the components."""
        check_is_fitted(self, "t_")
        X, _ = check_codes(self, X, reset=False, m=self.m_)
        return self._loglik(X)

    def predict_one(self, x) -> float:
        """Log-likelihood (nats) of one sample under the current mixture (uniform before any data)."""
        if not self._started():
            x, m = self._check_first(x)
            return -len(x) * math.log(m)
        return float(self._loglik(self._check_x(x)[None, :])[0])
