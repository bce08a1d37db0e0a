"""The tree commands (``engine.cli.main``, in this process: tests/conftest.py ``engine_cli``): outputs, and one `error:` line with exit status 2 for bad input."""

import json

import pytest

from engine.trees import read_tree
from tests.conftest import ROOT, engine_cli
from tests.tree_strategies import same_tree


def cli(*args, cwd=ROOT):
    return engine_cli(*args, cwd=cwd)


def test_info_json_and_text():
    r = cli("info", ROOT / "sample_trees" / "lecture_5_vertices.csv", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"n": 5, "edges": 4, "leaves": 3, "diameter": 3, "radius": 2,
                                    "max_degree": 3, "root": "1"}
    r = cli("info", ROOT / "sample_trees" / "primates.nwk")
    assert r.returncode == 0 and "diameter" in r.stdout and "Catarrhini" in r.stdout


def test_convert_chain_preserves_names(tmp_path, capsys):
    from engine.cli import main  # in-process: seven interpreter start-ups would cost more than the test

    src = ROOT / "sample_trees" / "primates.nwk"
    prev = src
    for ext in (".gml", ".graphml", ".xml", ".jsonl.gz", ".json", ".csv", ".nwk"):
        out = tmp_path / f"t{ext}"
        assert main(["convert", str(prev), str(out)]) == 0
        assert capsys.readouterr().err == ""
        prev = out
    same_tree(read_tree(src), read_tree(prev), labels=False)


def test_generate_then_info(tmp_path):
    out = tmp_path / "r.nwk"
    r = cli("generate", "random", "--n", 500, "--seed", 3, out)
    assert r.returncode == 0, r.stderr
    info = json.loads(cli("info", out, "--json").stdout)
    assert info["n"] == 500 and info["edges"] == 499


def test_info_chooses_a_tree_of_a_jsonl_file(tmp_path):
    p = tmp_path / "two.jsonl"
    p.write_text('{"children": [[2], [-1]]}\n{"children": [[2, 3], [-1, -1], [-1, -1]]}\n')
    assert json.loads(cli("info", p, "--json", "--index", 1).stdout)["n"] == 3


@pytest.mark.parametrize("content,name,args,message", [
    ("a,b\nb,c\nc,a\n", "cyc.csv", ("info",), "closes the cycle"),
    ("((A,B);", "bad.nwk", ("info",), "bad.nwk: the '(' at line 1, column 1 is never closed"),
    ("<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>", "bomb.xml", ("info",), "bomb.xml: XML: entity declarations are refused"),
    (None, "missing.csv", ("info",), "missing.csv: no such file"),
    ("a,b\n", "t.csv", ("convert", "OUT.doc"), "OUT.doc: unknown tree format .doc"),
    ("\x00\x01binary", "x.gml", ("info",), "x.gml: a NUL byte at line 1, column 1: not a text file"),
    (None, None, ("generate", "random", "--n", "-4", "OUT.csv"), "n must be a whole number in 1..2,000,000, got -4"),
    (None, None, ("generate", "blob", "--n", "4", "OUT.csv"), "argument kind: invalid choice: 'blob'"),
    (None, None, ("generate", "path", "--n", "x", "OUT.csv"), "argument --n: invalid int value: 'x'"),
    (None, None, ("info",), "the following arguments are required: tree"),
])
def test_bad_input_is_one_error_line(tmp_path, content, name, args, message):
    argv = list(args)
    if name:
        p = tmp_path / name
        if content is not None:
            p.write_text(content)
        argv.insert(1, p)
    argv = [str(tmp_path / a) if str(a).startswith("OUT") else a for a in argv]
    r = cli(*argv)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_directory_and_huge_line_answer_quickly(tmp_path):
    r = cli("info", tmp_path)
    assert r.returncode == 2 and "is a directory" in r.stderr
    p = tmp_path / "long.jsonl"
    p.write_text('{"children": [' + "[-1]," * 2_000_000 + "[-1]]}\n")
    r = cli("info", p)  # 2,000,001 unreachable nodes: refused with the first one named
    assert r.returncode == 2 and "node 2 is no node's child" in r.stderr


@pytest.mark.parametrize("name,content,message", [
    ("deep.json", "[" * 200_000 + "]" * 200_000, "deep.json: node-link JSON: nested deeper than"),
    ("deep.jsonl", '{"children": ' + "[" * 200_000 + "]" * 200_000 + "}", "deep.jsonl: line 1: nested deeper than"),
    ("deep.gml", "graph [" + " a [" * 100_000 + "]" * 100_001, "deep.gml: the tree is empty"),
])
def test_deeply_nested_files_answer_in_one_line(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_text(content)
    r = cli("info", p)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


def test_deep_xml_document_reads(tmp_path):
    p = tmp_path / "deep.xml"
    p.write_text("<a>" * 200_000 + "</a>" * 200_000)
    r = cli("info", p, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["diameter"] == 199_999
