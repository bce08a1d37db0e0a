"""Every figure in words and as a table (``workbench.figures.describe``): the description names
what the figure shows and carries its key numbers, read off the figure's own data; the CSV holds
the same data, one row per point."""

from __future__ import annotations

import csv
import io

import numpy as np
import plotly.graph_objects as go

from engine.trees import Tree
from workbench.components import as_spec
from workbench.figures.describe import describe_figure, figure_csv, number, rows_csv, tree_rows
from workbench.figures.tree_figure import tree_figure


def rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_a_curve_says_its_name_range_extremes_and_last_value():
    fig = go.Figure(go.Scatter(x=[1, 10, 100], y=[0.5, 0.125, 0.25], mode="lines", name="regret"))
    fig.update_layout(title="Regret <i>per round</i>", xaxis_title="round t", yaxis_title="L<sub>T</sub>")
    text = describe_figure(fig)
    assert text.startswith("Line chart: Regret per round.")
    assert "X axis round t; y axis L_T." in text
    assert "regret: 3 points, x from 1 to 100, y from 0.125 to 0.5, last 0.25 at x = 100." in text
    got = rows(figure_csv(fig))
    assert got[0] == ["trace", "x", "y", "value", "text"]
    assert got[1:] == [["regret", "1", "0.5", "", ""], ["regret", "10", "0.125", "", ""], ["regret", "100", "0.25", "", ""]]


def test_missing_values_are_skipped_and_a_lead_comes_first():
    fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[np.nan, 3.0, 2.0], mode="lines+markers", name="error"))
    text = describe_figure(fig, "Step 2 of 8.")
    assert text.startswith("Step 2 of 8. Line chart.")
    assert "error: 2 points, x from 1 to 2, y from 2 to 3, last 2 at x = 2." in text


def test_few_bars_are_listed_many_bars_give_their_extremes():
    few = go.Figure(go.Bar(x=["label 0", "label 1"], y=[0.73, 0.27], name="posterior"))
    assert "posterior: 2 bars: label 0 = 0.73, label 1 = 0.27." in describe_figure(few)
    many = go.Figure(go.Bar(x=[f"v{i}" for i in range(20)], y=np.arange(20) % 7, name="count"))
    assert "count: 20 bars, highest v6 = 6, lowest v0 = 0." in describe_figure(many)
    h = go.Figure(go.Bar(y=["online", "BP"], x=[12, 300], orientation="h"))
    assert "2 bars: online = 12, BP = 300." in describe_figure(h)
    assert len(rows(figure_csv(many))) == 21


def test_a_heat_map_gives_its_size_range_and_largest_cell():
    z = [[0.1, 0.9, 0.2], [0.4, 0.3, 0.0]]
    fig = go.Figure(go.Heatmap(z=z, x=["a", "b", "c"], y=["t1", "t2"], colorbar=dict(title="weight")))
    text = describe_figure(fig)
    assert text.startswith("Heat map.")
    assert "2 × 3 grid of weight, values from 0 to 0.9; largest at row t1, column b." in text
    got = rows(figure_csv(fig))
    assert len(got) == 1 + 6 and ["series 1", "b", "t1", "0.9", ""] in got


def test_a_tree_figure_names_its_vertices_and_colours_not_its_edges_or_rings():
    tree = Tree.from_named_edges([("1", "2"), ("1", "3"), ("3", "4")])
    fig = tree_figure(tree, color=[0.73, 0.5, 0.25, 1.0], selected=2, title="Marginals",
                      colorbar_title="P(label 0)")
    text = describe_figure(fig, "Vertex 3 selected, P(x₃) = [0.25, 0.75].")
    assert text.startswith("Vertex 3 selected, P(x₃) = [0.25, 0.75]. Tree drawing: Marginals.")
    assert "4 vertices; colour (P(label 0)) from 0.25 to 1: 1 = 0.73, 2 = 0.5, 3 = 0.25, 4 = 1." in text
    assert "edges" not in text and "highlight" not in text and "axis" not in text
    got = rows(figure_csv(fig))
    assert len(got) == 1 + 4 and [r[3] for r in got[1:]] == ["0.73", "0.5", "0.25", "1"]
    assert [r[4] for r in got[1:]] == ["1", "2", "3", "4"]


def test_a_packed_spec_reads_as_its_figure():
    """Specs carry their long arrays packed as base64 float32 (``as_spec``): read the same."""
    x = np.arange(100.0)
    fig = go.Figure(go.Scatter(x=x, y=x / 2, mode="lines", name="half"))
    spec = as_spec(fig)
    assert isinstance(spec["data"][0]["y"], dict)   # packed
    assert "half: 100 points, x from 0 to 99, y from 0 to 49.5, last 49.5 at x = 99." in describe_figure(spec)
    assert len(rows(figure_csv(spec))) == 101


def test_an_icicle_counts_its_boxes():
    fig = go.Figure(go.Icicle(labels=["D", "a", "b"], parents=["", "D", "D"], values=[2, 1, 1]))
    assert "3 nested boxes, the outermost D." in describe_figure(fig)
    assert rows(figure_csv(fig))[1:] == [["series 1", "D", "", "2", ""], ["series 1", "a", "D", "1", ""],
                                         ["series 1", "b", "D", "1", ""]]


def test_tree_rows_give_each_vertex_its_parent_value_ring_and_selection():
    tree = Tree.from_named_edges([("r", "a"), ("r", "b"), ("b", "c")])
    header, body = tree_rows(tree, values=[0.5, 0.25, 1.0, np.nan], value_title="P(label 0)", rings=[2],
                             selected=1)
    got = rows(rows_csv(header, body))
    assert got[0] == ["vertex", "parent", "depth", "P(label 0)", "ringed", "selected"]
    by_name = {r[0]: r for r in got[1:]}
    assert by_name["r"] == ["r", "", "0", "0.5", "0", "0"]
    assert by_name[tree.name(1)][5] == "1" and by_name[tree.name(2)][4] == "1"
    assert by_name["c"][1:3] == ["b", "2"]


def test_numbers_read_short():
    assert [number(v) for v in (1000, 0.73, 2.22e-16, 1234567.0, float("nan"))] == \
        ["1,000", "0.73", "2.220e-16", "1,234,567", "missing"]
