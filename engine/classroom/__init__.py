"""The class in the loop: a lecturer leads a class through a lesson, students follow and answer.

``store`` (classes, polls, answers, followers and practice results in the embedded database, all
their SQL in one module) and ``polls`` (the distribution of a poll's answers, numbers bucketed).
Nothing here imports Streamlit or draws: the app shows the class from these.
"""

from engine.classroom.polls import Distribution, distribution
from engine.classroom.store import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_HOURS,
    MAX_ANSWER_CHARS,
    PRESENCE_SECONDS,
    RATE_BURST,
    RATE_SECONDS,
    Answer,
    ClassRecord,
    ClassStore,
    PollState,
    PracticeResult,
    Presence,
    lecturer_key,
    normalise_code,
)

__all__ = ["ClassStore", "ClassRecord", "PollState", "Answer", "Presence", "PracticeResult", "Distribution",
           "distribution", "normalise_code", "lecturer_key", "CODE_ALPHABET", "CODE_LENGTH", "DEFAULT_HOURS", "MAX_ANSWER_CHARS",
           "PRESENCE_SECONDS", "RATE_BURST", "RATE_SECONDS"]
