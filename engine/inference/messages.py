"""Each sum-product message with the numbers that make it, for checking a message by hand.

The sum-product lecture notes (section 8.2, eq. 5) send

    m_{i→j}(x_j) = Σ_{x_i} φ_i(x_i) ψ_ij(x_i, x_j) Π_{k ∈ N(i)∖{j}} m_{k→i}(x_i)

and read the marginal as p(x_i) ∝ φ_i(x_i) Π_{j ∈ N(i)} m_{j→i}(x_i) (eq. 6). :func:`message_work`
gives, for every message of the sequential schedule (collect towards the root, then distribute),
φ_i, ψ_ij oriented with rows on the sender's state, the incoming messages, their product with φ_i,
the table of terms and the sum; the incoming messages are :func:`belief_propagation`'s, so every
message here equals the engine's (normalised to sum one, as there). :func:`messages_csv` and
:func:`marginals_csv` write them for a spreadsheet.

>>> from engine.trees.samples import read_sample
>>> from engine.inference.potentials import potts_interaction
>>> tree = read_sample("lecture_5_vertices")
>>> work = message_work(tree, [[1, 2], [1, 1], [3, 1], [1, 1], [1, 1]], potts_interaction(2, 1.0))
>>> w = work[2]  # the third message: m_{3→1}(x_1) = Σ_{x_3} φ_3(x_3) ψ(x_3, x_1)
>>> tree.name(w.sender), tree.name(w.receiver), w.product.tolist()
('3', '1', [3.0, 1.0])
>>> w.unnormalised.round(4).tolist(), w.message.round(4).tolist()
([9.1548, 5.7183], [0.6155, 0.3845])
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from engine.inference.belief_propagation import (
    Marginals,
    _inputs,
    belief_propagation,
    sequential_schedule,
)
from engine.trees.model import Tree

__all__ = ["BeliefWork", "MessageWork", "belief_work", "marginals_csv", "message_work", "messages_csv"]


@dataclass(frozen=True)
class MessageWork:
    """How the message ``m_{sender→receiver}`` is made (all arrays of length k, or k x k).

    step : its place in the sequential schedule (1 = the first message sent).
    phase : ``"collect"`` (towards the root) or ``"distribute"``.
    phi : φ_sender (with any evidence multiplied in).
    psi : ψ(x_sender = a, x_receiver = b), rows on the sender's state.
    incoming : ``(neighbour, m_{neighbour→sender})`` for the sender's other neighbours (normalised).
    product : φ_sender(a) Π incoming(a), the vector summed against ψ.
    terms : ``product[a] * psi[a, b]``; its column sums are ``unnormalised``.
    unnormalised : Σ_a terms[a, b].
    message : ``unnormalised / unnormalised.sum()``, equal to the engine's message.
    """

    step: int
    sender: int
    receiver: int
    phase: str
    phi: np.ndarray
    psi: np.ndarray
    incoming: tuple[tuple[int, np.ndarray], ...]
    product: np.ndarray
    terms: np.ndarray
    unnormalised: np.ndarray
    message: np.ndarray


@dataclass(frozen=True)
class BeliefWork:
    """How the marginal of ``vertex`` is made: φ times every incoming message, normalised (eq. 6)."""

    vertex: int
    phi: np.ndarray
    incoming: tuple[tuple[int, np.ndarray], ...]
    product: np.ndarray
    marginal: np.ndarray


def _incoming(tree: Tree, res: Marginals, v: int, exclude: int | None):
    out = []
    for u in tree.neighbors(v):
        if u == exclude:
            continue
        m = res.upward[u] if tree.parent[u] == v else res.downward[v]
        out.append((int(u), m.copy()))
    return tuple(out)


def _product(phi: np.ndarray, incoming) -> np.ndarray:
    p = phi.copy()
    for _, m in incoming:
        p = p * m
    return p


def message_work(tree: Tree, node_potentials, edge_potentials, *, k: int | None = None,
                 result: Marginals | None = None) -> list[MessageWork]:
    """Every message of the sequential schedule with its ingredients (see the module docstring).

    ``node_potentials`` (None: all ones, then ``k`` is needed) and ``edge_potentials`` (one k x k
    matrix or one per row of ``tree.edges``) are validated as by :func:`belief_propagation`; pass
    its ``result`` for these potentials to skip the pass.
    """
    phi, P, k = _inputs(tree, node_potentials, edge_potentials, k)
    res = result if result is not None else belief_propagation(tree, phi, P[tree.edges[:, 1]] if tree.n > 1
                                                               else np.ones((0, k, k)), k=k)
    out = []
    half = tree.n - 1
    for step, (s, r) in enumerate(sequential_schedule(tree), 1):
        psi = P[s].T if tree.parent[s] == r else P[r]
        inc = _incoming(tree, res, s, r)
        prod = _product(phi[s], inc)
        # the same sum on a copy scaled to max 1 (a product of tiny numbers must not vanish)
        top = prod.max()
        scaled = prod / top if top > 0 and np.isfinite(top) else prod
        terms = prod[:, None] * psi
        unnorm = terms.sum(axis=0)
        ref = (scaled[:, None] * psi).sum(axis=0)
        total = ref.sum()
        msg = ref / total if total > 0 else np.full(k, np.nan)
        out.append(MessageWork(step, s, r, "collect" if step <= half else "distribute", phi[s].copy(),
                               psi.copy(), inc, prod, terms, unnorm, msg))
    return out


def belief_work(tree: Tree, node_potentials, edge_potentials, v, *, k: int | None = None,
                result: Marginals | None = None) -> BeliefWork:
    """The marginal of vertex ``v`` (a name or an index) as φ_v times its incoming messages."""
    phi, P, k = _inputs(tree, node_potentials, edge_potentials, k)
    i = tree.index(v)
    res = result if result is not None else belief_propagation(tree, phi, P[tree.edges[:, 1]] if tree.n > 1
                                                               else np.ones((0, k, k)), k=k)
    inc = _incoming(tree, res, i, None)
    prod = _product(phi[i], inc)
    return BeliefWork(i, phi[i].copy(), inc, prod, res.marginals[i].copy())


def _labels(k: int, label_names) -> list[str]:
    return [str(x) for x in label_names] if label_names is not None else [str(a) for a in range(k)]


def messages_csv(tree: Tree, work: list[MessageWork], *, label_names=None) -> str:
    """One row per message: ``step, phase, from, to, m(to=label)...`` (normalised messages)."""
    k = work[0].message.shape[0] if work else 0
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["step", "phase", "from", "to"] + [f"m(to={a})" for a in _labels(k, label_names)])
    for m in work:
        w.writerow([m.step, m.phase, tree.name(m.sender), tree.name(m.receiver)] + [repr(float(x)) for x in m.message])
    return buf.getvalue()


def marginals_csv(tree: Tree, marginals: np.ndarray, *, label_names=None) -> str:
    """One row per vertex: ``vertex, P(label)...``."""
    marginals = np.asarray(marginals, dtype=np.float64)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["vertex"] + [f"P({a})" for a in _labels(marginals.shape[1], label_names)])
    for v in range(tree.n):
        w.writerow([tree.name(v)] + [repr(float(x)) for x in marginals[v]])
    return buf.getvalue()
