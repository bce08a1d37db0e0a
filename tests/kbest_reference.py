"""K-best max-sum inference on a spanning tree and over an ensemble of trees, in plain Python: the
oracle of the compiled kernels of :mod:`engine.multilabel.kbest`.

Written for reading, not for speed: Python lists of scores and back-pointers, the K best sums of
two sorted lists by a best-first search over pairs with a binary max-heap, and one walk per
labelling to trace it back. Which of two equal scores comes first is part of the specification,
because the learner's numbers depend on it (the RTA pins were taken with this order): a message
takes the child's value 0 before 1, the root's list the value 0 before 1, and a merge of two lists
yields pairs in the order the heap below pops them (a pushed entry rises past every parent that is
not at least as large; a sifted entry sinks below a strictly larger child, the right one when it is
strictly larger than the left; comparisons with a NaN sum, inf - inf, are false). The compiled kernels must return the same labellings in the same order with
the same scores, bit for bit (``tests/test_multilabel_kbest.py``).

Edge scores are indexed as in the engine: ``S[t][v][2 * y_v + y_parent(v)]``.
"""

import math


def topk_pairs(a, b, K):
    """The K best sums ``a[i] + b[j]`` of two descending lists, as ``(sum, i, j)`` in heap order.

    Pair (i, j) enters the heap after (i, j - 1) is popped, and (i + 1, 0) after (i, 0)."""
    if not a or not b:
        return []
    if len(a) == 1 or len(b) == 1:  # a single line of pairs: popped along it
        line = [(0, j) for j in range(len(b))] if len(a) == 1 else [(i, 0) for i in range(len(a))]
        return [(a[i] + b[j], i, j) for i, j in line[:K]]
    heap = [(a[0] + b[0], 0, 0)]
    out = []
    while len(out) < K and heap:
        top = heap[0]
        out.append(top)
        last = heap.pop()
        if heap:
            _sink(heap, last)
        _, i, j = top
        if j + 1 < len(b):
            _rise(heap, (a[i] + b[j + 1], i, j + 1))
        if j == 0 and i + 1 < len(a):
            _rise(heap, (a[i + 1] + b[0], i + 1, 0))
    return out


def _rise(heap, entry):
    heap.append(entry)
    c = len(heap) - 1
    while c > 0 and not heap[(c - 1) // 2][0] >= entry[0]:   # (a NaN sum, inf - inf, rises too)
        heap[c] = heap[(c - 1) // 2]
        c = (c - 1) // 2
    heap[c] = entry


def _sink(heap, entry):
    """Put ``entry`` at the root of ``heap`` and let it sink to its place."""
    c, n = 0, len(heap)
    while 2 * c + 1 < n:
        child = 2 * c + 1
        if child + 1 < n and heap[child + 1][0] > heap[child][0]:
            child += 1
        if heap[child][0] <= entry[0]:
            break
        heap[c] = heap[child]
        c = child
    heap[c] = entry


def _best_of_two(first, second, K):
    """Merge two descending lists of (score, tag), ``first`` winning ties, K at most."""
    out, i, j = [], 0, 0
    while len(out) < K and (i < len(first) or j < len(second)):
        if j >= len(second) or (i < len(first) and first[i][0] >= second[j][0]):
            out.append(first[i])
            i += 1
        else:
            out.append(second[j])
            j += 1
    return out


def kbest_tree(S, parent, post, children, K):
    """The K best labellings of one tree: a list of ``(score, labelling)``, best first.

    ``post`` lists the labels children first; ``children[v]`` are v's children in the order their
    messages are merged into v's lists."""
    l = len(parent)
    best = [[[0.0], [0.0]] for _ in range(l)]  # best[v][y]: K best scores of v's subtree, v = y
    msg_back, merge_back = {}, {}
    for v in post[:-1]:
        p = parent[v]
        for yp in (0, 1):
            # the message v -> p for p = yp: v's two lists shifted by the edge's score
            shifted = [[(s + S[v][2 * y + yp], (y, r)) for r, s in enumerate(best[v][y])] for y in (0, 1)]
            msg = _best_of_two(shifted[0], shifted[1], K)
            msg_back[v, yp] = [back for _, back in msg]
            merged = topk_pairs(best[p][yp], [m for m, _ in msg], K)
            best[p][yp] = [s for s, _, _ in merged]
            merge_back[v, yp] = [(i, j) for _, i, j in merged]
    root = post[-1]
    ends = _best_of_two([(s, (0, r)) for r, s in enumerate(best[root][0])],
                        [(s, (1, r)) for r, s in enumerate(best[root][1])], K)
    out = []
    for score, (y, r) in ends:
        labelling = [0] * l
        todo = [(root, y, r)]
        while todo:
            v, y, r = todo.pop()
            labelling[v] = y
            for c in reversed(children[v]):  # the last child merged is undone first
                r, m = merge_back[c, y][r]
                todo.append((c, *msg_back[c, y][m]))
        out.append((score, labelling))
    return out


def ensemble_score(S, parents, y):
    """The ensemble's score of labelling y: the trees' edge scores summed tree by tree, label by
    label, then divided by the number of trees."""
    total = 0.0
    for St, parent in zip(S, parents):
        for v, p in enumerate(parent):
            if p >= 0:
                total += St[v][2 * y[v] + y[p]]
    return total / len(parents)


def ensemble(S, parents, posts, children, K, exclude=None):
    """The candidates (the trees' K-best lists, tree by tree), their ensemble scores, the first best
    candidate, the first best one other than ``exclude`` (-1 if none or no ``exclude``) and
    theta(K), the average of the trees' K-th best scores (-inf when a tree has fewer than K)."""
    cands, theta, complete = [], 0.0, False
    for St, parent, post, ch in zip(S, parents, posts, children):
        lst = kbest_tree(St, parent, post, ch, K)
        if len(lst) < K:
            complete = True
        else:
            theta += lst[K - 1][0]
        cands += [y for _, y in lst]
    theta = -math.inf if complete else theta / len(parents)
    scores = [ensemble_score(S, parents, y) for y in cands]
    best = viol = -1
    for q, s in enumerate(scores):
        if best < 0 or s > scores[best]:
            best = q
        if exclude is not None and list(cands[q]) != list(exclude) and (viol < 0 or s > scores[viol]):
            viol = q
    return cands, scores, best, viol, theta
