"""The nine inputs an outside probe found slow, huge or read wrongly, one test or more
each (items 2 and 3, the sizes, are walked in ``tests/test_size_limits.py``). Memory is asserted
with ``tracemalloc`` (NumPy's arrays are traced), work by counting reads, never by timing; the
inputs themselves are in the fuzz corpus (``tests.fuzz.corpus.probe_cases``) and
``benchmarks/bench_hostile.py`` times them.
"""

import gzip
import io
import os
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

from engine import limits
from engine.errors import DataFormatError, DuplicateEdgeError, LimitExceededError, TreeFormatError
from engine.files import iter_lines, line_col, read_input, text_lines, text_rows
from engine.trees import read_tree
from engine.trees.formats.common import token_matrix, token_strings

NAME = "x" * 10_000_000


def peak_mib(fn):
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------- 1. a 10 MB vertex name

@pytest.mark.parametrize("name, text, n", [
    ("long.csv", f"a,{NAME}\n", 2), ("long.nwk", f"(a,{NAME});", 3), ("quoted.csv", f'a,"{NAME}"\n', 2),
    ("quoted.nwk", f"(a,'{NAME}');", 3), ("long.gml", f'graph [ node [ id 0 label "a" ] node [ id 1 label '
                                                    f'"{NAME}" ] edge [ source 0 target 1 ] ]', 2),
])
def test_a_10_mb_name_is_read_in_memory_linear_in_its_bytes(tmp_path, name, text, n):
    p = tmp_path / name
    p.write_text(text)
    read_tree(p)   # (the readers' modules loaded: not counted below)
    tree, peak = peak_mib(lambda: read_tree(p))
    assert tree.n == n and max(map(len, tree.names)) == len(NAME)
    assert peak < 250, f"{peak:.0f} MiB to read a 10 MB name"   # (it took 5 GB)


def test_token_matrix_copies_long_tokens_whole():
    rng = np.random.default_rng(0)
    lengths = np.array([0, 1, 4095, 4096, 4097, 9000, 3, 20_000])
    buf = rng.integers(33, 127, int(lengths.sum()) + 5, dtype=np.uint8)
    start = np.concatenate([[0], np.cumsum(lengths)[:-1]]) + 2
    mat, width = token_matrix(buf, start, lengths)
    assert width == 20_000
    for i, (s, k) in enumerate(zip(start, lengths)):
        assert bytes(mat[i, :k]) == bytes(buf[s:s + k]) and not mat[i, k:].any()
    strings = token_strings(mat, width)
    assert [len(x) for x in strings] == lengths.tolist() and strings[5] == bytes(buf[start[5]:start[5] + 9000]).decode()


# ---------------------------------------------------------------- 4. a flood of blank lines

class Counting(io.BytesIO):
    def __init__(self, data):
        super().__init__(data)
        self.reads = 0

    def read(self, n=-1):
        self.reads += 1
        return super().read(n)


def test_a_flood_of_blank_lines_is_skipped_a_block_at_a_time():
    data = b"\n" * (64 * 2**20) + b'{"a": 1}\n' + b" \n\t\n" * 1000 + b"x\n"
    stream = Counting(data)
    assert list(iter_lines(stream, skip_blank=True)) == [(64 * 2**20 + 1, '{"a": 1}\n'), (64 * 2**20 + 2002, "x\n")]
    assert stream.reads <= len(data) // 2**18 + 3   # blocks of 256 KiB, not a read per line
    text = data.decode()
    assert list(text_lines(text)) == [(64 * 2**20 + 1, '{"a": 1}'), (64 * 2**20 + 2002, "x")]
    rows, numbers = text_rows(text)
    assert rows == ['{"a": 1}', "x"] and list(numbers) == [64 * 2**20 + 1, 64 * 2**20 + 2002]


def test_a_gzip_flood_of_newlines_stops_at_the_byte_cap(tmp_path):
    from engine.htmm.data import read_jsonl_trees

    p = tmp_path / "nl.jsonl.gz"
    p.write_bytes(gzip.compress(b"\n" * (24 * 2**20), 9))
    with limits.raised(bytes=16 * 2**20):
        with pytest.raises(LimitExceededError, match=r"nl.jsonl.gz: more than 16,777,216 bytes after decompression"):
            read_jsonl_trees(p)
    with pytest.raises(DataFormatError, match="no trees in the file"):
        read_jsonl_trees(p)


@pytest.mark.parametrize("members, tail", [(1, b""), (3, b""), (2, b"\0\0\0\0"), (2, b"trailing garbage")])
def test_gzip_is_inflated_member_by_member(tmp_path, members, tail):
    parts = [os.urandom(70_000) + b"\n" * 100_000 for _ in range(members)]
    p = tmp_path / "m.gz"
    p.write_bytes(b"".join(gzip.compress(x) for x in parts) + tail)
    assert read_input(p) == b"".join(parts)
    whole = gzip.compress(parts[0])
    p.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(Exception, match="the gzip stream is truncated"):
        read_input(p)
    p.write_bytes(whole[:20] + bytes(b ^ 0xFF for b in whole[20:40]) + whole[40:])
    with pytest.raises(Exception, match="not a valid gzip stream"):
        read_input(p)


# ---------------------------------------------------------------- 5. an edge given twice at line 2

def test_an_edge_given_twice_is_refused_at_its_line_before_the_rest_is_read(tmp_path):
    whole = gzip.compress(b"a,b\n" * 2**20)   # 4 MiB of the same edge
    p = tmp_path / "ab.csv.gz"
    p.write_bytes(whole[: len(whole) // 2])   # truncated: reading it all would say so instead
    with pytest.raises(DuplicateEdgeError, match=r"ab.csv.gz: line 2: edge \(a, b\) is given more than once "
                                                 r"\(first on line 1\)"):
        read_tree(p)
    p = tmp_path / "late.csv"
    p.write_text("".join(f"v{i},v{i + 1}\n" for i in range(30_000)) + "v7,v8\n")   # beyond the first 64 KiB
    with pytest.raises(DuplicateEdgeError, match=r"line 30001: edge \(v7, v8\) is given more than once \(first on "
                                                 r"line 8\)"):
        read_tree(p)


# ---------------------------------------------------------------- 6. labels that are booleans

@pytest.mark.parametrize("labels", ["[true, 3, 2]", "[1, 3, false]", "[true, true, true]"])
def test_labels_are_never_booleans(tmp_path, labels):
    from engine.htmm.data import from_lists, read_jsonl_trees

    line = f'{{"y": 0, "labels": {labels}, "children": [[2, 3], [-1, -1], [-1, -1]]}}\n'
    p = tmp_path / "b.jsonl"
    p.write_text(line)
    with pytest.raises(DataFormatError, match="labels must be integers"):
        read_jsonl_trees(p)
    with pytest.raises(TreeFormatError, match="a boolean; labels are integers"):
        read_tree(p)
    import json

    with pytest.raises(DataFormatError, match="labels must be integers"):
        from_lists([json.loads(line)])
    q = tmp_path / "n.json"
    q.write_text('{"nodes": [{"id": "a", "label": true}, {"id": "b"}], "edges": [{"source": "a", "target": "b"}]}')
    with pytest.raises(TreeFormatError, match="node 'a' has the label true, a boolean"):
        read_tree(q)


# ---------------------------------------------------------------- 7. a setting the model ignores

@pytest.mark.parametrize("model, settings, words", [
    ("sp", {"lmin": 2}, "SP-BHTMM ignores lmin=2: a TF-BHTMM setting"),
    ("sp", {"phi": 3.0, "sampler": "prior"}, "SP-BHTMM ignores phi=3.0, sampler='prior': TF-BHTMM settings"),
    ("tf", {"estep": "paper"}, "TF-BHTMM ignores estep='paper': a SP-BHTMM setting"),
])
def test_a_setting_the_model_ignores_is_warned_in_one_line_for_both_models(model, settings, words):
    from engine.htmm.run import BhtmmConfig, run

    cfg = BhtmmConfig(model=model, states=2, iterations=1, synthetic_trees=2, **settings)
    with pytest.warns(UserWarning) as caught:
        run(cfg)
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and said[0].startswith(words) and "\n" not in said[0]


def test_the_page_gives_each_model_only_its_settings():
    from workbench.declarations.page_table import PAGES

    for model in ("tf", "sp"):
        for sp in ("exact", "paper", "authors"):
            config = PAGES["bhtmm"].run_config({"model": model, "sp": sp, "lmax": 4})
            assert config.model == model and config.ignored() is None


def test_the_command_line_prints_the_warning(tmp_path, capsys):
    from engine.cli import main
    from tests.fuzz.corpus import PROBE_TREES

    p = tmp_path / "t.jsonl"
    p.write_bytes(PROBE_TREES)
    with warnings.catch_warnings():
        assert main(["bhtmm", "--train", str(p), "--test", str(p), "--model", "sp", "--lmin", "2", "--states", "2",
                     "--iterations", "1", "--json"]) == 0
    err = capsys.readouterr().err
    assert err == "warning: SP-BHTMM ignores lmin=2: a TF-BHTMM setting (leave it out, or run TF-BHTMM)\n"


# ---------------------------------------------------------------- 8. lines a user sees

def test_a_vertical_tab_is_named_at_the_line_a_user_sees(tmp_path):
    p = tmp_path / "vt.csv"
    p.write_bytes(b"a\x01,b\x0b\nb\x0c,c\x7f")
    with pytest.raises(TreeFormatError, match=r"vt.csv: a vertical tab \(U\+000B\) at line 1, column 5"):
        read_tree(p)
    p.write_bytes(b"# notes\r\na,b\r\n\r\nb,c\x0c\n")
    with pytest.raises(TreeFormatError, match=r"a form feed \(U\+000C\) at line 4, column 4"):
        read_tree(p)
    p.write_bytes(b"a,b\rb,c\rc\n\n\n,\n")   # lone carriage returns end lines too
    with pytest.raises(TreeFormatError, match=r"line 6: expected 'u,v'"):
        read_tree(p)


def test_line_numbers_count_what_an_editor_shows():
    assert line_col("a\r\nb\rc\x0bd\u2028e", 8) == (3, 4)
    assert list(text_lines("x\x1c\ny\x85z\n\u2029\n")) == [(1, "x\x1c"), (2, "y\x85z")]


def test_a_data_file_names_the_line_a_user_sees(tmp_path):
    from engine.forests.data import read_data

    p = tmp_path / "d.csv"
    p.write_text("a,b\n0,1\x0b\n\x0c\n1,x\n")
    with pytest.raises(DataFormatError, match=r"line 4, column 2: 'x' is not an integer"):
        read_data(p)


# ---------------------------------------------------------------- 9. the first call on a fresh clone

@pytest.mark.slow
def test_a_command_that_must_compile_says_so_first(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    cmd = [sys.executable, "-m", "engine", "generate", "random", "--n", "5", str(tmp_path / "t.csv")]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    assert first.stderr.startswith("compiling kernels once, about ") and first.stderr.endswith(
        " s; `python -m engine.warmup` does it ahead\n"), first.stderr
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0 and again.stderr == ""   # loaded from the cache: nothing to say


def test_the_compile_estimate_counts_the_kernels_the_cache_lacks(monkeypatch):
    import engine.cover  # noqa: F401 - a package imported: its kernel module counts, imported or not
    import engine.trees._kernels  # noqa: F401 - a kernel module, imported
    from engine import warmup

    assert set(warmup.COMPILE_SECONDS) <= set(warmup.kernel_modules())
    monkeypatch.setattr(warmup, "COMPILE_SECONDS", {"engine.trees._kernels": 4.0, "engine.cover._kernels": 5.0,
                                                    "engine.not_imported._kernels": 100.0})
    monkeypatch.setattr(warmup, "_on_disk", lambda d: False)
    monkeypatch.setattr(warmup, "_indexed", lambda name: False)
    assert warmup.cold_seconds() == 9.0
    monkeypatch.setattr(warmup, "_on_disk", lambda d: True)
    monkeypatch.setattr(warmup, "_indexed", lambda name: True)
    assert warmup.cold_seconds() == 0.0
