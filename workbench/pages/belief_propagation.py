"""Belief Propagation: the lecture's sum-product schedule step by step, the parallel schedule
iteration by iteration, and why elimination order matters
(the lecture notes "Inferences on trees: sum-product algorithm", sections 8.1-8.4)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from engine.files import public_message
from engine.errors import EngineError
from engine.inference.belief_propagation import belief_propagation, flooding, sequential_schedule
from engine.inference.elimination import elimination_steps, largest_table, leaves_first_order
from engine.inference.potentials import potts_interaction, random_node_potentials
from engine.trees.generators import star_tree
from workbench.components import chart
from workbench.figures.inference_figures import convergence_figure, elimination_bars, message_figure
from workbench.state import DEFAULT_SAMPLE, current_tree, load_sample
from workbench.text import md

DRAW_LIMIT = 40


@dataclass(frozen=True)
class BPParams:
    k: int
    coupling: float
    seed: int


st.title("Belief Propagation")
st.caption('The lecture notes "Inferences on trees: sum-product algorithm", sections 8.1–8.4: the sum-product messages '
           '(eq. 5) and marginals (eq. 6).')
st.latex(r"m_{i\to j}(x_j) = \sum_{x_i} \phi_i(x_i)\,\psi_{ij}(x_i, x_j) \prod_{k \in N(i)\setminus\{j\}}"
         r" m_{k\to i}(x_i) \qquad p_{x_i}(x_i) \propto \phi_i(x_i) \prod_{j\in N(i)} m_{j\to i}(x_i)")

tree = current_tree()
if tree.n > DRAW_LIMIT or tree.n < 2:
    st.info(f"Messages are drawn for trees of 2 to {DRAW_LIMIT} vertices; the current tree has "
            f"{tree.n:,}. Showing the lecture's 5-vertex tree instead.")
    tree = load_sample(DEFAULT_SAMPLE)

c1, c2, c3 = st.columns(3)
params = BPParams(
    k=int(c1.slider("Labels k", 2, 4, 2, key="bp_k")),
    coupling=float(c2.slider("Potts coupling", -2.0, 2.0, 0.8, 0.1, key="bp_coupling")),
    seed=int(c3.number_input("Seed of the node potentials φ", 0, 10 ** 6, 0, key="bp_seed")),
)
try:
    phi = random_node_potentials(tree.n, params.k, seed=params.seed)
    psi = potts_interaction(params.k, params.coupling)
    exact = belief_propagation(tree, phi, psi)
except EngineError as exc:
    st.error(public_message(exc))
    st.stop()


@st.fragment
def sequential(tree, exact, k: int) -> None:
    """The schedule one message at a time (a step reruns only this)."""
    schedule = sequential_schedule(tree)
    total = len(schedule)

    def _step(delta):
        st.session_state["bp_step"] = int(min(max(st.session_state.get("bp_step", 0) + delta, 0), total))

    b1, b2, b3 = st.columns([1, 1, 6])
    b1.button("◀ back", on_click=_step, args=(-1,), key="bp_back")
    b2.button("next ▶", on_click=_step, args=(1,), key="bp_next")
    st.session_state["bp_step"] = min(st.session_state.get("bp_step", 0), total)
    step = b3.slider("Messages sent", 0, total, key="bp_step")
    msgs = []
    for s, r in schedule[:step]:
        vals = exact.upward[s] if tree.parent[s] == r else exact.downward[r]
        msgs.append((s, r, vals))
    phase = ("collect: leaves towards the root " + tree.name(tree.root)) if step <= total // 2 \
        else "distribute: root outwards"
    done = step == total
    fig = message_figure(tree, msgs, current=step - 1 if step else None,
                         beliefs=exact.marginals if done else None,
                         title=f"Step {step} of {total} — {phase}" + (" — colour: P(label 0)" if done else ""))
    chart(fig, key="bp_seq_fig", name="bp_sequential")
    if step:
        s, r, vals = msgs[-1]
        others = [tree.name(x) for x in tree.neighbors(s) if x != r]
        # names are data: escaped Markdown, no HTML (a crafted name must not reach the browser as markup)
        st.markdown(f"**Message {step}: m({md(tree.name(s))} → {md(tree.name(r))})** = "
                    f"\\[{', '.join(f'{v:.4f}' for v in vals)}\\] (normalised) — uses φ({md(tree.name(s))})"
                    + (f" and the messages from {', '.join(md(o) for o in others)}" if others else " only (a leaf)"))
    if done:
        st.success("All 2(n−1) messages sent: every marginal is exact. log Z = "
                   f"{exact.log_partition:.6f}")
        df = pd.DataFrame(exact.marginals, index=list(tree.names),
                          columns=[f"P(label {a})" for a in range(k)])
        st.dataframe(df.style.format("{:.4f}"), key="bp_marg_table")


@st.fragment
def parallel(tree, phi, psi, exact) -> None:
    """The parallel schedule, iteration by iteration (the slider reruns only this)."""
    trace = flooding(tree, phi, psi)
    last = len(trace.upward) - 1
    it = st.slider("Iteration t", 0, last, min(1, last), key="bp_iter")
    ch = tree.order[1:]
    msgs = [(int(c), int(tree.parent[c]), trace.upward[it][c]) for c in ch] + \
           [(int(tree.parent[c]), int(c), trace.downward[it][c]) for c in ch]
    err = np.nanmax(np.abs(np.nan_to_num(trace.marginals[it], nan=1.0) - exact.marginals), axis=1)
    fig = message_figure(tree, msgs, beliefs=np.nan_to_num(trace.marginals[it], nan=0.0),
                         title=f"Parallel schedule, iteration {it}: every message recomputed from "
                               "iteration t−1 (colour: belief P(label 0))")
    chart(fig, key="bp_par_fig", name="bp_parallel")
    m1, m2, m3 = st.columns(3)
    m1.metric("Largest |belief − exact| now", f"{err.max():.2e}")
    m2.metric("Exact from iteration", trace.converged_at)
    m3.metric("Messages per iteration", 2 * (tree.n - 1))
    errs = [float(np.nanmax(np.abs(np.nan_to_num(m, nan=1.0) - exact.marginals))) for m in trace.marginals]
    chart(convergence_figure(errs, current=it, converged_at=trace.converged_at), key="bp_conv_fig",
          name="bp_convergence")
    st.caption("Section 8.3: the parallel schedule is exact after at most diameter-many iterations. "
               "Each iteration uses the product trick of section 8.4 (one product per vertex, then "
               "one exclusion per outgoing message) — without dividing, so zero entries are exact.")


@st.fragment
def elimination(tree) -> None:
    """Elimination order on a star and on the current tree (its sliders rerun only this)."""
    st.markdown("Section 8.1: eliminating a variable multiplies every factor that mentions it and "
                "sums it out, leaving a table over its neighbours. On a star, eliminating the centre "
                "first creates a table over all the leaves.")
    e1, e2 = st.columns(2)
    leaves = int(e1.slider("Leaves of the star", 3, 12, 6, key="bp_star"))
    ke = int(e2.slider("Labels |X|", 2, 4, 2, key="bp_elim_k"))
    star = star_tree(leaves + 1)
    centre_first = elimination_steps(star, [0] + list(range(1, leaves)), ke)
    leaves_first = elimination_steps(star, list(range(1, leaves + 1)), ke)
    chart(elimination_bars({
        f"centre first (largest table {largest_table(centre_first):,})":
            [(star.name(s.vertex), s.size) for s in centre_first],
        f"leaves first (largest table {largest_table(leaves_first):,})":
            [(star.name(s.vertex), s.size) for s in leaves_first],
    }), key="bp_elim_fig", name="bp_elimination")
    own = elimination_steps(tree, leaves_first_order(tree), ke)
    st.caption(f"On the current tree, eliminating leaves first (reverse breadth-first order) never "
               f"creates a table larger than |X| = {largest_table(own)} entries.")


seq_tab, par_tab, elim_tab = st.tabs(["Sequential schedule", "Parallel schedule", "Elimination order"])
with seq_tab:
    sequential(tree, exact, params.k)
with par_tab:
    parallel(tree, phi, psi, exact)
with elim_tab:
    elimination(tree)
