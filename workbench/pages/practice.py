"""Practice: exercises generated from a seed and checked by the engine (engine.practice), one family
at least per paper; a hint after a wrong attempt, the worked solution after any attempt, and a score
per family kept in the session."""

from __future__ import annotations

import secrets

import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from engine.practice import FAMILIES, Score, asked_vertex, exercise_tree, make
from workbench import address_bar
from workbench.components import chart
from workbench.declarations.page_table import PAGES, SEED
from workbench.figures.tree_figure import tree_figure
from workbench.session import PracticeState
from workbench.widgets import widget

SPEC = PAGES["practice"]


S = PracticeState()   # declared in workbench.session: the lesson panel reads the score


def _new_exercise() -> None:
    """Another seed of the same family (a button's callback: it runs before the seed's widget is drawn)."""
    S.seed = secrets.randbelow(SEED["hi"] + 1)


def _submit(exercise) -> None:
    text = S.answer[exercise.family, exercise.seed]
    try:
        S.score, _ = (S.score or Score()).attempt(exercise, text)
    except EngineError as exc:
        S.message = public_message(exc)


address_bar.page_head("practice", "Practice",
                "Exercises generated from a seed and checked by the engine's own algorithms, at least one family per "
                "paper (its paper is named under the menu). A wrong answer shows a hint, any answer the worked "
                "solution; the page's link reproduces the exercise.")

left, right = st.columns([1, 3], gap="large")
with left:
    name = widget(SPEC, "family")
    st.caption(FAMILIES[name].paper)
    seed = widget(SPEC, "seed")
    st.button("New exercise", icon=":material/casino:", on_click=_new_exercise, width="stretch", type="primary")

with right:
    try:
        ex = make(name, int(seed))
    except EngineError as exc:
        st.error(public_message(exc))
        st.stop()
    st.header(f"{ex.title} · exercise {ex.seed}", anchor=False)
    st.markdown(ex.prompt)
    tree = exercise_tree(ex)
    if tree is not None:
        asked = asked_vertex(ex)
        chart(tree_figure(tree, height=300, selected=None if asked is None else tree.index(asked)),
              key=S.key("tree"), name=f"practice-{ex.family}-{ex.seed}",
              describe=f"The tree of exercise {ex.seed}: {tree.n:,} vertices, {tree.leaves.size:,} leaves, root "
              f"{tree.name(tree.root)}" + ("." if asked is None else f"; vertex {asked} ringed."))
        if asked is not None:
            st.caption(f"Ringed: vertex {asked}.")
    st.caption(f"Answer format: {ex.answer_format}")
    with st.form(key=S.key("form", ex.family, ex.seed), border=False):   # a fresh, empty box for every exercise
        st.text_input("Your answer", key=S.key("answer", ex.family, ex.seed), placeholder=ex.answer_format.split(";")[0])
        st.form_submit_button("Check", icon=":material/check:", on_click=_submit, args=(ex,))
    bad = S.pop("message")
    tries = (S.score or Score()).of(ex.family, ex.seed)
    last = tries[-1] if tries else None
    if bad:   # the answer just checked could not be read: its warning replaces the verdict on the last one
        st.warning(bad, icon=":material/edit_note:")
    elif last is not None and last.right:
        st.success(f"Right: {last.answer} (attempt {len(tries)}).", icon=":material/check_circle:")
    elif last is not None:
        st.error(f"Not quite: {last.answer} (attempt {len(tries)}). Try again, or read the solution.",
                 icon=":material/cancel:")
    if tries:
        if not last.right:
            st.info(f"**Hint.** {ex.hint}", icon=":material/lightbulb:")
        with st.expander("Worked solution", expanded=last.right or len(tries) >= 2):
            st.markdown(ex.solution)
            st.markdown(f"**Answer:** `{ex.answer_text}`")

    score = S.score or Score()
    st.header("Your score", anchor=False)
    if not score.attempts:
        st.caption("No attempt yet in this session: answer an exercise and press **Check**.")
    else:
        rows = []
        for fam in score.families():
            t = score.tally(fam)
            rows.append({"family": FAMILIES[fam].title, "exercises": t.exercises, "solved": t.solved,
                         "first try": t.first_try, "attempts": t.attempts})
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
