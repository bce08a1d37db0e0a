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
