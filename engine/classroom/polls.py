"""The distribution of a poll's answers: what the lecturer's panel and, after the reveal, every
follower's screen show.

Choices are counted per choice; vertex sets per distinct set (the most frequent first, the rest
pooled as "other"); whole numbers per value when there are few of them, other numbers in
equal-width buckets between the smallest and the largest answer (text that is not a number is
counted apart). A ``check`` (the question's own checker, given only
after the reveal) marks the rows holding the right answer and counts the right answers.

>>> d = distribution("number", ["0.5", "0.52", "0.9", "x"], check=lambda a: abs(float(a) - 0.5) < 0.05, target=0.5)
>>> d.total, d.right, d.rows()[0]
(4, 2, ('0.5 – 0.6', 2, True))
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

__all__ = ["Distribution", "distribution", "MAX_ROWS", "NUMBER_BUCKETS"]

MAX_ROWS = 8
NUMBER_BUCKETS = 6
_OTHER, _UNREADABLE, _NONE = "other", "not a number", "(none)"


@dataclass(frozen=True)
class Distribution:
    """Rows of (label, count, marked); ``right`` is the number of right answers when a checker was
    given, else None."""

    labels: tuple[str, ...]
    counts: tuple[int, ...]
    marked: tuple[bool, ...]
    total: int
    right: int | None = None

    def rows(self) -> list[tuple[str, int, bool]]:
        return list(zip(self.labels, self.counts, self.marked))


def _safe(check: Callable[[str], bool] | None, text: str) -> bool:
    if check is None:
        return False
    try:
        return bool(check(text))
    except Exception:  # a checker that cannot read an answer calls it wrong
        return False


def _number(text: str) -> float | None:
    try:
        x = float(str(text).strip().replace(",", "."))
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _vertex_label(text: str) -> str:
    s = str(text).strip()
    if s.lower() in ("", "none", "(none)", "-", "—", "∅"):
        return _NONE
    names = {x.strip() for x in s.split(",") if x.strip()}
    return ", ".join(sorted(names, key=lambda v: (0, float(v), v) if _number(v) is not None else (1, 0.0, v)))


def _nice(x: float) -> str:
    return f"{x:.3g}"


def distribution(kind: str, answers: Sequence[str], *, choices: Sequence[str] = (),
                 check: Callable[[str], bool] | None = None, target: float | None = None,
                 max_rows: int = MAX_ROWS) -> Distribution:
    """The distribution of ``answers`` to a question of ``kind`` (``choice``, ``vertices``,
    ``number``, or anything else: counted as text). ``check`` marks right rows and counts right
    answers; for numbers ``target`` marks the bucket that holds it."""
    answers = [str(a) for a in answers]
    right = sum(_safe(check, a) for a in answers) if check is not None else None
    labels: list[str] = []
    counts: list[int] = []
    marked: list[bool] = []
    if kind == "number":
        values = [_number(a) for a in answers]
        good = [v for v in values if v is not None]
        distinct = sorted(set(good))
        if good and len(distinct) <= max_rows - 1 and all(v == round(v) and abs(v) < 1e15 for v in distinct):
            # whole numbers (a count, an iteration): one row per value
            c = Counter(good)
            for v in distinct:
                labels.append(f"{int(v)}")
                counts.append(c[v])
                marked.append(target is not None and v == target)
        elif good:
            lo, hi = min(good), max(good)
            if lo == hi:
                labels, counts = [_nice(lo)], [len(good)]
                marked = [target is not None and check is not None and _safe(check, repr(lo))]
            else:
                k = NUMBER_BUCKETS
                width = (hi - lo) / k
                # nice edges: the width rounded up to 1, 2 or 5 times a power of ten
                mag = 10 ** math.floor(math.log10(width))
                step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= width * (1 - 1e-12))
                start = math.floor(lo / step) * step
                nb = max(1, int(math.ceil((hi - start) / step + 1e-9)))
                if start + nb * step <= hi:
                    nb += 1
                hist = [0] * nb
                for v in good:
                    hist[min(nb - 1, int((v - start) // step))] += 1
                for i, n in enumerate(hist):
                    a, b = start + i * step, start + (i + 1) * step
                    if n == 0 and not (target is not None and a <= target < b):
                        continue
                    labels.append(f"{_nice(a)} – {_nice(b)}")
                    counts.append(n)
                    marked.append(target is not None and a <= target < b)
        bad = len(answers) - len(good)
        if bad:
            labels.append(_UNREADABLE)
            counts.append(bad)
            marked.append(False)
    elif kind == "choice":
        c = Counter(a.strip() for a in answers)
        for ch in choices:
            labels.append(ch)
            counts.append(c.pop(ch, 0))
            marked.append(_safe(check, ch))
        if c:
            labels.append(_OTHER)
            counts.append(sum(c.values()))
            marked.append(False)
    else:
        norm = [_vertex_label(a) if kind == "vertices" else a.strip() for a in answers]
        c = Counter(norm)
        common = c.most_common()
        shown = common if len(common) <= max_rows else common[:max_rows - 1]
        for label, n in shown:
            labels.append(label)
            counts.append(n)
            marked.append(_safe(check, "" if label == _NONE else label))
        rest = sum(n for _, n in common[len(shown):])
        if rest:
            labels.append(_OTHER)
            counts.append(rest)
            marked.append(False)
    return Distribution(labels=tuple(labels), counts=tuple(counts), marked=tuple(marked), total=len(answers),
                        right=right)
