"""The app's state in links: settings declared once, the languages their values are written in,
and the table of pages links open.

- :mod:`engine.links.evidence`: the evidence and matrix mini-languages (``4=1,5=0.2/0.8``, ``2,1;1,2``);
- :mod:`engine.links.codec`: a page setting (:class:`Setting`) and its value's text in a link;
- :mod:`engine.links.pages`: a page (:class:`PageSpec`), a table of pages (:class:`PageTable`),
  parsing, building and checking links.

The app's pages are declared in :mod:`engine.pagespecs`, one spec each.
"""

from engine.links.codec import Setting, format_value
from engine.links.evidence import evidence_vectors, format_evidence, format_matrix, parse_evidence, parse_matrix
from engine.links.pages import GLOBAL_SETTINGS, Link, PageSpec, PageTable, check_link, link_tree

__all__ = ["GLOBAL_SETTINGS", "Link", "PageSpec", "PageTable", "Setting", "check_link", "evidence_vectors",
           "format_evidence", "format_matrix", "format_value", "link_tree", "parse_evidence", "parse_matrix"]
