"""Tree Studio: pick, load, generate and draw the current tree."""

import streamlit as st

from engine.errors import EngineError
from engine.trees import GENERATORS, generate
from workbench.figures.tree_figure import tree_figure
from workbench.state import _load_sample, current_tree, list_samples, set_tree

st.title("Tree Studio")
tree = current_tree()

left, right = st.columns([1, 3])
with left:
    sample = st.selectbox("Sample tree", list_samples(), index=None, placeholder="Choose a sample")
    if sample and st.button("Load sample"):
        try:
            set_tree(_load_sample(sample), f"sample {sample}")
            st.rerun()
        except EngineError as exc:
            st.error(str(exc))
    kind = st.selectbox("Generate a family", sorted(GENERATORS))
    n = st.slider("Vertices", 2, 2000, 31)
    seed = st.number_input("Seed", 0, 10**6, 0)
    if st.button("Generate"):
        try:
            set_tree(generate(kind, n, seed=int(seed)), f"generated {kind} n={n} seed={seed}")
            st.rerun()
        except EngineError as exc:
            st.error(str(exc))
with right:
    event = st.plotly_chart(tree_figure(tree), on_select="rerun", key="studio_plot",
                            selection_mode=("points", "box", "lasso"))
    pts = event["selection"]["points"] if event else []
    picked = [p["customdata"] for p in pts if "customdata" in p]
    if picked:
        st.write(f"Selected vertex: **{tree.name(int(picked[0]))}**")
