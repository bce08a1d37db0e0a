"""The menu of the app: its pages in order, grouped by section, built from the page table
(:data:`workbench.declarations.page_table.PAGES`, one spec per page); a page's Streamlit script is
``workbench/pages/<url_path>.py``. Three names, three things: the page table declares, the scripts
draw, the menu (this module) lists."""

from __future__ import annotations

import copy

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from workbench.declarations.page_spec import PageSpec, PageTable
from workbench.declarations.page_table import PAGES

__all__ = ["build_navigation", "menu", "script"]

#: Where the pages' scripts are, relative to ``app.py``.
PAGES_FOLDER = "workbench/pages"


def script(page: PageSpec) -> str:
    """The Streamlit script of ``page``, relative to ``app.py``."""
    return f"{PAGES_FOLDER}/{page.url_path}.py"


def menu(pages: PageTable = PAGES) -> dict[str, list[dict]]:
    """The menu: section -> the ``st.Page`` arguments of its pages, in order (the default page
    is served at ``/``, the others at ``/url_path``)."""
    sections: dict[str, list[dict]] = {}
    for page in pages.values():
        default = page.url_path == pages.default
        sections.setdefault(page.section, []).append(
            {"page": script(page), "title": page.title, "icon": page.icon, "default": default,
             **({} if default else {"url_path": page.url_path})})
    return sections


_MADE: dict[str, dict] = {}   # the app's folder -> its menu of st.Page objects, made once


def _made(pages: PageTable) -> dict[str, list]:
    return {section: [st.Page(**entry) for entry in entries] for section, entries in menu(pages).items()}


def build_navigation(pages: PageTable = PAGES):
    """The navigation of ``pages``. The app's own menu is made of ``st.Page`` objects made once
    per process (one resolves and checks its script file: a dozen file checks on every run) and
    copied for each run (``st.navigation`` marks the copy of the page it runs)."""
    ctx = get_script_run_ctx()
    if pages is not PAGES or ctx is None:
        return st.navigation(_made(pages))
    folder = str(ctx.pages_manager.main_script_parent)
    made = _MADE.get(folder)
    if made is None:
        made = _MADE[folder] = _made(pages)
    return st.navigation({section: [copy.copy(page) for page in entries] for section, entries in made.items()})
