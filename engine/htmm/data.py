"""Labelled positional trees in batch form, for hidden tree Markov models.

Castellana & Bacciu, "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(2019), section II-A: a tree whose node ``u`` carries a label ``x_u`` in ``1..M`` and whose
children sit in positional slots ``1..L`` (slots may be empty). :class:`PositionalTrees` holds a
whole data set as flat arrays (one row per node, the nodes of a tree contiguous), grouped into
depth levels so that the upward and downward passes of :mod:`engine.htmm.sp` and
:mod:`engine.htmm.tf` are vectorised over every node of a level of every tree at once.

Readers: the JSON-lines format of the benchmark trees (``{"y", "labels", "children"}``, nodes
numbered from 1, node 1 the root, -1 an empty slot; plain or ``.gz``), XML documents (element tags
as labels, child order as position; parsed with defusedxml), and the synthetic generator of
section IV-B (left-asymmetric, symmetric and right-asymmetric ternary trees, label = number of
children + 1, as in the ``symm`` benchmark).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from engine import limits
from engine.errors import DataFormatError, InvalidParameterError
from engine.files import iter_lines, open_input, read_input
from engine.jsonio import loads
from engine.limits import check_seed
from engine.trees.formats.positional import positional_children

__all__ = ["PositionalTrees", "from_lists", "read_jsonl_trees", "read_xml_trees", "read_trees",
           "synthetic_trees", "SYNTHETIC_SHAPES", "shared_vocabulary"]


@dataclass(frozen=True, eq=False)
class PositionalTrees:
    """A batch of labelled positional trees.

    Attributes
    ----------
    labels : ndarray of int64, shape (N,)
        Label of every node, 0-based (``0..n_labels-1``); ``-1`` marks a hidden label.
    children : ndarray of int64, shape (N, L)
        ``children[u, l]`` is the global index of the child of ``u`` in slot ``l`` (0-based) or -1.
    parent : ndarray of int64, shape (N,)
        Global index of the parent, -1 at roots.
    position : ndarray of int64, shape (N,)
        0-based slot of a node among its parent's children (0 at roots).
    tree_ptr : ndarray of int64, shape (T+1,)
        Nodes of tree ``t`` are ``tree_ptr[t]:tree_ptr[t+1]``; the first is its root.
    y : ndarray of int64, shape (T,)
        Class of every tree (0 when unknown).
    n_labels : int
        ``M``, the size of the label alphabet.
    levels : tuple of ndarray
        ``levels[d]`` holds every node at depth ``d`` (roots at depth 0), over all trees.
    label_names : tuple of str or None
        Display names of the labels (XML tags), if any.
    """

    labels: np.ndarray
    children: np.ndarray
    parent: np.ndarray
    position: np.ndarray
    tree_ptr: np.ndarray
    y: np.ndarray
    n_labels: int
    levels: tuple
    label_names: tuple | None = None
    tree: np.ndarray = field(init=False, repr=False)
    is_leaf: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        sizes = np.diff(self.tree_ptr)
        object.__setattr__(self, "tree", np.repeat(np.arange(len(sizes)), sizes))
        object.__setattr__(self, "is_leaf", (self.children < 0).all(axis=1))

    @property
    def n_trees(self) -> int:
        return int(len(self.tree_ptr) - 1)

    @property
    def n_nodes(self) -> int:
        return int(len(self.labels))

    @property
    def max_children(self) -> int:
        """``L``, the number of positional slots."""
        return int(self.children.shape[1])

    def __len__(self) -> int:
        return self.n_trees

    @property
    def shape(self) -> tuple[int]:
        """``(n_trees,)``: a batch is indexed tree by tree like a 1-D array, which is how
        scikit-learn's cross-validation and ``train_test_split`` count and split it."""
        return (self.n_trees,)

    def __getitem__(self, key) -> "PositionalTrees":
        """The trees at ``key`` (an index, slice, index array or boolean mask; ``key, ...`` as
        scikit-learn writes it), as a batch: :meth:`subset`.

        >>> synthetic_trees(4, seed=0)[[0, 5]].n_trees
        2
        """
        if isinstance(key, tuple) and len(key) == 2 and key[1] is Ellipsis:
            key = key[0]
        if isinstance(key, slice):
            key = np.arange(self.n_trees)[key]
        elif np.ndim(key) == 0:
            key = [key]
        return self.subset(key)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a PositionalTrees batch is not an array: index it by tree (trees[idx]) or read its arrays "
                        "(labels, children, parent, position, tree_ptr, y)")

    def __repr__(self) -> str:
        return (f"PositionalTrees(trees={self.n_trees}, nodes={self.n_nodes}, L={self.max_children}, "
                f"M={self.n_labels})")

    # ------------------------------------------------------------------ views
    def subset(self, trees) -> "PositionalTrees":
        """The trees whose indices (or boolean mask) are given, in that order."""
        key = np.asarray(trees)
        idx = np.arange(self.n_trees)[key if key.dtype == bool else key.astype(np.intp)]
        rows = [(self.labels[a:b], self.children[a:b], a) for a, b in
                zip(self.tree_ptr[idx], self.tree_ptr[idx + 1])]
        labels = [r[0] for r in rows]
        children = [np.where(r[1] >= 0, r[1] - r[2], -1) for r in rows]
        return _build(labels, children, self.y[idx], self.n_labels, self.label_names,
                      L=self.max_children)

    def with_slots(self, L: int) -> "PositionalTrees":
        """The same trees with ``L`` slots (more empty slots, or fewer if all are empty)."""
        if L == self.max_children:
            return self
        if L < self.max_children and (self.children[:, L:] >= 0).any():
            raise InvalidParameterError(
                f"a tree uses slot {int(np.flatnonzero((self.children >= 0).any(0)).max()) + 1}, "
                f"more than the {L} slots asked for")
        ch = np.full((self.n_nodes, L), -1, np.int64)
        m = min(L, self.max_children)
        ch[:, :m] = self.children[:, :m]
        return PositionalTrees(self.labels, ch, self.parent, self.position, self.tree_ptr, self.y,
                               self.n_labels, self.levels, self.label_names)

    def with_n_labels(self, M: int) -> "PositionalTrees":
        if M < self.n_labels:
            raise InvalidParameterError(f"{M} labels asked for but the data uses {self.n_labels}")
        return PositionalTrees(self.labels, self.children, self.parent, self.position, self.tree_ptr,
                               self.y, int(M), self.levels, self.label_names)

    def without_labels(self) -> "PositionalTrees":
        """The same structures with every label hidden (``-1``), for the labelling task."""
        return PositionalTrees(np.full_like(self.labels, -1), self.children, self.parent,
                               self.position, self.tree_ptr, self.y, self.n_labels, self.levels,
                               self.label_names)

    def tree_nodes(self, t: int) -> slice:
        return slice(int(self.tree_ptr[t]), int(self.tree_ptr[t + 1]))

    def to_tree(self, t: int, labels=None):
        """Tree ``t`` as an :class:`engine.trees.Tree` (names ``1..n`` as in the file, labels the
        1-based label numbers or the label names, ``positions`` the 1-based slots), the tree that
        :func:`engine.trees.read_tree` reads from the same JSON line."""
        from engine.trees import Tree

        s = self.tree_nodes(t)
        a = s.start
        par = self.parent[s].copy()
        par[par >= 0] -= a
        lab = self.labels[s] if labels is None else np.asarray(labels)
        if self.label_names is not None:
            names = [self.label_names[v] if v >= 0 else None for v in lab]
        else:  # 1-based label numbers, as engine.trees.read_tree gives them for JSON lines
            names = [int(v) + 1 if v >= 0 else None for v in lab]
        pos = self.position[s] + 1
        pos[0] = 0
        return Tree.from_parent(par, names=[str(i + 1) for i in range(len(par))], labels=names,
                                positions=pos)


def _build(labels: Sequence[np.ndarray], children: Sequence[np.ndarray], y, n_labels: int,
           label_names=None, L: int | None = None) -> PositionalTrees:
    """Concatenate per-tree arrays (children local, 0-based, -1 empty) into a batch.
    Trusts its input (validated by the readers)."""
    if L is None:
        L = max((c.shape[1] for c in children), default=1)
    sizes = np.array([len(x) for x in labels], np.int64)
    ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=ptr[1:])
    N = int(ptr[-1])
    lab = np.concatenate(labels).astype(np.int64) if N else np.zeros(0, np.int64)
    ch = np.full((N, L), -1, np.int64)
    for t, c in enumerate(children):
        k = c.shape[1]
        ch[ptr[t]:ptr[t + 1], :k] = np.where(c >= 0, c + ptr[t], -1)
    parent = np.full(N, -1, np.int64)
    position = np.zeros(N, np.int64)
    u, l = np.nonzero(ch >= 0)
    parent[ch[u, l]] = u
    position[ch[u, l]] = l
    levels = []
    frontier = ptr[:-1].copy()
    while frontier.size:
        levels.append(frontier)
        c = ch[frontier].ravel()
        frontier = c[c >= 0]
    return PositionalTrees(lab, ch, parent, position, ptr, np.asarray(y, np.int64), int(n_labels),
                           tuple(levels), None if label_names is None else tuple(label_names))


#: The default largest label of a JSON-lines tree (the emission table has one column per label
#: 1..M); the limit in force is ``engine.limits.value("label_alphabet")``.
MAX_LABEL = limits.LIMITS["label_alphabet"].default


def _integers(values, message: str) -> np.ndarray:
    """``values`` as int64, refusing anything that is not an integer (1.5, true, "2") rather than
    truncating it. A boolean is refused in a mixed list too (``[true, 3, 2]``, which NumPy would
    read as ``[1, 3, 2]``): the message names it."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError):
        raise DataFormatError(message) from None
    if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind == "f"):
        raise DataFormatError(message)
    if isinstance(values, list) and any(x is True or x is False for x in values):
        bad = next(i for i, x in enumerate(values) if x is True or x is False)
        raise DataFormatError(f"{message}; entry {bad + 1} is {str(values[bad]).lower()}, a boolean")
    return a.astype(np.int64)


def _check_tree(labels, children, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Validate one tree given 1-based like the file; return 0-based arrays."""
    n = len(labels)
    if n == 0:
        raise DataFormatError(f"{where}: the tree has no nodes")
    if len(children) != n:
        raise DataFormatError(f"{where}: {n} labels but {len(children)} children lists")
    lab = _integers(labels, f"{where}: labels must be integers")
    if lab.ndim != 1 or lab.size and lab.min() < 1:
        bad = int(np.flatnonzero(lab < 1)[0]) + 1 if lab.ndim == 1 else 1
        raise DataFormatError(f"{where}: node {bad} has label {lab.ravel()[bad - 1]}; labels are 1..M")
    if lab.size and lab.max() > limits.value("label_alphabet"):
        bad = int(np.argmax(lab)) + 1
        raise DataFormatError(f"{where}: node {bad}: " + limits.refusal("label_alphabet", f"label {lab[bad - 1]}",
                                                                        int(lab.max())))
    parent, slot = positional_children(children, where=where, error=DataFormatError)
    widths = set(map(len, children))
    if len(widths) != 1:
        raise DataFormatError(f"{where}: children lists have different lengths {sorted(widths)}; "
                              "every node needs the same number of slots L")
    ch = np.full((n, widths.pop()), -1, np.int64)
    ch[parent[1:], slot[1:] - 1] = np.arange(1, n)
    # every non-root node has exactly one parent and the root none: a cycle is the only way left
    seen = np.zeros(n, bool)
    frontier = np.array([0])
    while frontier.size:
        seen[frontier] = True
        nxt = ch[frontier].ravel()
        frontier = nxt[nxt >= 0]
    if not seen.all():
        v = int(np.flatnonzero(~seen)[0])
        raise DataFormatError(f"{where}: node {v + 1} cannot be reached from the root (a cycle)")
    return lab - 1, ch


def read_jsonl_trees(path, *, n_labels: int | None = None) -> PositionalTrees:
    """Read a JSON-lines tree file (plain or gzip): one ``{"y", "labels", "children"}`` per line.

    Raises :class:`~engine.errors.DataFormatError` naming the file and line of the first problem.
    """
    path = Path(path)
    labels, children, ys = [], [], []
    with open_input(path, error=DataFormatError) as f:  # regular files, gzip by content, byte cap
        for i, line in iter_lines(f, str(path), error=DataFormatError, skip_blank=True):
            if not line.strip():
                continue
            where = f"{path}:{i}"
            rec = loads(line, where=where)
            if not isinstance(rec, dict):
                raise DataFormatError(f"{where}: expected an object with labels and children")
            for key in ("labels", "children"):
                if key not in rec:
                    raise DataFormatError(f"{where}: missing key {key!r}")
            if not isinstance(rec["labels"], list) or not isinstance(rec["children"], list):
                raise DataFormatError(f"{where}: labels and children must be lists")
            y = rec.get("y", 0)
            if isinstance(y, bool) or not isinstance(y, int):
                raise DataFormatError(f"{where}: class y must be an integer, got {y!r}")
            lab, ch = _check_tree(rec["labels"], rec["children"], where)
            labels.append(lab)
            children.append(ch)
            ys.append(y)
    if not labels:
        raise DataFormatError(f"{path}: no trees in the file")
    M = max(int(x.max()) + 1 for x in labels)
    if n_labels is not None:
        if n_labels < M:
            raise DataFormatError(f"{path}: a label {M} exceeds the {n_labels} labels expected")
        M = n_labels
    return _build(labels, children, ys, M)


def read_xml_trees(paths, *, classes=None, vocabulary=None) -> PositionalTrees:
    """Read XML documents as labelled positional trees: element tags are labels (numbered by
    ``vocabulary``, a sequence of tags, or in sorted order of the tags seen), child order is position.

    paths : a file, a directory (every ``*.xml`` below it; a document in ``DIR/CLASS/`` gets that
    sub-directory as its class) or a list of files. ``classes`` optionally gives one int per file.
    """
    from engine.trees.formats.xmlsafe import feed_safely

    files, ys = _xml_files(paths)
    if classes is not None:
        ys = [int(c) for c in classes]
        if len(ys) != len(files):
            raise InvalidParameterError(f"{len(ys)} classes given for {len(files)} XML documents")
    docs = []
    for p in files:
        root = feed_safely(read_input(p, error=DataFormatError), what=str(p), error=DataFormatError)
        tags, kids = [], []
        stack = [(root, -1)]
        while stack:  # pre-order, node 0 the root
            el, pi = stack.pop()
            i = len(tags)
            tags.append(_tag(el.tag))
            kids.append([])
            if pi >= 0:
                kids[pi].append(i)
            for c in reversed(list(el)):
                stack.append((c, i))
        # the stack reverses pre-order sibling appends: fix the order
        docs.append((tags, [sorted(k) for k in kids]))
    if vocabulary is None:
        vocabulary = sorted({t for tags, _ in docs for t in tags})
    index = {t: i for i, t in enumerate(vocabulary)}
    L = max(max((len(k) for k in kids), default=0) for _, kids in docs) or 1
    labels, children = [], []
    for p, (tags, kids) in zip(files, docs):
        unknown = [t for t in tags if t not in index]
        if unknown:
            raise DataFormatError(f"{p}: tag <{unknown[0]}> is not in the vocabulary")
        labels.append(np.array([index[t] for t in tags], np.int64))
        ch = np.full((len(tags), L), -1, np.int64)
        for u, k in enumerate(kids):
            ch[u, :len(k)] = k
        children.append(ch)
    return _build(labels, children, ys, len(vocabulary), vocabulary, L=L)


def _tag(tag) -> str:
    tag = str(tag)
    return tag.split("}", 1)[1] if tag.startswith("{") else tag


def _xml_files(paths):
    if isinstance(paths, (str, Path)):
        p = Path(paths)
        if p.is_dir():
            files = sorted(p.rglob("*.xml"))
            if not files:
                raise DataFormatError(f"{p}: no .xml documents in the directory")
            subs = sorted({f.parent.relative_to(p).parts[0] for f in files if f.parent != p})
            cls = {s: i + 1 for i, s in enumerate(subs)}
            ys = [cls.get(f.relative_to(p).parts[0], 0) if f.parent != p else 0 for f in files]
            return files, ys
        return [p], [0]
    files = [Path(x) for x in paths]
    if not files:
        raise DataFormatError("no XML documents given")
    return files, [0] * len(files)


def read_trees(path, *, n_labels: int | None = None) -> PositionalTrees:
    """JSON lines (``.jsonl``, ``.jsonl.gz``, ``.json``) or XML (a ``.xml`` file or a directory)."""
    p = Path(path)
    if p.is_dir() or p.suffix.lower() == ".xml":
        return read_xml_trees(p)
    if not p.exists():
        raise DataFormatError(f"{p}: no such file")
    return read_jsonl_trees(p, n_labels=n_labels)


def shared_vocabulary(a: PositionalTrees, b: PositionalTrees) -> tuple[PositionalTrees, PositionalTrees]:
    """Renumber the labels of two XML-derived batches over the union of their tags (``a``'s
    first), so that a label means the same tag in both; batches without tag names are returned
    as they are."""
    if a.label_names is None or b.label_names is None:
        return a, b
    names = list(a.label_names) + sorted(set(b.label_names) - set(a.label_names))
    index = {t: i for i, t in enumerate(names)}
    remap = np.array([index[t] for t in b.label_names], np.int64)
    lab = np.where(b.labels >= 0, remap[np.maximum(b.labels, 0)], -1)
    new_b = PositionalTrees(lab, b.children, b.parent, b.position, b.tree_ptr, b.y, len(names),
                            b.levels, tuple(names))
    new_a = PositionalTrees(a.labels, a.children, a.parent, a.position, a.tree_ptr, a.y, len(names),
                            a.levels, tuple(names))
    return new_a, new_b


def from_lists(records, n_labels: int | None = None) -> PositionalTrees:
    """Build a batch from records like the file's: ``{"y", "labels" (1..M), "children" (1-based)}``."""
    labels, children, ys = [], [], []
    for i, rec in enumerate(records, 1):
        lab, ch = _check_tree(rec["labels"], rec["children"], f"tree {i}")
        labels.append(lab)
        children.append(ch)
        ys.append(int(rec.get("y", 0)))
    if not labels:
        raise DataFormatError("no trees given")
    M = max(int(x.max()) + 1 for x in labels)
    return _build(labels, children, ys, max(M, n_labels or 0))


#: class (1, 2, 3) -> (name, probability that each of the three slots holds a child)
SYNTHETIC_SHAPES = {
    1: ("left-asymmetric", (0.68, 0.22, 0.07)),
    2: ("symmetric", (0.33, 0.33, 0.33)),
    3: ("right-asymmetric", (0.07, 0.22, 0.68)),
}


def synthetic_trees(n_per_class: int = 20, *, min_nodes: int = 20, max_nodes: int = 100,
                    seed=None) -> PositionalTrees:
    """Ternary trees of section IV-B: left-asymmetric (class 1), symmetric (2), right-asymmetric (3).

    A tree grows breadth first from its root: each slot of a node holds a child independently
    with its class's slot probability (near-critical branching, so trees stay small), until
    ``max_nodes`` nodes exist; trees that die out below ``min_nodes`` are drawn again. The left-
    asymmetric class fills slot 1 most (0.68 / 0.22 / 0.07, close to the slot frequencies of the
    ``symm`` benchmark), the right-asymmetric one slot 3, the symmetric one all alike. A node's label
    is its number of children + 1 (labels 1..4, as in ``symm``).
    """
    if n_per_class < 1 or min_nodes < 1 or max_nodes < min_nodes:
        raise InvalidParameterError(
            f"need n_per_class >= 1 and 1 <= min_nodes <= max_nodes, got {n_per_class}, "
            f"{min_nodes}, {max_nodes}")
    limits.check("vertices", len(SYNTHETIC_SHAPES) * n_per_class * max_nodes,
                 f"{n_per_class} synthetic trees per class x {len(SYNTHETIC_SHAPES)} classes x up to {max_nodes} nodes =")
    rng = np.random.default_rng(check_seed(seed))
    labels, children, ys = [], [], []
    for y, (_, w) in SYNTHETIC_SHAPES.items():
        w = np.asarray(w)
        made = 0
        while made < n_per_class:
            ch = np.full((max_nodes, 3), -1, np.int64)
            n, frontier = 1, np.array([0])
            while frontier.size and n < max_nodes:
                fill = rng.random((len(frontier), 3)) < w
                u, l = np.nonzero(fill)
                take = min(len(u), max_nodes - n)
                u, l = u[:take], l[:take]
                new = np.arange(n, n + take)
                ch[frontier[u], l] = new
                n += take
                frontier = new
            if n < min_nodes:
                continue
            ch = ch[:n]
            labels.append((ch >= 0).sum(1))  # 0-based label = number of children
            children.append(ch)
            ys.append(y)
            made += 1
    return _build(labels, children, ys, 4)
