"""Cover Inspector: the optimal (2,s)-hierarchical cover of the current tree, round by round
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, sections 2-3, Figure 1), its
decomposition tree D and how far it is from optimal."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from engine.files import public_message
from engine.cover import (
    COMPRESS,
    EDGE,
    KIND_NAMES,
    RAKE,
    HierarchicalCover,
    brute_force_optima,
    cover_violations,
    default_root,
    figure1_tree,
    heights_by_root,
    optimal_cover,
    rake_only_cover,
)
from engine.errors import EngineError
from workbench.declarations.page_table import PAGES
from engine.trees import Tree
from engine.trees.generators import path_tree, random_tree, star_of_paths, star_tree
from engine.trees.metrics import tree_info
from workbench.figures.cover_figures import (
    growth_figure,
    icicle_figure,
    roots_figure,
)
from workbench.components import chart, page_cache, stats, tree_hash
from workbench import address_bar
from workbench.figures.style import NEUTRAL, OKABE_ITO, SEQUENTIAL_SCALE, Style
from workbench.figures.style import current as current_style
from workbench.session import ElementState, Family, PageState
from workbench.state import current_tree, set_tree, tree_version
from workbench.treeview import focus_on, tree_view, view_bind
from workbench.text import md, superscript
from workbench.widgets import keep, widget

BRUTE_FORCE_N = 14
BEST_ROOT_N = 2000
PICK_LIMIT = 4000
TABLE_LIMIT = 20_000
COMPONENT_RING = 5_000   # a selected component's vertices are ringed in T up to this many edges
LINK_FOCUS = 2_000       # above this size, a pick in one view brings the other to what it picked
#: D's nodes by kind: edge grey, rake blue, compress orange, root purple (as in the icicle)
KIND_COLOURS = [NEUTRAL, OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["purple"]]


SPEC = PAGES["cover_inspector"]


class CoverState(PageState, page="cover_inspector"):
    sel: tuple | None = None                  # ("vertex", v), ("node", z), or a link's ("link", kind, name)
    current: HierarchicalCover | None = None  # the cover shown (a link's node is named in it)
    owner: tuple | None = None                # (tree version, root, rake-only) the selection belongs to
    pick: str | None = None                   # the pick list's entry
    pick_applied: str | None = None           # ... as last applied to the selection
    table_ids: list | None = None             # the D node of each row of the components table
    best: tuple | None = None                 # (for which cover, leaves, heights) of "try all leaves"
    root_at: Family[str] = None               # the root's box of a tree version (a new tree: a new box)
    preset: Family[bool] = False              # the presets' buttons, by name
    table: None = None                        # the components table (its selection: a chart or table event)
    t_view: None = None                       # the tree view of T
    d_view: None = None                       # ... and of the decomposition tree D
    round_counts: None = None                 # the table of merges by round
    chain_table: None = None                  # ... of the chain of a selected vertex
    check: bool = False                       # the buttons: check the cover against Definition 1
    try_roots: bool = False                   # ... try every leaf as the root
    use_best: bool = False                    # ... use the best root
    roots_plot: None = None                   # the figures: the height by root
    icicle: None = None                       # ... the icicle of D
    growth: None = None                       # ... the height's growth


S = CoverState()
TABLE, T_VIEW, D_VIEW = S.key("table"), S.key("t_view"), S.key("d_view")


# ---------------------------------------------------------------- cached engine calls

@page_cache(st.cache_resource, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner="Building the cover…")
def cached_cover(tree: Tree, root: int, rake_only: bool) -> HierarchicalCover:
    return (rake_only_cover if rake_only else optimal_cover)(tree, root)


@page_cache(st.cache_resource, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def cached_rooted(tree: Tree, root: int) -> Tree:
    """T re-rooted at the cover's root s (vertex numbers unchanged), as the cover orients it."""
    return tree if tree.root == root else tree.rerooted(root)


@page_cache(st.cache_data, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def round_counts(tree: Tree, root: int, rake_only: bool) -> pd.DataFrame:
    """Per round t: the vertices of T_t, how many are merged (rakes, compresses), and D's nodes
    formed in it (O(n + m), no T_t is built)."""
    cover = cached_cover(tree, root, rake_only)
    vr = np.asarray(cover.vertex_round)   # -1: a leaf of T (only ever the end of an edge)
    rounds = np.arange(cover.rounds + 1)
    merged = np.bincount(vr[vr >= 0], minlength=cover.rounds + 1)[: cover.rounds + 1]
    alive = np.count_nonzero(vr >= 0) - np.concatenate([[0], np.cumsum(merged)[:-1]])
    kind, rnd = np.asarray(cover.kind), np.asarray(cover.round)
    rakes = np.bincount(rnd[(kind == RAKE) & (rnd >= 0)], minlength=cover.rounds + 1)[: cover.rounds + 1]
    compresses = np.bincount(rnd[(kind == COMPRESS) & (rnd >= 0)], minlength=cover.rounds + 1)[: cover.rounds + 1]
    return pd.DataFrame({"round t": rounds, "vertices of T_t": alive, "merged (M_t)": merged,
                         "rakes": rakes, "compresses": compresses})


def _round_tables(tree, cover, t: int, sel_vertex, chain) -> None:
    """The rounds as counts (one row a round, the current one marked), and the selected vertex's
    component through the rounds (its chain in D)."""
    a, b = st.columns(2)
    with a:
        counts = round_counts(tree, cover.s, cover.rake_only)
        st.markdown("**The rounds**: T_t shrinks round after round")
        st.dataframe(counts.style.apply(lambda r: ["font-weight: bold" if r["round t"] == t else "" for _ in r],
                                        axis=1), hide_index=True, height=min(36 * (len(counts) + 1), 320),
                     width="stretch", key=S.key("round_counts"))
    with b:
        if sel_vertex is not None and chain is not None:
            size = cover.node_size()
            st.markdown(f"**Vertex {md(tree.name(sel_vertex))} through the rounds**: its component grows up D")
            st.dataframe(pd.DataFrame({
                "round": [int(cover.round[z]) for z in chain],
                "component": [cover.node_name(int(z)) for z in chain],
                "kind": [KIND_NAMES[int(cover.kind[z])] for z in chain],
                "edges": [int(size[z]) for z in chain]}), hide_index=True, width="stretch",
                height=min(36 * (len(chain) + 1), 320), key=S.key("chain_table"))
        else:
            st.caption("Select a vertex (click it in T, or find it by name) to follow its component through the "
                       "rounds.")


@page_cache(st.cache_data, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def cached_info(tree: Tree):
    return tree_info(tree)


@page_cache(st.cache_data, max_entries=32, hash_funcs={Tree: tree_hash}, show_spinner="Enumerating covers…")
def cached_brute(tree: Tree, root: int):
    return brute_force_optima(tree, root)


@page_cache(st.cache_data, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def cached_table(tree: Tree, root: int, rake_only: bool):
    """The components table (largest first) and the D node of each row."""
    cover = cached_cover(tree, root, rake_only)
    ids = list(range(cover.m - 1, -1, -1))
    if len(ids) > TABLE_LIMIT:
        ids = [z for z in ids if cover.kind[z] != EDGE][:TABLE_LIMIT]
    size = cover.node_size()
    names = cover.node_names()
    table = pd.DataFrame({
        "component": [names[z] for z in ids],
        "kind": [KIND_NAMES[int(cover.kind[z])] for z in ids],
        "boundary": [", ".join(tree.name(b) for b in cover.boundary_of(z)) for z in ids],
        "round": cover.round[ids],
        "parent in D": [names[int(cover.parent[z])] if cover.parent[z] >= 0 else "—" for z in ids],
        "edges": size[ids],
        "height": cover.node_height[ids],
    })
    return ids, table


@page_cache(st.cache_resource, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def cached_icicle(tree: Tree, root: int, rake_only: bool, style: Style):
    return icicle_figure(cached_cover(tree, root, rake_only), style=style)


@page_cache(st.cache_data, show_spinner="Building covers of three families…")
def growth_rows() -> list[dict]:
    rows = []
    for e in range(3, 15):
        n = 2 ** e
        m = max(1, round(math.log2(n)))
        for fam, tree in (("star", star_tree(n)), ("path", path_tree(n)),
                          ("star of paths", star_of_paths(max(1, (n - 1) // m), m))):
            rows.append({"family": fam, "n": tree.n, "height": optimal_cover(tree).height})
    return rows


PRESETS = {  # name: (make, source, ?tree= text)
    "Star": (lambda: star_tree(16), "preset star n=16 (height 1)", "star:16"),
    "Path": (lambda: path_tree(32), "preset path n=32 (height about log2 n)", "path:32"),
    "Star of paths": (lambda: star_of_paths(8, 6), "preset star of 8 paths of 6 edges", "star-of-paths:49:0:k=8:m=6"),
    "Figure 1": (figure1_tree, "preset Figure 1 of Online Sum-Product Computation over Trees (reconstructed)",
                 "figure1"),
    "Random 20,000": (lambda: random_tree(20_000, seed=0), "preset random tree n=20,000", "random:20000:0"),
}


def _use_preset(name: str) -> None:
    make, source, link = PRESETS[name]
    set_tree(make(), source, link=link)


def _use_root(version: int, name: str) -> None:
    """Make leaf ``name`` the root in the root's box of tree version ``version`` (a button's callback)."""
    S.root_at[version] = name


def _selection_bind(kind: str) -> address_bar.Bind:
    """``vertex=`` / ``node=`` of a link and the page's selection ``cover_sel``: a link's name waits
    as ``("link", kind, name)`` until the cover is built (a node is named in D)."""
    def named(sel):
        if not sel or sel[0] not in (kind, "link") or (sel[0] == "link" and sel[1] != kind):
            return None
        if sel[0] == "link":
            return sel[2]
        if kind == "vertex":
            return current_tree().name(int(sel[1]))
        cover = S.current
        return cover.node_name(int(sel[1])) if cover is not None and 0 <= sel[1] < cover.m else None

    return address_bar.Bind(S.key("sel"), lambda name: ("link", kind, name), named)


def _resolve_link_selection(tree, cover) -> None:
    """A selection a link named, as the page's (kind, index)."""
    sel = S.sel
    if not sel or sel[0] != "link":
        return
    _, kind, name = sel
    if kind == "vertex":
        v = tree.find(name)
        got = None if v is None else ("vertex", v)
    else:
        names = cover.node_names()
        got = ("node", names.index(name)) if name in names else None
    if got is None:
        st.warning(f"The link's {kind}={name!r} is not a {kind} of {'the tree' if kind == 'vertex' else 'D'} "
                   "(ignored).", icon=":material/link_off:")
    S.sel = got


# ---------------------------------------------------------------- selection plumbing

def _fresh_event(key: str):
    """The first selected point's customdata of a chart or table, only when it is new."""
    element = ElementState(key)
    ev = element.value
    if not ev:
        return None
    sel = ev["selection"] if "selection" in ev else None
    if sel is None:
        return None
    items = sel.get("points") or sel.get("rows") or []
    sig = repr(items)
    if element.seen == sig:
        return None
    element.seen = sig
    if not items:
        return None
    it = items[0]
    return it.get("customdata") if isinstance(it, dict) else it


def _label_node(cover, z: int) -> str:
    if cover.kind[z] == EDGE:
        return f"edge {cover.node_name(z)}"
    return f"component {superscript('S', cover.node_name(z))} ({KIND_NAMES[int(cover.kind[z])]}, round {int(cover.round[z])})"


def _label_vertex(tree, v: int) -> str:
    return f"vertex {tree.name(v)}"


# ---------------------------------------------------------------- page

tree = current_tree()
root_key = S.key("root_at", tree_version())   # a new tree: a new root box
address_bar.page_head("cover_inspector", "Cover Inspector",
                "A hierarchical cover splits the tree recursively at single vertices; its decomposition "
                "tree D caches sums for online inference. The algorithm of Figure 1 (Herbster, Pasteris "
                "& Vitale) merges, round after round, every *mergeable* vertex of the contracted tree "
                "$T_t$ — a leaf (rake) or a single-child vertex whose child is not mergeable (compress) — "
                "and reaches the minimum height among (2,s)-covers in linear time.", {
    "root": address_bar.Bind(root_key, from_widget=lambda name: name if tree.find(name) is not None
                       and tree.is_leaf(tree.find(name)) else None),
    "vertex": _selection_bind("vertex"), "node": _selection_bind("node"), "region": view_bind(T_VIEW)})
st.markdown("**Presets**")
pcols = st.columns(len(PRESETS))
for col, name in zip(pcols, PRESETS):
    col.button(name, key=S.key("preset", name), on_click=_use_preset, args=(name,),
               width="stretch")

if tree.n < 2:
    st.error("a hierarchical cover needs a tree with at least one edge; this tree has one vertex")
    st.stop()

version = (tree_version(), tree.content_key)
leaf_names = [tree.name(int(v)) for v in tree.leaves]
c1, c2, c3 = st.columns([2, 2, 3])
with c1:
    S.root_at.setdefault(tree_version(), tree.name(default_root(tree)))
    if len(leaf_names) <= 5000:
        root_name = widget(SPEC, "root", options=leaf_names, key=root_key)
    else:
        root_name = st.text_input(SPEC.setting("root").label, key=root_key)
with c2:
    rake_only = SPEC.setting("cover").token_of(widget(SPEC, "cover", horizontal=False)) == "rake"

try:
    s = tree.index(root_name)
    cover = cached_cover(tree, s, rake_only)
    other = cached_cover(tree, s, not rake_only)
except EngineError as exc:
    st.error(public_message(exc))
    st.stop()

opt, rake = (other, cover) if cover.rake_only else (cover, other)
info = cached_info(tree)
with c3:
    st.markdown(f"**{tree.n:,} vertices**, {int(tree.leaves.size):,} leaves, D has {cover.m:,} nodes "
                f"({cover.rounds} rounds).  \nThe ringed vertices of T are those of $T_t$ merged in round t; "
                f"the colour says when each vertex is merged.")

# the headline numbers side by side (one HTML element: workbench.components.stats)
numbers = [("(2,s)-cover height", opt.height), ("Rake-only height", rake.height),
           ("⌈log₂ n⌉", math.ceil(math.log2(tree.n))), ("Diameter", f"{info.diameter:,}")]
brute = None
if tree.n <= BRUTE_FORCE_N:
    brute = cached_brute(tree, s)
    numbers += [("χ²ₛ (brute force)", brute.chi_2s), ("χ² (brute force)", brute.chi_2),
                ("χ* (brute force)", brute.chi_star)]
stats(numbers, label="Cover heights")

# reset the selection when the cover changes
owner = (version, s, cover.rake_only)
if S.owner != owner:
    S.owner = owner
    pending = S.sel
    S.sel = pending if pending and pending[0] == "link" else None
    del S.pick
    if S.t > cover.rounds:
        S.t = 0
S.current = cover
_resolve_link_selection(tree, cover)

# a new row selected in the components table becomes the selection (clicks in the two views
# select through their callbacks, workbench.treeview.tree_view)
got = _fresh_event(TABLE)
if got is not None:
    rows = S.table_ids or []
    if 0 <= int(got) < len(rows):
        S.sel = ("node", int(rows[int(got)]))
        # and the Rounds tab opens, where the component is drawn: one click, and a tab clicked
        # while this rerun was on its way (the table reports a selection late) is not undone
        S.tab = SPEC.setting("tab").widget_value("rounds")

keep(SPEC, "t")   # the round slider, while another tab is open
tab_rounds, tab_table, tab_opt, tab_icicle, tab_growth = widget(SPEC, "tab", on_change="rerun")

@page_cache(st.cache_data, max_entries=12, hash_funcs={Tree: tree_hash}, show_spinner=False)
def pick_options(tree: Tree, root: int, rake_only: bool) -> list[str]:
    """The pick list of the Rounds tab: every component of D, then every vertex."""
    cover = cached_cover(tree, root, rake_only)
    return (["(nothing)"] + [_label_node(cover, z) for z in range(cover.m - 1, -1, -1)]
            + [_label_vertex(tree, v) for v in range(tree.n)])


def _pick_vertex(v) -> None:
    """A vertex picked in T: selected, and D brought to its leaf's chain when D is large."""
    S.sel = ("vertex", int(v))
    cover = S.current
    if cover is not None and cover.m > LINK_FOCUS:
        focus_on(cover.to_tree(), D_VIEW, cover.node_of_vertex(int(v)))


def _pick_in_d(c) -> None:
    """A node picked in D: selected, and T brought to where it splits when T is large."""
    S.sel = ("node", int(c))
    cover = S.current
    if cover is not None and cover.tree.n > LINK_FOCUS and cover.kind[int(c)] != EDGE:
        focus_on(cached_rooted(cover.tree, cover.s), T_VIEW, int(cover.split_vertex[int(c)]))


@st.fragment
def rounds(tree, cover, s: int) -> None:
    """T_t, D and the selection: the round slider, a click or a pick reruns only this."""
    address_bar.write_query("cover_inspector")
    sel = S.sel
    # the same selection as a pick list (keyboard and screen-reader friendly)
    pick_opts = pick_options(tree, s, cover.rake_only) if cover.m <= PICK_LIMIT else None
    if pick_opts is not None:
        cur = "(nothing)"
        if sel is not None:
            cur = _label_node(cover, sel[1]) if sel[0] == "node" else _label_vertex(tree, sel[1])
        if S.pick_applied != cur:
            S.pick = cur
            S.pick_applied = cur
    top = st.columns([3, 2])
    with top[0]:
        t = widget(SPEC, "t", hi=max(cover.rounds, 1) if cover.rounds else 1, disabled=cover.rounds == 0)
        t = min(t, cover.rounds)
    with top[1]:
        if pick_opts is not None:
            picked = st.selectbox("Inspect", pick_opts, key=S.key("pick"),
                                  help="Pick a component or a vertex by name (type to search), or click it.")
            if picked != S.pick_applied:
                S.pick_applied = picked
                if picked == "(nothing)":
                    sel = None
                elif picked.startswith("vertex "):
                    sel = ("vertex", tree.index(picked.removeprefix("vertex ")))
                else:
                    sel = ("node", cover.m - 1 - pick_opts.index(picked) + 1)
                S.sel = sel
        else:
            st.caption("Click a vertex, an edge or a node of D to inspect it.")
    tr = cover.trace(t)
    sel_node = sel[1] if sel and sel[0] == "node" else None
    sel_vertex = sel[1] if sel and sel[0] == "vertex" else None
    chain = cover.ancestors(cover.node_of_vertex(sel_vertex)) if sel_vertex is not None else None
    n_merge = int(tr.mergeable.sum())
    st.markdown(f"**Round {t}:** $T_{{{t}}}$ has {tr.vertices.size:,} vertices, {n_merge:,} of them mergeable "
                f"(ringed). " + ("Only s is left: the cover is complete." if t == cover.rounds else
                                f"They form {n_merge:,} new component{'' if n_merge == 1 else 's'} of height {t + 1}."))
    rooted = cached_rooted(tree, s)
    vr = np.asarray(cover.vertex_round)
    merging = np.flatnonzero(vr == t) if t < cover.rounds else np.zeros(0, np.int64)
    comp = cover.vertices_of(sel_node) if sel_node is not None and cover.node_size()[sel_node] <= COMPONENT_RING else ()
    left, right = st.columns(2)
    with left:
        st.markdown(f"**The tree T** rooted at s = {md(tree.name(s))}: colour = the round a vertex is merged in "
                    "(grey: a leaf of T, only ever the end of an edge)")
        split = int(cover.split_vertex[sel_node]) if sel_node is not None and cover.kind[sel_node] != EDGE else None
        tree_view(rooted, T_VIEW, page="cover_inspector", values=np.where(vr < 0, np.nan, vr).astype(float),
                  scale=SEQUENTIAL_SCALE, lo=0.0, hi=float(max(cover.rounds, 1)), value_title="merged in round",
                  rings=merging, ring_name=f"merged in round {t}", highlight=comp, selected=sel_vertex,
                  path_of=sel_vertex if sel_vertex is not None else split,
                  on_pick=_pick_vertex, describe=f"The tree T ({tree.n:,} vertices) coloured by the round each vertex "
                  f"is merged in; {merging.size:,} vertices are merged in round {t}.", export_name="cover_tree")
    with right:
        dtree = cover.to_tree()
        st.markdown(f"**Decomposition tree D** ({cover.m:,} nodes, height {cover.height})")
        tree_view(dtree, D_VIEW, categories=(np.asarray(cover.kind, np.int64), KIND_COLOURS),
                  highlight=chain if chain is not None else (), selected=sel_node, on_pick=_pick_in_d,
                  path_of=int(chain[0]) if chain is not None else sel_node,
                  layout="tidy", describe=f"The decomposition tree D of the cover ({cover.m:,} nodes, height "
                  f"{cover.height}); edge components grey, rakes blue, compresses orange, the root purple.",
                  export_name="cover_decomposition_tree")
    _round_tables(tree, cover, t, sel_vertex, chain)
    if sel_node is not None:
        z = sel_node
        verts = cover.vertices_of(z)
        kids = ", ".join(cover.node_name(int(c)) for c in cover.children(z)[:30])
        bnd = "{" + ", ".join(tree.name(b) for b in cover.boundary_of(z)) + "}" if len(cover.boundary_of(z)) else "∅"
        st.markdown(
            f"**{md(_label_node(cover, z))}** — boundary ∂T = {bnd}, {verts.size:,} vertices, "
            f"height {int(cover.node_height[z])} in D"
            + (f", split at {tree.name(int(cover.split_vertex[z]))} into: {kids}" if cover.kind[z] != EDGE else "")
            + (f".  \nVertices: {', '.join(tree.name(int(v)) for v in verts[:60])}"
               + (" …" if verts.size > 60 else "") if verts.size <= 2000 else "."))
    elif sel_vertex is not None:
        names = " → ".join(cover.node_name(int(z)) for z in chain)
        st.markdown(f"**Vertex {md(tree.name(sel_vertex))}** — its chain of ancestors in D "
                    f"({len(chain)} nodes, an online update touches each once): {names}")


def _components_tab() -> None:
    """The components of D as a table (largest first)."""
    ids, table = cached_table(tree, s, cover.rake_only)
    if len(ids) < cover.m:
        st.caption(f"Showing the {len(ids):,} largest non-edge components of {cover.m:,}.")
    S.table_ids = ids
    st.dataframe(table, hide_index=True, on_select="rerun", selection_mode="single-row",
                 key=TABLE, width="stretch", height=420)
    st.caption("Select a row: the Rounds tab opens with that component selected. Round −1: the edges, formed at "
               "initialisation.")


def _optimality_tab() -> None:
    """How far the cover is from optimal, and the best root."""
    a, b = st.columns(2)
    with a:
        st.header("How far from optimal")
        if brute is not None:
            st.markdown(
                f"| cover family | minimum height |\n|---|---:|\n"
                f"| all hierarchical covers, χ* | {brute.chi_star} |\n"
                f"| 2-covers (exposure ≤ 2), χ² | {brute.chi_2} |\n"
                f"| (2,s)-covers from s = {tree.name(s)}, χ²ₛ | {brute.chi_2s} |\n"
                f"| **Figure 1's cover** | **{opt.height}** |\n"
                f"| rake-only cover | {rake.height} |")
            ok = brute.chi_star <= brute.chi_2 <= brute.chi_2s <= 2 * brute.chi_star
            st.markdown(f"Theorem 6: χ* ≤ χ² ≤ χ²ₛ ≤ 2χ* — {'holds' if ok else '**fails**'} here; "
                        f"the algorithm {'attains' if opt.height == brute.chi_2s else '**misses**'} χ²ₛ.")
        else:
            st.markdown(f"Exact optima are enumerated for trees of at most {BRUTE_FORCE_N} vertices "
                        f"(this one has {tree.n:,}). Bounds: the height is at most about "
                        f"2⌈log₂ n⌉ = {2 * math.ceil(math.log2(tree.n))} and at most the diameter "
                        f"{info.diameter} for the rake-only cover.")
        if tree.n <= 300 and st.button("Check the cover against Definition 1", key=S.key("check")):
            errs = cover_violations(cover)
            if errs:
                st.error("; ".join(errs[:5]))
            else:
                st.success("Valid: Definition 1 holds, exposure ≤ 2, every component is (2,s)-oriented, "
                           "and D is exactly the splitting process.")
    with b:
        st.header("Best root")
        best_key = (S.key("best"), version, cover.rake_only)
        if tree.n > BEST_ROOT_N:
            st.caption(f"Trying every leaf is offered up to {BEST_ROOT_N:,} vertices.")
        elif st.button(f"Try all {len(leaf_names):,} leaves as root", key=S.key("try_roots")):
            bar = st.progress(0.0, text="Trying roots…")
            try:
                leaves, hs = heights_by_root(tree, rake_only=cover.rake_only,
                                             progress=lambda f, msg: bar.progress(min(f, 1.0), text=msg))
                S.best = (best_key, leaves.tolist(), hs.tolist())
            except EngineError as exc:
                st.error(public_message(exc))
            bar.empty()
        res = S.best
        if res and res[0] == best_key:
            _, leaves, hs = res
            i = min(range(len(hs)), key=lambda k: hs[k])
            best = tree.name(int(leaves[i]))
            st.markdown(f"Best root **{md(best)}** with height **{hs[i]}**; worst height {max(hs)}.")
            chart(roots_figure([tree.name(int(v)) for v in leaves], hs, best=best), key=S.key("roots_plot"),
                  name="cover_best_root", width="stretch",
                  describe=f"The optimal cover's height with each of the {len(hs):,} leaves as root: best root "
                  f"{best} with height {hs[i]}, worst height {max(hs)}.")

            st.button(f"Use root {best}", key=S.key("use_best"), on_click=_use_root,
                      args=(tree_version(), best))


def _icicle_tab() -> None:
    """D as an icicle: one block per component, as wide as its edges."""
    st.caption("Each block is a component; its width is its number of edges, and its kind is written in it "
               "and coloured: grey edge, blue rake, orange compress, purple root. Click to zoom into a subtree.")
    chart(cached_icicle(tree, s, cover.rake_only, current_style()), key=S.key("icicle"), name="cover_icicle",
          width="stretch", describe=f"The decomposition tree D as an icicle: {cover.m:,} components, height "
          f"{cover.height}; each block is as wide as its number of edges.")


def _growth_tab() -> None:
    """The cover's height as the tree grows, for three families."""
    st.caption("Height of the optimal (2,s)-cover as the tree grows: a star stays at 1, a path "
               "grows like log₂ n, a star of paths with log₂ n edges each grows like log log n.")
    rows = growth_rows()
    tops = ", ".join(f"{fam} {max(r['height'] for r in rows if r['family'] == fam)}"
                     for fam in dict.fromkeys(r["family"] for r in rows))
    chart(growth_figure(rows), key=S.key("growth"), name="cover_height_growth", width="stretch",
          describe=f"The optimal cover's height against the number of vertices, up to "
          f"{max(r['n'] for r in rows):,}, for three families; the largest heights: {tops}.")


# only the open tab is computed and sent: ``on_change="rerun"`` makes ``.open`` known, and a tab
# clicked reruns the page with that tab open, so a fresh page costs one tab, not five
for tab, draw in ((tab_rounds, lambda: rounds(tree, cover, s)), (tab_table, _components_tab),
                  (tab_opt, _optimality_tab), (tab_icicle, _icicle_tab), (tab_growth, _growth_tab)):
    if tab.open:
        with tab:
            draw()
