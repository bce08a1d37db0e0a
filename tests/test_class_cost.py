"""What a class costs the server (workbench.classroom, workbench.serve): a process reads a class
once while the follow route knows its change counter, and script events reach the event loop in
batches and in order.

The speed itself is measured by ``python -m benchmarks.bench_app --only-class`` (README); these tests
check that each saving keeps what the class sees exact."""

from __future__ import annotations

import asyncio
import threading

import pytest

from engine.classroom import ClassStore, lecturer_key
from engine.errors import ClassError
from workbench import classroom

LECTURER = lecturer_key("a lecturer's token")


class CountingStore:
    """A real class store that counts the reads of a class record."""

    def __init__(self, store: ClassStore):
        self.store, self.gets, self.polls = store, 0, 0

    def get(self, code):
        self.gets += 1
        return self.store.get(code)

    def poll(self, code, step):
        self.polls += 1
        return self.store.poll(code, step)

    def __getattr__(self, name):
        return getattr(self.store, name)


@pytest.fixture
def store(tmp_path, monkeypatch):
    counting = CountingStore(ClassStore(tmp_path / "class.sqlite"))
    monkeypatch.setattr(classroom, "class_store", lambda: counting)
    for known in (classroom._known, classroom._records, classroom._opened, classroom._heard):   # emptied around
        known.clear()
    yield counting
    for known in (classroom._known, classroom._records, classroom._opened, classroom._heard):
        known.clear()
    counting.store.close()


def test_without_the_follow_route_every_read_goes_to_the_store(store):
    rec = store.store.open_class("bp", lecturer=LECTURER)
    for _ in range(3):
        assert classroom._record(rec.code).step == 1
    assert store.gets == 3


def test_a_known_counter_serves_one_read_to_every_session_until_it_moves(store):
    rec = store.store.open_class("bp", lecturer=LECTURER)
    store.store.start(rec.code, 1, lecturer=LECTURER, poll=True)
    classroom.read_versions([rec.code])   # the follow route's check
    first = classroom._record(rec.code)
    for _ in range(29):   # the other followers of this process
        assert classroom._record(rec.code) == first
    assert store.gets == 1
    assert classroom._poll_opened(first, 1) and classroom._poll_opened(first, 1) and store.polls == 1
    # another process moves the class: until the route reads the counter, the record may be the old one
    # (as the follow route itself); once it has, every session sees the move
    store.store.move(rec.code, 2, lecturer=LECTURER, poll=False)
    classroom.read_versions([rec.code])
    moved = classroom._record(rec.code)
    assert moved.step == 2 and moved.version > first.version and store.gets == 2
    assert not classroom._poll_opened(moved, 2)


def test_a_browser_told_of_a_move_elsewhere_sees_it_before_this_process_reads_it(store):
    """A hall: the lecturer's process moves the class; a student's follow request, answered by
    another process (or by this one's next read, not yet made here), tells the browser the new
    counter, and the browser's rerun says so (``heard``): this process's sessions read the class
    from the store from then on, not the record of its older reading (the students whose follow
    request went elsewhere waited for the route's 5 s hold: follow p95 5.2 s on two processes)."""
    rec = store.store.open_class("bp", lecturer=LECTURER)
    classroom.read_versions([rec.code])
    old = classroom._record(rec.code)
    store.store.move(rec.code, 2, lecturer=LECTURER)   # by another process: nothing here knows
    assert classroom._record(rec.code) == old          # (what this process's reading still gives)
    new_version = store.store.version(rec.code)
    for told in (None, "7", True, old.version):        # no counter, or none newer: nothing changes
        classroom.heard(rec.code, told)
        assert classroom._record(rec.code) == old
    classroom.heard(rec.code, new_version)
    for _ in range(3):                                 # every session of this process
        assert classroom._record(rec.code).step == 2
    assert classroom._known_version(rec.code) is None
    classroom.read_versions([rec.code])                # this process's own reading catches up
    assert classroom._known_version(rec.code) == new_version
    gets = store.gets
    assert classroom._record(rec.code).step == 2 and classroom._record(rec.code).step == 2
    assert store.gets == gets + 1                      # one read serves them again


def test_a_change_made_here_is_seen_at_once(store):
    rec = store.store.open_class("bp", lecturer=LECTURER)
    classroom.read_versions([rec.code])
    assert classroom._record(rec.code).step == 1
    store.store.move(rec.code, 3, lecturer=LECTURER)
    classroom.changed(rec.code)   # what classroom.moved and the Lessons page do after a write
    assert classroom._record(rec.code).step == 3


def test_an_old_reading_of_the_counter_is_not_trusted(store, monkeypatch):
    rec = store.store.open_class("bp", lecturer=LECTURER)
    classroom.read_versions([rec.code])
    classroom._record(rec.code)
    monkeypatch.setattr(classroom, "KNOWN_SECONDS", 0.0)
    store.store.move(rec.code, 2, lecturer=LECTURER)
    assert classroom._record(rec.code).step == 2


def test_a_deleted_class_is_not_served_from_memory(store):
    rec = store.store.open_class("bp", lecturer=LECTURER)
    classroom.read_versions([rec.code])
    classroom._record(rec.code)
    store.store.delete(rec.code, lecturer=LECTURER)
    assert classroom.read_versions([rec.code]) == {rec.code: None}
    with pytest.raises(ClassError, match=rec.code):
        classroom._record(rec.code)


def test_script_events_reach_the_loop_in_order_and_an_error_stops_none(monkeypatch):
    """workbench.serve.batched_handoff: four threads push 500 callbacks each; every one runs on the
    loop, each thread's in the order it pushed them, and a failing callback is reported, not fatal."""
    from streamlit.runtime.app_session import AppSession

    from workbench.serve import batched_handoff

    monkeypatch.setattr(AppSession, "_call_soon_on_event_loop", AppSession._call_soon_on_event_loop)
    batched_handoff()
    batched_handoff()   # twice: one layer
    assert getattr(AppSession._call_soon_on_event_loop.__wrapped__, "__wrapped__", None) is None

    loop = asyncio.new_event_loop()
    errors, seen = [], []
    loop.set_exception_handler(lambda _loop, context: errors.append(context["exception"]))
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()
    session = type("Session", (), {"_event_loop": loop})()

    def push(t: int) -> None:
        for i in range(500):
            AppSession._call_soon_on_event_loop(session, lambda t=t, i=i: seen.append((t, i)))
        AppSession._call_soon_on_event_loop(session, lambda: 1 / 0)

    threads = [threading.Thread(target=push, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    done = threading.Event()
    AppSession._call_soon_on_event_loop(session, done.set)
    assert done.wait(30)
    loop.call_soon_threadsafe(loop.stop)
    runner.join(30)
    loop.close()
    assert len(seen) == 2000 and len(errors) == 4 and all(isinstance(e, ZeroDivisionError) for e in errors)
    for t in range(4):
        assert [i for u, i in seen if u == t] == list(range(500))
    AppSession._call_soon_on_event_loop(session, lambda: None)   # a closed loop: dropped, as Streamlit does



_MEMBERSHIP = '''
import streamlit as st
from streamlit.runtime.state import get_session_state
from streamlit.runtime.state.session_state import SessionState

view = st.components.v2.component("membership.view", html="<div></div>", js="export default function () {}")
st.slider("weight", 0.0, 1.0, 0.5, key="weight")
st.text_input("name", key="name")
st.button("go")
view(key="view", data={"a": 1}, on_pick_change=lambda: None, default={"pick": None})
st.session_state.setdefault("plain", 1)
state = get_session_state()._state
keys = ["weight", "name", "view", "plain", "missing", "$$ID-none-x"] + sorted(state._new_widget_state.keys())
plain = type(state).__contains__
original = getattr(plain, "__wrapped__", plain)
st.session_state["patched"] = getattr(plain, "__wrapped__", None) is not None
st.session_state["answers"] = [(k, plain(state, k), original(state, k)) for k in keys]
'''


def test_membership_without_presenting_answers_as_streamlit(monkeypatch):
    """workbench.serve.plain_membership: ``key in session_state`` is the same for user keys,
    widgets, a v2 component (whose value has a presenter), missing keys and raw widget ids."""
    from streamlit.runtime.state.session_state import SessionState
    from streamlit.testing.v1 import AppTest

    from workbench.serve import plain_membership

    monkeypatch.setattr(SessionState, "__contains__", SessionState.__contains__)
    plain_membership()
    plain_membership()   # twice: one layer
    assert getattr(SessionState.__contains__.__wrapped__, "__wrapped__", None) is None
    at = AppTest.from_string(_MEMBERSHIP, default_timeout=60).run()
    at.run()   # the second run: every widget registered, the component's presenter in place
    assert not at.exception and at.session_state["patched"]
    answers = at.session_state["answers"]
    assert len(answers) > 8 and any(k.startswith("$$ID") for k, _, _ in answers)
    assert [(k, a) for k, a, _ in answers] == [(k, b) for k, _, b in answers]
    assert {k: a for k, a, _ in answers if not k.startswith("$$")} == {
        "weight": True, "name": True, "view": True, "plain": True, "missing": False}


def test_recent_answers_are_the_functions_and_bounded():
    """workbench.components.recent: a key asked lately gets the object the function gave (not a
    copy, not another key's), the function runs once per key while kept, and at most ``size``
    answers are kept (the least recently asked goes first)."""
    from workbench.components import recent

    calls = []

    @recent(lambda a, b=0: (a, b), size=2)
    def f(a, b=0):
        calls.append((a, b))
        return [a, b]

    first = f(1)
    assert f(1) is first and f(1, 0) is first and f(1, b=0) is first and calls == [(1, 0)]
    assert f(2) == [2, 0] and f(1) is first and len(calls) == 2
    assert f(3) == [3, 0]                      # 2 was asked least lately: it goes
    assert list(f.recent) == [(1, 0), (3, 0)]
    assert f(2) == [2, 0] and calls == [(1, 0), (2, 0), (3, 0), (2, 0)]


_FILTERED = '''
import streamlit as st
from streamlit.runtime.state import get_session_state

from workbench.serve import _FilteredView

view = st.components.v2.component("filtered.view", html="<div></div>", js="export default function () {}")
if "picked" not in st.session_state:
    st.session_state["picked"] = None          # a widget's key set to None by user code
st.session_state.setdefault("plain", 3)
run = st.session_state["run"] = st.session_state.get("run", 0) + 1
if run == 3:
    del st.session_state["plain"]              # a user key gone
st.radio("kind", ["a", "b"], key="kind")
st.selectbox("picked", ["x", "y"], key="picked")
if run == 1:                                    # a keyed widget drawn once, then forgotten
    st.slider("weight", 0.0, 1.0, 0.5, key="weight")
st.number_input("count", 0, 9, 2)               # keyless
view(key="view", data={"a": 1}, on_pick_change=lambda: None, default={"pick": None})
safe = get_session_state()
whole = safe.filtered_state
lazy = _FilteredView(safe)
state = safe._state
asked = sorted(set(whole) | set(state._keys()) | {"missing", "picked", "kind", "view", "plain", "weight"})
st.session_state["out"] = {
    "asked": asked,
    "same_membership": [k for k in asked if (k in lazy) != (k in whole)]
                       + st.session_state.get("out", {}).get("same_membership", []),
    "same_values": [k for k in whole if k in lazy and lazy[k] != whole[k]]
                   + st.session_state.get("out", {}).get("same_values", []),
    "iterated": sorted(lazy) == sorted(whole) and len(lazy) == len(whole),
    "picked_none": "picked" in lazy and lazy["picked"] is None,
    "widgets_see": type(__import__("streamlit.elements.widgets.selectbox", fromlist=["x"]).get_session_state()).__name__,
}
'''


def test_a_widgets_look_up_of_its_key_answers_as_the_whole_filtered_state(monkeypatch):
    """workbench.serve.widget_lookups: the one-key view of ``filtered_state`` has the same keys and
    values as the whole one (user keys, a widget key set to None, keyed and keyless widgets, a v2
    component, internal ids, a missing key, a widget no longer drawn, a deleted key: over four
    runs), and Streamlit's widgets read through it."""
    from streamlit.elements.widgets import radio, selectbox, slider
    from streamlit.testing.v1 import AppTest

    from workbench.serve import _WidgetLookups, widget_lookups

    for module in (radio, selectbox, slider):
        monkeypatch.setattr(module, "get_session_state", module.get_session_state)
    widget_lookups()
    widget_lookups()   # twice: one layer
    assert getattr(selectbox.get_session_state.__wrapped__, "__wrapped__", None) is None
    at = AppTest.from_string(_FILTERED, default_timeout=60).run()
    for _ in range(3):   # the slider forgotten, "plain" deleted, and after
        at.run()
    assert not at.exception, at.exception
    assert at.session_state["run"] == 4
    out = at.session_state["out"]
    assert len(out["asked"]) > 8 and any(k.startswith("$$") for k in out["asked"])
    assert out["same_membership"] == [] and out["same_values"] == [] and out["iterated"] and out["picked_none"]
    assert at.selectbox(key="picked").value is None and at.radio(key="kind").value == "a"
    assert out["widgets_see"] == _WidgetLookups.__name__


def test_compiled_scripts_are_kept_when_the_last_session_leaves(monkeypatch, tmp_path):
    """workbench.serve.kept_scripts: Streamlit's script cache is not emptied (it was, when the last
    session disconnected, and a lone student's next page compiled the app's scripts again)."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    from workbench.serve import kept_scripts

    monkeypatch.setattr(ScriptCache, "clear", ScriptCache.clear)   # restored after the test
    script = tmp_path / "page.py"
    script.write_text("x = 1\n")
    cache = ScriptCache()
    first = cache.get_bytecode(str(script))
    cache.clear()
    assert cache.get_bytecode(str(script)) is not first   # Streamlit's own: compiled again
    kept_scripts()
    kept = cache.get_bytecode(str(script))
    cache.clear()
    assert cache.get_bytecode(str(script)) is kept


def test_a_figure_dict_is_built_once_per_function_and_arguments():
    """workbench.components.spec_of: the dict of a figure a page copies its changing entries from,
    built once per function (by file and name: a page's script defines it anew on every run) and
    arguments, equal to the figure's own dict."""
    import numpy as np

    from workbench.components import as_spec, spec_of
    from workbench.figures.inference_figures import work_bars
    from workbench.figures.style import Style

    built = []

    def zero(names: tuple, k: int, style):   # what a page's script defines on each run
        built.append(names)
        from workbench.figures.inference_figures import difference_bars

        return difference_bars(names, np.zeros((len(names), k)), style=style)

    first = spec_of(zero, ("1", "2"), 2, Style())
    again = zero.__code__.replace()   # (the same code)
    rerun = type(zero)(again, zero.__globals__, "zero", None, zero.__closure__)
    rerun.__qualname__ = zero.__qualname__
    assert spec_of(rerun, ("1", "2"), 2, Style()) is first and len(built) == 1
    assert spec_of(zero, ("1", "2"), 2, Style("dark")) is not first and len(built) == 2
    assert spec_of(work_bars, 1, 1, 1, style=Style()) == as_spec(work_bars(1, 1, 1, style=Style()))
