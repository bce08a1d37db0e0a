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

__all__ = ["md"]

_PUNCT = re.compile("([" + re.escape(string.punctuation) + "])")


def md(value) -> str:
    """``value`` as Markdown that displays exactly its text (one line)."""
    return _PUNCT.sub(r"\\\1", " ".join(str(value).split()))
