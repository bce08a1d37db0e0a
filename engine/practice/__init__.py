"""Practice: exercise families generated from a seed and checked by the engine.

Each :class:`Family` is declared once in :data:`FAMILIES` (its name, the paper it practises, its
title and its generator ``make(seed) -> Exercise``); the app, ``python -m engine practice``
and the tests read them from there. The engine computes every answer with its own functions, so an
exercise's answer is the one the engine gives wherever it computes it. An answer is checked part by part with
the tolerance the exercise states (:func:`~engine.practice.exercise.check`).

>>> ex = FAMILIES["cover_round"].make(3)
>>> ex == FAMILIES["cover_round"].make(3), FAMILIES["cover_round"].check(ex, ex.answer_text)
(True, True)
>>> sorted(FAMILIES)[:2]
['bp_message', 'chow_liu_next']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine import limits
from engine.errors import InvalidParameterError
from engine.practice import families as _f
from engine.practice.exercise import Exercise, Part, check, parse_answer
from engine.practice.score import Attempt, Score, Tally
from engine.trees.model import Tree

__all__ = ["Family", "FAMILIES", "PAPERS", "Exercise", "Part", "check", "parse_answer", "family", "make", "Score",
           "Attempt", "Tally", "exercise_tree", "asked_vertex"]

#: the papers the families practise, by key: title and authors as a reader sees them
PAPERS = {
    "sum-product": '"Inferences on trees: sum-product algorithm" (lecture notes)',
    "hpv": '"Online Sum-Product Computation over Trees" (Herbster, Pasteris & Vitale)',
    "ofde": '"Online Forest Density Estimation" (Koriche)',
    "rta": '"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks" '
           "(Marchand, Su, Morvant, Rousu & Shawe-Taylor)",
    "htmm": '"Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models" (Castellana & Bacciu)',
}


@dataclass(frozen=True)
class Family:
    """An exercise family: ``make(seed)`` builds its exercise, :meth:`check` marks an answer."""

    name: str
    paper: str
    title: str
    generator: Callable[[int], Exercise]

    def make(self, seed) -> Exercise:
        """The exercise of ``seed`` (a whole number in 0..2^63-1; the same seed, the same exercise)."""
        seed = limits.check_seed(seed)
        if seed is None or not isinstance(seed, int):
            raise InvalidParameterError(f"seed must be a whole number in 0..2^63-1, got {seed!r}")
        return self.generator(seed)

    def check(self, exercise: Exercise, answer) -> bool:
        """Whether ``answer`` (typed text or one value per part) is right within the stated tolerance."""
        if exercise.family != self.name:
            raise InvalidParameterError(f"exercise of family {exercise.family!r} given to family {self.name!r}")
        return check(exercise, answer)

    def to_dict(self) -> dict:
        return {"family": self.name, "paper": self.paper, "title": self.title}


def _family(name: str, paper: str) -> Family:
    return Family(name, PAPERS[paper], _f.FAMILY_TITLES[name], getattr(_f, name))


#: every family, in the order they are offered
FAMILIES: dict[str, Family] = {f.name: f for f in (
    _family("bp_message", "sum-product"),
    _family("marginal_evidence", "sum-product"),
    _family("cover_round", "hpv"),
    _family("update_path", "hpv"),
    _family("hedge_weight", "hpv"),
    _family("chow_liu_next", "ofde"),
    _family("rta_kbest", "rta"),
    _family("htmm_posterior", "htmm"),
)}


def family(name: str) -> Family:
    """The family ``name``, or one line naming it and the families there are."""
    try:
        return FAMILIES[name]
    except (KeyError, TypeError):
        raise InvalidParameterError(f"unknown exercise family {str(name)[:40]!r}; families are "
                                    f"{', '.join(FAMILIES)}") from None


def make(name: str, seed) -> Exercise:
    """The exercise of family ``name`` and ``seed``."""
    return family(name).make(seed)


def exercise_tree(exercise: Exercise) -> Tree | None:
    """The tree an exercise shows (rooted at its cover's leaf s, else at its first vertex or label), or
    None when it shows no tree (a mutual-information table)."""
    d = exercise.data
    if "edges" not in d:
        return None
    names = d.get("vertices") or d["labels"]
    return Tree.from_named_edges(d["edges"], vertices=names, root=d.get("s", names[0]))


def asked_vertex(exercise: Exercise) -> str | None:
    """The vertex the question is about (a message's receiver, a marginal's or an allocation's
    vertex, a cover's root s), or None."""
    d = exercise.data
    return next((d[k] for k in ("receiver", "vertex", "asked", "s") if k in d), None)
