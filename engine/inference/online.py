"""The online sum-product model on the hierarchical cover
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 4, Figure 2).

After one O(n) initialisation, each change of evidence at a vertex, each change of an edge
potential and each marginal query walks one path of the decomposition tree D of the cover
(engine.cover): O(height · k^3) per update, O(height · k^2) per marginal (plus O(k log degree) for
the product of a high-degree vertex's one-boundary children, kept in a small product tree).

Differences from the paper, all deliberate (``docs/online-sum-product.md`` says why):

- **Division-free.** The paper updates cached weights by dividing by old values (γ·d_new/d_old,
  α_new/α_old), which breaks when a value is zero (hard evidence). Here every D node stores its
  component's summary ψ^{S^z} (Definition 7) over its <= 2 boundary vertices and an update
  recomputes the nodes on the path from the changed leaf of D to its root from their children;
  the product over a vertex's α children is a product tree, so nothing is ever divided by.
- **Exact at any magnitude.** Every entry of every table, product-tree vector and message is a
  mantissa and an integer exponent (``engine.inference._extended``), so nothing under- or
  overflows whatever the potentials (any entry 0 or from 2.2e-308 to 1.8e308) and however long
  the tree; "inconsistent" means a total mass of exactly zero. Subnormal entries are refused with
  :class:`NumericalRangeError` naming them.
- **Atomic.** Evidence (or an edge potential) that makes the total mass zero raises
  :class:`InconsistentEvidenceError` and leaves the model exactly as it was (the kernel restores
  every entry it wrote).
- **Asymmetric potentials**: a matrix for the edge (u, v) has rows indexing u's state.
- **Leaves of T** are not boundary vertices of any component; their data is summed into their
  edge's table (equivalent to the paper's dummy edges, without enlarging the tree).

The marginal walk carries, for the current component, the outside message at each boundary
vertex: the outside of a component with boundary {b, b'} splits into a part hanging at b and a
part hanging at b', so it factorises into two k-vectors (never a k x k table).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import (
    InconsistentEvidenceError,
    InvalidParameterError,
    InvalidPotentialError,
    UnknownVertexError,
)
from engine.inference.potentials import (
    TINY,
    check_edge_range,
    check_matrix,
    check_states,
    check_vector,
    child_potentials,
    node_potential_array,
)
from engine.trees.model import Tree

__all__ = ["OnlineModel", "OpReport", "COVER_KINDS", "random_ops", "largest_difference_from_bp"]

COVER_KINDS = ("optimal", "rake-only")
_ZERO = "the evidence is inconsistent: it makes the total mass zero"
_F64 = np.dtype(np.float64)     # native float64 (an array's dtype is this very object)
_KERNELS = "engine.inference._online_kernels"   # the kernel module (engine.jit.defer names it so)


@dataclass(frozen=True)
class OpReport:
    """What one operation did: its name, the D nodes it touched (in walk order) and the number of
    multiply-adds it performed (``work``)."""

    op: str
    touched: np.ndarray
    work: int


def _lines(count: int) -> int:
    """``count`` 8-byte items rounded up to whole 64-byte cache lines."""
    return -(-count // 8) * 8


def _entry_points(K):
    """The update and marginal entry points as compiled functions called without numba's
    dispatch, whose look-up of the argument types cost ≈ 0.17 µs a call (a third of what the
    verbs add to the walks). The types are fixed here — the update's row any float64 vector
    (strided too), the rest contiguous — and the verbs pass exactly these, having checked them
    (nothing else checks them). The plain-Python build's functions are returned as they are."""
    if not hasattr(K.update_entry, "compile"):
        return K.update_entry, K.marginal_entry
    sig = entry_signatures()
    return K.update_entry.compile(sig["update_entry"]), K.marginal_entry.compile(sig["marginal_entry"])


def entry_signatures() -> dict:
    """The types :func:`_entry_points` compiles the two hot entry points for (``engine.warmup``
    compiles each on its own, in parallel, by these)."""
    from numba import types

    f1, i1 = types.float64[::1], types.int64[::1]
    return {"update_entry": (types.int64, types.float64[:], f1, i1), "marginal_entry": (types.int64, f1, i1, f1)}


def _aligned_zeros(size: int, dtype, *, fill: bool = True) -> np.ndarray:
    """Zeros whose first item starts a 64-byte cache line (a large array from malloc starts 16
    bytes past a page boundary: a 64-byte table row would then straddle two lines); not filled
    (``fill=False``) for an array about to be overwritten whole (a copy: 4.5 ms against 7 for the
    42 MB of a model on 10^5 vertices)."""
    step = np.dtype(dtype).itemsize
    buf = (np.zeros if fill else np.empty)(size + 64 // step, dtype)
    skip = (-buf.ctypes.data % 64) // step
    return buf[skip:skip + size]


class OnlineModel:
    """Exact marginals and log-partition under a changing stream of evidence.

    Parameters
    ----------
    tree : Tree
    k : int
        Number of states (>= 2).
    edge_potentials : array (k, k) or (n - 1, k, k)
        As in :func:`engine.inference.belief_propagation` (aligned with ``tree.edges``, rows
        index the parent's state).
    node_data : array (n, k) or None
        The seed's data matrix D (default: all ones).
    cover : {"optimal", "rake-only"} or HierarchicalCover
        The cover whose decomposition tree the computation follows.
    root : name or index, optional
        The leaf s the cover is rooted at (default: the cover's default leaf).
    backend : {"numba", "python"}
        Compiled kernels, or the very same kernels run as plain Python (the reference). With
        ``"numba"``, while a server still compiles the kernels elsewhere (``engine.jit.defer``) the
        plain-Python build stands in, on the same buffers, and the model changes to the compiled
        one at its first operation after they are ready: nothing waits for a compile, and the
        answers are the same either way (``compiled`` says which build answers now).

    Attributes
    ----------
    cover : HierarchicalCover
    last_op : OpReport or None
        The report of the latest operation.
    total_work : int
        Multiply-adds done by all operations since initialisation.
    init_work : int
        Multiply-adds of the initialisation.
    compiled : bool
        Whether the compiled kernels answer now.

    Examples
    --------
    >>> import numpy as np
    >>> from engine.trees import Tree
    >>> t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
    >>> model = OnlineModel(t, 2, np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> model.marginal(t.index("5")).round(4).tolist()
    [0.5, 0.5]
    >>> model.update(t.index("4"), [1.0, 0.0])  # observe label 0 at vertex 4: one path of D
    >>> model.marginal(t.index("5")).round(4).tolist(), round(model.log_partition(), 6)
    ([0.5556, 0.4444], 4.394449)
    """

    def __init__(self, tree: Tree, k: int, edge_potentials, node_data=None, *, cover="optimal",
                 root=None, backend: str = "numba"):
        self.tree = tree
        self.k = k = check_states(k)
        if backend not in ("numba", "python"):
            raise InvalidParameterError(f"backend must be 'numba' or 'python', got {backend!r}")
        self.backend = backend
        data = node_potential_array(tree, node_data, k).copy()
        E = _edge_input(tree, edge_potentials, k)
        self._op = None
        self._n = tree.n
        self._Kmod = None           # the build of the kernels called (see _use)
        self._standing_in = False   # the plain-Python build answers until the compiled one is ready
        self._stats = np.zeros(3, np.int64)   # D nodes touched, work of the latest op, total work
        self._data = data
        self._data_in = data
        n = tree.n
        if isinstance(cover, str) and cover not in COVER_KINDS:   # checked here for n <= 2 too
            raise InvalidParameterError(f"cover must be 'optimal' or 'rake-only', got {cover!r}")
        if n <= 2:
            self.cover = None
            self.cover_kind = cover if isinstance(cover, str) else "optimal"
            self._small_theta = (np.broadcast_to(E, (n - 1, k, k)).copy() if n == 2 else None)
            self.init_work = k * k
            if self._small_logz() is None:
                raise InconsistentEvidenceError(_ZERO)
            return
        self.cover = self._build_cover(tree, cover, root)
        self._setup(E)

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _build_cover(tree, cover, root):
        from engine.cover import optimal_cover, rake_only_cover

        if isinstance(cover, str):
            if cover not in COVER_KINDS:
                raise InvalidParameterError(f"cover must be 'optimal' or 'rake-only', got {cover!r}")
            return (optimal_cover if cover == "optimal" else rake_only_cover)(tree, root)
        built = getattr(cover, "tree", None)
        # the same tree, or one with the same content (a cover shared between sessions that each
        # hold their own copy of the tree)
        if built is not tree and (built is None or built.content_key != tree.content_key):
            raise InvalidParameterError("the cover given was built for another tree")
        return cover

    @property
    def cover_kind(self) -> str:
        if self.cover is None:
            return self._cover_kind
        return "rake-only" if self.cover.rake_only else "optimal"

    @cover_kind.setter
    def cover_kind(self, value):
        self._cover_kind = value

    def _setup(self, E):
        """Lay the model out in two flat buffers (floats ``_F``, ints ``_I``; the layout, indexed
        by the kernels' ``L_*`` constants, in ``_I[:L_SIZE]``) so that a compiled operation takes
        just the two, then fill every table bottom-up."""
        C = self.cover
        tree, k = self.tree, self.k
        K = self._use(self._kernels())
        m, n, kk = C.m, tree.n, k * k
        ct = int(C.height) + 2
        # a product tree has at most degree + 1 leaves: bound the undo buffer before the layout
        maxP = 1
        while maxP < int(tree.degree.max()) + 2:
            maxP *= 2
        cp = ct * (int(np.log2(maxP)) + 2) + 2
        # I: the layout L, then NI, the undo indices, touched, path, vpath, stats (L_* order)
        sizes_i = [_lines(x) for x in (K.L_SIZE, m * K.NI_WIDTH, ct, cp, ct, ct, n * K.VPATH // 2, K.ST_SIZE)]
        oi = np.cumsum(sizes_i)
        self._I = _aligned_zeros(int(oi[-1]), np.int64)
        L = self._I[:K.L_SIZE]
        NIv = self._I[oi[0]:oi[0] + m * K.NI_WIDTH].reshape(m, K.NI_WIDTH)   # written in place (no copy)
        S = int(K.layout_kernel(np.asarray(C.parent, np.int64), np.asarray(C.split_vertex, np.int64),
                                np.asarray(C.boundary, np.int64), np.asarray(C.ends, np.int64), NIv))
        tw = 2 * kk   # a table row: k x k mantissas, then their k x k exponents
        # in the order of L_TAB, L_POOL, L_THETA, L_DATA, L_UT, L_UP, L_OUT, L_SCR
        sizes_f = [_lines(x) for x in (m * tw, S * 2 * k, (n - 1) * kk, n * k, ct * tw, cp * 2 * k, k,
                                        K.scratch_size(k))]
        of = np.concatenate([[0], np.cumsum(sizes_f)])
        L[K.L_TAB:K.L_SCR + 1] = of[:-1]
        L[K.L_NI:K.L_STATS + 1] = oi[:-1]
        L[[K.L_M, K.L_S, K.L_N, K.L_CT, K.L_CP, K.L_K]] = [m, S, n, ct, cp, k]
        self._F = _aligned_zeros(int(of[-1]), np.float64)
        # NumPy views (the plain-Python build's), which keep the buffers alive; the compiled
        # build's views are borrowed, for its entry points only
        (self._tab, self._pool, self._theta, self._data, _, _, self._out, self._sc,
         self._NI, _, _, self._touched, self._path, vpath) = K.pure_module().views(self._F, self._I)
        self._stats = self._I[oi[-2]:oi[-2] + K.ST_SIZE]
        self._data[:] = self._data_in
        del self._data_in
        e = tree.edges
        mats = E.reshape(1, k, k) if E.shape == (k, k) else E
        K.orient_kernel(self._theta, np.ascontiguousarray(e[:, 0]), np.ascontiguousarray(e[:, 1]),
                        np.asarray(C.s_parent, np.int64), np.asarray(C.edge_node, np.int64),
                        np.ascontiguousarray(mats))
        vnode = np.array(C.vertex_node, np.int64)
        leaf = np.flatnonzero(vnode < 0)
        vnode[leaf] = C.edge_node[leaf]
        vnode[C.s] = C.edge_node[tree.neighbors(C.s)[0]]
        # each vertex's node and the next VPATH - 1 D-ancestors (-1 past the root)
        vpath[:, 0] = vnode
        dpar = np.append(self._NI[:, K.DPAR], -1)      # (index -1 gives -1 again)
        for j in range(1, K.VPATH):
            vpath[:, j] = dpar[vpath[:, j - 1]]
        bad = K.fill_kernel(self._NI, self._tab, self._pool, self._theta, self._data, k,
                            np.asarray(C.children_ptr, np.int64), np.asarray(C.children_idx, np.int64),
                            self._sc)
        if bad >= 0:
            raise InconsistentEvidenceError(_ZERO)
        self.init_work = int(m * k ** 3 + S * k)

    def _kernels(self):
        # here, not at the top: importing the model does not import numba
        from engine.inference import _online_kernels as K
        from engine.jit import build

        return K.pure_module() if self.backend == "python" else build(K)

    def _use(self, K):
        """Call build ``K`` of the kernels from now on (the two hot verbs' entry points looked up
        once); ``K``. The plain-Python build standing in for the compiled one (``backend="numba"``
        while its kernels are deferred) is called through :meth:`_update_in` and
        :meth:`_marginal_in`, which change builds once the compiled one is ready."""
        self._Kmod = K
        update, marginal = _entry_points(K)
        self._standing_in = self.backend == "numba" and K.__name__.endswith("_pure")
        if self._standing_in:
            self._pure_entries = update, marginal
            update, marginal = self._update_in, self._marginal_in
        self._update_entry, self._marginal_entry = update, marginal
        return K

    def _catch_up(self) -> None:
        """While the plain-Python build stands in: the compiled one from now on, once its kernels
        are no longer deferred (``engine.jit.release``)."""
        if self._standing_in:
            from engine.jit import deferred

            if not deferred(_KERNELS):
                self._use(self._kernels())

    @property
    def _K(self):
        """The build of the kernels called now."""
        if self._standing_in:
            self._catch_up()
        return self._Kmod

    def _update_in(self, *args):
        """The update entry point while the plain-Python build stands in."""
        self._catch_up()
        return (self._pure_entries[0] if self._standing_in else self._update_entry)(*args)

    def _marginal_in(self, *args):
        """The marginal entry point while the plain-Python build stands in."""
        self._catch_up()
        return (self._pure_entries[1] if self._standing_in else self._marginal_entry)(*args)

    @property
    def compiled(self) -> bool:
        """Whether the compiled kernels answer now (False for the plain-Python build, while it stands
        in for them, and for trees of one or two vertices, which need no kernel)."""
        return self.cover is not None and not self._K.__name__.endswith("_pure")

    # ------------------------------------------------------------------ queries
    def _vertex(self, v) -> int:
        if type(v) is int and 0 <= v < self._n:    # the hot path: a plain vertex index
            return v
        return self.tree.index(v)

    def log_partition(self) -> float:
        """log Z under the current evidence (O(1))."""
        self._op = "log_partition"
        self._stats[:2] = 0
        if self.cover is None:
            return self._small_logz()
        return float(self._K.log_partition_entry(self._F, self._I))

    def marginal(self, v, *, record: bool = True, out: np.ndarray | None = None) -> np.ndarray:
        """p(x_v = a) for a = 0..k-1, by one walk down D (O(height k^2)).

        ``record=False`` leaves ``last_op`` and ``total_work`` untouched (for displays); ``out``
        (float64, shape (k,)) receives the marginal instead of a new array.
        """
        if not record:
            op, stats = self._op, self._stats.copy()
            res = self.marginal(v, out=out)
            self._op = op
            self._stats[:] = stats
            return res
        if type(v) is not int or not 0 <= v < self._n:   # (the hot path: a plain index)
            v = self.tree.index(v)
        out = np.empty(self.k) if out is None else self._out_array(out, (self.k,))
        if self.cover is None:
            out[:] = self._small_marginal(v)
            self._report("marginal", self.k * self.k)
            return out
        self._op = "marginal"
        if self._marginal_entry(v, self._F, self._I, out):   # all zero: impossible, mass > 0
            raise RuntimeError(f"internal error: the marginal of vertex {self.tree.name(v)} is all zero "
                               "although the total mass is positive")
        return out

    def marginals(self) -> np.ndarray:
        """All marginals, one walk per vertex (for checks and displays; not recorded in
        ``last_op``/``total_work``; a BP pass is faster for all of them)."""
        op, stats = self._op, self._stats.copy()
        out = self.marginal_many(np.arange(self.tree.n))
        self._op = op
        self._stats[:] = stats
        return out

    def marginal_many(self, vertices, out: np.ndarray | None = None) -> np.ndarray:
        """The marginals of ``vertices`` (indices, shape (m,)) in one compiled call: (m, k)."""
        vs = self._indices(vertices)
        out = np.empty((len(vs), self.k)) if out is None else self._out_array(out, (len(vs), self.k))
        if self.cover is None:
            for t, v in enumerate(vs):
                self.marginal(int(v), out=out[t])
            return out
        self._K.marginal_many_entry(vs, self._F, self._I, out)
        self._op = "marginal"
        if len(vs) and np.isnan(out[:, 0]).any():
            raise RuntimeError("internal error: a marginal is all zero although the total mass is positive")
        return out

    @staticmethod
    def _out_array(out, shape) -> np.ndarray:
        """A caller's output buffer: a writable C-contiguous float64 array of ``shape``."""
        if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape
                and out.flags.c_contiguous and out.flags.writeable):
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise InvalidParameterError(f"out must be a writable contiguous float64 array of shape "
                                        f"{shape}, got {got}")
        return out

    def _indices(self, vertices) -> np.ndarray:
        """Vertex indices as int64 (checked: 0..n-1); names are looked up."""
        vs = np.asarray(vertices)
        if vs.dtype.kind not in "iu":
            vs = np.array([self.tree.index(v) for v in vs.ravel()], np.int64)
        vs = np.ascontiguousarray(vs, dtype=np.int64).ravel()
        if len(vs) and (vs.min() < 0 or vs.max() >= self._n):
            bad = int(vs[(vs < 0) | (vs >= self._n)][0])
            raise UnknownVertexError(f"vertex {bad} is not in 0..{self._n - 1}")
        return vs

    # ------------------------------------------------------------------ updates
    def update(self, v, data) -> None:
        """Replace the data (node potential) of vertex ``v`` by ``data`` (k numbers >= 0).

        Raises InconsistentEvidenceError (model unchanged) when the total mass would be zero.
        """
        if type(v) is not int or not 0 <= v < self._n:   # (the hot path: a plain index)
            v = self.tree.index(v)
        if type(data) is np.ndarray and data.ndim == 1 and data.dtype is _F64:
            row = data      # (the exact type the entry point is compiled for)
        else:
            row = np.asarray(data, dtype=np.float64).reshape(-1) if _numeric(data) else None
        if self.cover is None or row is None:
            self._update_slow(v, data)
            return
        self._op = "update"
        status = self._update_entry(v, row, self._F, self._I)
        if status:
            self._update_failed(status, v, row)

    def update_many(self, vertices, data, *, skip_inconsistent: bool = False) -> np.ndarray:
        """``update(vertices[t], data[t])`` for t in order, in one compiled call.

        ``data`` has shape (m, k); every vertex and entry is checked before any update is done.
        Evidence that would make the total mass zero raises InconsistentEvidenceError after the
        updates before it (the model is as after them), or with ``skip_inconsistent`` is
        skipped. Returns the boolean mask of the updates applied.

        >>> from engine.trees import Tree
        >>> t = Tree.from_named_edges([("1", "2"), ("1", "3"), ("2", "4"), ("2", "5")])
        >>> model = OnlineModel(t, 2, np.array([[2.0, 1.0], [1.0, 2.0]]))
        >>> model.update_many(["4", "3"], [[1.0, 0.0], [0.5, 0.5]]).tolist()
        [True, True]
        >>> model.marginal_many(["5", "1"]).round(4).tolist()
        [[0.5556, 0.4444], [0.5556, 0.4444]]
        """
        vs, X = self._batch(vertices, data)
        applied = np.zeros(len(vs), bool)
        if self.cover is None:
            for t, v in enumerate(vs):
                try:
                    self.update(int(v), X[t])
                    applied[t] = True
                except InconsistentEvidenceError:
                    if not skip_inconsistent:
                        raise
            return applied
        status, t = self._K.update_many_entry(vs, X, self._F, self._I, bool(skip_inconsistent), applied)
        self._op = "update"
        if status:
            self._update_failed(status, int(vs[t]), X[t], f" (update {t} of the batch)")
        return applied

    def marginal_update_many(self, vertices, data, out: np.ndarray | None = None) -> np.ndarray:
        """For t in order: the marginal of ``vertices[t]``, then ``update(vertices[t], data[t])``
        — a learner's predict-then-learn stream (TREE-HEDGE) in one compiled call. Returns the
        (m, k) marginals, each taken before its update; an update that fails raises as
        :meth:`update_many` does (the model is as after the updates before it)."""
        vs, X = self._batch(vertices, data)
        out = np.empty((len(vs), self.k)) if out is None else self._out_array(out, (len(vs), self.k))
        if self.cover is None:
            for t, v in enumerate(vs):
                self.marginal(int(v), out=out[t])
                self.update(int(v), X[t])
            return out
        status, t = self._K.marginal_update_many_entry(vs, X, self._F, self._I, out)
        self._op = "update"
        if status:
            self._update_failed(status, int(vs[t]), X[t], f" (update {t} of the batch)")
        if len(vs) and np.isnan(out[:, 0]).any():
            raise RuntimeError("internal error: a marginal is all zero although the total mass is positive")
        return out

    def _batch(self, vertices, data):
        """Vertex indices and an (m, k) data array, every entry checked before anything is done
        (a bad entry raises naming its vertex and its place in the batch)."""
        vs = self._indices(vertices)
        try:
            X = np.ascontiguousarray(data, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidPotentialError(f"data for {len(vs)} updates must be numbers, got "
                                        f"{str(data)[:60]}") from None
        if X.shape != (len(vs), self.k):
            raise InvalidPotentialError(f"data for {len(vs)} updates must have shape ({len(vs)}, "
                                        f"{self.k}), got {X.shape}")
        good = (X == 0.0) | ((X >= TINY) & (X <= np.finfo(np.float64).max))   # NaN fails both
        if not good.all():
            t = int(np.flatnonzero(~good.all(axis=1))[0])
            check_vector(X[t], self.k, f"data for vertex {self.tree.name(int(vs[t]))} "
                         f"(update {t} of the batch)")   # raises
        return vs, X

    def _update_slow(self, v, data):
        vec = check_vector(data, self.k, f"data for vertex {self.tree.name(v)}")
        if self.cover is not None:
            self.update(v, vec)
            return
        old = self._data[v].copy()
        self._data[v] = vec
        if self._small_logz() is None:
            self._data[v] = old
            raise InconsistentEvidenceError(_ZERO + f" (data {vec.tolist()} at vertex {self.tree.name(v)})")
        self._report("update", self.k * self.k)

    def _update_failed(self, status, v, vec, where=""):
        """Raise the error an entry point's status stands for, with the culprit named."""
        K = self._K
        if status == K.INVALID:
            check_vector(vec, self.k, f"data for vertex {self.tree.name(v)}{where}")   # raises
        if status == K.OUT_OF_RANGE:
            raise UnknownVertexError(f"vertex {v} is not in 0..{self._n - 1}{where}")
        raise InconsistentEvidenceError(
            _ZERO + f" (data {np.asarray(vec).tolist()} at vertex {self.tree.name(v)}){where}")

    def set_edge_potential(self, u, v, matrix) -> None:
        """Replace the potential of edge (u, v); rows of ``matrix`` index u's state."""
        iu, iv = self._vertex(u), self._vertex(v)
        M = check_matrix(matrix, self.k, f"potential for edge ({self.tree.name(iu)}, {self.tree.name(iv)})")
        t = self.tree
        if t.parent[iv] != iu and t.parent[iu] != iv:
            raise UnknownVertexError(f"({t.name(iu)}, {t.name(iv)}) is not an edge of the tree")
        if self.cover is None:
            old = self._small_theta.copy()
            self._small_theta[0] = M if t.parent[iv] == iu else M.T
            if self._small_logz() is None:
                self._small_theta[:] = old
                raise InconsistentEvidenceError(_ZERO)
            self._report("set_edge", self.k * self.k)
            return
        C = self.cover
        sp = C.s_parent
        if sp[iv] == iu:
            z, mat = int(C.edge_node[iv]), M
        else:
            z, mat = int(C.edge_node[iu]), M.T
        old = self._theta[z].copy()
        self._theta[z] = mat
        status = self._K.refresh_entry(z, self._F, self._I)
        self._op = "set_edge"
        if status:
            self._theta[z] = old
            raise InconsistentEvidenceError(
                _ZERO + f" (potential of edge ({t.name(iu)}, {t.name(iv)}))")

    def _report(self, op, work):
        """Record an operation of the pure-NumPy path (trees of one or two vertices)."""
        self._op = op
        self._stats[0] = 1
        self._stats[1] = work
        self._stats[2] += work

    @property
    def total_work(self) -> int:
        """Multiply-adds done by all operations since initialisation."""
        return int(self._stats[2])

    @property
    def last_op(self) -> OpReport | None:
        """What the latest operation did (built on demand, so the hot path stays lean)."""
        if self._op is None:
            return None
        nt, work = int(self._stats[0]), int(self._stats[1])
        if self.cover is None:
            return OpReport(self._op, np.zeros(nt, np.int64), work)
        buf = self._path if self._op == "marginal" else self._touched
        return OpReport(self._op, np.array(buf[:nt], np.int64), work)

    # ------------------------------------------------------------------ state for checks
    @property
    def node_data(self) -> np.ndarray:
        """A copy of the current data matrix, shape (n, k)."""
        return self._data.copy()

    def edge_potentials(self) -> np.ndarray:
        """The current edge potentials as an (n - 1, k, k) array aligned with ``tree.edges``."""
        t = self.tree
        e = t.edges
        if self.cover is None:
            return self._small_theta.copy() if t.n == 2 else np.zeros((0, self.k, self.k))
        C = self.cover
        towards = C.s_parent[e[:, 1]] == e[:, 0]
        z = np.where(towards, C.edge_node[e[:, 1]], C.edge_node[e[:, 0]])
        mats = self._theta[z]
        return np.where(towards[:, None, None], mats, np.swapaxes(mats, 1, 2))

    def copy(self) -> "OnlineModel":
        """An independent model in the same state (tables, data, potentials, work counters), made
        by copying its two flat buffers: O(size of the model) memory copies instead of the O(n k^3)
        fill. The tree and the cover are shared (both read only): many users that start from the
        same settings can each copy one model built once. The copy calls the build of the kernels
        that answers now (the plain-Python one while the compiled one is deferred).

        Examples
        --------
        >>> from engine.trees.generators import path_tree
        >>> a = OnlineModel(path_tree(4), 2, [[2.0, 1.0], [1.0, 2.0]])
        >>> b = a.copy()
        >>> b.update(0, [0.0, 1.0])
        >>> [round(float(p), 4) for p in a.marginal(1)], [round(float(p), 4) for p in b.marginal(1)]
        ([0.5, 0.5], [0.3333, 0.6667])
        """
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        if self.cover is None:
            new._data = self._data.copy()
            new._stats = self._stats.copy()
            if self._small_theta is not None:
                new._small_theta = self._small_theta.copy()
            return new
        new._F = _aligned_zeros(self._F.size, np.float64, fill=False)
        new._F[:] = self._F
        new._I = _aligned_zeros(self._I.size, np.int64, fill=False)
        new._I[:] = self._I
        K = new._use(new._kernels())   # entry points bound to the copy (the stand-in's are methods)
        (new._tab, new._pool, new._theta, new._data, _, _, new._out, new._sc,
         new._NI, _, _, new._touched, new._path, _) = K.pure_module().views(new._F, new._I)
        start = int(new._I[K.L_STATS])
        new._stats = new._I[start:start + K.ST_SIZE]
        return new

    def state_arrays(self) -> tuple:
        """Copies of everything the model's answers depend on (tables, scales, product trees,
        potentials, data), without scratch buffers: two equal snapshots mean the same model."""
        if self.cover is None:
            return (self._data.copy(),) + ((self._small_theta.copy(),) if self.tree.n == 2 else ())
        return tuple(a.copy() for a in (self._tab, self._pool, self._theta, self._data, self._NI))

    @property
    def height(self) -> int:
        """Height of the cover (0 for trees with fewer than three vertices)."""
        return 0 if self.cover is None else int(self.cover.height)

    # ------------------------------------------------------------------ n <= 2
    def _small_log_joint(self):
        """ln of the unnormalised joint of a one- or two-vertex tree (-inf where zero)."""
        with np.errstate(divide="ignore"):
            ld = np.log(self._data)
            if self.tree.n == 1:
                return ld[0]
            p, c = self.tree.edges[0]
            return ld[p][:, None] + np.log(self._small_theta[0]) + ld[c][None, :]

    def _small_logz(self):
        lz = _logsumexp(self._small_log_joint().ravel())
        return None if lz == -np.inf else lz

    def _small_marginal(self, v):
        lj = self._small_log_joint()
        if self.tree.n > 1:
            p, c = self.tree.edges[0]
            lj = np.array([_logsumexp(r) for r in (lj if v == p else lj.T)])
        m = np.exp(lj - lj.max())
        return m / m.sum()


def _logsumexp(a) -> float:
    """ln Σ e^a over a 1-d array; -inf when every entry is -inf."""
    m = a.max()
    if m == -np.inf:
        return -np.inf
    return float(m + np.log(np.exp(a - m).sum()))


def _numeric(data) -> bool:
    """A flat list, tuple or 1-d array of numbers (cheap test; the kernel checks the values and
    the length)."""
    if isinstance(data, np.ndarray):
        return data.ndim == 1 and data.dtype.kind in "iuf"
    return isinstance(data, (list, tuple)) and all(type(x) in (float, int) for x in data)


def _edge_input(tree, edge_potentials, k):
    """Validate edge potentials: a (k, k) matrix or an (n - 1, k, k) array aligned with tree.edges."""
    a = np.asarray(edge_potentials, dtype=np.float64)
    if a.shape == (k, k):
        return check_matrix(a, k, "the edge potential")
    if a.shape == (tree.n - 1, k, k):
        if not (np.isfinite(a).all() and (a >= 0).all()):
            child_potentials(tree, a, k)  # raises with the culprit named
        check_edge_range(tree, a)
        return a
    raise InvalidPotentialError(f"edge potentials must have shape ({k}, {k}) or "
                                f"({tree.n - 1}, {k}, {k}), got {a.shape}")


def random_ops(tree: Tree, k: int, count: int, *, seed=None, hard: float = 0.2) -> list[dict]:
    """A random stream of scenario ops: soft updates (some hard, one label only) and marginal
    queries at random vertices, alternating."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    out = []
    for i in range(int(count)):
        name = tree.name(int(rng.integers(tree.n)))
        if i % 2 == 0:
            if rng.random() < hard:
                d = np.zeros(k)
                d[int(rng.integers(k))] = 1.0
            else:
                d = rng.random(k) + 0.05
            out.append({"update": name, "data": [float(x) for x in d]})
        else:
            out.append({"marginal": name})
    return out


def largest_difference_from_bp(model: "OnlineModel") -> float:
    """max over vertices and labels of |online marginal - BP marginal| (one BP pass, n walks)."""
    from engine.inference.belief_propagation import belief_propagation

    t = model.tree
    E = model.edge_potentials() if t.n > 1 else np.ones((model.k, model.k))
    ref = belief_propagation(t, model.node_data, E, k=model.k)
    got = model.marginals()
    return float(np.abs(got - ref.marginals).max())
