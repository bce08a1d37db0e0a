"""The page table and its links (workbench.declarations: page_spec, settings, value_formats, page_table)
and the ?tree= codec (workbench.declarations.tree_text)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import limits
from engine.errors import EngineError, InvalidParameterError, UnknownVertexError
from engine.trees.formats.newick import parse_newick
from engine.trees.samples import read_sample, sample_names
from workbench.declarations.tree_text import tree_from_link, tree_to_link
from workbench.declarations.settings import (BOOL, CHOICE, EVIDENCE, FLOAT, INT, MATRIX, REGION, TEXT, VERTEX,
                                             format_value)
from engine.inference.evidence import evidence_vectors
from workbench.declarations.value_formats import REGION_LAYOUTS, format_evidence, parse_evidence, parse_matrix
from workbench.declarations.page_spec import check_link
from workbench.declarations.page_table import PAGES
from tests.conftest import ROOT
from tests.tree_strategies import trees

parse_link, build_link, address = PAGES.parse_link, PAGES.build_link, PAGES.address


def parse_query(page, query, *, strict=True):
    return PAGES.page(page).parse_query(query, strict=strict)


def _edges(t):
    return {frozenset(e) for e in t.named_edges()}


# ---------------------------------------------------------------------- the table and the app

def test_every_page_of_the_app_is_in_the_table_with_its_address():
    from workbench.navigation import menu, script

    scripts = {p.relative_to(ROOT).as_posix() for p in (ROOT / "workbench" / "pages").glob("*.py")}
    assert {script(p) for p in PAGES.values()} == scripts   # one spec per script, one script per spec
    entries = {e["page"]: e for section in menu().values() for e in section}
    for p in PAGES.values():
        e = entries[script(p)]
        assert (e["title"], e["icon"]) == (p.title, p.icon)
        # the app's default page is served at "/" (no url path); the others at their url_path
        addr = "" if e["default"] else e["url_path"]
        assert addr == p.url_path or (addr == "" and p.url_path == PAGES.default)
        assert address(p) == "/" + addr


def test_the_table_is_consistent():
    for page in PAGES.values():
        names = [p.name for p in page.all_settings.values()]
        assert len(names) == len(set(names)), page.url_path
        for p in page.settings:
            if p.kind in (INT, FLOAT):
                assert p.lo <= p.hi
                if p.default is not None:
                    assert p.lo <= p.default <= p.hi, (page.url_path, p.name)
            if p.kind == CHOICE:
                assert p.default in p.choices, (page.url_path, p.name)
            if p.default is not None:  # the default round-trips through its text
                assert p.parse(format_value(p, p.default)) == p.default


def _value(draw, p):
    if p.kind == INT:
        return draw(st.integers(int(p.lo), int(min(p.hi, 10**6))))
    if p.kind == FLOAT:
        return draw(st.floats(p.lo, p.hi, allow_nan=False))
    if p.kind == CHOICE:
        return draw(st.sampled_from(p.choices))
    if p.kind == BOOL:
        return draw(st.booleans())
    if p.kind == EVIDENCE:
        return {"1": draw(st.integers(0, 1)), "2": tuple(draw(st.lists(st.floats(0.01, 5), min_size=2, max_size=2)))}
    if p.kind == MATRIX:
        return ((2.0, 1.0), (1.0, draw(st.floats(0, 9))))
    if p.kind == REGION:   # numbers of at most 8 significant digits: the text keeps 8
        a, b, c, d = (draw(st.integers(-10**6, 10**6)) for _ in range(4))
        return (draw(st.sampled_from(REGION_LAYOUTS)), min(a, b - 1) / 100, max(a + 1, b) / 100, min(c, d - 1) / 100,
                max(c + 1, d) / 100)
    if p.kind == VERTEX:
        return draw(st.sampled_from(["1", "2", "a b", "é"]))
    if p.kind == TEXT:
        return draw(st.sampled_from(["cover", "weather", "x-1"]))
    return draw(st.sampled_from(["lecture_5_vertices", "random:50:3", "((a,b)c,d)e;", "figure1"]))


@st.composite
def links(draw):
    page = draw(st.sampled_from(sorted(PAGES)))
    params = list(PAGES[page].all_settings.values())
    chosen = draw(st.lists(st.sampled_from(params), unique_by=lambda p: p.name, max_size=6))
    return page, {p.name: _value(draw, p) for p in chosen}


@given(links())
def test_build_then_parse_gives_the_values_back(case):
    page, values = case
    link = parse_link(build_link(page, values))
    assert link.page.url_path == page
    for name, v in values.items():
        got = link.values[name]
        if isinstance(v, float):
            assert got == v  # repr round-trips every double
        else:
            assert got == v, name


def test_links_are_readable_and_refuse_leaving_the_app():
    assert build_link("online_marginals", {"tree": "((4,5)2,3)1;", "evidence": {"4": 1}}) == \
        "/online_marginals?tree=((4,5)2,3)1%3B&evidence=4=1"
    assert build_link("tree_studio", {"tree": "path:5"}) == "/tree_studio?tree=path:5"
    assert build_link("lessons", {"lesson": "cover", "step": 2}) == "/?lesson=cover&step=2"   # the default page
    assert parse_link("/tree_studio?tree=path:5").page.url_path == "tree_studio"
    for bad in ("http://example.org/ofde", "//example.org/ofde", "ofde?vars=4", "/ofde#x", "", "/ofde?vars=4&vars=5"):
        with pytest.raises(InvalidParameterError):
            parse_link(bad)


@pytest.mark.parametrize("link, culprit", [
    ("/nowhere", "unknown page /nowhere"),
    ("/ofde?vars=3", "vars='3'"),
    ("/ofde?vars=abc", "vars='abc'"),
    ("/ofde?scale=2", "scale='2'"),
    ("/ofde?colour=red", "no parameter 'colour'"),
    ("/online_marginals?coupling=nan", "coupling='nan'"),
    ("/online_marginals?coupling=1e999", "coupling='1e999'"),
    ("/tree_hedge?run=maybe", "run='maybe'"),
    ("/online_marginals?evidence=4", "'4' is not VERTEX=LABEL"),
    ("/online_marginals?evidence=4=-1/2", "soft evidence at 4"),
    ("/online_marginals?psi=1,2;3", "square matrix"),
    ("/cover_inspector?step=0", "step='0'"),
    ("/ofde?lesson=" + "x" * 500, "500 characters"),
])
def test_a_bad_parameter_is_named(link, culprit):
    with pytest.raises(InvalidParameterError, match="^.*" + __import__("re").escape(culprit)):
        parse_link(link)


def test_parse_query_can_keep_the_good_and_report_the_bad():
    values, errors = parse_query("ofde", {"vars": ["99", "20"], "scale": "7", "x": "1", "tree": "(" * 5000},
                                 strict=False)
    assert values == {"vars": 20}
    assert len(errors) == 3 and "scale" in errors[0] and "'x'" in errors[1] and "link_chars" in errors[2]


@pytest.mark.parametrize("link, culprit", [
    ("/cover_inspector?tree=figure1&t=9", "t=9: this cover has rounds 0..4"),
    ("/cover_inspector?tree=figure1&root=4", "root=4: not a leaf"),
    ("/cover_inspector?tree=figure1&root=99", "root=99: the tree has no vertex named 99"),
    ("/cover_inspector?tree=figure1&node=77", "node=77: not a component"),
    ("/cover_inspector?tree=path:1", "shows trees of 2"),
    ("/belief_propagation?tree=path:1", "shows trees of 2"),
    ("/online_marginals?tree=figure1&region=tidy:1,0,0,1", "need x0 < x1"),
    ("/online_marginals?tree=figure1&region=polar:0,1,0,1", "LAYOUT one of tidy, radial"),
    ("/tree_studio?tree=figure1&region=radial:0,1,nan,1", "finite"),
    ("/cover_inspector?tree=figure1&region=tidy:0,1,0", "four numbers"),
    ("/belief_propagation?tree=lecture_5_vertices&messages=9", "2(n-1) = 8"),
    ("/online_marginals?tree=figure1&evidence=2=5", "labels are 0..1"),
    ("/online_marginals?tree=figure1&k=3&evidence=2=0.5/0.5", "has 2 weights; 2 has 3 labels"),
    ("/online_marginals?evidence=2=1", "must give tree="),
    ("/online_marginals?tree=figure1&psi=1,2;2,1&k=3", "psi is 2 x 2; k = 3"),
    ("/tree_hedge?tree=path:5&switches=5", "switches=5: the tree has 4 edges"),
    ("/belief_propagation?network=weather&evidence=Rain=maybe", "Rain has no state 'maybe'"),
    ("/belief_propagation?network=weather&tree=figure1", "either tree or network"),
    ("/belief_propagation?network=nosuch", "no sample network is called 'nosuch'"),
])
def test_a_link_that_does_not_fit_its_tree_is_refused(link, culprit):
    with pytest.raises(EngineError) as exc:
        check_link(parse_link(link))
    assert culprit in str(exc.value)


def test_a_good_link_passes_its_checks():
    for link in ("/cover_inspector?tree=figure1&root=1&t=4&node=10&vertex=5",
                 "/belief_propagation?network=weather&evidence=WetGrass=wet,Rain=0.2/0.8&vertex=Rain",
                 "/online_marginals?tree=path:9&k=3&evidence=4=2&psi=1,2,3;1,1,1;0,0,1",
                 "/tree_hedge?tree=random:60:7&trial=34&task=7"):
        check_link(parse_link(link))


# ---------------------------------------------------------------------- evidence and matrices

@given(st.dictionaries(st.text(st.characters(blacklist_characters=",=", blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
                               min_size=1, max_size=6).map(str.strip).filter(bool),
                       st.one_of(st.integers(0, 9),
                                 st.lists(st.floats(0, 1e300), min_size=2, max_size=4).filter(any).map(tuple)),
                       max_size=5))
def test_evidence_round_trips(ev):
    assert parse_evidence(format_evidence(ev)) == ev


def test_evidence_vectors_hard_soft_and_state_names():
    t = read_sample("lecture_5_vertices")
    got = evidence_vectors({"4": 1, "5": (0.25, 0.75)}, t, 2)
    assert got == {3: [0.0, 1.0], 4: [0.25, 0.75]}
    with pytest.raises(UnknownVertexError, match="evidence 9=1"):
        evidence_vectors({"9": 1}, t, 2)
    assert parse_matrix("2,1;1,2") == ((2.0, 1.0), (1.0, 2.0))


def test_a_name_with_a_comma_cannot_go_into_evidence():
    with pytest.raises(InvalidParameterError, match="comma"):
        format_evidence({"a,b": 1})


# ---------------------------------------------------------------------- ?tree=

def test_tree_links_name_samples_generators_figure1_and_newick():
    for name in sample_names():
        stem = name.split(".", 1)[0]
        assert _edges(tree_from_link(stem)) == _edges(read_sample(name))
        assert _edges(tree_from_link("sample:" + name)) == _edges(read_sample(name))
    assert tree_from_link("random:1000:7").n == 1000
    assert _edges(tree_from_link("random:300:2")) == _edges(tree_from_link("random:300:2"))
    assert tree_from_link("random:300") .n == 300  # seed 0 by default: reproducible
    assert tree_from_link("star-of-paths:1:0:k=8:m=6").n == 49
    assert tree_from_link("complete:40:0:b=3").n == 40
    assert tree_from_link("figure1").n == 14
    t = tree_from_link(" ((4,5)2,3)1; ")
    assert _edges(t) == _edges(read_sample("lecture_5_vertices")) and t.name(t.root) == "1"


@pytest.mark.parametrize("value, culprit", [
    ("random:1000001", "exceeds the limit of 1,000,000 vertices of a tree a link generates"),
    ("random:-3", "at least one vertex"),
    ("random:10:-1", "seed >= 0"),
    ("star-of-paths:5:0:k=1000:m=1000", "vertices: 1000001 exceeds"),
    ("random:ten", "must be an integer"),
    ("path:5:1:2", "KIND:N[:SEED]"),
    ("path:5:0:wings=2", "unknown option 'wings'"),
    ("nosuch", "is not a sample"),
    ("sample:../../etc/passwd", "no sample tree"),
    ("((a,b)", "the Newick tree of the link"),
    ("(" * 10 + "a" + ")" * 10 + ";", None),  # fine: nested, small
    ("(" + ",".join(f"v{i}" for i in range(1500)) + ");", "TREE_WORKBENCH_MAX_LINK_CHARS"),
    ("", "empty"),
])
def test_bad_tree_links_are_refused_in_one_line(value, culprit):
    if culprit is None:
        assert tree_from_link(value).n == 11
        return
    with pytest.raises(EngineError) as exc:
        tree_from_link(value)
    assert culprit in str(exc.value) and "\n" not in str(exc.value)


@given(trees(max_n=30))
def test_tree_to_link_round_trips_names_edges_and_root(t):
    text = tree_to_link(t)
    assert text is not None
    back = parse_link(build_link("cover_inspector", {"tree": text}))
    u = tree_from_link(back.values["tree"])
    assert _edges(u) == _edges(t) and sorted(u.names) == sorted(t.names) and u.name(u.root) == t.name(t.root)


def test_a_large_tree_gives_no_link():
    top = limits.value("link_chars")
    assert tree_to_link(tree_from_link(f"path:{top + 1}")) is None
    small = tree_to_link(tree_from_link("random:200:1"))
    assert small is not None and len(small) <= top
    with limits.raised(link_vertices=10**6, link_chars=10**6):  # a lecturer's server may allow more
        assert tree_from_link("random:300000").n == 300_000
        assert tree_to_link(tree_from_link(f"path:{top + 1}")) is not None
    assert parse_newick(small).n == 200


def test_numbers_from_tiny_to_huge_survive_a_link():
    p = PAGES["online_marginals"].setting("psi")
    m = ((1e-300, 1e300), (5e-324, 1.0))
    assert p.parse(format_value(p, m)) == m
    for x in (0.1, 1 / 3, -2.5, 3.0):
        q = PAGES["online_marginals"].setting("coupling")
        assert q.parse(format_value(q, x)) == x
    assert math.isfinite(float(np.float64(1e300)))


@pytest.mark.parametrize("module", ["workbench.declarations.value_formats", "workbench.declarations.settings",
                                    "workbench.declarations.page_spec", "workbench.declarations.page_table",
                                    "workbench.declarations.tree_text", "engine.trees.samples", "engine.inference.evidence",
                                    "engine.inference.models", "engine.networks", "engine.inference.messages",
                                    "workbench.declarations.lessons", "workbench.declarations.lessons.answers"])
def test_docstring_examples(module):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0
