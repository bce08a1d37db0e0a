"""engine.jsonio: NaN-free JSON out, and JSON in that refuses hostile text with one line."""

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import DataFormatError, EngineError, JSONFormatError
from engine import limits
from engine.jsonio import dumps, loads, print_json, to_jsonable

MAX_DEPTH = limits.value("json_depth")
MAX_NUMBER_DIGITS = limits.value("number_digits")


def _old_jsonable(obj):  # the run store's former round trip, kept here as the reference
    def default(o):
        if hasattr(o, "tolist"):
            return o.tolist()
        if isinstance(o, (set, frozenset, tuple)):
            return list(o)
        raise TypeError

    def no_nan(o):
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, list):
            return [no_nan(x) for x in o]
        if isinstance(o, dict):
            return {k: no_nan(v) for k, v in o.items()}
        return o
    return no_nan(json.loads(json.dumps(obj, default=default)))


def test_non_finite_numbers_become_null_at_any_depth():
    obj = {"a": float("nan"), "b": [1.0, np.inf, np.float64("nan")], "c": np.array([0.5, -np.inf]),
           "d": (np.int32(3), {"e": np.float32(0.25)}), "f": np.array([[1, 2]], dtype=np.int64), "g": True}
    want = {"a": None, "b": [1.0, None, None], "c": [0.5, None], "d": [3, {"e": 0.25}], "f": [[1, 2]], "g": True}
    assert to_jsonable(obj) == want == _old_jsonable(obj)
    assert json.loads(dumps(obj)) == want
    assert "NaN" not in dumps(obj) and "Infinity" not in dumps(obj)


def test_keys_are_written_as_json_writes_them():
    obj = {1: "a", 2.5: "b", None: "d", np.int64(7): "e"}
    assert to_jsonable(obj) == {"1": "a", "2.5": "b", "null": "d", "7": "e"}
    assert to_jsonable({True: 1, False: 0}) == {"true": 1, "false": 0} == _old_jsonable({True: 1, False: 0})


def test_keep_nan_round_trips_through_loads():
    text = dumps({"x": float("nan"), "y": np.float64("-inf"), "z": np.arange(3)}, keep_nan=True, sort_keys=True)
    back = loads(text)
    assert math.isnan(back["x"]) and back["y"] == -math.inf and back["z"] == [0, 1, 2]


def test_unserialisable_is_a_type_error():
    with pytest.raises(TypeError, match="object is not JSON serialisable"):
        dumps({"x": object()})


def test_print_json_is_one_line(capsys):
    print_json({"a": [1, float("nan")]})
    out = capsys.readouterr().out
    assert out == '{"a": [1, null]}\n'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@given(json_values)
def test_loads_of_dumps_is_the_plain_value(value):
    assert loads(dumps(value)) == to_jsonable(value) == _old_jsonable(value)
    assert loads(dumps(value).encode("utf-8"), where="bytes") == to_jsonable(value)


def test_errors_are_engine_and_value_errors():
    assert issubclass(JSONFormatError, EngineError)
    assert issubclass(JSONFormatError, ValueError)
    assert issubclass(JSONFormatError, DataFormatError)


@pytest.mark.parametrize("text, message", [
    ('{"a": 1,}', "cfg.json: invalid JSON at line 1, column 9: Expecting property name"),
    ('{"a": [1, 2', "cfg.json: invalid JSON at line 1, column 12: Expecting ',' delimiter"),
    ('', "cfg.json: invalid JSON at line 1, column 1: Expecting value"),
    ('{\n  "a": tru\n}', "cfg.json: invalid JSON at line 2, column 8: Expecting value"),
    ('{"a": 1} {"b": 2}', "cfg.json: invalid JSON at line 1, column 10: Extra data"),
])
def test_invalid_json_names_the_position(text, message):
    with pytest.raises(JSONFormatError, match="^" + re.escape(message) + "[^\n]*$"):  # one line
        loads(text, where="cfg.json")


def test_invalid_utf8_names_the_byte():
    with pytest.raises(JSONFormatError, match=r"^up.json: not UTF-8 text: byte 0xff at offset 6 "):
        loads(b'{"a": \xff}', where="up.json")
    with pytest.raises(JSONFormatError, match="byte 0xe2 at offset 7"):
        loads(b'{"a": "\xe2\x82"}', where="up.json")  # truncated sequence


def test_byte_order_mark_is_allowed():
    assert loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    assert loads('\ufeff[1]') == [1]


def test_nesting_up_to_the_limit_is_read_one_deeper_is_refused():
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads(ok) is not None
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(JSONFormatError, match=f"^x: nested deeper than {MAX_DEPTH} levels at line 1, "
                                              f"column {MAX_DEPTH + 1}; raise the limit with "
                                              "TREE_WORKBENCH_MAX_JSON_DEPTH=N"):
        loads(deep, where="x")
    objects = '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1)
    with pytest.raises(JSONFormatError, match="nested deeper"):
        loads(objects)
    assert loads(deep, max_depth=MAX_DEPTH + 1) is not None
    with limits.raised(json_depth=MAX_DEPTH + 1):
        assert loads(deep) is not None


def test_endless_nesting_is_refused_without_recursion_error():
    for text in ("[" * 200_000 + "]" * 200_000, "[" * 200_000, '{"a":[' * 50_000):
        with pytest.raises(JSONFormatError, match="nested deeper"):
            loads(text)


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"s": "[" * 1000 + '\\"{' * 100, "wide": [[1]] * 500})
    assert loads(text)["s"].startswith("[[[")


def test_unbalanced_brackets_are_invalid_json_not_too_deep():
    with pytest.raises(JSONFormatError, match="invalid JSON"):
        loads("[" * 10 + "}" * 80)


def test_huge_numbers_are_one_line_not_pythons_digit_limit():
    big = "1" * 5000
    with pytest.raises(JSONFormatError, match=rf"^n.json: a number of 5000 digits at line 2, column 7 "
                                              rf"\(at most {MAX_NUMBER_DIGITS} digits in a row are read\); "
                                              r"raise the limit with TREE_WORKBENCH_MAX_NUMBER_DIGITS=N"):
        loads('{"a": 1,\n "b": ' + big + "}", where="n.json")
    with pytest.raises(JSONFormatError, match="a number of"):
        loads("[0." + "0" * 10_000 + "1]")
    assert loads(f'["{big}"]') == [big]  # digits in a string are text
    assert loads("1" * MAX_NUMBER_DIGITS) == int("1" * MAX_NUMBER_DIGITS)
    with pytest.raises(JSONFormatError, match=r"^x: .*4300"):  # the limit raised: Python's own, as one line
        loads("1" * 5000, where="x", max_digits=10_000)


def test_nan_words_can_be_refused():
    assert math.isnan(loads("[NaN]")[0])
    with pytest.raises(JSONFormatError, match=r'^c: -Infinity at line 1, column 12 is not a JSON number'):
        loads('["NaN", 1, -Infinity]', where="c", allow_nan=False)
