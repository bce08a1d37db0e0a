"""Tree formats: round trips on random trees (hypothesis), interoperability with networkx, and a
one-line error naming the file and the place for every malformed input."""

import gzip
import io
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import (LimitExceededError, CycleError, DisconnectedError, DuplicateEdgeError, EmptyTreeError, EngineError, NotATreeError, SelfLoopError, TreeFormatError)
from engine.trees import read_tree, write_tree
from engine import limits
from engine.trees.formats import (FORMATS, MAX_INPUT_BYTES, format_tree_text, parse_newick_lengths,
                                  parse_tree_text, read_tree_bytes, sniff_format, tree_to_bytes)
from engine.trees.generators import path_tree, random_tree
from engine.trees.model import Tree
from tests.conftest import ROOT
from tests.tree_strategies import same_tree, trees

ALL = ["edgelist", "json", "gml", "graphml", "newick", "xml", "jsonl"]


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("fmt", ["edgelist", "newick"])
@given(t=trees())
def test_round_trip_names(fmt, t):
    back = parse_tree_text(format_tree_text(t, fmt), fmt)
    same_tree(t, back, labels=False)


@pytest.mark.parametrize("fmt", ["json", "gml", "graphml", "jsonl"])
@given(t=trees(labels="any"))
def test_round_trip_names_and_labels(fmt, t):
    back = parse_tree_text(format_tree_text(t, fmt), fmt)
    same_tree(t, back)


@given(t=trees(labels="any"))
def test_round_trip_xml_document(t):
    back = parse_tree_text(format_tree_text(t, "xml"), "xml")
    same_tree(t, back, str_labels=True)


@given(t=trees(names=False))
def test_round_trip_xml_unlabelled_keeps_names(t):
    back = parse_tree_text(format_tree_text(t, "xml"), "xml")
    same_tree(t, back, labels=False)
    assert set(back.labels) == {"node"}


@pytest.mark.parametrize("fmt", ["newick", "xml", "jsonl"])
@given(t=trees(max_n=25))
def test_ordered_formats_keep_children_order(fmt, t):
    back = parse_tree_text(format_tree_text(t, fmt), fmt)
    for v in range(t.n):
        w = back.index(t.name(v))
        assert [t.name(c) for c in t.children(v)] == [back.name(c) for c in back.children(w)]


@given(t=trees(max_n=30, labels="ints"), data=st.data())
def test_jsonl_keeps_slot_positions(t, data):
    # give every child a distinct random slot among 1..L
    width = int(np.diff(t.children_ptr).max()) + 2 if t.n > 1 else 1
    pos = np.zeros(t.n, np.int64)
    for v in range(t.n):
        kids = t.children(v)
        if kids.size:
            slots = data.draw(st.permutations(range(1, width + 1)))[:kids.size]
            pos[kids] = slots
    pt = Tree(t.parent, t.order, t.root, None if t.has_default_names else t.names, t.labels, pos)
    back = parse_tree_text(format_tree_text(pt, "jsonl"), "jsonl")
    same_tree(pt, back)
    for v in range(t.n):
        assert back.positions[back.index(pt.name(v))] == pt.positions[v]


@pytest.mark.parametrize("ext", sorted(FORMATS) + [".csv.gz", ".nwk.gz", ".jsonl.gz", ".xml.gz"])
def test_files_by_extension(tmp_path, ext):
    t = random_tree(30, seed=1).with_names([f"v{i}" for i in range(30)])
    path = tmp_path / f"tree{ext}"
    write_tree(t, path)
    same_tree(t, read_tree(path), labels=False)
    if ext.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"


@pytest.mark.parametrize("fmt", ALL)
def test_content_sniffing_without_extension(tmp_path, fmt):
    t = random_tree(12, seed=3).with_names([f"n{i}" for i in range(12)])
    text = format_tree_text(t, fmt)
    assert sniff_format(text) == fmt
    p = tmp_path / "tree.dat"
    p.write_text(text, encoding="utf-8")
    same_tree(t, read_tree(p), labels=False)
    gz = tmp_path / "tree.bin"
    gz.write_bytes(gzip.compress(text.encode()))
    same_tree(t, read_tree(gz), labels=False)


def test_graphml_in_xml_file_told_apart_by_content(tmp_path):
    t = random_tree(10, seed=0).with_labels([f"t{i % 3}" for i in range(10)])
    p = tmp_path / "graph.xml"
    p.write_text(format_tree_text(t, "graphml"), encoding="utf-8")
    same_tree(t, read_tree(p))
    q = tmp_path / "doc.xml"
    q.write_text("<?xml version='1.0'?>\n<!-- c --><graphmlish><a/></graphmlish>", encoding="utf-8")
    assert read_tree(q).labels == ("graphmlish", "a")


# ---------------------------------------------------------------- interoperability with networkx
def test_networkx_reads_our_gml_graphml_and_json(tmp_path):
    t = random_tree(25, seed=5).with_names([f"x {i}" for i in range(25)]).with_labels([i % 4 + 1 for i in range(25)])
    g_ref = t.to_networkx()
    write_tree(t, tmp_path / "t.gml")
    g = nx.read_gml(tmp_path / "t.gml")
    assert set(g.nodes) == set(g_ref.nodes) and {frozenset(e) for e in g.edges} == {frozenset(e) for e in g_ref.edges}
    assert {v: d["category"] for v, d in g.nodes(data=True)} == dict(g_ref.nodes(data="label"))
    write_tree(t, tmp_path / "t.graphml")
    g = nx.read_graphml(tmp_path / "t.graphml")
    assert {frozenset(e) for e in g.edges} == {frozenset(e) for e in g_ref.edges}
    assert dict(g.nodes(data="label")) == dict(g_ref.nodes(data="label"))
    assert g.graph["root"] == t.name(t.root)
    write_tree(t, tmp_path / "t.json")
    g = nx.node_link_graph(json.loads((tmp_path / "t.json").read_text()), edges="edges")
    assert {frozenset(e) for e in g.edges} == {frozenset(e) for e in g_ref.edges}


def test_we_read_networkx_files(tmp_path):
    g = nx.random_labeled_tree(40, seed=2) if hasattr(nx, "random_labeled_tree") else nx.random_tree(40, seed=2)
    g = nx.relabel_nodes(g, {v: f"node-{v}" for v in g})
    nx.set_node_attributes(g, {v: v[-1] for v in g}, "label")
    want = Tree.from_named_edges(list(g.edges), vertices=list(g.nodes), labels=dict(g.nodes(data="label")))
    nx.write_graphml(g, tmp_path / "g.graphml")
    same_tree(want, read_tree(tmp_path / "g.graphml"), root=False)
    h = g.copy()
    nx.set_node_attributes(h, {v: v[-1] for v in h}, "category")
    for v in h:
        del h.nodes[v]["label"]
    nx.write_gml(h, tmp_path / "g.gml")
    same_tree(want, read_tree(tmp_path / "g.gml"), root=False)
    (tmp_path / "g.json").write_text(json.dumps(nx.node_link_data(g, edges="links")))
    same_tree(want, read_tree(tmp_path / "g.json"), root=False)


# ---------------------------------------------------------------- Newick specifics
def test_newick_phylogeny_internal_names_and_lengths():
    t, lengths = parse_newick_lengths("((A:0.1,B:0.2)AB:0.05,'C d''e':1e-3)root;")
    assert t.name(t.root) == "root"
    assert set(t.names) == {"root", "AB", "A", "B", "C d'e"}
    assert {tuple(e) for e in t.named_edges()} == {("root", "AB"), ("root", "C d'e"), ("AB", "A"), ("AB", "B")}
    assert lengths[t.index("A")] == 0.1 and lengths[t.index("C d'e")] == 1e-3 and np.isnan(lengths[t.root])


def test_newick_unnamed_nodes_comments_and_blanks():
    t = parse_tree_text("( [a comment] A , (B, ) , :0.5 ) ;\n", "newick")
    assert t.n == 6 and "A" in t.names and "B" in t.names
    assert t.names[0] == "0"  # unnamed root: its preorder index


def test_newick_unnamed_fallback_avoids_explicit_names():
    t = parse_tree_text("(1,(,));", "newick")
    assert len(set(t.names)) == t.n == 5 and t.names[0] == "0" and "1" in t.names


def test_newick_100000_levels_of_nesting():
    depth = 100_000
    text = "(" * depth + "leaf" + "".join(f")i{k}" for k in range(depth)) + ";"
    t = parse_tree_text(text, "newick")
    assert t.n == depth + 1 and int(t.depth.max()) == depth
    assert t.name(t.root) == f"i{depth - 1}"
    back = parse_tree_text(format_tree_text(t, "newick"), "newick")
    same_tree(t, back, labels=False)


@pytest.mark.slow
def test_deep_xml_document_and_deep_formats():
    t = path_tree(100_000)
    for fmt in ("xml", "jsonl"):
        back = parse_tree_text(format_tree_text(t, fmt), fmt)
        assert back.n == t.n and int(back.depth.max()) == t.n - 1
    t = path_tree(20_000)
    for fmt in ("gml", "graphml", "json", "edgelist"):
        back = parse_tree_text(format_tree_text(t, fmt), fmt)
        assert back.n == t.n and int(back.depth.max()) == t.n - 1


# ---------------------------------------------------------------- positional JSON lines (real data slice)
@pytest.mark.data
def test_reads_benchmark_positional_trees(data_dir):
    path = data_dir / "trees" / "symm.train.jsonl.gz"
    with gzip.open(path, "rt") as fh:
        lines = [next(fh) for _ in range(3)]
    for k, line in enumerate(lines):
        rec = json.loads(line)
        t = read_tree(path, index=k)
        n = len(rec["children"])
        assert t.n == n and t.name(t.root) == "1" and list(t.labels) == rec["labels"]
        for a, row in enumerate(rec["children"], 1):
            for slot, c in enumerate(row, 1):
                if c != -1:
                    v = t.index(str(c))
                    assert t.parent[v] == t.index(str(a)) and t.positions[v] == slot
        # symm labels are the number of children + 1 (data README)
        assert all(t.labels[v] == t.children(v).size + 1 for v in range(t.n))
        # written back: the same record, slot lists cut to the widest slot used by this tree
        out = json.loads(format_tree_text(t, "jsonl"))
        width = len(out["children"][0])
        assert out["labels"] == rec["labels"] and set(out) == {"labels", "children"}
        assert out["children"] == [row[:width] for row in rec["children"]]
        assert all(c == -1 for row in rec["children"] for c in row[width:])
    with pytest.raises(TreeFormatError, match=r"symm.train.jsonl.gz: tree index 100000 is out of range: the file has 600"):
        read_tree(path, index=100_000)


# ---------------------------------------------------------------- validation errors
@pytest.mark.parametrize("text,error,message", [
    ("a,b\nb,c\nc,a\n", CycleError, r"edge \(c, a\) closes the cycle a-b-c|closes the cycle"),
    ("a,b\nc,d\n", DisconnectedError, r"not connected: vertex c cannot be reached from vertex a"),
    ("a,b\nb,b\n", SelfLoopError, r"line 2: edge \(b, b\) is a self-loop"),
    ("a,b\nb,a\n", DuplicateEdgeError, r"line 2: edge \(b, a\) is given more than once \(first on line 1\)"),
    ("u,v\nu,w\nu,w\n", DuplicateEdgeError, r"line 3: edge \(u, w\) is given more than once \(first on line 2\)"),
    ("# nothing\n\n", EmptyTreeError, r"empty"),
    ("a,b,c\n", TreeFormatError, r"line 1: expected 'u,v'"),
])
def test_edge_list_validation(text, error, message):
    with pytest.raises(error, match=message):
        parse_tree_text(text, "edgelist")


def test_cycle_error_names_the_cycle():
    with pytest.raises(CycleError) as exc:
        parse_tree_text("r,a\na,b\nb,c\nc,a\n", "edgelist")
    assert set(exc.value.cycle) == {"a", "b", "c"}
    assert f"closes the cycle {'-'.join(exc.value.cycle)}" in str(exc.value)


BAD = [
    ("bad.json", '{"nodes": [{"id": 1}], "edges": [}', r"bad.json: node-link JSON: invalid JSON at line 1, column 34"),
    ("bad.json", '{"nodes": [{"id": "a"}, {"id": "a"}], "edges": []}', r"bad.json: two vertices are named 'a'"),
    ("bad.json", '{"nodes": [{"id": "a"}], "edges": [{"source": "a", "target": "z"}]}', r"names 'z', which is not in 'nodes'"),
    ("bad.gml", 'graph [ node [ id 0 label "a" ] node [ id 1 label "b" ]\n edge [ source 0 target 7 ] ]',
     r"bad.gml: GML: edge \(0, 7\) refers to node id 7"),
    ("bad.gml", 'graph [\n node [ id 0 label "a" \n', r"bad.gml: the '\[' at line 2, column 7 is never closed"),
    ("bad.gml", 'graph [\n node [ id 0 label ] ]', r"bad.gml: key 'label' at line 2, column 14 has no value"),
    ("bad.gml", 'graph [ node [ id 0 label "a" ] node [ id 1 label "a" ] edge [ source 0 target 1 ] ]',
     r"two vertices are named 'a'"),
    ("bad.gml", 'graph [ node [ id 0 ] node [ id 0 ] ]', r"two nodes have id 0"),
    ("bad.gml", 'graph [ node [ id 0 ] @ ]', r"unexpected character '@' at line 1, column 23"),
    ("bad.graphml", '<graphml><graph><node id="a"/><edge source="a" target="b"/></graph></graphml>',
     r"bad.graphml: GraphML: edge \(a, b\) refers to node 'b'"),
    ("bad.graphml", '<graphml><graph><node id="a">\n</graph></graphml>',
     r"bad.graphml: GraphML is not well-formed: mismatched tag at line 2, column 3"),
    ("bad.graphml", '<gml/>', r"root element is <gml>, expected <graphml>"),
    ("bad.nwk", "((A,B),C;", r"bad.nwk: the '\(' at line 1, column 1 is never closed"),
    ("bad.nwk", "(A,B));", r"bad.nwk: unexpected '\)' at line 1, column 6: no '\(' is open"),
    ("bad.nwk", "(A,B)C D:x;", r"bad.nwk: branch length 'x' at line 1, column 10 is not a number"),
    ("bad.nwk", "(A,\n 'B);", r"unterminated quoted name starting at line 2, column 2"),
    ("bad.nwk", "(A,A);", r"two vertices are named 'A' \(at line 1, column 2 and line 1, column 4\)"),
    ("bad.nwk", "(A,B) (C);", r"unexpected '\(' at line 1, column 7"),
    ("bad.nwk", "(A:,B);", r"a branch length is missing after ':' at line 1, column 3"),
    ("bad.nwk", "  ;", r"no tree found"),
    ("bad.xml", "<a><b></a>", r"bad.xml: XML is not well-formed: mismatched tag at line 1, column 9"),
    ("bad.xml", "", r"bad.xml: XML is not well-formed: no element found"),
    ("bad.jsonl", '{"children": [[2], [-1]], "labels": [1, 1]}\n{"children": [[2], [3], [2]]}',
     r"bad.jsonl: tree index 5 is out of range: the file has 2 trees"),
    ("bad.jsonl", '{"children": [[2, 3], [3], [-1]]}', r"bad.jsonl: line 1: node 3 is the child of two slots: node 1, slot 2 and node 2, slot 1"),
    ("bad.jsonl", '{"children": [[2], [-1], [-1]]}', r"line 1: node 3 is no node's child"),
    ("bad.jsonl", '{"children": [[9]]}', r"line 1: node 1, slot 1: child 9 is not a node 1..1 or -1"),
    ("bad.jsonl", '{"children": [[-1], [1]]}', r"node 1 is the root and cannot be a child"),
    ("bad.jsonl", '{"children": [[2], [3], [2]]}', r"line 1: node 2 is the child of two slots"),
    ("bad.jsonl", '{"children": [[-1]], "labels": [1, 2]}', r"'labels' must be a list of 1 labels"),
    ("bad.jsonl", '{"children": [[2]', r"bad.jsonl: line 1: invalid JSON at line 1, column 18"),
    ("bad.csv", "a,b\n\xff\xfe,c\n", r"bad.csv: not UTF-8 text: byte 0xc3|bad.csv"),
    ("bad.csv", "a,b\nb,c\nc,a\n", r"bad.csv: edge .* closes the cycle"),
]


@pytest.mark.parametrize("name,content,message", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_malformed_files_give_one_line_errors(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_text(content, encoding="utf-8")
    with pytest.raises(EngineError, match=message) as exc:
        if name.endswith(".jsonl") and "index 5" in message:
            read_tree(p, index=5)
        else:
            read_tree(p)
    assert "\n" not in str(exc.value)


def test_bad_bytes_name_the_position(tmp_path):
    p = tmp_path / "t.nwk"
    p.write_bytes(b"(A,B\n,\xff);")
    with pytest.raises(TreeFormatError, match=r"t.nwk: not UTF-8 text: byte 0xff at line 2, column 2"):
        read_tree(p)


def test_newick_cycle_free_but_disconnected_jsonl_cycle(tmp_path):
    # nodes 2 and 3 are each other's child: every node has one parent, but 2-3 is a cycle cut off
    p = tmp_path / "c.jsonl"
    p.write_text('{"children": [[-1], [3], [2]]}\n')
    with pytest.raises(NotATreeError, match="c.jsonl: line 1: "):
        read_tree(p)


# ---------------------------------------------------------------- XML safety
BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lolz>&lol3;</lolz>"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<foo>&xxe;</foo>"""

GRAPHML_BOMB = """<?xml version="1.0"?>
<!DOCTYPE graphml [ <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"> ]>
<graphml><graph><node id="&a;"/></graph></graphml>"""


@pytest.mark.parametrize("name,content,message", [
    ("bomb.xml", BILLION_LAUGHS, r"bomb.xml: XML: entity declarations are refused for safety \(entity 'lol'\)"),
    ("xxe.xml", EXTERNAL, r"xxe.xml: XML: entity declarations are refused for safety \(entity 'xxe', system 'file:///etc/passwd'\)"),
    ("bomb.graphml", GRAPHML_BOMB, r"bomb.graphml: GraphML: entity declarations are refused"),
    ("bomb.xml", GRAPHML_BOMB, r"bomb.xml: GraphML: entity declarations are refused"),
    ("bomb.dat", BILLION_LAUGHS, r"bomb.dat: XML: entity declarations are refused"),
])
def test_xml_bombs_and_external_entities_are_refused(tmp_path, name, content, message):
    p = tmp_path / name
    p.write_text(content)
    with pytest.raises(TreeFormatError, match=message):
        read_tree(p)


def test_doctype_without_entities_is_fine():
    t = parse_tree_text('<?xml version="1.0"?>\n<!DOCTYPE article SYSTEM "article.dtd">\n<article><sec/></article>', "xml")
    assert t.labels == ("article", "sec")


def test_gzip_bomb_is_refused(tmp_path):
    assert MAX_INPUT_BYTES == limits.value("bytes") == 256 * 2**20
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb") as fh:
        block = b"0" * 2**20
        for _ in range(12):
            fh.write(block)  # 12 MiB of zeros compress to about 12 KiB
    with limits.raised(bytes=8 * 2**20):  # the same code path, 32x faster
        for name in ("zeros.csv.gz", "zeros.jsonl.gz", "zeros.bin"):
            p = tmp_path / name
            p.write_bytes(buf.getvalue())
            with pytest.raises(LimitExceededError, match=rf"{name}: .*more than 8,388,608 bytes after decompression"
                               r".* TREE_WORKBENCH_MAX_BYTES="):
                read_tree(p)
            with pytest.raises(LimitExceededError, match=rf"{name}: .*exceeds the limit of 8,388,608 bytes"):
                read_tree_bytes(buf.getvalue(), name)
        big = tmp_path / "big.csv"
        big.write_bytes(b"a,b\n" * (3 * 2**21))
        with pytest.raises(LimitExceededError, match=r"big.csv: 25,165,824 bytes exceeds the limit of 8,388,608"):
            read_tree(big)


def test_truncated_gzip(tmp_path):
    data = gzip.compress(b"a,b\nb,c\n" * 1000)
    for name in ("t.csv.gz", "t.jsonl.gz"):
        p = tmp_path / name
        p.write_bytes(data[: len(data) // 2])
        with pytest.raises(TreeFormatError, match=rf"{name}: "):
            read_tree(p)


def test_unknown_output_extension_and_missing_file(tmp_path):
    with pytest.raises(TreeFormatError, match=r"t.doc: unknown tree format .doc"):
        write_tree(path_tree(3), tmp_path / "t.doc")
    with pytest.raises(TreeFormatError, match=r"no such file"):
        read_tree(tmp_path / "missing.csv")


def test_upload_bytes_and_gzip_download():
    t = random_tree(50, seed=9)
    data = tree_to_bytes(t, "x.nwk.gz")
    same_tree(t, read_tree_bytes(data, "upload.nwk.gz"), labels=False)
    same_tree(t, read_tree_bytes(data, "no-extension"), labels=False)


def test_every_sample_tree_reads():
    files = sorted((ROOT / "sample_trees").iterdir())
    assert len(files) >= 10
    exts = {"".join(f.suffixes) for f in files}
    assert len({FORMATS.get(e) for e in exts}) >= 5
    for f in files:
        t = read_tree(f)
        assert t.n >= 5
    assert read_tree(ROOT / "sample_trees" / "random_200.csv").n == 200


def test_edge_list_header_is_optional_and_never_eats_an_edge():
    assert parse_tree_text("source,target\na,b\nb,c\n", "edgelist").named_edges() == [("a", "b"), ("b", "c")]
    assert parse_tree_text("a\tb\nb c\n", "edgelist").n == 3
    for first in ("u", "Source", "from", "parent"):
        t = Tree.from_named_edges([(first, "x"), ("x", "y")])
        same_tree(t, parse_tree_text(format_tree_text(t, "edgelist"), "edgelist"))


@given(t=trees(max_n=30, labels="any"))
def test_gml_fast_and_general_paths_agree(t):
    from engine.trees.formats import gml

    text = format_tree_text(t, "gml")
    fast = gml._parse_simple(text)
    if fast is None:   # declined by design only when the word 'root' is also in a name or label
        assert len(gml._ROOT_WORD.findall(text)) != (1 if gml._ROOT.search(text) else 0), text[:300]
        same_tree(t, parse_tree_text(text, "gml"))   # the general path reads it
        return
    same_tree(t, fast)
    # an extra attribute leaves the fastest path; a nested block leaves the flat one too
    extra = text.replace("node [ id 0 ", 'node [ id 0 weight 1.5 ', 1)
    nested = text.replace("node [ id 0 ", 'node [ id 0 graphics [ x 1.0 y 2.0 ] ', 1)
    assert gml._parse_simple(extra) is None and gml._parse_flat(extra) is not None
    assert gml._parse_simple(nested) is None and gml._parse_flat(nested) is None
    same_tree(t, parse_tree_text(extra, "gml"))
    same_tree(t, parse_tree_text(nested, "gml"))


@pytest.mark.parametrize("text", ["garbage {{{", "(A,B)C", "A"])
def test_newick_without_semicolon_is_refused(text):
    with pytest.raises(TreeFormatError, match="does not end with ';'"):
        parse_tree_text(text, "newick")
