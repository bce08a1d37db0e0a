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


def test_a_page_cache_calls_the_function_in_its_callers_own_run(tmp_path):
    """Two sessions' script runs at once, in two threads: session B's run has defined the cached
    function but not yet the helper below it when session A, whose run is whole, misses the cache
    from its run or from a fragment of it (a fragment's rerun is a new thread that defines
    nothing). A's miss runs the function in A's globals, as an undecorated call would; B's half run
    raised "name '_helper' is not defined" there."""
    import threading

    import streamlit as st

    from workbench.components import page_cache

    st.cache_data.clear()   # (a value cached by an earlier run of this test would answer alone)
    page = str(tmp_path / "cached_race_test.py")
    define = compile("def doubled(x):\n    return _helper(x)\n", page, "exec")
    helper = compile("def _helper(x):\n    calls.append(x)\n    return factor * x\n", page, "exec")
    fragment = compile("def in_fragment(x):\n    return doubled(x)\n", page, "exec")
    decorate = page_cache(st.cache_data, max_entries=4, show_spinner=False)
    whole, half = {"calls": [], "factor": 2}, {"calls": [], "factor": 3}

    def run_a():   # session A: a whole run, and a fragment defined in it
        exec(define, whole)
        whole["doubled"] = decorate(whole["doubled"])
        exec(helper, whole)
        exec(fragment, whole)

    def run_b():   # session B: the function defined and decorated, its helper not yet
        exec(define, half)
        half["doubled"] = decorate(half["doubled"])

    def in_thread(target):
        t = threading.Thread(target=target)
        t.start()
        t.join(30)

    got = {}
    in_thread(run_a)
    in_thread(run_b)
    assert half["doubled"] is whole["doubled"]   # one wrapper: the latest function is B's
    in_thread(lambda: exec(compile("got['run'] = doubled(21)", page, "exec"), {**whole, "got": got}))
    in_thread(lambda: got.update(fragment=whole["in_fragment"](5)))
    assert got == {"run": 42, "fragment": 10} and whole["calls"] == [21, 5] and half["calls"] == []
