"""An exercise and its checker: the parts of an answer, how a typed answer is read, and the
tolerance each part states.

An :class:`Exercise` is made by a family (:mod:`engine.practice.families`) from a seed; it carries
the prompt, the data shown, the answer the engine computed, a hint and a worked solution. Its
answer has one or more :class:`Part` s, each of one kind:

- ``"vector"``: numbers (a message or a marginal), each within the part's absolute tolerance;
- ``"integer"``: a whole number, exactly;
- ``"vertices"``: a set of vertex names, exactly (order and repetition do not matter);
- ``"edge"``: two vertex names, either order;
- ``"bits"``: a labelling of binary labels, ``0 1 1 0`` or ``0110``, exactly;
- ``"components"``: a set of components of a cover's decomposition tree D, each named by its
  splitting vertex (``8``) or, for an edge, by its two ends in either order (``4|8``).

A typed answer gives the parts in order, separated by ``;`` (``"2 5; 3"``). :func:`check` says
whether an answer is right; a malformed answer raises :class:`~engine.errors.InvalidParameterError`
with one line saying what was expected.

>>> ex = Exercise("demo", 0, "Demo", "Give p(x=0) and p(x=1).", {}, (Part("p", "vector", (0.25, 0.75), 0.005),),
...               "Normalise.", "p = (0.25, 0.75).")
>>> check(ex, "0.25 0.75"), check(ex, "0.26 0.74"), check(ex, ex.answer_text)
(True, False, True)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.errors import InvalidParameterError

__all__ = ["Exercise", "Part", "KINDS", "check", "parse_answer", "format_part", "MAX_ANSWER_CHARS"]

#: the kinds of answer part, and how a student types each
KINDS = {
    "vector": "numbers separated by spaces or commas",
    "integer": "a whole number",
    "vertices": "vertex names separated by spaces or commas",
    "edge": "two vertex names, e.g. 2-5",
    "bits": "one 0 or 1 per label, e.g. 0 1 1 0",
    "components": "components separated by spaces: a splitting vertex (8) or an edge (4|8)",
}
#: the longest typed answer read (anything longer is refused before it is parsed)
MAX_ANSWER_CHARS = 2_000


@dataclass(frozen=True)
class Part:
    """One part of an answer: its name, kind (a key of :data:`KINDS`), the engine's value and the
    absolute tolerance of each entry (0: exact)."""

    name: str
    kind: str
    value: tuple
    tolerance: float = 0.0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InvalidParameterError(f"answer part {self.name!r}: unknown kind {self.kind!r}; kinds are "
                                        f"{', '.join(KINDS)}")

    def describe(self) -> str:
        """How to type this part and the tolerance it is checked with."""
        if self.kind == "vector":
            n = len(self.value)
            return f"{self.name}: " + (f"{n} numbers, each" if n > 1 else "a number") + f" within ±{self.tolerance:g}"
        if self.kind == "bits":
            return f"{self.name}: {len(self.value)} labels, one 0 or 1 each, exactly"
        return f"{self.name}: {KINDS[self.kind]}" + (", exactly" if self.kind == "integer" else "")


@dataclass(frozen=True)
class Exercise:
    """One generated exercise; ``parts`` hold the engine's answer.

    family, seed : what made it (the same family and seed make the same exercise)
    title : the family's title; prompt : the question in Markdown, with the data it needs
    data : the data shown, as JSON-ready values (for scripts)
    parts : the answer's parts, in the order they are typed
    hint : shown after a wrong attempt; solution : the worked solution, shown after any attempt
    """

    family: str
    seed: int
    title: str
    prompt: str
    data: dict
    parts: tuple[Part, ...]
    hint: str
    solution: str

    @property
    def answer(self) -> dict:
        """The engine's answer, ``{part name: value}`` (a vector as a list, vertices sorted)."""
        return {p.name: _plain(p) for p in self.parts}

    @property
    def answer_text(self) -> str:
        """The answer as a student would type it (accepted by :func:`check`)."""
        return "; ".join(format_part(p.kind, p.value) for p in self.parts)

    @property
    def answer_format(self) -> str:
        """How to type the answer, part by part, with the tolerances."""
        sep = " Separate the parts with ';'." if len(self.parts) > 1 else ""
        return "; ".join(p.describe() for p in self.parts) + "." + sep

    def to_dict(self) -> dict:
        return {"family": self.family, "seed": self.seed, "title": self.title, "prompt": self.prompt,
                "data": self.data, "answer": self.answer, "answer_text": self.answer_text,
                "answer_format": self.answer_format,
                "tolerance": {p.name: p.tolerance for p in self.parts}, "hint": self.hint,
                "solution": self.solution}


def _plain(p: Part):
    if p.kind == "vector":
        return [float(x) for x in p.value]
    if p.kind == "integer":
        return int(p.value[0])
    if p.kind == "vertices":
        return sorted(p.value, key=_name_key)
    return list(p.value)


def _name_key(name: str):
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


def format_part(kind: str, value) -> str:
    """A part's value as typed: ``0.25 0.75``, ``3``, ``2 5``, ``2-5``."""
    if kind == "vector":
        return " ".join(f"{x:.4f}".rstrip("0").rstrip(".") if x != 0 else "0" for x in value)
    if kind == "integer":
        return str(int(value[0]))
    if kind == "bits":
        return " ".join(str(int(b)) for b in value)
    if kind in ("vertices", "components"):
        return " ".join(sorted(value, key=_name_key))
    return "-".join(value)


_SPLIT = re.compile(r"[\s,]+")


def _tokens(text: str) -> list[str]:
    return [t for t in _SPLIT.split(text.strip()) if t]


def parse_answer(exercise: Exercise, text: str) -> tuple:
    """The parts of a typed answer, one value per part, or one :class:`InvalidParameterError` line."""
    if not isinstance(text, str):
        raise InvalidParameterError(f"an answer is text, got {type(text).__name__}")
    if len(text) > MAX_ANSWER_CHARS:
        raise InvalidParameterError(f"the answer has {len(text):,} characters; at most {MAX_ANSWER_CHARS:,} are read")
    pieces = [s for s in text.split(";")]
    if len(pieces) != len(exercise.parts):
        raise InvalidParameterError(f"expected {len(exercise.parts)} part(s) separated by ';' "
                                    f"({exercise.answer_format.rstrip('.')}), got {len(pieces)}")
    return tuple(_parse_part(p, s) for p, s in zip(exercise.parts, pieces))


def _parse_part(part: Part, text: str):
    toks = _tokens(text)
    if part.kind == "vector":
        try:
            xs = tuple(float(t) for t in toks)
        except ValueError:
            bad = next(t for t in toks if not _is_number(t))
            raise InvalidParameterError(f"{part.name}: {bad[:20]!r} is not a number") from None
        if len(xs) != len(part.value):
            raise InvalidParameterError(f"{part.name}: expected {len(part.value)} numbers, got {len(xs)}")
        if not all(math.isfinite(x) for x in xs):
            raise InvalidParameterError(f"{part.name}: every number must be finite")
        return xs
    if part.kind == "integer":
        if len(toks) != 1 or not re.fullmatch(r"[+-]?\d{1,12}", toks[0]):
            raise InvalidParameterError(f"{part.name}: expected a whole number, got {text.strip()[:20]!r}")
        return (int(toks[0]),)
    if part.kind == "bits":
        flat = "".join(toks)
        if not re.fullmatch(r"[01]*", flat) or len(flat) != len(part.value):
            raise InvalidParameterError(f"{part.name}: expected {len(part.value)} labels, each 0 or 1, got "
                                        f"{text.strip()[:20]!r}")
        return tuple(int(b) for b in flat)
    if part.kind == "edge":
        toks = _tokens(text.replace("-", " ")) if len(toks) == 1 else toks
        if len(toks) != 2:
            raise InvalidParameterError(f"{part.name}: expected two vertex names (like 2-5), got {text.strip()[:20]!r}")
        return tuple(toks)
    return tuple(sorted(set(toks), key=_name_key))


def _is_number(t: str) -> bool:
    try:
        float(t)
    except ValueError:
        return False
    return True


def check(exercise: Exercise, answer) -> bool:
    """Whether ``answer`` (typed text, or one value per part) is right within the stated tolerances.

    Raises :class:`InvalidParameterError` for an answer that cannot be read (wrong number of parts,
    not a number); a readable but wrong answer returns False.
    """
    values = parse_answer(exercise, answer) if isinstance(answer, str) else tuple(answer)
    if len(values) != len(exercise.parts):
        raise InvalidParameterError(f"expected {len(exercise.parts)} part(s), got {len(values)}")
    return all(_right(p, v) for p, v in zip(exercise.parts, values))


def _right(part: Part, value) -> bool:
    value = tuple(value) if not isinstance(value, (str, int, float)) else (value,)
    if part.kind == "vector":
        return len(value) == len(part.value) and all(
            abs(float(a) - float(b)) <= part.tolerance for a, b in zip(value, part.value))
    if part.kind == "integer":
        return len(value) == 1 and int(value[0]) == int(part.value[0])
    if part.kind == "bits":
        return tuple(int(b) for b in value) == tuple(int(b) for b in part.value)
    if part.kind == "vertices":
        return {str(v) for v in value} == {str(v) for v in part.value}
    if part.kind == "components":
        return {_component(v) for v in value} == {_component(v) for v in part.value}
    return len(value) == 2 and {str(v) for v in value} == {str(v) for v in part.value}


def _component(name) -> str | frozenset:
    """A component's name with an edge's two ends unordered (``4|8`` is ``8|4``)."""
    name = str(name)
    return frozenset(name.split("|")) if "|" in name else name
