"""Tree Studio: pick a sample, upload, paste or generate a tree; click a vertex to edit it; download.

Every edit calls :mod:`engine.trees.editing` and becomes the current tree (with undo); errors from
the engine are shown with ``st.error``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from workbench.declarations.page_table import PAGES
from engine.trees import GENERATORS, Tree, editing, generate
from engine.trees.formats import (FORMAT_NAMES, FORMATS, WRITE_EXTENSIONS, format_newick, format_tikz, parse_tree_text,
                                  read_tree_bytes, tree_to_bytes)
from engine.trees.metrics import tree_info
from workbench.declarations.tree_text import generator_link
from workbench import address_bar
from workbench.components import (page_cache, select_vertex, selected_vertex, selection_key, stats, tree_hash,
                                  vertex_box)
from workbench.session import Family, PageState
from workbench.state import (can_undo, current_tree, list_samples, load_sample, sample_link, set_tree, tree_source,
                             tree_version, undo)
from workbench.treeview import tree_view, view_bind
from workbench.text import md
from workbench.widgets import widget

TABLE_LIMIT = 2_000      # vertices whose edge table is editable
COPY_LIMIT = 5_000       # vertices whose Newick is shown to copy (larger: download it)
SLIDER_MAX = 10_000


SPEC = PAGES["tree_studio"]


class StudioState(PageState, page="tree_studio"):
    error: tuple | None = None              # (where, message) of the last failed action, shown once
    sample: str | None = None               # the sample chosen
    upload: object = None                   # the uploaded tree file
    upload_error: str | None = None         # ... and why it was not read
    index: int = 0                          # the tree of a JSON-lines file
    paste: str = ""                         # the pasted text
    paste_fmt: str = "detect"               # ... read as
    kind: str = next(iter(GENERATORS))      # the generator's family
    n: int = 31                             # ... vertices
    seed: int = 0                           # ... seed
    k: int = 5                              # ... paths and edges per path of a star of paths
    m: int = 5
    b: int = 3                              # ... branching of a complete tree
    spine: int | None = None                # ... spine of a caterpillar
    legs: int | None = None                 # ... legs of a spider
    child_name: str = ""                    # the editor: the name of a new child
    rename_to: str = ""                     # ... the new name of the selected vertex
    info: tuple = (None,)                   # (tree version, summary) of the current tree
    tree: None = None                       # the clickable tree and its selection (workbench.components)
    tab: str | None = None                  # the open tab under the drawing (Summary at first)
    table: Family[dict] = None              # the edge table of (tree version, sitting): its edits
    table_kept: tuple = (None, None, 0)     # (tree version, rows, sitting): edits not yet applied when
                                            # the table's tab was closed, shown again when it opens
    load_sample: bool = False               # the buttons: load the sample
    paste_go: bool = False                  # ... use the pasted text
    generate: bool = False                  # ... generate
    add: bool = False                       # ... add a child
    rename: bool = False                    # ... rename the vertex
    delete: bool = False                    # ... delete the leaf
    reroot: bool = False                    # ... make it the root
    undo: bool = False                      # ... undo the last change
    apply_table: bool = False               # ... apply the edge table
    down_fmt: str | None = None             # the download: its format
    down_gz: bool = False                   # ... gzipped
    download: None = None                   # ... its button
    copy_as: str | None = None              # the current tree shown as Newick, TikZ or LaTeX


S = StudioState()
KEY = S.key("tree")


def sample_label(name: str) -> str:
    p = Path(name)
    ext = "".join(p.suffixes)
    stem = p.name[: -len(ext)] if ext else p.name
    fmt = FORMATS.get(ext.removesuffix(".gz"), "")
    return f"{stem.replace('_', ' ')}  ·  {FORMAT_NAMES.get(fmt, ext)}"


def apply(fn, source: str, where: str = "edit", link: str | None = None) -> bool:
    """Run an engine operation that returns a tree; make it current (``link``: the ``?tree=`` text
    that brings it back, when shorter than its Newick text), or keep the error to show."""
    try:
        new = fn()
    except EngineError as exc:
        S.error = (where, str(exc))
        return False
    set_tree(new, source, link=link)
    del S.error
    if where == "source":  # a new tree: start from its root
        select_vertex(new, KEY, new.root)
    return True


def show_error(where: str) -> None:
    """The error of the last action, under the control that caused it (shown once)."""
    err = S.error
    if err and err[0] == where:
        del S.error
        st.error(public_message(err[1]), icon=":material/error:")


@page_cache(st.cache_data, max_entries=8, hash_funcs={Tree: tree_hash}, show_spinner=False)
def tree_text(tree: Tree, kind: str) -> str:
    """The tree as Newick, a TikZ picture or a standalone LaTeX document (``EngineError`` when the
    format refuses it, e.g. TikZ above its size limit)."""
    if kind == "Newick":
        return format_newick(tree)
    return format_tikz(tree, standalone=kind == "LaTeX document")


# ------------------------------------------------------------------ callbacks (run before the script)
def on_load_sample() -> None:
    name = S.sample
    if name:
        apply(lambda: load_sample(name), f"sample {name}", "source", link=sample_link(name))


def on_upload() -> None:
    up = S.upload
    S.upload_error = None
    if up is None:
        return
    index = int(S.index)
    try:
        new = read_tree_bytes(up.getvalue(), up.name, index=index)
    except EngineError as exc:
        S.upload_error = str(exc)
        return
    set_tree(new, f"file {up.name}" + (f" (tree {index})" if index else ""))
    select_vertex(new, KEY, new.root)


def on_paste() -> None:
    text = S.paste
    fmt = {"detect": None, "Newick": "newick", "edge list": "edgelist"}[S.paste_fmt]
    apply(lambda: parse_tree_text(text, fmt), "pasted text", "source")


def generator_options() -> tuple[str, int, int, dict]:
    """The generator's widgets, read from session state (so a callback sees this click's values):
    the family, n, the seed and the family's options of :func:`engine.trees.generate`."""
    kind, opts = S.kind, {"b": 2}    # b: generate()'s default, written in the link as before
    if kind == "star-of-paths":
        k, m = int(S.k), int(S.m)
        return kind, k * m + 1, int(S.seed), {**opts, "k": k, "m": m}
    n = int(S.n)
    if kind == "complete":
        opts = {"b": int(S.b)}
    elif kind == "caterpillar" and n > 1 and S.has("spine"):
        opts["spine"] = min(int(S.spine), n)
    elif kind == "spider" and n > 2 and S.has("legs"):
        opts["legs"] = min(int(S.legs), n - 1)
    return kind, n, int(S.seed), opts


def on_generate() -> None:
    kind, n, seed, opts = generator_options()
    apply(lambda: generate(kind, n, seed=seed, **opts), f"generated {kind}, n={n:,}, seed {seed}", "source",
          link=generator_link(kind, n, seed, **opts))


def on_edit(action: str) -> None:
    tree = current_tree()
    v = selected_vertex(tree, KEY, tree.root)   # the vertex the editor shows as selected (the root at first)
    name = tree.name(v)
    if action == "add":
        child = (S.child_name or "").strip() or None
        if apply(lambda: editing.add_child(tree, v, name=child), f"edited: child added under {name}"):
            S.child_name = ""
    elif action == "rename":
        new = S.rename_to or ""
        if apply(lambda: editing.rename(tree, v, new), f"edited: {name} renamed {new.strip()}"):
            select_vertex(current_tree(), KEY, v)
            S.rename_to = ""
    elif action == "delete":
        if apply(lambda: editing.remove_leaf(tree, v), f"edited: leaf {name} deleted"):
            select_vertex(current_tree(), KEY, current_tree().root)
    elif action == "reroot":
        apply(lambda: editing.reroot(tree, v), f"edited: rooted at {name}")


def table_rows(tree: Tree, version: int) -> tuple[list[tuple], int]:
    """The rows the edge table of ``tree`` (tree version ``version``) starts from, and its sitting:
    the tree's edges, or the edits kept when its tab was closed before they were applied."""
    kept_version, kept_rows, sitting = S.table_kept
    if kept_version == version:
        return list(kept_rows), sitting
    return [tuple(e) for e in tree.named_edges()], sitting


def edited_rows(rows: list[tuple], state: dict | None) -> list[tuple]:
    """``rows`` with the data editor's changes applied; its state is ``{"edited_rows": {i: {col: val}},
    "added_rows": [...], "deleted_rows": [...]}``."""
    state = state or {}
    rows = list(rows)
    for i, change in state.get("edited_rows", {}).items():
        i = int(i) if str(i).isdigit() else -1
        if 0 <= i < len(rows) and isinstance(change, dict):   # (a row no table has: a forged message)
            rows[i] = (change.get("parent", rows[i][0]), change.get("child", rows[i][1]))
    deleted = {int(i) for i in state.get("deleted_rows", []) if str(i).isdigit()}
    rows = [r for i, r in enumerate(rows) if i not in deleted]
    return rows + [(a.get("parent"), a.get("child")) for a in state.get("added_rows", []) if isinstance(a, dict)]


def on_apply_table(version: int) -> None:
    tree = current_tree()
    start, sitting = table_rows(tree, version)
    rows = edited_rows(start, S.table[version, sitting])
    labels = None if tree.labels is None else {tree.name(i): tree.labels[i] for i in range(tree.n)}
    if apply(lambda: editing.tree_from_edge_rows(rows, root=tree.name(tree.root), labels=labels), "edited: edge table",
             "table"):
        S.table_kept = (None, None, sitting + 1)


def keep_table_edits(version: int) -> None:
    """The edge table's tab is closed: keep the edits it holds, not yet applied, to show again (in a new
    editor) when it reopens; Streamlit forgets the editor at the end of this run, which does not draw it."""
    start, sitting = table_rows(current_tree(), version)
    state = S.table.pop((version, sitting), None)
    if state and any(state.get(k) for k in ("edited_rows", "added_rows", "deleted_rows")):
        S.table_kept = (version, edited_rows(start, state), sitting + 1)


def _samples_tab() -> None:
    st.selectbox("Sample tree", list_samples(), format_func=sample_label, index=None,
                 placeholder="Choose a sample", key=S.key("sample"))
    st.button("Load sample", type="primary", key=S.key("load_sample"), on_click=on_load_sample,
              disabled=S.sample is None)


def _upload_tab() -> None:
    st.number_input("Tree number (JSON-lines files)", 0, 10**6, 0, key=S.key("index"), on_change=on_upload,
                    help="A .jsonl file holds one tree per line; 0 is the first.")
    st.file_uploader("Tree file", key=S.key("upload"), on_change=on_upload,
                     help="Edge list (.csv/.tsv/.txt), node-link .json, .gml, .graphml, Newick "
                          "(.nwk/.newick), XML document (.xml), positional .jsonl; any of them "
                          "gzipped. With another extension the content decides.")
    if S.upload_error:
        st.error(public_message(S.upload_error), icon=":material/error:")


def _paste_tab() -> None:
    st.text_area("Newick or edge list", height=140, key=S.key("paste"),
                 placeholder="((A,B)AB,(C,D)CD)root;\n\nor one edge per line:\n1,2\n1,3")
    st.radio("Read as", ["detect", "Newick", "edge list"], horizontal=True, key=S.key("paste_fmt"))
    st.button("Use this text", key=S.key("paste_go"), on_click=on_paste, disabled=not S.paste.strip())


def _generate_tab() -> None:
    kind = st.selectbox("Family", list(GENERATORS), key=S.key("kind"),
                        help="\n".join(f"- **{k}**: {v}" for k, v in GENERATORS.items()))
    if kind == "star-of-paths":
        k = st.slider("Paths k", 1, 100, 5, key=S.key("k"))
        m = st.slider("Edges per path m", 1, 100, 5, key=S.key("m"))
        st.caption(f"n = k·m + 1 = {k * m + 1:,} vertices")
    else:
        n = st.slider("Vertices n", 1, SLIDER_MAX, 31, key=S.key("n"))
        if kind == "complete":
            st.slider("Branching b", 1, 10, 3, key=S.key("b"))
        elif kind == "caterpillar" and n > 1:
            st.slider("Spine length", 1, n, max(1, n // 3), key=S.key("spine"))
        elif kind == "spider" and n > 2:
            st.slider("Legs", 1, min(n - 1, 50), min(n - 1, 5), key=S.key("legs"))
    st.number_input("Seed", 0, 2**31 - 1, 0, key=S.key("seed"))
    st.button("Generate", type="primary", key=S.key("generate"), on_click=on_generate)


#: each loading tab (in the order of the setting's choices): how it is drawn, and its widgets, whose
#: values are kept while it is closed (only the open tab is drawn)
SOURCES = {"samples": (_samples_tab, ("sample",)), "upload": (_upload_tab, ("index",)),
           "paste": (_paste_tab, ("paste", "paste_fmt")),
           "generate": (_generate_tab, ("kind", "n", "seed", "k", "m", "b", "spine", "legs"))}


# ------------------------------------------------------------------ the page
address_bar.page_head("tree_studio", "Tree Studio",
                "Load a tree from a sample, a file, pasted text or a generator; click a vertex in the drawing "
                "to edit it. The tree you leave here is the one every other page works on.",
                {"vertex": address_bar.vertex(selection_key(KEY)), "region": view_bind(KEY)})
tree = current_tree()
version = tree_version()

left, right = st.columns([1, 2.6], gap="large")

with left:
    # only the open tab is drawn (and the script of its widgets loaded by the browser); the values of
    # the closed tabs' widgets are written back, so a tab reopened shows what was left in it
    for tab, (draw, names) in zip(widget(SPEC, "source", on_change="rerun"), SOURCES.values()):
        if tab.open:
            with tab:
                draw()
        else:
            S.keep(*names)
    show_error("source")

@st.fragment
def editor(tree, version) -> None:
    """The drawing and the vertex editor: a click or a pick reruns only this; an edit (a new
    tree) reruns the whole page, so the sidebar, the table and the summary follow."""
    if tree_version() != version:
        st.rerun()
    address_bar.write_query("tree_studio")   # a click reruns only this: the address follows
    selected = selected_vertex(tree, KEY, tree.root)
    selected_name = tree.name(selected)
    hover = (lambda v: f"label: {tree.labels[v]}") if tree.labels is not None else None
    tree_view(tree, KEY, page="tree_studio", selected=selected, height=560 if tree.n > 30 else 460, hover=hover,
              describe=f"The current tree ({tree.n:,} vertices, rooted at {tree.name(tree.root)}).",
              note="Click a vertex to select it (or find it by name); scroll to zoom, drag to pan, shift-drag to zoom "
                   "to a box. A shaded group stands for the vertices too close to tell apart at this zoom: its "
                   "number counts them; click it to zoom in.")

    st.header("Edit the selected vertex", divider="gray")
    vertex_box(tree, KEY, label="Vertex", default=tree.root,
               help="Chosen by clicking in the drawing, or here (type to search).")
    v = selected
    kids = tree.children(v).size
    lab = f" · label `{tree.labels[v]}`" if tree.labels is not None and tree.labels[v] is not None else ""
    role = "the root" if v == tree.root else "a leaf" if tree.is_leaf(v) else "an internal vertex"
    st.markdown(f"Selected vertex: **{md(selected_name)}**, {role} with {kids} {'child' if kids == 1 else 'children'} "
                f"at depth {int(tree.depth[v])}{lab}")
    c1, c2 = st.columns(2, vertical_alignment="bottom")
    with c1:
        st.text_input("New child's name", key=S.key("child_name"), placeholder=editing.fresh_name(tree))
        st.button("Add child", key=S.key("add"), on_click=on_edit, args=("add",), width="stretch",
                  icon=":material/add:")
    with c2:
        st.text_input("Rename to", key=S.key("rename_to"), placeholder=selected_name)
        st.button("Rename", key=S.key("rename"), on_click=on_edit, args=("rename",), width="stretch",
                  icon=":material/edit:")
    # a row that wraps: beside the drawing on a 1024 px projector the column is 300 px, where four
    # columns cut every label to "D..." and "M..."
    with st.container(horizontal=True, gap="small"):
        st.button("Delete leaf", key=S.key("delete"), on_click=on_edit, args=("delete",),
                  disabled=not tree.is_leaf(v) or tree.n == 1, icon=":material/delete:",
                  help="Only a leaf (a vertex with one neighbour) can be deleted.")
        st.button("Make root", key=S.key("reroot"), on_click=on_edit, args=("reroot",),
                  disabled=v == tree.root, icon=":material/vertical_align_top:")
        st.button("Undo last change", key=S.key("undo"), disabled=not can_undo(), on_click=undo,
                  icon=":material/undo:")
    show_error("edit")


with right:
    editor(tree, version)

# ------------------------------------------------------------------ table, summary, download
def _table_tab() -> None:
    if tree.n == 1:
        st.caption("A single vertex has no edges; add a child above.")
    elif tree.n <= TABLE_LIMIT:
        rows, sitting = table_rows(tree, version)
        st.caption("Edit names, add rows (one edge each) or delete rows, then apply: the result must be a tree."
                   + (" Your edits not yet applied are kept." if S.table_kept[0] == version else ""))
        st.data_editor(pd.DataFrame(rows, columns=["parent", "child"]), num_rows="dynamic",
                       key=S.key("table", version, sitting), width="stretch", hide_index=True,
                       column_config={"parent": st.column_config.TextColumn("parent"),
                                      "child": st.column_config.TextColumn("child")})
        st.button("Apply table", key=S.key("apply_table"), on_click=on_apply_table, args=(version,),
                  icon=":material/check:")
        show_error("table")
    else:
        st.caption(f"The table is editable up to {TABLE_LIMIT:,} vertices; here are the first 1,000 edges.")
        st.dataframe(pd.DataFrame(tree.named_edges()[:1000], columns=["parent", "child"]), hide_index=True)


def _summary_tab() -> None:
    if S.info[0] != version:
        S.info = (version, tree_info(tree))
    info = S.info[1]
    stats([(label, f"{val:,}") for label, val in [("vertices", info.n), ("leaves", info.leaves),
                                                   ("diameter", info.diameter), ("radius", info.radius),
                                                   ("max degree", info.max_degree), ("height", int(tree.depth.max()))]],
          label="The tree's summary")   # one element, not six metrics in six columns
    st.caption(f"Rooted at **{md(info.root)}** · source: {md(tree_source())}")


def _download_tab() -> None:
    fmt = st.selectbox("Format", list(FORMAT_NAMES), format_func=lambda f: f"{FORMAT_NAMES[f]} ({WRITE_EXTENSIONS[f]})",
                       key=S.key("down_fmt"))
    gz = st.checkbox("gzip", key=S.key("down_gz"))
    fname = f"tree{WRITE_EXTENSIONS[fmt]}" + (".gz" if gz else "")
    # the file is written when the button is clicked (every format can write every tree)
    st.download_button(f"Download {fname}", data=lambda: tree_to_bytes(tree, fname), file_name=fname,
                       key=S.key("download"), icon=":material/download:", mime="application/octet-stream",
                       on_click="ignore")


def _copy_tab() -> None:
    kind = st.segmented_control("Show the current tree as", ["Newick", "TikZ", "LaTeX document"], key=S.key("copy_as"),
                                help="TikZ: a tikzpicture for slides and papers (plain TikZ, compiles with "
                                     "pdfLaTeX); LaTeX document: the same in a complete standalone document.")
    if kind is None:
        st.caption("Pick a format: the text appears with a copy button at its top right.")
    elif kind == "Newick" and tree.n > COPY_LIMIT:
        st.info(f"This tree has {tree.n:,} vertices: its Newick is shown up to {COPY_LIMIT:,}. "
                "Download it as Newick (.nwk) in the Download tab.")
    else:
        try:
            st.code(tree_text(tree, kind), language="latex" if kind != "Newick" else None, height=320)
        except EngineError as exc:
            st.info(str(exc))


st.divider()
# only the open tab is drawn, Summary first: the edge table's data editor alone is 1.2 MB of script
# for the browser to load
BOTTOM = {"Summary": (_summary_tab, ()), "Edge table": (_table_tab, ()),
          "Download": (_download_tab, ("down_fmt", "down_gz")), "Copy as Newick / TikZ": (_copy_tab, ("copy_as",))}
for tab, (label, (draw, names)) in zip(st.tabs(list(BOTTOM), key=S.key("tab"), on_change="rerun"), BOTTOM.items()):
    if tab.open:
        with tab:
            draw()
    else:
        S.keep(*names)
        if label == "Edge table":
            keep_table_edits(version)
