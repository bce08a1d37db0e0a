"""workbench.components pieces tested headless (the clickable tree's browser behaviour is in
tests/browser/test_clicks.py)."""

from streamlit.testing.v1 import AppTest


def _bars_app():
    from workbench.components import bars

    bars([("<b>a</b>", 0.25, "#0072b2", "0.250", 0.5), ("b & c", 0.75, "#e69f00", "<i>0.750</i>")],
         legend="<script>x</script>")
    bars([("online", 10, "#009e73", "10"), ("BP", 10_000, "#5c6370", "10,000")], log=True)


def test_bars_draw_widths_and_escape_every_text():
    at = AppTest.from_function(_bars_app).run(timeout=60)
    assert not at.exception, at.exception
    linear, log = (h.proto.body for h in at.html)
    assert "width:25.00%" in linear and "width:75.00%" in linear and "width:50.00%" in linear   # ghost: the prior
    assert "&lt;b&gt;a&lt;/b&gt;" in linear and "b &amp; c" in linear and "&lt;i&gt;" in linear
    assert "<script>" not in linear and "&lt;script&gt;" in linear
    # log scale of the largest: 10 of 10,000 is log10(11)/log10(10001) of the width
    assert "width:100.00%" in log and "width:26.03%" in log


def test_a_page_cache_is_made_once_per_function_and_again_when_its_code_changes(tmp_path):
    """workbench.components.page_cache: a page's script defines its cached functions anew on every
    run; the wrapper of the first run is used again while the code is the same (no reading of the
    source per run), it still caches by the arguments, and a changed function gets a new one."""
    import streamlit as st

    from workbench.components import page_cache

    calls = []
    page = tmp_path / "cached_page_test.py"

    def run(source: str):   # one run of the page's script
        page.write_text(source, encoding="utf-8")
        space = {"calls": calls}
        exec(compile(source, str(page), "exec"), space)
        return page_cache(st.cache_data, max_entries=4, show_spinner=False)(space["twice"])

    source = "def twice(x):\n    calls.append(x)\n    return 2 * x\n"
    made = [run(source) for _ in range(3)]
    assert made[0] is made[1] is made[2]
    assert [made[2](3), made[0](3), made[1](4)] == [6, 6, 8]
    assert calls == [3, 4]   # cached by the argument across the runs
    changed = run(source.replace("2 * x", "3 * x"))
    assert changed is not made[0] and changed(3) == 9


def test_a_page_cache_calls_the_function_of_its_callers_own_run(tmp_path):
    """Two sessions' script runs at once, in two threads: session B's run has defined the cached
    function but not yet the helper below it when session A, whose run is whole, misses the cache.
    A calls the function of its own run (as an undecorated call would), not B's half-run one, which
    raised "name '_helper' is not defined"; a fragment's rerun (a thread that defined nothing)
    calls the latest run's."""
    import threading

    import streamlit as st

    from workbench.components import page_cache

    page = tmp_path / "cached_race_test.py"
    source = "def doubled(x):\n    return _helper(x)\n"
    page.write_text(source + "def _helper(x):\n    return 2 * x\n", encoding="utf-8")
    code = compile(source, str(page), "exec")
    decorate = page_cache(st.cache_data, max_entries=4, show_spinner=False)
    whole, half, got = {}, {}, {}
    exec(code, whole)
    whole["_helper"] = lambda x: 2 * x   # session A's run, past the helper's definition

    def session_a():
        got["wrapper"] = decorate(whole["doubled"])
        b.start()
        b.join(30)
        got["a"] = got["wrapper"](21)   # after B's run defined the function, before its helper

    def session_b():
        exec(code, half)   # the function defined, its helper not yet
        got["b"] = decorate(half["doubled"])

    def in_thread(target):
        t = threading.Thread(target=target)
        t.start()
        t.join(30)

    b = threading.Thread(target=session_b)
    in_thread(session_a)
    assert got["b"] is got["wrapper"] and got["a"] == 42
    half["_helper"] = lambda x: 3 * x   # B's run goes on; a fragment's rerun calls the latest run's
    in_thread(lambda: got.update(fragment=got["wrapper"](5)))
    assert got["fragment"] == 15
