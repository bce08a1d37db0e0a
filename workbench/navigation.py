"""The pages of the app, in menu order, grouped by section."""

from __future__ import annotations

import streamlit as st

__all__ = ["PAGES", "build_navigation", "url_path"]

#: (section, script path relative to app.py, title, icon)
PAGES = [
    ("Start", "workbench/pages/lessons.py", "Lessons", ":material/school:"),
    ("Trees", "workbench/pages/tree_studio.py", "Tree Studio", ":material/park:"),
    ("Trees", "workbench/pages/cover_inspector.py", "Cover Inspector", ":material/account_tree:"),
    ("Inference", "workbench/pages/online_marginals.py", "Online Marginals", ":material/bolt:"),
    ("Inference", "workbench/pages/belief_propagation.py", "Belief Propagation", ":material/swap_horiz:"),
    ("Learning", "workbench/pages/tree_hedge.py", "TREE-HEDGE", ":material/call_split:"),
    ("Learning", "workbench/pages/ofde.py", "OFDE vs Chow-Liu", ":material/scatter_plot:"),
    ("Learning", "workbench/pages/rta.py", "RTA Multilabel", ":material/label:"),
    ("Learning", "workbench/pages/bhtmm.py", "Hidden Tree Markov Models", ":material/schema:"),
    ("Runs", "workbench/pages/runs.py", "Runs", ":material/history:"),
    ("Runs", "workbench/pages/reproduce.py", "Reproduce", ":material/fact_check:"),
]


def url_path(script: str) -> str:
    """The page's address: ``/`` for the first (default) page, else the script's stem."""
    if script == PAGES[0][1]:
        return ""
    return script.rsplit("/", 1)[-1].removesuffix(".py")


def build_navigation():
    sections: dict[str, list] = {}
    for i, (section, path, title, icon) in enumerate(PAGES):
        page = st.Page(path, title=title, icon=icon, default=(i == 0),
                       **({} if i == 0 else {"url_path": url_path(path)}))
        sections.setdefault(section, []).append(page)
    return st.navigation(sections)
