"""The RTA learner: max-margin training on a sample of random spanning trees (Algorithm 2).

"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014), section 4 and supplementary Algorithm 2. The model scores a
multilabel y of input x by the average over n uniformly random spanning trees T_t of K_l,

    F(x, y) = (1/n) sum_t sum_{(v, p) in T_t} < W_t[v, (y_v, y_p)], x >,

one weight vector per tree edge and edge labelling (the joint feature map x (x) psi_e(y_e) of
section 2). Training solves the L2-regularised structured hinge problem of Definition 6 with a
microlabel-loss-scaled margin (the Hamming loss of the competing multilabel, spread over every
tree's edges by label degree so that each tree's loss sums to exactly the Hamming loss)

    min_W  1/(2n) sum_t ||W_t||^2 + C sum_k xi_k
    s.t.   F(x_k, y_k) - F(x_k, y) >= loss_scale * Hamming(y_k, y) - xi_k   for all y != y_k

(``loss="zero_one"`` gives the margin of Definition 6 as printed: loss_scale for every y != y_k;
on emotions it is far worse, 25 % microlabel / 76 % 0/1 loss against 19 % / 67 %). The 1/(2n)
makes C mean the same for every number of trees. Inputs are standardised and then scaled to unit
norm (``scaling="standard_unit"``), with a constant feature appended, so that the paper's C grid
{0.01, ..., 100} brackets the best C; without the unit norm the best C falls below the grid. The optimiser is block-coordinate
Frank-Wolfe on the dual, which is the conditional-gradient step with exact line search on the
marginal dual (Definition 9). Per example k (Algorithm 2), K-best inference on the loss-augmented
edge scores at the example's current K (2 at first) gives the best candidate other than y_k,

    ybar_k = argmax_{y in candidates, y != y_k} F(x_k, y) + loss(y_k, y);

if it violates the margin it is the Frank-Wolfe vertex at once (line 7-8 of Algorithm 2; Lemma 7
tells whether it is also the worst violator over all 2^l labellings). If it does not, K doubles
until Lemma 7 certifies that no labelling violates the margin, or a violator appears, or K = max_k
(lines 10-12); the example keeps its K for the next pass. The vertex C * (psi(y_k) - psi(ybar_k))
of example k's polytope (or 0 when nothing violates) is the direction, and the step length is the
exact line-search optimum, clipped to [0, 1]. The dual variables are kept as marginals
B[k, t, v, u] in [-1, 1] (mu/C of the paper: +1 on the true edge labelling, minus the mass of the
competing ones), and for the linear kernel the primal weights
W = C sum_k B_k (x) x_k are updated in place, so a step costs O(n l d) (over sparse inputs the
weights are kept factored, :class:`Factors`, and a step costs O(n l nnz(x_k))). The compiled pass
takes its arguments in named bundles (:class:`Problem`, :class:`TreeArrays`, :class:`DualState`,
:class:`Factors`, :class:`PassStats`).
"""

from __future__ import annotations

import time
from typing import ClassVar, NamedTuple

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from engine.errors import InvalidParameterError, need
from engine.multilabel import config as shared
from engine.multilabel._kernels import DENSE, FACTORED, KERNEL, _bcfw_pass, _exact_at_k, _flip_margins, _predict_all, _row_norms2
from engine.multilabel.spanning_trees import random_spanning_trees
from engine.params import Param, validate_params

__all__ = ["SCALINGS", "SPARSE_DENSITY", "RTAClassifier"]

#: Feature normalisations: ``minmax_unit`` (the paper's code: each feature to [0, 1] on the
#: training data, then every example to unit L2 norm, i.e. a cosine kernel), ``standard``
#: (zero mean, unit variance), ``standard_unit`` (standardise, then unit norm), ``none``.
SCALINGS = ("minmax_unit", "standard", "standard_unit", "none")

#: ``solver="auto"`` trains on factored weights when at most this fraction of X is non-zero.
SPARSE_DENSITY = 0.2


class Problem(NamedTuple):
    """What one training run of :func:`_bcfw_pass` reads and never changes.

    mode : DENSE (primal weights over the scaled inputs X), KERNEL (dual, Gram matrix Kmat) or
    FACTORED (primal weights kept as :class:`Factors` over the raw sparse inputs); X : (m, d)
    scaled inputs and Kmat : (m, m), the unused one a (1, 1) placeholder; xx : (m,) squared norm
    of every scaled input; Y : uint8 (m, l); C the margin slack; hamming: Hamming-scaled margin
    (else 0/1); loss_scale the margin per wrong microlabel; max_k the largest K-best list."""

    mode: int
    X: np.ndarray
    Kmat: np.ndarray
    xx: np.ndarray
    Y: np.ndarray
    C: float
    hamming: bool
    loss_scale: float
    max_k: int


class TreeArrays(NamedTuple):
    """The sampled spanning trees as the kernels read them (:class:`LabelTrees`), with
    ``deg_inv`` (n_trees, l), one over every label's degree (the Hamming loss spread over edges)."""

    parent: np.ndarray
    post: np.ndarray
    child_ptr: np.ndarray
    child_idx: np.ndarray
    deg_inv: np.ndarray


class DualState(NamedTuple):
    """What a pass updates in place: ``Wt`` (d, P) the primal weights TRANSPOSED (linear kernel;
    column p is edge slot p = (t*l + v)*4 + u, so that the scores of all slots are one vectorised
    sweep over the features), ``B`` (m, P) the dual marginals, ``L`` (m,) the loss terms of the
    dual and ``k_mem`` (m,) every example's current K."""

    Wt: np.ndarray
    B: np.ndarray
    L: np.ndarray
    k_mem: np.ndarray


class Factors(NamedTuple):
    """Primal weights over sparse inputs, kept factored so a step costs O(P * nnz(x_k)).

    A scaled input is z_k = s_k * (a * x_k - c) (then a constant 1 when ``intercept``), with
    ``a = 1/div``, ``c = shift/div`` and ``s`` (m,) the row scale (unit norm). The weights are
    W[:, j] = a_j U[j] - c_j v and the intercept column w0; ``r = sum_j a_j c_j U[j]`` is kept up
    to date, so that W z_k = s_k (sum_{j in x_k} a_j^2 x_kj U[j] - r - (alpha_k - gamma) v) + w0
    with alpha_k = sum_j a_j c_j x_kj and gamma = sum_j c_j^2. The raw inputs are CSR
    (``indptr``, ``indices``, ``values``); ``a2 = a**2``. Unused modes pass 1-element arrays."""

    U: np.ndarray
    v: np.ndarray
    r: np.ndarray
    w0: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    s: np.ndarray
    alpha: np.ndarray
    a2: np.ndarray
    gamma: float
    intercept: bool


def _no_factors() -> Factors:
    """Placeholder :class:`Factors` for the DENSE and KERNEL modes (never read)."""
    one, i2 = np.zeros(1), np.zeros(2, np.int64)
    return Factors(np.zeros((1, 1)), one, one, one, i2, i2[:1], one, one, one, one, 0.0, False)


class PassStats(NamedTuple):
    """Per-example results of the last pass: K used, certified (Lemma 7), Frank-Wolfe gap, and
    whether the example violated its margin."""

    k_used: np.ndarray
    certified: np.ndarray
    gaps: np.ndarray
    violated: np.ndarray


class RTAClassifier(ClassifierMixin, BaseEstimator):
    """Random spanning tree approximation (RTA) for multilabel classification.

    Parameters
    ----------
    C : float
        Margin slack (the paper selects it from {100, 50, 10, 1, 0.5, 0.1, 0.01}).
    n_trees : int
        Number of uniformly random spanning trees of the label graph.
    max_k : int
        Largest K-best list length; K starts at 2 and doubles until Lemma 7 certifies.
    kernel : "linear" or "rbf"
        Input kernel; "linear" trains in primal weights, "rbf" in the dual (O(m^2) memory).
    gamma : float or None
        RBF width (None: 1 / (n_features * variance of the scaled inputs), sklearn's "scale").
    loss : "hamming" or "zero_one"
        Margin scaling: microlabel (Hamming) loss of the competing multilabel, or a constant.
    loss_scale : float
        The margin per wrong microlabel (hamming) or per wrong multilabel (zero_one).
    scaling : one of :data:`SCALINGS`
        Feature normalisation fitted on the training inputs.
    fit_intercept : bool
        Append a constant feature (after scaling), giving every edge labelling a bias.
    max_passes : int
        Passes over the training examples.
    tol : float
        Stop when the Frank-Wolfe duality gap of a pass is below tol times the primal objective.
    warm_start : bool
        Start from the dual solution of the previous ``fit`` (same data and random_state, any C):
        the dual variables live in a polytope that does not depend on C, so a C path is cheap.
    random_state : int, numpy Generator or None
        Seeds the spanning trees and the order of examples.
    callback : callable or None
        Called after every pass as ``callback(pass_index, info)`` with a dict of progress numbers
        (it may raise to stop training, e.g. ``RunCancelled``).
    solver : "auto", "dense" or "sparse"
        Linear kernel only: "dense" keeps the weights over the scaled inputs (a step costs
        O(P d)); "sparse" keeps them factored over the raw inputs (:class:`Factors`, a step costs
        O(P nnz(x)); the same model up to rounding); "auto" takes "sparse" when at most
        :data:`SPARSE_DENSITY` of the inputs' entries are non-zero (bag-of-words sets such as
        medical and enron).

    Examples
    --------
    >>> from engine.multilabel.data import synthetic_multilabel
    >>> d = synthetic_multilabel(n_examples=120, n_labels=4, n_features=6, seed=0)
    >>> clf = RTAClassifier(n_trees=3, max_passes=5, random_state=0).fit(d.X[:100], d.Y[:100])
    >>> clf.predict(d.X[100:103]).tolist()
    [[0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 1, 1]]
    """

    def __init__(self, C=1.0, n_trees=10, max_k=32, kernel="linear", gamma=None, loss="hamming",
                 loss_scale=1.0, scaling="standard_unit", fit_intercept=True, max_passes=30, tol=1e-3,
                 warm_start=False, random_state=None, callback=None, solver="auto"):
        self.C = C
        self.n_trees = n_trees
        self.max_k = max_k
        self.kernel = kernel
        self.gamma = gamma
        self.loss = loss
        self.loss_scale = loss_scale
        self.scaling = scaling
        self.fit_intercept = fit_intercept
        self.max_passes = max_passes
        self.tol = tol
        self.warm_start = warm_start
        self.random_state = random_state
        self.callback = callback
        self.solver = solver

    # ------------------------------------------------------------------ validation and features
    #: Each parameter of ``__init__`` that has a range, declared once (the shared ones with
    #: :class:`engine.multilabel.config.RtaConfig`); :meth:`fit` checks them with the one validator.
    parameters: ClassVar[dict[str, Param]] = {
        "C": shared.C, "n_trees": shared.N_TREES, "max_k": shared.MAX_K, "kernel": shared.KERNEL,
        "max_passes": shared.MAX_PASSES,
        "gamma": Param(float, None, "the RBF kernel's width (None: 1 / features)", lo=0, closed="neither", none=True),
        "loss": Param(str, "hamming", "the loss of the margin", choices=("hamming", "zero_one")),
        "loss_scale": Param(float, 1.0, "the factor of the loss in the margin", lo=0, closed="neither"),
        "scaling": Param(str, "standard_unit", "how the inputs are scaled", choices=SCALINGS),
        "tol": Param(float, 1e-3, "the duality gap at which training stops", lo=0),
        "solver": Param(str, "auto", "the linear algebra of the updates", choices=("auto", "dense", "sparse")),
    }

    def _check_params(self):
        validate_params(self, self.parameters)
        need(self.solver != "sparse" or self.kernel == "linear", "solver='sparse' needs the linear kernel")

    def _fit_scaler(self, X):
        if self.scaling == "minmax_unit":
            lo, hi = X.min(axis=0), X.max(axis=0)
            span = hi - lo
            self._shift_, self._div_ = lo, np.where(span > 0, span, 1.0)
        elif self.scaling in ("standard", "standard_unit"):
            sd = X.std(axis=0)
            self._shift_, self._div_ = X.mean(axis=0), np.where(sd > 0, sd, 1.0)
        else:
            self._shift_, self._div_ = np.zeros(X.shape[1]), np.ones(X.shape[1])

    def _features(self, X):
        Z = (X - self._shift_) / self._div_
        if self.scaling in ("minmax_unit", "standard_unit"):
            nrm = np.sqrt((Z * Z).sum(axis=1))
            Z = Z / np.where(nrm > 0, nrm, 1.0)[:, None]
        if self.fit_intercept:
            Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
        return np.ascontiguousarray(Z, dtype=np.float64)

    def _use_factored(self, X) -> bool:
        if self.kernel != "linear" or self.solver == "dense":
            return False
        return self.solver == "sparse" or np.count_nonzero(X) <= SPARSE_DENSITY * X.size

    def _row_scale(self, X):
        if self.scaling not in ("minmax_unit", "standard_unit"):
            return np.ones(X.shape[0])
        Z = (X - self._shift_) / self._div_
        nrm = np.sqrt((Z * Z).sum(axis=1))
        return 1.0 / np.where(nrm > 0, nrm, 1.0)

    def _factors(self, X, G, P):
        """The :class:`Factors` of the raw inputs X (m, d); G = C * B (m, P) to warm-start, or None."""
        csr = sparse.csr_matrix(X)
        a = 1.0 / self._div_
        c = self._shift_ / self._div_
        s = self._row_scale(X)
        alpha = np.asarray(csr @ (a * c)).ravel()
        if G is None:
            U, v, w0 = np.zeros((X.shape[1], P)), np.zeros(P), np.zeros(P)
        else:
            U = np.ascontiguousarray(csr.T @ (s[:, None] * G))
            v, w0 = G.T @ s, G.sum(axis=0)
        return Factors(U, v, (a * c) @ U, w0, csr.indptr.astype(np.int64), csr.indices.astype(np.int64),
                       csr.data.astype(np.float64), s, alpha, a * a, float(c @ c), bool(self.fit_intercept))

    def _weights_of(self, f):
        """The weights (P, d') of :class:`Factors` f, as the DENSE mode holds them (transposed back)."""
        a = 1.0 / self._div_
        c = self._shift_ / self._div_
        W = a[:, None] * f.U - c[:, None] * f.v[None, :]
        if f.intercept:
            W = np.vstack([W, f.w0[None, :]])
        return np.ascontiguousarray(W.T)

    @staticmethod
    def _dense(X):
        return X.toarray() if sparse.issparse(X) else X

    def _check_targets(self, Y):
        Y = np.asarray(Y)
        if Y.ndim == 1 or (Y.ndim == 2 and Y.shape[1] == 1):
            # single-output (binary or multiclass) targets: one label per class, exactly one on
            y = Y.ravel()
            check_classification_targets(y)
            self.classes_, yi = np.unique(y, return_inverse=True)
            if len(self.classes_) < 2:
                raise ValueError("Classifier can't train when only one class is present.")
            self._single_output_ = True
            Y = np.zeros((len(y), len(self.classes_)), np.uint8)
            Y[np.arange(len(y)), yi] = 1
            return Y
        self._single_output_ = False
        if Y.ndim != 2:
            raise InvalidParameterError(
                f"RTA is a multilabel learner: Y must be a 0/1 indicator matrix (examples x labels), got shape {Y.shape}")
        if Y.shape[1] < 2:
            raise InvalidParameterError(f"RTA needs at least 2 labels, got {Y.shape[1]}")
        vals = np.unique(Y)
        if not np.all(np.isin(vals, (0, 1))):
            raise InvalidParameterError(f"Y must hold only 0 and 1, found {vals[~np.isin(vals, (0, 1))][0]!r}")
        return Y.astype(np.uint8)

    # ------------------------------------------------------------------ fit
    def fit(self, X, Y):
        """Learn from inputs X (m, d) and a 0/1 label matrix Y (m, l); returns self."""
        self._check_params()
        X, Y = validate_data(self, X, Y, accept_sparse=True, multi_output=True, dtype=np.float64)
        X = self._dense(X)
        Y = self._check_targets(Y)
        m, l = Y.shape
        rng = np.random.default_rng(self.random_state if not isinstance(self.random_state, np.random.RandomState)
                                    else self.random_state.randint(2**31))
        self.trees_ = random_spanning_trees(l, int(self.n_trees), seed=rng)
        self._fit_scaler(X)
        Z = self._features(X)
        n = int(self.n_trees)
        P = n * l * 4
        use_kernel = self.kernel == "rbf"
        factored = self._use_factored(X)
        mode = KERNEL if use_kernel else (FACTORED if factored else DENSE)
        if use_kernel:
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / (Z.shape[1] * max(Z.var(), 1e-300))
            Kmat = rbf_kernel(Z, Z, gamma=self.gamma_)
            W = np.zeros((1, 1))
            xx = np.ascontiguousarray(np.diag(Kmat))
        else:
            Kmat = np.zeros((1, 1))
            W = np.zeros((1, 1) if factored else (Z.shape[1], P))  # transposed: see DualState
            xx = _row_norms2(Z)
        B = np.zeros((m, P))
        Lk = np.zeros(m)
        prev = getattr(self, "_dual_", None)
        warm = self.warm_start and prev is not None and prev[0].shape == B.shape and prev[2] == Y.tobytes()
        if warm:
            B, Lk = prev[0].copy(), prev[1].copy()
            if mode == DENSE:
                W = np.ascontiguousarray((float(self.C) * (B.T @ Z)).T)
        factors = self._factors(X, float(self.C) * B if warm else None, P) if factored else _no_factors()
        tr = self.trees_
        deg_inv = 1.0 / tr.degree.astype(np.float64)
        k_used = np.zeros(m, np.int64)
        k_mem = np.full(m, min(2, int(self.max_k)), np.int64)
        certified = np.zeros(m, np.bool_)
        gaps = np.zeros(m)
        violated = np.zeros(m, np.bool_)
        C = float(self.C)
        prob = Problem(mode, Z, Kmat, xx, Y, C, self.loss == "hamming", float(self.loss_scale), int(self.max_k))
        trees = TreeArrays(tr.parent, tr.post, tr.child_ptr, tr.child_idx, deg_inv)
        state = DualState(W, B, Lk, k_mem)
        stats = PassStats(k_used, certified, gaps, violated)
        self.history_ = []
        start = time.perf_counter()
        for it in range(int(self.max_passes)):
            order = rng.permutation(m).astype(np.int64)
            _bcfw_pass(prob, trees, state, factors, order, stats)
            if use_kernel:
                wnorm2 = C * C * float(np.einsum("ip,ij,jp->", B, Kmat, B)) / n
            else:
                # (P, d) C-ordered: the sum runs in the same order as always
                Wp = self._weights_of(factors) if factored else np.ascontiguousarray(W.T)
                wnorm2 = float((Wp * Wp).sum()) / n
            dual = C * Lk.sum() - 0.5 * wnorm2
            gap = C * float(np.maximum(gaps, 0).sum())
            primal = dual + gap
            info = {"pass": it + 1, "dual": dual, "primal": primal, "gap": gap,
                    "violators": int(violated.sum()), "certified": float(certified.mean()),
                    "mean_k": float(k_used.mean()), "seconds": time.perf_counter() - start}
            self.history_.append(info)
            if self.callback is not None:
                self.callback(it + 1, info)
            if gap <= self.tol * max(abs(primal), 1e-300):
                break
        self.n_passes_ = len(self.history_)
        self._dual_ = (B, Lk, Y.tobytes())
        if use_kernel:
            self.W_ = W
        else:
            self.W_ = self._weights_of(factors) if factored else np.ascontiguousarray(W.T)  # (P, d)
        self.solver_ = "kernel" if use_kernel else ("sparse" if factored else "dense")
        self.B_ = B if use_kernel else None
        self.Z_train_ = Z if use_kernel else None
        self.train_certified_ = float(certified.mean())
        self.n_labels_ = l
        if not self._single_output_:
            self.classes_ = np.array([0, 1])  # every label is 0/1 (scikit-learn's multilabel convention)
        return self

    # ------------------------------------------------------------------ inference
    def edge_scores(self, X) -> np.ndarray:
        """Per-tree edge scores of every input: (m, n_trees, l, 4), slot [i, t, v, 2*y_v + y_parent]."""
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, accept_sparse=True, reset=False, dtype=np.float64)
        Z = self._features(self._dense(X))
        n, l = self.trees_.n_trees, self.n_labels_
        if self.kernel == "rbf":
            S = float(self.C) * rbf_kernel(Z, self.Z_train_, gamma=self.gamma_) @ self.B_
        else:
            S = Z @ self.W_.T
        return np.ascontiguousarray(S.reshape(Z.shape[0], n, l, 4))

    def infer(self, X, max_k=None):
        """Certified inference: ``(Yhat uint8 (m, l), certified bool (m,), K used (m,), score (m,))``."""
        S = self.edge_scores(X)
        tr = self.trees_
        mk = int(self.max_k if max_k is None else max_k)
        m = S.shape[0]
        out = np.zeros((m, self.n_labels_), np.uint8)
        ku = np.zeros(m, np.int64)
        cert = np.zeros(m, np.bool_)
        best = np.zeros(m)
        theta = np.zeros(m)
        _predict_all(S, tr.parent, tr.post, tr.child_ptr, tr.child_idx, min(2, mk), mk, out, ku, cert, best, theta)
        return out, cert, ku, best

    def predict(self, X):
        """The best ensemble multilabel of every input, a 0/1 indicator matrix (m, l).

        Fitted on single-output targets (one label per class), the class whose label has the
        largest margin (:meth:`decision_function`)."""
        if getattr(self, "_single_output_", False):
            d = self._margins(X)
            return self.classes_[np.argmax(d, axis=1)]
        return self.infer(X)[0].astype(np.int64)

    def _margins(self, X):
        S = self.edge_scores(X)
        tr = self.trees_
        mk = int(self.max_k)
        m = S.shape[0]
        Yhat = np.zeros((m, self.n_labels_), np.uint8)
        _predict_all(S, tr.parent, tr.post, tr.child_ptr, tr.child_idx, min(2, mk), mk, Yhat,
                     np.zeros(m, np.int64), np.zeros(m, np.bool_), np.zeros(m), np.zeros(m))
        out = np.zeros(Yhat.shape)
        _flip_margins(S, tr.parent, Yhat, out)
        return out

    def decision_function(self, X):
        """Per-label margins at the prediction yhat: F(yhat) - F(yhat with label j flipped), signed
        positive where yhat_j = 1 and negative where yhat_j = 0 (zero at an exact tie), (m, l).

        Fitted on single-output targets: (m,) margin of the second class over the first for two
        classes, else the (m, n_classes) label margins."""
        d = self._margins(X)
        if getattr(self, "_single_output_", False) and d.shape[1] == 2:
            return d[:, 1] - d[:, 0]
        return d

    def exact_fraction(self, X, ks) -> np.ndarray:
        """Fraction of inputs whose best candidate is certified exact (Lemma 7) at each K in ``ks``."""
        S = self.edge_scores(X)
        tr = self.trees_
        res = []
        for K in ks:
            ex = np.zeros(S.shape[0], np.bool_)
            _exact_at_k(S, tr.parent, tr.post, tr.child_ptr, tr.child_idx, int(K), ex)
            res.append(float(ex.mean()) if ex.size else float("nan"))
        return np.asarray(res)

    def label_pair_weights(self) -> np.ndarray:
        """Symmetric (l, l): norm of the learned weights of every label pair, summed over the trees
        holding it and divided by n_trees (zero for pairs no tree holds)."""
        check_is_fitted(self, "trees_")
        tr = self.trees_
        n, l = tr.n_trees, self.n_labels_
        if self.kernel == "rbf":
            G = float(self.C) ** 2 * np.einsum("ip,ij,jq->pq", self.B_, rbf_kernel(self.Z_train_, gamma=self.gamma_), self.B_)
            norms = np.sqrt(np.maximum(np.diag(G), 0)).reshape(n, l, 4)
        else:
            norms = np.linalg.norm(self.W_, axis=1).reshape(n, l, 4)
        out = np.zeros((l, l))
        for t in range(n):
            for v, p in tr.edges(t):
                w = float(np.sqrt((norms[t, v] ** 2).sum()))
                out[v, p] += w / n
                out[p, v] += w / n
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags
