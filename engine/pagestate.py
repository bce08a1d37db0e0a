"""From a page's query parameters (the table of :mod:`engine.urlstate`) to the engine objects it shows.

A page of the app and the lesson checker build the same model or run configuration from the same
parameters, here, so that the answer a lesson states is the one the page shows. ``values`` are
typed values as :func:`engine.urlstate.parse_query` returns them; missing ones take the table's
defaults.

>>> from engine.trees.samples import read_sample
>>> m = bp_model("belief_propagation", {"evidence": {"4": 1}}, read_sample("lecture_5_vertices"))
>>> m.k, m.node_potentials.shape, m.node_potentials[3, 0]
(2, (5, 2), np.float64(0.0))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.trees.model import Tree
from engine.urlstate import evidence_vectors, page_schema

__all__ = [
    "BPModel",
    "bhtmm_config",
    "bp_model",
    "hedge_config",
    "ofde_config",
    "online_model",
    "page_tree",
    "rta_config",
    "with_defaults",
]


def with_defaults(page: str, values: dict) -> dict:
    """``values`` completed with the page's defaults."""
    out = page_schema(page).defaults()
    out.update({k: v for k, v in values.items() if v is not None})
    return out


def page_tree(values: dict, default: Tree | None = None):
    """``(tree, network)`` a link opens on: its network's tree, its ``tree``, else ``default``."""
    from engine.trees.spec import tree_from_link

    if values.get("network"):
        from engine.networks import read_sample_network

        net = read_sample_network(values["network"])
        return net.tree, net
    if values.get("tree"):
        return tree_from_link(values["tree"]), None
    return default, None


@dataclass(frozen=True)
class BPModel:
    """What the Belief Propagation page computes on: potentials with the evidence multiplied in.

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


def bp_model(page: str, values: dict, tree: Tree | None = None) -> BPModel:
    """The model of the Belief Propagation page (``page="belief_propagation"``: seeded φ with the
    link's ``phi`` rows, ``psi`` or the coupling) or of the Online Marginals page
    (``"online_marginals"``: node potentials all ones, ``psi`` or the coupling)."""
    from engine.inference.potentials import potts_interaction, random_node_potentials

    v = with_defaults(page, values)
    t, net = page_tree(v, tree)
    if t is None:
        raise InvalidParameterError("no tree: give tree= or network=")
    if net is not None:
        k, phi, psi, states = net.k, net.node_potentials, net.edge_potentials, net.states
    else:
        k = int(v["k"])
        states = None
        if page == "belief_propagation":
            phi = random_node_potentials(t.n, k, seed=int(v["seed"]))
        else:
            phi = np.ones((t.n, k))
        psi = np.asarray(v["psi"], float) if v.get("psi") is not None else potts_interaction(k, float(v["coupling"]))
        if psi.shape != (k, k):
            raise InvalidParameterError(f"parameter psi is {psi.shape[0]} x {psi.shape[1]}; k = {k}")
    phi = np.array(phi, dtype=np.float64, copy=True)
    for i, w in evidence_vectors(v.get("phi") or {}, t, k, states).items():  # φ rows the link replaces
        phi[i] = w
    post = phi.copy()
    for i, w in evidence_vectors(v.get("evidence") or {}, t, k, states).items():
        post[i] = post[i] * np.asarray(w)
    return BPModel(t, k, post, np.asarray(phi, float), np.asarray(psi, float), states)


def online_model(values: dict, tree: Tree | None = None):
    """The online model of the Online Marginals page, with the link's evidence applied in order."""
    from engine.inference.online import OnlineModel

    v = with_defaults("online_marginals", values)
    m = bp_model("online_marginals", v, tree)
    model = OnlineModel(m.tree, m.k, m.edge_potentials, m.prior_node_potentials,
                        cover="rake-only" if v["cover"] == "rake" else "optimal")
    for i, w in evidence_vectors(v.get("evidence") or {}, m.tree, m.k, m.states).items():
        model.update(i, np.asarray(m.prior_node_potentials[i]) * np.asarray(w))
    return model


def hedge_config(values: dict, tree: Tree):
    """The TREE-HEDGE page's run configuration on ``tree`` (its tasks)."""
    from engine.hedge.run import HedgeConfig

    v = with_defaults("tree_hedge", values)
    return HedgeConfig(tree={"edges": [list(e) for e in tree.named_edges()], "root": tree.name(tree.root)},
                       states=int(v["k"]), trials=int(v["trials"]), eta=float(v["eta"]),
                       coupling=float(v["coupling"]), environment=v["env"], switches=int(v["switches"]),
                       seed=int(v["seed"]))


def ofde_config(values: dict):
    """The OFDE page's run configuration (synthetic data, or a benchmark of :func:`engine.datasets.available`)."""
    from engine.datasets import available
    from engine.forests.run import OfdeConfig

    v = with_defaults("ofde", values)
    train = test = valid = ""
    if v["data"] == "benchmark":
        found = available("density")
        if v["benchmark"] not in found:
            raise InvalidParameterError(f"benchmark {v['benchmark']} is not in the data folder; found: "
                                        f"{', '.join(found) or 'none'}")
        train, valid, test = (str(p) for p in found[v["benchmark"]])
    return OfdeConfig(train=train, test=test, valid=valid, n_vars=int(v["vars"]), n_train=int(v["train"]),
                      n_test=2000, n_valid=1000, data_seed=int(v["data_seed"]), model=v["experts"],
                      mixture_size=int(v["mixture"]), rounds=int(v["rounds"]),
                      perturbation_scale=float(v["scale"]), eval_points=30, seed=int(v["seed"]))


def rta_config(values: dict):
    """The RTA page's run configuration (the synthetic data, or a Mulan benchmark by name)."""
    from engine.multilabel.run import RtaConfig

    v = with_defaults("rta", values)
    if v["data"] == "synthetic":
        data = {"synthetic": {"n_examples": int(v["examples"]), "n_labels": int(v["labels"]),
                              "n_features": 20, "seed": 0}}
    else:
        from engine.multilabel.data import benchmark_files

        files = benchmark_files()
        if v["data"] not in files:
            raise InvalidParameterError(f"parameter data={v['data']}: no such benchmark; available: "
                                        f"synthetic{''.join(', ' + f for f in files)}")
        data = str(files[v["data"]])
    return RtaConfig(data=data, labels=None, n_trees=int(v["trees"]), max_k=int(v["max_k"]),
                     C=None if v["c"] == "inner" else float(v["c"]), folds=int(v["folds"]),
                     max_passes=int(v["passes"]), baseline="svm" if v["baseline"] else None, seed=int(v["seed"]))


def bhtmm_config(values: dict, model: str | None = None):
    """The Hidden Tree Markov Models page's run configuration (``model`` overrides the link's)."""
    from engine.datasets import available
    from engine.htmm.run import SYNTHETIC, BhtmmConfig
    from engine.htmm.sp import AUTHORS_CODE

    v = with_defaults("bhtmm", values)
    if v["source"] == "synthetic":
        train = test = SYNTHETIC
    else:
        found = available("trees")
        if v["source"] not in found:
            raise InvalidParameterError(f"data set {v['source']} is not in the data folder; found: "
                                        f"{', '.join(found) or 'none'}")
        train, test = (str(p) for p in found[v["source"]])
    model = model or v["model"]
    # each model gets only the settings it reads (a run warns about the others)
    own = (dict(lmin=int(v["lmin"]), lmax=int(max(v["lmax"], 1)), phi=float(v["phi"]), sampler=v["sampler"],
                init=v["init"]) if model == "tf" else
           {"exact": {}, "paper": {"estep": "paper"}, "authors": AUTHORS_CODE}[v["sp"]])
    return BhtmmConfig(train=train, test=test, model=model, task=v["task"], states=int(v["states"]),
                       iterations=int(v["iterations"]), synthetic_trees=int(v["synthetic"]), seed=int(v["seed"]),
                       **own)
