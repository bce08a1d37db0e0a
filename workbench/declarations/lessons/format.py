"""The lesson file format: Markdown with a small front matter, read line by line.

::

    ---
    title: The optimal hierarchical cover
    minutes: 15
    audience: students who know rooted trees and recursion
    papers: Online Sum-Product Computation over Trees (Herbster, Pasteris & Vitale), sections 2-3
    ---
    An introduction (Markdown), shown on the landing page.

    ## Round 0: the atoms merge
    state: /cover_inspector?tree=figure1&root=1&t=0
    minutes: 3

    What happens and what to look at (Markdown, a few lines).

    question: Which vertices are mergeable in round 0?
    kind: vertices
    answer: 2, 6, 10, 13
    computed: mergeable
    why: shown with the answer.

The front matter holds ``title``, ``minutes`` and ``audience`` (required), ``papers`` and ``order``
(a number that sorts the lessons; default 100). Every ``## `` heading starts a step. Inside a
step, a line ``KEY: value`` whose KEY is one of :data:`STEP_KEYS` is a field (lines right after it
indented by two spaces continue its value); every other line is the step's explanation:

- ``state`` (required): the app state as a link relative to the app root, checked against the
  page table of :mod:`workbench.declarations.page_table`;
- ``minutes``: the step's share of the lesson (give it for every step or for none; then they
  must add up to the lesson's minutes);
- ``question``, with ``kind`` (``choice``, ``vertices``, ``number`` or ``reveal``; default
  ``choice`` when ``choices`` are given, else ``reveal``), ``choices`` (separated by ``|``),
  ``answer`` (required), ``tolerance`` (numbers: absolute, or relative with ``%``; default 1%),
  ``computed`` (the name of an engine computation that must give the same answer, see
  :mod:`workbench.declarations.lessons.answers`, with ``name=value`` arguments) and ``why``;
- ``practice: N exercises of family F`` (or ``practice: N F``): the step asks for N solved
  exercises of the Practice page's family F (:mod:`engine.practice`); its ``state`` defaults to
  ``/practice?family=F``. A step has a question or a practice, not both.

Every problem raises :class:`~engine.errors.LessonError` whose message starts with
``FILE:LINE:``.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from pathlib import Path

from engine import limits
from engine.errors import EngineError, LessonError, LimitExceededError
from engine.practice import FAMILIES
from workbench.declarations.lessons.answers import COMPUTATIONS
from workbench.declarations.page_spec import check_link, link_tree
from workbench.declarations.page_table import PAGES

__all__ = ["FRONT_KEYS", "KINDS", "MAX_PRACTICE", "MAX_STEPS", "STEP_KEYS", "Lesson", "Question", "Step", "parse_lesson"]

FRONT_KEYS = ("title", "minutes", "audience", "papers", "order")
STEP_KEYS = ("state", "minutes", "question", "kind", "choices", "answer", "tolerance", "computed", "why", "practice")
#: Most exercises a practice step may ask for.
MAX_PRACTICE = 20
_PRACTICE = re.compile(r"^(\d+)\s+(?:exercises?\s+of\s+(?:the\s+)?(?:family\s+)?)?([a-z_][a-z0-9_]*)$")
KINDS = ("choice", "vertices", "number", "reveal")
#: Most steps a lesson may have (the ``step`` query parameter's range).
MAX_STEPS = 200
_FIELD = re.compile(r"^([a-z][a-z_]*):(?:\s+(.*)|\s*)$")
_DEFAULT_TOLERANCE = "1%"


@dataclass(frozen=True)
class Question:
    """A question of a step and its answer.

    kind : ``choice``, ``vertices``, ``number`` or ``reveal``.
    answer : the text of the answer as written; :attr:`value` is its typed form (a string for
        ``choice``/``reveal``, a frozenset of vertex names, or a float).
    tolerance : for numbers, ``(value, relative?)``.
    computed : ``(name, {arg: value})`` of the engine computation that must agree, or None.
    """

    text: str
    kind: str
    answer: str
    value: object
    choices: tuple[str, ...] = ()
    tolerance: tuple[float, bool] = (0.01, True)
    computed: tuple[str, dict] | None = None
    why: str = ""
    line: int = 0
    answer_line: int = 0

    def check(self, response) -> bool:
        """Whether ``response`` (a choice, an iterable or comma-separated text of vertex names, or
        a number or its text) is right. A ``reveal`` question has nothing to check: False."""
        if self.kind == "choice":
            return str(response).strip() == self.value
        if self.kind == "vertices":
            names = _vertex_set(response) if isinstance(response, str) else frozenset(str(x).strip() for x in response)
            return names == self.value
        if self.kind == "number":
            try:
                x = float(str(response).strip().replace(",", "."))
            except ValueError:
                return False
            return _close(x, self.value, self.tolerance)
        return False

    def agrees(self, computed) -> bool:
        """Whether an engine-computed answer equals this question's answer."""
        if self.kind == "number":
            return isinstance(computed, (int, float)) and _close(float(computed), self.value, self.tolerance)
        if self.kind == "vertices":
            return frozenset(map(str, computed)) == self.value
        return str(computed) == self.value


@dataclass(frozen=True)
class Step:
    title: str
    state: str          # the link as written
    url: str            # the canonical link (workbench.declarations.page_spec.PageTable.build_link)
    text: str           # the explanation (Markdown)
    minutes: int | None = None
    question: Question | None = None
    line: int = 0
    state_line: int = 0
    practice: tuple[int, str] | None = None   # (exercises to solve, family) of a practice step


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    minutes: int
    audience: str
    steps: tuple[Step, ...]
    intro: str = ""
    papers: str = ""
    order: int = 100
    path: str = ""

    def to_dict(self) -> dict:
        """The JSON object of ``python -m engine lessons list --json``."""
        steps = []
        for s in self.steps:
            d = {"title": s.title, "url": s.url}
            if s.question is not None:
                d["question"] = s.question.text
            steps.append(d)
        return {"id": self.id, "title": self.title, "minutes": self.minutes, "steps": steps}


def _close(x: float, target: float, tol: tuple[float, bool]) -> bool:
    if not math.isfinite(x):
        return False
    t, rel = tol
    return abs(x - target) <= (t * abs(target) if rel else t) + 1e-12


def _vertex_set(text: str) -> frozenset:
    s = text.strip()
    if s.lower() in ("", "none", "(none)", "-", "—", "∅"):
        return frozenset()
    return frozenset(x.strip() for x in s.split(",") if x.strip())


def parse_lesson(text: str, path: str = "lesson.md", *, check_states: bool = True) -> Lesson:
    """Parse and validate one lesson (``path`` names it in errors; its stem is the lesson's id).

    With ``check_states`` every step's link is checked against the page table and its tree
    (:func:`workbench.declarations.page_spec.check_link`), and every vertex answer against the step's tree.
    """
    label = Path(path).name or path

    def fail(line: int, msg: str):
        raise LessonError(f"{label}:{line}: {msg}", label, line)

    lines = text.split("\n")
    try:
        limits.check("lesson_bytes", len(text.encode("utf-8", "replace")), "the lesson: bytes")
    except LimitExceededError as exc:
        fail(1, str(exc))
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or lines[i].strip() != "---":
        fail(i + 1 if i < len(lines) else 1, "a lesson starts with a front matter: a line '---', then "
             "title:, minutes:, audience:, then '---'")
    start = i + 1
    front: dict[str, tuple[str, int]] = {}
    i += 1
    while True:
        if i >= len(lines):
            fail(start, "the front matter is never closed with a line '---'")
        s = lines[i].strip()
        i += 1
        if s == "---":
            break
        if not s or s.startswith("#"):
            continue
        m = _FIELD.match(s)
        if m is None:
            fail(i, f"expected 'key: value' in the front matter, found {s[:60]!r}")
        key, val = m.group(1), (m.group(2) or "").strip()
        if key not in FRONT_KEYS:
            fail(i, f"unknown front-matter key {key!r}{_suggest(key, FRONT_KEYS)}; keys: {', '.join(FRONT_KEYS)}")
        if key in front:
            fail(i, f"{key} is given twice (first at line {front[key][1]})")
        if not val:
            fail(i, f"{key} is empty")
        front[key] = (val, i)
    for key in ("title", "minutes", "audience"):
        if key not in front:
            fail(start, f"the front matter has no {key}:")
    minutes = _int(front["minutes"], 1, 600, "minutes", fail)
    order = _int(front["order"], 0, 10_000, "order", fail) if "order" in front else 100

    # the body: an introduction, then steps
    intro: list[str] = []
    raw_steps: list[tuple[str, int, list[tuple[int, str]]]] = []
    fence = False
    for j in range(i, len(lines)):
        line = lines[j]
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and line.startswith("## "):
            title = line[3:].strip()
            if not title:
                fail(j + 1, "a step heading needs a title after '## '")
            raw_steps.append((title, j + 1, []))
        elif raw_steps:
            raw_steps[-1][2].append((j + 1, line))
        else:
            if line.startswith("# ") and not fence:
                fail(j + 1, "use '## ' for a step heading (the lesson's title is in the front matter)")
            intro.append(line)
    if not raw_steps:
        last = max((j + 1 for j, x in enumerate(lines) if x.strip()), default=1)
        fail(last, "the lesson has no steps (a step starts with a line '## Title')")
    if len(raw_steps) > MAX_STEPS:
        fail(raw_steps[MAX_STEPS][1], f"a lesson has at most {MAX_STEPS} steps")
    steps = [_step(title, line, body, fail, check_states) for title, line, body in raw_steps]
    timed = [s for s in steps if s.minutes is not None]
    if timed and len(timed) != len(steps):
        untimed = next(s for s in steps if s.minutes is None)
        fail(untimed.line, f"step {untimed.title!r} has no minutes: give minutes for every step or for none")
    if timed and sum(s.minutes for s in steps) != minutes:
        fail(front["minutes"][1], f"the steps take {sum(s.minutes for s in steps)} minutes; the lesson says {minutes}")
    return Lesson(id=Path(path).stem, title=front["title"][0], minutes=minutes, audience=front["audience"][0],
                  steps=tuple(steps), intro="\n".join(intro).strip(),
                  papers=front.get("papers", ("", 0))[0], order=order, path=str(path))


def _suggest(key: str, keys, cutoff: float = 0.6) -> str:
    close = difflib.get_close_matches(key, keys, n=1, cutoff=cutoff)
    return f" (did you mean {close[0]}?)" if close else ""


def _int(entry: tuple[str, int], lo: int, hi: int, what: str, fail) -> int:
    val, line = entry
    try:
        v = int(val)
    except ValueError:
        fail(line, f"{what} must be a whole number, found {val!r}")
    if not lo <= v <= hi:
        fail(line, f"{what} must be in {lo}..{hi}, found {v}")
    return v


def _step(title: str, line: int, body: list[tuple[int, str]], fail, check_states: bool) -> Step:
    fields: dict[str, tuple[str, int]] = {}
    text: list[str] = []
    fence = False
    last = None
    for ln, raw in body:
        if raw.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _FIELD.match(raw)
        if m is not None and m.group(1) in STEP_KEYS:
            key = m.group(1)
            if key in fields:
                fail(ln, f"{key} is given twice in step {title!r} (first at line {fields[key][1]})")
            fields[key] = ((m.group(2) or "").strip(), ln)
            last = key
            continue
        if m is not None and not fence and _suggest(m.group(1), STEP_KEYS) and m.group(1) not in ("note", "tip"):
            fail(ln, f"unknown field {m.group(1)!r}{_suggest(m.group(1), STEP_KEYS)}")
        if last is not None and raw.startswith("  ") and raw.strip():
            val, fl = fields[last]
            fields[last] = ((val + " " + raw.strip()).strip(), fl)
            continue
        last = None
        text.append(raw)
    for key, (val, ln) in fields.items():
        if not val:
            fail(ln, f"{key} is empty")
    practice = _practice(*fields["practice"], fail) if "practice" in fields else None
    if practice is not None and "question" in fields:
        fail(fields["practice"][1], f"step {title!r} has a question and a practice: give one of them")
    if "state" not in fields and practice is not None:
        fields["state"] = (f"/practice?family={practice[1]}", fields["practice"][1])
    if "state" not in fields:
        fail(line, f"step {title!r} has no state: (the app state as a link, e.g. state: /cover_inspector?tree=figure1)")
    explanation = "\n".join(text).strip()
    if not explanation:
        fail(line, f"step {title!r} has no explanation: a few lines on what happens and what to look at")
    state, sline = fields["state"]
    link, tree = _check_state(state, sline, fail, check_states)
    minutes = _int(fields["minutes"], 1, 600, "minutes", fail) if "minutes" in fields else None
    question = None
    qkeys = ("kind", "choices", "answer", "tolerance", "computed", "why")
    if "question" in fields:
        question = _question(fields, title, fail, tree if check_states else None)
    else:
        stray = [k for k in qkeys if k in fields]
        if stray:
            fail(fields[stray[0]][1], f"{stray[0]} belongs to a question, and step {title!r} has no question:")
    return Step(title=title, state=state, url=link.url if link is not None else state, text=explanation,
                minutes=minutes, question=question, line=line, state_line=sline, practice=practice)


def _practice(text: str, line: int, fail) -> tuple[int, str]:
    """``N exercises of family F`` (or ``N F``) -> (N, F), checked against the practice families."""
    m = _PRACTICE.match(text.strip())
    if m is None:
        fail(line, f"practice must read 'N exercises of family F', found {text[:60]!r}")
    n, fam = int(m.group(1)), m.group(2)
    if not 1 <= n <= MAX_PRACTICE:
        fail(line, f"practice asks for 1..{MAX_PRACTICE} exercises, found {n}")
    if fam not in FAMILIES:
        fail(line, f"unknown practice family {fam!r}{_suggest(fam, list(FAMILIES))}; families: {', '.join(FAMILIES)}")
    return n, fam


def _check_state(state: str, line: int, fail, check_states: bool):
    try:
        link = PAGES.parse_link(state)
    except EngineError as exc:
        fail(line, f"bad state {state[:80]!r}: {exc}")
    tree = None
    if check_states:
        try:
            tree, _ = link_tree(link.values)
            check_link(link, tree)
        except EngineError as exc:
            fail(line, f"bad state {state[:80]!r}: {exc}")
    return link, tree


def _question(fields: dict, title: str, fail, tree) -> Question:
    qtext, qline = fields["question"]
    if "answer" not in fields:
        fail(qline, f"the question of step {title!r} has no answer:")
    answer, aline = fields["answer"]
    choices = ()
    if "choices" in fields:
        choices = tuple(c.strip() for c in fields["choices"][0].split("|"))
        if len(choices) < 2 or any(not c for c in choices) or len(set(choices)) != len(choices):
            fail(fields["choices"][1], "choices are two or more distinct, non-empty options separated by |")
    kind = fields["kind"][0] if "kind" in fields else ("choice" if choices else "reveal")
    if kind not in KINDS:
        fail(fields["kind"][1], f"kind must be one of {', '.join(KINDS)}, found {kind!r}")
    if choices and kind != "choice":
        fail(fields["choices"][1], f"choices belong to a question of kind choice, not {kind}")
    tolerance = (0.01, True)
    if "tolerance" in fields:
        if kind != "number":
            fail(fields["tolerance"][1], "a tolerance belongs to a question of kind number")
        tolerance = _tolerance(*fields["tolerance"], fail)
    value: object = answer
    if kind == "choice":
        if not choices:
            fail(qline, "a question of kind choice needs choices: a | b | c")
        if answer not in choices:
            fail(aline, f"the answer {answer!r} is not one of the choices ({' | '.join(choices)})")
    elif kind == "vertices":
        value = _vertex_set(answer)
        if tree is not None:
            unknown = sorted(v for v in value if v not in tree._index)
            if unknown:
                fail(aline, f"the answer names {', '.join(unknown)}, not vertices of the step's tree")
    elif kind == "number":
        try:
            value = float(answer)
        except ValueError:
            fail(aline, f"the answer of a number question must be a number, found {answer!r}")
        if not math.isfinite(value):
            fail(aline, "the answer must be a finite number")
    computed = None
    if "computed" in fields:
        computed = _computed(*fields["computed"], kind, fail)
    return Question(text=qtext, kind=kind, answer=answer, value=value, choices=choices, tolerance=tolerance,
                    computed=computed, why=fields.get("why", ("", 0))[0], line=qline, answer_line=aline)


def _tolerance(val: str, line: int, fail) -> tuple[float, bool]:
    rel = val.endswith("%")
    try:
        t = float(val[:-1] if rel else val)
    except ValueError:
        fail(line, f"a tolerance is a number, or a percentage such as 1%, found {val!r}")
    if not math.isfinite(t) or t < 0:
        fail(line, "a tolerance must be finite and >= 0")
    return (t / 100.0, True) if rel else (t, False)


def _computed(val: str, line: int, kind: str, fail) -> tuple[str, dict]:
    name, *rest = val.split()
    comp = COMPUTATIONS.get(name)
    if comp is None:
        fail(line, f"unknown computation {name!r}{_suggest(name, list(COMPUTATIONS))}; known: "
             f"{', '.join(sorted(COMPUTATIONS))}")
    args = {}
    for r in rest:
        k, eq, v = r.partition("=")
        if not eq or not k or not v:
            fail(line, f"arguments of a computation are name=value, found {r!r}")
        if k not in comp.args:
            fail(line, f"computation {name} takes {', '.join(comp.args) or 'no arguments'}, not {k!r}")
        args[k] = v
    if comp.kind != kind:
        fail(line, f"computation {name} gives an answer of kind {comp.kind}; the question is of kind {kind}")
    return name, args
