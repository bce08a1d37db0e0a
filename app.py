"""Tree Inference Workbench: builds the navigation and runs the chosen page (nothing heavy here)."""

from pathlib import Path

import streamlit as st

from workbench.navigation import build_navigation
from workbench.state import render_sidebar

# a local icon: a ":material/...:" page icon is fetched from an outside host, which a classroom
# without internet answers with a broken request
ICON = Path(__file__).resolve().parent / "workbench" / "assets" / "favicon.png"
st.set_page_config(page_title="Tree Inference Workbench", page_icon=str(ICON), layout="wide")
page = build_navigation()
render_sidebar()
page.run()
