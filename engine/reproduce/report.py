"""A reproduction report: our numbers beside a paper's published ones, as Markdown, HTML and JSON.

A :class:`Report` holds rows (:class:`Row`: the data, the metric, the published number, ours, the
spread of ours over seeds or folds, and the difference), figures (:class:`Figure`: named series,
drawn as standalone SVG by :mod:`engine.svgplot`), the benchmark sets that were looked for and not
found (:class:`Missing`, with where to get them), notes, and the settings it was made with. It is
plain data: :meth:`Report.to_dict` and :meth:`Report.from_dict` round-trip it through JSON (the run
history keeps it as a run's artefact), :meth:`Report.markdown` and :meth:`Report.html` render it, and
:meth:`Report.write` puts ``PAPER.md``, ``PAPER.html``, ``PAPER.json`` and ``figures/PAPER-*.svg`` in a
folder.

>>> r = Report("demo", "A paper", "A. Author", rows=(Row("set", "loss (%)", 10.0, 10.5, 0.2, n=5, note="sd 0.3"),))
>>> r.rows[0].difference
0.5
>>> r.json_line()["rows"]  # doctest: +NORMALIZE_WHITESPACE
[{'data': 'set', 'metric': 'loss (%)', 'published': 10.0, 'ours': 10.5, 'spread': 0.2, 'difference': 0.5,
  'note': 'sd 0.3', 'n': 5}]
>>> "| set | loss (%) | 10.00 | 10.50 | 0.20 (n = 5) | +0.50 | sd 0.3 |" in r.markdown()
True
"""

from __future__ import annotations

import base64
import dataclasses
import math
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from engine.jsonio import dumps, to_jsonable
from engine.svgplot import line_plot

__all__ = ["Row", "Figure", "Missing", "Report", "spread_of", "ROW_KEYS"]

#: The keys of a row in ``python -m engine reproduce --json``, in this order (people script against
#: them: keys are only ever added, at the end). ``note`` tells a bound met from a failed match
#: ("published 2.0, ours 1.0" under "published: the bound ...") as the report's table does; ``n`` is
#: how many seeds or folds ``ours`` and ``spread`` are over.
ROW_KEYS = ("data", "metric", "published", "ours", "spread", "difference", "note", "n")


def _number(x) -> float | None:
    """A finite float, or None (missing, NaN)."""
    if x is None or isinstance(x, bool):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def spread_of(values: Sequence[float]) -> tuple[float | None, float | None, int]:
    """``(mean, standard deviation, n)`` of the finite values (the sample standard deviation,
    ``ddof=1``; None with fewer than two values; mean None when there is none).

    >>> spread_of([1.0, 2.0, 3.0])
    (2.0, 1.0, 3)
    >>> spread_of([4.0])
    (4.0, None, 1)
    """
    v = np.array([x for x in (_number(x) for x in values) if x is not None], float)
    if v.size == 0:
        return None, None, 0
    return float(v.mean()), (float(v.std(ddof=1)) if v.size > 1 else None), int(v.size)


@dataclass(frozen=True)
class Row:
    """One line of the comparison.

    data : the data set (or setting) the number is about; metric : what is measured, with its unit.
    published : the paper's number (None when the paper gives none); ours : ours (mean over the seeds
    or folds); spread : the standard deviation of ours over them (None for a single or exact value).
    n : how many seeds or folds ``ours`` averages; digits : decimals shown; note : one line (e.g. the
    published standard deviation, or that the published number is a bound).
    """

    data: str
    metric: str
    published: float | None
    ours: float | None
    spread: float | None = None
    n: int = 1
    digits: int = 2
    note: str = ""

    def __post_init__(self) -> None:
        for name in ("published", "ours", "spread"):
            object.__setattr__(self, name, _number(getattr(self, name)))

    @property
    def difference(self) -> float | None:
        """ours - published (None when either is missing)."""
        if self.ours is None or self.published is None:
            return None
        return self.ours - self.published

    def json_row(self) -> dict[str, Any]:
        """The row of ``--json``: exactly :data:`ROW_KEYS`."""
        return {"data": self.data, "metric": self.metric, "published": self.published, "ours": self.ours,
                "spread": self.spread, "difference": self.difference, "note": self.note, "n": int(self.n)}

    def cells(self) -> list[str]:
        """The row as text cells: data, metric, published, ours, spread, difference, note."""
        d = self.digits
        spread = "" if self.spread is None else f"{self.spread:.{d}f}"
        if self.n > 1:
            spread = f"{spread} (n = {self.n})".strip()
        diff = self.difference
        if diff is not None and round(diff, d) == 0:
            diff = 0.0  # no "-0.00"
        return [self.data, self.metric, _fmt(self.published, d), _fmt(self.ours, d), spread,
                "" if diff is None else f"{diff:+.{d}f}", self.note]


def _fmt(x: float | None, digits: int) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


@dataclass(frozen=True)
class Figure:
    """A line figure: ``series`` maps a name to ``(xs, ys)``; names in ``dashed`` are reference
    lines (a published level, a bound). ``caption`` says what it shows."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: dict[str, tuple[list, list]]
    logx: bool = False
    logy: bool = False
    dashed: tuple[str, ...] = ()
    caption: str = ""

    def svg(self) -> str:
        return line_plot({k: (list(x), list(y)) for k, (x, y) in self.series.items()}, title=self.title,
                         xlabel=self.xlabel, ylabel=self.ylabel, logx=self.logx, logy=self.logy,
                         dashed=self.dashed, width=860, height=420)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        # a list, not an object: the series keep their order (their colours) through JSON with sorted keys
        d["series"] = [[k, list(x), list(y)] for k, (x, y) in self.series.items()]
        d["dashed"] = list(self.dashed)
        return to_jsonable(d)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Figure":
        d = dict(d)
        d["series"] = {k: (list(x), list(y)) for k, x, y in d.get("series", ())}
        d["dashed"] = tuple(d.get("dashed", ()))
        return cls(**d)


@dataclass(frozen=True)
class Missing:
    """A data set of the paper that is not in the data folder: its name, what it is used for, and
    where to get it (and where to put it)."""

    name: str
    used_for: str
    where: str


@dataclass(frozen=True)
class Report:
    """A paper's reproduction (see the module docstring)."""

    paper: str
    title: str
    authors: str
    rows: tuple[Row, ...] = ()
    figures: tuple[Figure, ...] = ()
    missing: tuple[Missing, ...] = ()
    protocol: str = ""
    notes: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    # -- data ------------------------------------------------------------------------------------
    def json_line(self) -> dict[str, Any]:
        """The object ``python -m engine reproduce --json`` prints for this paper (one line)."""
        settings = dict(self.settings)
        settings["missing"] = [m.name for m in self.missing]
        return to_jsonable({"paper": self.paper, "rows": [r.json_row() for r in self.rows], "settings": settings})

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable({
            "paper": self.paper, "title": self.title, "authors": self.authors, "protocol": self.protocol,
            "rows": [{**dataclasses.asdict(r), "difference": r.difference} for r in self.rows],
            "figures": [f.to_dict() for f in self.figures],
            "missing": [dataclasses.asdict(m) for m in self.missing],
            "notes": list(self.notes), "settings": self.settings})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Report":
        rows = tuple(Row(**{k: v for k, v in r.items() if k != "difference"}) for r in d.get("rows", ()))
        return cls(d["paper"], d.get("title", ""), d.get("authors", ""), rows,
                   tuple(Figure.from_dict(f) for f in d.get("figures", ())),
                   tuple(Missing(**m) for m in d.get("missing", ())), d.get("protocol", ""),
                   tuple(d.get("notes", ())), dict(d.get("settings", {})))

    # -- text ------------------------------------------------------------------------------------
    def _heading(self) -> str:
        return f'Reproducing "{self.title}" ({self.authors})'

    def _made(self) -> str:
        s = self.settings
        sweep = f" --sweep {s['sweep']}" if s.get("backend") == "recorded sweep" else ""
        seeds = f" --seeds {s['seeds_option']}" if s.get("seeds_option") else ""
        parts = [f"`python -m engine reproduce {self.paper}{' --quick' if s.get('quick') else ''}{seeds}{sweep}`"]
        if s.get("created"):
            parts.append(f"on {s['created']}")
        if s.get("code_version"):
            parts.append(f"with code {s['code_version']}")
        text = "Made by " + " ".join(parts)
        if s.get("seconds") is not None:
            text += f", in {s['seconds']:.0f} s"
        if s.get("load_average"):
            text += f" (load average {s['load_average']})"
        return text + "."

    def markdown(self, figure_dir: str | None = "figures") -> str:
        """The report as Markdown; figures are linked as ``figure_dir/PAPER-NAME.svg``, or with
        ``figure_dir=None`` embedded (``data:`` URLs), so that the one file is the whole report."""
        s = self.settings
        out = [f"# {self._heading()}", ""]
        if s.get("quick"):
            out += ["**Quick protocol**: a reduced run (fewer seeds, folds or iterations; see below), to check "
                    "that everything works, not the paper's protocol.", ""]
        out += [self._made(), ""]
        if self.protocol:
            out += [f"**Protocol.** {self.protocol}", ""]
        out += ["| data | metric | published | ours | spread (sd) | difference | note |",
                "|---|---|---:|---:|---:|---:|---|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r.cells()) + " |" for r in self.rows]
        out += ["", "*Spread*: the standard deviation of ours over the seeds or folds (n); *difference*: ours "
                "minus published.", ""]
        for f in self.figures:
            src = (f"{figure_dir}/{self.paper}-{f.name}.svg" if figure_dir is not None else
                   "data:image/svg+xml;base64," + base64.b64encode(f.svg().encode()).decode())
            out += [f"![{f.title}]({src})", ""]
            if f.caption:
                out += [f"*{f.caption}*", ""]
        if self.missing:
            out += ["**Data sets of the paper not found in the data folder** (put them in "
                    f"`{s.get('data_folder') or s.get('data_home', 'the data folder')}`):", ""]
            out += [f"- `{m.name}` ({m.used_for}): {m.where}" for m in self.missing]
            out += [""]
        if self.notes:
            out += ["**Notes.**", ""] + [f"- {n}" for n in self.notes] + [""]
        out += ["**Settings.**", "", "| setting | value |", "|---|---|"]
        out += [f"| {k} | `{v}` |" for k, v in self._settings_shown()]
        return "\n".join(out) + "\n"

    def _settings_shown(self) -> list[tuple[str, str]]:
        """The settings a reader checks (the made-by line has the rest), values as compact JSON."""
        skip = ("created", "code_version", "seconds", "load_average")
        return [(k, dumps(v, sort_keys=True)) for k, v in sorted(self.settings.items()) if k not in skip]

    def html(self) -> str:
        """The report as one standalone HTML page (figures inline as SVG)."""
        s = self.settings
        h = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(self._heading())}</title>",
             "<style>body{font-family:Helvetica,Arial,sans-serif;font-size:15px;max-width:1100px;margin:2em auto;"
             "padding:0 1em;color:#222}table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;"
             "padding:4px 8px;font-size:14px}td.n{text-align:right;font-variant-numeric:tabular-nums}"
             "th{background:#f2f2f2}figure{margin:1.5em 0}figcaption{font-style:italic}"
             ".quick{background:#fff4d6;padding:.5em 1em;border-left:4px solid #E69F00}"
             "pre{background:#f6f6f6;padding:.8em;overflow:auto}</style></head><body>",
             f"<h1>{escape(self._heading())}</h1>"]
        if s.get("quick"):
            h.append('<p class="quick"><b>Quick protocol</b>: a reduced run (fewer seeds, folds or iterations), '
                     "to check that everything works, not the paper's protocol.</p>")
        h.append(f"<p>{_inline(self._made())}</p>")
        if self.protocol:
            h.append(f"<p><b>Protocol.</b> {escape(self.protocol)}</p>")
        h.append("<table><tr><th>data</th><th>metric</th><th>published</th><th>ours</th><th>spread (sd)</th>"
                 "<th>difference</th><th>note</th></tr>")
        for r in self.rows:
            c = [escape(x) for x in r.cells()]
            h.append(f"<tr><td>{c[0]}</td><td>{c[1]}</td>" + "".join(f'<td class="n">{x}</td>' for x in c[2:6])
                     + f"<td>{c[6]}</td></tr>")
        h.append("</table><p><i>Spread</i>: the standard deviation of ours over the seeds or folds (n); "
                 "<i>difference</i>: ours minus published.</p>")
        for f in self.figures:
            h.append(f"<figure>{f.svg()}" + (f"<figcaption>{escape(f.caption)}</figcaption>" if f.caption else "")
                     + "</figure>")
        if self.missing:
            h.append("<p><b>Data sets of the paper not found in the data folder</b> (put them in "
                     f"<code>{escape(str(s.get('data_folder') or s.get('data_home', 'the data folder')))}</code>):</p><ul>")
            h += [f"<li><code>{escape(m.name)}</code> ({escape(m.used_for)}): {escape(m.where)}</li>" for m in self.missing]
            h.append("</ul>")
        if self.notes:
            h.append("<p><b>Notes.</b></p><ul>" + "".join(f"<li>{escape(n)}</li>" for n in self.notes) + "</ul>")
        h.append("<p><b>Settings.</b></p><table><tr><th>setting</th><th>value</th></tr>"
                 + "".join(f"<tr><td>{escape(k)}</td><td><code>{escape(v)}</code></td></tr>"
                           for k, v in self._settings_shown()) + "</table></body></html>")
        return "\n".join(h) + "\n"

    def write(self, folder) -> dict[str, Path]:
        """Write ``PAPER.md``, ``PAPER.html``, ``PAPER.json`` and ``figures/PAPER-NAME.svg`` into
        ``folder`` (created); the paths written, by kind."""
        folder = Path(folder)
        (folder / "figures").mkdir(parents=True, exist_ok=True)
        out = {}
        for f in self.figures:
            p = folder / "figures" / f"{self.paper}-{f.name}.svg"
            _write(p, f.svg())
            out[f"figure:{f.name}"] = p
        for kind, text in (("md", self.markdown()), ("html", self.html()),
                           ("json", dumps(self.to_dict(), indent=1) + "\n")):
            p = folder / f"{self.paper}.{kind}"
            _write(p, text)
            out[kind] = p
        return out


def _inline(text: str) -> str:
    """Markdown's inline code (``x``) as HTML, the rest escaped."""
    parts = escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def _write(path: Path, text: str) -> None:
    """Write through a temporary file beside ``path``, so a report is never half written."""
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
