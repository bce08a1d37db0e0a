"""Every link the repository ships (lessons/, docs/, README.md) and the state it opens, decoded.

``python -m tests.link_states`` writes ``tests/data/link_states.json`` (run it only to accept a
deliberate change of what a link means); ``tests/test_link_states.py`` compares the decoded states
of today's code with that file, so a refactoring of the page table, the codec or the run
configurations cannot change what a link sent to a class opens.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np

from engine.errors import EngineError
from engine.lessons import lesson_files, read_lesson
from engine.links.pages import check_link, link_tree
from engine.pagespecs import PAGES

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "link_states.json"
_PAGE = "|".join(sorted(PAGES, key=len, reverse=True))
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
        return {"sha256": hashlib.sha256(np.ascontiguousarray(np.round(x.astype(float), 12)).tobytes()).hexdigest(),
                "shape": list(x.shape)}
    if isinstance(x, str) and x.startswith("/"):
        return "PATH:" + Path(x).name   # data files: where the data folder is differs between machines
    return x


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
                                 "log_partition": round(float(om.log_partition()), 9)}
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
