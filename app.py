"""Tree Inference Workbench: builds the navigation and runs the chosen page (nothing heavy here).

Before the page: the link's tree (``?tree=``) becomes the current tree, the link's lesson opens
in the sidebar; after it, the address is brought up to date with the view (``workbench.address_bar``).
"""

from pathlib import Path

import streamlit as st

from engine.db import DatabaseUnavailableError
from workbench import address_bar
from workbench.declarations.page_table import PAGES
from workbench.lesson_panel import follow_query, render_panel
from workbench.navigation import build_navigation
from workbench.state import render_sidebar

# a local icon: a ":material/...:" page icon is fetched from an outside host, which a classroom
# without internet answers with a broken request
ICON = Path(__file__).resolve().parent / "workbench" / "assets" / "favicon.png"
st.set_page_config(page_title="Tree Inference Workbench", page_icon=str(ICON), layout="wide")
page = build_navigation()
schema = PAGES.page(page.url_path or "/")
address_bar.tree_from_query(schema.url_path)
follow_query(schema)
render_sidebar()
with st.sidebar:
    link_slot = st.empty()   # "Copy link": drawn now, drawn again once the page has run
address_bar.copy_link_button(schema.url_path, link_slot)
show = render_panel(schema)   # False: the lecturer's console, or a student waiting for the lecturer
try:
    if show:
        page.run()
except DatabaseUnavailableError as exc:  # the shared database is away (restarting): one line, the next click retries
    st.error(f"{exc}. Try again in a moment.")
address_bar.write_query(schema.url_path)
address_bar.copy_link_button(schema.url_path, link_slot)
