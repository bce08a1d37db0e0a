"""AppTest interactions of the Online Marginals and Belief Propagation pages."""

import numpy as np

from tests.conftest import ROOT, open_tab, shown_stats
from tests.test_app_pages import open_page

ONLINE = "workbench/pages/online_marginals.py"
BP = "workbench/pages/belief_propagation.py"


def _button(at, key):
    return next(b for b in at.button if b.key == key)


def test_online_observe_check_and_stream():
    at = open_page(ONLINE)
    assert not at.exception, at.exception
    session = at.session_state["om_session"]
    _button(at, "om_observe").click()
    at.run()
    assert not at.exception, at.exception
    assert session.ops and "update" in session.ops[-1]
    assert session.evidence                         # the observed vertex (the root) has evidence
    rep = session.model.last_op
    assert rep is not None and len(rep.touched) >= 1
    # the selected vertex's bars (HTML, escaped) show its posterior and the work bars appeared
    post = session.marginal(session.tree.root)
    bars = " ".join(h.proto.body for h in at.html)
    assert all(f"{p:.3f}" in bars for p in post) and "label 1" in bars, bars
    assert "online (all ops so far)" in bars and "1 BP pass" in bars, bars
    # the headline numbers (one HTML row): this operation's work, its share of a BP pass, the height
    from engine.inference.belief_propagation import bp_work

    full = bp_work(session.tree.n, session.k)
    row = next(h.proto.body for h in at.html if 'class="wb-stats"' in h.proto.body)
    for said in (f"<dt>Cover height</dt><dd>{session.model.height}</dd>", f"<dd>{rep.op}</dd>",
                 f"<dd>{rep.work:,}</dd><dd class=\"wb-note\">{rep.work / full:.1%} of a BP pass</dd>",
                 f"<dt>One full BP pass</dt><dd>{full:,}</dd>"):
        assert said in row, (said, row)
    assert not [b for b in at.button if b.key in ("om_check", "om_play")]   # the tools' expander is closed
    open_tab(at, "om_tools", True)
    _button(at, "om_check").click()
    at.run()
    assert any("Largest |online − BP|" in s.value for s in at.success), [s.value for s in at.success]
    at.number_input(key="om_count").set_value(20)
    _button(at, "om_play").click()
    at.run()
    assert not at.exception, at.exception
    assert any("Played" in s.value for s in at.success)
    open_tab(at, "om_tools", False)   # closed, the tools' values are kept
    assert not [b for b in at.button if b.key == "om_play"]
    open_tab(at, "om_tools", True)
    assert at.number_input(key="om_count").value == 20
    # the page's marginals equal a fresh BP pass
    from engine.inference.belief_propagation import belief_propagation

    m = at.session_state["om_session"].model
    ref = belief_propagation(m.tree, m.node_data, m.edge_potentials(), k=m.k)
    np.testing.assert_allclose(m.marginals(), ref.marginals, rtol=1e-9)


def test_online_pick_by_name_selects_and_queries():
    at = open_page(ONLINE)
    at.selectbox(key="om_tree__box").set_value("4")
    at.run()
    assert not at.exception, at.exception
    session = at.session_state["om_session"]
    assert session.ops[-1] == {"marginal": "4"}
    said = ", ".join(f"{p:.4f}" for p in session.marginal(session.tree.index("4")))
    assert any(f"P(x₄)</b> = [{said}]</div>" in h.proto.body for h in at.html), \
        [h.proto.body for h in at.html]
    _button(at, "om_observe").click()
    at.run()
    assert session.tree.index("4") in session.evidence
    assert any(" · evidence [1.0, 0.0]</div>" in h.proto.body for h in at.html)   # the vertex's own evidence


def test_online_k_and_cover_change_rebuilds():
    at = open_page(ONLINE)
    at.slider(key="om_k").set_value(3)
    at.radio(key="om_cover").set_value("rake-only")
    at.run()
    assert not at.exception, at.exception
    m = at.session_state["om_session"].model
    assert m.k == 3 and m.cover_kind == "rake-only"


def test_online_inconsistent_evidence_is_an_error_not_a_traceback():
    at = open_page(ONLINE)
    at.radio(key="om_mode").set_value("Edit matrix")
    at.run()
    assert not at.exception, at.exception
    # soft evidence of all zeros: total mass zero
    at.radio(key="om_evidence_kind").set_value("Soft weights").run()
    for a in range(2):
        at.slider(key=f"om_soft_{a}").set_value(0.0)
    _button(at, "om_apply").click()
    at.run()
    assert not at.exception, at.exception
    assert any("inconsistent" in e.value for e in at.error)


def test_bp_page_steps_and_tabs():
    at = open_page(BP)
    assert not at.exception, at.exception
    total = at.slider(key="bp_messages").max
    at.slider(key="bp_messages").set_value(total)
    at.run()
    assert not at.exception, at.exception
    assert any("All 2(n−1) messages sent" in s.value for s in at.success)
    _button(at, "bp_back").click()
    at.run()
    assert at.slider(key="bp_messages").value == total - 1
    assert not shown_stats(at)               # only the open tab is computed
    open_tab(at, "bp_tab", "Parallel schedule")
    at.slider(key="bp_iteration").set_value(at.slider(key="bp_iteration").max).run()
    assert not at.exception, at.exception
    err = float(shown_stats(at)["Largest |belief − exact| now"])
    assert err < 1e-12      # after diameter-many iterations the parallel schedule is exact
    last = at.slider(key="bp_iteration").value
    open_tab(at, "bp_tab", "Sequential schedule")      # a closed tab's slider kept its value
    assert at.slider(key="bp_messages").value == total - 1
    open_tab(at, "bp_tab", "Elimination order")
    at.slider(key="bp_k").set_value(3)
    at.slider(key="bp_star").set_value(10).run()
    assert not at.exception, at.exception
    assert any("never creates a table larger than |X| = 2 entries" in c.value for c in at.caption)
    assert "largest table 1,024" in at.get("plotly_chart")[0].proto.spec   # 2^10: the star's centre first
    open_tab(at, "bp_tab", "Parallel schedule")   # a closed tab's slider kept its value
    assert at.slider(key="bp_iteration").value == last
    assert at.session_state["bp_star"] == 10


def test_online_loaded_scenario_keeps_its_starting_point():
    """A session loaded from a scenario is kept (the settings match it), so saving writes its
    overrides, node data and root, and the prior bars are its starting point."""
    from engine.inference.scenario import load_scenario
    from engine.inference.session import OnlineSession
    from tests.test_inference_cli import SAMPLE

    sc = load_scenario(SAMPLE)
    assert sc.edge_potentials and sc.node_data and sc.root   # the sample exercises all three
    session = OnlineSession.from_scenario(sc)
    at = open_page(ONLINE)
    matrix = sc.edge_potential.tolist()
    # what the uploader's callback does (AppTest cannot upload a file; the browser test does)
    at.session_state["tree"] = sc.tree
    at.session_state["tree_version"] = 99
    for key, value in {"om_k": sc.k, "om_mode": "Edit matrix", "om_matrix_start": matrix, "om_cover": sc.cover,
                       "om_session": session,
                       "om_session_key": (sc.tree.content_key, sc.k, tuple(map(tuple, matrix)), sc.cover)}.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["om_session"] is session
    saved = session.to_scenario()
    assert saved["root"] == sc.root and saved["node_data"] and saved["edge_potentials"]


def test_bp_parallel_figures_are_shared_and_a_presenter_gets_a_taller_copy():
    """The parallel tab's figures are drawn once per model, iteration and style and shared by the
    sessions (a class on that step): a second session gets the same figure, and a presenter's
    taller copy leaves the shared one as it was."""
    import json

    from workbench.figures.style import PRESENTER_HEIGHT
    from workbench.state import PRESENTER

    def parallel_chart(at) -> dict:
        open_tab(at, "bp_tab", "Parallel schedule")
        assert not at.exception, at.exception
        return json.loads(at.get("plotly_chart")[0].proto.spec)

    first = parallel_chart(open_page(BP))
    big = []
    for _ in range(2):   # the second presenter gets the shared figure as it was, enlarged once
        presenter = open_page(BP)
        presenter.session_state[PRESENTER] = True
        presenter.run()
        big.append(parallel_chart(presenter))
    again = parallel_chart(open_page(BP))
    assert again == first
    h = first["layout"]["height"]
    assert big[0] == big[1] and big[0]["layout"]["height"] == round(h * PRESENTER_HEIGHT) and h == 480


def test_an_array_cache_key_sees_one_cell_of_a_large_array():
    """The parallel tab's caches key ψ by every cell: Streamlit's own hashing samples a large array
    (500,000 cells or more), so an edit of one of an imported network's tables could be missed."""
    from workbench.components import array_key

    psi = np.ones((40, 120, 120))            # 576,000 cells: Streamlit would sample them
    edited = psi.copy()
    edited[17, 3, 5] = 2.0
    assert array_key(psi) != array_key(edited)
    assert array_key(psi) == array_key(psi.copy())
    assert array_key(psi) != array_key(psi.reshape(40, 14400))   # the shape counts too


def test_bp_message_table_adds_up():
    """The sequential tab's table of eq. 5 for m_{2→5} after eight messages of the lecture's tree:
    the product is φ times the incoming messages, each ψ column's sum is the unnormalised message
    and the last row is those sums normalised (checked from the table's own numbers, 4 decimals)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(dict(tree="lecture_5_vertices", vertex="1", messages="8"))
    at.switch_page(str(ROOT / "workbench" / "pages" / "belief_propagation.py"))
    at.run()
    assert not at.exception, at.exception
    df = at.table[0].value
    assert list(df.index) == ["x_2 = 0", "x_2 = 1", "Σ over x_2", "m_2→5 (normalised)"]
    assert list(df.columns) == ["φ_2", "m_1→2", "m_4→2", "product", "× ψ(·, x_5=0)", "× ψ(·, x_5=1)"]
    num = df.map(lambda x: float(x) if x else np.nan).to_numpy()
    assert np.isnan(num[2:, :4]).all() and not np.isnan(num[:2]).any()
    np.testing.assert_allclose(num[:2, 0] * num[:2, 1] * num[:2, 2], num[:2, 3], atol=2e-4)
    np.testing.assert_allclose(num[:2, 4:].sum(axis=0), num[2, 4:], atol=2e-4)
    np.testing.assert_allclose(num[2, 4:] / num[2, 4:].sum(), num[3, 4:], atol=2e-4)


def test_online_evidence_kinds_keep_their_values():
    """The controls show one kind of evidence at a time (a label, or soft weights): the other's
    values wait, and each sets its own evidence at the selected vertex (the root)."""
    at = open_page(ONLINE)
    session = at.session_state["om_session"]
    root = session.tree.root
    assert not [s for s in at.slider if s.key and s.key.startswith("om_soft_")]   # a label, at first
    at.selectbox(key="om_label").set_value(1).run()
    at.radio(key="om_evidence_kind").set_value("Soft weights").run()
    assert not [b for b in at.button if b.key == "om_observe"] and not [s for s in at.selectbox if s.key == "om_label"]
    at.slider(key="om_soft_0").set_value(0.25).run()
    at.radio(key="om_evidence_kind").set_value("A label").run()
    assert at.selectbox(key="om_label").value == 1                          # kept while hidden
    at.radio(key="om_evidence_kind").set_value("Soft weights").run()
    assert (at.slider(key="om_soft_0").value, at.slider(key="om_soft_1").value) == (0.25, 1.0)
    _button(at, "om_apply").click()
    at.run()
    assert not at.exception and not at.error
    np.testing.assert_allclose(session.evidence[root], [0.25, 1.0])
    at.radio(key="om_evidence_kind").set_value("A label").run()
    _button(at, "om_observe").click()
    at.run()
    np.testing.assert_allclose(session.evidence[root], [0.0, 1.0])          # label 1 observed
    _button(at, "om_clear").click()
    at.run()
    assert root not in session.evidence


def test_online_tools_open_from_a_link():
    """A link with ``tools=1`` (the lesson's random-stream step) opens the tools' expander, and
    the page's own link says so while it is open and not once it is closed."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(dict(tree="lecture_5_vertices", tools="1"))
    at.switch_page(str(ROOT / "workbench" / "pages" / "online_marginals.py"))
    at.run()
    assert not at.exception, at.exception
    assert [b for b in at.button if b.key == "om_play"]
    assert at.query_params.get("tools") == "1"
    open_tab(at, "om_tools", False)
    assert not [b for b in at.button if b.key == "om_play"] and "tools" not in at.query_params


def test_online_evidence_in_the_address_follows_every_change():
    """The address says the session's evidence after each change (read again only for the vertices
    whose data changed): a label, soft weights beside it, a vertex's label changed, one cleared."""
    from workbench.declarations.value_formats import parse_evidence

    at = open_page(ONLINE)

    def said():
        q = at.query_params["evidence"]
        return parse_evidence(q[0] if isinstance(q, list) else q)

    def pick(name):
        at.selectbox(key="om_tree__box").set_value(name).run()

    pick("4")
    at.selectbox(key="om_label").set_value(0).run()
    _button(at, "om_observe").click().run()
    assert said() == {"4": 0}
    pick("5")
    at.radio(key="om_evidence_kind").set_value("Soft weights").run()
    at.slider(key="om_soft_0").set_value(0.25).run()
    _button(at, "om_apply").click().run()
    assert said() == {"4": 0, "5": (0.25, 1.0)}
    pick("4")
    at.radio(key="om_evidence_kind").set_value("A label").run()
    at.selectbox(key="om_label").set_value(1).run()
    _button(at, "om_observe").click().run()
    assert said() == {"4": 1, "5": (0.25, 1.0)}
    _button(at, "om_clear").click().run()
    assert said() == {"5": (0.25, 1.0)}
    assert not at.exception, at.exception


def test_online_evidence_of_a_network_link_stays_in_state_names():
    """A network's link: its evidence in state names (φ divided out) stays so in the address while
    another vertex's evidence changes."""
    from streamlit.testing.v1 import AppTest

    from workbench.declarations.value_formats import parse_evidence

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page(ONLINE)
    at.query_params.clear()
    at.query_params["network"] = "weather"
    at.query_params["evidence"] = "WetGrass=wet,Rain=0.2/0.8"
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="om_tree__box").set_value("Traffic").run()
    _button(at, "om_observe").click().run()
    assert not at.exception, at.exception
    q = at.query_params["evidence"]
    got = parse_evidence(q[0] if isinstance(q, list) else q)
    assert got["WetGrass"] == "wet" and got["Rain"] == (0.2, 0.8) and got["Traffic"] == "light", got
    # a variable of 2 states in a model of k = 4: its own bars, labels and soft weights
    at.selectbox(key="om_tree__box").set_value("Rain").run()
    assert at.selectbox(key="om_label").options == ["yes", "no"]
    at.radio(key="om_evidence_kind").set_value("Soft weights").run()
    assert [s.label for s in at.slider if s.key and s.key.startswith("om_soft_")] == ["weight of yes", "weight of no"]
    at.slider(key="om_soft_0").set_value(0.5).run()
    _button(at, "om_apply").click().run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    q = at.query_params["evidence"]
    assert parse_evidence(q[0] if isinstance(q, list) else q)["Rain"] == (0.5, 1.0)
    session = at.session_state["om_session"]
    rain = session.tree.index("Rain")
    bars = " ".join(h.proto.body for h in at.html)
    post = session.marginal(rain)
    assert post[2:].tolist() == [0.0, 0.0] and all(f"{p:.3f}" in bars for p in post[:2])
    assert " · evidence [0.5, 1.0]</div>" in bars   # its own two weights, not k = 4
