"""The one file opener (engine.files) and the named limits (engine.limits)."""

import gzip
import io
import os
import threading

import pytest

from engine import limits
from engine.errors import DataFormatError, InputFileError, InvalidParameterError, LimitExceededError
from engine.files import decompress, iter_lines, open_input, read_input, read_stream, read_text
from engine.forests.data import read_data
from engine.htmm.data import read_jsonl_trees
from engine.multilabel.data import read_arff
from engine.trees import read_tree

READERS = [read_tree, read_data, read_jsonl_trees, lambda p: read_arff(p, labels=1)]


def test_regular_file_text_with_and_without_bom(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"\xef\xbb\xbfa,b\n")
    assert read_text(p) == "a,b\n"
    p.write_bytes(b"a,b\n")
    assert read_text(p) == "a,b\n"
    g = tmp_path / "t.csv.gz"
    g.write_bytes(gzip.compress(b"\xef\xbb\xbfa,b\n"))
    assert read_text(g) == "a,b\n"


def test_bad_utf8_names_line_and_column(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"a,b\nb,\xffc\n")
    with pytest.raises(InputFileError, match=r"t.csv: not UTF-8 text: byte 0xff at line 2, column 3$"):
        read_text(p)
    assert read_text(p, fallback="latin-1").endswith("\xffc\n")


@pytest.mark.parametrize("reader", READERS, ids=["tree", "forests", "htmm", "arff"])
def test_every_reader_refuses_a_fifo_without_blocking(tmp_path, reader):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    done = []
    t = threading.Thread(target=lambda: done.append(_message(reader, fifo)), daemon=True)
    t.start()
    t.join(10)
    assert done, "reading a FIFO blocked"
    assert "pipe.csv: is a FIFO (named pipe), not a regular file" in done[0]


@pytest.mark.parametrize("reader", READERS, ids=["tree", "forests", "htmm", "arff"])
def test_every_reader_refuses_devices_and_directories(tmp_path, reader):
    assert "is a character device, not a regular file" in _message(reader, "/dev/zero")
    assert "is a directory" in _message(reader, tmp_path)
    assert "no such file" in _message(reader, tmp_path / "nope.csv")


@pytest.mark.parametrize("reader", READERS, ids=["tree", "forests", "htmm", "arff"])
def test_every_reader_has_a_decompression_cap(tmp_path, reader):
    p = tmp_path / "bomb.data.gz"
    p.write_bytes(gzip.compress(b"0" * (4 * 2**20)))  # 4 MiB in one line, a few KB packed
    with limits.raised(bytes=2**20):
        msg = _message(reader, p)
    assert "bomb.data.gz: more than 1,048,576 bytes after decompression" in msg
    assert "limit 'bytes'" in msg and "TREE_WORKBENCH_MAX_BYTES=" in msg and "\n" not in msg


def test_named_gz_but_not_gzip_and_truncated_gzip(tmp_path):
    p = tmp_path / "x.csv.gz"
    p.write_bytes(b"a,b\n")
    with pytest.raises(InputFileError, match="x.csv.gz: named .gz but not a gzip file"):
        read_input(p)
    data = gzip.compress(b"a,b\n" * 10_000)
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFormatError, match="x.csv.gz: the gzip stream is truncated"):
        read_input(p, error=DataFormatError)


def test_plain_file_over_the_cap_is_refused_before_reading(tmp_path):
    p = tmp_path / "big.csv"
    p.write_bytes(b"x" * 5000)
    with pytest.raises(LimitExceededError, match=r"big.csv: 5,000 bytes exceeds the limit of 4,096"):
        read_input(p, max_bytes=4096)


def test_explicit_stream_is_capped_even_when_endless():
    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, b):
            b[:] = b"\0" * len(b)
            return len(b)

    with limits.raised(bytes=10_000):
        with pytest.raises(LimitExceededError, match=r"stdin: more than 10,000 bytes"):
            read_stream(Endless(), label="stdin")
    assert read_stream(io.BytesIO(gzip.compress(b"abc")), label="upload") == b"abc"
    with pytest.raises(LimitExceededError, match="upload: more than 100 bytes after decompression"):
        decompress(gzip.compress(b"\0" * 10_000), label="upload", max_bytes=100)


def test_iter_lines_drops_the_bom_and_names_bad_lines(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_bytes(b"\xef\xbb\xbf{}\n\xff\n")
    with open_input(p) as fh:
        it = iter_lines(fh, "x.jsonl")
        assert next(it) == (1, "{}\n")
        with pytest.raises(InputFileError, match=r"x.jsonl: line 2: not UTF-8 text \(byte 0xff at column 1\)"):
            next(it)


def test_limits_env_keyword_and_messages(monkeypatch):
    assert limits.check("states", 5) == 5
    with pytest.raises(LimitExceededError) as e:
        limits.check("states", 200_000, "scenario: 'states'")
    msg = str(e.value)
    assert msg.startswith("scenario: 'states': 200000 exceeds the limit of 4,096")
    assert "TREE_WORKBENCH_MAX_STATES=200000" in msg and "engine.limits.raised(states=200000)" in msg
    monkeypatch.setenv("TREE_WORKBENCH_MAX_STATES", "300000")
    assert limits.check("states", 200_000) == 200_000
    with limits.raised(states=10):
        with pytest.raises(LimitExceededError):
            limits.check("states", 11)
    monkeypatch.setenv("TREE_WORKBENCH_MAX_STATES", "lots")
    with pytest.raises(InvalidParameterError, match="TREE_WORKBENCH_MAX_STATES='lots' is not a whole number"):
        limits.value("states")


@pytest.mark.parametrize("count, message", [
    (1e12, "--trials: 1000000000000 exceeds the limit"),
    (2**70, "--trials: about 10^21 exceeds the limit"),
    (float("inf"), "--trials: inf exceeds the limit"),
    (float("nan"), "--trials must be a whole number >= 1, got nan"),
    (2.5, "--trials must be a whole number >= 1, got 2.5"),
    (True, "--trials must be a whole number >= 1, got True"),
    ("7", "--trials must be a whole number >= 1, got '7'"),
    (0, "--trials must be a whole number >= 1, got 0"),
])
def test_check_count_refuses_in_one_line(count, message):
    with pytest.raises((LimitExceededError, InvalidParameterError), match=message.replace("(", r"\(")
                       .replace(")", r"\)").replace("^", r"\^").replace("+", r"\+")):
        limits.check_count("trials", count, "--trials", minimum=1)
    assert limits.check_count("trials", 1e3, "--trials", minimum=1) == 1000


def test_every_limit_is_documented():
    rows = limits.describe()
    assert {r["limit"] for r in rows} == set(limits.LIMITS)
    assert all(r["environment"].startswith("TREE_WORKBENCH_MAX_") and r["value"] > 0 for r in rows)


def _message(reader, path) -> str:
    try:
        reader(path)
    except (InputFileError, DataFormatError, LimitExceededError) as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - the test reports what escaped
        return f"UNEXPECTED {type(exc).__name__}: {exc}"
    return "READ WITHOUT ERROR"
