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
