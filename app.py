"""Tree Inference Workbench: builds the navigation and runs the chosen page (nothing heavy here)."""

import streamlit as st

from workbench.navigation import build_navigation
from workbench.state import render_sidebar

st.set_page_config(page_title="Tree Inference Workbench", page_icon=":material/account_tree:", layout="wide")
page = build_navigation()
render_sidebar()
page.run()
