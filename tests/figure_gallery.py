"""One example of every figure the workbench draws, in a given style (for the export, style and
label tests, and to look at)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine.cover import figure1_tree, optimal_cover
from engine.inference.belief_propagation import belief_propagation, sequential_schedule
from engine.inference.potentials import potts_interaction, random_node_potentials
from engine.trees import generate, read_tree
from tests.conftest import ROOT
from workbench.figures import cover_figures as cf
from workbench.figures import forest_figures as ff
from workbench.figures import hedge_figures as hf
from workbench.figures import htmm_figures as htf
from workbench.figures import inference_figures as inf
from workbench.figures import multilabel_figures as mf
from workbench.figures import run_figures as rf
from workbench.figures.tree_figure import tree_figure


def gallery(style) -> dict:
    """name -> Plotly figure, one of each kind."""
    return {name: draw() for name, draw in figure_makers(style).items()}


def figure_makers(style) -> dict:
    """name -> a function drawing that figure in ``style``: nothing is drawn until it is called
    (collecting the tests that name the figures drew them all, twice: 4 s in each test process)."""
    s = style
    primates = read_tree(ROOT / "sample_trees" / "primates.nwk")
    lecture = read_tree(ROOT / "sample_trees" / "lecture_5_vertices.csv")
    t14 = figure1_tree()
    cover = optimal_cover(t14, 0)
    phi = random_node_potentials(lecture.n, 2, seed=0)
    bp = belief_propagation(lecture, phi, potts_interaction(2, 0.8))
    msgs = [(a, b, bp.upward[a] if lecture.parent[a] == b else bp.downward[b]) for a, b in sequential_schedule(lecture)]
    t60 = generate("random", 60, seed=7)
    runs = [SimpleNamespace(id=i, algorithm="hedge", label=f"eta={i}", curves={"loss": [[j, j * i] for j in range(5)]},
                            metrics={"loss": float(i)}) for i in (1, 2)]
    cl = [(0, 1), (1, 2), (1, 3), (0, 4), (4, 5)]
    ours = [(0, 1), (1, 2), (2, 3), (0, 4), (3, 5)]
    return {
        "tree_primates": lambda: tree_figure(primates, selected=primates.root, height=460, style=s),
        "tree_probability": lambda: inf.probability_colours(tree_figure(lecture, color=[0.05, 0.45, 0.55, 0.95, 0.5],
                                                                        colorscale=inf.PROB_SCALE, style=s)),
        "cover_icicle": lambda: cf.icicle_figure(cover, style=s),
        "cover_roots": lambda: cf.roots_figure(["1", "3", "7"], [4, 5, 4], best="1", style=s),
        "cover_growth": lambda: cf.growth_figure([{"family": f, "n": n, "height": h} for f in ("path", "star")
                                                  for n, h in ((10, 3), (100, 5), (1000, 7))], style=s),
        "bp_messages": lambda: inf.message_figure(lecture, msgs[:6], current=5, title="Step 6 of 8", style=s),
        "bp_done": lambda: inf.message_figure(lecture, msgs, current=7, beliefs=bp.marginals, title="done", style=s),
        "marginal_bars": lambda: inf.marginal_bars([0.45, 0.55], [0.5, 0.5], title="P(x_4)", style=s),
        "difference_bars": lambda: inf.difference_bars(["1", "2"], np.array([[0.1, -0.1], [0.02, -0.02]]), style=s),
        "elimination": lambda: inf.elimination_bars({"centre first": [("0", 64), ("1", 2)], "leaves first": [("1", 2), ("2", 2)]},
                                                    style=s),
        "work": lambda: inf.work_bars(38, 58, 3, style=s),
        "hedge_curves": lambda: hf.loss_curves_figure({"bound": [(0, 0), (10, 9)], "bound_excess": [(0, 0), (10, 5)],
                                                       "best_comparator_loss": [(0, 0), (10, 4)],
                                                       **{k + sfx: [(0, 0), (10, v)] for k, v in (("tree_hedge", 3),
                                                          ("independent_hedge", 4), ("shared_hedge", 5)) for sfx in ("_loss", "_excess")}},
                                                      excess=True, t=5, style=s),
        "hedge_heat": lambda: hf.regret_heatmap([0, 5, 10], np.random.default_rng(0).random((3, 60)), t60.names,
                                                list(range(60)), t=5, style=s),
        "ofde_curve": lambda: ff.learning_curve_figure({"OFDE": [[1, -9], [10, -7], [100, -5.5], [1000, -5.2]]},
                                                       {"Chow-Liu": -5.15, "CLT (eps 0.75)": -5.16}, style=s),
        "ofde_structure": lambda: ff.structure_figure(6, ours, marked=set(ours) - set(cl), title="OFDE",
                                                      layout=ff.forest_layout(6, cl), style=s),
        "ofde_time": lambda: ff.round_time_figure([[10, 0.1], [100, 0.09], [1000, 0.08]], style=s),
        "rta_exact": lambda: mf.exact_fraction_figure([[1, 0.1], [2, 0.7], [4, 0.95], [8, 1.0]], 6, n_trees=10,
                                                      style=s),
        "rta_trees": lambda: mf.spanning_trees_figure(np.array([[-1, 0, 1, 1, 0, 4], [2, 2, -1, 2, 3, 3]]),
                                                      [f"l{i}" for i in range(6)],
                                                      style=s),
        "rta_pairs": lambda: mf.label_pair_figure(*_pairs(), style=s),
        "rta_training": lambda: mf.training_figure([[1, 50], [2, 70], [3, 85]], [[1, 283.2], [2, 145.5], [3, 74.8]],
                                                   style=s),
        "htmm_confusion": lambda: htf.confusion_figure(np.array([[50, 3], [10, 40]]), ["1", "2"], title="Confusion",
                                                       style=s),
        "htmm_loglik": lambda: htf.loglik_figure([[0, -9000], [10, -6000], [20, -5500]], style=s),
        "htmm_k": lambda: htf.k_trace_figure({"k[1]": [[0, 1], [5, 3]], "k[2]": [[0, 2], [5, 2]]}, style=s),
        "htmm_tree": lambda: htf.labelled_tree_figure(t60.__class__.from_parent(np.array([-1, 0, 0, 1, 1, 2])),
                                                      ["1", "2", "2", "3", "1", "1"], ["1", "2", "3", "3", "1", "1"], style=s),
        "runs_curves": lambda: rf.curves_figure(runs, "loss", style=s),
        "runs_metric": lambda: rf.metric_figure(runs, "loss", style=s),
    }


def _pairs() -> tuple:
    """The label-pair figure's inputs: a 6 x 6 matrix, six names, six numbers (seeded)."""
    rng = np.random.default_rng(1)
    return rng.random((6, 6)), [f"label {i}" for i in range(6)], rng.random(6)


#: the name of every figure of the gallery, for tests parametrized by figure
NAMES = sorted(figure_makers(None))
