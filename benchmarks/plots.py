"""The benchmarks' SVG line plot: :mod:`engine.svgplot` (the reproduction reports draw with it too)."""

from engine.svgplot import PALETTE, line_plot, write_svg

__all__ = ["PALETTE", "line_plot", "write_svg"]
