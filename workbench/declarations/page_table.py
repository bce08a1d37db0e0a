"""The pages of the app, one spec each: menu entry, settings, checks and run configuration.

Each :class:`~workbench.declarations.page_spec.PageSpec` below is the one declaration of a page (as a Streamlit
app lists each page once with ``st.Page``): its title, section and icon in the menu, and its
settings (:class:`~workbench.declarations.settings.Setting`: the value a link carries, the widget that shows
it, the run-configuration field it feeds). Everything else is derived from it: the navigation and
each page's script (``workbench/pages/<url_path>.py``), the address bar and the widgets
(``workbench.address_bar``, ``workbench.widgets``), the lesson checker (:mod:`workbench.declarations.lessons`), and the
page's run configuration (:meth:`~workbench.declarations.page_spec.PageSpec.run_config`), so that the answer a
lesson states is the one the page shows. ``docs/contributing.md`` shows how to add a page or a
setting.

>>> spec = PAGES["tree_hedge"]
>>> spec.setting("eta").describe(), spec.key("eta")
('a number in 0.05..4', 'hedge_eta')
>>> PAGES.address("lessons"), PAGES.build_link("tree_hedge", {"eta": 0.5})
('/', '/tree_hedge?eta=0.5')
"""

from __future__ import annotations

from engine.datasets import available
from engine.errors import InvalidParameterError
from engine.forests.run import OfdeConfig
from engine.hedge.run import HedgeConfig
from engine.htmm.config import SYNTHETIC, BhtmmConfig
from engine.inference.models import PairwiseConfig
from engine.multilabel.config import RtaConfig
from workbench.declarations.settings import (
    BOOL,
    CHECKBOX,
    CHOICE,
    EVIDENCE,
    FLOAT,
    INT,
    MATRIX,
    NUMBER,
    REGION,
    RADIO,
    SELECT,
    SELECT_SLIDER,
    SLIDER,
    TABS,
    TEXT,
    TOGGLE,
    VERTEX,
    Setting,
)
from workbench.declarations.page_spec import PageSpec, PageTable
from engine.multilabel.data import benchmark_files
from engine.practice import FAMILIES
from engine.reproduce import ReproduceConfig

__all__ = ["COVER_TOKENS", "LEARNER_NAMES", "PAGES", "SEED", "link_cover"]

#: The seed every learning page offers (a link's ``seed=``).
SEED = {"lo": 0, "hi": 10**6, "default": 0}
#: A link's ``cover=`` token -> the cover's name in the engine (:data:`engine.cover.COVERS`).
COVER_TOKENS = {"optimal": "optimal", "rake": "rake-only"}


def _seed(help: str = "the seed", label: str = "Seed", **more) -> Setting:
    return Setting("seed", INT, help, label=label, widget=NUMBER, field="seed", **SEED, **more)


def _run(help: str = "start the run when the page opens") -> Setting:
    return Setting("run", BOOL, help, False, view=True)


def _region(what: str = "the tree") -> Setting:
    return Setting("region", REGION, f"the region of {what} drawn (none: the whole tree)", view=True)


# ---------------------------------------------------------------------- the trees

def link_cover(values: dict, tree):
    """The cover a Cover Inspector link shows (its kind and root)."""
    # start-up: engine.cover loads numba and its kernels (about a second); the table is read at every start
    from engine.cover import COVERS

    make = COVERS[COVER_TOKENS[values.get("cover") or "optimal"]]
    return make(tree, tree.index(values["root"]) if values.get("root") else None)


def _check_cover(v: dict, tree) -> None:
    if not {"t", "node", "root"} & set(v):
        return
    cover = link_cover(v, tree)
    if v.get("t", 0) > cover.rounds:
        raise InvalidParameterError(f"parameter t={v['t']}: this cover has rounds 0..{cover.rounds}")
    if "node" in v and v["node"] not in cover.node_names():
        raise InvalidParameterError(f"parameter node={v['node']}: not a component of D "
                                    "(components are named by their splitting vertex, edges parent|child)")


LESSONS = PageSpec("lessons", "Lessons", "Start", ":material/school:", uses_tree=False)

PRACTICE = PageSpec("practice", "Practice", "Start", ":material/exercise:", (
    Setting("family", CHOICE, "the exercise family", "bp_message", choices=tuple(FAMILIES), label="Exercise",
            widget=SELECT, display={f.name: f.title for f in FAMILIES.values()},
            tooltip="Every family is generated from a seed and checked by the engine (engine.practice)."),
    _seed("the seed of the exercise (the same seed, the same exercise)", "Exercise number"),
), prefix="practice", uses_tree=False)

TREE_STUDIO = PageSpec("tree_studio", "Tree Studio", "Trees", ":material/park:", (
    Setting("vertex", VERTEX, "the selected vertex", view=True),
    Setting("source", CHOICE, "the open loading tab", "samples", choices=("samples", "upload", "paste", "generate"),
            label="Load from", widget=TABS, view=True,
            options={"samples": "Samples", "upload": "Upload", "paste": "Paste", "generate": "Generate"}),
    _region(),
), prefix="studio")

COVER_INSPECTOR = PageSpec("cover_inspector", "Cover Inspector", "Trees", ":material/account_tree:", (
    Setting("root", VERTEX, "the leaf s the cover is rooted at", leaf=True, label="Root s (a leaf)", widget=SELECT,
            tooltip="The cover is oriented from this leaf."),
    Setting("cover", CHOICE, "the optimal (2,s)-cover of Figure 1 or the rake-only cover", "optimal",
            choices=("optimal", "rake"), label="Cover", widget=RADIO,
            options={"optimal": "Optimal (2,s)-cover", "rake": "Rake-only (section 4)"},
            tooltip="Rake-only merges leaves only: height at most the diameter, but only edge-sized "
                    "two-boundary components (cheaper updates)."),
    Setting("t", INT, "the round t: the contracted tree T_t and its mergeable vertices", 0, lo=0, hi=10_000,
            label="Round t", widget=SLIDER, view=True,
            tooltip="$T_t$ is the contracted tree at the start of round t; $T_R$ is s alone."),
    Setting("vertex", VERTEX, "the inspected vertex (its chain of ancestors in D)", view=True),
    Setting("node", TEXT, "the inspected component of D, by name (its splitting vertex, or parent|child for an edge)",
            view=True),
    Setting("tab", CHOICE, "the open tab", "rounds", choices=("rounds", "components", "optimality", "icicle", "growth"),
            label="View", widget=TABS, view=True,
            options={"rounds": "Rounds", "components": "Components", "optimality": "Optimality & best root",
                     "icicle": "Icicle of D", "growth": "Height growth"}),
    _region("T"),
), prefix="cover", tree_sizes=(2, 10**9), tree_check=_check_cover)


# ---------------------------------------------------------------------- inference

def _pairwise(fields: dict, values: dict, tree):
    return PairwiseConfig(**fields)


ONLINE_MARGINALS = PageSpec("online_marginals", "Online Marginals", "Inference", ":material/bolt:", (
    Setting("k", hi=5, label="Labels k", widget=SLIDER, field="k"),
    Setting("coupling", lo=-3.0, hi=3.0, label="Coupling (diagonal = e^coupling, off-diagonal 1)", widget=SLIDER,
            step=0.1, field="coupling"),
    Setting("psi", MATRIX, "one k x k edge potential for every edge (rows: the parent's label); replaces the "
            "coupling", field="psi"),
    Setting("cover", CHOICE, default="optimal", choices=("optimal", "rake"), label="Cover", widget=RADIO,
            options=COVER_TOKENS, field="cover",
            tooltip="optimal: height O(log n); rake-only: only leaves are merged, height up to the diameter, "
                    "but only k^2 work per level"),
    Setting("network", TEXT, "a sample network (sample_networks/) with its own potentials; replaces the tree, k "
            "and the edge potential", label="Model", widget=SELECT, field="network",
            tooltip="A sample network brings its own tree, node potentials φ and edge potentials ψ (sample_networks/)."),
    Setting("evidence", EVIDENCE, "evidence set when the page opens", field="evidence"),
    Setting("vertex", VERTEX, "the selected vertex (its marginal is shown)", view=True),
    _region(),
    Setting("tools", BOOL, "the tools under the tree open: random stream, check against BP, scenarios", False,
            view=True),
), prefix="om", tree_sizes=(3, 10**9), build=_pairwise, config=PairwiseConfig)


def _check_bp(v: dict, tree) -> None:
    if v.get("messages", 0) > 2 * (tree.n - 1):
        raise InvalidParameterError(f"parameter messages={v['messages']}: this tree sends "
                                    f"2(n-1) = {2 * (tree.n - 1)} messages")


BELIEF_PROPAGATION = PageSpec("belief_propagation", "Belief Propagation", "Inference", ":material/swap_horiz:", (
    Setting("k", hi=4, label="Labels k", widget=SLIDER, field="k"),
    Setting("coupling", help="the Potts coupling of every edge", default=0.8, lo=-2.0, hi=2.0, label="Potts coupling",
            widget=SLIDER, step=0.1, field="coupling",
            tooltip="ψ = e^coupling on the diagonal, 1 elsewhere (unless ψ is edited in its table)."),
    Setting("psi", MATRIX, "one k x k edge potential ψ for every edge (rows: the parent's label); replaces the "
            "coupling", field="psi"),
    _seed("the seed of the random node potentials φ", "Seed of the node potentials φ"),
    Setting("phi", EVIDENCE, "node potentials φ replacing the seeded ones at some vertices (vertex=w0/w1/...)",
            field="phi"),
    Setting("network", TEXT, "a sample network (sample_networks/) with its own φ and ψ; replaces the tree, k, the "
            "coupling and the seed", label="Model", widget=SELECT, field="network",
            tooltip="The current tree (random φ, one Potts ψ on every edge), a sample network, or the network you "
                    "imported (below)."),
    Setting("evidence", EVIDENCE, "hard or soft evidence multiplying φ", field="evidence"),
    Setting("vertex", VERTEX, "the selected vertex", view=True),
    Setting("messages", INT, "messages sent so far in the sequential schedule", 0, lo=0, hi=10_000,
            label="Messages sent", widget=SLIDER, view=True),
    Setting("tab", CHOICE, "the open tab", "sequential", choices=("sequential", "parallel", "elimination", "tables"),
            label="View", widget=TABS, view=True,
            options={"sequential": "Sequential schedule", "parallel": "Parallel schedule",
                     "elimination": "Elimination order", "tables": "φ and ψ tables"}),
    Setting("iteration", INT, "the iteration t of the parallel schedule", 1, lo=0, hi=10_000, label="Iteration t",
            widget=SLIDER, view=True),
    Setting("speed", FLOAT, "messages per second when playing the schedule", 1.0, lo=0.25, hi=10.0,
            label="Speed (messages per second)", widget=SELECT_SLIDER, view=True),
    Setting("star", INT, "leaves of the star in the elimination tab", 6, lo=3, hi=12, label="Leaves of the star",
            widget=SLIDER),
    Setting("elim_k", INT, "labels |X| in the elimination tab", 2, lo=2, hi=4, label="Labels |X|", widget=SLIDER),
    _region("the marginals' tree (above 40 vertices)"),
), prefix="bp", tree_sizes=(2, 10**9), tree_check=_check_bp, build=_pairwise, config=PairwiseConfig)


# ---------------------------------------------------------------------- learning

def _hedge(fields: dict, values: dict, tree):
    if tree is None:
        raise InvalidParameterError("the step's link must give tree= for this computation")
    return HedgeConfig(tree={"edges": [list(e) for e in tree.named_edges()], "root": tree.name(tree.root)}, **fields)


def _check_hedge(v: dict, tree) -> None:
    if v.get("switches", 0) > tree.n - 1:
        raise InvalidParameterError(f"parameter switches={v['switches']}: the tree has {tree.n - 1} edges")
    trials = v.get("trials", TREE_HEDGE.setting("trials").default)
    if v.get("trial", 0) > trials:
        raise InvalidParameterError(f"parameter trial={v['trial']}: the run has {trials} trials")


#: The learners TREE-HEDGE is compared with, as the page names them.
LEARNER_NAMES = {"tree_hedge": "TREE-HEDGE", "independent_hedge": "Hedge per task", "shared_hedge": "One shared Hedge"}

TREE_HEDGE = PageSpec("tree_hedge", "TREE-HEDGE", "Learning", ":material/call_split:", (
    Setting("k", hi=5, label="Actions k", widget=SLIDER, field="states"),
    Setting("trials", lo=10, hi=200_000, label="Trials T", widget=NUMBER, step=100, field="trials"),
    Setting("eta", lo=0.05, hi=4.0, label="Learning rate η", widget=SLIDER, step=0.05, field="eta"),
    Setting("coupling", label="Coupling P", widget=SLIDER, step=0.01, field="coupling",
            tooltip="Potts edge potential: P on the diagonal, (1−P)/(k−1) elsewhere. 1/k: unrelated tasks "
                    "(TREE-HEDGE = Hedge per task); 1: one shared action."),
    Setting("env", choices=("piecewise", "iid", "switching"), label="Environment", widget=SELECT, field="environment",
            display={"piecewise": "Piecewise on the tree", "iid": "Unrelated tasks", "switching": "Switching subtree"},
            tooltip="**Piecewise**: each task's best action is constant on pieces of the tree, cut at the switch "
                    "edges. **Unrelated**: each task's best action at random. **Switching**: a subtree changes "
                    "its best action halfway through. **My loss file**: rows task, y_1, …, y_k."),
    Setting("switches", hi=10**6, label="Switches (edges where the best action changes)", widget=SLIDER,
            field="switches"),
    _seed("the seed of the environment"),
    _run(),
    Setting("trial", INT, "the trial the maps show (the last snapshot at or before it)", lo=0, hi=200_000,
            view=True),
    Setting("learner", CHOICE, "the learner of the maps", "tree_hedge", choices=tuple(LEARNER_NAMES),
            label="Learner for the maps", widget=SELECT, display=LEARNER_NAMES, view=True),
    Setting("view", CHOICE, "the loss curves: above the best comparator, or cumulative", "excess",
            choices=("excess", "cumulative"), label="Curves", widget=RADIO, view=True,
            options={"excess": "Loss above the best comparator", "cumulative": "Cumulative loss"}),
    _region("the task tree (the regret map)"),
    Setting("task", VERTEX, "a task (vertex) to point out in the maps", view=True),
), prefix="hedge", tree_sizes=(2, 10**9), tree_check=_check_hedge, build=_hedge, config=HedgeConfig)


def _ofde(fields: dict, v: dict, tree):
    train = test = valid = ""
    if v["data"] == "benchmark":
        found = available("density")
        if v["benchmark"] not in found:
            raise InvalidParameterError(f"benchmark {v['benchmark']} is not in the data folder; found: "
                                        f"{', '.join(found) or 'none'}")
        train, valid, test = (str(p) for p in found[v["benchmark"]])
    return OfdeConfig(train=train, test=test, valid=valid, n_test=2000, n_valid=1000, eval_points=30, **fields)


OFDE = PageSpec("ofde", "OFDE vs Chow-Liu", "Learning", ":material/scatter_plot:", (
    Setting("data", CHOICE, "the data: a synthetic Markov tree or a benchmark", "synthetic",
            choices=("synthetic", "benchmark"), label="Data", widget=RADIO,
            options={"synthetic": "Synthetic Markov tree", "benchmark": "Benchmark"}),
    Setting("vars", default=12, lo=4, hi=40, label="Variables", widget=SLIDER, field="n_vars"),
    Setting("train", CHOICE, default="3000",
            choices=("500", "1000", "2000", "3000", "5000", "10000", "20000"), label="Training samples",
            widget=SELECT_SLIDER, field="n_train",
            options={n: int(n) for n in ("500", "1000", "2000", "3000", "5000", "10000", "20000")}),
    Setting("data_seed", hi=SEED["hi"], label="Data seed", widget=NUMBER, field="data_seed"),
    Setting("benchmark", CHOICE, "the benchmark", "nltcs", choices=("nltcs", "msnbc", "kdd", "plants"),
            label="Benchmark", widget=SELECT),
    Setting("experts", label="Experts", widget=RADIO, field="model",
            display={"trees": "Markov trees", "forests": "Markov forests"}),
    Setting("mixture", hi=20, label="Mixture size k (0 = ln n)", widget=NUMBER, field="mixture_size"),
    Setting("scale", CHOICE, default="1",
            choices=("0.01", "0.03", "0.1", "0.3", "1"), label="Perturbation scale (1 = paper)",
            widget=SELECT_SLIDER, field="perturbation_scale",
            options={s: float(s) for s in ("0.01", "0.03", "0.1", "0.3", "1")}),
    Setting("rounds", hi=10**7, label="Rounds (0 = one pass)", widget=NUMBER, step=1000, field="rounds"),
    _seed("the seed of the learner"),
    _run(),
    Setting("tab", CHOICE, "the open tab", "curve", choices=("curve", "structure", "time", "tradeoff"),
            label="View", widget=TABS, view=True,
            options={"curve": "Learning curve", "structure": "Forest vs Chow-Liu", "time": "Time per round",
                     "tradeoff": "Perturbation trade-off"}),
), prefix="ofde", uses_tree=False, build=_ofde, config=OfdeConfig)


def _rta(fields: dict, v: dict, tree):
    if v["data"] == "synthetic":
        data = {"synthetic": {"n_examples": int(v["examples"]), "n_labels": int(v["labels"]), "n_features": 20,
                              "seed": 0}}
    else:
        files = benchmark_files()
        if v["data"] not in files:
            raise InvalidParameterError(f"parameter data={v['data']}: no such benchmark; available: "
                                        f"synthetic{''.join(', ' + f for f in files)}")
        data = str(files[v["data"]])
    return RtaConfig(data=data, labels=None, **fields)


RTA = PageSpec("rta", "RTA Multilabel", "Learning", ":material/label:", (
    Setting("data", TEXT, "synthetic, or the name of a Mulan benchmark in the data folder", "synthetic",
            label="Data", widget=SELECT,
            tooltip="The Mulan benchmarks appear when ../shared/data/multilabel is present."),
    Setting("examples", INT, "examples of the synthetic data", 300, lo=60, hi=3000, label="Examples", widget=NUMBER,
            step=20),
    Setting("labels", INT, "labels of the synthetic data", 6, lo=2, hi=14, label="Labels", widget=NUMBER),
    Setting("trees", hi=40, label="Spanning trees", widget=SLIDER, field="n_trees"),
    Setting("max_k", CHOICE, default="32", choices=("2", "4", "8", "16", "32", "64"),
            label="Largest K", widget=SELECT_SLIDER, field="max_k",
            options={k: int(k) for k in ("2", "4", "8", "16", "32", "64")}),
    Setting("c", CHOICE, "the margin slack C, or inner validation", "inner",
            choices=("inner", "0.01", "0.1", "0.5", "1", "10", "50", "100"), field="C",
            to_config=lambda c: None if c == "inner" else float(c)),
    Setting("folds", default=3, hi=10, label="Folds", widget=NUMBER, field="folds"),
    Setting("passes", default=15, hi=200, label="Passes", widget=NUMBER, field="max_passes"),
    Setting("baseline", BOOL, default=True, label="LinearSVC baseline on the same folds", widget=CHECKBOX,
            field="baseline",
            to_config=lambda on: "svm" if on else None),
    _seed(),
    _run(),
), prefix="rta", uses_tree=False, build=_rta, config=RtaConfig)


def _bhtmm(fields: dict, v: dict, tree):
    # start-up: engine.htmm.sp imports scikit-learn (about a second); the page table is read at every start
    from engine.htmm.sp import AUTHORS_CODE

    if v["source"] == "synthetic":
        train = test = SYNTHETIC
    else:
        found = available("trees")
        if v["source"] not in found:
            raise InvalidParameterError(f"data set {v['source']} is not in the data folder; found: "
                                        f"{', '.join(found) or 'none'}")
        train, test = (str(p) for p in found[v["source"]])
    # each model gets only the settings it reads (a run warns about the others)
    if fields["model"] == "tf":
        own = {}
    else:
        fields = {k: x for k, x in fields.items() if k not in _TF_ONLY}
        own = {"exact": {}, "paper": {"estep": "paper"}, "authors": AUTHORS_CODE}[v["sp"]]
    return BhtmmConfig(train=train, test=test, **fields, **own)


#: the settings only TF-BHTMM reads
_TF_ONLY = ("lmin", "lmax", "phi", "sampler", "init")


BHTMM = PageSpec("bhtmm", "Hidden Tree Markov Models", "Learning", ":material/schema:", (
    Setting("source", CHOICE, "the data", "synthetic", choices=("synthetic", "symm", "inex05"), label="Data",
            widget=SELECT, tooltip="train / test trees",
            options={"synthetic": "Synthetic ternary trees (section IV-B generator)",
                     "symm": "symm benchmark (600 / 180 trees)",
                     "inex05": "INEX 2005 benchmark (4,820 / 4,811 XML trees)"}),
    Setting("task", label="Task", widget=RADIO, field="task",
            display={"label": "node labelling", "classify": "classification"}),
    Setting("model", label="Model", widget=RADIO, field="model", display={"tf": "TF-BHTMM", "sp": "SP-BHTMM"}),
    Setting("states", lo=2, hi=12, label="Hidden states C", widget=SLIDER, field="states"),
    Setting("iterations", default=30, lo=1, hi=200, label="Iterations", widget=SLIDER, field="iterations"),
    Setting("synthetic", default=40, lo=5, hi=200, label="Synthetic trees per class (training)", widget=SLIDER,
            field="synthetic_trees", tooltip="test: 30 % of that; only for the synthetic source"),
    Setting("lmin", hi=8, field="lmin"),
    Setting("lmax", INT, default=3, lo=0, hi=8, field="lmax", to_config=lambda x: int(max(x, 1))),
    Setting("phi", hi=10.0, label="Size prior φ (TF)", widget=NUMBER, step=0.5, field="phi"),
    Setting("sampler", label="Hidden-state sampler (TF)", widget=SELECT, field="sampler",
            display={"exact": "exact joint draw", "prior": "paper's prior proposal (Alg. 1)"}),
    Setting("init", label="Start (TF)", widget=SELECT, field="init",
            display={"sp": "states from a short SP-BHTMM run", "prior": "parameters from the priors (paper)"}),
    Setting("sp", CHOICE, "the SP-BHTMM implementation", "exact", choices=("exact", "paper", "authors"),
            label="SP-BHTMM implementation", widget=SELECT,
            display={"exact": "exact EM (the model of eqs. 1–2)", "paper": "authors' E-step only",
                     "authors": "authors' code, step for step (the published numbers)"},
            tooltip="The authors' code differs from the model in three ways: its E-step, a leaf may be explained "
                    "as an empty slot (⊥), and its M-step sums the counts of all iterations. Together, not the "
                    "switching-parent approximation, they bring SP-BHTMM down to the published 53 % on symm"),
    _seed(),
    _run("start training when the page opens"),
    Setting("test_tree", INT, "the test tree shown (1 = the first)", 1, lo=1, hi=100_000, label="Test tree",
            widget=SLIDER, view=True),
), prefix="bhtmm", uses_tree=False, build=_bhtmm, config=BhtmmConfig)

RUNS = PageSpec("runs", "Runs", "Runs", ":material/history:", (
    Setting("record", TEXT, "the recorded run to open, by id", view=True),
), prefix="runs", uses_tree=False)



def _reproduce(fields: dict, v: dict, tree):
    return ReproduceConfig(**fields)


REPRODUCE = PageSpec("reproduce", "Reproduce", "Runs", ":material/fact_check:", (
    Setting("paper", label="Paper", widget=RADIO, field="paper",
            display={"cover": "cover: optimal cover against brute force (Theorem 6)",
                     "hedge": "hedge: TREE-HEDGE and its bound (Theorem 9)",
                     "rta": "rta: RTA's Table 1 and Figure 1",
                     "ofde": "ofde: OFDE's Figure 2, Chow-Liu log-likelihoods",
                     "bhtmm": "bhtmm: TF- and SP-BHTMM, Tables I and III"}),
    Setting("quick", label="Quick protocol", widget=TOGGLE, field="quick",
            tooltip="Fewer seeds, folds and iterations (the report says which): every paper in a minute or two. "
                    "Off: the paper's own protocol, which can take from seconds (cover) to hours (ofde, bhtmm) on "
                    "a small machine."),
    Setting("report", TEXT, "the report shown: a reproduction's run id in the run history", view=True),
    _run("start the reproduction when the page opens"),
), prefix="repro", uses_tree=False, build=_reproduce, config=ReproduceConfig)

#: The app's pages in menu order; the lessons open at ``/``, where a class starts.
PAGES = PageTable([LESSONS, PRACTICE, TREE_STUDIO, COVER_INSPECTOR, ONLINE_MARGINALS, BELIEF_PROPAGATION, TREE_HEDGE, OFDE,
                   RTA, BHTMM, RUNS, REPRODUCE], default="lessons")
