"""SP-BHTMM: the switching-parent bottom-up hidden tree Markov model, trained by EM.

Bacciu, Micheli & Sperduti, "Compositional Generative Mapping for Tree-Structured Data - Part I"
(IEEE TNNLS 2012), as recalled in equation 2 of
"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu, 2019):

    P(Q_u = j | Q_ch1 = j_1, ..., Q_chL = j_L) = sum_l phi_l A^l(j | j_l),

a mixture over child positions ``l`` (the switching parent ``S_u``) of positional transitions.
The upward pass computes ``alpha_u(j) = P(Q_u = j | x_subtree(u))`` level by level over a whole
data set, renormalising every node and carrying the log of each scale, so the log-likelihood is
exact and never underflows; the downward pass computes the posteriors ``P(Q_u | x)`` and the
expected counts of the switching variable and the positional transitions (the exact E-step; the
published MATLAB code keeps only the posterior of the chosen child). Empty slots hold the bottom
state ``⊥`` (see :mod:`engine.htmm.common`).

Three options reproduce the authors' published code (``SP_BHTMM.m``), step for step
(``AUTHORS_CODE``; cross-checked against that MATLAB code run in GNU Octave from the same start: the
tables agree to 1e-14 after 100 iterations):

* ``estep="paper"``: their E-step (above).
* ``bottom_leaves=True``: ``⊥`` is one more state of the leaf prior with an emission row of its
  own, which starts at zero but becomes uniform after the first M-step (its pseudo-counts are
  normalised like any row), so from then on a leaf may be explained as ``⊥`` -- an empty slot.
  ``⊥`` already holds the prior mass of every empty slot, so it soaks up leaves and learns their
  label, while the labels generated for a leaf are drawn from the real states only.
* ``cumulative_counts=True``: the expected counts are reset once, before the first iteration, so
  every M-step normalises the counts summed over all iterations so far.

Together (with MATLAB's ``eps`` as pseudo-count) they give the published SP-BHTMM numbers on the
synthetic labelling set (about 50 %, label 0 at about 55 %); the exact model gives 80 %.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from engine.htmm.config import BOTTOM_LEAVES, CUMULATIVE_COUNTS, ESTEP, ITERATIONS, PSEUDOCOUNT, STATES
from engine.htmm.common import (check_trees, dirichlet, evidence, fitted_trees, normalise_rows, sample_rows,
                                tree_tags)
from engine.htmm.data import PositionalTrees
from engine.limits import check_seed
from engine.params import Param, validate_params

__all__ = ["SPBHTMM", "AUTHORS_CODE"]

#: The options that make ``SPBHTMM`` the authors' published SP-BHTMM step for step (``SP_BHTMM.m``:
#: its E-step, bottom-state leaves, counts never reset, MATLAB's ``eps`` as pseudo-count).
AUTHORS_CODE = {"estep": "paper", "bottom_leaves": True, "cumulative_counts": True,
                "pseudocount": float(np.finfo(float).eps)}


class SPBHTMM(DensityMixin, BaseEstimator):
    """Switching-parent BHTMM: a scikit-learn density estimator over positional trees.

    ``fit(trees)`` runs EM on a :class:`~engine.htmm.data.PositionalTrees` batch (not a 2-D array),
    ``score_samples(trees)`` is the log-likelihood ``log P(x)`` of every tree and ``score(trees)``
    their mean per tree. :class:`~engine.htmm.classifier.BHTMMClassifier` makes a classifier of one
    model per class (section IV-A).

    Parameters
    ----------
    n_states : int
        ``C``, the number of hidden states (plus the bottom state of empty slots).
    n_iter : int
        EM iterations.
    pseudocount : float
        Dirichlet pseudo-count added to every expected count in the M-step (MAP-EM); 0 gives
        maximum likelihood (a row with no expected count then keeps its previous value).
    estep : "exact" or "paper"
        ``"exact"``: the exact posteriors. ``"paper"``: the E-step of the authors' published code,
        which normalises the joint of each child and its parent *given* ``S_u = l`` and passes each
        child the posterior it would have if it were the switching parent (kept to reproduce the
        published SP-BHTMM numbers; it is not an EM step and can decrease the likelihood).
    bottom_leaves : bool
        Let a leaf take the bottom state ``⊥``, with a learnt emission ``bottom_emit_`` (the
        authors' code; see the module notes). Off: a leaf's state is one of the ``C`` real states
        (equation 1). With it on, ``upward``/``posteriors``/``state_marginals`` return ``C + 1``
        columns, the last one ``⊥``.
    cumulative_counts : bool
        The authors' code resets its expected counts only once, before the first iteration, so each
        M-step uses the counts summed over all iterations so far (a running average of the
        E-steps, not EM). Off: each M-step uses its own E-step's counts.
    seed : int or numpy Generator
        Random initialisation of the parameters (uniform Dirichlet draws, as the authors' code).
    callback : callable or None
        Called as ``callback(iteration, loglik)`` after every EM iteration (it may raise to stop
        training, e.g. ``RunCancelled``).

    Attributes (after ``fit``)
    --------------------------
    prior_ : (L, C+1) leaf prior ``pi^l`` over the real states and ``⊥`` (empty slot);
    switch_ : (L,) ``phi_l = P(S_u = l)``;
    trans_ : (L, C+1, C) ``A^l[j_l, j] = P(Q_u = j | S_u = l, Q_chl = j_l)``;
    emit_ : (C, M) emission ``b_j(m)``; bottom_emit_ : (M,) emission of ``⊥`` (zero unless
    ``bottom_leaves``); loglik_ : list of the data log-likelihood per iteration
    (before that iteration's M-step).

    Examples
    --------
    >>> from engine.htmm.data import synthetic_trees
    >>> trees = synthetic_trees(20, seed=0)  # the section IV-B generator, 20 trees per class
    >>> model = SPBHTMM(n_states=3, n_iter=5, seed=0).fit(trees)
    >>> len(model.loglik_), bool(model.loglik_[-1] >= model.loglik_[0])  # EM never decreases it
    (5, True)
    >>> model.score_samples(trees[:3]).round(2).tolist(), round(model.score(trees), 2)
    ([-31.09, -24.33, -44.03], -73.65)
    """

    #: Each parameter of ``__init__`` with a range, declared once (shared with
    #: :class:`engine.htmm.config.BhtmmConfig`, whose ``states`` and ``iterations`` these are).
    parameters: ClassVar[dict[str, Param]] = {
        "n_states": STATES, "n_iter": ITERATIONS, "pseudocount": PSEUDOCOUNT, "estep": ESTEP,
        "bottom_leaves": BOTTOM_LEAVES, "cumulative_counts": CUMULATIVE_COUNTS}

    def __init__(self, n_states: int = 10, n_iter: int = 100, *, pseudocount: float = 0.01,
                 estep: str = "exact", bottom_leaves: bool = False, cumulative_counts: bool = False,
                 seed=None, callback=None):
        self.n_states = n_states
        self.n_iter = n_iter
        self.pseudocount = pseudocount
        self.estep = estep
        self.bottom_leaves = bottom_leaves
        self.cumulative_counts = cumulative_counts
        self.seed = seed
        self.callback = callback

    # ------------------------------------------------------------------ set-up
    def _check(self):
        validate_params(self, self.parameters)

    def init_params(self, L: int, M: int, rng=None) -> "SPBHTMM":
        """Draw every distribution from a uniform Dirichlet (the authors' initialisation)."""
        self._check()
        rng = np.random.default_rng(check_seed(self.seed) if rng is None else rng)
        C = int(self.n_states)
        self.prior_ = dirichlet(rng, np.ones((L, C + 1)))
        self.switch_ = dirichlet(rng, np.ones(L))
        self.trans_ = dirichlet(rng, np.ones((L, C + 1, C)))
        self.emit_ = dirichlet(rng, np.ones((C, M)))
        self.bottom_emit_ = np.zeros(M)  # the authors' start: ⊥ emits nothing
        self._counts = None  # expected counts of the last M-step (summed ones with cumulative_counts)
        return self

    def _evidence(self, labels: np.ndarray) -> np.ndarray:
        """``b_j(x_u)`` over the real states and ``⊥`` (N, C+1); ``⊥`` emits only with ``bottom_leaves``."""
        ev = evidence(np.vstack([self.emit_, self.bottom_emit_]), labels)
        if not self.bottom_leaves:
            ev[:, -1] = 0.0
        return ev

    def _public(self, a: np.ndarray) -> np.ndarray:
        """State arrays as returned to callers: without the ``⊥`` column unless ``bottom_leaves``."""
        return a if self.bottom_leaves else a[:, :-1]

    def fit(self, X: PositionalTrees, y=None) -> "SPBHTMM":
        """EM on the trees ``X`` (``y`` is ignored); ``callback(iteration, loglik)`` after every iteration."""
        data = check_trees(X, "SPBHTMM", y)
        self._check()
        rng = np.random.default_rng(check_seed(self.seed))
        self.init_params(data.max_children, data.n_labels, rng)
        self.loglik_ = []
        for it in range(int(self.n_iter)):
            ll = self.em_step(data)
            self.loglik_.append(ll)
            if self.callback is not None:
                self.callback(it + 1, ll)
        return self

    # ------------------------------------------------------------------ passes
    def _zeta(self, alpha: np.ndarray, ch: np.ndarray) -> np.ndarray:
        """Normalised child messages per slot, (n, L, C+1): ``alpha`` of the child (whose ``⊥``
        entry is zero unless it is a leaf and ``bottom_leaves``), or ``⊥`` for an empty slot."""
        n, L = ch.shape
        z = np.zeros((n, L, alpha.shape[1]))
        present = ch >= 0
        z[present] = alpha[ch[present]]
        z[~present, -1] = 1.0
        return z

    def upward(self, data: PositionalTrees):
        """``(alpha, logc)``: normalised ``P(Q_u | x_subtree(u))`` (N, C) and the log scale of every
        node, including the ``log pi^l(⊥)`` of its empty slots; a tree's log-likelihood is the sum
        of ``logc`` over its nodes. (N, C+1) with ``bottom_leaves``."""
        alpha, logc = self._upward(data)
        return self._public(alpha), logc

    def _upward(self, data: PositionalTrees):
        C = int(self.n_states)
        N = data.n_nodes
        alpha = np.zeros((N, C + 1))
        logc = np.zeros(N)
        ev = self._evidence(data.labels)
        with np.errstate(divide="ignore"):
            lp_bot = np.log(self.prior_[:, C])
        for nodes in reversed(data.levels):
            leaf = data.is_leaf[nodes]
            lv = nodes[leaf]
            if lv.size:
                alpha[lv], logc[lv] = normalise_rows(self.prior_[data.position[lv]] * ev[lv])
            iv = nodes[~leaf]
            if iv.size:
                ch = data.children[iv]
                z = self._zeta(alpha, ch)
                h = np.einsum("nlk,lkj->nj", z * self.switch_[None, :, None], self.trans_)
                a, lc = normalise_rows(h * ev[iv, :C])
                alpha[iv, :C] = a
                logc[iv] = lc + np.where(ch < 0, lp_bot[None, :], 0.0).sum(axis=1)
        return alpha, logc

    def score_samples(self, X: PositionalTrees) -> np.ndarray:
        """Log-likelihood ``log P(x)`` of every tree, shape (T,)."""
        check_is_fitted(self, "emit_")
        data = fitted_trees(X, self.prior_.shape[0], self.emit_.shape[1], "SPBHTMM")
        _, logc = self.upward(data)
        return np.bincount(data.tree, weights=logc, minlength=data.n_trees)

    def score(self, X: PositionalTrees, y=None) -> float:
        """Mean log-likelihood per tree."""
        return float(self.score_samples(X).mean())

    def __sklearn_tags__(self):
        return tree_tags(super().__sklearn_tags__())

    def posteriors(self, data: PositionalTrees) -> np.ndarray:
        """``P(Q_u | x)`` of every node, (N, C) (the E-step's downward pass; nothing is updated)."""
        return self._public(self.em_step(data, return_posteriors=True))

    def em_step(self, data: PositionalTrees, return_posteriors: bool = False):
        """One E-step (upward and downward passes) and M-step; returns the log-likelihood of the
        data under the parameters before the update."""
        C = int(self.n_states)
        L = data.max_children
        alpha, logc = self._upward(data)
        ll = float(logc.sum())
        eps = np.zeros_like(alpha)
        roots = data.levels[0]
        eps[roots] = alpha[roots]
        n_prior = np.zeros((L, C + 1))
        n_switch = np.zeros(L)
        n_trans = np.zeros((L, C + 1, C))
        sw = self.switch_
        for nodes in data.levels:
            iv = nodes[~data.is_leaf[nodes]]
            if not iv.size:
                continue
            ch = data.children[iv]
            z = self._zeta(alpha, ch)
            h = np.einsum("nlk,lkj->nlj", z, self.trans_) * sw[None, :, None]
            den = h.sum(axis=1)
            r = np.divide(eps[iv, :C], den, out=np.zeros_like(den), where=den > 0)
            s = np.einsum("nj,nlj->nl", r, h)  # P(S_u = l | x)
            n_switch += s.sum(axis=0)
            if self.estep == "exact":
                n_trans += np.einsum("nlk,nj->lkj", z, r) * self.trans_ * sw[:, None, None]
                post = z * (sw[None, :, None] * np.einsum("lkj,nj->nlk", self.trans_, r)
                            + (1.0 - s)[:, :, None])
            else:  # the published code: joint of (child l, parent) given S_u = l, per slot
                joint = z[:, :, :, None] * self.trans_[None] * (sw[None, :, None, None] * r[:, None, None, :])
                cond = np.divide(joint, s[:, :, None, None], out=np.zeros_like(joint),
                                 where=s[:, :, None, None] > 0)
                n_trans += cond.sum(axis=0)
                post = cond.sum(axis=3)
            present = ch >= 0
            eps[ch[present]] = post[present]
            n_prior[:, C] += (~present).sum(axis=0)
        if return_posteriors:
            return eps
        leaves = np.flatnonzero(data.is_leaf)
        np.add.at(n_prior, data.position[leaves], eps[leaves])
        seen = np.flatnonzero(data.labels >= 0)
        n_emit = np.zeros((data.n_labels, C + 1))
        np.add.at(n_emit, data.labels[seen], eps[seen])
        if self.cumulative_counts:  # the authors' M-step: counts summed over every iteration so far
            prev = getattr(self, "_counts", None)
            if prev is not None:
                n_prior, n_switch, n_trans, n_emit = (
                    x + y for x, y in zip(prev, (n_prior, n_switch, n_trans, n_emit)))
        self._counts = (n_prior, n_switch, n_trans, n_emit)  # what this M-step used
        a = float(self.pseudocount)
        self.prior_ = _mstep(n_prior, a, self.prior_)
        self.switch_ = _mstep(n_switch[None, :], a, self.switch_[None, :])[0]
        self.trans_ = _mstep(n_trans, a, self.trans_)
        self.emit_ = _mstep(n_emit[:, :C].T, a, self.emit_)
        if self.bottom_leaves:
            self.bottom_emit_ = _mstep(n_emit[:, C][None, :], a, self.bottom_emit_[None, :])[0]
        return ll

    # ------------------------------------------------------------------ labelling
    def state_marginals(self, data: PositionalTrees) -> np.ndarray:
        """``P(Q_u | structure, observed labels below u)``; with every label hidden this is the
        exact marginal of ``Q_u`` given the structure alone (nothing above ``u`` is observed)."""
        return self.upward(data)[0]

    def label_distribution(self, data: PositionalTrees) -> np.ndarray:
        """Predictive label distribution of every node from the structure alone, (N, M)."""
        alpha = self._upward(data.without_labels())[0]
        return alpha @ np.vstack([self.emit_, self.bottom_emit_])

    def sample_labels(self, data: PositionalTrees, seed=None) -> np.ndarray:
        """Labels generated as in the paper: hidden states drawn bottom-up from the model given the
        structure (leaf prior, then a switching parent and its transition), then a label from each
        state's emission. 0-based labels, shape (N,). A leaf's state is drawn from the real states
        only, even with ``bottom_leaves`` (as the authors' code)."""
        rng = np.random.default_rng(check_seed(seed))
        C = int(self.n_states)
        Q = np.zeros(data.n_nodes, np.int64)
        leafp = self.prior_[:, :C]
        for nodes in reversed(data.levels):
            leaf = data.is_leaf[nodes]
            lv = nodes[leaf]
            if lv.size:
                Q[lv] = sample_rows(rng, leafp[data.position[lv]])
            iv = nodes[~leaf]
            if iv.size:
                ch = data.children[iv]
                S = sample_rows(rng, np.broadcast_to(self.switch_, ch.shape))
                c = ch[np.arange(len(iv)), S]
                cs = np.where(c >= 0, Q[np.maximum(c, 0)], C)
                Q[iv] = sample_rows(rng, self.trans_[S, cs])
        return sample_rows(rng, self.emit_[Q])


def _mstep(counts: np.ndarray, a: float, old: np.ndarray) -> np.ndarray:
    """Normalise the last axis of ``counts + a``; a row with total zero keeps ``old``."""
    c = counts + a
    tot = c.sum(axis=-1, keepdims=True)
    return np.where(tot > 0, c / np.where(tot > 0, tot, 1.0), old)
