"""SP-BHTMM and TF-BHTMM against brute-force enumeration over the hidden states."""

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from engine.htmm.common import dirichlet
from engine.htmm.data import from_lists, synthetic_trees
from engine.htmm.sp import SPBHTMM
from engine.htmm.tf import TFBHTMM

# two tiny positional trees with empty slots in every position (L = 3), labels 1..3
TINY = [
    {"y": 1, "labels": [1, 2, 3, 1, 2], "children": [[2, -1, 3], [-1, 4, 5], [-1, -1, -1], [-1, -1, -1], [-1, -1, -1]]},
    {"y": 1, "labels": [3, 1, 2, 2], "children": [[-1, 2, -1], [3, -1, 4], [-1, -1, -1], [-1, -1, -1]]},
    {"y": 1, "labels": [2], "children": [[-1, -1, -1]]},
]


def _slots(data, u):
    return data.children[u]


def _enumerate(m, data, t, transition):
    """Every state vector of tree ``t`` and its joint probability with the labels (eq. 6):
    ``transition(q, u, ch)`` is P(Q_u = q[u] | the children's states) of an internal node."""
    s = data.tree_nodes(t)
    nodes = list(range(s.start, s.stop))
    C = m.n_states
    probs = {}
    for Q in itertools.product(range(C), repeat=len(nodes)):
        q = dict(zip(nodes, Q))
        p = 1.0
        for u in nodes:
            x = data.labels[u]
            b = m.emit_[q[u], x] if x >= 0 else 1.0
            ch = data.children[u]
            if (ch < 0).all():
                p *= m.prior_[data.position[u], q[u]] * b
            else:
                p *= transition(q, u, ch) * b * np.prod([m.prior_[l, C] for l, c in enumerate(ch) if c < 0])
        probs[Q] = p
    return probs


def brute_sp(m: SPBHTMM, data, t):
    C = m.n_states
    return sum(_enumerate(m, data, t, lambda q, u, ch: sum(
        m.switch_[l] * m.trans_[l, q[c] if c >= 0 else C, q[u]] for l, c in enumerate(ch))).values())


def brute_tf(m: TFBHTMM, data, t):
    """``P(x)`` of tree ``t`` by summing eq. 6 over every state vector, and the (unnormalised)
    joint of every configuration."""
    C = m.n_states
    strides = TFBHTMM._strides(m.k_)

    def transition(q, u, ch):
        row = sum(m.cluster_[l, q[c] if c >= 0 else C] * strides[l] for l, c in enumerate(ch))
        return m.lambda_[row, q[u]]

    probs = _enumerate(m, data, t, transition)
    return sum(probs.values()), probs


def random_sp(data, C, seed):
    return SPBHTMM(C, seed=seed).init_params(data.max_children, data.n_labels)


def random_tf(data, C, seed, k):
    rng = np.random.default_rng(seed)
    m = TFBHTMM(C, seed=seed, lmin=0)
    m.init_params(data.max_children, data.n_labels, rng)
    m.k_ = np.array(k)
    m.cluster_ = np.array([[rng.integers(kl) for _ in range(C + 1)] for kl in k])
    for l, kl in enumerate(k):  # make every cluster non-empty
        m.cluster_[l, :kl] = rng.permutation(kl)
    m.lambda_ = dirichlet(rng, np.ones((int(np.prod(k)), C)))
    return m


@pytest.mark.parametrize("seed", range(4))
def test_sp_upward_equals_enumeration(seed):
    data = from_lists(TINY)
    m = random_sp(data, 3, seed)
    ll = m.score_samples(data)
    for t in range(data.n_trees):
        assert ll[t] == pytest.approx(np.log(brute_sp(m, data, t)), rel=1e-9)


@pytest.mark.parametrize("seed,k", [(0, (2, 3, 1)), (1, (1, 1, 1)), (2, (4, 2, 3)), (3, (1, 4, 1))])
def test_tf_upward_equals_enumeration(seed, k):
    data = from_lists(TINY)
    m = random_tf(data, 3, seed, k)
    ll = m.score_samples(data)
    for t in range(data.n_trees):
        assert ll[t] == pytest.approx(np.log(brute_tf(m, data, t)[0]), rel=1e-9)


def test_hidden_labels_give_structure_marginals():
    """With every label hidden, upward marginals are the exact P(Q_u | structure) (enumeration)."""
    data = from_lists(TINY[:1]).without_labels()
    m = random_tf(data, 3, 5, (2, 2, 3))
    alpha = m.state_marginals(data)
    _, probs = brute_tf(m, data, 0)
    Z = sum(probs.values())
    for u in range(data.n_nodes):
        marg = np.zeros(3)
        for Q, p in probs.items():
            marg[Q[u]] += p / Z
        np.testing.assert_allclose(alpha[u], marg, rtol=1e-9)


def test_exact_state_sampler_matches_enumeration():
    """20,000 copies of one tree in one batch: each copy is an independent exact draw of Q."""
    tree = TINY[0]
    data = from_lists([tree])
    m = random_tf(data, 2, 7, (2, 3, 2))
    Z, probs = brute_tf(m, data, 0)
    n = 20_000
    big = from_lists([tree] * n)
    Q = m.sample_states(big, np.random.default_rng(123)).reshape(n, data.n_nodes)
    configs = list(probs)
    index = {c: i for i, c in enumerate(configs)}
    obs = np.bincount([index[tuple(r)] for r in Q.tolist()], minlength=len(configs))
    exp = np.array([probs[c] / Z for c in configs]) * n
    keep = exp > 5
    stat = chisquare(np.append(obs[keep], obs[~keep].sum()), np.append(exp[keep], exp[~keep].sum()))
    assert stat.pvalue > 1e-3, stat


def test_em_never_decreases_the_likelihood():
    data = synthetic_trees(4, min_nodes=5, max_nodes=15, seed=3)
    m = SPBHTMM(4, 25, pseudocount=0.0, seed=1).fit(data)
    ll = np.array(m.loglik_)
    assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[1:])), ll
    assert ll[-1] > ll[0]


def test_sp_em_with_pseudocount_keeps_distributions():
    data = synthetic_trees(3, min_nodes=5, max_nodes=12, seed=4)
    m = SPBHTMM(3, 5, seed=2).fit(data)
    for a in (m.prior_, m.trans_, m.emit_, m.switch_):
        np.testing.assert_allclose(a.sum(axis=-1), 1.0, rtol=1e-12)
        assert (a >= 0).all()


@pytest.mark.parametrize("lmin,lmax", [(0, 1), (1, 1), (1, 3), (2, 2), (2, 4), (5, 5)])
def test_ssvs_keeps_the_constraint(lmin, lmax):
    L, C = 5, 4
    m = TFBHTMM(C, lmin=lmin, lmax=lmax)
    rng = np.random.default_rng(lmin * 10 + lmax)
    m.init_params(L, 3, rng)
    for _ in range(400):
        assert lmin <= (m.k_ > 1).sum() <= lmax
        k, cl = m.propose_k(rng)
        assert lmin <= (k > 1).sum() <= lmax, k
        assert ((1 <= k) & (k <= C + 1)).all()
        assert (np.abs(k - m.k_) <= 1).all()
        for l in range(L):  # clusters 0..k_l-1, none empty
            assert np.array_equal(np.unique(cl[l]), np.arange(k[l]))
        m.k_, m.cluster_ = k, cl


def test_tf_fit_keeps_the_constraint_and_learns():
    data = synthetic_trees(6, min_nodes=10, max_nodes=25, seed=0)
    for sampler in ("exact", "prior"):
        m = TFBHTMM(4, 15, lmin=1, lmax=2, seed=0, sampler=sampler).fit(data)
        assert m.k_trace_.shape == (15, 3)
        n_imp = (m.k_trace_ > 1).sum(axis=1)
        assert ((1 <= n_imp) & (n_imp <= 2)).all()
        assert m.loglik_[-1] > m.loglik_[0]
        assert m.lambda_.shape == (int(np.prod(m.k_)), 4)


def test_tf_generated_labels_follow_the_model():
    """Generated labels of many copies of one structure match the exact predictive distribution."""
    data = from_lists([TINY[0]])
    m = random_tf(data, 3, 9, (2, 2, 2))
    n = 6000
    big = from_lists([TINY[0]] * n)
    gen = m.sample_labels(big, seed=4).reshape(n, -1)
    dist = m.label_distribution(data)
    for u in range(data.n_nodes):
        obs = np.bincount(gen[:, u], minlength=data.n_labels)
        assert chisquare(obs, dist[u] * n).pvalue > 1e-3


def test_annealed_state_sampler_matches_tempered_enumeration():
    """With T = 2 the exact sampler draws from P(Q, x)^(1/2), normalised."""
    tree = TINY[1]
    data = from_lists([tree])
    m = random_tf(data, 2, 11, (2, 2, 3))
    hot = random_tf(data, 2, 11, (2, 2, 3))
    hot.prior_, hot.emit_, hot.lambda_ = m.prior_ ** 0.5, m.emit_ ** 0.5, m.lambda_ ** 0.5
    Z, probs = brute_tf(hot, data, 0)
    n = 20_000
    Q = m.sample_states(from_lists([tree] * n), np.random.default_rng(5), T=2.0).reshape(n, -1)
    configs = list(probs)
    index = {c: i for i, c in enumerate(configs)}
    obs = np.bincount([index[tuple(r)] for r in Q.tolist()], minlength=len(configs))
    exp = np.array([probs[c] / Z for c in configs]) * n
    assert chisquare(obs, exp).pvalue > 1e-3


def test_sp_paper_estep_runs_and_keeps_distributions():
    data = synthetic_trees(3, min_nodes=5, max_nodes=12, seed=4)
    m = SPBHTMM(3, 5, estep="paper", seed=2).fit(data)
    for a in (m.prior_, m.trans_, m.emit_, m.switch_):
        np.testing.assert_allclose(a.sum(axis=-1), 1.0, rtol=1e-12)
    eps = SPBHTMM(3, 0, seed=2).init_params(3, 4).posteriors(data)
    np.testing.assert_allclose(eps.sum(axis=1), 1.0, rtol=1e-12)


def test_sp_posteriors_match_enumeration():
    data = from_lists(TINY[:1])
    m = random_sp(data, 2, 3)
    eps = m.posteriors(data)
    probs = {}
    C = 2
    for Q in itertools.product(range(C), repeat=data.n_nodes):
        p = 1.0
        for u in range(data.n_nodes):
            ch = data.children[u]
            b = m.emit_[Q[u], data.labels[u]]
            if (ch < 0).all():
                p *= m.prior_[data.position[u], Q[u]] * b
            else:
                p *= b * sum(m.switch_[l] * m.trans_[l, Q[c] if c >= 0 else C, Q[u]] for l, c in enumerate(ch))
                p *= np.prod([m.prior_[l, C] for l, c in enumerate(ch) if c < 0])
        probs[Q] = p
    Z = sum(probs.values())
    for u in range(data.n_nodes):
        marg = np.zeros(C)
        for Q, p in probs.items():
            marg[Q[u]] += p / Z
        np.testing.assert_allclose(eps[u], marg, rtol=1e-9)


@pytest.mark.parametrize("opts", [dict(init="prior"), dict(cluster_gibbs=True), dict(anneal_states=True),
                                  dict(init="prior", sampler="prior")])
def test_tf_options_run(opts):
    data = synthetic_trees(4, min_nodes=8, max_nodes=20, seed=1)
    m = TFBHTMM(3, 6, lmin=1, lmax=2, m0=4, seed=3, **opts).fit(data)
    n_imp = (m.k_trace_ > 1).sum(axis=1)
    assert ((1 <= n_imp) & (n_imp <= 2)).all()
    np.testing.assert_allclose(m.lambda_.sum(axis=1), 1.0, rtol=1e-12)
    assert np.isfinite(m.loglik_).all()


def test_state_sampler_chunks_give_the_same_draw(monkeypatch):
    """The downward pass splits large levels into blocks; the draw does not depend on the block size."""
    import engine.htmm.tf as tfmod

    data = synthetic_trees(5, min_nodes=10, max_nodes=30, seed=2)
    m = random_tf(data, 3, 1, (3, 2, 4))
    whole = m.sample_states(data, np.random.default_rng(9))
    monkeypatch.setattr(tfmod, "_CHUNK", 50)
    assert np.array_equal(m.sample_states(data, np.random.default_rng(9)), whole)


def brute_sp_bottom_leaves(m: SPBHTMM, data, t):
    """``P(x)`` of tree ``t`` when a leaf may also take ``⊥`` (state ``C``, emission ``bottom_emit_``)."""
    s = data.tree_nodes(t)
    nodes = list(range(s.start, s.stop))
    C = m.n_states
    emit = np.vstack([m.emit_, m.bottom_emit_])
    leaf = {u: bool((data.children[u] < 0).all()) for u in nodes}
    total = 0.0
    for Q in itertools.product(*[range(C + 1) if leaf[u] else range(C) for u in nodes]):
        q = dict(zip(nodes, Q))
        p = 1.0
        for u in nodes:
            ch = data.children[u]
            p *= emit[q[u], data.labels[u]] if data.labels[u] >= 0 else 1.0
            if leaf[u]:
                p *= m.prior_[data.position[u], q[u]]
            else:
                p *= sum(m.switch_[l] * m.trans_[l, q[c] if c >= 0 else C, q[u]] for l, c in enumerate(ch))
                p *= np.prod([m.prior_[l, C] for l, c in enumerate(ch) if c < 0])
        total += p
    return total


@pytest.mark.parametrize("seed", range(3))
def test_sp_bottom_leaves_upward_equals_enumeration(seed):
    data = from_lists(TINY)
    m = SPBHTMM(3, seed=seed, bottom_leaves=True).init_params(data.max_children, data.n_labels)
    m.bottom_emit_ = dirichlet(np.random.default_rng(seed), np.ones(data.n_labels))
    ll = m.score_samples(data)
    for t in range(data.n_trees):
        assert ll[t] == pytest.approx(np.log(brute_sp_bottom_leaves(m, data, t)), rel=1e-9)
    eps = m.posteriors(data)
    assert eps.shape == (data.n_nodes, 4)
    np.testing.assert_allclose(eps.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(eps[~data.is_leaf, 3] == 0)  # only leaves can be ⊥


def test_sp_bottom_leaves_em_is_monotone_and_bottom_takes_the_leaves():
    """Exact EM stays EM with ⊥ as a leaf state; ⊥'s emission starts at zero (the authors' start) and,
    once the M-step's tiny pseudo-counts make it uniform, ⊥ soaks up the leaves, whose generated
    labels then come from the real states only."""
    data = synthetic_trees(6, min_nodes=8, max_nodes=25, seed=3)
    m = SPBHTMM(4, 30, pseudocount=1e-12, bottom_leaves=True, seed=1).fit(data)
    ll = np.array(m.loglik_)
    assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[1:])), ll
    leaf_bottom = m.posteriors(data)[data.is_leaf, 4].mean()
    assert leaf_bottom > 0.5
    assert m.bottom_emit_.argmax() == 0  # ⊥ learns the label of the leaves (no children)
    plain = SPBHTMM(4, 30, pseudocount=1e-12, seed=1).fit(data)
    assert plain.posteriors(data).shape == (data.n_nodes, 4)
    gen = m.sample_labels(data, seed=0)
    assert ((gen[data.is_leaf] == 0).mean() < (plain.sample_labels(data, seed=0)[data.is_leaf] == 0).mean())


@pytest.mark.parametrize("estep,ll", [("exact", -82.78799491163993), ("paper", -85.48521318007215)])
def test_sp_defaults_unchanged_by_the_authors_options(estep, ll):
    """With the authors'-code options off, SP-BHTMM gives what it gave before they existed (values
    recorded from the implementation at commit 22b01d2)."""
    data = synthetic_trees(3, min_nodes=5, max_nodes=12, seed=4)
    a = SPBHTMM(3, 5, seed=2, estep=estep).fit(data)
    assert a.loglik_[-1] == pytest.approx(ll, rel=1e-12)
    assert not a.bottom_emit_.any()


def test_sp_option_types_are_checked():
    data = synthetic_trees(3, min_nodes=5, max_nodes=12, seed=4)
    with pytest.raises(Exception, match="bottom_leaves"):
        SPBHTMM(3, 1, bottom_leaves="yes").fit(data)
    with pytest.raises(Exception, match="cumulative_counts"):
        SPBHTMM(3, 1, cumulative_counts=1).fit(data)


def test_sp_cumulative_counts_sum_the_e_steps():
    """The authors' M-step never resets its counts: the second M-step normalises the counts of both
    E-steps, each computed from the parameters of its own iteration."""
    data = synthetic_trees(4, min_nodes=6, max_nodes=15, seed=5)
    cum = SPBHTMM(3, estep="paper", bottom_leaves=True, cumulative_counts=True, seed=4).init_params(3, 4)
    plain = SPBHTMM(3, estep="paper", bottom_leaves=True, seed=4).init_params(3, 4)
    cum.em_step(data)
    plain.em_step(data)
    first = plain._counts
    for a, b in zip((cum.prior_, cum.trans_, cum.emit_), (plain.prior_, plain.trans_, plain.emit_)):
        np.testing.assert_array_equal(a, b)  # one step: nothing to sum yet
    cum.em_step(data)
    plain.em_step(data)
    for total, a, b in zip(cum._counts, first, plain._counts):
        np.testing.assert_allclose(total, a + b, rtol=1e-12)
    assert not np.allclose(cum.emit_, plain.emit_)
    # a fresh fit starts from zero counts again
    cum.fit(data)
    assert len(cum.loglik_) == cum.n_iter
