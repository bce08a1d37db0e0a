"""Parameter estimators and closed-form log-losses of Markov forests
("Online Forest Density Estimation", Koriche, sections 3-5).

* :class:`PairCounts` keeps the univariate and bivariate counts of a sample stream: built in batch
  by one matrix product (:meth:`PairCounts.from_data`) or updated one sample at a time in
  O(n^2) vectorised work (:meth:`PairCounts.add`).
* :func:`jeffreys_tables` are Algorithm 1's estimators (lines 6-7): ``(t_u + 1/2) / (t + m/2)``
  and ``(t_uv + 1/2) / (t + m^2/2)``. Their node tables are NOT the marginals of their pair tables
  (``sum_v (t_uv + 1/2) / (t + m^2/2) = (t_u + m/2) / (t + m^2/2)``), so the closed form (1) with
  them is not a normalised distribution. They drive the structure weights, as in the paper.
* :func:`consistent_tables` takes the node tables as the marginals of the smoothed pair tables
  (every pair table with the same pseudo-count gives the same node marginal), so that (1) is a
  normalised distribution for every forest. Test log-likelihoods are measured with these.
* :func:`forest_loglik` is equation (1), :func:`mixture_logloss` equation (5)
  (``psi(x) + <p, phi(x)>``, affine in the edge weights ``p``), :func:`mutual_information` the
  Chow-Liu edge weights.

Pairs ``(i, j)``, ``i < j``, are numbered in ``numpy.triu_indices(n, 1)`` order (:func:`pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine.errors import InvalidParameterError
from engine.params import Param
from engine.shapes import dimension

__all__ = ["pairs", "pair_id", "PairCounts", "Tables", "jeffreys_tables", "consistent_tables",
           "forest_loglik", "mixture_logloss", "mutual_information", "log_bayes_factor"]


@lru_cache(maxsize=64)
def pairs(n: int):
    """``(iu, ju)``: the ``n(n-1)/2`` pairs ``i < j`` in ``triu_indices`` order (read-only arrays)."""
    iu, ju = np.triu_indices(n, 1)
    iu, ju = iu.astype(np.int64), ju.astype(np.int64)
    iu.flags.writeable = False
    ju.flags.writeable = False
    return iu, ju


def pair_id(i, j, n: int):
    """Index of pair ``(min(i,j), max(i,j))`` in :func:`pairs` order (vectorised)."""
    i, j = np.minimum(i, j), np.maximum(i, j)
    return i * n - i * (i + 1) // 2 + (j - i - 1)


def _gram(A: np.ndarray) -> np.ndarray:
    """``A^T A`` on one BLAS thread: a tall, thin product gains little from threads and loses
    much when the cores are shared (measured: 15 ms single-threaded vs 60 ms to 4 s threaded for
    kdd on a loaded 2-core machine)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings threadpoolctl
        return A.T @ A
    with threadpool_limits(1, user_api="blas"):
        return A.T @ A


class PairCounts:
    """Counts of values and value pairs of ``n`` variables over alphabet ``m``.

    total : number of samples seen.
    node : (n, m) int64, ``node[i, u]`` = number of samples with ``x_i = u``.
    pair : (E, m, m) int64, ``pair[e, u, v]`` = number with ``(x_i, x_j) = (u, v)`` for pair ``e = (i, j)``.
    """

    def __init__(self, n: int, m: int = 2):
        if n < 1 or m < 2:
            raise InvalidParameterError(f"need n >= 1 variables and alphabet m >= 2, got n={n}, m={m}")
        self.n, self.m = int(n), int(m)
        self.iu, self.ju = pairs(self.n)
        self.total = 0
        self.node = np.zeros((self.n, self.m), dtype=np.int64)
        self.pair = np.zeros((len(self.iu), self.m, self.m), dtype=np.int64)
        self._pair_base = np.arange(len(self.iu), dtype=np.int64) * self.m * self.m
        self._node_base = np.arange(self.n, dtype=np.int64) * self.m

    @classmethod
    def from_data(cls, X: np.ndarray, m: int = 2) -> "PairCounts":
        """All counts of ``X`` (N, n) at once: one matrix product (``X^T X`` for binary data,
        one-hot codes otherwise), exact in float32 up to 2^24 samples, float64 beyond."""
        X = np.asarray(X)
        N, n = X.shape
        self = cls(n, m)
        self.total = int(N)
        dtype = np.float32 if N < 2 ** 24 else np.float64
        if m == 2:
            Xf = X.astype(dtype)
            S = np.rint(_gram(Xf)).astype(np.int64)  # S[i, j] = #(x_i = 1, x_j = 1)
            c1 = np.diag(S).copy()
            self.node[:, 1] = c1
            self.node[:, 0] = N - c1
            iu, ju = self.iu, self.ju
            s = S[iu, ju]
            self.pair[:, 1, 1] = s
            self.pair[:, 1, 0] = c1[iu] - s
            self.pair[:, 0, 1] = c1[ju] - s
            self.pair[:, 0, 0] = N - c1[iu] - c1[ju] + s
        else:
            oh = np.zeros((N, n * m), dtype=dtype)
            oh[np.arange(N)[:, None], np.arange(n)[None, :] * m + X] = 1
            S = np.rint(_gram(oh)).astype(np.int64).reshape(n, m, n, m)
            self.node[:] = S[np.arange(n), :, np.arange(n), :].diagonal(axis1=1, axis2=2)
            self.pair[:] = S[self.iu, :, self.ju, :]
        return self

    def codes(self, x: np.ndarray) -> np.ndarray:
        """Flat indices into ``pair`` of the value pairs of sample ``x`` (shape ``(E,)``)."""
        return self._pair_base + x[self.iu] * self.m + x[self.ju]

    def add(self, x: np.ndarray, codes: np.ndarray | None = None) -> None:
        """Count one sample ``x`` (n,) of codes (trusted: validated at the learner's boundary)."""
        if codes is None:
            codes = self.codes(x)
        self.pair.reshape(-1)[codes] += 1
        self.node.reshape(-1)[self._node_base + x] += 1
        self.total += 1


@dataclass(frozen=True)
class Tables:
    """Log-probability tables of a Markov forest's candidate parameters.

    node_logp : (n, m), ``log theta_i(u)``.
    pair_logp : (E, m, m), ``log theta_ij(u, v)`` in :func:`pairs` order.
    """

    node_logp: np.ndarray
    pair_logp: np.ndarray

    n = dimension("node_logp", 0, "Number of variables.")
    m = dimension("node_logp", 1, "Alphabet size.")

    def edge_logratio(self) -> np.ndarray:
        """(E, m, m): ``log theta_ij(u,v) - log theta_i(u) - log theta_j(v)`` (= ``-phi_ij``)."""
        iu, ju = pairs(self.n)
        return self.pair_logp - self.node_logp[iu][:, :, None] - self.node_logp[ju][:, None, :]


#: The pseudo-count a of the add-a estimators: positive, so every log-probability is finite.
PSEUDOCOUNT = Param(float, 0.5, "the pseudo-count a added to every count", lo=0, closed="neither")


def _check_pseudo(a: float, name: str) -> float:
    return PSEUDOCOUNT.check(a, name)


def jeffreys_tables(counts: PairCounts, node_pseudocount: float = 0.5, pair_pseudocount: float = 0.5) -> Tables:
    """Algorithm 1, lines 6-7: add-``a`` estimators (``a = 1/2``: Jeffreys / Krichevsky-Trofimov)."""
    a = _check_pseudo(node_pseudocount, "node_pseudocount")
    b = _check_pseudo(pair_pseudocount, "pair_pseudocount")
    m, t = counts.m, counts.total
    node = np.log(counts.node + a) - np.log(t + m * a)
    pair = np.log(counts.pair + b) - np.log(t + m * m * b)
    return Tables(node, pair)


def consistent_tables(counts: PairCounts, pseudocount: float = 0.5) -> Tables:
    """Pair tables add ``pseudocount`` to every cell; node tables are their marginals
    ``(t_u + m a) / (t + m^2 a)``, so equation (1) is normalised for every forest."""
    a = _check_pseudo(pseudocount, "pseudocount")
    m, t = counts.m, counts.total
    z = np.log(t + m * m * a)
    return Tables(np.log(counts.node + m * a) - z, np.log(counts.pair + a) - z)


def _as_edge_ids(edges, n: int) -> np.ndarray:
    e = np.asarray(edges, dtype=np.int64)
    if e.ndim == 2:
        return pair_id(e[:, 0], e[:, 1], n) if len(e) else np.zeros(0, dtype=np.int64)
    return e


def forest_loglik(X: np.ndarray, edges, tables: Tables) -> np.ndarray:
    """Equation (1): ``log P(x)`` of each row of ``X`` (N, n) under the forest ``edges``
    (``(k, 2)`` vertex pairs or pair ids) with ``tables``. Returns shape ``(N,)``."""
    X = np.asarray(X)
    n, m = tables.n, tables.m
    Xi = X.astype(np.int64)
    out = tables.node_logp[np.arange(n)[None, :], Xi].sum(axis=1)
    ids = _as_edge_ids(edges, n)
    if len(ids):
        iu, ju = pairs(n)
        ratio = tables.edge_logratio()[ids].reshape(len(ids), m * m)
        for k, e in enumerate(ids):
            out = out + ratio[k][Xi[:, iu[e]] * m + Xi[:, ju[e]]]
    return out


def mixture_logloss(x: np.ndarray, p: np.ndarray, tables: Tables) -> float:
    """Equation (5): ``l(p, theta, x) = psi(x) + <p, phi(x)>`` for edge weights ``p`` (E,) —
    the log-loss of the geometric mixture (3), affine in ``p``."""
    x = np.asarray(x, dtype=np.int64)
    n, m = tables.n, tables.m
    iu, ju = pairs(n)
    psi = -tables.node_logp[np.arange(n), x].sum()
    phi = -tables.edge_logratio().reshape(len(iu), m * m)[np.arange(len(iu)), x[iu] * m + x[ju]]
    return float(psi + np.dot(np.asarray(p, dtype=float), phi))


def mutual_information(tables: Tables) -> np.ndarray:
    """(E,) mutual information (nats) of each pair under the pair tables (their own marginals)."""
    P = np.exp(tables.pair_logp)
    P = P / P.sum(axis=(1, 2), keepdims=True)
    pi = P.sum(axis=2, keepdims=True)
    pj = P.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(P > 0, P * (np.log(P) - np.log(pi) - np.log(pj)), 0.0)
    return np.maximum(terms.sum(axis=(1, 2)), 0.0)


def log_bayes_factor(counts: PairCounts, pseudocount: float = 0.5) -> np.ndarray:
    """(E,) ``log`` of the Dirichlet(a) mixture likelihood of the pair sequence over that of the two
    node sequences (equation (10)): the cumulative ``-sum_tau phi^tau(x^tau)`` of Algorithm 1."""
    from scipy.special import gammaln

    a = _check_pseudo(pseudocount, "pseudocount")
    m, t = counts.m, counts.total

    def log_mix(c, k):  # Dirichlet(a) mixture over k cells, counts c summed on the last axis
        return (gammaln(k * a) - k * gammaln(a) + gammaln(c + a).sum(axis=-1) - gammaln(t + k * a))

    lp = log_mix(counts.pair.reshape(len(counts.iu), m * m), m * m)
    ln = log_mix(counts.node, m)
    return lp - ln[counts.iu] - ln[counts.ju]
