"""Engine computations that answer lesson questions, so a lesson can never state a wrong answer.

A question names one in its ``computed:`` field (with ``name=value`` arguments); the lesson
checker (``python -m engine lessons check``) runs it on the step's state -- the page and the
query parameters of its link, through the page's spec (:mod:`workbench.declarations.page_table`: its model or run
configuration, as the page itself builds it) -- and refuses the lesson when the stated answer differs.

>>> from workbench.declarations.lessons.format import parse_lesson
>>> lesson = parse_lesson('''---
... title: t
... minutes: 5
... audience: a
... ---
... ## Round 1
... state: /cover_inspector?tree=figure1&root=1&t=1
... Look at the black vertices.
... question: Which vertices are mergeable in round 1?
... kind: vertices
... answer: 5, 12
... computed: mergeable
... ''', "x.md")
>>> sorted(compute(lesson.steps[0]))
['12', '5']
>>> check_answers(lesson)
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.errors import EngineError, InvalidParameterError, LessonError
from engine.inference.belief_propagation import belief_propagation, flooding
from engine.inference.elimination import elimination_steps, largest_table
from engine.inference.messages import message_work
from engine.trees.generators import star_tree
from workbench.declarations.page_spec import PageSpec, link_tree
from workbench.declarations.page_table import LEARNER_NAMES, PAGES, link_cover

__all__ = ["COMPUTATIONS", "Computation", "check_answers", "computations_markdown", "compute"]


@dataclass(frozen=True)
class Computation:
    """An answer the engine computes from a step's page and parameters.

    kind : the question kind it answers; args : the arguments it takes; pages : where it applies.
    """

    name: str
    kind: str
    pages: tuple[str, ...]
    args: tuple[str, ...]
    help: str
    fn: Callable


COMPUTATIONS: dict[str, Computation] = {}


def _computation(name: str, kind: str, pages: tuple[str, ...], args: tuple[str, ...] = (), help: str = ""):
    def register(fn):
        COMPUTATIONS[name] = Computation(name, kind, pages, args, help or (fn.__doc__ or "").strip(), fn)
        return fn
    return register


def compute(step):
    """The engine's answer to ``step``'s question (a set of vertex names, a number or a choice)."""
    q = step.question
    if q is None or q.computed is None:
        raise InvalidParameterError(f"step {step.title!r} has no computed answer")
    name, args = q.computed
    comp = COMPUTATIONS[name]
    link = PAGES.parse_link(step.state)
    if link.page.url_path not in comp.pages:
        raise InvalidParameterError(f"computation {name} answers questions on "
                                    f"{', '.join('/' + p for p in comp.pages)}, not /{link.page.url_path}")
    tree, _ = link_tree(link.values)
    return comp.fn(link.page, link.page.with_defaults(link.values), tree, args)


def computations_markdown() -> str:
    """The computations as a Markdown table (the reference in ``docs/lessons.md``)."""
    lines = ["| computation | answers | on pages | arguments | what it computes |", "|---|---|---|---|---|"]
    for c in COMPUTATIONS.values():
        lines.append(f"| `{c.name}` | {c.kind} | {', '.join('`/' + p + '`' for p in c.pages)} | "
                     f"{', '.join(c.args) or '—'} | {' '.join(c.help.split()).replace('``', '`')} |")
    return "\n".join(lines) + "\n"


def check_answers(lesson) -> int:
    """Recompute every computed answer of ``lesson``; raise :class:`LessonError` at the first that
    disagrees. Returns how many answers were checked."""
    label = lesson.path.rsplit("/", 1)[-1] if lesson.path else lesson.id
    count = 0
    for step in lesson.steps:
        q = step.question
        if q is None or q.computed is None:
            continue
        try:
            got = compute(step)
        except EngineError as exc:
            raise LessonError(f"{label}:{q.line}: computing the answer of step {step.title!r} failed: {exc}",
                              label, q.line) from None
        if not q.agrees(got):
            shown = ", ".join(sorted(got)) if isinstance(got, (set, frozenset)) else \
                (f"{got:.6g}" if isinstance(got, float) else str(got))
            raise LessonError(f"{label}:{q.answer_line}: the answer of step {step.title!r} is {q.answer!r}, but "
                              f"the engine computes {shown!r} ({q.computed[0]})", label, q.answer_line)
        count += 1
    return count


# ---------------------------------------------------------------------- the cover

def _cover(values, tree):
    return link_cover(values, _need_tree(tree))


def _need_tree(tree):
    if tree is None:
        raise InvalidParameterError("the step's link must give tree= for this computation")
    return tree


@_computation("mergeable", "vertices", ("cover_inspector",))
def _mergeable(page, v, tree, args):
    """The mergeable vertices M_t of round t (drawn black): they leave T_t in round t."""
    cover = _cover(v, tree)
    tr = cover.trace(int(v["t"]))
    return frozenset(tree.name(int(x)) for x in tr.vertices[tr.mergeable])


@_computation("contracted_size", "number", ("cover_inspector",))
def _contracted_size(page, v, tree, args):
    """The number of vertices of the contracted tree T_t."""
    return float(_cover(v, tree).trace(int(v["t"])).vertices.size)


@_computation("cover_height", "number", ("cover_inspector", "online_marginals"))
def _cover_height(page, v, tree, args):
    """The height of the cover (its decomposition tree D)."""
    if page.url_path == "online_marginals":
        return float(_online(page, v, tree).height)
    return float(_cover(v, tree).height)


@_computation("boundary", "vertices", ("cover_inspector",), ("node",))
def _boundary(page, v, tree, args):
    """The boundary ∂_T(S^node) of a component (argument node=NAME, as D names it)."""
    cover = _cover(v, tree)
    names = cover.node_names()
    if args.get("node") not in names:
        raise InvalidParameterError(f"node={args.get('node')}: not a component of D")
    z = names.index(args["node"])
    return frozenset(tree.name(int(b)) for b in cover.boundary_of(z))


@_computation("d_chain", "number", ("cover_inspector",), ("vertex",))
def _d_chain(page, v, tree, args):
    """The number of D nodes on the chain from a vertex's node to D's root (vertex=NAME)."""
    cover = _cover(v, tree)
    i = tree.index(args.get("vertex", v.get("vertex")))
    return float(len(cover.ancestors(cover.node_of_vertex(i))))


# ---------------------------------------------------------------------- inference

def _model(page: PageSpec, v, tree):
    """The page's model (its settings' :class:`engine.inference.models.PairwiseConfig`) on the link's tree."""
    return page.run_config(v).model(tree)


def _online(page: PageSpec, v, tree):
    return page.run_config(v).online(_need_tree(tree))

@_computation("marginal", "number", ("online_marginals", "belief_propagation"), ("vertex", "label"))
def _marginal(page, v, tree, args):
    """P(x_vertex = label) under the page's model and the link's evidence (vertex=NAME label=A)."""
    m = _model(page, v, tree)
    i = m.tree.index(args.get("vertex", v.get("vertex")))
    label = args.get("label", "0")
    a = m.states[i].index(label) if m.states is not None and label in m.states[i] else int(label)
    return float(belief_propagation(m.tree, m.node_potentials, m.edge_potentials, k=m.k).marginals[i, a])


@_computation("update_touched", "number", ("online_marginals",), ("vertex",))
def _update_touched(page, v, tree, args):
    """How many nodes of D an evidence update at a vertex touches (vertex=NAME)."""
    model = _online(page, v, tree)
    i = model.tree.index(args.get("vertex", v.get("vertex")))
    model.update(i, model.node_data[i])
    return float(len(model.last_op.touched))


@_computation("next_message", "number", ("belief_propagation",), ("label",))
def _next_message(page, v, tree, args):
    """The next message of the sequential schedule (after ``messages`` sent), normalised, at the
    receiver's label (label=A)."""
    m = _model(page, v, tree)
    work = message_work(m.tree, m.node_potentials, m.edge_potentials, k=m.k)
    sent = int(v["messages"])
    if sent >= len(work):
        raise InvalidParameterError(f"all {len(work)} messages are sent: there is no next message")
    return float(work[sent].message[int(args.get("label", 0))])


@_computation("exact_from_iteration", "number", ("belief_propagation",))
def _exact_from(page, v, tree, args):
    """The iteration from which every belief of the parallel schedule is exact."""
    m = _model(page, v, tree)
    return float(flooding(m.tree, m.node_potentials, m.edge_potentials, k=m.k).converged_at)


@_computation("largest_table", "number", ("belief_propagation",), ("order",))
def _largest_table(page, v, tree, args):
    """The largest table the elimination tab's star creates (order=centre or order=leaves)."""
    leaves, k = int(v["star"]), int(v["elim_k"])
    star = star_tree(leaves + 1)
    order = [0] + list(range(1, leaves)) if args.get("order", "centre") == "centre" else list(range(1, leaves + 1))
    return float(largest_table(elimination_steps(star, order, k)))


# ---------------------------------------------------------------------- learning

_RUNS: dict = {}


def _memo(fn, config):
    """One run per configuration while a process checks lessons (several questions share a run)."""
    key = (fn.__module__, fn.__name__, repr(config))
    if key not in _RUNS:
        if len(_RUNS) > 32:
            _RUNS.clear()
        _RUNS[key] = fn(config)
    return _RUNS[key]


def _hedge(page: PageSpec, v, tree):
    # start-up: the learning runs load their learners and numba (seconds for scikit-learn); lessons are
    # read at every start of the app, their answers computed only by the checker
    from engine.hedge.run import play_config

    return _memo(play_config, page.run_config(v, _need_tree(tree)))


@_computation("hedge_favourite", "choice", ("tree_hedge",), ("task",))
def _hedge_favourite(page, v, tree, args):
    """The favourite action of the link's learner at a task (task=NAME) at the link's trial (the
    last snapshot at or before it; the end of the run without one): ``action 1`` .. ``action k``
    as the page names them, or ``tied`` when no action leads."""
    from engine.hedge.run import LEARNERS  # start-up: as in _hedge

    pb = _hedge(page, v, tree)
    i = pb.tree.index(args.get("task", v.get("task")))
    trial = v.get("trial")
    s = len(pb.snap_t) - 1 if trial is None else int(np.searchsorted(pb.snap_t, int(trial), side="right")) - 1
    a = int(pb.favourite[max(s, 0), LEARNERS.index(v["learner"]), i])
    return "tied" if a < 0 else f"action {a + 1}"


@_computation("hedge_least_loss", "choice", ("tree_hedge",))
def _hedge_least(page, v, tree, args):
    """The learner with the least total loss: TREE-HEDGE, Hedge per task or One shared Hedge."""
    pb = _hedge(page, v, tree)
    from engine.hedge.run import LEARNERS  # start-up: as in _hedge

    tot = pb.losses.sum(axis=0)
    return LEARNER_NAMES[LEARNERS[int(np.argmin(tot))]]


def _ofde(page: PageSpec, v):
    from engine.forests.run import run  # start-up: as in _hedge

    return _memo(run, page.run_config(v)).metrics


@_computation("ofde_edges_off", "number", ("ofde",))
def _ofde_shd(page, v, tree, args):
    """Edges in which OFDE's final structure and the Chow-Liu tree differ."""
    return float(_ofde(page, v)["shd_to_chowliu"])


@_computation("ofde_gap", "number", ("ofde",))
def _ofde_gap(page, v, tree, args):
    """Chow-Liu's average test log-likelihood minus OFDE's final one (nats)."""
    return float(_ofde(page, v)["gap_to_chowliu"])


def _rta(page: PageSpec, v):
    from engine.multilabel.run import run  # start-up: as in _hedge

    return _memo(run, page.run_config(v)).metrics


@_computation("rta_exact_percent", "number", ("rta",))
def _rta_exact(page, v, tree, args):
    """The percentage of test predictions certified exact by Lemma 7."""
    return float(100.0 * _rta(page, v)["exact_fraction"])


@_computation("rta_lower_zero_one", "choice", ("rta",))
def _rta_zero_one(page, v, tree, args):
    """The method with the lower 0/1 loss: RTA or SVM (the LinearSVC baseline)."""
    m = _rta(page, v)
    if "svm_zero_one_loss" not in m:
        raise InvalidParameterError("the step's link must keep the baseline on (baseline=1)")
    return "RTA" if m["zero_one_loss"] < m["svm_zero_one_loss"] else "SVM"


@_computation("htmm_more_accurate", "choice", ("bhtmm",))
def _htmm_better(page, v, tree, args):
    """The model with the higher accuracy on the link's data and task (both trained with its
    settings): TF-BHTMM or SP-BHTMM (generated labels for the labelling task, as the paper)."""
    from engine.htmm.run import run  # start-up: as in _hedge

    key = "generated_accuracy" if v["task"] == "label" else "accuracy"
    acc = {model: _memo(run, page.run_config({**v, "model": model})).metrics[key] for model in ("tf", "sp")}
    return "TF-BHTMM" if acc["tf"] > acc["sp"] else "SP-BHTMM"
