"""Practice exercises: every family on 1,000 seeds. The checker accepts the engine's answer (typed
as a student would type it) and refuses a perturbed one; the answer is recomputed independently
(enumeration of all labellings, the cover's rounds simulated from the definition, Kruskal with a
union-find) from the data the exercise shows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.errors import InvalidParameterError
from engine.practice import FAMILIES, check, family, make, parse_answer
from engine.practice.exercise import Exercise, Part

SEEDS = range(1000)
TOL = 1e-9   # exact algorithms against brute force: relative 1e-9 (house rule)


def perturbed(ex: Exercise, rng) -> tuple:
    """One value per part, with one part changed beyond its tolerance."""
    values = [tuple(p.value) for p in ex.parts]
    i = int(rng.integers(len(ex.parts)))
    p = ex.parts[i]
    if p.kind == "vector":
        v = list(p.value)
        j = int(rng.integers(len(v)))
        v[j] += rng.choice([-1, 1]) * p.tolerance * rng.uniform(1.01, 20)
        values[i] = tuple(v)
    elif p.kind == "integer":
        values[i] = (p.value[0] + int(rng.choice([-1, 1])),)
    elif p.kind == "bits":
        v = list(p.value)
        j = int(rng.integers(len(v)))
        v[j] = 1 - v[j]
        values[i] = tuple(v)
    elif p.kind in ("vertices", "components"):
        everything = set(ex.data["vertices"])
        v = set(p.value)
        v ^= {str(rng.choice(sorted(everything)))}
        values[i] = tuple(v)
    else:
        a, b = p.value
        others = [x for x in ex.data["variables"] if x not in (a, b)]
        values[i] = (a, str(rng.choice(others)))
    return tuple(values)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_the_checker_accepts_the_engines_answer_and_refuses_a_perturbed_one(name):
    fam = FAMILIES[name]
    rng = np.random.default_rng(0)
    for seed in SEEDS:
        ex = fam.make(seed)
        assert fam.check(ex, ex.answer_text), (seed, ex.answer_text)
        assert fam.check(ex, [p.value for p in ex.parts]), seed
        bad = perturbed(ex, rng)
        assert not fam.check(ex, bad), (seed, bad, ex.answer)


@pytest.mark.parametrize("name", list(FAMILIES))
def test_the_same_seed_makes_the_same_exercise(name):
    a, b, c = FAMILIES[name].make(11), FAMILIES[name].make(11), FAMILIES[name].make(12)
    assert a == b and a.to_dict() == b.to_dict()
    assert a.prompt != c.prompt
    assert a.hint and a.solution and a.answer_format


# ----------------------------------------------------------------------------------- brute force

def _weights(ex: Exercise, phi: np.ndarray, psi: np.ndarray):
    """Every labelling of the exercise's tree (k = 2) with its unnormalised probability."""
    names = ex.data["vertices"]
    ix = {v: i for i, v in enumerate(names)}
    edges = [(ix[a], ix[b]) for a, b in ex.data["edges"]]
    out = []
    for x in itertools.product(range(phi.shape[1]), repeat=len(names)):
        w = np.prod([phi[i, x[i]] for i in range(len(names))]) * np.prod([psi[x[a], x[b]] for a, b in edges])
        out.append((x, w))
    return out, ix, edges


def _side(edges, n, i, j):
    """The vertices on i's side of the edge i-j."""
    adj = {v: set() for v in range(n)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, todo = {i}, [i]
    while todo:
        u = todo.pop()
        for w in adj[u] - seen - ({j} if u == i else set()):
            seen.add(w)
            todo.append(w)
    return seen


_ITEM = ("- ", "1. ", "2. ", "3. ", "4. ", "5. ", "6. ", "7. ", "8. ", "9. ")


@pytest.mark.parametrize("name", list(FAMILIES))
def test_a_worked_solution_keeps_each_line_its_own_block(name):
    """In Markdown one newline is a space (or more of the list item above): a line of a worked solution
    is its own paragraph (a blank line apart) unless it and the line above are both list items. The
    page as drawn: tests/browser/test_practice.py."""
    for seed in range(50):
        text = make(name, seed).solution
        for block in text.split("\n\n"):
            lines = block.split("\n")
            assert lines[0].strip() and (len(lines) == 1 or all(ln.startswith(_ITEM) for ln in lines)), \
                (seed, block)


def test_bp_message_is_the_sum_over_the_senders_side():
    for seed in SEEDS:
        ex = FAMILIES["bp_message"].make(seed)
        phi, psi = np.array(ex.data["phi"]), np.array(ex.data["psi"])
        names = ex.data["vertices"]
        ix = {v: k for k, v in enumerate(names)}
        edges = [(ix[a], ix[b]) for a, b in ex.data["edges"]]
        i, j = ix[ex.data["sender"]], ix[ex.data["receiver"]]
        side = sorted(_side(edges, len(names), i, j))
        inner = [(a, b) for a, b in edges if a in side and b in side]
        m = np.zeros(2)
        for x in itertools.product(range(2), repeat=len(side)):
            lab = dict(zip(side, x))
            w = np.prod([phi[v, lab[v]] for v in side]) * np.prod([psi[lab[a], lab[b]] for a, b in inner])
            for xj in range(2):
                m[xj] += w * psi[lab[i], xj]
        np.testing.assert_allclose(ex.parts[0].value, m / m.sum(), rtol=TOL, err_msg=str(seed))


def test_marginal_after_evidence_is_the_enumerated_conditional():
    for seed in SEEDS:
        ex = FAMILIES["marginal_evidence"].make(seed)
        phi, psi = np.array(ex.data["phi"]), np.array(ex.data["psi"])
        (e, a), = ex.data["evidence"].items()
        table, ix, _ = _weights(ex, phi, psi)
        p = np.zeros(2)
        for x, w in table:
            if x[ix[e]] == a:
                p[x[ix[ex.data["vertex"]]]] += w
        np.testing.assert_allclose(ex.parts[0].value, p / p.sum(), rtol=TOL, err_msg=str(seed))


def test_tree_hedge_allocation_is_hedge_over_all_labellings():
    for seed in SEEDS:
        ex = FAMILIES["hedge_weight"].make(seed)
        d = ex.data
        k, P = d["k"], d["coupling"]
        theta = np.full((k, k), (1 - P) / (k - 1))
        np.fill_diagonal(theta, P)
        phi = np.ones((len(d["vertices"]), k))
        v = d["vertices"].index(d["task"])
        phi[v] = np.exp(-d["eta"] * np.array(d["loss"]))
        table, ix, _ = _weights(ex, phi, theta)
        p = np.zeros(k)
        for x, w in table:
            p[x[ix[d["asked"]]]] += w
        np.testing.assert_allclose(ex.parts[0].value, p / p.sum(), rtol=TOL, err_msg=str(seed))


def _rounds_by_definition(names, edges, s):
    """The mergeable sets M_0, M_1, ... of the optimal (2,s)-cover, from Figure 1's definition."""
    adj = {v: set() for v in names}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    parent, order, todo = {s: None}, [s], [s]
    while todo:
        u = todo.pop(0)
        for w in sorted(adj[u] - set(parent)):
            parent[w] = u
            order.append(w)
            todo.append(w)
    alive = {v for v in names if len(adj[v]) >= 2} | {s}
    rounds = []
    while alive != {s}:
        def up(v):
            p = parent[v]
            while p not in alive:
                p = parent[p]
            return p
        kids = {v: [] for v in alive}
        for v in alive - {s}:
            kids[up(v)].append(v)
        merge = {}
        for v in reversed([u for u in order if u in alive]):   # children first
            merge[v] = v != s and (not kids[v] or (len(kids[v]) == 1 and not merge[kids[v][0]]))
        m = {v for v in alive if merge[v]}
        rounds.append(m)
        alive -= m
    return rounds


def test_cover_round_follows_the_definition_and_the_height_is_the_brute_force_optimum():
    from engine.cover import min_cover_height
    from engine.trees import Tree

    for seed in SEEDS:
        ex = FAMILIES["cover_round"].make(seed)
        d = ex.data
        rounds = _rounds_by_definition(d["vertices"], d["edges"], d["s"])
        assert set(ex.answer["mergeable"]) == rounds[d["round"]], seed
        assert ex.answer["height"] == len(rounds), seed
        if seed < 100:   # the exact optimum over all (2,s)-covers enumerates subtrees: 100 seeds
            tree = Tree.from_named_edges(d["edges"])
            assert min_cover_height(tree, "2s", d["s"]) == ex.answer["height"], seed


def test_update_path_is_every_component_holding_the_vertex_inside():
    from engine.cover import optimal_cover
    from engine.trees import Tree

    for seed in SEEDS:
        ex = FAMILIES["update_path"].make(seed)
        d = ex.data
        tree = Tree.from_named_edges(d["edges"])
        cover = optimal_cover(tree, d["s"])
        v = tree.index(d["vertex"])
        inside = [z for z in range(cover.m) if v in cover.vertices_of(z) and v not in cover.boundary_of(z)]
        assert set(ex.answer["components"]) == {cover.node_name(z) for z in inside}, seed
        # one path of D: the components, smallest first, each hold the one before
        chain = sorted((set(cover.vertices_of(z).tolist()) for z in inside), key=len)
        assert all(a < b for a, b in zip(chain, chain[1:])), seed


def test_rta_first_labelling_is_the_unique_enumerated_best():
    for seed in SEEDS:
        ex = FAMILIES["rta_kbest"].make(seed)
        d = ex.data
        labels = d["labels"]
        best = []
        for y in itertools.product((0, 1), repeat=len(labels)):
            lab = dict(zip(labels, y))
            best.append((sum(d["scores"][v][2 * lab[v] + lab[p]] for v, p in d["edges"]), y))
        best.sort(reverse=True)
        assert best[0][0] > best[1][0] + 1e-9, seed   # one right answer
        assert tuple(ex.answer["labelling"]) == best[0][1], seed
        assert abs(ex.answer["score"][0] - best[0][0]) <= TOL * max(1.0, abs(best[0][0])), seed


def test_htmm_root_posterior_is_the_enumerated_conditional():
    for seed in SEEDS:
        ex = FAMILIES["htmm_posterior"].make(seed)
        d = ex.data
        prior, sw = np.array(d["prior"]), np.array(d["switch"])
        A, b = np.array(d["transition"]), np.array(d["emission"])
        x = ["ab".index(d["labels_observed"][n]) for n in ("root", "child 1", "child 2")]
        p = np.zeros(2)
        for q0, q1, q2 in itertools.product(range(2), repeat=3):
            p[q0] += (prior[0, q1] * b[q1, x[1]] * prior[1, q2] * b[q2, x[2]]
                      * (sw[0] * A[0, q1, q0] + sw[1] * A[1, q2, q0]) * b[q0, x[0]])
        np.testing.assert_allclose(ex.parts[0].value, p / p.sum(), rtol=TOL, err_msg=str(seed))


def test_chow_liu_next_edge_is_kruskals_next_step():
    for seed in SEEDS:
        ex = FAMILIES["chow_liu_next"].make(seed)
        names = ex.data["variables"]
        mi = np.array(ex.data["mutual_information"])
        n = len(names)
        comp = list(range(n))

        def find(a):
            while comp[a] != a:
                a = comp[a]
            return a

        added = []
        for a, b in sorted(itertools.combinations(range(n), 2), key=lambda e: -mi[e]):
            if find(a) != find(b):
                comp[find(a)] = find(b)
                added.append({names[a], names[b]})
        j = len(ex.data["chosen"])
        assert {frozenset(e) for e in ex.data["chosen"]} == {frozenset(e) for e in added[:j]}, seed
        assert set(ex.answer["edge"]) == added[j], seed


# ----------------------------------------------------------------------------------- reading answers

def test_typed_answers_are_read_or_refused_in_one_line():
    ex = make("cover_round", 5)
    right = ex.answer_text
    assert check(ex, right) and check(ex, right.replace(" ", ", "))
    for bad, words in [("1 2", "expected 2 part(s)"), ("1; x", "expected a whole number"), ("x" * 3000, "characters")]:
        with pytest.raises(InvalidParameterError, match=words.replace("(", r"\(").replace(")", r"\)")) as info:
            parse_answer(ex, bad)
        assert "\n" not in str(info.value)
    ex = make("bp_message", 5)
    with pytest.raises(InvalidParameterError, match="'abc' is not a number"):
        check(ex, "0.5 abc")
    with pytest.raises(InvalidParameterError, match="expected 2 numbers, got 3"):
        check(ex, "0.5 0.5 0.5")
    ex = make("rta_kbest", 5)
    bits = "".join(str(b) for b in ex.answer["labelling"])
    assert check(ex, f"{bits}; {ex.answer['score'][0]}") and check(ex, ex.answer_text)
    with pytest.raises(InvalidParameterError, match="each 0 or 1"):
        check(ex, f"{bits}2; 0")
    ex = make("chow_liu_next", 5)
    a, b = ex.answer["edge"]
    assert check(ex, f"{b}-{a}") and check(ex, f"{a} {b}") and check(ex, f"{a}, {b}")


def test_unknown_family_and_bad_seed_are_one_line():
    with pytest.raises(InvalidParameterError, match="unknown exercise family 'nope'; families are bp_message"):
        family("nope")
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(InvalidParameterError, match="seed"):
            make("bp_message", bad)


def test_a_part_of_an_unknown_kind_is_refused():
    with pytest.raises(InvalidParameterError, match="unknown kind 'colour'"):
        Part("x", "colour", ())


# ----------------------------------------------------------------------------------- command line

def test_cli_lists_the_families_with_their_papers(capsys):
    import json

    from engine.cli import main

    assert main(["practice", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["family"] for r in rows] == list(FAMILIES)
    assert all(set(r) == {"family", "paper", "title"} for r in rows)
    papers = " ".join(r["paper"] for r in rows)
    for title in ("Inferences on trees", "Online Sum-Product Computation over Trees", "Online Forest Density Estimation"):
        assert title in papers


@pytest.mark.parametrize("name", list(FAMILIES))
def test_cli_prints_the_exercise_of_a_seed_with_its_answer(capsys, name):
    import json

    from engine.cli import main

    assert main(["practice", name, "--seed", "42", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ex = make(name, 42)
    assert out == json.loads(json.dumps(ex.to_dict()))
    assert check(ex, out["answer_text"]) and out["seed"] == 42 and out["tolerance"]


@pytest.mark.parametrize("argv, words", [
    (["practice", "nope", "--seed", "1"], "unknown exercise family 'nope'; families are bp_message"),
    (["practice", "bp_message", "--seed", "-3"], "seed must be a whole number"),
    (["practice", "bp_message", "--seed", "x"], "argument --seed"),
])
def test_cli_bad_family_or_seed_is_one_error_line(capsys, argv, words):
    from engine.cli import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and words in err, err


# ----------------------------------------------------------------------------------- the session's score

def test_score_counts_exercises_solved_first_tries_and_attempts_per_family():
    from engine.practice import Score, Tally

    a, b, c = make("bp_message", 1), make("bp_message", 2), make("cover_round", 1)
    wrong_a = " ".join(str(x + 0.1) for x in a.parts[0].value)
    s = Score()
    s, r1 = s.attempt(a, wrong_a)
    s, r2 = s.attempt(a, a.answer_text)
    s, r3 = s.attempt(b, b.answer_text)
    s, r4 = s.attempt(c, "1; 1")
    assert (r1, r2, r3) == (False, True, True) and r4 is c.answer_text.startswith("1; 1")
    assert s.tally("bp_message") == Tally(exercises=2, solved=2, first_try=1, attempts=3)
    assert s.tally("cover_round").attempts == 1 and s.tally("hedge_weight") == Tally(0, 0, 0, 0)
    assert [x.right for x in s.of("bp_message", 1)] == [False, True] and s.families() == ("bp_message", "cover_round")
    with pytest.raises(InvalidParameterError):
        s.attempt(a, "not a number")   # unreadable: refused, nothing recorded
    assert len(s.attempts) == 4


def test_the_tree_shown_is_the_exercises_tree_with_the_vertex_asked_about():
    from engine.practice import asked_vertex, exercise_tree

    for name in FAMILIES:
        ex = make(name, 9)
        tree = exercise_tree(ex)
        if name == "chow_liu_next":
            assert tree is None and asked_vertex(ex) is None
            continue
        assert {frozenset(e) for e in tree.named_edges()} == {frozenset(e) for e in ex.data["edges"]}
        if name in ("rta_kbest", "htmm_posterior"):
            assert asked_vertex(ex) is None and tree.name(tree.root) in ("y1", "root")
            continue
        assert asked_vertex(ex) in tree.names
        if name == "cover_round":
            assert tree.name(tree.root) == ex.data["s"]


def test_an_edge_component_is_named_by_its_ends_in_either_order():
    ex = next(e for e in (make("update_path", s) for s in range(200)) if any("|" in c for c in e.answer["components"]))
    flipped = " ".join("|".join(reversed(c.split("|"))) for c in ex.answer["components"])
    assert check(ex, flipped) and check(ex, ex.answer_text)
    assert not check(ex, " ".join(c for c in ex.answer["components"] if "|" not in c))
