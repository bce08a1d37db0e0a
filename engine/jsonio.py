"""JSON in and out, written once for the whole engine.

Out: :func:`dumps` and :func:`print_json` write NumPy values as plain JSON and NaN/infinity (which
strict JSON has no words for) as ``null``; :func:`to_jsonable` gives the same plain value without
the text. The run history alone keeps NaN in its own columns (``keep_nan=True``).

In: :func:`loads` reads JSON from a file, an upload or a flag without trusting it. It refuses, each
with one :class:`~engine.errors.JSONFormatError` line that names the place (``where``) and the
position: bytes that are not UTF-8, nesting deeper than the limit ``json_depth``, a number with more
digits in a row than the limit ``number_digits`` (Python's own ``int`` gives up at 4,300 digits with
an error that names nothing), and text that is not JSON. Both limits are named in
:mod:`engine.limits` (64 and 100 by default), which says how to raise them.

>>> dumps({"loss": float("nan"), "k": [1, 2]})
'{"loss": null, "k": [1, 2]}'
>>> loads('{"n": 3, "edges": [[0, 1]]}', where="tree.json")
{'n': 3, 'edges': [[0, 1]]}
>>> loads('{"n": 3,}', where="tree.json")
Traceback (most recent call last):
    ...
engine.errors.JSONFormatError: tree.json: invalid JSON at line 1, column 9: Expecting property name enclosed in double quotes
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from engine import limits
from engine.errors import JSONFormatError

__all__ = ["to_jsonable", "dumps", "print_json", "loads"]

# The deepest file the engine reads, a positional tree, nests three levels; a double needs 17
# digits and a 64-bit integer 20: the limits' defaults (64 levels, 100 digits) leave room.
_DEPTH, _DIGITS = "json_depth", "number_digits"


# ---------------------------------------------------------------------------------------- output

def to_jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON values: NumPy arrays and scalars as lists and numbers, tuples and sets
    as lists, keys as strings (as :mod:`json` writes them), NaN and infinities as ``None``.

    >>> import numpy as np
    >>> to_jsonable({1: np.array([0.5, np.inf]), "t": (np.int64(2), None)})
    {'1': [0.5, None], 't': [2, None]}
    """
    t = type(obj)
    if t is str or t is int or t is bool or obj is None:
        return obj
    if t is float:
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {_key(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (str, int)):  # subclasses (enums, bool handled above)
        return obj
    if isinstance(obj, float):
        return float(obj) if math.isfinite(obj) else None
    dtype = getattr(obj, "dtype", None)
    if dtype is not None and hasattr(obj, "tolist"):  # NumPy arrays and scalars
        plain = obj.tolist()
        if dtype.kind in "biu":
            return plain
        return to_jsonable(plain)
    raise TypeError(f"{t.__name__} is not JSON serialisable")


def _key(k) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, bool) or k is None:
        return json.dumps(k)
    if isinstance(k, int) or (hasattr(k, "dtype") and k.dtype.kind in "iu"):
        return str(int(k))
    if isinstance(k, float) or (hasattr(k, "dtype") and k.dtype.kind == "f"):
        return json.dumps(float(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


def _numpy_default(o):
    if hasattr(o, "tolist"):  # NumPy arrays and scalars
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return list(o)
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def dumps(obj: Any, *, keep_nan: bool = False, **kwargs) -> str:
    """``obj`` as JSON text; NaN/inf written as ``null`` (strict JSON) unless ``keep_nan``, which
    writes Python's ``NaN``/``Infinity`` so that :func:`loads` gives them back. Other keyword
    arguments (``indent``, ``sort_keys``, ``separators``...) go to :func:`json.dumps`."""
    if keep_nan:
        return json.dumps(obj, default=_numpy_default, **kwargs)
    return json.dumps(to_jsonable(obj), allow_nan=False, **kwargs)


def print_json(obj: Any) -> None:
    """Print one JSON object on one line (NaN/inf are not JSON: they are written as null)."""
    print(dumps(obj))


# ----------------------------------------------------------------------------------------- input

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_BRACKET_OR_STRING = re.compile(_STRING + r"|[\[\]{}]", re.DOTALL)
_NUMBER_OR_STRING = re.compile(_STRING + r"|-?[0-9][0-9.eE+\-]*", re.DOTALL)
_CONSTANT_OR_STRING = re.compile(_STRING + r"|NaN|-?Infinity", re.DOTALL)
# The fast checks work on the UTF-8 bytes, where deleting and mapping characters run at C speed.
_STRINGS_B = re.compile(_STRING.encode(), re.DOTALL)
_INNERMOST_B = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS_B = bytes(c for c in range(256) if c not in b"[]{}")
_DIGITS_AS_ZERO_B = bytes.maketrans(b"123456789", b"000000000")


def loads(text: str | bytes, *, where: str = "JSON text", max_depth: int | None = None,
          max_digits: int | None = None, allow_nan: bool = True) -> Any:
    """Parse JSON text that nobody vouches for; every refusal is one :class:`JSONFormatError`
    line starting with ``where`` (a file name, ``"line 7 of trees.jsonl"``, ``"--scenario"``).

    ``bytes`` must be UTF-8 (a leading byte-order mark is allowed). ``max_depth`` and
    ``max_digits`` default to the limits ``json_depth`` and ``number_digits`` in force
    (:func:`engine.limits.value`); ``allow_nan=False`` also refuses the non-standard
    ``NaN``/``Infinity`` words.
    """
    max_depth = limits.value(_DEPTH) if max_depth is None else max_depth
    max_digits = limits.value(_DIGITS) if max_digits is None else max_digits
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONFormatError(f"{where}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset "
                                  f"{exc.start} ({exc.reason})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    raw = text.encode("utf-8", "surrogatepass")
    _check_depth(text, raw, max_depth, where)
    _check_digits(text, raw, max_digits, where)
    kwargs = {}
    if not allow_nan:
        def refuse(word):
            raise _NonFinite(word)
        kwargs["parse_constant"] = refuse
    try:
        return json.loads(text, **kwargs)
    except json.JSONDecodeError as exc:
        raise JSONFormatError(f"{where}: invalid JSON at {_position(text, exc.pos)}: {exc.msg}") from None
    except _NonFinite as exc:
        at = next(m.start() for m in _CONSTANT_OR_STRING.finditer(text) if m.group()[0] != '"')
        raise JSONFormatError(f"{where}: {exc.args[0]} at {_position(text, at)} is not a JSON number "
                              f"(write null)") from None
    except RecursionError:  # only reachable with max_depth raised beyond the interpreter's stack
        raise JSONFormatError(f"{where}: nested too deeply for this interpreter") from None
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit with max_digits raised
        raise JSONFormatError(f"{where}: {exc}") from None


class _NonFinite(Exception):
    pass


def _position(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


def _check_depth(text: str, raw: bytes, limit: int, where: str) -> None:
    if raw.count(b"[") + raw.count(b"{") <= limit:  # cannot be deeper than the brackets it has
        return
    brackets = _STRINGS_B.sub(b"", raw).translate(None, _NOT_BRACKETS_B)
    for _ in range(limit):  # each pass removes the innermost level
        shorter = _INNERMOST_B.sub(b"", brackets)
        if not shorter:
            return
        if len(shorter) == len(brackets):
            break
        brackets = shorter
    # deeper than the limit, or unbalanced (invalid JSON, which json.loads will name): look closer
    depth = 0
    for m in _BRACKET_OR_STRING.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                raise JSONFormatError(f"{where}: nested deeper than {limit} levels at "
                                      f"{_position(text, m.start())}; {_how_to_raise(_DEPTH)}")
        elif c in "]}":
            depth -= 1


def _check_digits(text: str, raw: bytes, limit: int, where: str) -> None:
    if b"0" * (limit + 1) not in raw.translate(_DIGITS_AS_ZERO_B):
        return
    long_run = re.compile(f"[0-9]{{{limit + 1}}}")
    for m in _NUMBER_OR_STRING.finditer(text):
        token = m.group()
        if token[0] != '"' and long_run.search(token):
            digits = sum(c.isdigit() for c in token)
            raise JSONFormatError(f"{where}: a number of {digits} digits at {_position(text, m.start())} "
                                  f"(at most {limit} digits in a row are read); {_how_to_raise(_DIGITS)}")


def _how_to_raise(key: str) -> str:
    env = limits.LIMITS[key].env
    return f"raise the limit with {env}=N or engine.limits.raised({key}=N)"
