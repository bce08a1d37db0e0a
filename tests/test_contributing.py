"""``docs/contributing.md`` performed: every worked example of the guide is run through the
extension point it describes, in temporary registries (a toy page, a toy setting, a toy format, a
toy learning algorithm, a lesson), so the guide cannot go stale."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest
from streamlit.testing.v1 import AppTest

from engine.runs import registry
from engine.trees import formats
from engine.trees.samples import read_sample, sample_names
from tests.conftest import ROOT
from workbench.declarations.lessons import load_lessons
from workbench.declarations.lessons.answers import check_answers
from workbench.declarations.page_table import PAGES
from workbench.navigation import menu

GUIDE = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")


def blocks(section: str, language: str = "python") -> list[str]:
    """The fenced ``language`` blocks of the guide's section ``## section``, in order."""
    found, current, fence, lines = [], None, None, []
    for line in GUIDE.splitlines():
        if fence is None and line.startswith("## "):
            current = line[3:].strip()
        elif fence is None and line.startswith("```"):
            fence, lines = line[3:].strip(), []
        elif fence is not None and line.startswith("```"):
            if current == section and fence == language:
                found.append("\n".join(lines) + "\n")
            fence = None
        elif fence is not None:
            lines.append(line)
    assert found, f"docs/contributing.md: no {language} block under '## {section}'"
    return found


def run(code: str, namespace: dict | None = None) -> dict:
    namespace = {} if namespace is None else namespace
    exec(compile(code, "docs/contributing.md", "exec"), namespace)  # noqa: S102 - the guide's own examples
    return namespace


def test_add_a_page_navigation_links_and_its_script():
    spec, script = blocks("Add a page")
    echo = run(spec)["ECHO"]
    with PAGES.including(echo):
        entries = [e for section in menu().values() for e in section]
        entry = next(e for e in entries if e.get("url_path") == "echo")
        assert (entry["page"], entry["title"], entry["icon"]) == ("workbench/pages/echo.py", "Echo",
                                                                    ":material/record_voice_over:")
        assert list(menu())[0] == "Start" and entry in menu()["Start"]
        link = PAGES.parse_link(PAGES.build_link("echo", {"times": 4}))
        assert link.page is echo and link.values == {"times": 4} and link.url == "/echo?times=4"
        with pytest.raises(Exception, match="times='9'"):
            PAGES.parse_link("/echo?times=9")
        assert "### Echo: `/echo`" in PAGES.markdown()

        at = AppTest.from_string(script, default_timeout=60)
        at.query_params["times"] = "4"
        at.run()
        assert not at.exception, at.exception
        assert at.slider(key="echo_times").value == 4               # the link's value, in the widget
        assert "echo echo echo echo" in [m.value for m in at.markdown]
        at.slider(key="echo_times").set_value(3).run()
        assert at.query_params["times"] in ("3", ["3"])             # the address follows the widget
        at.slider(key="echo_times").set_value(2).run()
        assert "times" not in at.query_params                       # ... and leaves the default out
    assert "echo" not in PAGES                                      # the registry is the app's again


def test_add_a_setting_link_round_trip_run_config_and_widget():
    declare, use = blocks("Add a setting to a page")
    low = run(declare)["LOW"]
    hedge = PAGES["tree_hedge"]
    with PAGES.including(dataclasses.replace(hedge, settings=hedge.settings + (low,))):
        link = PAGES.parse_link(PAGES.build_link("tree_hedge", {"tree": "random:20:1", "low": 0.3}))
        assert link.values["low"] == 0.3 and "low=0.3" in link.url
        assert PAGES.build_link("tree_hedge", {"low": 0.2}, drop_defaults=True) == "/tree_hedge"
        run(use)                                                    # the guide's own assertions
        at = AppTest.from_string("from workbench.declarations.page_table import PAGES\n"
                                 "from workbench.widgets import widget\n"
                                 "widget(PAGES['tree_hedge'], 'low')\n", default_timeout=60)
        at.run()
        slider = at.slider(key="hedge_low")
        assert (slider.label, slider.value, slider.min, slider.max, slider.step) == (
            "Loss of the best action", 0.2, 0.0, 1.0, 0.05)            # range and default: HedgeConfig.low's
        assert PAGES["tree_hedge"].setting("low").describe() == "a number in 0..1"
    assert "low" not in PAGES["tree_hedge"].all_settings


def test_add_a_tree_format_reader_writer_round_trip(tmp_path, monkeypatch):
    (code,) = blocks("Add a tree format")
    pairs = run(code)["PAIRS"]
    monkeypatch.setattr(formats, "TREE_FORMATS", formats.TREE_FORMATS + (pairs,))
    tree = read_sample("primates.nwk")
    for name in ("t.pairs", "t.pairs.gz"):
        formats.write_tree(tree, tmp_path / name)
        back = formats.read_tree(tmp_path / name)
        assert sorted(back.named_edges()) == sorted(tree.named_edges()) and back.name(back.root) == tree.name(tree.root)
    text = formats.format_tree_text(tree, "pairs")
    assert formats.sniff_format(text) == "pairs"                     # recognised by content too
    assert formats.read_tree_bytes(text.encode(), "upload").n == tree.n
    with pytest.raises(formats.TreeFormatError, match=r"^t.pairs: line 2: expected PARENT -> CHILD"):
        formats.read_tree_bytes(b"a -> b\nb c\n", "t.pairs")


def test_the_sniffs_of_two_formats_never_both_say_yes():
    for name in sample_names():
        tree = read_sample(name)
        for fmt in formats.FORMAT_NAMES:
            data = formats.format_tree_text(tree, fmt).encode()
            head = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip()
            said = [f.name for f in formats.TREE_FORMATS if f.sniff is not None and f.sniff(head, data)]
            assert len(said) <= 1 and formats.sniff_format(data) == fmt, (name, fmt, said)


def test_add_a_learning_algorithm_registered_run_and_page(monkeypatch):
    algorithm, page = blocks("Add a learning algorithm")
    module = types.ModuleType("coin_family")
    monkeypatch.setitem(sys.modules, "coin_family", module)
    run(algorithm, module.__dict__)
    registry.register_family("coin", "coin_family", "CoinConfig")
    try:
        config = registry.config_from_dict({"algorithm": "coin", "bias": 0.8, "flips": 400, "seed": 3})
        result = registry.family("coin").run(config)
        assert abs(result.metrics["estimate"] - 0.8) < 0.1 and len(result.curves["estimate"]) == 400
        with pytest.raises(Exception, match=r"^bias = 2: expected a number in \[0, 1\]$"):
            registry.config_from_dict({"algorithm": "coin", "bias": 2})
        coin = run(page, dict(module.__dict__))["COIN"]
        bias = coin.setting("bias")                                  # read from CoinConfig's declaration
        assert (bias.help, bias.default, bias.lo, bias.hi) == ("the coin's bias", 0.3, 0.0, 1.0)
        with PAGES.including(coin):
            link = PAGES.parse_link("/coin?bias=0.8&flips=400")
            assert PAGES["coin"].run_config(link.values) == module.CoinConfig(bias=0.8, flips=400)
            with pytest.raises(Exception, match=r"^parameter flips='0': expected an integer in 1\.\.1e\+06$"):
                PAGES.parse_link("/coin?flips=0")
    finally:
        registry.unregister_family("coin")


def test_add_a_lesson_checked_against_the_pages_and_the_engine(tmp_path):
    (lesson,) = blocks("Add a lesson", "markdown")
    (tmp_path / "first_round.md").write_text(lesson, encoding="utf-8")
    lessons, errors = load_lessons(tmp_path)
    assert errors == [] and [x.id for x in lessons] == ["first_round"]
    assert check_answers(lessons[0]) == 1
    (tmp_path / "first_round.md").write_text(lesson.replace("answer: 2, 6, 10, 13", "answer: 2, 6"),
                                             encoding="utf-8")
    _, errors = load_lessons(tmp_path, check_answers=True)
    assert len(errors) == 1 and "the engine computes" in str(errors[0])
