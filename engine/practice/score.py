"""A student's practice record: every checked attempt, and the score per family read from it.

A student's practice session keeps one :class:`Score` (state of its own, so it is an engine
object tested without a user interface); :meth:`Score.attempt` checks a typed answer against its
exercise and returns the new record with the verdict.

>>> from engine.practice import make
>>> ex = make("chow_liu_next", 1)
>>> score, right = Score().attempt(ex, "X1-X2")
>>> score, right = score.attempt(ex, ex.answer_text)
>>> right, score.tally("chow_liu_next")
(True, Tally(exercises=1, solved=1, first_try=0, attempts=2))
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.practice.exercise import Exercise, check

__all__ = ["Attempt", "Score", "Tally", "MAX_ATTEMPTS"]

#: attempts a session's record keeps (the oldest are dropped beyond; the tallies count what is kept)
MAX_ATTEMPTS = 10_000


@dataclass(frozen=True)
class Attempt:
    """One checked answer: the exercise (family, seed), the text typed and whether it was right."""

    family: str
    seed: int
    answer: str
    right: bool


@dataclass(frozen=True)
class Tally:
    """A family's score: exercises attempted, solved (at any attempt), solved at the first attempt, and attempts."""

    exercises: int
    solved: int
    first_try: int
    attempts: int


@dataclass(frozen=True)
class Score:
    """Every attempt of a session, oldest first."""

    attempts: tuple[Attempt, ...] = ()

    def attempt(self, exercise: Exercise, answer: str) -> tuple[Score, bool]:
        """Check ``answer`` (raises ``InvalidParameterError`` if it cannot be read: then nothing is
        recorded) and return the record with this attempt, and the verdict."""
        right = check(exercise, answer)
        kept = (*self.attempts, Attempt(exercise.family, exercise.seed, answer.strip(), right))[-MAX_ATTEMPTS:]
        return Score(kept), right

    def of(self, family: str, seed: int) -> tuple[Attempt, ...]:
        """The attempts at one exercise, oldest first."""
        return tuple(a for a in self.attempts if a.family == family and a.seed == seed)

    def tally(self, family: str) -> Tally:
        """The score of ``family``."""
        mine = [a for a in self.attempts if a.family == family]
        firsts: dict[int, bool] = {}
        solved: set[int] = set()
        for a in mine:
            firsts.setdefault(a.seed, a.right)
            if a.right:
                solved.add(a.seed)
        return Tally(len(firsts), len(solved), sum(firsts.values()), len(mine))

    def families(self) -> tuple[str, ...]:
        """The families attempted, in the order first attempted."""
        return tuple(dict.fromkeys(a.family for a in self.attempts))
