"""An online sum-product lesson: the model, the log of its operations, the evidence and the prior.

Herbster, Pasteris and Vitale, *Online Sum-Product Computation over Trees*, section 4: after one
O(n) initialisation, each piece of evidence and each marginal walks one path of the cover's
decomposition tree. An :class:`OnlineSession` is what an app (or a script) keeps between two such
operations: the :class:`~engine.inference.online.OnlineModel`, the operations applied so far in
scenario form (so the lesson can be saved and replayed with ``python -m engine online``), the
evidence currently set at each vertex, and the prior marginals of the starting point.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from engine.errors import EngineError, InvalidParameterError
from engine.inference.online import OnlineModel, largest_difference_from_bp
from engine.inference.potentials import check_states, edge_potential_table
from engine.inference.scenario import Scenario, apply_op, scenario_to_dict
from engine.trees.model import Tree

__all__ = ["OnlineSession"]


class OnlineSession:
    """The state of an online-inference lesson on one tree.

    Parameters
    ----------
    tree, k : Tree, int
        The tree and its number of labels (>= 2).
    edge_potential : array (k, k)
        The potential of every edge, rows indexing the state of the edge's first vertex (the
        parent, for the tree's own edges).
    edge_potentials : dict, optional
        Overrides ``{(u, v): (k, k) matrix}`` for single edges, ``u`` and ``v`` vertex names.
    node_data : dict, optional
        The starting data ``{name: k numbers}`` (default: all ones).
    cover : {"optimal", "rake-only"} or HierarchicalCover
        Which cover to build, or one already built for ``tree`` (a server shares one between its
        sessions: built once, read only).
    root : vertex name, optional
        The leaf the cover is rooted at.
    backend : {"numba", "python"}
    prior : ndarray (n, k), optional
        The marginals of the start, when already known (shared between sessions: a belief
        propagation pass saved).

    Attributes
    ----------
    model : OnlineModel
    ops : list of dict
        Every operation since the start, as scenario ops (``{"update": name, "data": [...]}``,
        ``{"marginal": name}``, ...).
    evidence : dict
        vertex index -> the data set there by the latest update, for vertices whose data is not
        their starting data (all ones, or ``node_data``).
    version : int
        Increases with every change of the model (not with queries): a key for caches of the
        marginals.

    Examples
    --------
    >>> from engine.trees.generators import path_tree
    >>> s = OnlineSession(path_tree(5), 2, [[2.0, 1.0], [1.0, 2.0]])
    >>> s.observe(0, 1)
    >>> [round(float(p), 4) for p in s.query(1)]
    [0.3333, 0.6667]
    >>> s.to_scenario()["ops"]
    [{'update': '0', 'data': [0.0, 1.0]}, {'marginal': '1'}]
    """

    def __init__(self, tree: Tree, k: int, edge_potential, *, edge_potentials: dict | None = None,
                 node_data: dict | None = None, cover="optimal", root=None,
                 backend: str = "numba", prior: np.ndarray | None = None):
        k = check_states(k)
        self.tree = tree
        self.k = k
        self.edge_potential = np.array(edge_potential, dtype=np.float64)
        self.edge_potentials = dict(edge_potentials or {})
        self.node_data = {str(name): np.asarray(vec, np.float64) for name, vec in (node_data or {}).items()}
        if isinstance(cover, str):
            self.cover_kind = cover
        else:   # a cover already built for this tree (a server shares one between sessions)
            self.cover_kind = "rake-only" if cover.rake_only else "optimal"
            root = cover.s if root is None else root
        self.root = None if root is None else tree.name(tree.index(root))
        E = edge_potential_table(tree, self.edge_potential, self.edge_potentials)
        D = np.ones((tree.n, k))
        for name, vec in self.node_data.items():
            D[tree.index(name)] = vec
        self._start = (E, D)
        self.model = OnlineModel(tree, k, E, D, cover=cover, root=self.root, backend=backend)
        self.ops: list[dict] = []
        self.evidence: dict[int, np.ndarray] = {}
        self.version = 0
        if prior is not None and np.shape(prior) != (tree.n, k):
            raise InvalidParameterError(f"prior marginals of shape {np.shape(prior)} for {tree.n} vertices and k = {k}")
        self._prior = prior
        self._marginals = (-1, None) if prior is None else (0, prior)

    def copy(self) -> "OnlineSession":
        """An independent session in the same state: the model copied (:meth:`OnlineModel.copy`),
        the log and the evidence copied; the tree, the cover, the starting potentials and the prior
        shared (read only). A server builds one session per settings and gives each user a copy.

        Examples
        --------
        >>> from engine.trees.generators import path_tree
        >>> a = OnlineSession(path_tree(3), 2, [[2.0, 1.0], [1.0, 2.0]])
        >>> b = a.copy()
        >>> b.observe(0, 1)
        >>> len(a.evidence), len(b.evidence), [round(float(p), 4) for p in b.query(1)]
        (0, 1, [0.3333, 0.6667])
        """
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.model = self.model.copy()
        new.ops = [dict(op) for op in self.ops]
        new.evidence = {v: vec.copy() for v, vec in self.evidence.items()}
        return new

    @classmethod
    def from_scenario(cls, sc: Scenario, *, backend: str = "numba") -> "OnlineSession":
        """The session a scenario describes, with its ops replayed (the error names the op)."""
        s = cls(sc.tree, sc.k, sc.edge_potential, edge_potentials=sc.edge_potentials,
                node_data=sc.node_data, cover=sc.cover, root=sc.root, backend=backend)
        for i, op in enumerate(sc.ops):
            try:
                s.apply(op)
            except EngineError as exc:
                raise type(exc)(f"scenario: ops[{i}]: {exc}") from None
        return s

    # ------------------------------------------------------------------ operations (logged)
    def update(self, v, data) -> None:
        """Set the data of vertex ``v`` (k numbers >= 0); its starting data clears its evidence. An
        update that makes the total mass zero raises and changes nothing (model, log, evidence)."""
        i = self.tree.index(v)
        self.model.update(i, data)
        self._log({"update": self.tree.name(i), "data": np.array(data, dtype=np.float64).tolist()}, i)

    def observe(self, v, label: int) -> None:
        """Hard evidence: vertex ``v`` has label ``label``."""
        if not (isinstance(label, (int, np.integer)) and 0 <= label < self.k):
            raise InvalidParameterError(f"label must be one of 0..{self.k - 1}, got {label!r}")
        data = np.zeros(self.k)
        data[int(label)] = 1.0
        self.update(v, data)

    def clear(self, v) -> None:
        """Remove the evidence at ``v``: its data returns to the starting data (all ones, or its
        ``node_data``)."""
        self.update(v, self._start[1][self.tree.index(v)])

    def query(self, v) -> np.ndarray:
        """The marginal of ``v``, logged as a query (its walk becomes the model's ``last_op``)."""
        i = self.tree.index(v)
        out = self.model.marginal(i)
        self.ops.append({"marginal": self.tree.name(i)})
        return out

    def set_edge_potential(self, u, v, matrix) -> None:
        """Replace the potential of the edge (u, v) (rows index u's state)."""
        self.model.set_edge_potential(u, v, matrix)
        a, b = self.tree.name(self.tree.index(u)), self.tree.name(self.tree.index(v))
        self.ops.append({"set_edge": [a, b], "potential": np.asarray(matrix, float).tolist()})
        self.version += 1

    def log_partition(self) -> float:
        """log Z under the current evidence, logged as a query."""
        out = self.model.log_partition()
        self.ops.append({"log_partition": True})
        return out

    def apply(self, op: dict):
        """Apply one scenario op (validated as by ``parse_scenario``); its output line or None."""
        line = apply_op(self.model, len(self.ops), op)
        self._log(op, self.tree.index(op["update"]) if "update" in op else -1)
        return line

    def play(self, ops, progress: Callable[[float, str], None] | None = None, *,
             chunk: int = 1000) -> tuple[int, int]:
        """Apply a stream of ops, skipping those that fail (inconsistent evidence, an unknown
        vertex, bad data); returns ``(played, skipped)``. ``progress(fraction, message)`` is
        called after every ``chunk`` ops.

        Updates and marginal queries go through the batch verbs, a chunk at a time: the updates
        before the chunk's last query in one :meth:`~OnlineModel.update_many` (inconsistent ones
        skipped), the queries before it in one :meth:`~OnlineModel.marginal_many` (their values are
        not kept, and a walk's work does not depend on the evidence), the last query on its own (so
        ``last_op`` is its walk), then the updates after it in one batch. Model, log, evidence,
        version, total work and ``last_op`` end as after applying the ops one by one (the tests
        compare the two). A chunk with any other op, an unknown vertex or data that is not k
        numbers is applied one op at a time.
        """
        ops = list(ops)
        played = skipped = 0
        for start in range(0, len(ops), chunk):
            part = ops[start:start + chunk]
            done = self._play_batched(part)
            if done is None:
                done = self._play_one_by_one(part)
            played += done
            skipped += len(part) - done
            if progress is not None:
                end = start + len(part)
                progress(end / len(ops), f"operation {end} of {len(ops)}")
        return played, skipped

    def _play_one_by_one(self, ops) -> int:
        played = 0
        for op in ops:
            try:
                self.apply(op)
                played += 1
            except EngineError:
                pass
        return played

    def _play_batched(self, ops) -> int | None:
        """Play ``ops`` (updates and queries only) with the batch verbs; the number applied, or
        None (nothing done) when that cannot be done for this chunk.

        Up to the last query: the updates in one batch, then the queries in another; the last
        query alone (its walk is ``last_op``); then the updates after it in one batch."""
        if not all(("update" in op) != ("marginal" in op) for op in ops):
            return None
        try:
            where = [self.tree.index(op["update"] if "update" in op else op["marginal"]) for op in ops]
        except EngineError:
            return None
        queries = [t for t, op in enumerate(ops) if "marginal" in op]
        m = queries[-1] if queries else -1
        head = self._update_batch(ops, where, range(m))
        if head is None:
            return None
        if len(queries) > 1:   # (an empty batch would still set the model's latest op)
            self.model.marginal_many(np.array([where[t] for t in queries[:-1]], np.int64))
        played = 0
        for t in range(m):
            if head.get(t, True):
                self._log(ops[t], where[t])
                played += 1
        if m >= 0:
            played += self._play_one_by_one(ops[m:m + 1])
        tail = self._update_batch(ops, where, range(m + 1, len(ops)))
        if tail is None:   # bad data after the last query: one by one (nothing of the tail is done)
            return played + self._play_one_by_one(ops[m + 1:])
        for t in range(m + 1, len(ops)):
            if tail[t]:
                self._log(ops[t], where[t])
                played += 1
        return played

    def _update_batch(self, ops, where, span) -> dict | None:
        """The updates among ``ops[span]`` in one ``update_many`` (inconsistent ones skipped):
        {position: applied}, or None (nothing done) when an update's data is not valid."""
        ups = [t for t in span if "update" in ops[t]]
        if not ups:
            return {}
        try:
            X = np.array([ops[t]["data"] for t in ups], np.float64)
        except (ValueError, TypeError):
            return None
        if X.shape != (len(ups), self.k):   # each op's data must be k numbers, as update() checks
            return None
        try:
            applied = self.model.update_many(np.array([where[t] for t in ups], np.int64), X,
                                             skip_inconsistent=True)
        except EngineError:   # checked before anything is applied
            return None
        return dict(zip(ups, applied.tolist()))

    def _log(self, op: dict, i: int) -> None:
        """Record an applied op: the log, the evidence at vertex ``i``, the version."""
        if "update" in op:
            vec = np.array(op["data"], dtype=np.float64)
            if np.array_equal(vec, self._start[1][i]):   # back to the starting data: no evidence
                self.evidence.pop(i, None)
            else:
                self.evidence[i] = vec
        if "update" in op or "set_edge" in op:
            self.version += 1
        self.ops.append(dict(op))

    # ------------------------------------------------------------------ reading (not logged)
    def marginal(self, v) -> np.ndarray:
        """The marginal of ``v`` without logging it (for displays)."""
        return self.model.marginal(self.tree.index(v), record=False)

    def marginals(self) -> np.ndarray:
        """All marginals under the current evidence, shape (n, k): one belief-propagation pass
        on the model's current potentials (O(n k^2), faster than n walks of D; the two agree to
        1e-9, which the tests check), computed once per change of the model."""
        if self._marginals[0] != self.version:
            from engine.inference.belief_propagation import belief_propagation

            m = self.model
            E = m.edge_potentials() if self.tree.n > 1 else np.ones((self.k, self.k))
            self._marginals = (self.version, belief_propagation(self.tree, m.node_data, E, k=self.k).marginals)
        return self._marginals[1]

    @property
    def prior(self) -> np.ndarray:
        """Marginals of the starting point (before any op), shape (n, k): one belief-propagation
        pass, done on first use."""
        if self._prior is None:
            from engine.inference.belief_propagation import belief_propagation

            E, D = self._start
            self._prior = belief_propagation(self.tree, D, E, k=self.k).marginals
        return self._prior

    def largest_difference_from_bp(self) -> float:
        """max |online − BP| over all vertices and labels, under the current evidence."""
        return largest_difference_from_bp(self.model)

    @property
    def n_operations(self) -> int:
        """Updates and marginal queries so far (what the work comparison counts)."""
        return sum(1 for op in self.ops if "update" in op or "marginal" in op)

    def to_scenario(self, tree_spec=None) -> dict:
        """The scenario (JSON object) that rebuilds this session: the starting point and every op.
        ``tree_spec`` defaults to the tree's edges inline."""
        if tree_spec is None:
            tree_spec = {"edges": [list(e) for e in self.tree.named_edges()]}
            if self.tree.n == 1:
                tree_spec = {"vertices": [self.tree.name(0)]}
        return scenario_to_dict(tree_spec, self.k, self.edge_potential, edge_potentials=self.edge_potentials,
                                node_data=self.node_data, cover=self.cover_kind, root=self.root, ops=self.ops)
