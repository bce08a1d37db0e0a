"""The "SVG", "PDF" and "CSV" buttons under every figure of every page, as a user clicks them,
and every figure's description ("Describe", read aloud: docs/accessibility.md).

Each page runs headless (``AppTest``) into a state that shows its figures; every figure has its
buttons (``workbench.components.export_buttons``), no export is drawn during a rerun (the
files are made only on a click), and the file each button gives -- the callable Streamlit runs on
the click -- is a valid SVG (XML with an ``<svg>`` root), a valid one-page PDF (pypdf) or a CSV
with a header and at least one row. Every figure has a "Describe" expander with its description
(``workbench.components.FigureText``), whose accessible-name half (``<key>-a11y``) is drawn too (a
tree view names itself and draws its own skip link to that expander), and
that description opens with the page's own sentence (``describe=``: what the figure shows, with its
key numbers), not only the words generated from the figure's data.
"""

from __future__ import annotations

import csv
import html
import io
import re

import pytest
from defusedxml import ElementTree
from streamlit.runtime.media_file_manager import MediaFileManager

import workbench.figures.export as export
from workbench.declarations.page_table import PAGES
from workbench.session import ElementState
from workbench import components, treeview
from tests.conftest import open_app_page, open_tab, run_rta_page, tree_views, view_data
from workbench.navigation import script

pypdf = pytest.importorskip("pypdf")

pytestmark = pytest.mark.slow


@pytest.fixture
def downloads(monkeypatch):
    """Every deferred download the pages register (file name -> callable), how many exports were
    drawn (``drawn[0]``), and the page's own sentence each figure was last drawn with (figure key ->
    its ``describe=``)."""
    files: dict = {}
    drawn = [0]
    leads: dict = {}
    text_of = components.FigureText.of.__func__
    view = treeview.tree_view

    def lead_of(cls, fig, *, key, describe="", **kw):
        leads[key] = describe
        return text_of(cls, fig, key=key, describe=describe, **kw)

    def view_with_lead(tree, key, *args, describe="", **kw):
        leads[key] = describe
        return view(tree, key, *args, describe=describe, **kw)

    monkeypatch.setattr(components.FigureText, "of", classmethod(lead_of))
    monkeypatch.setattr(treeview, "tree_view", view_with_lead)   # the pages import it as each run starts
    add = MediaFileManager.add_deferred

    def record(self, fn, mimetype, coordinates, file_name=None, **kw):
        files[file_name] = fn
        return add(self, fn, mimetype, coordinates, file_name=file_name, **kw)

    save = export._save

    def counted(*args, **kw):
        drawn[0] += 1
        return save(*args, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    monkeypatch.setattr(export, "_save", counted)
    return files, drawn, leads


#: Figures drawn as small HTML bars (``workbench.components.bars``: cheaper to redraw on a click
#: than a Plotly chart) whose Plotly figure feeds only their SVG and PDF buttons.
HTML_FIGURES = {"om_bars", "om_work", "bp_bars"}

#: Figures whose page does not yet give them a sentence of its own: Belief Propagation's page is
#: being rewritten on another branch (their generated description is still checked)
NO_LEAD_YET: set[str] = set()   # figures allowed without their page's own first sentence (none)


def check_exports(at, files: dict, drawn: list, leads: dict) -> set[str]:
    """Every figure on the page has its two buttons, nothing was exported during the runs, each
    button's file is valid, and its description opens with the page's own sentence. Returns the
    file names."""
    assert not at.exception, at.exception
    pressed = {str(b.key)[:-len("__download")] for b in at.button if str(b.key).endswith("__download")}
    early = {str(b.key) for b in at.get("download_button") if str(b.key).rsplit("__", 1)[0] in pressed}
    assert not early, f"a figure's files offered before its Download was pressed: {early}"
    for view in tree_views(at):   # a tree view draws its own "Download" (treeview.js) until pressed, then its files
        given = [b for b in at.get("download_button") if str(b.key).startswith(f"{view.key}__")]
        assert view_data(at, str(view.key))["download"] is not bool(given), (view.key, given)
    for _ in range(40):   # each figure's "Download" shows its files (a press each; they stay)
        shows = [b for b in at.button if str(b.key).endswith("__download")]
        views = [str(v.key) for v in tree_views(at) if view_data(at, str(v.key))["download"]]
        if not shows and not views:
            break
        if shows:
            shows[0].click()
        else:   # what the view's button sends (its "download" event) runs this callback
            at.session_state[ElementState(views[0]).key("downloads")] = True
        at.run()
        assert not at.exception, at.exception
    assert drawn[0] == 0, "an export was drawn during a rerun"
    keys = {b.key for b in at.get("download_button")}
    charts = [c.key for c in at.get("plotly_chart")] + [c.key for c in tree_views(at)]
    for key in charts:
        assert {f"{key}__svg", f"{key}__pdf", f"{key}__csv"} <= keys, f"the figure {key!r} lacks an SVG, PDF or CSV button"
    shown = {k[:-5] for k in keys if k.endswith("__svg")}
    assert set(charts) <= shown and shown - set(charts) <= HTML_FIGURES, (shown, charts)
    described = describe_texts(at)
    views = {str(el.key) for el in tree_views(at)}
    described.update({key: view_data(at, key)["desc"] for key in views})   # a view's own "Describe" shows its desc
    labels = {str(el.key) for el in at.get("bidi_component")}
    named = {html.unescape(name).replace("\\", "") for el in at.get("html")   # bars' accessible names
             for name in re.findall(r'role="figure" aria-label="([^"]*)"', el.proto.body)}
    for key in shown:
        assert f"{key}__csv" in keys, f"the figure {key!r} has no CSV button"
        assert len(described.get(key, "")) > 20, f"the figure {key!r} has no description: {described.get(key)!r}"
        if key in views:   # a tree view names itself, draws its own skip link and "Describe" (treeview.js)
            data = view_data(at, key)
            assert data["desc"] and set(data["skip"]) == {"title"}, (key, data.get("skip"))
            assert not [e for e in at.expander if str(e.key) == f"{key}__describe"], f"{key!r}: a second Describe"
            assert data["skip"]["title"] and data["desc"].startswith(data["skip"]["title"]), (key, data["skip"])
            assert f"{key}-a11y" not in labels, f"the tree view {key!r} has a second, needless helper"
        elif key in HTML_FIGURES:   # light bars: named in their own HTML (no Tab stop to skip)
            said = described[key].replace("\\", "")
            assert said in named, (key, said, named)
            assert f"{key}-a11y" not in labels, f"the bars {key!r} have a needless helper"
        else:
            assert f"{key}-a11y" in labels, f"the figure {key!r} has no accessible name"
        if key not in NO_LEAD_YET:
            lead = leads.get(key, "").strip()
            assert lead, f"the figure {key!r} has no description of its own (its page passes no describe=)"
            # the expander shows it first, Markdown's special characters quoted with a backslash
            assert described[key].replace("\\", "").startswith(lead), (key, lead, described[key])
    names = set()
    for name, make in files.items():
        if name.endswith(".svg"):
            root = ElementTree.fromstring(make())
            assert root.tag.endswith("svg"), name
            names.add(name)
        elif name.endswith(".pdf"):
            data = make()
            assert data[:5] == b"%PDF-", name
            assert len(pypdf.PdfReader(io.BytesIO(data)).pages) == 1, name
            names.add(name)
        elif name.endswith(".csv") and name[:-4] + ".svg" in files:   # a figure's (not the page's own CSVs)
            rows = list(csv.reader(io.StringIO(make().decode("utf-8"))))
            assert len(rows) >= 2 and len(rows[0]) >= 3, (name, rows[:3])
            assert all(len(r) == len(rows[0]) for r in rows), name
            names.add(name)
        else:   # the page's own files (a scenario, messages): made here, outside the script run, as served
            assert make(), name
            names.add(name)
    assert len(names) >= 3 * len(shown) > 0, (sorted(names), sorted(shown))
    drawn[0] = 0
    return names


def describe_texts(at) -> dict[str, str]:
    """The text of every figure's "Describe", by the figure's key: a chart's expander, or the
    ``<details>`` that light bars carry in their own HTML (``FigureText.details``; a tree view's is
    drawn by its component from the ``desc`` it is sent)."""
    said = {str(exp.key).removesuffix("__describe"): " ".join(m.value for m in exp.markdown)
            for exp in at.expander if exp.label == "Describe"}
    for el in at.get("html"):
        for key, text in re.findall(r'<details class="fig-describe" data-figure="([^"]*)"><summary>Describe'
                                    r'</summary><p>([^<]*)</p></details>', el.proto.body):
            assert key not in said, f"the figure {key!r} is described twice"
            said[html.unescape(key)] = html.unescape(text)
    return said


def test_tree_studio_exports(downloads):
    at = open_app_page("workbench/pages/tree_studio.py")
    at.selectbox(key="studio_sample").set_value("primates.nwk").run()
    at.button(key="studio_load_sample").click().run()
    assert {"studio_tree.svg", "studio_tree.pdf"} <= check_exports(at, *downloads)
    svg = downloads[0]["studio_tree.svg"]().decode()
    for name in ("Human", "Chimpanzee", "Gorilla"):   # the names are in the drawing, as text
        assert name in svg


def test_cover_inspector_exports(downloads):
    at = open_app_page("workbench/pages/cover_inspector.py")
    at.button(key="cover_preset_Figure 1").click().run()
    got = check_exports(at, *downloads)
    open_tab(at, "cover_tab", "Optimality & best root")
    at.button(key="cover_try_roots").click().run()
    got |= check_exports(at, *downloads)
    for tab in ("Icicle of D", "Height growth"):      # a page computes only its open tab
        got |= check_exports(open_tab(at, "cover_tab", tab), *downloads)
    assert {"cover_tree.svg", "cover_decomposition_tree.pdf", "cover_icicle.svg", "cover_height_growth.pdf",
            "cover_best_root.svg"} <= got


def test_inference_pages_export(downloads):
    at = open_app_page("workbench/pages/online_marginals.py")
    at.button(key="om_observe").click().run()
    open_tab(at, "om_tools", True)   # "Save scenario" is drawn with the tools, when they are open
    assert {"om_tree.svg", "om_d.pdf", "marginal.pdf", "work.svg", "posterior_minus_prior.pdf", "scenario.json"} <= \
        check_exports(at, *downloads)
    downloads[0].clear()
    at.switch_page("workbench/pages/belief_propagation.py").run()
    at.slider(key="bp_messages").set_value(at.slider(key="bp_messages").max).run()
    got = check_exports(at, *downloads)
    for tab in ("Parallel schedule", "Elimination order"):   # a page computes only its open tab
        got |= check_exports(open_tab(at, "bp_tab", tab), *downloads)
    assert {"bp_sequential.svg", "bp_parallel.pdf", "bp_convergence.svg", "bp_elimination.pdf"} <= got


def test_tree_hedge_exports(downloads):
    at = open_app_page("workbench/pages/tree_hedge.py")
    at.number_input(key="hedge_trials").set_value(300)
    at.button(key="FormSubmitter:hedge_setup-Run TREE-HEDGE").click().run()
    assert {f"hedge_{fig}.{fmt}" for fig in ("curves", "heat", "regret_tree", "action_tree") for fmt in ("svg", "pdf")} \
        <= check_exports(at, *downloads)


def test_ofde_exports(downloads):
    at = open_app_page("workbench/pages/ofde.py")
    at.slider(key="ofde_vars").set_value(6)
    at.select_slider(key="ofde_train").set_value(500)
    at.button(key="ofde_run").click().run()
    assert {"ofde_learning_curve.svg", "ofde_forest.pdf", "ofde_chow_liu.svg", "ofde_round_time.pdf"} <= \
        check_exports(at, *downloads)


def test_bhtmm_exports(downloads):
    at = open_app_page("workbench/pages/bhtmm.py", timeout=180)
    at.radio(key="bhtmm_model").set_value("tf")
    at.slider(key="bhtmm_states").set_value(3)
    at.slider(key="bhtmm_iterations").set_value(3)
    at.slider(key="bhtmm_synthetic").set_value(5)
    at.button[0].click().run()
    assert {"bhtmm_cm.svg", "bhtmm_ll.pdf", "bhtmm_tree_1.svg"} <= check_exports(at, *downloads)


def test_rta_exports(downloads):
    at = run_rta_page(examples=80, folds=2, passes=3, trees=3)
    assert {"rta_exact_fraction.svg", "rta_label_pairs.pdf", "rta_spanning_trees.svg", "rta_training.pdf"} <= \
        check_exports(at, *downloads)


def test_runs_exports(downloads, db):
    from tests.test_runs_page import seed_runs

    seed_runs(db)
    at = open_app_page("workbench/pages/runs.py")
    at.multiselect(key="runs_chosen").set_value([1, 2]).run()
    metric = at.selectbox(key="runs_metric").value
    assert {"runs_estimate.svg", f"runs_{metric}.pdf"} <= check_exports(at, *downloads)


def test_reproduce_exports(downloads, db):
    at = open_app_page("workbench/pages/reproduce.py", timeout=300)
    at.radio(key="repro_paper").set_value("cover").run()
    at.button[0].click().run()
    assert any(key.startswith("repro_fig_") for key in (c.key for c in at.get("plotly_chart")))
    assert any(name.startswith("cover-") and name.endswith(".svg") for name in check_exports(at, *downloads))


def test_every_page_as_it_opens(downloads):
    """Every page of the navigation, as it opens: each figure it shows has its buttons and its
    description (the pages above are also checked after their main action)."""
    for spec in PAGES.values():
        at = open_app_page(script(spec), timeout=240)
        if at.get("plotly_chart") or tree_views(at):
            check_exports(at, *downloads)
        else:
            assert not at.exception, (spec.url_path, at.exception)
        downloads[0].clear()


def test_no_download_button_reruns_the_page():
    """Every ``st.download_button`` of the app says ``on_click="ignore"``: a click that reran the
    page would end the hold that keeps the file it made until the browser has it
    (``workbench.serve.lasting_downloads``), and redraw the page for nothing."""
    import ast
    from pathlib import Path

    rerunning = []
    for path in sorted((Path(__file__).resolve().parents[1] / "workbench").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "download_button":
                click = next((k.value for k in node.keywords if k.arg == "on_click"), None)
                if not (isinstance(click, ast.Constant) and click.value == "ignore"):
                    rerunning.append(f"{path.name}:{node.lineno}")
    assert not rerunning, rerunning
