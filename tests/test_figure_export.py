"""SVG and PDF of every figure, drawn on the server without a browser: valid SVG (parsed as XML)
and valid PDF (parsed with pypdf), with the figure's words in them."""

from __future__ import annotations

import functools
import io

import plotly.graph_objects as go
import pytest
from defusedxml import ElementTree

from tests.figure_gallery import NAMES, figure_makers
from workbench.figures.export import figure_pdf, figure_svg, to_mathtext
from workbench.figures.style import Style, plain_text

pypdf = pytest.importorskip("pypdf")


@functools.cache
def _figure(scheme: str, name: str):
    """The gallery's figure ``name`` in the light or dark style, drawn once per test process."""
    return figure_makers(Style(scheme))[name]()


def _words(fig) -> list[str]:
    """A few plain words the figure shows (its title, else a trace name)."""
    title = fig.layout.title.text if fig.layout.title else None
    texts = [str(x) for t in fig.data if "text" in (getattr(t, "mode", "") or "") and t.text is not None
             for x in t.text]
    cands = [title] + texts
    return [plain_text(c).split()[0] for c in cands if c and plain_text(c).split()
            and plain_text(c).split()[0].isalpha()][:1]


@pytest.mark.parametrize("name", NAMES)
def test_svg_export_is_valid_svg(name):
    svg = figure_svg(_figure("light", name))
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    assert float(root.get("width").removesuffix("pt")) > 100
    text = " ".join(t for t in root.itertext())
    for w in _words(_figure("light", name)):
        assert w in text, (name, w)


@pytest.mark.parametrize("name", NAMES)
def test_pdf_export_is_valid_pdf(name):
    pdf = figure_pdf(_figure("dark", name))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 1
    page = reader.pages[0]
    assert float(page.mediabox.width) > 100
    text = page.extract_text()
    for w in _words(_figure("dark", name)):
        assert w in text, (name, w)


def test_primates_export_keeps_every_name():
    fig = _figure("light", "tree_primates")
    names = [str(t) for t in fig.data[1].text]
    svg_text = " ".join(ElementTree.fromstring(figure_svg(fig)).itertext())
    pdf_text = pypdf.PdfReader(io.BytesIO(figure_pdf(fig))).pages[0].extract_text()
    for nm in names:
        assert nm in svg_text and nm in pdf_text, nm


def test_superscripts_are_exported_as_superscripts():
    assert to_mathtext("S<sup>4</sup>") == "S$^{4}$"
    assert to_mathtext("M<sub>1</sub> (mergeable)") == "M$_{1}$ (mergeable)"
    assert to_mathtext("cost $5 <b>now</b>") == r"cost \$5 now"
    assert to_mathtext("S<sup>10|11</sup>") == "S$^{10|11}$"


def test_an_unknown_trace_type_is_refused_by_name():
    with pytest.raises(ValueError, match="pie"):
        figure_svg(go.Figure(go.Pie(values=[1, 2])))


def test_hostile_text_exports():
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="markers+text",
                               text=["$\\x{}_^%&#<br>", "<sup>unclosed"], name="a_b^c $"))
    ElementTree.fromstring(figure_svg(fig))
    pypdf.PdfReader(io.BytesIO(figure_pdf(fig)))
