r"""Data shown as text: vertex names, file names and labels go into Markdown escaped, never as HTML.

Streamlit renders Markdown (images, links, ``:red[...]`` directives, LaTeX between ``$``) in
``st.markdown``, headers and captions; a crafted vertex name must not make every viewer's browser
fetch a URL or change the page. :func:`md` escapes every ASCII punctuation character with a
backslash (CommonMark shows it literally) and folds line breaks.

>>> print(md("![x](u) <b>"))
\!\[x\]\(u\) \<b\>
"""

from __future__ import annotations

import re
import string

__all__ = ["md", "subscript", "superscript"]

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")


def md(value) -> str:
    """``value`` as Markdown that displays exactly its text (one line)."""
    return _PUNCT.sub(r"\\\1", " ".join(str(value).split()))


_SUPERSCRIPTS = dict(zip("0123456789+-=()abcdefghijklmnoprstuvwxyz",
                         "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"))


def superscript(base: str, exp) -> str:
    """``base`` with ``exp`` as a superscript in plain text (widget labels and options show no
    Markdown): Unicode superscript characters when ``exp`` has them all (digits, lower-case
    letters but q, + - = ( )), else ``base(exp)``; never a caret.

    >>> superscript("S", 10), superscript("S", "Human")
    ('S¹⁰', 'S(Human)')
    """
    return _scripted(base, str(exp), _SUPERSCRIPTS, "({})")


_SUBSCRIPTS = dict(zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))


def subscript(base: str, index) -> str:
    """``base`` with ``index`` as a subscript in plain text: Unicode subscript characters when
    ``index`` has them all (digits and a few lower-case letters), else ``base_index``.

    >>> subscript("x", 12), subscript("x", "Human")
    ('x₁₂', 'x_Human')
    """
    return _scripted(base, str(index), _SUBSCRIPTS, "_{}")


def _scripted(base: str, text: str, table: dict, fallback: str) -> str:
    """``base`` followed by ``text`` in the characters of ``table`` when it has them all, else
    by ``fallback`` filled with ``text``."""
    if text and all(ch in table for ch in text):
        return base + "".join(table[ch] for ch in text)
    return base + fallback.format(text)
