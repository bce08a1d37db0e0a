"""K-best inference on spanning trees against brute-force enumeration; the uniform tree sampler;
the certificate of Lemma 7 (Marchand et al., NIPS 2014)."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2

from engine.errors import InvalidParameterError
from engine.multilabel.kbest import (brute_force_scores, certified_inference, ensemble_inference,
                                     ensemble_scores, kbest_tree)
from engine.multilabel.spanning_trees import (label_trees_from_parents, random_spanning_trees,
                                              spanning_tree_key)

RTOL = 1e-9


def _tree_scores_all(S, trees, t):
    Y, _ = brute_force_scores(np.zeros_like(S), trees)
    one = label_trees_from_parents(trees.parent[t:t + 1])
    return Y, ensemble_scores(S[t:t + 1], one, Y)


@pytest.mark.parametrize("l", [2, 3, 5, 8, 10])
@pytest.mark.parametrize("K", [1, 2, 3, 7, 16, 40])
def test_kbest_tree_equals_brute_force(l, K):
    rng = np.random.default_rng(100 * l + K)
    trees = random_spanning_trees(l, 3, seed=rng)
    S = rng.normal(size=(3, l, 4))
    S[1] = np.round(S[1])  # many ties
    for t in range(3):
        kb = kbest_tree(S, trees, K, t)
        Y, F = _tree_scores_all(S, trees, t)
        ref = np.sort(F)[::-1][:K]
        assert kb.scores.shape == ref.shape
        np.testing.assert_allclose(kb.scores, ref, rtol=RTOL, atol=1e-12)
        # each returned labelling really has its score, and they are distinct
        one = label_trees_from_parents(trees.parent[t:t + 1])
        np.testing.assert_allclose(ensemble_scores(S[t:t + 1], one, kb.labels), kb.scores, rtol=RTOL, atol=1e-12)
        assert len({r.tobytes() for r in kb.labels}) == len(kb.labels)


def test_kbest_on_a_path_and_a_star():
    for parents in ([-1, 0, 1, 2, 3, 4], [-1, 0, 0, 0, 0, 0], [1, 2, 3, -1, 3, 4]):
        trees = label_trees_from_parents([parents])
        S = np.random.default_rng(3).normal(size=(1, 6, 4))
        kb = kbest_tree(S, trees, 10)
        Y, F = _tree_scores_all(S, trees, 0)
        np.testing.assert_allclose(kb.scores, np.sort(F)[::-1][:10], rtol=RTOL)


@given(st.integers(2, 9), st.integers(1, 5), st.integers(1, 24), st.integers(0, 10**6))
def test_ensemble_inference_against_brute_force(l, n, K, seed):
    rng = np.random.default_rng(seed)
    trees = random_spanning_trees(l, n, seed=rng)
    S = rng.normal(size=(n, l, 4)) * rng.uniform(0.1, 3, size=(n, 1, 1))
    Y, F = brute_force_scores(S, trees)
    ytrue = Y[rng.integers(len(Y))]
    ei = ensemble_inference(S, trees, K, exclude=ytrue)
    # the candidates' scores are their ensemble scores
    np.testing.assert_allclose(ei.candidate_scores, ensemble_scores(S, trees, ei.candidates), rtol=RTOL, atol=1e-12)
    # theta(K) is the mean of the trees' K-th best scores
    kth = []
    for t in range(n):
        sc = kbest_tree(S, trees, K, t).scores
        kth.append(sc[K - 1] if len(sc) == K else -np.inf)
    assert ei.theta == pytest.approx(np.mean(kth), rel=RTOL) if np.isfinite(np.mean(kth)) else ei.theta == -np.inf
    # Lemma 7: a certificate is never wrong
    if ei.exact:
        assert ei.best_score >= F.max() - 1e-12 * max(1, abs(F.max()))
    if ei.violator_exact:
        others = F[(Y != ytrue).any(axis=1)]
        assert ei.violator_score >= others.max() - 1e-12 * max(1, abs(others.max()))
    assert not (ei.violator is not None and np.array_equal(ei.violator, ytrue))
    # and the best candidate is never better than the true maximum
    assert ei.best_score <= F.max() + 1e-12 * max(1, abs(F.max()))


def test_certificate_never_claims_exactness_when_a_better_labelling_exists():
    """Adversarial ensembles (trees that disagree strongly): whenever brute force finds a labelling
    better than the best candidate, the certificate must decline."""
    rng = np.random.default_rng(7)
    declined = claimed = 0
    for trial in range(400):
        l = int(rng.integers(4, 10))
        n = int(rng.integers(2, 8))
        trees = random_spanning_trees(l, n, seed=rng)
        S = rng.normal(size=(n, l, 4)) * 3
        S += rng.normal(size=(1, l, 4)) * rng.uniform(0, 1)  # partly shared signal
        Y, F = brute_force_scores(S, trees)
        for K in (1, 2, 4):
            ei = ensemble_inference(S, trees, K)
            missed = F.max() > ei.best_score + 1e-12 * max(1, abs(F.max()))
            if missed:
                assert not ei.exact, (trial, K)
                declined += 1
            if ei.exact:
                claimed += 1
    assert declined > 50 and claimed > 50  # both branches are exercised


def test_certified_inference_doubles_k_until_exact():
    rng = np.random.default_rng(11)
    for _ in range(60):
        l = int(rng.integers(3, 10))
        trees = random_spanning_trees(l, 5, seed=rng)
        S = rng.normal(size=(5, l, 4))
        Y, F = brute_force_scores(S, trees)
        y, score, theta, K, ok = certified_inference(S, trees, max_k=2 ** l)
        assert ok  # at K = 2^l the lists are complete
        assert score == pytest.approx(F.max(), rel=RTOL)
        assert K & (K - 1) == 0 or K == 2 ** l
        ytrue = Y[int(np.argmax(F))]
        v, vs, _, _, ok = certified_inference(S, trees, max_k=2 ** l, exclude=ytrue)
        assert ok and not np.array_equal(v, ytrue)
        assert vs == pytest.approx(np.sort(F)[-2], rel=RTOL)


def test_one_tree_is_always_certified_at_k2():
    rng = np.random.default_rng(5)
    trees = random_spanning_trees(8, 1, seed=rng)
    for _ in range(20):
        S = rng.normal(size=(1, 8, 4))
        y, score, theta, K, ok = certified_inference(S, trees, max_k=32)
        assert ok and K == 2


def test_bad_inputs():
    trees = random_spanning_trees(4, 2, seed=0)
    with pytest.raises(InvalidParameterError, match="shape"):
        ensemble_inference(np.zeros((2, 3, 4)), trees, 2)
    with pytest.raises(InvalidParameterError, match="K must be"):
        ensemble_inference(np.zeros((2, 4, 4)), trees, 0)
    with pytest.raises(InvalidParameterError, match="finite"):
        ensemble_inference(np.full((2, 4, 4), np.nan), trees, 2)
    with pytest.raises(InvalidParameterError, match="at least 2 labels"):
        random_spanning_trees(1, 3)
    with pytest.raises(InvalidParameterError, match="number of trees"):
        random_spanning_trees(4, 0)


# ------------------------------------------------------------------------ the uniform sampler

def _all_spanning_trees_k4():
    nodes = range(4)
    edges = list(itertools.combinations(nodes, 2))
    out = []
    for sub in itertools.combinations(edges, 3):
        parent = list(range(4))

        def find(a):
            while parent[a] != a:
                a = parent[a]
            return a
        ok = True
        for a, b in sub:
            ra, rb = find(a), find(b)
            if ra == rb:
                ok = False
                break
            parent[ra] = rb
        if ok:
            out.append(tuple(sorted(sub)))
    return out


def test_uniform_spanning_trees_chi_square_on_k4():
    trees_k4 = _all_spanning_trees_k4()
    assert len(trees_k4) == 16  # Cayley: 4^(4-2)
    N = 16000
    sample = random_spanning_trees(4, N, seed=2024)
    counts = {t: 0 for t in trees_k4}
    for t in range(N):
        counts[spanning_tree_key(sample.parent[t])] += 1
    obs = np.array(list(counts.values()))
    exp = N / 16
    stat = float(((obs - exp) ** 2 / exp).sum())
    assert stat < chi2.ppf(0.999, df=15), (stat, obs)
    assert obs.min() > 0


def test_edge_frequency_is_2_over_l():
    """Section 3: every edge of K_l lies in a fraction 2/l of the spanning trees."""
    l, N = 7, 6000
    s = random_spanning_trees(l, N, seed=1)
    freq = s.edge_counts()[np.triu_indices(l, 1)] / N
    assert np.all(np.abs(freq - 2 / l) < 4 * np.sqrt((2 / l) * (1 - 2 / l) / N))


@given(st.integers(2, 30), st.integers(0, 10**6))
def test_sampled_trees_are_spanning_trees(l, seed):
    s = random_spanning_trees(l, 3, seed=seed)
    for t in range(3):
        assert len(spanning_tree_key(s.parent[t])) == l - 1
        assert sorted(s.post[t].tolist()) == list(range(l))
        pos = np.empty(l, int)
        pos[s.post[t]] = np.arange(l)
        v = np.flatnonzero(s.parent[t] >= 0)
        assert np.all(pos[v] < pos[s.parent[t, v]])  # children before parents
        assert s.degree[t].sum() == 2 * (l - 1)


# ------------------------------------------------ the fast kernels against the plain-Python reference

def _score_draw(rng, n, l, style):
    """Edge scores with exact ties of every kind: all zero (the first pass of training), small
    integers and halves, generic floats, and generic floats with a shared integer part."""
    if style == 0:
        return np.zeros((n, l, 4))
    if style == 1:
        return rng.integers(-2, 3, size=(n, l, 4)).astype(float)
    if style == 2:
        return np.round(rng.normal(size=(n, l, 4)) * 2) / 2
    if style == 3:
        return rng.normal(size=(n, l, 4)) * rng.uniform(0.1, 3)
    S = rng.normal(size=(n, l, 4))
    S[:, :, ::2] = np.round(S[:, :, ::2])
    return S


def _children(trees, t):
    """Children of every label of tree t, in the order their messages are merged."""
    ptr, idx = trees.child_ptr[t], trees.child_idx[t]
    return [idx[ptr[v]:ptr[v + 1]].tolist() for v in range(trees.parent.shape[1])]


@given(st.integers(2, 12), st.integers(1, 6), st.integers(1, 40), st.integers(0, 5), st.integers(0, 10**6))
def test_fast_kbest_is_the_reference_bit_for_bit(l, n, K, style, seed):
    """The fast merges (a line scan when no sums tie, the heap otherwise), the fused first child and
    the interleaved trace-back return the plain-Python reference's labellings in its order with the
    same scores, bit for bit, ties and overflowing scores included; so does the ensemble step."""
    from engine.multilabel import _kernels as fast
    from tests import kbest_reference as ref

    rng = np.random.default_rng(seed)
    trees = random_spanning_trees(l, n, seed=rng)
    S = _score_draw(rng, n, l, style % 5) * (1e307 if style == 5 else 1)  # style 5: sums overflow to inf
    args = (trees.parent, trees.post, trees.child_ptr, trees.child_idx)
    children = [_children(trees, t) for t in range(n)]
    for t in range(n):
        labs, scores = np.zeros((K, l), np.uint8), np.empty(K)
        c = fast._kbest_tree(S[t], *(a[t] for a in args), K, labs, scores, fast._workspace(l, K))
        want = ref.kbest_tree(S[t].tolist(), trees.parent[t].tolist(), trees.post[t].tolist(), children[t], K)
        assert c == len(want)
        assert labs[:c].tolist() == [y for _, y in want]
        assert scores[:c].tobytes() == np.array([s for s, _ in want]).tobytes()
    ytrue = rng.integers(0, 2, size=l).astype(np.uint8)
    got = fast._ensemble(S, *args, K, ytrue, True, fast._workspace(l, K))
    cands, cscores, best, viol, theta = ref.ensemble(S.tolist(), trees.parent.tolist(), trees.post.tolist(),
                                                     children, K, ytrue.tolist())
    assert got[0].tolist() == cands
    assert got[1].tobytes() == np.array(cscores).tobytes()
    assert got[2:4] == (best, viol)
    assert got[4] == theta or (np.isnan(got[4]) and np.isnan(theta))


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=12), st.lists(st.integers(-3, 3), min_size=1, max_size=12),
       st.integers(1, 40), st.booleans())
def test_fast_pair_merge_is_the_heap(a, b, K, generic):
    """Two descending lists (ties when ``generic`` is off): the merge returns the heap's pairs in
    the heap's order; infinite sums go to the heap too."""
    from engine.multilabel import _kernels as fast
    from tests import kbest_reference as ref

    rng = np.random.default_rng(len(a) * 100 + len(b))
    a = np.sort(np.asarray(a, float) + (rng.normal(size=len(a)) if generic else 0))[::-1].copy()
    b = np.sort(np.asarray(b, float) + (rng.normal(size=len(b)) if generic else 0))[::-1].copy()
    for x, y in ((a, b), (b, a), (a * 2e307, b * 2e307)):
        m = max(K, len(x), len(y)) + 2
        out = (np.empty(m), np.empty(m, np.int64), np.empty(m, np.int64))
        heap = (np.empty(m + 2), np.empty(m + 2, np.int64), np.empty(m + 2, np.int64))
        k = fast._topk_pairs(x, len(x), y, len(y), K, *out, *heap, np.empty(m), np.empty(m, np.int64))
        want = ref.topk_pairs(x.tolist(), y.tolist(), K)
        assert k == len(want)
        assert out[0][:k].tobytes() == np.array([v for v, _, _ in want]).tobytes()
        assert out[1][:k].tolist() == [i for _, i, _ in want] and out[2][:k].tolist() == [j for _, _, j in want]


def test_pair_merge_with_a_nan_sum_is_the_heap():
    """inf + -inf is NaN: the heap's push lets a NaN rise (it is not below its parent) and never
    pops it first; the reference specifies the same order."""
    from engine.multilabel import _kernels as fast
    from tests import kbest_reference as ref

    a, b, K = np.array([np.inf, 0.0, -1.0]), np.array([5.0, -np.inf, -np.inf]), 6
    m = K + 2
    out = (np.empty(m), np.empty(m, np.int64), np.empty(m, np.int64))
    heap = (np.empty(m + 2), np.empty(m + 2, np.int64), np.empty(m + 2, np.int64))
    k = fast._topk_pairs(a, 3, b, 3, K, *out, *heap, np.empty(m), np.empty(m, np.int64))
    want = ref.topk_pairs(a.tolist(), b.tolist(), K)
    assert [(float(out[0][t]), int(out[1][t]), int(out[2][t])) for t in range(k)] == want
    assert want[:3] == [(np.inf, 0, 0), (5.0, 1, 0), (4.0, 2, 0)]
