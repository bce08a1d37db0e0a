"""The app's declarations: what the app shows, declared once, between the engine and the Streamlit pages.

The engine (``engine/``) is the science and names no page, widget or link; the Streamlit pages
(``workbench/pages/``) draw. Between them this layer declares the app: it imports the engine and
never Streamlit, Plotly or any other part of ``workbench`` (``tests/test_imports.py`` checks both).

- :mod:`workbench.declarations.settings`: one setting of a page (:class:`~workbench.declarations.settings.Setting`):
  its value in a link, its widget (label, kind, tooltip) and the run-config field it feeds;
- :mod:`workbench.declarations.value_formats`: the text a link writes evidence, a matrix and a
  region of a drawing in (``4=1,5=0.2/0.8``, ``2,1;1,2``, ``radial:-0.5,0.5,-0.2,0.3``);
- :mod:`workbench.declarations.tree_text`: the tree a link's ``tree=`` names (a sample, a generator
  spec such as ``random:1000:7``, ``figure1`` or Newick), read and written;
- :mod:`workbench.declarations.page_spec`: a page declared once (:class:`~workbench.declarations.page_spec.PageSpec`),
  a table of pages (:class:`~workbench.declarations.page_spec.PageTable`), parsing, building and checking links;
- :mod:`workbench.declarations.page_table`: the app's page table, :data:`~workbench.declarations.page_table.PAGES`,
  one spec per page (its script is ``workbench/pages/<url_path>.py``; the menu is built from it by
  ``workbench.navigation``);
- :mod:`workbench.declarations.lessons`: the lesson file format, its loader and the checker of the
  answers a lesson states (:mod:`workbench.declarations.lessons.answers`);
- :mod:`workbench.declarations.cli`: the ``lessons`` command this layer adds to ``python -m engine``
  (through the entry-point group ``tree_workbench.cli``, so the engine never imports this layer).

Nothing is imported here: ``python -m engine --help`` loads only :mod:`workbench.declarations.cli`.
"""
