"""Every link the repository ships (lessons/, docs/, README.md) and the state it opens, decoded.

``python -m tests.link_states`` writes ``tests/data/link_states.json`` (run it only to accept a
deliberate change of what a link means); ``tests/test_link_states.py`` compares the decoded states
of today's code with that file, so a refactoring of the page table, the codec or the run
configurations cannot change what a link sent to a class opens.

The numbers the engine computes for a link (its model's potentials and the online model's log
partition function) are compared within a relative :data:`REL`: their last bits depend on the CPU
(NumPy's ``exp`` has AVX-512 loops; the log partition function sums a thousand logarithms). The
page, the typed values, the defaults, the checks and the run configurations are compared exactly.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from engine.errors import EngineError
from workbench.declarations.lessons import lesson_files, read_lesson
from workbench.declarations.page_spec import check_link, link_tree
from workbench.declarations.page_table import PAGES

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "link_states.json"
_PAGE = "|".join(sorted(PAGES, key=len, reverse=True))
REL = 1e-9          # relative, on the numbers the engine computes (under "model" and "online")
COMPUTED = ("model", "online")
WHOLE = 64          # an array of at most this many entries is kept entry by entry
_LINK = re.compile(r"(?<![\w./])/(?:" + _PAGE + r")(?:\?[^\s)`\"'<>\]|]*)?(?![\w/.])")


def shipped_links() -> list[str]:
    """The links of every lesson step and every link written in docs/ and README.md, in order."""
    found: list[str] = []
    for path in lesson_files():
        found += [step.state for step in read_lesson(path, check_states=False).steps]
        found += _LINK.findall(path.read_text(encoding="utf-8"))
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        found += _LINK.findall(md.read_text(encoding="utf-8"))
    return list(dict.fromkeys(found))


def _plain(x):
    """JSON-able, with tuples and paths kept apart from lists and strings."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return {"tuple": [_plain(v) for v in x]}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _array(x)
    if isinstance(x, str) and x.startswith("/"):
        return "PATH:" + Path(x).name   # data files: where the data folder is differs between machines
    return x


def _array(x: np.ndarray) -> dict:
    """An array as JSON: its shape and its entries, or (more than :data:`WHOLE` entries) its shape
    and four sums that a change of any entry moves: plain, of absolute values, of squares, and
    weighted by position (so a permutation moves it too). ``math.fsum`` rounds each sum once, so the
    same entries give the same sums on any CPU."""
    v = np.ascontiguousarray(x, dtype=float).ravel()
    if v.size <= WHOLE:
        return {"shape": list(x.shape), "entries": v.tolist()}
    w = np.arange(1, v.size + 1) / v.size
    return {"shape": list(x.shape), "sum": math.fsum(v), "abs_sum": math.fsum(np.abs(v)),
            "square_sum": math.fsum(v * v), "weighted_sum": math.fsum(v * w)}


def differences(got, want, path: str = "", *, computed: bool = False) -> list[str]:
    """Where the decoded state ``got`` differs from ``want`` (both as JSON values): the numbers under
    "model" and "online" within a relative :data:`REL`, everything else exactly (``[]``: the same)."""
    if isinstance(want, dict) and isinstance(got, dict):
        if got.keys() != want.keys():
            return [f"{path or 'state'}: keys {sorted(got)} instead of {sorted(want)}"]
        return [d for k in want for d in differences(got[k], want[k], f"{path}/{k}",
                                                      computed=computed or (not path and k in COMPUTED))]
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{path}: {len(got)} items instead of {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences(g, w, f"{path}[{i}]", computed=computed)]
    if computed and type(got) in (int, float) and type(want) in (int, float):
        same = math.isclose(got, want, rel_tol=REL) or (math.isnan(got) and math.isnan(want))
    else:
        same = got == want
    return [] if same else [f"{path}: {got!r} instead of {want!r}"]


def _config(config) -> dict:
    return _plain(json.loads(config.to_json()))


def decoded_state(text: str) -> dict:
    """What ``text`` opens: its page, its typed values, with the page's defaults, whether it fits its
    tree, and the engine objects the page builds from it (model or run configuration)."""
    try:
        link = PAGES.parse_link(text)
    except EngineError as exc:
        return {"error": str(exc)}
    spec = link.page
    page = spec.url_path
    out = {"page": page, "title": spec.title, "values": _plain(link.values),
           "with_defaults": _plain(spec.with_defaults(link.values))}
    try:
        tree, _ = link_tree(link.values)
        check_link(link, tree)
        out["check"] = "ok"
    except EngineError as exc:
        out["check"] = str(exc)
        return out
    v = spec.with_defaults(link.values)
    try:
        if page in ("belief_propagation", "online_marginals") and tree is not None:
            m = spec.run_config(v).model(tree)
            out["model"] = _plain({"k": m.k, "phi": m.node_potentials, "prior": m.prior_node_potentials,
                                   "psi": m.edge_potentials, "states": m.states})
            if page == "online_marginals":
                om = spec.run_config(v).online(tree)
                out["online"] = {"height": om.height, "cover": om.cover.__class__.__name__,
                                 "log_partition": float(om.log_partition())}
        elif page == "tree_hedge" and tree is not None:
            out["config"] = _config(spec.run_config(v, tree))
        elif page in ("ofde", "rta", "bhtmm"):
            out["config"] = _config(spec.run_config(v))
    except EngineError as exc:
        out["build"] = str(exc)
    return out


def main() -> None:
    states = {text: decoded_state(text) for text in shipped_links()}
    FIXTURE.write_text(json.dumps(states, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{FIXTURE.relative_to(ROOT)}: {len(states)} links")


if __name__ == "__main__":
    main()
