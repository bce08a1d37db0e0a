"""AppTests of the lessons in the app: the landing page, the panel beside the page (step through,
check and reveal), a bad lesson file, and the Belief Propagation page's numbers against the engine."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.inference.belief_propagation import belief_propagation
from engine.inference.messages import message_work
from tests.conftest import ROOT
from workbench.declarations.lessons import load_lessons
from workbench.declarations.page_table import PAGES
from workbench.declarations.tree_text import tree_from_link
from workbench.navigation import script

parse_link = PAGES.parse_link


def bp_model(values, tree):
    """The Belief Propagation page's model of ``values`` (its spec's run configuration)."""
    return PAGES["belief_propagation"].run_config(values).model(tree)

APP = str(ROOT / "app.py")


def _app(folder=None, monkeypatch=None) -> AppTest:
    if folder is not None:
        monkeypatch.setenv("TREE_WORKBENCH_LESSONS", str(folder))
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def _button(at, key):
    return next(b for b in at.button if b.key == key)


def _progress(at) -> str:
    return " ".join(p.proto.text for p in at.get("progress") if p.proto.text.startswith("Step "))


def _sidebar_text(at) -> str:
    return "\n".join(m.value for m in at.sidebar.markdown)


def test_landing_page_lists_every_lesson():
    at = _app()
    lessons, errors = load_lessons()
    assert not errors
    shown = [s.value for s in at.header]
    assert shown == [x.title for x in lessons]
    captions = " ".join(c.value for c in at.caption)
    for x in lessons:
        assert f"{x.minutes} minutes · {len(x.steps)} steps" in captions
    assert not at.error


def test_start_then_next_and_previous_move_the_page_with_the_panel():
    lesson = next(x for x in load_lessons()[0] if x.id == "first_class")
    at = _app()
    _button(at, "lesson_start_first_class").click().run()
    assert not at.exception, at.exception
    n = len(lesson.steps)
    for k in range(1, n + 1):
        step = lesson.steps[k - 1]
        link = parse_link(step.url)
        assert _progress(at).startswith(f"Step {k} of {n}")
        assert f"## {step.title}" in _sidebar_text(at)
        assert at.title[0].value == link.page.title, (k, step.url)
        # the address holds the step's link (values equal to the page's defaults are left out)
        assert at.query_params["lesson"] == ["first_class"] or at.query_params["lesson"] == "first_class"
        for name, text in link.raw.items():
            if name == "tree" or link.values.get(name) == link.page.setting(name).default:
                continue
            got = at.query_params.get(name)
            got = got[0] if isinstance(got, list) else got
            assert got == text, (k, name, got, text)
        assert not at.error, (k, [e.value for e in at.error])
        if k < n:
            _button(at, "lesson_next").click().run()
            assert not at.exception, (k, at.exception)
    _button(at, "lesson_prev").click().run()
    assert _progress(at).startswith(f"Step {n - 1} of {n}")
    _button(at, "lesson_close").click().run()
    assert not _progress(at)


def test_the_answer_shows_only_after_reveal_or_a_right_answer():
    lesson = next(x for x in load_lessons()[0] if x.id == "belief_propagation")
    q = lesson.steps[0].question
    assert q is not None and q.kind == "number"
    at = _app()
    _button(at, "lesson_start_belief_propagation").click().run()
    assert "**Question.**" in _sidebar_text(at)
    assert "**Answer:**" not in _sidebar_text(at)
    box = next(t for t in at.sidebar.text_input if t.key == "lesson_q_belief_propagation_1")
    box.set_value("63").run()
    _button(at, "lesson_check").click().run()
    assert any("Not quite" in w.value for w in at.sidebar.warning)
    assert "**Answer:**" not in _sidebar_text(at)
    box = next(t for t in at.sidebar.text_input if t.key == "lesson_q_belief_propagation_1")
    box.set_value(q.answer).run()
    _button(at, "lesson_check").click().run()
    assert any(s.value == "Right." for s in at.sidebar.success)
    assert f"**Answer:** {q.answer}" in _sidebar_text(at)
    # the next step's question is asked afresh; Reveal shows its answer
    _button(at, "lesson_next").click().run()
    q2 = lesson.steps[1].question
    assert "**Answer:**" not in _sidebar_text(at)
    _button(at, "lesson_reveal").click().run()
    assert f"**Answer:** {q2.answer}" in _sidebar_text(at)


BAD = """---
title: A lesson with a mistake
minutes: 5
audience: testers
---
Intro.

## A step on a page that does not exist
state: /no_such_page?tree=path:5

Look at the page.
"""


def test_a_bad_lesson_file_gives_one_line_naming_file_and_line_and_the_others_load(tmp_path, monkeypatch):
    for p in (ROOT / "lessons").glob("*.md"):
        (tmp_path / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "broken.md").write_text(BAD, encoding="utf-8")
    at = _app(tmp_path, monkeypatch)
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    assert errors[0].startswith("broken.md:9:"), errors[0]
    assert "no_such_page" in errors[0] and "\n" not in errors[0]
    assert str(tmp_path) not in errors[0]          # no server path on the page
    assert len(at.header) == len(load_lessons()[0])


def test_the_lesson_files_are_looked_at_once_a_second_and_a_change_is_read(tmp_path, monkeypatch):
    """workbench.lesson_panel.all_lessons: a page asks for the lessons up to three times a run; the
    files' sizes and times are looked at once per STAMP_SECONDS, and a changed file is read again
    after that."""
    from workbench import lesson_panel

    src = next((ROOT / "lessons").glob("*.md"))
    (tmp_path / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("TREE_WORKBENCH_LESSONS", str(tmp_path))
    looks = []
    real = lesson_panel.lesson_files
    monkeypatch.setattr(lesson_panel, "lesson_files", lambda folder: looks.append(folder) or real(folder))
    monkeypatch.setattr(lesson_panel, "STAMP_SECONDS", 3600.0)   # the two calls within it, however slow
    first = lesson_panel.all_lessons()[0]
    assert lesson_panel.all_lessons()[0] is first and len(looks) == 1
    text = (tmp_path / src.name).read_text(encoding="utf-8")
    (tmp_path / src.name).write_text(text.replace("title: ", "title: Changed: ", 1), encoding="utf-8")
    monkeypatch.setattr(lesson_panel, "STAMP_SECONDS", 0.0)
    again = lesson_panel.all_lessons()[0]
    assert len(looks) == 2 and again[0].title.startswith("Changed: ") and not first[0].title.startswith("Changed")


def test_a_link_to_an_unknown_lesson_is_one_warning(monkeypatch):
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["lesson"] = "no_such_lesson"
    at.run()
    assert not at.exception, at.exception
    assert any("no_such_lesson" in w.value for w in at.warning)
    assert not _progress(at)


@pytest.mark.parametrize("query", ["tree=lecture_5_vertices&evidence=4=1",
                                   "network=weather&evidence=Rain=yes,Traffic=jammed"])
def test_bp_page_messages_and_marginals_equal_the_engines(query):
    """The page's table of the messages sent, and its marginals, against engine BP on the model of
    the same link (hard evidence included)."""
    link = parse_link("/belief_propagation?" + query)
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(script(link.page))
    at.query_params.clear()
    for name, text in link.raw.items():      # the address of a link opened on that page
        at.query_params[name] = text
    at.run()
    assert not at.exception, at.exception
    total = at.slider(key="bp_messages").max
    at.slider(key="bp_messages").set_value(total).run()
    assert not at.exception, at.exception
    # an independent model of the same link, built from the engine alone
    tree = None if "network" in link.raw else tree_from_link(link.raw["tree"])
    ref = bp_model(link.values, tree)
    tree = ref.tree
    evidence = link.values["evidence"]
    exact = belief_propagation(tree, ref.node_potentials, ref.edge_potentials, k=ref.k)
    work = message_work(tree, ref.node_potentials, ref.edge_potentials, k=ref.k, result=exact)
    tables = [d.value for d in at.dataframe]
    sent = next(v for v in tables if "from" in v.columns)
    assert len(sent) == len(work) == 2 * (tree.n - 1)
    for row, w in zip(sent.itertuples(index=False), work):
        assert (row[2], row[3]) == (tree.name(w.sender), tree.name(w.receiver))
        got = np.array(row[4:4 + ref.k], dtype=float)
        np.testing.assert_allclose(got, w.message[:ref.k], rtol=1e-12, atol=1e-15)
    marg = next(v for v in tables if "P(label 0)" in v.columns)
    np.testing.assert_allclose(marg.to_numpy(dtype=float), exact.marginals, rtol=1e-12, atol=1e-15)
    assert evidence
    for name, label in evidence.items():     # hard evidence: that label has probability one
        states = ref.states[tree.index(name)] if ref.states is not None else None
        col = states.index(label) if states is not None else int(label)
        assert marg.loc[name].iloc[col] == pytest.approx(1.0, rel=1e-12)


def test_bp_page_set_and_clear_evidence_with_the_buttons():
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("workbench/pages/belief_propagation.py")
    at.query_params.clear()
    at.query_params["tree"] = "lecture_5_vertices"
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="bp_ev_label").set_value(1)
    _button(at, "bp_ev_set").click().run()      # at the selected vertex: the root, 1
    assert not at.exception, at.exception
    assert at.query_params["evidence"] in ("1=1", ["1=1"])
    tree = tree_from_link("lecture_5_vertices")
    ref = bp_model({"evidence": {"1": 1}}, tree)
    exact = belief_propagation(tree, ref.node_potentials, ref.edge_potentials, k=ref.k)
    np.testing.assert_allclose(at.session_state["bp_model"].node_potentials, ref.node_potentials, rtol=0, atol=0)
    assert "P(x₁ | evidence)** = \\[0.0000, 1.0000\\]" in "\n".join(m.value for m in at.markdown)
    assert exact.marginals[0, 1] == pytest.approx(1.0)
    _button(at, "bp_ev_clear").click().run()
    assert "evidence" not in at.query_params


def _open_link(link_text: str) -> AppTest:
    """The app as a browser opening ``link_text`` (a page's address and query)."""
    link = parse_link(link_text)
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page(script(link.page))
    at.query_params.clear()
    for name, text in link.raw.items():
        at.query_params[name] = text
    at.run()
    assert not at.exception, (link_text, at.exception)
    return at


def _address(at) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


TREE_PAGES = [p for p in PAGES.values() if p.uses_tree]


@pytest.mark.parametrize("schema", TREE_PAGES, ids=[p.url_path for p in TREE_PAGES])
def test_a_tree_link_opens_every_page_on_that_tree_and_stays_in_the_address(schema):
    at = _open_link(f"/{schema.url_path}?tree=path:7")
    assert "7 vertices" in "\n".join(m.value for m in at.sidebar.markdown)
    assert _address(at).get("tree") == "path:7"
    at.run()                                     # a rerun (as after a click) keeps the view
    assert _address(at).get("tree") == "path:7" and not at.exception


# one link per page with settings away from the defaults: the page reads them and writes them back
SETTINGS = ["/tree_studio?tree=path:7&vertex=3",
            "/cover_inspector?tree=figure1&root=1&t=2&vertex=5",
            "/online_marginals?tree=path:31&k=3&vertex=7",
            "/belief_propagation?tree=lecture_5_vertices&k=3&coupling=-0.5&seed=4&messages=5",
            "/tree_hedge?tree=random:30:2&k=4&trials=500",
            "/ofde?data=synthetic&vars=8&train=1000",
            "/rta?data=synthetic&examples=200&labels=5&trees=7",
            "/bhtmm?source=synthetic&task=label&model=sp"]


@pytest.mark.parametrize("link_text", SETTINGS, ids=[s.split("?")[0].strip("/") for s in SETTINGS])
def test_every_page_reads_its_settings_from_the_address_and_writes_them_back(link_text):
    link = parse_link(link_text)
    at = _open_link(link_text)
    assert not [w.value for w in at.warning if "link" in w.value.lower()]
    got = _address(at)
    for name, text in link.raw.items():        # a value equal to the page's default is left out
        want = None if link.values[name] == link.page.setting(name).default else text
        assert got.get(name) == want, (name, got.get(name), text)
    assert [n for n in link.raw if n != "tree" and got.get(n) is not None]   # the link is not all defaults


def test_bp_page_soft_evidence_multiplies_phi_and_zero_weights_are_refused():
    at = _open_link("/belief_propagation?tree=lecture_5_vertices&vertex=4")
    at.radio(key="bp_ev_kind").set_value("soft").run()
    at.number_input(key="bp_soft_0").set_value(0.2)
    at.number_input(key="bp_soft_1").set_value(0.8).run()
    _button(at, "bp_ev_set").click().run()
    assert not at.exception, at.exception
    assert _address(at)["evidence"] == "4=0.2/0.8"
    tree = tree_from_link("lecture_5_vertices")
    prior = bp_model({}, tree).node_potentials
    got = at.session_state["bp_model"].node_potentials
    np.testing.assert_allclose(got[tree.index("4")], prior[tree.index("4")] * [0.2, 0.8], rtol=1e-15)
    at.number_input(key="bp_soft_0").set_value(0.0)
    at.number_input(key="bp_soft_1").set_value(0.0).run()
    _button(at, "bp_ev_set").click().run()
    assert any("soft evidence at 4 must have a positive weight" in e.value for e in at.error)
    assert _address(at)["evidence"] == "4=0.2/0.8"      # the evidence set before stays


def test_bp_page_play_and_pause_switch_the_timer():   # the ticks themselves: the browser test
    at = _open_link("/belief_propagation?tree=lecture_5_vertices")
    assert at.slider(key="bp_messages").value == 0
    _button(at, "bp_play").click().run()
    assert at.session_state["bp_playing"]
    assert any(b.key == "bp_play" and b.label == "Pause" for b in at.button)
    _button(at, "bp_play").click().run()
    assert not at.session_state["bp_playing"]


def test_bp_pause_clicked_as_the_schedule_ends_does_not_play_again():
    """The schedule ended on the server (playing off) before the browser redrew the button: the
    "Pause" the user clicked pauses; it does not start the schedule again from message 0."""
    at = _open_link("/belief_propagation?tree=lecture_5_vertices")
    _button(at, "bp_play").click().run()
    total = int(at.slider(key="bp_messages").max)
    at.session_state["bp_playing"] = False        # what the last tick did, the button not redrawn
    at.session_state["bp_messages"] = total
    _button(at, "bp_play").click().run()          # the button still says Pause
    assert not at.session_state["bp_playing"]
    assert at.slider(key="bp_messages").value == total


@pytest.mark.slow
@pytest.mark.parametrize("lesson", load_lessons()[0], ids=lambda x: x.id)
def test_every_step_opens_from_its_link(lesson):
    """Each step's link (the page's address with ``lesson=`` and ``step=``), opened in a new
    session, opens its page with the panel at that step and the link's settings in the address.
    (The browser test walks the same steps with the panel's Next button.)"""
    n = len(lesson.steps)
    for k, step in enumerate(lesson.steps, 1):
        link = parse_link(step.url)
        at = _open_link(f"{step.url}{'&' if '?' in step.url else '?'}lesson={lesson.id}&step={k}")   # a new session
        assert not at.exception, (lesson.id, k, at.exception)
        assert _progress(at).startswith(f"Step {k} of {n}"), (lesson.id, k, _progress(at))
        assert f"## {step.title}" in _sidebar_text(at)
        got = _address(at)
        assert got.get("lesson") == lesson.id and got.get("step") == str(k), (lesson.id, k, got)
        for name, text in link.raw.items():
            if name != "tree" and link.values.get(name) != link.page.setting(name).default:
                assert got.get(name) == text, (lesson.id, k, name, got.get(name), text)
