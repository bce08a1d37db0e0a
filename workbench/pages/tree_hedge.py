"""TREE-HEDGE ("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5): multi-task allocation
on the current tree, against two baselines."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from engine.hedge.run import HedgeConfig, run
from workbench.declarations.page_table import PAGES
from engine.trees import generate
from engine.trees.spec import tree_from_spec
from workbench.components import chart
from workbench import address_bar
from workbench.figures.hedge_figures import (LEARNER_STYLE, action_colour, loss_curves_figure,
                                             regret_heatmap)
from workbench.runner import launch
from workbench.figures.style import SEQUENTIAL_SCALE, current
from workbench.session import PageState
from workbench.state import current_tree, set_tree, tree_version
from workbench.treeview import tree_view, view_bind
from workbench.widgets import widget

SPEC = PAGES["tree_hedge"]
FILE = {"file": "My loss file"}   # the environment a link cannot name: the user's own loss file


class HedgeState(PageState, page="tree_hedge"):
    run: tuple | None = None                # (tree version, config, run tree, result) of the run shown
    config_now: HedgeConfig | None = None   # the run configuration of the settings now (None: a loss file)
    trial_link: int | None = None           # a link's trial, shown once the run is
    time: int | None = None                 # the trial the maps show
    task: str | None = None                 # the task pointed out, by name
    map: str = "favourite"                  # the action map shows each task's favourite, or its best action
    curves: None = None                     # the figures: the loss curves
    heat: None = None                       # ... the heat map of the weights
    regret_view: None = None                # ... the task tree coloured by regret
    action_view: None = None                # ... and by action
    setup: None = None                      # the settings' form


S = HedgeState()


def _shown() -> bool:
    """Whether the results on the page are those of the settings (then the link says run=1)."""
    return S.run is not None and S.run[1] == S.config_now


BINDS = {"run": address_bar.run_bind("tree_hedge", _shown),
         "trial": address_bar.Bind(seed=lambda t: setattr(S, "trial_link", t), read=lambda: S.time if _shown() else None),
         "task": address_bar.vertex(S.key("task")), "region": view_bind(S.key("regret_view"))}

address_bar.page_head("tree_hedge", "TREE-HEDGE",
                '"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale), section 5. '
                "Every vertex of the tree is a task; on each trial one task arrives, the "
                "learner spreads its bet over k actions, and a loss vector arrives. TREE-HEDGE bets with the "
                "marginal of a tree model whose edges say *neighbouring tasks tend to share their best action*.",
                BINDS)
tree = current_tree()
with st.expander("How TREE-HEDGE works and what it promises"):
    st.markdown(
        "- **Predict** at task v with the marginal p(v → a | Θ, D) of the tree model "
        "(Potts edges: *coupling* on the diagonal).\n"
        "- **Update** the data row of v: D(v) ← D(v) · exp(−η y). This is Hedge over all kⁿ labellings "
        "of the tree with prior p(μ | Θ, D¹) — the online sum-product model makes each trial cost "
        "O(cover height) instead of kⁿ.\n"
        "- **Theorem 9**: for every labelling μ, the loss is at most "
        "c_η (L(μ) + ln(1/p(μ))/η), c_η = η/(1 − e^{−η}). The dashed line is this bound at its best "
        "comparator μ*, found exactly by max-product.\n"
        "- **Baselines**: *Hedge per task* ignores the tree; *one shared Hedge* ignores the tasks.")

if tree.n < 2:
    st.info("TREE-HEDGE needs at least two tasks: load a larger tree in the Tree Studio.")
    st.stop()

top = st.columns([3, 1])
with top[0]:
    st.markdown(f"**Tasks:** the current tree, {tree.n:,} vertices.")
with top[1]:
    if tree.n < 20 and st.button("Use a demo tree (60 tasks)", help="Sets the current tree to a random tree of 60 vertices"):
        set_tree(generate("random", 60, seed=7), "generated random n=60 seed=7 (TREE-HEDGE demo)", link="random:60:7")
        st.rerun()

# px at the plain text size: a group of settings. Two pairs of groups: four in a row, or two by two
# where the main column is narrower (quarters of a 1024 px projector's cut the environment's name,
# "Piecewise on the tree"); wider by the presenter's scale, with its text
_GROUP = 210

with st.form(S.key("setup")):
    grid = st.container(horizontal=True)
    pairs = [grid.container(horizontal=True, width="content") for _ in range(2)]
    group = round(_GROUP * current().scale)
    c1, c2, c3, c4 = (pair.container(width=group) for pair in pairs for _ in range(2))
    with c1:
        widget(SPEC, "k")
        widget(SPEC, "trials")
    with c2:
        widget(SPEC, "eta")
        widget(SPEC, "coupling")
    with c3:
        env = widget(SPEC, "env", extra=FILE)
        if S.switches > tree.n - 1:
            S.switches = tree.n - 1
        widget(SPEC, "switches", hi=max(tree.n - 1, 0), value=min(SPEC.setting("switches").default, tree.n - 1))
    with c4:
        widget(SPEC, "seed")
        upload = st.file_uploader("Loss file (for 'My loss file')", type=["csv", "tsv", "jsonl", "json"])
    submitted = st.form_submit_button("Run TREE-HEDGE", type="primary")

version = tree_version()
# the run configuration of these settings, as a lesson's link describes it (the page's spec)
config = SPEC.run_config(address_bar.values(SPEC), tree) if env not in FILE else None
S.config_now = config

if submitted or (config is not None and address_bar.run_once("tree_hedge", config)):
    if env in FILE:
        if upload is None:
            st.error("Choose a loss file first (rows: task name, then k losses in [0, 1]).")
            st.stop()
        folder = Path(tempfile.mkdtemp(prefix="hedge_losses_"))
        loss_file = str(folder / Path(upload.name).name)
        Path(loss_file).write_bytes(upload.getvalue())
        config = dataclasses.replace(SPEC.run_config(address_bar.values(SPEC), tree), environment="file",
                                     loss_file=loss_file)
    result = launch(config, run, label="TREE-HEDGE run", reuse=True)
    if result is not None:
        try:
            run_tree = tree_from_spec(config.tree)
        except EngineError as exc:
            st.error(public_message(exc))
        else:
            S.run = (version, config, run_tree, result)

stored = S.run
if stored is None:
    st.info("Set up a run above and press **Run TREE-HEDGE**.")
    st.stop()
if stored[0] != version:
    st.warning("The current tree changed since this run; showing the run on its own tree. Run again to use the new one.")


#: the names of the action colours (workbench.figures.style.CATEGORICAL), for the caption
COLOUR_NAMES = ["blue", "orange", "vermillion", "sky blue", "green", "purple", "yellow", "grey"]


def _heat_lead(a: dict, learner: str, snaps: list, i: int) -> str:
    """The regret heat map in words: its size and, at the trial shown, the task with the largest regret."""
    now = a["task_regret"][learner][i]
    worst = max(range(len(now)), key=lambda v: now[v])
    return (f"Regret of {LEARNER_STYLE[learner][0]} on each of the {len(now):,} tasks at {len(snaps):,} snapshots; "
            f"after trial {snaps[i]:,} the largest is {now[worst]:.2f}, on task {a['vertex_names'][worst]}.")


@st.fragment
def results(run_tree, result) -> None:
    """The run's story, curves and maps: scrubbing, the view and the learner rerun only this."""
    m, a = result.metrics, result.artefacts

    # ---------------------------------------------------------------- the story at a glance
    th, ih, sh, bound = m["tree_hedge_loss"], m["independent_hedge_loss"], m["shared_hedge_loss"], m["bound"]
    beats = th < ih and th < sh
    verdict = (f"TREE-HEDGE {'beats both baselines' if beats else 'does not beat both baselines'} "
               f"({th:,.1f} against {ih:,.1f} per task and {sh:,.1f} shared) and "
               f"{'stays under' if m['bound_holds'] else 'EXCEEDS'} its Theorem 9 bound ({bound:,.1f}).")
    (st.success if beats and m["bound_holds"] else st.info)(verdict, icon=":material/insights:")
    cols = st.columns(5)
    cols[0].metric("TREE-HEDGE loss", f"{th:,.1f}")
    cols[1].metric("Hedge per task", f"{ih:,.1f}", f"{ih - th:+,.1f} vs TREE-HEDGE", delta_color="off")
    cols[2].metric("One shared Hedge", f"{sh:,.1f}", f"{sh - th:+,.1f} vs TREE-HEDGE", delta_color="off")
    cols[3].metric("Best comparator L(μ*)", f"{m['best_comparator_loss']:,.1f}",
                   f"prior cost ln(1/p)/η = {m['comparator_complexity']:.1f}", delta_color="off")
    cols[4].metric("Theorem 9 bound", f"{bound:,.1f}", f"slack {bound - th:,.1f}", delta_color="off")
    st.caption(f"{m['n']} tasks · k = {m['states']} · T = {m['trials']:,} · η = {m['eta']} · coupling {m['coupling']} · "
               f"{m['environment']} environment · {m['seconds_per_trial'] * 1e6:,.0f} µs per TREE-HEDGE trial "
               + (f"(online model: each trial walks a cover of height {m['cover_height']})"
                  if m.get("cover_height") is not None else f"({m['backend']} backend)"))

    snaps = a["snapshot_trials"]
    wanted = S.pop("trial_link")
    if wanted is not None:   # a link's trial: the last snapshot at or before it
        S.time = max([x for x in snaps if x <= wanted] or snaps[:1])
    elif S.time not in snaps:
        del S.time
    address_bar.write_query("tree_hedge")
    t = st.select_slider("Scrub through the run: after trial", options=snaps, value=snaps[-1], key=S.key("time"))
    i = snaps.index(t)

    left, right = st.columns([3, 2])
    with left:
        view = widget(SPEC, "view", horizontal=True, label_visibility="collapsed")
        excess = SPEC.setting("view").token_of(view) != "cumulative"
        chart(loss_curves_figure(result.curves, excess=excess, t=t), key=S.key("curves"),
              describe=f"The {'loss above the best comparator' if excess else 'cumulative mix loss'} of each "
              f"learner over {snaps[-1]:,} trials, with the regret bound; trial {t:,} marked.")
        st.caption("Measured above L(μ*), the loss of Theorem 9's best comparator on the trials so far: a curve "
                   "that levels off has stopped paying for learning; the bound may never be crossed."
                   if excess else "Cumulative mix loss y·p of each learner; the bound and the best comparator's loss.")
    with right:
        learner = widget(SPEC, "learner")
        chart(regret_heatmap(snaps, a["task_regret"][learner], a["vertex_names"], a["task_order"], t=t,
                                       height=400, title=f"Regret per task: {LEARNER_STYLE[learner][0]}"),
                        key=S.key("heat"), describe=_heat_lead(a, learner, snaps, i))

    trials_at = a["task_trials"][i]
    hover = [f"{trials_at[v]} trials so far · regret {a['task_regret'][learner][i][v]:.2f}" for v in range(run_tree.n)]
    if S.task is not None and run_tree.find(S.task) is None:
        S.task = None
    task_name = st.selectbox("Point out a task", list(run_tree.names), index=None, key=S.key("task"),
                             placeholder="pick a task by name (ringed in both maps)")
    task = None if task_name is None else run_tree.find(task_name)
    if task is not None:
        fav = a["favourite"][learner][i][task]
        best = a["true_best"][i][task] if a["true_best"] is not None else a["comparator"][task]
        st.markdown(f"Task **{task_name}** after trial {t:,}: {trials_at[task]} trials of its own; "
                    f"{LEARNER_STYLE[learner][0]} favours " + (f"**action {fav + 1}**" if fav >= 0 else "**no action (tied)**")
                    + f"; the {'true best' if a['true_best'] is not None else 'comparator μ*'} action is {best + 1}.")
    c1, c2 = st.columns(2)
    regret = np.asarray(a["task_regret"][learner][i], float)
    with c1:
        st.markdown(f"**Regret per task** after trial {t:,}: {LEARNER_STYLE[learner][0]}")
        tree_view(run_tree, S.key("regret_view"), page="tree_hedge", values=regret, scale=SEQUENTIAL_SCALE, lo=0.0,
                  hi=max(float(regret.max()), 1e-9), value_title="regret", selected=task, on_pick=_point_out,
                  hover=lambda v: hover[v], describe=f"The task tree coloured by each task's regret after trial {t:,}.",
                  export_name="hedge_regret_tree")
    with c2:
        truth = a["true_best"][i] if a["true_best"] is not None else a["comparator"]
        shown = st.radio("Action map", ["favourite", "best"], horizontal=True, key=S.key("map"),
                         format_func={"favourite": f"{LEARNER_STYLE[learner][0]}'s favourite action",
                                      "best": "true best action" if a["true_best"] is not None
                                      else "best comparator μ* (Theorem 9)"}.get)
        actions = np.asarray(a["favourite"][learner][i] if shown == "favourite" else truth, np.int64)
        palette = [action_colour(-1)] + [action_colour(k) for k in range(m["states"])]
        tree_view(run_tree, S.key("action_view"), categories=(actions + 1, palette), selected=task, on_pick=_point_out,
                  hover=lambda v: hover[v], describe="The task tree coloured by each task's action "
                  f"({'favourite of ' + LEARNER_STYLE[learner][0] if shown == 'favourite' else 'best'}).",
                  export_name="hedge_action_tree",
                  note="Actions " + ", ".join(f"{k + 1}: {COLOUR_NAMES[k % len(COLOUR_NAMES)]}"
                                              for k in range(m["states"])) + "; light grey: tied (no favourite).")


def _point_out(v: int) -> None:
    """A task clicked in either map becomes the task pointed out."""
    tree = S.run[2] if S.run else None
    if tree is not None and 0 <= v < tree.n:
        S.task = tree.name(v)


_, _config, run_tree, result = stored
results(run_tree, result)
