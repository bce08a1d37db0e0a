"""TF-BHTMM: the Tucker-factorised bottom-up hidden tree Markov model, learned by Gibbs sampling.

Castellana & Bacciu, "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(2019), section III. The transition of equation 5,

    P(Q_u = j | Q_ch) = sum_{i_1..i_L} lambda_{i_1..i_L}(j) prod_l kappa^l_{j_l}(i_l),

with hard clustering ``kappa^l`` (each state of the child in slot ``l``, bottom ``⊥`` included,
belongs to one of ``k_l`` clusters, so ``z_chl`` is a function of ``Q_chl``), the size vector
``k`` with prior ``e^{-phi k_l}`` and ``L_min <= #{l: k_l > 1} <= L_max`` (equations 7-8), Dirichlet
priors on ``pi``, ``b``, ``lambda``, ``lambda_0`` (equations 9-10) and the Gibbs sweep of section
III-C:

1. hidden states ``Q`` (and ``z``). Default (``sampler="exact"``): an exact draw from
   ``P(Q | x, theta, kappa, k)`` -- an upward pass computing ``P(Q_u, x_subtree(u))`` at cost
   ``C * prod(k_l)`` per node, vectorised over a depth level of every tree, then a downward pass
   drawing the root state, the joint cluster configuration of each node's children given its
   state, and each child's state within its drawn cluster. ``sampler="prior"`` keeps the paper's
   prior proposal (Algorithm 1) accepted per tree with probability (11) under annealing.
2. the size vector ``k`` and the clusterings by the split/merge moves of SSVS (Algorithm 2),
   accepted with the marginal likelihood (13) and the prior ratio under simulated annealing (12);
3. ``pi``, ``b``, ``lambda`` from their Dirichlet posteriors (14-16) and ``lambda_0`` by
   Algorithm 3 (Chinese-restaurant table counts).

Only positions with ``k_l > 1`` are kept as axes of ``lambda`` (a position with ``k_l = 1`` does
not change the parent's state), so ``lambda`` is held as a ``(prod k, C)`` array.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.special import gammaln
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from engine.errors import InvalidParameterError
from engine.htmm.config import INIT, ITERATIONS, M0, PHI, SAMPLER, STATES, T0
from engine.htmm.common import (annealing_temperature, check_trees, dirichlet, evidence, fitted_trees, normalise_rows,
                                sample_rows, tree_tags)
from engine.htmm.data import PositionalTrees
from engine.htmm.sp import SPBHTMM
from engine.limits import check_seed
from engine.params import Param, validate_params

__all__ = ["TFBHTMM", "position_bounds"]

_CHUNK = 1 << 22  # entries of a node-by-configuration block in the downward pass


class TFBHTMM(DensityMixin, BaseEstimator):
    """Tucker-factorised BHTMM: a scikit-learn density estimator over positional trees.

    ``fit(trees)`` runs the Gibbs sampler on a :class:`~engine.htmm.data.PositionalTrees` batch (not a
    2-D array), ``score_samples(trees)`` is the exact log-likelihood ``log P(x | theta, kappa, k)`` of
    every tree under the last sweep's parameters and ``score(trees)`` their mean per tree.
    :class:`~engine.htmm.classifier.BHTMMClassifier` makes a classifier of one model per class
    (section IV-A).

    Parameters
    ----------
    n_states : int
        ``C`` hidden states (plus ``⊥`` for empty slots).
    n_iter : int
        Gibbs sweeps.
    lmin, lmax : int
        Bounds on the number of positions with ``k_l > 1`` (``lmax`` defaults to ``min(L, 5)``,
        the paper's setting, which bounds the core tensor to ``O(C^6)`` entries).
    max_core : int
        SSVS proposals whose core tensor ``lambda`` would exceed this many entries
        (``C * prod(k)``) are rejected (a memory guard; the default is far above what the size
        prior lets the chain reach).
    phi : float
        Decay of the size prior ``p(k_l) ∝ e^{-phi k_l}``.
    alpha, alpha0, gamma, beta : float
        Concentrations of ``lambda ~ Dir(alpha lambda_0)``, ``lambda_0 ~ Dir(alpha0/C)``,
        ``pi^l ~ Dir(gamma)`` and ``b_j ~ Dir(beta)`` (the authors' code: all 1).
    t0, m0 : float
        Annealing ``T(m) = max(t0^(1 - m/m0), 1)`` (the authors' code: 10 and 20).
    sampler : "exact" or "prior"
        Hidden-state step: exact joint draw, or the paper's Algorithm 1 with acceptance (11).
    cluster_gibbs : bool
        After the SSVS move, draw the cluster of every state at every position with ``k_l > 1``
        from its full conditional given the others (marginal likelihood (13), tempered by
        ``T(m)``), as in Sarkar & Dunson's sampler that the paper's step 2 follows (its ref. [15]);
        ``False`` keeps only the split/merge moves of Algorithm 2.
    anneal_states : bool
        Step 1 is "a simulated annealing update of latent variables": the exact sampler draws
        ``Q`` from ``P(Q | x)^(1/T(m))`` (every factor raised to ``1/T``), exact again from
        iteration ``m0`` on; ``False`` draws from ``P(Q | x)`` throughout.
    init : "sp" or "prior"
        Starting point. ``"sp"`` (default): hidden states drawn from the posteriors of a short
        SP-BHTMM EM run (``init_iter`` iterations), then parameters drawn given them; ``"prior"``:
        every parameter drawn from its prior, as the authors' code. From a prior draw the chain
        often settles where one hidden state serves every internal node and the others the
        leaves, a mode it does not leave in 100 sweeps (the high variance of Table III).
    init_iter : int
        EM iterations of the SP-BHTMM initialisation.
    seed : int or numpy Generator
    callback : callable or None
        Called as ``callback(sweep, loglik)`` after every sweep (it may raise to stop training).

    Attributes (after ``fit``)
    --------------------------
    k_ : (L,) sizes; cluster_ : (L, C+1) cluster of every state (``⊥`` last) per position;
    lambda_ : (prod k_, C) core tensor rows (configurations in row-major order over positions);
    lambda0_ : (C,); prior_ : (L, C+1); emit_ : (C, M);
    loglik_ : exact log-likelihood of the training data at each sweep (before its updates);
    k_trace_ : (n_iter, L) the size vector after each sweep; accept_k_ / accept_states_ :
    acceptance rates of the SSVS moves and (for ``sampler="prior"``) of the state proposals.

    Examples
    --------
    >>> from engine.htmm.data import synthetic_trees
    >>> trees = synthetic_trees(20, seed=0)  # the section IV-B generator, 20 trees per class
    >>> model = TFBHTMM(n_states=3, n_iter=5, lmax=2, seed=0).fit(trees)
    >>> model.k_.tolist(), len(model.loglik_)
    ([3, 1, 4], 5)
    >>> model.score_samples(trees[:3]).round(2).tolist()
    [-28.09, -21.22, -36.62]
    """

    #: Each parameter of ``__init__`` with a range, declared once (the shared ones with
    #: :class:`engine.htmm.config.BhtmmConfig`, whose ``states`` and ``iterations`` these are).
    parameters: ClassVar[dict[str, Param]] = {
        "n_states": STATES, "n_iter": ITERATIONS, "phi": PHI, "t0": T0, "m0": M0, "init": INIT, "sampler": SAMPLER,
        **{name: Param(float, 1.0, f"the Dirichlet concentration {name}", lo=0, closed="neither")
           for name in ("alpha", "alpha0", "gamma", "beta")},
    }

    def __init__(self, n_states: int = 10, n_iter: int = 100, *, lmin: int = 1, lmax: int | None = None,
                 phi: float = 2.0, alpha: float = 1.0, alpha0: float = 1.0, gamma: float = 1.0,
                 beta: float = 1.0, t0: float = 10.0, m0: float = 20.0, sampler: str = "exact",
                 cluster_gibbs: bool = False, anneal_states: bool = False, init: str = "sp",
                 init_iter: int = 10, max_core: int = 1 << 24, seed=None, callback=None):
        self.n_states = n_states
        self.n_iter = n_iter
        self.lmin = lmin
        self.lmax = lmax
        self.phi = phi
        self.alpha = alpha
        self.alpha0 = alpha0
        self.gamma = gamma
        self.beta = beta
        self.t0 = t0
        self.m0 = m0
        self.sampler = sampler
        self.cluster_gibbs = cluster_gibbs
        self.anneal_states = anneal_states
        self.init = init
        self.init_iter = init_iter
        self.max_core = max_core
        self.seed = seed
        self.callback = callback

    # ------------------------------------------------------------------ checks and set-up
    def _bounds(self, L: int) -> tuple[int, int]:
        validate_params(self, self.parameters)
        lmin, lmax = position_bounds(self.lmin, self.lmax, L)
        return lmin, lmax

    def init_params(self, L: int, M: int, rng) -> "TFBHTMM":
        """Draw ``k``, the clusterings and every distribution from the priors (as the authors)."""
        lmin, lmax = self._bounds(L)
        C = int(self.n_states)
        S = C + 1
        logkp = -float(self.phi) * np.arange(1, S + 1)  # P(k) ∝ exp(-phi k), normalised in log space
        kp = np.exp(logkp - logkp.max())                 # (a large phi must not give 0/0)
        k = np.ones(L, np.int64)
        perm = rng.permutation(L)
        if lmin:
            p = np.exp(logkp[1:] - logkp[1:].max())
            p /= p.sum()
            k[perm[:lmin]] = 2 + rng.choice(S - 1, size=lmin, p=p)
        other = perm[lmin:lmax]
        if other.size:
            k[other] = 1 + rng.choice(S, size=other.size, p=kp / kp.sum())
        self.k_ = k
        self.cluster_ = np.zeros((L, S), np.int64)
        for l in range(L):
            self.cluster_[l] = _random_clustering(rng, S, int(k[l]))
        self.lambda0_ = dirichlet(rng, np.full(C, float(self.alpha0) / C))
        self.lambda_ = dirichlet(rng, np.broadcast_to(float(self.alpha) * self.lambda0_,
                                                      (int(np.prod(k)), C)))
        self.prior_ = dirichlet(rng, np.full((L, S), float(self.gamma)))
        self.emit_ = dirichlet(rng, np.full((C, M), float(self.beta)))
        return self

    # ------------------------------------------------------------------ structure of lambda
    def _important(self, k=None):
        k = self.k_ if k is None else k
        return np.flatnonzero(k > 1)

    @staticmethod
    def _strides(k):
        s = np.ones(len(k), np.int64)
        for l in range(len(k) - 2, -1, -1):
            s[l] = s[l + 1] * k[l + 1]
        return s

    def configurations(self, Q, data: PositionalTrees, k=None, cluster=None):
        """Row of ``lambda`` (flat ``z`` configuration of the children) of every internal node:
        ``(internal nodes, rows)``."""
        k = self.k_ if k is None else k
        cluster = self.cluster_ if cluster is None else cluster
        C = int(self.n_states)
        iv = np.flatnonzero(~data.is_leaf)
        imp = np.flatnonzero(k > 1)
        if not imp.size:
            return iv, np.zeros(len(iv), np.int64)
        ch = data.children[iv][:, imp]
        st = np.where(ch >= 0, Q[np.maximum(ch, 0)], C)
        cl = cluster[imp[None, :], st]
        return iv, cl @ self._strides(k)[imp]

    # ------------------------------------------------------------------ exact passes
    def _zetas(self, alpha, ch, imp):
        """Per important position, the cluster masses of the child in that slot, (n, k_l)."""
        C = int(self.n_states)
        out = []
        for l in imp:
            kl = int(self.k_[l])
            onehot = np.zeros((C, kl))
            onehot[np.arange(C), self.cluster_[l, :C]] = 1.0
            c = ch[:, l]
            z = np.zeros((len(c), kl))
            pres = c >= 0
            z[pres] = alpha[c[pres]] @ onehot
            z[~pres, self.cluster_[l, C]] = 1.0
            out.append(z)
        return out

    def _contract(self, zetas, imp, lam):
        """``sum_i lambda_i(j) prod_l zeta_l(i_l)`` for every node, (n, C)."""
        C = int(self.n_states)
        n = len(zetas[0])
        R = lam.reshape(int(self.k_[imp[0]]), -1)
        R = zetas[0] @ R
        for z in zetas[1:]:
            R = np.einsum("nk,nkr->nr", z, R.reshape(n, z.shape[1], -1))
        return R.reshape(n, C)

    def _tempered(self, T: float):
        """``(pi, b, lambda)`` raised to ``1/T``: the factors of ``P(Q, x)^(1/T)``, which factorises
        over the same tree, so the exact passes sample the annealed conditional of step 1."""
        if T == 1.0:
            return self.prior_, self.emit_, self.lambda_
        return self.prior_ ** (1.0 / T), self.emit_ ** (1.0 / T), self.lambda_ ** (1.0 / T)

    def upward(self, data: PositionalTrees, T: float = 1.0):
        """``(alpha, logc)``: normalised ``P(Q_u | x_subtree(u))`` (N, C) and the log scale of every
        node (including ``log pi^l(⊥)`` of its empty slots); a tree's log-likelihood is the sum of
        ``logc`` over its nodes. With ``T > 1``, the same for ``P(Q, x)^(1/T)`` (annealing)."""
        C = int(self.n_states)
        N = data.n_nodes
        alpha = np.zeros((N, C))
        logc = np.zeros(N)
        prior, emit, lam = self._tempered(T)
        ev = evidence(emit, data.labels)
        with np.errstate(divide="ignore"):
            lp_bot = np.log(prior[:, C])
        imp = self._important()
        for nodes in reversed(data.levels):
            leaf = data.is_leaf[nodes]
            lv = nodes[leaf]
            if lv.size:
                alpha[lv], logc[lv] = normalise_rows(prior[data.position[lv], :C] * ev[lv])
            iv = nodes[~leaf]
            if iv.size:
                ch = data.children[iv]
                if imp.size:
                    h = self._contract(self._zetas(alpha, ch, imp), imp, lam)
                else:
                    h = np.broadcast_to(lam[0], (len(iv), C))
                a, lc = normalise_rows(h * ev[iv])
                alpha[iv] = a
                logc[iv] = lc + np.where(ch < 0, lp_bot[None, :], 0.0).sum(axis=1)
        return alpha, logc

    def score_samples(self, X: PositionalTrees) -> np.ndarray:
        """Exact ``log P(x | theta, kappa, k)`` of every tree (hidden states summed out), (T,)."""
        check_is_fitted(self, "emit_")
        data = fitted_trees(X, self.prior_.shape[0], self.emit_.shape[1], "TFBHTMM")
        _, logc = self.upward(data)
        return np.bincount(data.tree, weights=logc, minlength=data.n_trees)

    def score(self, X: PositionalTrees, y=None) -> float:
        """Mean log-likelihood per tree."""
        return float(self.score_samples(X).mean())

    def __sklearn_tags__(self):
        return tree_tags(super().__sklearn_tags__())

    def sample_states(self, data: PositionalTrees, rng, alpha=None, T: float = 1.0) -> np.ndarray:
        """An exact draw of every hidden state from ``P(Q | x)`` (``z`` follows from ``Q``), or from
        ``P(Q | x)^(1/T)`` normalised (``alpha`` must then come from ``upward(data, T)``)."""
        if alpha is None:
            alpha = self.upward(data, T)[0]
        lam = self._tempered(T)[2]
        C = int(self.n_states)
        L = data.max_children
        Q = np.zeros(data.n_nodes, np.int64)
        roots = data.levels[0]
        Q[roots] = sample_rows(rng, alpha[roots])
        imp = self._important()
        ks = self.k_[imp]
        K = int(np.prod(ks)) if imp.size else 1
        for nodes in data.levels:
            iv = nodes[~data.is_leaf[nodes]]
            if not iv.size:
                continue
            ch = data.children[iv]
            ifull = np.zeros((len(iv), L), np.int64)
            if imp.size:
                zetas = self._zetas(alpha, ch, imp)
                step = max(1, _CHUNK // K)
                rows = np.empty(len(iv), np.int64)
                for a in range(0, len(iv), step):
                    b = min(a + step, len(iv))
                    W = lam[:, Q[iv[a:b]]].T.reshape((b - a, *ks))
                    for d, z in enumerate(zetas):
                        shape = [b - a] + [1] * len(ks)
                        shape[d + 1] = int(ks[d])
                        W = W * z[a:b].reshape(shape)
                    rows[a:b] = sample_rows(rng, W.reshape(b - a, K))
                ifull[:, imp] = np.stack(np.unravel_index(rows, tuple(ks)), axis=1)
            u, l = np.nonzero(ch >= 0)
            c = ch[u, l]
            allowed = self.cluster_[l, :C] == ifull[u, l][:, None]
            Q[c] = sample_rows(rng, alpha[c] * allowed)
        return Q

    # ------------------------------------------------------------------ the paper's sampler
    def _prior_proposal(self, data, rng, Q_old, T):
        """Algorithm 1 with the per-tree acceptance (11); returns the new ``Q`` and the rate."""
        C = int(self.n_states)
        ev = evidence(self.emit_, data.labels)
        iv, z_old = self.configurations(Q_old, data)
        Qn = np.empty_like(Q_old)
        lv = np.flatnonzero(data.is_leaf)
        Qn[lv] = sample_rows(rng, self.prior_[data.position[lv], :C] * ev[lv])
        Qn[iv] = sample_rows(rng, self.lambda_[z_old] * ev[iv])
        _, z_new = self.configurations(Qn, data)
        lam = self.lambda_
        with np.errstate(divide="ignore", invalid="ignore"):
            term = (np.log(lam[z_new, Qn[iv]]) + np.log(lam[z_new, Q_old[iv]])
                    - np.log(lam[z_old, Q_old[iv]]) - np.log(lam[z_old, Qn[iv]]))
        term = np.nan_to_num(term, nan=-np.inf)
        logr = np.bincount(data.tree[iv], weights=term, minlength=data.n_trees) / T
        with np.errstate(over="ignore"):
            accept = rng.random(data.n_trees) < np.exp(np.minimum(logr, 0.0))
        keep = accept[data.tree]
        return np.where(keep, Qn, Q_old), float(accept.mean())

    def _ancestral_given_x(self, data, rng):
        """The authors' initial states: leaves from ``pi b``, internal nodes from ``lambda_z b``."""
        C = int(self.n_states)
        ev = evidence(self.emit_, data.labels)
        Q = np.zeros(data.n_nodes, np.int64)
        imp = self._important()
        strides = self._strides(self.k_)
        for nodes in reversed(data.levels):
            leaf = data.is_leaf[nodes]
            lv = nodes[leaf]
            if lv.size:
                Q[lv] = sample_rows(rng, self.prior_[data.position[lv], :C] * ev[lv])
            iv = nodes[~leaf]
            if iv.size:
                ch = data.children[iv][:, imp]
                st = np.where(ch >= 0, Q[np.maximum(ch, 0)], C)
                rows = self.cluster_[imp[None, :], st] @ strides[imp] if imp.size else np.zeros(len(iv), int)
                Q[iv] = sample_rows(rng, self.lambda_[rows] * ev[iv])
        return Q

    # ------------------------------------------------------------------ SSVS on k
    def _counts(self, Q, data, k, cluster):
        iv, rows = self.configurations(Q, data, k, cluster)
        C = int(self.n_states)
        K = int(np.prod(k))
        return np.bincount(rows * C + Q[iv], minlength=K * C).reshape(K, C)

    def _log_marginal(self, counts):
        """Equation 13: ``sum_i log B(alpha lambda0 + n_i) - log B(alpha lambda0)`` over the rows
        with data."""
        a = float(self.alpha) * self.lambda0_
        used = counts.sum(axis=1) > 0
        n = counts[used]
        pos = n > 0
        aa = np.broadcast_to(a, n.shape)
        t = np.where(pos, gammaln(np.where(pos, aa + n, 1.0)) - gammaln(np.where(pos, aa, 1.0)), 0.0)
        return float(t.sum() - (gammaln(a.sum() + n.sum(axis=1)) - gammaln(a.sum())).sum())

    def propose_k(self, rng, L_bounds=None):
        """Algorithm 2: one split or merge on a random position, then the moves that restore
        ``L_min <= #{k_l > 1} <= L_max``. Returns ``(k, cluster)`` (new arrays)."""
        L = len(self.k_)
        lmin, lmax = L_bounds if L_bounds is not None else self._bounds(L)
        S = int(self.n_states) + 1
        k = self.k_.copy()
        cl = self.cluster_.copy()
        l = int(rng.integers(L))
        if k[l] == 1:
            up = True
        elif k[l] == S:
            up = False
        else:
            up = bool(rng.integers(2))
        old_l = (k[l], cl[l].copy())
        _split(rng, k, cl, l) if up else _merge(rng, k, cl, l)
        n_imp = int((k > 1).sum())
        if n_imp > lmax:
            cand = np.flatnonzero((k > 1) & (np.arange(L) != l))
            l2 = int(rng.choice(cand))
            _merge(rng, k, cl, l2)
            if k[l2] > 1:  # still important: undo the increase on l
                k[l], cl[l] = old_l
        elif n_imp < lmin:
            cand = np.flatnonzero(k == 1)
            _split(rng, k, cl, int(rng.choice(cand)))
        return k, cl

    def _ssvs(self, Q, data, rng, T, bounds):
        k_new, cl_new = self.propose_k(rng, bounds)
        if int(self.n_states) * float(np.prod(k_new.astype(float))) > self.max_core:
            rng.random()
            return self._counts(Q, data, self.k_, self.cluster_), False
        old = self._counts(Q, data, self.k_, self.cluster_)
        new = self._counts(Q, data, k_new, cl_new)
        logr = (self._log_marginal(new) - self._log_marginal(old)
                - float(self.phi) * float(k_new.sum() - self.k_.sum())) / T
        if np.log(rng.random()) < min(logr, 0.0):
            self.k_, self.cluster_ = k_new, cl_new
            return new, True
        return old, False

    def _gibbs_clusters(self, Q, data, rng, T):
        """Each state's cluster at each important position from its full conditional (clusters are
        kept non-empty, so ``k`` does not change); returns the final counts."""
        S = int(self.n_states) + 1
        for l in self._important():
            kl = int(self.k_[l])
            for s in rng.permutation(S):
                cur = self.cluster_[l, s]
                if (self.cluster_[l] == cur).sum() == 1:
                    continue
                logp = np.empty(kl)
                for h in range(kl):
                    self.cluster_[l, s] = h
                    logp[h] = self._log_marginal(self._counts(Q, data, self.k_, self.cluster_)) / T
                p = np.exp(logp - logp.max())
                self.cluster_[l, s] = int(rng.choice(kl, p=p / p.sum()))
        return self._counts(Q, data, self.k_, self.cluster_)

    # ------------------------------------------------------------------ parameters
    def _sample_params(self, Q, data, counts, rng):
        C = int(self.n_states)
        L = data.max_children
        a = float(self.alpha) * self.lambda0_
        self.lambda_ = dirichlet(rng, a[None, :] + counts)
        # Algorithm 3: table counts m_i(c) = sum_{p=1}^{n_i(c)} Bernoulli(a_c / (p - 1 + a_c))
        n = counts.ravel()
        cells = np.flatnonzero(n)
        reps = n[cells]
        cell_of = np.repeat(cells, reps)
        p_index = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps)
        ac = a[cell_of % C]
        hits = rng.random(len(cell_of)) < ac / (p_index + ac)
        m0 = np.bincount(cell_of[hits] % C, minlength=C)
        self.lambda0_ = dirichlet(rng, float(self.alpha0) / C + m0)
        # pi^l over real states (leaves) and ⊥ (empty slots of internal nodes), b_j
        n_prior = np.zeros((L, C + 1))
        lv = np.flatnonzero(data.is_leaf)
        np.add.at(n_prior, (data.position[lv], Q[lv]), 1.0)
        iv = np.flatnonzero(~data.is_leaf)
        n_prior[:, C] += (data.children[iv] < 0).sum(axis=0)
        self.prior_ = dirichlet(rng, float(self.gamma) + n_prior)
        seen = np.flatnonzero(data.labels >= 0)
        n_emit = np.zeros((C, data.n_labels))
        np.add.at(n_emit, (Q[seen], data.labels[seen]), 1.0)
        self.emit_ = dirichlet(rng, float(self.beta) + n_emit)

    # ------------------------------------------------------------------ training
    def fit(self, X: PositionalTrees, y=None) -> "TFBHTMM":
        """Gibbs sampling on the trees ``X`` (``y`` is ignored); ``callback(sweep, loglik)`` after every sweep."""
        data = check_trees(X, "TFBHTMM", y)
        L = data.max_children
        bounds = self._bounds(L)
        rng = np.random.default_rng(check_seed(self.seed))
        self.init_params(L, data.n_labels, rng)
        self.loglik_, k_trace = [], []
        acc_k, acc_q = [], []
        Q = None
        if self.init == "sp":
            # states from a short SP-BHTMM EM run, then parameters drawn given them
            sp = SPBHTMM(int(self.n_states), int(self.init_iter), seed=rng).fit(data)
            Q = sample_rows(rng, sp.posteriors(data))
            self._sample_params(Q, data, self._counts(Q, data, self.k_, self.cluster_), rng)
        elif self.sampler == "prior":
            Q = self._ancestral_given_x(data, rng)
        for m in range(1, int(self.n_iter) + 1):
            T = annealing_temperature(m, self.t0, self.m0)
            alpha, logc = self.upward(data)
            ll = float(logc.sum())
            self.loglik_.append(ll)
            if self.sampler == "exact":
                if T != 1.0 and self.anneal_states:
                    alpha = self.upward(data, T)[0]
                Q = self.sample_states(data, rng, alpha, T if self.anneal_states else 1.0)
            else:
                Q, rate = self._prior_proposal(data, rng, Q, T)
                acc_q.append(rate)
            counts, ok = self._ssvs(Q, data, rng, T, bounds)
            acc_k.append(ok)
            if self.cluster_gibbs:
                counts = self._gibbs_clusters(Q, data, rng, T)
            self._sample_params(Q, data, counts, rng)
            k_trace.append(self.k_.copy())
            if self.callback is not None:
                self.callback(m, ll)
        self.states_ = Q
        self.k_trace_ = np.array(k_trace, np.int64).reshape(-1, L)
        self.accept_k_ = float(np.mean(acc_k)) if acc_k else float("nan")
        # exact draws are always accepted; the prior proposal's rate is undefined before a sweep
        self.accept_states_ = (float(np.mean(acc_q)) if acc_q
                               else 1.0 if self.sampler == "exact" else float("nan"))
        return self

    # ------------------------------------------------------------------ labelling
    def state_marginals(self, data: PositionalTrees) -> np.ndarray:
        """``P(Q_u | structure, observed labels below u)``; exact marginals given the structure
        alone when every label is hidden."""
        return self.upward(data)[0]

    def label_distribution(self, data: PositionalTrees) -> np.ndarray:
        """Predictive label distribution of every node from the structure alone, (N, M)."""
        return self.state_marginals(data.without_labels()) @ self.emit_

    def sample_labels(self, data: PositionalTrees, seed=None) -> np.ndarray:
        """Labels generated as in the paper: states drawn bottom-up from the model given the
        structure (leaves from ``pi^l``, internal nodes from ``lambda_z``), then a label from each
        state's emission. 0-based, shape (N,)."""
        rng = np.random.default_rng(check_seed(seed))
        return sample_rows(rng, self.emit_[self._ancestral_given_x(data.without_labels(), rng)])


def position_bounds(lmin, lmax, L: int) -> tuple[int, int]:
    """The bounds ``(lmin, lmax)`` on how many of the ``L`` child positions of the data have
    ``k_l > 1``, checked against the data (``lmax`` None: ``min(L, 5)``, the paper's setting). The
    one check of these settings: :class:`TFBHTMM` makes it, and a run of either model
    (:func:`engine.htmm.run.run`) makes it before training, so SP-BHTMM, which does not read them,
    refuses an impossible value as TF-BHTMM does.

    >>> position_bounds(1, None, 3)
    (1, 3)
    >>> position_bounds(99, None, 3)
    Traceback (most recent call last):
        ...
    engine.errors.InvalidParameterError: lmin=99 is out of range: lmin must be in 0..3 (at most lmax, by default min(L, 5) = 3 for the L = 3 child positions of the data)
    """
    for name, x in (("lmin", lmin), ("lmax", lmax)):
        if x is not None and (isinstance(x, bool) or not float(x).is_integer()):
            raise InvalidParameterError(f"{name} must be a whole number, got {x!r}")
    if L < 1:
        raise InvalidParameterError("the trees have no child positions (every tree is a single node); a bottom-up "
                                    "hidden tree Markov model needs trees with children")
    lmin = int(lmin)
    if lmax is not None and int(lmax) < 1:
        raise InvalidParameterError(f"lmax={int(lmax)} is out of range: lmax must be at least 1 and at least lmin")
    top = min(L, 5 if lmax is None else int(lmax))
    if not 0 <= lmin <= top:
        why = (f"at most lmax, by default min(L, 5) = {top} for the L = {L} child positions of the data"
               if lmax is None else f"at most lmax = {top}" if top == int(lmax) else
               f"at most the L = {L} child positions of the data")
        raise InvalidParameterError(f"lmin={lmin} is out of range: lmin must be in 0..{top} ({why})")
    return lmin, top


def _random_clustering(rng, S: int, k: int) -> np.ndarray:
    """A hard clustering of ``S`` states into ``k`` non-empty clusters."""
    perm = rng.permutation(S)
    out = np.empty(S, np.int64)
    out[perm[:k]] = np.arange(k)
    out[perm[k:]] = rng.integers(k, size=S - k)
    return out


def _split(rng, k, cl, l):
    """Increase move: a random cluster with at least two states gives a random part to a new one."""
    sizes = np.bincount(cl[l], minlength=k[l])
    big = np.flatnonzero(sizes > 1)
    c = int(rng.choice(big))
    members = np.flatnonzero(cl[l] == c)
    n_new = int(rng.integers(1, len(members)))
    moved = rng.choice(members, size=n_new, replace=False)
    cl[l, moved] = k[l]
    k[l] += 1


def _merge(rng, k, cl, l):
    """Decrease move: two random clusters merge; the last cluster index takes the freed one."""
    a, b = rng.choice(int(k[l]), size=2, replace=False)
    row = cl[l]
    row[row == b] = a
    last = k[l] - 1
    if b != last:
        row[row == last] = b
    k[l] -= 1
