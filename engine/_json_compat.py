"""Untrusted JSON in: ``loads`` from :mod:`engine.jsonio` once it is on main; until then a minimal
stand-in with the same signature (depth and digit limits, one-line errors naming ``where``).

TODO(wt-17): delete this module and import ``engine.jsonio.loads`` directly when it lands.
"""

from __future__ import annotations

try:  # pragma: no cover - the real one, once merged
    from engine.jsonio import loads  # noqa: F401
except ImportError:  # pragma: no cover - the stand-in
    import json
    import re

    from engine import limits
    from engine.errors import DataFormatError

    def loads(text, *, where: str = "JSON text", max_depth: int | None = None,
              max_digits: int | None = None, allow_nan: bool = True):
        max_depth = limits.value("json_depth") if max_depth is None else max_depth
        max_digits = limits.value("number_digits") if max_digits is None else max_digits
        if isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataFormatError(f"{where}: not UTF-8 text: byte {text[exc.start]:#04x} at offset "
                                      f"{exc.start}") from None
        text = text.removeprefix("\ufeff")
        if text.count("[") + text.count("{") > max_depth:
            depth = 0
            for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text, re.DOTALL):
                c = m.group()
                depth += c in "[{"
                depth -= c in "]}"
                if depth > max_depth:
                    raise DataFormatError(f"{where}: nested deeper than {max_depth} levels")
        m = re.search(r"[0-9]{%d}" % (max_digits + 1), text)
        if m and re.search(r'-?[0-9]{%d}' % (max_digits + 1), re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)):
            raise DataFormatError(f"{where}: a number of more than {max_digits} digits")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"{where}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                                  f"{exc.msg}") from None
        except (RecursionError, ValueError) as exc:
            raise DataFormatError(f"{where}: {str(exc) or 'nested too deeply'}") from None
