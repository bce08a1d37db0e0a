"""Tree families for teaching and benchmarks, each seeded (int or ``numpy.random.Generator``).

"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale, section 3) uses the star of paths as the
example whose optimal cover height grows like O(log log n); the path and the star are the extremes of the cover height.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import breadth_first_order

from engine.errors import InvalidParameterError
from engine.errors import need as _need
from engine.limits import check_seed
from engine.trees.model import Tree

__all__ = [
    "GENERATORS",
    "MAX_GENERATE",
    "path_tree",
    "star_tree",
    "star_of_paths",
    "complete_tree",
    "caterpillar_tree",
    "spider_tree",
    "random_tree",
    "random_recursive_tree",
    "prufer_to_parent",
    "tree_from_parent_trusted",
    "generate",
]


def _rng(seed):
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))


def path_tree(n: int) -> Tree:
    """The path 0-1-...-(n-1), rooted at 0."""
    _need(n >= 1, f"a path needs n >= 1 vertices, got {n}")
    p = np.arange(-1, n - 1, dtype=np.int64)
    return Tree(p, np.arange(n), 0)


def star_tree(n: int) -> Tree:
    """Centre 0 joined to n-1 leaves, rooted at the centre."""
    _need(n >= 1, f"a star needs n >= 1 vertices, got {n}")
    p = np.zeros(n, np.int64)
    p[0] = -1
    return Tree(p, np.arange(n), 0)


def star_of_paths(k: int, m: int) -> Tree:
    """``k`` paths of ``m`` edges joined at a centre (vertex 0): n = k*m + 1."""
    _need(k >= 1 and m >= 1, f"a star of paths needs k >= 1 paths of m >= 1 edges, got k={k}, m={m}")
    n = k * m + 1
    v = np.arange(1, n)
    j = (v - 1) % m  # position along its path
    p = np.empty(n, np.int64)
    p[0] = -1
    p[1:] = np.where(j == 0, 0, v - 1)
    order = np.concatenate([[0], 1 + np.argsort(j, kind="stable")])
    return Tree(p, order, 0)


def complete_tree(n: int, b: int = 2) -> Tree:
    """The complete ``b``-ary tree on ``n`` vertices in heap order, rooted at 0."""
    _need(n >= 1, f"a complete tree needs n >= 1 vertices, got {n}")
    _need(b >= 1, f"a complete tree needs branching b >= 1, got {b}")
    p = (np.arange(n, dtype=np.int64) - 1) // b
    p[0] = -1
    return Tree(p, np.arange(n), 0)


def caterpillar_tree(n: int, spine: int | None = None, *, seed=None) -> Tree:
    """A path of ``spine`` vertices with the other n - spine vertices hung as legs on it.

    Legs are spread evenly (deterministic); ``seed`` is accepted for a uniform signature.
    """
    _need(n >= 1, f"a caterpillar needs n >= 1 vertices, got {n}")
    s = max(1, n // 3) if spine is None else spine
    _need(1 <= s <= n, f"the spine must have 1..n vertices, got {s} for n={n}")
    p = np.empty(n, np.int64)
    p[:s] = np.arange(-1, s - 1)
    p[s:] = np.arange(n - s) % s
    return tree_from_parent_trusted(p, 0)


def spider_tree(legs: int, length: int | None = None, *, n: int | None = None, seed=None) -> Tree:
    """A centre with ``legs`` legs; equal legs of ``length`` edges, or random lengths summing to n-1."""
    _need(legs >= 1, f"a spider needs at least one leg, got {legs}")
    if length is not None:
        return star_of_paths(legs, length)
    _need(n is not None and n >= legs + 1, f"a spider with {legs} legs needs n >= {legs + 1}")
    rng = _rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, n - 1), size=legs - 1, replace=False)) if legs > 1 else []
    lengths = np.diff(np.concatenate([[0], cuts, [n - 1]])).astype(np.int64)
    p = np.empty(n, np.int64)
    p[0] = -1
    v = 1
    for length_i in lengths:
        p[v] = 0
        p[v + 1:v + length_i] = np.arange(v, v + length_i - 1)
        v += length_i
    return Tree.from_parent(p)


def prufer_to_parent(seq: np.ndarray, n: int) -> np.ndarray:
    """Decode a Prüfer sequence of length n-2 into a parent array rooted at vertex n-1 (O(n))."""
    seq = np.ascontiguousarray(seq, dtype=np.int64)
    if n < 2 or len(seq) != n - 2 or (seq.size and (seq.min() < 0 or seq.max() >= n)):
        raise InvalidParameterError(f"a Prüfer sequence for n={n} has n-2 entries in 0..n-1")
    if n == 2:
        return np.array([1, -1], np.int64)
    from engine.trees import _kernels as kernels  # numba loads on first use, not with the engine

    return kernels.prufer_decode(seq, n)


def tree_from_parent_trusted(parent: np.ndarray, root: int, *, names=None) -> Tree:
    """A Tree from a parent array known to be a tree (generators): BFS order without validation."""
    n = len(parent)
    child = np.flatnonzero(parent >= 0)
    adj = coo_matrix((np.ones(child.size, np.int8), (parent[child], child)), shape=(n, n)).tocsr()
    order = breadth_first_order(adj, root, directed=True, return_predecessors=False)
    return Tree(parent, order.astype(np.int64), root, names)


def random_tree(n: int, *, seed=None) -> Tree:
    """A uniformly random labelled tree on n vertices (random Prüfer sequence), rooted at 0."""
    _need(n >= 1, f"a random tree needs n >= 1 vertices, got {n}")
    if n <= 2:
        return path_tree(n)
    rng = _rng(seed)
    p = prufer_to_parent(rng.integers(0, n, size=n - 2), n)
    from engine.trees import _kernels as kernels  # numba loads on first use, not with the engine

    return tree_from_parent_trusted(kernels.reroot_parent(p, 0), 0)


def random_recursive_tree(n: int, *, seed=None) -> Tree:
    """Vertex i joins a uniformly chosen earlier vertex (expected depth O(log n)), rooted at 0."""
    _need(n >= 1, f"a random recursive tree needs n >= 1 vertices, got {n}")
    rng = _rng(seed)
    p = np.empty(n, np.int64)
    p[0] = -1
    if n > 1:
        p[1:] = (rng.random(n - 1) * np.arange(1, n)).astype(np.int64)
    return tree_from_parent_trusted(p, 0)  # p[v] < v: a tree by construction


#: Largest tree :func:`generate` builds (the CLI and the app answer within seconds up to it).
MAX_GENERATE = 2_000_000

#: Families by name, with their parameters, for the CLI and the Tree Studio.
GENERATORS = {
    "path": "n",
    "star": "n",
    "star-of-paths": "k paths of m edges (n = k*m+1; default k = m = round(sqrt(n)))",
    "binary": "n (complete binary tree)",
    "complete": "n, b (complete b-ary tree)",
    "caterpillar": "n, spine",
    "spider": "legs, n (random leg lengths)",
    "random": "n (uniform labelled tree, Prüfer)",
    "recursive": "n (random recursive tree)",
}


def generate(kind: str, n: int, *, seed=None, k: int | None = None, m: int | None = None,
             b: int = 2, spine: int | None = None, legs: int | None = None) -> Tree:
    """Generate a family by name (see :data:`GENERATORS`) with about ``n`` vertices.

    Every argument is checked first (whole numbers in range, a seed in ``0..2^63-1``), so a bad
    spec from a config or a scenario is one :class:`~engine.errors.InvalidParameterError` line.

    >>> from engine.trees import generate
    >>> generate("path", 7).n, len(generate("star", 9).leaves)
    (7, 8)
    >>> generate("random", 1000, seed=1) == generate("random", 1000, seed=1)  # seeded: reproducible
    True
    """
    _need(isinstance(kind, str), f"a tree family is a name, one of {', '.join(GENERATORS)}; got {str(kind)[:40]}")
    kind = kind.replace("_", "-").lower()
    _need(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and 1 <= n <= MAX_GENERATE,
          f"n must be a whole number in 1..{MAX_GENERATE:,}, got {str(n)[:40]}")
    seed = check_seed(seed)
    for name, x, lo in (("k", k, 1), ("m", m, 1), ("b", b, 1), ("spine", spine, 1), ("legs", legs, 1)):
        _need(x is None or (isinstance(x, (int, np.integer)) and not isinstance(x, bool) and lo <= x <= MAX_GENERATE),
              f"{name} must be a whole number in {lo}..{MAX_GENERATE:,}, got {str(x)[:40]}")
    if kind == "path":
        return path_tree(n)
    if kind == "star":
        return star_tree(n)
    if kind == "star-of-paths":
        if k is None and m is None:
            k = m = max(1, round((max(n, 2) - 1) ** 0.5))
        elif k is None:
            k = max(1, (n - 1) // m)
        elif m is None:
            m = max(1, (n - 1) // k)
        return star_of_paths(k, m)
    if kind == "binary":
        return complete_tree(n, 2)
    if kind == "complete":
        return complete_tree(n, b)
    if kind == "caterpillar":
        return caterpillar_tree(n, spine, seed=seed)
    if kind == "spider":
        if n == 1 and legs is None:
            return path_tree(1)
        return spider_tree(legs or max(1, min(n - 1, 5)), n=n, seed=seed)
    if kind == "random":
        return random_tree(n, seed=seed)
    if kind == "recursive":
        return random_recursive_tree(n, seed=seed)
    raise InvalidParameterError(
        f"unknown tree family {kind!r}; expected one of {', '.join(GENERATORS)}")
