"""``python -m engine replay`` (exact JSON of issue 4, every answer equal to BP) and ``bench online``."""

import json

import numpy as np
import pytest

from engine.inference.belief_propagation import belief_propagation
from engine.inference.potentials import edge_potential_table
from engine.inference.scenario import load_scenario
from tests.conftest import ROOT, engine_cli

SAMPLE = ROOT / "sample_scenarios" / "lecture_evidence.json"


def _run(*args):
    return engine_cli(*args, cwd=ROOT)


def test_replay_prints_one_line_per_query_equal_to_bp():
    r = _run("replay", str(SAMPLE))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(s) for s in r.stdout.splitlines()]
    sc = load_scenario(SAMPLE)
    tree, k = sc.tree, sc.k
    overrides = dict(sc.edge_potentials)
    data = np.ones((tree.n, k))
    for name, vec in sc.node_data.items():
        data[tree.index(name)] = vec
    expected = []
    for i, op in enumerate(sc.ops):
        if "update" in op:
            data[tree.index(op["update"])] = op["data"]
        elif "set_edge" in op:
            overrides[tuple(op["set_edge"])] = np.asarray(op["potential"], float)
        else:
            res = belief_propagation(tree, data, edge_potential_table(tree, sc.edge_potential, overrides))
            if "marginal" in op:
                expected.append((i, op["marginal"], res.marginals[tree.index(op["marginal"])]))
            else:
                expected.append((i, None, res.log_partition))
    assert len(lines) == len(expected)
    for line, (i, name, val) in zip(lines, expected):
        assert line["op"] == i
        if name is None:
            assert set(line) == {"op", "log_partition"}
            assert line["log_partition"] == pytest.approx(val, rel=1e-12)
        else:
            assert set(line) == {"op", "vertex", "marginal"}
            assert line["vertex"] == name
            np.testing.assert_allclose(line["marginal"], val, rtol=1e-9)


@pytest.mark.parametrize("scenario, culprit", [
    ({"tree": {"edges": [["a", "b"], ["b", "c"]]}, "states": 2, "node_data": {"a": [1, 0]},
      "ops": [{"update": "a", "data": [0, 0]}]}, "ops[0]: the evidence is inconsistent"),
    ({"tree": {"edges": [["a", "b"], ["b", "c"]]}, "states": 2, "node_data": {"b": [0, 0]}, "ops": []},
     "initial node_data"),
    ({"tree": {"edges": [["a", "b"]]}, "states": 2, "ops": [{"marginal": "q"}]}, "ops[0]: no vertex is named q"),
    ({"tree": {"edges": [["a", "b"]]}, "states": 2, "ops": [{"frob": 1}]}, "ops[0]"),
    ({"tree": {"edges": [["a", "b"]]}, "states": 1, "ops": []}, "k must be"),
    ({"tree": {"edges": [["a", "b"], ["b", "c"]]}, "states": 2,
      "edge_potentials": {"a|c": [[1, 1], [1, 1]]}, "ops": []}, "(a, c)"),
    ({"tree": {"edges": [["a", "b"]]}, "states": 2, "edge_potential": [[1, -1], [1, 1]], "ops": []},
     "-1"),
])
def test_bad_scenarios_give_one_error_line(tmp_path, scenario, culprit):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scenario))
    r = _run("replay", str(p))
    assert r.returncode == 2
    assert r.stderr.startswith("error:") and r.stderr.count("\n") == 1
    assert culprit in r.stderr


@pytest.mark.slow
def test_replay_python_backend_matches(tmp_path):
    a = _run("replay", str(SAMPLE))
    b = _run("replay", "--backend", "python", str(SAMPLE))
    for x, y in zip(a.stdout.splitlines(), b.stdout.splitlines()):
        x, y = json.loads(x), json.loads(y)
        assert x.keys() == y.keys()
        if "marginal" in x:
            np.testing.assert_allclose(x["marginal"], y["marginal"], rtol=1e-13)


def test_bench_online_json_columns():
    r = _run("bench", "online", "--sizes", "500", "--shapes", "random", "--ops", "50", "--json")
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout.splitlines()[0])
    for key in ("n", "shape", "height", "init_s", "update_us", "marginal_us", "update_many_us",
                "marginal_many_us", "bp_s", "lean_s", "bp_over_lean", "ratio", "ratio_lean"):
        assert key in row
    assert row["n"] == 500 and row["ratio"] > 0 and row["ratio_lean"] > 0
    assert row["bp_over_lean"] == pytest.approx(row["bp_s"] / row["lean_s"])


def test_bench_rejects_bad_sizes():
    r = _run("bench", "online", "--sizes", "ten")
    assert r.returncode == 2 and r.stderr.startswith("error:")


def test_saved_scenario_replays_to_the_same_model(tmp_path):
    """What the Online Marginals page saves (scenario_to_dict) loads and replays to the same state."""
    from engine.inference.online import OnlineModel, random_ops
    from engine.inference.potentials import potts_interaction
    from engine.inference.scenario import apply_op, build_model, parse_scenario, scenario_to_dict
    from engine.trees.generators import generate

    tree = generate("random", 30, seed=2)
    M = potts_interaction(3, 0.7)
    model = OnlineModel(tree, 3, M, None)
    ops = random_ops(tree, 3, 40, seed=1)
    for i, op in enumerate(ops):
        apply_op(model, i, op)
    sc = scenario_to_dict({"edges": [list(e) for e in tree.named_edges()]}, 3, M, ops=ops)
    p = tmp_path / "saved.json"
    p.write_text(json.dumps(sc))
    loaded = parse_scenario(json.loads(p.read_text()))
    again = build_model(loaded)
    for i, op in enumerate(loaded.ops):
        apply_op(again, i, op)
    for v in range(tree.n):
        name = tree.name(v)
        np.testing.assert_allclose(again.marginal(loaded.tree.index(name)), model.marginal(v), rtol=1e-12)
    assert again.log_partition() == pytest.approx(model.log_partition(), rel=1e-12)


def test_scenario_numbers_are_vertex_names_not_indices():
    """{"marginal": 2} means the vertex named "2" (JSON numbers are names, as in edge lists)."""
    from engine.inference.scenario import parse_scenario, replay

    # the vertex named "2" is not at index 2 here
    obj = {"tree": {"edges": [["5", "2"], ["2", "7"]]}, "states": 2, "node_data": {"2": [1, 0]},
           "edge_potential": [[3, 1], [1, 3]], "ops": [{"marginal": 2}, {"marginal": "2"}]}
    sc = parse_scenario(obj)
    assert sc.tree.index("2") != 2
    a, b = list(replay(sc))
    assert a["vertex"] == b["vertex"] == "2"
    assert a["marginal"] == b["marginal"] == [1.0, 0.0]
    with pytest.raises(Exception, match=r"ops\[0\]: a vertex name must be a string, got 2.5"):
        parse_scenario({**obj, "ops": [{"marginal": 2.5}]})
