"""Plotly figures of the workbench."""
