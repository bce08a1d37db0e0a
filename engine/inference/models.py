"""Pairwise models of a tree given by a few numbers, and the marginals of a tree-shaped network.

A pairwise model for belief propagation (the lecture notes "Inferences on trees: sum-product
algorithm", sections 8.1-8.4) or the online model ("Online Sum-Product Computation over Trees",
Herbster, Pasteris & Vitale, section 4) is often given by a few numbers: the labels k, a Potts
coupling or one k x k edge potential ψ, seeded random node potentials φ (or all ones), rows of φ
replaced, and evidence multiplied into φ; or a sample network with its own φ and ψ.
:class:`PairwiseConfig` holds those numbers, so every caller that gives the same numbers builds the
same model. :func:`network_marginals` runs belief propagation on a :class:`~engine.networks.Network`.

>>> from engine.trees.samples import read_sample
>>> m = PairwiseConfig(k=2, coupling=0.8, seed=0, evidence={"4": 1}).model(read_sample("lecture_5_vertices"))
>>> m.k, m.node_potentials.shape, m.node_potentials[3, 0]
(2, (5, 2), np.float64(0.0))
>>> net = read_sample_network("weather")
>>> round(network_marginals(net, {"WetGrass": "wet"})["Rain"]["yes"], 4)
0.75
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from engine.errors import InconsistentEvidenceError, InvalidParameterError
from engine.inference.belief_propagation import belief_propagation
from engine.inference.evidence import evidence_vectors
from engine.inference.online import OnlineModel
from engine.inference.potentials import POTTS_COUPLING, potts_interaction, random_node_potentials
from engine.networks import Network, read_sample_network
from engine.params import Param, validate_params
from engine.trees.model import Tree

__all__ = ["BPModel", "PairwiseConfig", "network_marginals"]


@dataclass(frozen=True)
class BPModel:
    """A pairwise tree model with its evidence multiplied in.

    node_potentials (n, k) includes the evidence; prior_node_potentials (n, k) does not;
    edge_potentials is one (k, k) matrix or (n - 1, k, k) aligned with ``tree.edges``;
    states : per-vertex state names of a network, or None.
    """

    tree: Tree
    k: int
    node_potentials: np.ndarray
    prior_node_potentials: np.ndarray
    edge_potentials: np.ndarray
    states: tuple | None = None


@dataclass(frozen=True)
class PairwiseConfig:
    """The numbers of a pairwise model on a tree.

    k : labels; coupling : the Potts coupling of every edge (:func:`potts_interaction`), unless
    psi : one k x k edge potential for every edge (rows: the parent's label);
    seed : the seed of random node potentials φ (None: φ is all ones);
    phi : rows of φ replaced, ``{vertex name: weights}``; evidence : ``{vertex name: label, state
    name or weights}`` multiplying φ; network : a sample network (``sample_networks/``) bringing its
    own tree, k, φ and ψ; cover : the cover the online model walks (``"optimal"`` or ``"rake-only"``).
    """

    k: int = Param(int, 2, "the number of labels", lo=2).field()
    coupling: float = POTTS_COUPLING.field()
    psi: tuple | None = None
    seed: int | None = None
    phi: Mapping = field(default_factory=dict)
    evidence: Mapping = field(default_factory=dict)
    network: str | None = None
    cover: str = Param(str, "optimal", "the cover the model walks", choices=("optimal", "rake-only")).field()

    def __post_init__(self):
        validate_params(self)

    def edge_potential(self) -> np.ndarray:
        """The k x k edge potential of every edge: ``psi``, else the Potts matrix of the coupling."""
        k = int(self.k)
        psi = np.asarray(self.psi, float) if self.psi is not None else potts_interaction(k, float(self.coupling))
        if psi.shape != (k, k):
            raise InvalidParameterError(f"parameter psi is {psi.shape[0]} x {psi.shape[1]}; k = {k}")
        return psi

    def model(self, tree: Tree | None) -> BPModel:
        """The model on ``tree`` (a network brings its own)."""
        if self.network:
            net = read_sample_network(self.network)
            t, k, phi, psi, states = net.tree, net.k, net.node_potentials, net.edge_potentials, net.states
        else:
            if tree is None:
                raise InvalidParameterError("no tree: give tree= or network=")
            t, k, states = tree, int(self.k), None
            phi = np.ones((t.n, k)) if self.seed is None else random_node_potentials(t.n, k, seed=int(self.seed))
            psi = self.edge_potential()
        phi = np.array(phi, dtype=np.float64, copy=True)
        for i, w in evidence_vectors(self.phi or {}, t, k, states).items():  # the rows of φ replaced
            phi[i] = w
        post = phi.copy()
        for i, w in evidence_vectors(self.evidence or {}, t, k, states).items():
            post[i] = post[i] * np.asarray(w)
        return BPModel(t, k, post, np.asarray(phi, float), np.asarray(psi, float), states)

    def online(self, tree: Tree | None) -> OnlineModel:
        """The online model on ``tree``, with the evidence applied one update at a time, in order."""
        m = self.model(tree)
        model = OnlineModel(m.tree, m.k, m.edge_potentials, m.prior_node_potentials, cover=self.cover)
        for i, w in evidence_vectors(self.evidence or {}, m.tree, m.k, m.states).items():
            model.update(i, np.asarray(m.prior_node_potentials[i]) * np.asarray(w))
        return model


def network_marginals(network: Network, evidence: Mapping | None = None) -> dict[str, dict[str, float]]:
    """``{variable: {state: probability}}`` of ``network`` by belief propagation, given ``evidence``
    ``{variable: state name, state index or weights}`` (see :meth:`~engine.networks.Network.evidence_potentials`);
    the states a variable pads to the network's k are left out."""
    tree = network.tree
    phi = network.evidence_potentials(dict(evidence or {}))
    if tree.n == 1:
        if phi[0].sum() == 0:
            raise InconsistentEvidenceError("the evidence is inconsistent: total mass 0")
        rows = phi[:1] / phi[0].sum()
    else:
        rows = belief_propagation(tree, phi, network.edge_potentials).marginals
    return {tree.name(v): {s: float(rows[v, a]) for a, s in enumerate(network.states[v])} for v in range(tree.n)}
