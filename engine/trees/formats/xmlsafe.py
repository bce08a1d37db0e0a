"""Safe XML parsing for GraphML and XML documents (defusedxml: no entities, no external references).

Every problem becomes a :class:`TreeFormatError` with the line and column, or a refusal naming the
entity or reference that was declared.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import XMLParser

from engine.errors import TreeFormatError

__all__ = ["feed_safely", "root_tag", "local"]


def local(tag: str) -> str:
    """The local part of an ElementTree tag (``{namespace}name`` -> ``name``)."""
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag


def feed_safely(data: bytes, target=None, what: str = "XML", error=TreeFormatError):
    """Parse ``data`` with defusedxml; return ``parser.close()`` (the root element without target).

    Every refusal is one ``error`` (a :class:`~engine.errors.EngineError` class) starting with ``what``.
    """
    parser = XMLParser(target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    try:
        parser.feed(data)
        return parser.close()
    except EntitiesForbidden as exc:
        raise error(f"{what}: entity declarations are refused for safety (entity {exc.name!r}"
                              f"{', system ' + repr(exc.sysid) if exc.sysid else ''})") from None
    except ExternalReferenceForbidden as exc:
        raise error(f"{what}: external references are refused for safety "
                              f"(system {exc.sysid!r})") from None
    except DTDForbidden:
        raise error(f"{what}: document type declarations are refused") from None
    except ET.ParseError as exc:
        line, col = exc.position
        msg = str(exc).split(":")[0]
        raise error(f"{what} is not well-formed: {msg} at line {line}, column {col + 1}") from None
    except RecursionError:
        raise error(f"{what}: the document is nested too deeply") from None


_START = re.compile(rb"<([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)")


def root_tag(head: bytes) -> str | None:
    """Local name of the first element of an XML text (skipping the prolog, comments, DOCTYPE)."""
    i = 0
    while True:
        j = head.find(b"<", i)
        if j < 0:
            return None
        if head.startswith(b"<?", j):
            i = head.find(b"?>", j)
        elif head.startswith(b"<!--", j):
            i = head.find(b"-->", j)
        elif head.startswith(b"<!", j):
            i = head.find(b">", j)
        else:
            m = _START.match(head, j)
            return m.group(2).decode("ascii", "replace") if m else None
        if i < 0:
            return None
