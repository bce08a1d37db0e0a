"""The one way the engine opens an input file: bounded, regular, decoded with a clear error.

Every reader of the engine (tree formats, forest CSVs, ARFF, tree data sets, scenarios, configs)
opens its input here, so that every reader refuses the same hostile inputs in the same way:

* only a **regular file** is opened (a FIFO, ``/dev/zero``, a socket or a directory is refused in
  one line, without blocking: the file is opened non-blocking and checked with ``fstat``); an
  explicit stream (standard input, an upload) goes through :func:`read_stream` with the same cap;
* a **gzip** file (recognised by its magic bytes, whatever its name) is decompressed on the fly;
  a file named ``.gz`` that is not gzip is refused;
* at most :func:`engine.limits.value("bytes") <engine.limits.value>` bytes are read *after
  decompression* (256 MiB unless raised), so a 255 KB bomb stops at the cap, not in swap;
* text is UTF-8, with or without a byte-order mark; a byte that does not decode is reported with
  its line and column.

Every refusal is one line starting with the file's name: an :class:`~engine.errors.InputFileError`
(or the error class the reader passes, e.g. :class:`~engine.errors.TreeFormatError`) or a
:class:`~engine.errors.LimitExceededError` naming the ``bytes`` limit and how to raise it.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as d:
...     p = os.path.join(d, "t.csv")
...     _ = open(p, "w").write("\\ufeffa,b\\n")
...     read_text(p)
'a,b\\n'
"""

from __future__ import annotations

import array
import contextlib
import io
import itertools
import os
import re
import stat
import zlib
from pathlib import Path

from engine import limits
from engine.errors import InputFileError, LimitExceededError

__all__ = ["open_input", "read_input", "read_text", "iter_lines", "text_lines", "text_rows", "line_col", "read_stream",
           "decompress", "decode_text", "GZIP_MAGIC", "PathPolicy", "ANY_PATH", "browser_paths", "SAMPLES_DIR",
           "NETWORK_SAMPLES_DIR", "public_message"]

#: the sample trees shipped with the project (next to ``engine/`` in a checkout)
SAMPLES_DIR = Path(__file__).resolve().parent.parent / "sample_trees"
#: the sample networks shipped with the project
NETWORK_SAMPLES_DIR = SAMPLES_DIR.parent / "sample_networks"

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 16


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_regular(path: Path, label: str, error) -> io.FileIO:
    """Open ``path`` read-only if it is a regular file; never blocks on a FIFO."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{label}: no such file") from None
    except IsADirectoryError:
        raise error(f"{label}: is a directory, not a file") from None
    except PermissionError:
        raise error(f"{label}: permission denied") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise error(f"{label}: cannot be opened ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{label}: is {_kind(st.st_mode)}, not a regular file; only regular files are read")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return io.FileIO(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


class _Gunzip(io.RawIOBase):
    """The decompressed bytes of a gzip stream (every member of a concatenated one; what follows the
    last member is ignored, as :func:`decompress` does), inflated by zlib in C with its CRC and
    length checks: about twice the speed of :class:`gzip.GzipFile`, whose header parsing and
    buffering run in Python. A stream that ends inside a member raises :class:`EOFError`."""

    def __init__(self, raw):
        self.raw, self.d, self.tail, self.done = raw, zlib.decompressobj(16 + zlib.MAX_WBITS), b"", False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self.done:
            if self.d.eof:   # a member ended: another one follows, or the stream is done
                rest = self.d.unused_data   # (everything after the member; unconsumed_tail is stale then)
                while len(rest) < 2 and (more := self.raw.read(_CHUNK)):
                    rest += more
                if not rest.startswith(GZIP_MAGIC):
                    self.done = True
                    break
                self.d, self.tail = zlib.decompressobj(16 + zlib.MAX_WBITS), rest
            if not self.tail:
                self.tail = self.raw.read(_CHUNK)
                if not self.tail:   # the file ended: the output zlib may still hold, or a truncated stream
                    out = self.d.decompress(b"", len(b))
                    if not out:
                        raise EOFError("the gzip stream is truncated")
                    b[:len(out)] = out
                    return len(out)
            out = self.d.decompress(self.tail, len(b))
            self.tail = self.d.unconsumed_tail
            if out:
                b[:len(out)] = out
                return len(out)
        return 0

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            super().close()


class _Capped(io.RawIOBase):
    """A raw stream over ``inner`` (a file or a GzipFile) that refuses to yield more than ``cap`` bytes."""

    def __init__(self, inner, cap: int, label: str, error, compressed: bool):
        self.inner, self.cap, self.label, self.error, self.compressed = inner, cap, label, error, compressed
        self.total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        want = min(len(b), self.cap + 1 - self.total)
        if want <= 0:
            self._over()
        try:
            n = self.inner.readinto(memoryview(b)[:want])
        except (EOFError, zlib.error) as exc:
            what = "the gzip stream is truncated" if isinstance(exc, EOFError) else f"not a valid gzip stream ({exc})"
            raise self.error(f"{self.label}: {what}") from None
        except OSError as exc:
            raise self.error(f"{self.label}: cannot be read ({exc.strerror or exc})") from None
        n = n or 0
        self.total += n
        if self.total > self.cap:
            self._over()
        return n

    def _over(self):
        after = " after decompression (a decompression bomb?)" if self.compressed else ""
        raise LimitExceededError(limits.refusal("bytes", f"{self.label}: more than {self.cap:,} bytes{after}",
                                                self.cap * 2, self.cap))

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            super().close()


def _label(path, label) -> str:
    return str(path) if label is None else label


@contextlib.contextmanager
def open_input(path, *, label: str | None = None, error=InputFileError, max_bytes: int | None = None):
    """A buffered binary stream of a regular file, gunzipped when it is gzip, capped at ``max_bytes``.

    label : the name used in messages (default: the path as given).
    error : the :class:`~engine.errors.EngineError` subclass raised for a file that cannot be read
        (a reader passes its own, e.g. ``TreeFormatError``); the byte cap raises
        :class:`~engine.errors.LimitExceededError`.
    max_bytes : bytes to read at most, after decompression (default: the ``bytes`` limit).
    """
    path = Path(path)
    label = _label(path, label)
    cap = limits.value("bytes") if max_bytes is None else int(max_bytes)
    raw = _open_regular(path, label, error)
    try:
        head = raw.read(2) or b""
        raw.seek(0)
    except OSError as exc:
        raw.close()
        raise error(f"{label}: cannot be read ({exc.strerror or exc})") from None
    compressed = head == GZIP_MAGIC
    if not compressed and path.name.lower().endswith(".gz") and head:
        raw.close()
        raise error(f"{label}: named .gz but not a gzip file")
    if not compressed and os.fstat(raw.fileno()).st_size > cap:
        size = os.fstat(raw.fileno()).st_size
        raw.close()
        raise LimitExceededError(limits.refusal("bytes", f"{label}: {size:,} bytes", size, cap))
    inner = _Gunzip(raw) if compressed else raw
    stream = io.BufferedReader(_Capped(inner, cap, label, error, compressed), buffer_size=_CHUNK)
    try:
        yield stream
    finally:
        stream.close()
        raw.close()


def read_input(path, *, label: str | None = None, error=InputFileError, max_bytes: int | None = None) -> bytes:
    """All the bytes of a regular file (gunzipped), within ``max_bytes``; see :func:`open_input`."""
    with open_input(path, label=label, error=error, max_bytes=max_bytes) as fh:
        return fh.read()


def decode_text(data: bytes, label: str, *, error=InputFileError, fallback: str | None = None) -> str:
    """``data`` as UTF-8 text without a byte-order mark; a bad byte is reported with line and column.

    label : the name starting each message ("" for none: the caller adds it).

    fallback : an encoding to use instead when the data is not UTF-8 (``"latin-1"`` for ARFF files
        written by old Weka versions), or None to refuse.
    """
    who = f"{label}: " if label else ""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not fallback:
            raise error(f"{who}not UTF-8 text: byte {data[exc.start]:#04x} at {_line_col(data, exc.start)}") from None
        text = data.decode(fallback)
    nul = data.find(b"\0")
    if nul >= 0:  # UTF-8 allows it, but no text format does: a binary file, or a corrupted one
        raise error(f"{who}a NUL byte at {_line_col(data, nul)}: not a text file")
    return text


def line_col(text: str | bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text`` (characters, or bytes of a ``bytes``), as an
    editor shows them: lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (see :func:`text_lines`).

    >>> line_col("a\\r\\nb\\rc\\x0bd", 6)
    (3, 2)
    """
    nl, cr = ("\n", "\r") if isinstance(text, str) else (b"\n", b"\r")
    line = text.count(nl, 0, offset) + 1
    start = text.rfind(nl, 0, offset) + 1
    if cr in text:   # lone carriage returns end lines too
        line += text.count(cr, 0, offset) - text.count(cr + nl, 0, offset + 1)
        start = max(start, text.rfind(cr, 0, offset) + 1)
    return line, offset - start + 1


def _line_col(data: bytes, offset: int) -> str:
    return "line {}, column {}".format(*line_col(data, offset))


def read_text(path, *, label: str | None = None, error=InputFileError, max_bytes: int | None = None,
              fallback: str | None = None) -> str:
    """The text of a regular file (gunzipped; UTF-8, BOM dropped), within ``max_bytes``."""
    label = _label(path, label)
    return decode_text(read_input(path, label=label, error=error, max_bytes=max_bytes), label, error=error,
                       fallback=fallback)


#: bytes a line reader takes from its stream at a time
_BLOCK = 1 << 18
#: a run of ASCII blanks (the characters ``bytes.isspace`` knows), matched in C
_BLANK_BYTES = re.compile(rb"[ \t\n\r\x0b\x0c]+")
_WS_BYTES = frozenset(b" \t\n\r\x0b\x0c")


def iter_lines(stream, label: str = "", *, error=InputFileError, max_bytes: int | None = None,
               as_bytes: bool = False, skip_blank: bool = False):
    """Yield ``(lineno, text)`` of the lines of a binary stream (BOM dropped from the first line),
    decoding each as UTF-8 and stopping at ``max_bytes`` bytes in all; messages start with
    ``label`` and the line number. ``as_bytes``: yield each line's bytes, checked to be UTF-8 (a
    reader that scans bytes then holds one copy of a long line, not two). Each line keeps its
    ``\\n``; lines end at ``\\n`` only.

    ``skip_blank``: lines of ASCII blanks only are not yielded (they still count). They are
    skipped in runs, a block of the stream at a time (``bytes.isspace`` and a regular expression,
    both in C), so a flood of empty lines reaches the byte cap in about a second instead of
    minutes of one Python step per line.
    """
    cap = limits.value("bytes") if max_bytes is None else int(max_bytes)
    who = f"{label}: " if label else ""
    total = 0

    def more() -> bytes:
        nonlocal total
        try:
            chunk = stream.read(min(_BLOCK, cap + 1 - total)) or b""
        except OSError as exc:
            raise error(f"{who}cannot be read ({exc.strerror or exc})") from None
        total += len(chunk)
        if total > cap:
            raise LimitExceededError(limits.refusal("bytes", f"{who}more than {cap:,} bytes", cap * 2, cap))
        return chunk

    block, at, lineno = more(), 0, 0
    while 0 < len(block) < 3:   # (enough to see a byte-order mark)
        chunk = more()
        if not chunk:
            break
        block += chunk
    if block.startswith(b"\xef\xbb\xbf"):
        at = 3
    while True:
        if at >= len(block):
            block, at = more(), 0
            if not block:
                return
        if skip_blank and block[at] in _WS_BYTES:
            end = len(block) if at == 0 and block.isspace() else _BLANK_BYTES.match(block, at).end()
            last = block.rfind(b"\n", at, end)
            if last >= 0:   # whole blank lines (what follows the last one may start a line)
                lineno += block.count(b"\n", at, last + 1)
                at = last + 1
                continue
        nl = block.find(b"\n", at)
        if nl >= 0:
            raw, at = block[at:nl + 1], nl + 1
        else:   # the line goes on in the next blocks
            parts = [block[at:]]
            while True:
                block, at = more(), 0
                if not block:
                    break
                nl = block.find(b"\n")
                if nl >= 0:
                    parts.append(block[:nl + 1])
                    at = nl + 1
                    break
                parts.append(block)
            raw = b"".join(parts)
            del parts
        lineno += 1
        if skip_blank and raw.isspace():   # (a blank line cut by the end of a block)
            continue
        if b"\0" in raw:
            raise error(f"{who}line {lineno}: a NUL byte at column {raw.find(bytes(1)) + 1}: not a text file")
        try:
            text = raw if as_bytes and raw.isascii() else raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{who}line {lineno}: not UTF-8 text (byte {raw[exc.start]:#04x} at column "
                        f"{exc.start + 1})") from None
        if as_bytes:
            text = raw   # (a non-ASCII line was decoded above only to check that it is UTF-8)
        del raw   # not held while the caller works on the line (a tree's line can be 100 MB)
        yield lineno, text
        if not block:
            return


def text_lines(text: str):
    """Yield ``(lineno, line)`` of the non-blank lines of ``text``, without their line ends.

    Lines end where an editor ends them: at ``\\n``, ``\\r\\n`` or ``\\r``. A vertical tab, a form
    feed, U+2028 and the other characters ``str.splitlines`` also breaks at stay inside their line,
    so a message's line number is the one the user sees. The text is taken a block of lines at a
    time, split and filtered in C (a blank block is only counted), so a flood of empty lines costs
    no Python step per line.

    >>> list(text_lines("a,b\\r\\n\\n  \\nb\\x0b,c\\n"))
    [(1, 'a,b'), (4, 'b\\x0b,c')]
    """
    for first, lines in _line_blocks(text):
        yield from itertools.compress(zip(itertools.count(first), lines), map(str.strip, lines))


def text_rows(text: str) -> tuple[list[str], array.array]:
    """The non-blank lines of ``text`` and their line numbers (a list, and an array of 64-bit
    integers; see :func:`text_lines`), built in C a block at a time, for a reader that needs every
    line at once."""
    rows: list[str] = []
    numbers = array.array("q")
    for first, lines in _line_blocks(text):
        keep = list(map(bool, map(str.strip, lines)))
        rows.extend(itertools.compress(lines, keep))
        numbers.extend(itertools.compress(range(first, first + len(lines)), keep))
    return rows, numbers


def _line_blocks(text: str):
    """``(first line number, lines)`` of consecutive blocks of lines of ``text`` (line ends as in
    :func:`text_lines`); a block of blanks only is counted, not split."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = text.replace("\r", "\n")   # a lone carriage return ends a line too
    n, at, lineno = len(text), 0, 1
    while at < n:
        end = text.find("\n", min(at + _BLOCK, n))
        end = n if end < 0 else end + 1
        block = text[at:end]
        at = end
        if block.isspace():
            lineno += block.count("\n")
            continue
        lines = block.split("\n")
        if block.endswith("\n"):
            lines.pop()
        yield lineno, lines
        lineno += len(lines)


def read_stream(stream, *, label: str = "input", error=InputFileError, max_bytes: int | None = None) -> bytes:
    """The bytes of an explicit stream (standard input, an upload), gunzipped, within ``max_bytes``.

    The stream is read in chunks and reading stops one byte past the cap, so an endless stream
    (a pipe fed from ``/dev/zero``) is refused rather than read for ever.
    """
    cap = limits.value("bytes") if max_bytes is None else int(max_bytes)
    chunks, total = [], 0
    while total <= cap:
        try:
            chunk = stream.read(min(_CHUNK, cap + 1 - total))
        except OSError as exc:
            raise error(f"{label}: cannot be read ({exc.strerror or exc})") from None
        if not chunk:
            break
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8")
        chunks.append(chunk)
        total += len(chunk)
    if total > cap:
        raise LimitExceededError(limits.refusal("bytes", f"{label}: more than {cap:,} bytes", cap * 2, cap))
    return decompress(b"".join(chunks), label=label, error=error, max_bytes=cap)


def decompress(data: bytes, *, label: str = "input", error=InputFileError, max_bytes: int | None = None) -> bytes:
    """``data`` itself, or gunzipped when it starts with the gzip magic, within ``max_bytes``."""
    cap = limits.value("bytes") if max_bytes is None else int(max_bytes)
    if len(data) > cap:
        raise LimitExceededError(limits.refusal("bytes", f"{label}: {len(data):,} bytes", len(data), cap))
    if data[:2] != GZIP_MAGIC:
        return data
    out, total = [], 0
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    buf = data
    try:
        while buf:
            chunk = d.decompress(buf, cap + 1 - total)
            total += len(chunk)
            out.append(chunk)
            if total > cap:
                raise LimitExceededError(limits.refusal(
                    "bytes", f"{label}: more than {cap:,} bytes after decompression (a decompression bomb?)",
                    cap * 2, cap))
            buf = d.unconsumed_tail
            if d.eof:
                rest = d.unused_data
                if rest.startswith(GZIP_MAGIC):  # concatenated gzip members
                    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                    buf = rest
                else:
                    buf = b""
    except zlib.error as exc:
        raise error(f"{label}: not a valid gzip stream ({exc})") from None
    if not d.eof:
        raise error(f"{label}: the gzip stream is truncated")
    return b"".join(out)



# ------------------------------------------------------------------------------ which paths may be named

class PathPolicy:
    """Which files a scenario or a run config may name.

    The command line reads any path its local user gives (:data:`ANY_PATH`). A scenario or config
    uploaded or pasted into the app comes from a browser, so it may name only the sample trees and
    files under the data folder (:func:`browser_paths`): otherwise one line refuses it, naming
    neither the server's folders nor the file's content.

    >>> browser_paths().resolve("/etc/passwd", "tree")
    Traceback (most recent call last):
        ...
    engine.errors.InputFileError: tree: '/etc/passwd' is not a sample tree or a file under the data folder; a scenario or config from the app may name only those (or give the tree inline or as a generator spec)
    """

    def __init__(self, roots=None):
        self.roots = None if roots is None else tuple(Path(r) for r in roots)

    @property
    def any_path(self) -> bool:
        return self.roots is None

    def resolve(self, name, culprit: str, base: Path | None = None) -> Path:
        """The file ``name`` names under this policy (relative to ``base`` for any path)."""
        if self.roots is None:
            p = Path(name)
            return base / p if base is not None and not p.is_absolute() else p
        text = str(name)
        refuse = InputFileError(f"{culprit}: {text[:80]!r} is not a sample tree or a file under the data folder; "
                                "a scenario or config from the app may name only those (or give the tree "
                                "inline or as a generator spec)")
        rel = Path(text)
        if not text or "\0" in text or ".." in rel.parts or text.startswith("~"):
            raise refuse
        if rel.is_absolute():  # a recorded config names its files in full: fine inside a root
            for root in self.roots:
                try:
                    top, cand = root.resolve(strict=True), rel.resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                if cand.is_relative_to(top) and cand.is_file():
                    return cand
            raise refuse
        for root in self.roots:
            parts = rel.parts[1:] if rel.parts and rel.parts[0] == root.name else rel.parts
            if not parts:
                continue
            try:
                top = root.resolve(strict=True)
                cand = top.joinpath(*parts).resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            if cand.is_relative_to(top) and cand.is_file():  # no symlink out of the folder
                return cand
        raise refuse


#: any path (the command line: the local user's own files)
ANY_PATH = PathPolicy(None)


def browser_paths() -> PathPolicy:
    """The sample trees and the data folder (``engine.datasets.data_home()``) only."""
    from engine.datasets import data_home

    return PathPolicy((SAMPLES_DIR, data_home()))


_ABS_PATH = re.compile(r"(?<![\w.~'\"])(?:/[^\s/:'\",()<>]+)+/([^\s/:'\",()<>]+)")


def public_message(exc) -> str:
    """The one-line message of ``exc`` (or a text) for a screen anyone may see: absolute paths on the
    server become their last part, so no folder layout, home directory or user name is shown.

    >>> public_message("/home/ana/data/x.csv: line 3: bad")
    'x.csv: line 3: bad'
    """
    text = " ".join(str(exc).split())
    return _ABS_PATH.sub(lambda m: m.group(1), text)
