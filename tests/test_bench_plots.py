"""The dependency-free SVG line plot used by the benchmarks (benchmarks/plots.py)."""

import math
import xml.etree.ElementTree as ET

import pytest

from benchmarks.plots import PALETTE, line_plot, write_svg

NS = "{http://www.w3.org/2000/svg}"


def _polylines(svg):
    root = ET.fromstring(svg)
    return [[tuple(map(float, p.split(","))) for p in el.get("points").split()] for el in root.iter(f"{NS}polyline")]


def test_well_formed_with_title_labels_and_legend():
    svg = line_plot({"a": ([1, 2, 3], [1, 4, 9]), "b <&>": ([1, 3], [2, 2])}, title="growth", xlabel="n",
                    ylabel="s")
    root = ET.fromstring(svg)  # parses: names are escaped
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert "growth" in texts and "n" in texts and "s" in texts and "b <&>" in texts
    assert PALETTE[0] in svg and PALETTE[1] in svg


def test_points_are_placed_monotonically_in_svg_coordinates():
    (line,) = _polylines(line_plot({"a": ([1, 10, 100], [1, 10, 100])}, logx=True, logy=True))
    xs, ys = zip(*line)
    assert xs[0] < xs[1] < xs[2] and ys[0] > ys[1] > ys[2]  # SVG y grows downwards
    # equal decades are equal distances on log axes
    assert math.isclose(xs[1] - xs[0], xs[2] - xs[1], rel_tol=1e-3)
    assert math.isclose(ys[0] - ys[1], ys[1] - ys[2], rel_tol=1e-3)


def test_log_axis_ticks_are_powers_of_ten():
    svg = line_plot({"a": ([1e3, 1e6], [0.5, 50])}, logx=True, logy=True)
    texts = [t.text for t in ET.fromstring(svg).iter(f"{NS}text")]
    assert "1000" in texts and "10^6" in texts and "1" in texts and "100" in texts


def test_unusable_points_are_skipped_not_clamped():
    (line,) = _polylines(line_plot({"a": ([1, 2, 3, 4], [1, float("nan"), -1, 8])}, logy=True))
    assert len(line) == 2


def test_nothing_to_plot_is_an_error():
    with pytest.raises(ValueError, match="no series"):
        line_plot({"a": ([1], [0])}, logy=True)


def test_write_svg_creates_folders(tmp_path):
    p = write_svg(tmp_path / "x" / "y.svg", line_plot({"a": ([0, 1], [0, 1])}))
    assert p.read_text().startswith("<svg")
