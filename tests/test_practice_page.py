"""The Practice page headless (streamlit AppTest): a link opens an exercise, a wrong answer shows the
hint and the solution, a right one is marked right, an unreadable one is one warning, and the score
per family counts them; "New exercise" draws another seed and the address follows it."""

import pytest

from engine.practice import FAMILIES, make
from tests.conftest import open_app_page

PAGE = "workbench/pages/practice.py"


def _open(family: str, seed: int):
    at = open_app_page(PAGE)
    at.query_params["family"] = family
    at.query_params["seed"] = str(seed)
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def _answer(at, text: str):
    at.text_input[0].set_value(text)
    next(b for b in at.button if b.label == "Check").click()
    at.run()
    assert not at.exception, at.exception


def test_a_wrong_then_a_right_answer_with_hint_solution_and_score():
    ex = make("cover_round", 17)
    at = _open("cover_round", 17)
    assert at.title[0].value == "Practice"
    assert any(ex.title in h.value for h in at.header)
    assert any(ex.prompt[:60] in m.value for m in at.markdown)
    assert any("Answer format" in c.value and "exactly" in c.value for c in at.caption)
    assert [e.label for e in at.expander] == ["Describe"]   # the figure's; no solution before an attempt
    assert any("No attempt yet" in c.value for c in at.caption)

    height = ex.answer["height"]
    _answer(at, f"{' '.join(ex.answer['mergeable'])}; {height + 1}")   # the height is off by one
    assert at.error and "Not quite" in at.error[0].value
    assert any(ex.hint[:40] in i.value for i in at.info)
    solution = [e for e in at.expander if e.label == "Worked solution"]   # (the figure's "Describe" is one too)
    assert solution and any(ex.solution[:30] in m.value for m in solution[0].markdown)
    table = at.dataframe[0].value
    assert table.to_dict("records") == [{"family": ex.title, "exercises": 1, "solved": 0,
                                         "first try": 0, "attempts": 1}]

    _answer(at, ex.answer_text)
    assert at.success and "Right" in at.success[0].value and not at.error
    table = at.dataframe[0].value
    assert table.iloc[0].tolist() == [ex.title, 1, 1, 0, 2]


def test_an_unreadable_answer_is_one_warning_and_not_counted():
    at = _open("bp_message", 3)
    _answer(at, "0.5 and a half")
    assert at.warning and "is not a number" in at.warning[0].value and "\n" not in at.warning[0].value
    assert not at.error and not at.dataframe


@pytest.mark.parametrize("first", ["wrong", "right"])
def test_an_unreadable_answer_replaces_the_verdict_on_the_last_one(first):
    """After "Not quite ... (attempt 1)" (or "Right: ..."), an answer that cannot be read is its
    warning alone: the verdict on the earlier answer stood under it."""
    ex = make("bp_message", 3)
    m0, m1 = ex.parts[0].value
    at = _open("bp_message", 3)
    _answer(at, ex.answer_text if first == "right" else f"{m0 + 0.2:.4f} {m1 - 0.2:.4f}")
    assert (at.success if first == "right" else at.error), first
    _answer(at, "0.5 and a half")
    assert len(at.warning) == 1 and "is not a number" in at.warning[0].value
    assert not at.error and not at.success, ([e.value for e in at.error], [s.value for s in at.success])
    assert [e.label for e in at.expander if e.label == "Worked solution"], "the solution stays offered"


def test_new_exercise_draws_another_seed_and_the_link_follows():
    at = _open("chow_liu_next", 5)
    assert at.query_params.get("seed") == "5" and at.query_params.get("family") == "chow_liu_next"
    next(b for b in at.button if b.label == "New exercise").click()
    at.run()
    assert not at.exception, at.exception
    seed = at.number_input(key="practice_seed").value
    assert at.query_params.get("seed") == str(seed)
    assert any(f"exercise {seed}" in h.value for h in at.header)
    ex = make("chow_liu_next", seed)
    _answer(at, ex.answer_text)
    assert at.success, [e.value for e in at.error]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_draws_and_accepts_its_answer(family):
    ex = make(family, 2)
    at = _open(family, 2)
    assert any(ex.title in h.value for h in at.header)
    assert len(at.get("plotly_chart")) == (0 if family == "chow_liu_next" else 1)   # the tree, when there is one
    _answer(at, ex.answer_text)
    assert at.success and not at.error, [e.value for e in at.error]
