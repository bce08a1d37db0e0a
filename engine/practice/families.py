"""The exercise families: each makes a seeded exercise whose answer the engine computes.

- ``bp_message``: one sum-product message on a 4-6-vertex tree (lecture notes "Inferences on trees:
  sum-product algorithm", section 8.2, eq. 5), by :func:`engine.inference.messages.message_work`.
- ``marginal_evidence``: a marginal after hard evidence (same notes, eq. 6), by
  :func:`engine.inference.belief_propagation`.
- ``cover_round``: the mergeable vertices M_t of round t of the optimal (2,s)-cover and its height
  ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 3, Figure 1 and
  Theorem 6), by :func:`engine.cover.optimal_cover`.
- ``update_path``: the components of the decomposition tree D an update at one vertex recomputes (same
  paper, section 4), by :class:`engine.inference.OnlineModel` (its ``last_op.touched``).
- ``hedge_weight``: TREE-HEDGE's allocation at a task after one trial (same paper, section 5,
  Figure 3), by :class:`engine.hedge.TreeHedge`.
- ``chow_liu_next``: the next edge Chow-Liu's greedy (Kruskal) step adds, from a mutual-information
  table ("Online Forest Density Estimation", Koriche, section 2), by
  :func:`engine.forests.structure.maximum_spanning_tree`.
- ``rta_kbest``: the first labelling RTA's K-best inference returns on one random spanning tree of a
  small label graph ("Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin
  Markov Networks", Marchand, Su, Morvant, Rousu & Shawe-Taylor, section 4.1), by
  :func:`engine.multilabel.kbest.kbest_tree`.
- ``htmm_posterior``: P(Q_root | x) of SP-BHTMM on a root with two leaf children ("Bayesian Tensor
  Factorisation for Bottom-up Hidden Tree Markov Models", Castellana & Bacciu, eq. 2), by
  :meth:`engine.htmm.sp.SPBHTMM.posteriors`.

Every generator draws from ``numpy.random.default_rng(seed)`` only, so a seed names its exercise.
Each imports the part of the engine it exercises when it runs (start-up: those load numba's kernels,
and ``practice list`` and the app read the families without computing one).
"""

from __future__ import annotations

import re

import numpy as np

from engine.practice.exercise import Exercise, Part, format_part
from engine.trees.generators import random_tree
from engine.trees.model import Tree

__all__ = ["bp_message", "marginal_evidence", "cover_round", "update_path", "hedge_weight", "chow_liu_next", "rta_kbest",
           "htmm_posterior", "small_tree"]

#: the absolute tolerance of every probability an exercise asks for (answers to 3 decimals pass)
PROBABILITY_TOLERANCE = 0.005


def small_tree(n: int, rng) -> Tree:
    """A uniformly random tree on the vertices 1..n (rooted at 1; from a random Prüfer sequence)."""
    t = random_tree(n, seed=rng)
    return Tree.from_named_edges([(str(u + 1), str(v + 1)) for u, v in t.edges.tolist()],
                                 vertices=[str(i) for i in range(1, n + 1)], root="1")


def _num(x: float) -> str:
    return format_part("vector", (float(x),))


def _vec(xs) -> str:
    return "(" + ", ".join(_num(x) for x in xs) + ")"


_ITEM = re.compile(r"(- |\d+\. )")   # a Markdown list item


def _solution(lines) -> str:
    """A worked solution's lines as Markdown in which each stays its own line: a list item its own
    item, any other line its own paragraph. (One newline would run a line into the one above it:
    Markdown reads it as a space, or as more of the list item above.)

    >>> _solution(["Heavier pairs:", "- none", "The next is **X1–X2**."])
    'Heavier pairs:\\n\\n- none\\n\\nThe next is **X1–X2**.'
    """
    out: list[str] = []
    for line in lines:
        if out:
            out.append("\n" if _ITEM.match(line) and _ITEM.match(out[-1]) else "\n\n")
        out.append(line)
    return "".join(out)


def _edges_text(tree: Tree) -> str:
    return ", ".join(f"{a}–{b}" for a, b in tree.named_edges())


def _phi_table(tree: Tree, phi: np.ndarray) -> str:
    k = phi.shape[1]
    head = "| vertex | " + " | ".join(f"φ(x={a})" for a in range(k)) + " |\n|---|" + "---|" * k + "\n"
    return head + "".join(f"| {tree.name(v)} | " + " | ".join(_num(x) for x in phi[v]) + " |\n"
                          for v in range(tree.n))


def _psi_table(psi: np.ndarray) -> str:
    k = psi.shape[0]
    head = "| ψ(x_i, x_j) | " + " | ".join(f"x_j={b}" for b in range(k)) + " |\n|---|" + "---|" * k + "\n"
    return head + "".join(f"| x_i={a} | " + " | ".join(_num(x) for x in psi[a]) + " |\n" for a in range(k))


def _potentials(tree: Tree, rng, k: int = 2):
    """Small whole-number φ (1..4) and one symmetric ψ (1..4), so a message can be done by hand."""
    phi = rng.integers(1, 5, size=(tree.n, k)).astype(float)
    a = rng.integers(1, 5, size=(k, k)).astype(float)
    psi = np.triu(a) + np.triu(a, 1).T
    return phi, psi


def _tree_data(tree: Tree) -> dict:
    return {"vertices": list(tree.names), "edges": [list(e) for e in tree.named_edges()]}


# ---------------------------------------------------------------------- sum-product (lecture notes)

def _pairwise_model(seed: int):
    """``(rng, tree, phi, psi)``: a 4-6-vertex tree with two labels and hand-sized potentials."""
    rng = np.random.default_rng(seed)
    tree = small_tree(int(rng.integers(4, 7)), rng)
    return (rng, tree, *_potentials(tree, rng))


def _model_text(tree: Tree, phi: np.ndarray, psi: np.ndarray) -> str:
    """The model as the prompt states it: the tree, φ and ψ (Markdown tables)."""
    return (f"A tree on the vertices 1..{tree.n} with edges {_edges_text(tree)}; every variable takes the values 0 "
            "and 1, with p(x) ∝ Π φ_v(x_v) Π ψ(x_u, x_v). Node potentials φ:\n\n" + _phi_table(tree, phi) +
            "\nEvery edge has the same symmetric edge potential ψ:\n\n" + _psi_table(psi))


def bp_message(seed: int) -> Exercise:
    """One message m_{i→j} of the sum-product algorithm, normalised to sum one (eq. 5)."""
    from engine.inference.messages import message_work

    rng, tree, phi, psi = _pairwise_model(seed)
    work = message_work(tree, phi, psi)
    w = work[int(rng.integers(len(work)))]
    i, j = tree.name(w.sender), tree.name(w.receiver)
    prompt = (_model_text(tree, phi, psi) +
              f"\nCompute the sum-product message **m_{{{i}→{j}}}(x_{j})**, normalised to sum to one: "
              f"(m(x_{j}=0), m(x_{j}=1)).")
    lines = [f"m_{{{i}→{j}}}(x_{j}) = Σ_{{x_{i}}} φ_{i}(x_{i}) ψ(x_{i}, x_{j}) Π m_{{k→{i}}}(x_{i}) over the "
             f"other neighbours k of {i}."]
    for u, m in w.incoming:
        lines.append(f"- incoming m_{{{tree.name(u)}→{i}}} = {_vec(m)} (normalised)")
    if not w.incoming:
        lines.append(f"- {i} has no other neighbour: the product is φ_{i} alone.")
    lines += [f"- φ_{i} × incoming = {_vec(w.product)}",
              f"- summed against ψ: {_vec(w.unnormalised)}",
              f"- normalised: **{_vec(w.message)}**"]
    return Exercise(
        "bp_message", seed, FAMILY_TITLES["bp_message"], prompt,
        {**_tree_data(tree), "phi": phi.tolist(), "psi": psi.tolist(), "sender": i, "receiver": j},
        (Part("message", "vector", tuple(float(x) for x in w.message), PROBABILITY_TOLERANCE),),
        f"First compute the messages that {i} receives from its neighbours other than {j} (leaves first); "
        f"multiply them into φ_{i}, sum over x_{i} against ψ, and divide by the total.",
        _solution(lines))


def marginal_evidence(seed: int) -> Exercise:
    """The marginal p(x_v | x_e = a) of one vertex after hard evidence at another (eq. 6)."""
    from engine.inference.belief_propagation import belief_propagation
    from engine.inference.messages import belief_work

    rng, tree, phi, psi = _pairwise_model(seed)
    e, v = (int(x) for x in rng.choice(tree.n, size=2, replace=False))
    a = int(rng.integers(2))
    ev = phi.copy()
    ev[e] = 0.0
    ev[e, a] = phi[e, a]
    res = belief_propagation(tree, ev, psi)
    bw = belief_work(tree, ev, psi, v, result=res)
    name_e, name_v = tree.name(e), tree.name(v)
    prompt = (_model_text(tree, phi, psi) +
              f"\nWe observe **x_{name_e} = {a}**. Compute the marginal **p(x_{name_v} | x_{name_e} = {a})**: "
              f"(p(x_{name_v}=0 | ·), p(x_{name_v}=1 | ·)).")
    lines = [f"Evidence x_{name_e} = {a} sets φ_{name_e} to {_vec(ev[e])} (the other value gets 0).",
             f"p(x_{name_v}) ∝ φ_{name_v}(x_{name_v}) Π m_{{k→{name_v}}}(x_{name_v}) over the neighbours k of "
             f"{name_v} (eq. 6), with every message computed from the evidence-multiplied φ:"]
    lines += [f"- m_{{{tree.name(u)}→{name_v}}} = {_vec(m)}" for u, m in bw.incoming]
    lines += [f"- φ_{name_v} × messages = {_vec(bw.product)}", f"- normalised: **{_vec(bw.marginal)}**"]
    return Exercise(
        "marginal_evidence", seed, FAMILY_TITLES["marginal_evidence"], prompt,
        {**_tree_data(tree), "phi": phi.tolist(), "psi": psi.tolist(), "evidence": {name_e: a}, "vertex": name_v},
        (Part("marginal", "vector", tuple(float(x) for x in bw.marginal), PROBABILITY_TOLERANCE),),
        f"Hard evidence is a node potential: multiply φ_{name_e} by the indicator of x_{name_e} = {a}. Then send "
        f"messages towards {name_v} from the leaves and multiply the ones {name_v} receives into φ_{name_v}.",
        _solution(lines))


# ---------------------------------------------------------------------- hierarchical cover (HPV, section 3)

def cover_round(seed: int) -> Exercise:
    """M_t of round t of the optimal (2,s)-cover of a 7-10-vertex tree, and the cover's height."""
    from engine.cover import optimal_cover

    rng = np.random.default_rng(seed)
    tree = small_tree(int(rng.integers(7, 11)), rng)
    s = int(rng.choice(tree.leaves))
    cover = optimal_cover(tree, s)
    t = int(rng.integers(cover.rounds))
    traces = [cover.trace(r) for r in range(cover.rounds + 1)]
    names = [tree.name(int(v)) for v in traces[t].vertices[traces[t].mergeable]]
    lines = []
    for tr in traces:
        verts = " ".join(sorted((tree.name(int(v)) for v in tr.vertices), key=int))
        merged = " ".join(sorted((tree.name(int(v)) for v in tr.vertices[tr.mergeable]), key=int))
        lines.append(f"- T_{tr.t} = {{{verts}}}" + (f"; M_{tr.t} = {{{merged}}}" if tr.t < cover.rounds else
                                                      " (s alone: the cover is complete)"))
    prompt = (f"A tree on the vertices 1..{tree.n} with edges {_edges_text(tree)}. Build the optimal "
              f"(2,s)-hierarchical cover rooted at the leaf **s = {tree.name(s)}**: T_0 is s with the interior "
              "vertices; in each round the mergeable vertices M_t of T_t (leaves of T_t other than s, and vertices "
              "with exactly one child in T_t when that child is not mergeable) are merged and leave. "
              f"Give **M_{t}** (the mergeable vertices of round {t}) and the **height** of the cover (its number of "
              "rounds).")
    return Exercise(
        "cover_round", seed, FAMILY_TITLES["cover_round"], prompt,
        {**_tree_data(tree), "s": tree.name(s), "round": t},
        (Part("mergeable", "vertices", tuple(names)), Part("height", "integer", (int(cover.height),))),
        "T_0 drops the leaves of T (except s). Decide mergeability bottom-up, children first: a leaf of T_t is "
        "mergeable; a vertex with exactly one child is mergeable when that child is not. Remove M_t, re-attach "
        "what is left to its nearest surviving ancestor, and count rounds until only s is left.",
        _solution([*lines, f"Round {t} merges **{{{' '.join(sorted(names, key=int))}}}**; the cover has "
                   f"**height {cover.height}** (Theorem 6: no (2,s)-cover is lower)."]))


def update_path(seed: int) -> Exercise:
    """The components of D the online model recomputes when the evidence at one vertex changes."""
    from engine.inference.online import OnlineModel

    rng = np.random.default_rng(seed)
    tree = small_tree(int(rng.integers(6, 10)), rng)
    s = int(rng.choice(tree.leaves))
    v = int(rng.choice([u for u in range(tree.n) if u != s]))
    model = OnlineModel(tree, 2, np.array([[2.0, 1.0], [1.0, 2.0]]), cover="optimal", root=s)
    model.update(v, np.array([1.0, 0.0]))
    cover = model.cover
    touched = [int(z) for z in model.last_op.touched]
    names = [cover.node_name(z) for z in touched]
    nv = tree.name(v)
    prompt = (f"A tree on the vertices 1..{tree.n} with edges {_edges_text(tree)}, and the online sum-product model "
              f"on its optimal (2,s)-hierarchical cover rooted at the leaf **s = {tree.name(s)}**. The evidence at "
              f"vertex **{nv}** changes. Which components of the decomposition tree D does the update recompute? Name "
              "a component S^w by its splitting vertex w, and an edge's component by its two ends, like 4|8.")
    lines = [f"An update recomputes the D node holding {nv}'s data and every ancestor of it in D, up to the root:"]
    for z in touched:
        what = (f"the edge {cover.node_name(z)} (formed at initialisation)" if cover.round[z] < 0 else
                f"S^{cover.node_name(z)}, formed in round {int(cover.round[z])}")
        lines.append(f"- {what}")
    lines.append(f"**{' '.join(names)}**: {len(names)} of the {cover.m} components of D (the cover has height "
                 f"{cover.height}).")
    where = ("its edge (a leaf's data is summed into its edge's table)" if tree.degree[v] == 1 else
             f"S^{nv}, the component formed when {nv} was merged")
    return Exercise(
        "update_path", seed, FAMILY_TITLES["update_path"], prompt,
        {**_tree_data(tree), "s": tree.name(s), "vertex": nv},
        (Part("components", "components", tuple(names)),),
        f"Build the cover round by round first. The data of {nv} lives in {where}; an update walks from there to "
        "the root of D, so the components are those that contain "
        f"{nv} without having it on their boundary.",
        _solution(lines))


# ---------------------------------------------------------------------- TREE-HEDGE (HPV, section 5)

def hedge_weight(seed: int) -> Exercise:
    """TREE-HEDGE's allocation at task u after one trial at task v (Figure 3)."""
    from engine.hedge.learner import TreeHedge

    rng = np.random.default_rng(seed)
    tree = small_tree(int(rng.integers(4, 7)), rng)
    k = 2
    coupling = float(rng.choice([0.6, 0.7, 0.8, 0.9]))
    eta = float(rng.choice([0.5, 1.0, 2.0]))
    v, u = (int(x) for x in rng.choice(tree.n, size=2, replace=False))
    y = np.zeros(k)
    y[int(rng.integers(k))] = 1.0
    hedge = TreeHedge(tree, k, eta=eta, coupling=coupling, backend="bp")
    before = hedge.predict_one(u)
    hedge.learn_one(v, y)
    after = hedge.predict_one(u)
    nv, nu = tree.name(v), tree.name(u)
    prompt = (f"TREE-HEDGE on a tree of tasks 1..{tree.n} with edges {_edges_text(tree)}, k = {k} actions "
              f"(0 and 1), learning rate η = {eta:g}, Potts edge potential Θ with {coupling:g} on the diagonal and "
              f"{1 - coupling:g} elsewhere, and data D = all ones (a uniform prior). In the first trial task "
              f"{nv} suffers the loss vector y = {_vec(y)}. Give TREE-HEDGE's **allocation at task {nu}** after "
              f"this trial: (p({nu}→0), p({nu}→1)).")
    row = np.exp(-eta * y)
    return Exercise(
        "hedge_weight", seed, FAMILY_TITLES["hedge_weight"], prompt,
        {**_tree_data(tree), "k": k, "eta": eta, "coupling": coupling, "task": nv, "loss": y.tolist(), "asked": nu},
        (Part("allocation", "vector", tuple(float(x) for x in after), PROBABILITY_TOLERANCE),),
        f"Only the data row of task {nv} changes: D({nv}) ← D({nv}) · e^(−η y). The allocation at {nu} is "
        f"the marginal of the tree model with node potentials D and edge potentials Θ; only the path from {nv} "
        f"to {nu} carries the change.",
        _solution([f"- before the trial every allocation is uniform: p({nu}) = {_vec(before)}",
                   f"- the update: D({nv}) = e^(−{eta:g} · {_vec(y)}) = {_vec(row)}",
                   f"- the marginal at {nu} with the new D (sum-product, or the {k}^{tree.n} labellings weighted "
                   f"by Π Θ · Π D): **{_vec(after)}**"]))


# ---------------------------------------------------------------------- Chow-Liu (Koriche, section 2)

def chow_liu_next(seed: int) -> Exercise:
    """The next edge the greedy Chow-Liu step adds, given the edges it already chose."""
    from engine.forests.estimators import pairs
    from engine.forests.structure import edges_of, maximum_spanning_tree

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 7))
    iu, ju = pairs(n)
    mi = rng.choice(np.arange(5, 600), size=len(iu), replace=False) / 1000.0
    tree_ids = maximum_spanning_tree(mi, n)
    ranked = tree_ids[np.argsort(-mi[tree_ids])]   # Kruskal adds the tree's edges by decreasing weight
    j = int(rng.integers(n - 1))
    chosen, nxt = ranked[:j], int(ranked[j])
    name = [f"X{i + 1}" for i in range(n)]
    table = "| MI | " + " | ".join(name) + " |\n|---|" + "---|" * n + "\n"
    full = np.zeros((n, n))
    full[iu, ju] = full[ju, iu] = mi
    table += "".join(f"| {name[a]} | " + " | ".join("—" if a == b else f"{full[a, b]:.3f}" for b in range(n)) + " |\n"
                     for a in range(n))
    chosen_text = ", ".join(f"{name[a]}–{name[b]}" for a, b in edges_of(np.sort(chosen), n).tolist()) or "none yet"
    a, b = edges_of(np.array([nxt]), n)[0].tolist()
    prompt = (f"Chow-Liu's structure step on {n} variables X1..X{n}: the maximum-weight spanning tree of the "
              "mutual-information table below, built greedily (Kruskal: heaviest pair first, skipping a pair that "
              f"would close a cycle).\n\n{table}\nEdges chosen so far: **{chosen_text}**. Which edge is added "
              "**next**? Type it as two variables, e.g. X1-X3.")
    skipped = [p for p in np.argsort(-mi) if mi[p] > mi[nxt] and p not in set(chosen.tolist())]
    lines = [f"Pairs heavier than {name[a]}–{name[b]} ({mi[nxt]:.3f}) are either chosen already or close a cycle:"]
    lines += [f"- {name[iu[p]]}–{name[ju[p]]} ({mi[p]:.3f}): would close a cycle" for p in skipped] or ["- none"]
    lines.append(f"The heaviest pair joining two different components is **{name[a]}–{name[b]}** ({mi[nxt]:.3f}).")
    return Exercise(
        "chow_liu_next", seed, FAMILY_TITLES["chow_liu_next"], prompt,
        {"variables": name, "mutual_information": full.round(3).tolist(),
         "chosen": [[name[x], name[y]] for x, y in edges_of(np.sort(chosen), n).tolist()]},
        (Part("edge", "edge", (name[a], name[b])),),
        "Sort the pairs by decreasing mutual information and walk down the list: a pair whose two variables are "
        "already connected by the chosen edges would close a cycle and is skipped.",
        _solution(lines))


# ---------------------------------------------------------------------- RTA (Marchand et al., section 4.1)

#: the K of the list the worked solution of ``rta_kbest`` shows
SOLUTION_K = 3


def rta_kbest(seed: int) -> Exercise:
    """The first labelling of the K-best list on one random spanning tree of a small label graph."""
    from engine.multilabel.kbest import kbest_tree
    from engine.multilabel.spanning_trees import random_spanning_trees

    rng = np.random.default_rng(seed)
    n_labels = int(rng.integers(4, 6))
    trees = random_spanning_trees(n_labels, 1, seed=rng)
    for _ in range(100):   # draw scores until the best labelling is unique (a tie has two right answers)
        scores = rng.integers(-20, 21, size=(1, n_labels, 4)) / 10.0
        top = kbest_tree(scores, trees, SOLUTION_K)
        if top.scores[0] - top.scores[1] >= 0.05:   # scores are tenths: a real gap is 0.1 or more
            break
    parent = trees.parent[0]
    edges = [(v, int(parent[v])) for v in range(n_labels) if parent[v] >= 0]
    table = ("| edge (label, its parent) | s(0, 0) | s(0, 1) | s(1, 0) | s(1, 1) |\n|---|---|---|---|---|\n" +
             "".join(f"| y{v + 1} – y{p + 1} | " + " | ".join(f"{scores[0, v, j]:g}" for j in range(4)) + " |\n"
                     for v, p in edges))
    prompt = (f"RTA's inference on one random spanning tree of the label graph of {n_labels} binary labels "
              f"y1..y{n_labels}. The tree's edges and their scores s(y_label, y_parent):\n\n{table}\nThe score of a "
              "labelling is the sum of its edges' scores. Give the **first labelling the K-best inference returns** "
              f"(the best one: y1 .. y{n_labels}, each 0 or 1) and **its score**.")
    best = top.labels[0]
    lines = [f"Max-sum in post-order: every label keeps, for each of its values, the K best scores of its subtree; "
             f"the root's lists give the K best labellings. With K = {len(top.scores)}:"]
    lines += [f"{i}. y = {' '.join(str(int(b)) for b in lab)}, score {sc:g}"
              for i, (lab, sc) in enumerate(zip(top.labels, top.scores), 1)]
    lines.append(f"The first is **{' '.join(str(int(b)) for b in best)}** with score **{top.scores[0]:g}**.")
    return Exercise(
        "rta_kbest", seed, FAMILY_TITLES["rta_kbest"], prompt,
        {"labels": [f"y{i + 1}" for i in range(n_labels)],
         "edges": [[f"y{v + 1}", f"y{p + 1}"] for v, p in edges],
         "scores": {f"y{v + 1}": scores[0, v].tolist() for v, _ in edges},
         "score_order": ["s(0,0)", "s(0,1)", "s(1,0)", "s(1,1)"]},
        (Part("labelling", "bits", tuple(int(b) for b in best)),
         Part("score", "vector", (float(top.scores[0]),), PROBABILITY_TOLERANCE)),
        "Work from the leaves of the spanning tree to its root: for each value of a label, keep the best score of "
        "its subtree; at the root take the best value and trace the choices back down.",
        _solution(lines))


# ---------------------------------------------------------------------- HTMM (Castellana & Bacciu, eq. 2)

def _row(rng) -> list[float]:
    """A two-entry distribution with entries in tenths, 0.1..0.9."""
    p = int(rng.integers(1, 10)) / 10
    return [p, round(1 - p, 1)]


def htmm_posterior(seed: int) -> Exercise:
    """P(Q_root | x) of SP-BHTMM on a root with two leaf children (the upward pass, eq. 2)."""
    from engine.htmm.data import from_lists
    from engine.htmm.sp import SPBHTMM

    rng = np.random.default_rng(seed)
    model = SPBHTMM(n_states=2, n_iter=0).init_params(2, 2, rng)
    model.prior_ = np.array([[*_row(rng), 0.0] for _ in range(2)])     # no mass on ⊥: both slots are filled
    s0 = int(rng.integers(3, 8)) / 10
    model.switch_ = np.array([s0, round(1 - s0, 1)])
    model.trans_ = np.array([[_row(rng), _row(rng), [0.5, 0.5]] for _ in range(2)])   # (the ⊥ row is not used)
    model.emit_ = np.array([_row(rng), _row(rng)])
    x = [int(v) for v in rng.integers(2, size=3)]   # labels of the root, child 1, child 2 (0 = a, 1 = b)
    data = from_lists([{"labels": [v + 1 for v in x], "children": [[2, 3], [-1, -1], [-1, -1]]}], n_labels=2)
    post = model.posteriors(data)[0]
    alpha, _ = model.upward(data)
    name = "ab"
    rows = [("leaf prior π¹ of child 1", model.prior_[0, :2]), ("leaf prior π² of child 2", model.prior_[1, :2]),
            ("A¹(child 1 in state 0 → root)", model.trans_[0, 0]), ("A¹(child 1 in state 1 → root)", model.trans_[0, 1]),
            ("A²(child 2 in state 0 → root)", model.trans_[1, 0]), ("A²(child 2 in state 1 → root)", model.trans_[1, 1]),
            ("emission b(label a)", model.emit_[:, 0]), ("emission b(label b)", model.emit_[:, 1])]
    table = "| | state 0 | state 1 |\n|---|---|---|\n" + "".join(
        f"| {label} | {v[0]:g} | {v[1]:g} |\n" for label, v in rows)
    prompt = ("A bottom-up hidden tree Markov model (SP-BHTMM, eq. 2) with hidden states 0 and 1 and labels a and b, "
              "on a three-node tree: a root with two leaf children. A leaf's state is drawn from its position's "
              "prior; the root's state from its children's through the switching parent: P(Q_root = j | Q_1, Q_2) = "
              f"φ₁ A¹(Q_1, j) + φ₂ A²(Q_2, j), with φ = ({model.switch_[0]:g}, {model.switch_[1]:g}). "
              "Every node emits its label from its state.\n\n" + table +
              f"\nWe observe the root's label **{name[x[0]]}**, child 1's **{name[x[1]]}** and child 2's "
              f"**{name[x[2]]}**. Give the posterior **P(Q_root | x)**: (P(Q_root = 0 | x), P(Q_root = 1 | x)).")
    solution = _solution([
        "The upward pass (bottom-up, as the model generates):",
        f"- child 1: α₁ ∝ π¹ · b(x₁ = {name[x[1]]}) = {_vec(alpha[1])}",
        f"- child 2: α₂ ∝ π² · b(x₂ = {name[x[2]]}) = {_vec(alpha[2])}",
        f"- root: h(j) = φ₁ Σ_k α₁(k) A¹(k, j) + φ₂ Σ_k α₂(k) A²(k, j), then α_root ∝ h · b(x_root = {name[x[0]]})",
        f"- the root's upward message is its posterior (nothing lies above it): **{_vec(post)}**"])
    return Exercise(
        "htmm_posterior", seed, FAMILY_TITLES["htmm_posterior"], prompt,
        {"vertices": ["root", "child 1", "child 2"], "edges": [["root", "child 1"], ["root", "child 2"]],
         "labels_observed": {"root": name[x[0]], "child 1": name[x[1]], "child 2": name[x[2]]},
         "prior": model.prior_[:, :2].tolist(), "switch": model.switch_.tolist(),
         "transition": model.trans_[:, :2].tolist(), "emission": model.emit_.tolist()},
        (Part("posterior", "vector", tuple(float(v) for v in post), PROBABILITY_TOLERANCE),),
        "Go bottom-up: weigh each child's prior by the probability of its label, normalise, push it through its "
        "position's transition A^l and mix the two with φ; multiply by the root's emission and normalise.",
        solution)


#: each family's title (``practice list`` and the app show it)
FAMILY_TITLES = {
    "bp_message": "A sum-product message",
    "marginal_evidence": "A marginal after evidence",
    "cover_round": "Mergeable vertices and the height of the optimal cover",
    "update_path": "The path of D an update touches",
    "hedge_weight": "TREE-HEDGE's allocation after one trial",
    "chow_liu_next": "The next Chow-Liu edge",
    "rta_kbest": "RTA's first K-best labelling",
    "htmm_posterior": "A hidden tree Markov model's root posterior",
}
