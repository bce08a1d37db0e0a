"""Every page of the navigation runs headless without an exception (streamlit AppTest)."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import open_app_page
from workbench.declarations.page_table import PAGES
from workbench.navigation import script


def open_page(path: str, timeout: float = 180) -> AppTest:  # a cold numba cache compiles on the first visit
    return open_app_page(path, timeout=timeout)


@pytest.mark.parametrize("path", [script(p) for p in PAGES.values()], ids=[p.title for p in PAGES.values()])
def test_page_runs(path):
    at = open_page(path)
    assert not at.exception, at.exception


def test_the_sidebar_says_the_current_tree_in_one_element():
    """The sidebar's current tree (its heading, where it comes from, its size and root) is one
    Markdown element, with a file name that is Markdown or HTML shown as its text; "Copy link", the
    link and the note that this tree cannot travel in a link are one HTML element."""
    from engine.trees.model import Tree

    hostile = "my *bold* ]file[ `x` <b>.csv"
    tree = Tree.from_edges([(0, 1), (0, 2), (1, 3)], names=["r", "a", "b_c*", "d"])
    at = open_app_page(script(PAGES["tree_studio"]), state={"tree": tree, "tree_source": hostile, "tree_link": ""})
    assert not at.exception, at.exception
    said = [m.value for m in at.sidebar.markdown if "Current tree" in m.value]
    assert len(said) == 1, [m.value for m in at.sidebar.markdown]
    text = said[0]
    assert "4 vertices · 2 leaves · root **r**" in text, text
    assert r":small[my \*bold\* \]file\[ \`x\` \<b\>\.csv]" in text, text
    links = [h.proto.body for h in at.sidebar.html if "tw-copy-link" in h.proto.body]
    assert len(links) == 1, len(links)
    assert '<p class="tw-link-note">Link to this view: <code>/tree_studio</code></p>' in links[0], links[0]
    assert "The current tree (4 vertices, my *bold* ]file[ `x` &lt;b&gt;.csv) is too large to travel" in links[0]
    assert "<b>" not in links[0]
