"""Runs of the history as text: JSON (the whole records) or one tidy CSV table."""

from __future__ import annotations

import csv
import io
import json

from engine.errors import InvalidParameterError

__all__ = ["export_runs", "EXPORT_FORMATS"]

EXPORT_FORMATS = ("json", "csv")


def export_runs(records, fmt: str) -> str:
    """Runs as text: ``json`` (``{"runs": [record, ...]}``) or ``csv``.

    The CSV is one tidy table with columns ``run, algorithm, section, name, x, value``: a row per
    config setting (section ``config``, value as JSON), per metric (``metric``) and per curve
    point (``curve``, with its ``x``), so the curves of several runs load into one data frame.
    """
    if fmt == "json":
        return json.dumps({"runs": [r.to_dict() for r in records]}, allow_nan=False, indent=1) + "\n"
    if fmt != "csv":
        raise InvalidParameterError(f"unknown export format {fmt!r}; expected json or csv")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "algorithm", "section", "name", "x", "value"])
    for r in records:
        d = r.to_dict()
        for k in ("status", "seed", "code_version", "started", "ended", "seconds", "label", "sweep"):
            w.writerow([r.id, r.algorithm, "run", k, "", "" if d[k] is None else d[k]])
        for k, v in d["config"].items():
            w.writerow([r.id, r.algorithm, "config", k, "", v if isinstance(v, str) else json.dumps(v)])
        for k, v in d["metrics"].items():
            w.writerow([r.id, r.algorithm, "metric", k, "",
                        "" if v is None else (v if isinstance(v, (int, float, str)) else json.dumps(v))])
        for name, pts in d["curves"].items():
            for pt in pts:
                x, y = (pt[0], pt[1]) if isinstance(pt, list) and len(pt) >= 2 else ("", pt)
                w.writerow([r.id, r.algorithm, "curve", name, x, "" if y is None else y])
    return buf.getvalue()
